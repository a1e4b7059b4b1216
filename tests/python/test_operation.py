"""Operation scope of the Python front end (python/ttlplan/frontend/operation.py): the kernels here
are written for these tests in tt-lang's style (spec 0.15 names and the older ones), and every
expected number is worked out by hand in the comments."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from ttlplan.frontend.errors import FrontendError  # noqa: E402
from ttlplan.frontend.operation import read_operations  # noqa: E402
from ttlplan.frontend.values import Sym  # noqa: E402

ADD = '''import ttl

TILE_SIZE = 32
GRANULARITY = 4


@ttl.operation(grid=(2, 1))
def add(a, b, out):
    """out = a + b, blocks of GRANULARITY x 1 tiles."""
    row_blocks = a.shape[0] // TILE_SIZE // GRANULARITY
    col_tiles = a.shape[1] // TILE_SIZE
    per_node = -(-row_blocks // 2)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(GRANULARITY, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(GRANULARITY, 1))
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(GRANULARITY, 1), block_count=3)
    total = 0
    for i in range(row_blocks):
        total += col_tiles
    if row_blocks > 1:
        kind = "many"
    else:
        kind = "one"

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def reader():
        pass

    @ttl.datamovement()
    def writer():
        pass
'''

ARGS = {"a": ((512, 256), "bf16"), "b": ((512, 256), "bf16"), "out": ((512, 256), "bf16")}


class ReadsAnOperation(unittest.TestCase):
    def test_constants_buffers_threads(self):
        (op,) = read_operations("add.py", ADD, ARGS)
        self.assertEqual(op.name, "add")
        self.assertEqual(op.grid, (2, 1))
        # 512 elements = 16 tiles = 4 blocks of 4; 256 = 8 tiles; 4 blocks over 2 nodes = 2 each.
        self.assertEqual(op.env["row_blocks"], 4)
        self.assertEqual(op.env["col_tiles"], 8)
        self.assertEqual(op.env["per_node"], 2)
        self.assertEqual(op.env["total"], 32)  # 4 iterations of += 8
        self.assertEqual(op.env["kind"], "many")
        self.assertEqual([b.name for b in op.buffers], ["a_dfb", "b_dfb", "out_dfb"])
        self.assertEqual([b.shape for b in op.buffers], [(4, 1), (4, 1), (4, 1)])
        self.assertEqual([b.block_count for b in op.buffers], [2, 2, 3])  # tt-lang's default: 2
        self.assertEqual([(t.kind, t.node.name) for t in op.threads],
                         [("compute", "compute"), ("datamovement", "reader"),
                          ("datamovement", "writer")])

    def test_a_module_constant_as_a_knob(self):
        # The loop and the condition on row_blocks need its value, which a knob leaves unknown.
        src = ADD.replace("    for i in range(row_blocks):\n        total += col_tiles\n", "")
        src = src.replace("if row_blocks > 1:", "if col_tiles > 1:")
        (op,) = read_operations("add.py", src, ARGS, knobs={"GRANULARITY": "1,2,4,8"})
        self.assertEqual(op.buffers[0].shape, (Sym("@GRANULARITY"), 1))
        self.assertIsInstance(op.env["row_blocks"], Sym)

    def test_module_constants_by_tuple_unpacking_and_grid_size(self):
        # GRID_X, GRID_Y = 2, 1 (the spec's examples write the grid so); ttl.grid_size() without
        # dims is (x, y), dims=3 pads with a one, dims=1 is x * y.
        src = ADD.replace("GRANULARITY = 4\n", "GRANULARITY = 4\nGRID_X, GRID_Y = 2, 1\n").replace(
            "@ttl.operation(grid=(2, 1))", "@ttl.operation(grid=(GRID_X, GRID_Y))").replace(
            "    total = 0\n", "    total = 0\n    gx, gy = ttl.grid_size()\n"
            "    g3 = ttl.grid_size(dims=3)\n    g1 = ttl.grid_size(1)\n")
        (op,) = read_operations("add.py", src, ARGS)
        self.assertEqual(op.grid, (2, 1))
        self.assertEqual((op.env["gx"], op.env["gy"], op.env["g3"], op.env["g1"]),
                         (2, 1, (2, 1, 1), 2))

    def test_a_loop_bound_that_depends_on_a_knob_is_an_error(self):
        with self.assertRaises(FrontendError) as e:
            read_operations("add.py", ADD, ARGS, knobs={"GRANULARITY": "1,2,4,8"})
        self.assertIn("depends on a knob", e.exception.message)
        self.assertEqual(e.exception.line, 17)

    def test_older_spellings(self):
        old = ADD.replace("@ttl.operation", "@ttl.kernel").replace(
            "make_dataflow_buffer_like(a, shape=(GRANULARITY, 1), block_count=2)",
            "make_circular_buffer_like(a, shape=(GRANULARITY, 1), buffer_factor=5)")
        (op,) = read_operations("add.py", old, ARGS)
        self.assertEqual(op.buffers[0].block_count, 5)


FACTORY = '''import ttl


def make_scale(rows, scale, shape):
    inv = 1.0 / scale
    half = rows // 2

    @ttl.operation(grid=(1, 1))
    def scale_op(x, out, count):
        x_dfb = ttl.make_dataflow_buffer_like(x, shape=shape, block_count=count)
        n = half * count

        @ttl.compute()
        def compute():
            pass

        @ttl.datamovement()
        def write():
            ttl.copy(x_dfb.wait(), out[0, 0]).wait()

    return scale_op
'''


class Parameters(unittest.TestCase):
    """--args gives numbers and tuples as well as tensors (issue 40 item 3)."""

    def test_numbers_and_tuples_for_an_operation_and_its_factory(self):
        # rows=4 and scale=2.0 are the factory's; shape=2x1 is a tuple, since no tensor is made
        # like `shape`; count=3 is an integer parameter of the (multi-kernel era) operation.
        args = {"x": ((64, 32), "bf16"), "out": ((64, 32), "bf16"), "count": 3, "rows": 4,
                "scale": 2.0, "shape": ((2, 1), "bf16")}
        (op,) = read_operations("k.py", FACTORY, args)
        self.assertEqual(op.env["inv"], 0.5)
        self.assertEqual(op.env["n"], 6)  # rows // 2 * count
        self.assertEqual(op.buffers[0].shape, (2, 1))
        self.assertEqual(op.buffers[0].block_count, 3)
        self.assertEqual([t.name for t in op.args], ["x", "out"])

    def test_missing_factory_parameters_are_named_with_the_tensors(self):
        # rows too, though the operation reads only `half`, which the factory computes from it.
        with self.assertRaises(FrontendError) as e:
            read_operations("k.py", FACTORY, {"x": ((64, 32), "bf16")})
        self.assertIn("arguments 'out', 'count', 'rows', 'shape' have no shape and dtype",
                      e.exception.message)
        self.assertIn("pass --args out=ROWSxCOLS:DTYPE,count=N,rows=N,shape=N",
                      e.exception.message)

    def test_a_name_no_operation_takes(self):
        with self.assertRaises(FrontendError) as e:
            read_operations("k.py", ADD, {**ARGS, "c": ((64, 64), "bf16")})
        self.assertIn("--args gives c, which no operation in this file takes (they take a, b, "
                      "out)", e.exception.message)

    def test_the_command_line_spelling(self):
        from ttlplan.frontend.__main__ import UsageError, parse_args_spec
        self.assertEqual(parse_args_spec("a=64x32:f32,n=4,eps=1e-6,t=2x2,m=-3,half=0.5"),
                         {"a": ((64, 32), "f32"), "n": 4, "eps": 1e-6, "t": ((2, 2), "bf16"),
                          "m": -3, "half": 0.5})
        for bad in ("n=1e999", "n=99999999999", "n=4:", "n=x"):
            with self.assertRaises(UsageError):
                parse_args_spec(bad)


class Errors(unittest.TestCase):
    def check(self, source, args, message, line=None):
        with self.assertRaises(FrontendError) as e:
            read_operations("k.py", source, args)
        self.assertIn(message, e.exception.message)
        if line is not None:
            self.assertEqual(e.exception.line, line, str(e.exception))

    def test_syntax_error_is_located(self):
        self.check("def f(:\n", {}, "Python syntax error", line=1)

    def test_no_operation(self):
        self.check("x = 1\n", {}, "no function decorated @ttl.operation")

    def test_argument_without_shape(self):
        # Both missing arguments at once, located at the first, with one --args to fill in.
        self.check(ADD, {"a": ((64, 64), "bf16")}, "arguments 'b', 'out' have no shape and dtype",
                   line=8)
        self.check(ADD, {"a": ((64, 64), "bf16")},
                   "pass --args b=ROWSxCOLS:DTYPE,out=ROWSxCOLS:DTYPE", line=8)

    def test_while_is_refused_and_a_helper_evaluated(self):
        src = ADD.replace("    total = 0\n", "    total = 0\n    while True:\n        pass\n")
        self.check(src, ARGS, "a while loop is not supported", line=17)
        # A nested helper is evaluated where the operation scope calls it.
        src = ADD.replace("    total = 0\n", "    def helper(n):\n        return n * 2\n"
                                             "    total = helper(3)\n")
        (op,) = read_operations("k.py", src, ARGS)
        # helper(3) = 6, then the loop adds col_tiles (256 / 32 = 8) row_blocks (512 / 32 / 4 =
        # 4) times.
        self.assertEqual(op.env["total"], 6 + 4 * 8)

    def test_a_helper_that_builds_a_list(self):
        # test_pipenet_sync.py's pipe builders: append/extend in loops with continue and break.
        helper = ("    def helper(n):\n        out = []\n        for i in range(10):\n"
                  "            if i % 2:\n                continue\n            if i > n:\n"
                  "                break\n            out.append(i)\n"
                  "        out.extend([n, n])\n        return out\n"
                  "    total = len(helper(5))\n    picks = helper(5)\n")
        (op,) = read_operations("k.py", ADD.replace("    total = 0\n", helper), ARGS)
        # Even i up to 5 (0, 2, 4), then 5 twice; total = 5, plus the loop's 4 * 8.
        self.assertEqual(op.env["picks"], [0, 2, 4, 5, 5])
        self.assertEqual(op.env["total"], 5 + 4 * 8)

    def test_huge_loops_stop(self):
        src = ADD.replace("range(row_blocks)", "range(10 ** 9)".replace("10 ** 9", "1000000000"))
        self.check(src, ARGS, "ran more than 100000 iterations", line=17)

    def test_bad_buffers(self):
        src = ADD.replace("shape=(GRANULARITY, 1), block_count=3", "shape=(2,)")
        self.check(src, ARGS, "shape must be (rows, cols) in tiles, or (batch, ..., rows, cols)",
                   line=15)
        src = ADD.replace("shape=(GRANULARITY, 1), block_count=3", "shape=(0, 1, 1)")
        self.check(src, ARGS, "a batch dimension of a block is the integer 0", line=15)
        src = ADD.replace("block_count=3", "block_count=40")
        self.check(src, ARGS, "block_count is 40; tt-lang takes 1 to 32", line=15)

    def test_failing_assert(self):
        src = ADD.replace("    total = 0\n", "    assert a.shape[0] % 1024 == 0\n    total = 0\n")
        self.check(src, ARGS, "this assert fails", line=16)


if __name__ == "__main__":
    unittest.main()
