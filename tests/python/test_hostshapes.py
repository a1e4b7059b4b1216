"""Shapes from a kernel file's own host code (python/ttlplan/frontend/hostshapes.py), and the
operation scope reading them when --args does not give a tensor. The host code here is written
for these tests in the shapes tt-lang's examples and tests use; each expected shape is read off
the code by hand."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from ttlplan.frontend.errors import FrontendError  # noqa: E402
from ttlplan.frontend.hostshapes import Tensor, host_calls  # noqa: E402
from ttlplan.frontend.operation import read_operations  # noqa: E402

OPERATION = '''import ttl
import ttnn
import torch


@ttl.operation(grid=(1, 1))
def scale(x, y, rows_per_block):
    tile_rows = x.shape[0] // ttl.TILE_SHAPE[0]
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(rows_per_block, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(rows_per_block, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(tile_rows // rows_per_block):
            with x_dfb.wait() as xb, y_dfb.reserve() as yb:
                yb.store(ttl.math.exp(xb))

    @ttl.datamovement()
    def read():
        for i in range(tile_rows // rows_per_block):
            with x_dfb.reserve() as xb:
                ttl.copy(x[i * rows_per_block:(i + 1) * rows_per_block, 0:1], xb).wait()

    @ttl.datamovement()
    def write():
        for i in range(tile_rows // rows_per_block):
            with y_dfb.wait() as yb:
                ttl.copy(yb, y[i * rows_per_block:(i + 1) * rows_per_block, 0:1]).wait()
'''


def spec(source):
    calls = host_calls(source)
    return [c.spec() for c in calls]


class HostShapes(unittest.TestCase):
    def test_script_body_with_a_helper(self):
        # The tutorials' pattern: torch tensors, a from_torch helper of the file's own that sets
        # the device dtype, and a wrapper function that makes the output from the input's shape.
        source = OPERATION + '''

def from_torch(t):
    return ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)


def run(x):
    y = from_torch(torch.zeros((x.shape[0], x.shape[1] * 1), dtype=torch.bfloat16))
    scale(x, y, 2)
    return y


device = ttnn.open_device(device_id=0)
try:
    shape = (256, 32)
    x = torch.rand(shape, dtype=torch.float32)
    run(from_torch(x))
finally:
    ttnn.close_device(device)
'''
        # x is made f32 and moved to the device as bf16; y copies x's shape; 2 is an int.
        self.assertEqual(spec(source), ["x=256x32:bf16,y=256x32:bf16,rows_per_block=2"])

    def test_vectors_and_scalars_keep_their_rank(self):
        # The spec's elementwise_broadcast_reduce.py: torch.rand(M) is a vector and
        # torch.rand(()) a scalar (the operation reads them as [1, M] and [1, 1]).
        source = OPERATION + '''
x = ttnn.from_torch(torch.rand(64), layout=ttnn.TILE_LAYOUT)
y = ttnn.from_torch(torch.rand(()), layout=ttnn.TILE_LAYOUT)
scale(x, y, 1)
'''
        [call] = host_calls(source)
        self.assertEqual(call.args["x"].shape, (64,))
        self.assertEqual(call.args["y"].shape, ())

    def test_pytest_parametrize_and_a_test_class(self):
        source = OPERATION + '''
import pytest
from utils import to_l1


@pytest.mark.parametrize("tiles", [4, 8])
@pytest.mark.parametrize("rows,dtype", [(2, torch.float32), (4, torch.bfloat16)])
def test_scale(device, tiles, rows, dtype):
    x = to_l1(torch.randn(tiles * ttnn.TILE_SIZE, 32, dtype=dtype), device)
    y = to_l1(torch.zeros_like(x), device)
    scale(x, y, rows)


class TestScale:
    def test_one(self, device):
        t = __import__("torch").ones(64, 64, dtype=__import__("torch").bfloat16)
        scale(to_l1(t.reshape(32, 128), device), to_l1(t, device), 1)
'''
        # The first value of each parametrize: tiles = 4 (128 rows), rows = 2, dtype f32; an
        # unknown helper of a tensor (to_l1) keeps it. The class method: a reshape to 32 x 128.
        self.assertEqual(spec(source), ["x=128x32:f32,y=128x32:f32,rows_per_block=2",
                                        "x=32x128:bf16,y=64x64:bf16,rows_per_block=1"])

    def test_a_parametrize_over_operations_runs_once_per_operation(self):
        source = OPERATION.replace("def scale(", "def other(") + OPERATION.split("import torch", 1)[1]
        source += '''
import pytest


@pytest.mark.parametrize("op", [scale, other])
def test_ops(op, device):
    x = torch.randn(64, 32, dtype=torch.bfloat16)
    op(x, torch.zeros_like(x), 2)
'''
        calls = host_calls(source)
        self.assertEqual(sorted(c.operation for c in calls), ["other", "scale"])
        for c in calls:
            self.assertEqual(c.args["x"], Tensor((64, 32), "bf16"))

    def test_harnesses_kernel_tables_and_spread_arguments(self):
        # test_matmul_acc.py passes the operation to a harness; test_store_patterns.py keeps
        # factory-made kernels in a dict by shape; test_elementwise_l1_acc.py spreads a list.
        source = OPERATION + '''
import pytest


def harness(kernel_fn, tiles, device):
    x = torch.randn(tiles * 32, 32, dtype=torch.bfloat16)
    inputs = [x, torch.zeros_like(x)]
    kernel_fn(*inputs, 3)


def make(rows):
    @ttl.operation(grid=(1, 1))
    def k(a):
        pass
    return k


KERNELS = {s: make(*s) for s in [(2,), (4,)]}


def test_harness(device):
    harness(scale, 5, device)


@pytest.mark.parametrize("shape", [(4,), (2,)])
def test_table(shape, device):
    KERNELS[shape](torch.zeros(shape[0] * 32, 64))
'''
        calls = host_calls(source)
        self.assertEqual([(c.operation, c.spec()) for c in calls],
                         [("scale", "x=160x32:bf16,y=160x32:bf16,rows_per_block=3"),
                          ("k", "a=128x64:f32")])
        self.assertEqual(calls[1].factory_args, {"rows": 4})

    def test_spec_and_test_constructors(self):
        # ttnn.Shape (the spec's examples), torch.arange(...).reshape (height_shard_gather.py),
        # torch.cat (test_dfb_spsc_domains.py), torch.triu (test_transformer_block.py).
        source = OPERATION + '''
x = ttnn.rand(ttnn.Shape([64, 32]), layout=ttnn.TILE_LAYOUT)
y = ttnn.from_torch(torch.arange(2 * 32 * 32, dtype=torch.float32).reshape(64, 32)
                    .to(torch.bfloat16), dtype=ttnn.bfloat16)
scale(x, y, 1)
a, b = torch.zeros(32, 32), torch.ones(32, 64)
scale(torch.cat([a, b], dim=1), torch.triu(torch.full((32, 96), 1.0), diagonal=1), [1, 2])
'''
        calls = host_calls(source)
        self.assertEqual([c.spec() for c in calls],
                         ["x=64x32:bf16,y=64x32:bf16,rows_per_block=1",
                          "x=32x96:f32,y=32x96:f32"])
        self.assertEqual(calls[1].args["rows_per_block"], [1, 2])

    def test_pytest_param_eye_and_float_arithmetic(self):
        # test_matmul_fused_postops.py's pytest.param cases; test_matmul_scaled_acc.py's
        # torch.eye and binary_fraction_grid (arange(...).remainder, a float step 1.0 / 64.0).
        source = OPERATION + '''
import pytest


def grid(rows, cols, center, step, dtype, period=32):
    offsets = torch.arange(rows * cols, dtype=torch.float32).remainder(period)
    offsets = offsets.reshape(rows, cols) - period // 2
    return (center + offsets * step).to(dtype)


@pytest.mark.parametrize("shape,dtype", [pytest.param((2, 1), torch.bfloat16, id="a"),
                                         pytest.param((4, 2), torch.float32, id="b")])
def test_scale(shape, dtype, device):
    scale(torch.eye(shape[0] * 32, 32, dtype=dtype), grid(64, 32, 1.0, 1.0 / 64.0, dtype), 1)
'''
        self.assertEqual(spec(source), ["x=64x32:bf16,y=64x32:bf16,rows_per_block=1"])

    def test_the_device_grid(self):
        # tt-lang's test_grid_full.py: one tile per core of the device's compute grid.
        source = OPERATION + '''

def test_grid(device):
    grid = device.compute_with_storage_grid_size()
    x = torch.ones((grid.y * 32, grid.x * 32), dtype=torch.bfloat16)
    scale(x, torch.zeros_like(x), 1)
'''
        from ttlplan.frontend.hostshapes import calls_of
        import ast as ast_module
        (call,) = calls_of(ast_module.parse(source), (13, 10))
        self.assertEqual(call.args["x"], Tensor((320, 416), "bf16"))

    def test_torch_tensor_of_a_nested_list(self):
        # tt-lang's test_intermediate_cb.py: a 32 x 32 tensor written out as a list of rows.
        source = OPERATION + '''

def test_values(device):
    x = torch.tensor([[-1.0, 0.0, 1.0] + [1.0] * 29] * 32, dtype=torch.bfloat16)
    scale(x, torch.zeros(32, 32, dtype=torch.bfloat16), 1)
    scale(torch.tensor([1.0, [2.0]]), x, 1)
    scale(torch.tensor([0.0] * 100000), x, 1)
'''
        calls = host_calls(source)
        self.assertEqual(calls[0].args["x"], Tensor((32, 32), "bf16"))
        # Ragged data has no shape; a list past the budget (65,536 entries) is not built.
        self.assertFalse(isinstance(calls[1].args["x"], Tensor))
        self.assertFalse(isinstance(calls[2].args["x"], Tensor))

    def test_a_lambda_that_makes_tensors(self):
        # tt-lang's simple_matmul_subblock.py / test_fa_simple.py: tensors made by a lambda,
        # which sees the names of where it was made (n).
        source = OPERATION + '''

def test_lambda(device):
    n = 64
    make = lambda rows: to_dram(torch.randn(rows, n, dtype=torch.bfloat16), device)
    scale(make(96), make(32), 1)
'''
        (call,) = host_calls(source)
        self.assertEqual((call.args["x"], call.args["y"]),
                         (Tensor((96, 64), "bf16"), Tensor((32, 64), "bf16")))

    def test_max_and_min_of_sizes(self):
        # The broadcast tutorial's output: the largest of each dimension of its inputs.
        source = OPERATION + '''
a, b = torch.rand((64, 1)), torch.rand((1, 32))
y = torch.zeros((max(a.shape[0], b.shape[0]), max([a.shape[1], b.shape[1]])))
scale(a, y, min(4, 2, 3))
'''
        self.assertEqual(spec(source), ["x=64x1:f32,y=64x32:f32,rows_per_block=2"])

    def test_unknown_values_are_left_out(self):
        source = OPERATION + '''
def test_fixture(device, tensor_fixture):
    scale(tensor_fixture, torch.zeros(32, 32), device.grid)
'''
        # Nothing is known of the fixture or of device.grid: only y is given.
        self.assertEqual(spec(source), ["y=32x32:f32"])

    def test_budget_bounds_an_endless_script(self):
        source = OPERATION + '''
n = 1
while True:
    n = n + 1
for i in range(10 ** 9):
    n = n * 2
scale(torch.zeros(32, 32), torch.zeros(32, 32), n)
'''
        # `while` is not followed; the for runs its first iteration only; n = 1 * 2.
        self.assertEqual(spec(source), ["x=32x32:f32,y=32x32:f32,rows_per_block=2"])

    def test_recursion_is_bounded(self):
        source = OPERATION + '''
def f(k):
    return f(k + 1)
f(0)
'''
        self.assertEqual(spec(source), [])

    def test_source_that_does_not_parse_has_no_calls(self):
        self.assertEqual(host_calls("def (:\n"), [])


FACTORY = '''import ttl
import torch
import pytest


def _make(rows, unused=7):
    depth = rows + 1

    @ttl.operation(grid=(1, 1))
    def kernel(x, y):
        x_dfb = ttl.make_dataflow_buffer_like(x, shape=(rows, 1), block_count=depth)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(rows, 1), block_count=depth)

        @ttl.compute()
        def compute():
            with x_dfb.wait() as xb, y_dfb.reserve() as yb:
                yb.store(ttl.math.exp(xb))

        @ttl.datamovement()
        def read():
            with x_dfb.reserve() as xb:
                ttl.copy(x[0:rows, 0:1], xb).wait()

        @ttl.datamovement()
        def write():
            with y_dfb.wait() as yb:
                ttl.copy(yb, y[0:rows, 0:1]).wait()

    return kernel


SHAPES = [(2, 1), (4, 1)]


@pytest.mark.parametrize("rows,cols", [(r, c) for r in (2, 4) for c in (1,)] + SHAPES)
def test_make(rows, cols):
    k = _make(rows)
    k(torch.zeros(rows * 32, cols * 32), torch.zeros(rows * 32, cols * 32))
'''


class Factories(unittest.TestCase):
    def test_a_factory_call_is_recorded_with_its_arguments(self):
        (call,) = host_calls(FACTORY)
        # The comprehension's first pair is (2, 1): 64 x 32 tensors; the factory got rows = 2
        # and its default unused = 7.
        self.assertEqual((call.factory, call.operation, call.spec()),
                         ("_make", "kernel", "x=64x32:f32,y=64x32:f32"))
        self.assertEqual(call.factory_args, {"rows": 2, "unused": 7})

    def test_the_operation_sees_the_factory_arguments(self):
        (op,) = read_operations("k.py", FACTORY, {})
        self.assertEqual(op.name, "kernel")
        self.assertEqual(op.env["rows"], 2)
        self.assertEqual(op.env["depth"], 3)  # rows + 1, the factory's own constant
        self.assertEqual([b.block_count for b in op.buffers], [3, 3])

    def test_tuple_unpacking_and_guards_of_a_factory(self):
        # tt-lang's python/ttl/ops/gemv.py: Np, Kp = grid_cfg, then `if ...: raise`.
        src = FACTORY.replace("    depth = rows + 1\n",
                              "    depth, spare = rows + 1, 0\n"
                              "    if rows % 2:\n"
                              "        raise ValueError('rows must be even')\n")
        (op,) = read_operations("k.py", src, {})
        self.assertEqual((op.env["depth"], op.env["spare"]), (3, 0))
        with self.assertRaises(FrontendError) as e:
            read_operations("k.py", src.replace("k = _make(rows)", "k = _make(3)"), {})
        self.assertIn("_make refuses these arguments (its check at line 8 holds): rows % 2",
                      str(e.exception))
        self.assertEqual(e.exception.line, 9)  # the raise

    def test_operations_of_two_factories_with_one_name(self):
        # A second factory's `kernel`, never called: both take their factory's name, and the
        # second one's missing shapes are an error that names it so.
        other = FACTORY + '''

def _make_other():
    @ttl.operation(grid=(1, 1))
    def kernel(x, y):
        pass

    return kernel
'''
        with self.assertRaises(FrontendError) as e:
            read_operations("k.py", other, {})
        self.assertIn("operation _make_other_kernel: arguments 'x', 'y' have no shape",
                      str(e.exception))


    def test_an_operation_defined_in_a_test_and_passed_to_a_harness(self):
        # tt-lang's test_auto_pop_push.py: each test defines `repro` and hands it to _run, which
        # makes the output tensor from its own argument; the test is the operation's factory.
        src = FACTORY.split("SHAPES = ")[0].replace("def _make(rows, unused=7):",
                                                    "def test_rows(device):\n    rows = 3") + """

def _run(kernel, tiles):
    t = torch.zeros(tiles * 32, 32)
    kernel(t, t)
"""
        src = src.replace("    return kernel\n", "    _run(kernel, rows)\n")
        (call,) = host_calls(src)
        self.assertEqual((call.factory, call.operation, call.spec()),
                         ("test_rows", "kernel", "x=96x32:f32,y=96x32:f32"))


class OperationReadsHostShapes(unittest.TestCase):
    def test_shapes_and_integers_from_the_host_code(self):
        source = OPERATION + '''
scale(torch.zeros(256, 32, dtype=torch.bfloat16), torch.zeros(256, 32, dtype=torch.bfloat16), 4)
'''
        (op,) = read_operations("k.py", source, {})
        self.assertEqual([(p.name, p.shape) for p in op.args], [("x", (256, 32)),
                                                                 ("y", (256, 32))])
        self.assertEqual(op.env["rows_per_block"], 4)
        # tile_rows = 256 // ttl.TILE_SHAPE[0] = 8
        self.assertEqual(op.env["tile_rows"], 8)

    def test_args_win_over_the_host_code(self):
        source = OPERATION + '''
scale(torch.zeros(256, 32), torch.zeros(256, 32), 4)
'''
        (op,) = read_operations("k.py", source, {"x": ((64, 32), "bf16"), "y": ((64, 32), "bf16")})
        self.assertEqual([p.shape for p in op.args], [(64, 32), (64, 32)])

    def test_a_row_major_tensor_is_refused_at_the_call(self):
        # tt-lang's test/python/invalid/native_copy_row_major_invalid.py ("cannot mix tiled and
        # non-tiled element types"), located at the call.
        source = OPERATION + '''
x = ttnn.from_torch(torch.zeros(64, 32), layout=ttnn.ROW_MAJOR_LAYOUT)
y = ttnn.from_torch(torch.zeros(64, 32), layout=ttnn.TILE_LAYOUT)
scale(x, y, 1)
'''
        line = source.splitlines().index("scale(x, y, 1)") + 1
        with self.assertRaises(FrontendError) as e:
            read_operations("k.py", source, {})
        self.assertIn("passes 'x' in ttnn.ROW_MAJOR_LAYOUT", e.exception.message)
        self.assertEqual((e.exception.line, e.exception.col), (line, 1))
        # Moved to tiles first, it reads.
        tiled = source.replace("scale(x, y, 1)",
                               "scale(ttnn.to_layout(x, ttnn.TILE_LAYOUT), y, 1)")
        (op,) = read_operations("k.py", tiled, {})
        self.assertEqual([p.shape for p in op.args], [(64, 32), (64, 32)])

    def test_without_a_call_the_error_names_the_argument(self):
        with self.assertRaises(FrontendError) as e:
            read_operations("k.py", OPERATION, {})
        self.assertIn("arguments 'x', 'y', 'rows_per_block' have no shape and dtype",
                      str(e.exception))


if __name__ == "__main__":
    unittest.main()
