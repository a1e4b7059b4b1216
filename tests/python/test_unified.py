"""Unified-body operations (tt-lang spec 0.19+; python/ttlplan/frontend/unified.py): which thread
each statement goes to, the releases and waits added, and the located errors for bodies tt-lang's
splitter refuses. The expected threads are worked by hand from tt-lang's rules
(tenstorrent/tt-lang python/ttl/_src/atom_split.py @08d765a8; docs/python.md "Unified-body
operations"), each case in the comment above it."""

import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from ttlplan.frontend.emit import Options, translate  # noqa: E402
from ttlplan.frontend.errors import FrontendError  # noqa: E402

HEADER = '''import ttl


@ttl.operation(grid=(1, 1))
def k(a, b, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)
'''
ARGS = {"a": ((128, 32), "bf16"), "b": ((128, 32), "bf16"), "out": ((128, 32), "bf16")}


def threads(body: str) -> dict[str, list[str]]:
    """The ops of each thread of the kernel HEADER + body, without types and locations:
    `name operands` per line, e.g. `ttl.cb_reserve %a_dfb`."""
    text = translate("k.py", HEADER + body, Options(args=ARGS))
    out, current = {}, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("ttl.datamovement_thread {", "ttl.compute_thread {")):
            current = line.split()[0].split(".")[1].removesuffix("_thread")
            out[current] = []
        elif line.startswith("}"):
            continue
        elif current and line.startswith("scf.for"):
            out[current].append("scf.for")
        elif current:
            op = line.split(" = ", 1)[-1].split(" : ")[0].split(" loc(")[0]
            name = op.split()[0]
            operands = re.findall(r"%[\w.]+", op)
            # SSA names without their generated number: %a_dfb_rsv.5 -> %a_dfb_rsv.
            operands = [o.rsplit(".", 1)[0] if o.rsplit(".", 1)[-1].isdigit() else o
                        for o in operands]
            if name.startswith(("ttl.", "scf.")):
                out[current].append(" ".join([name] + operands))
    return out


class Split(unittest.TestCase):
    def test_straight_line_add(self):
        # tt-lang's test_atom_tensor_add shape: a_in and b_in are read by the store (compute), so
        # their waits and pops are compute's; r_a and r_b are copied into (data movement). No
        # release is written: each is added after the block's last use, the copy's wait right
        # after the copy. The write copies an inline o_dfb.wait(), popped after the copy.
        t = threads('''
    r_a = a_dfb.reserve()
    ttl.copy(a[0, 0], r_a)
    r_b = b_dfb.reserve()
    ttl.copy(b[0, 0], r_b)
    s = o_dfb.reserve()
    a_in = a_dfb.wait()
    b_in = b_dfb.wait()
    s.store(a_in + b_in)
    ttl.copy(o_dfb.wait(), out[0, 0])
''')
        self.assertEqual(t["datamovement"], [
            "ttl.cb_reserve %a_dfb", "ttl.tensor_slice %a %c0 %c0", "ttl.copy %a_slice %a_dfb_rsv",
            "ttl.wait %rd", "ttl.cb_push %a_dfb",
            "ttl.cb_reserve %b_dfb", "ttl.tensor_slice %b %c0 %c0", "ttl.copy %b_slice %b_dfb_rsv",
            "ttl.wait %rd", "ttl.cb_push %b_dfb",
            "ttl.cb_wait %o_dfb", "ttl.tensor_slice %out %c0 %c0", "ttl.copy %o_dfb_wt %out_slice",
            "ttl.wait %wr", "ttl.cb_pop %o_dfb"])
        self.assertEqual(t["compute"], [
            "ttl.cb_reserve %o_dfb", "ttl.cb_wait %a_dfb", "ttl.cb_wait %b_dfb",
            "ttl.add %a_dfb_wt %b_dfb_wt", "ttl.store %add %o_dfb_rsv",
            "ttl.cb_push %o_dfb", "ttl.cb_pop %a_dfb", "ttl.cb_pop %b_dfb"])

    def test_a_loop_goes_to_both_threads_with_its_own_part(self):
        # The for loop holds copies and a store: each thread gets the loop with its statements;
        # `base = i` has no anchor and is copied into both (dead in compute).
        t = threads('''
    for i in range(a.shape[0] // 32):
        base = i
        with a_dfb.reserve() as r:
            ttl.copy(a[base, 0], r).wait()
        with a_dfb.wait() as x, o_dfb.reserve() as y:
            y.store(ttl.math.exp(x))
        with o_dfb.wait() as y:
            ttl.copy(y, out[base, 0]).wait()
''')
        self.assertEqual([op for op in t["datamovement"] if op.startswith("ttl.cb")], [
            "ttl.cb_reserve %a_dfb", "ttl.cb_push %a_dfb", "ttl.cb_wait %o_dfb",
            "ttl.cb_pop %o_dfb"])
        self.assertEqual([op for op in t["compute"] if op.startswith(("ttl.cb", "ttl.exp"))], [
            "ttl.cb_wait %a_dfb", "ttl.cb_reserve %o_dfb", "ttl.exp %a_dfb_wt",
            "ttl.cb_push %o_dfb", "ttl.cb_pop %a_dfb"])
        self.assertIn("scf.for", t["datamovement"])
        self.assertIn("scf.for", t["compute"])

    def test_releases_written_by_hand_are_kept(self):
        t = threads('''
    r = a_dfb.reserve()
    ttl.copy(a[0, 0], r).wait()
    r.push()
    x = a_dfb.wait()
    y = o_dfb.reserve()
    y.store(ttl.math.relu(x))
    x.pop()
    y.push()
    with o_dfb.wait() as z:
        ttl.copy(z, out[0, 0]).wait()
''')
        self.assertEqual(t["datamovement"].count("ttl.cb_push %a_dfb"), 1)
        self.assertEqual(t["compute"][-2:], ["ttl.cb_pop %a_dfb", "ttl.cb_push %o_dfb"])

    def test_an_operation_of_copies_alone_has_no_compute_thread(self):
        t = threads('''
    r = a_dfb.reserve()
    ttl.copy(a[0, 0], r)
    ttl.copy(a_dfb.wait(), out[0, 0])
''')
        self.assertEqual(list(t), ["datamovement"])


COMPOSED = '''import ttl


@ttl.operation()
def exp_stage(inp: ttl.DFB, out: ttl.DFB):
    x = inp.wait()
    r = out.reserve()
    r.store(ttl.math.exp(x))


def make_writer(count):
    @ttl.operation()
    def write_stage(src: ttl.DFB, dst):
        scratch = ttl.make_dfb("bf16", shape=(1, 1), block_count=count)
        s = scratch.reserve()
        s.store(ttl.math.relu(src.wait()))
        ttl.copy(scratch.wait(), dst[0, 0])

    return write_stage


writer = make_writer(count=3)


@ttl.operation(grid=(1, 1))
def outer(a, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    e_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    r = a_dfb.reserve()
    ttl.copy(a[0, 0], r)
    exp_stage(a_dfb, e_dfb)
    writer(dst=out, src=e_dfb)
'''


class Composition(unittest.TestCase):
    """An operation called as a statement is expanded in place (spec 0.19 "Composing
    operations"): its parameters become the caller's names, its own DFBs the caller's, a
    factory's captured values literals; expand-only operations (no grid, DFB parameters) are not
    kernels of their own."""

    def test_expansion(self):
        text = translate("k.py", COMPOSED, Options(args={"a": ((32, 32), "bf16"),
                                                         "out": ((32, 32), "bf16")}))
        self.assertEqual(text.count("ttl.kernel @"), 1)  # exp_stage and write_stage expand only
        # write_stage's scratch DFB, renamed for its expansion, 3 deep (the factory's count).
        self.assertIn("%writer-2-scratch = ttl.create_cb : !ttl.cb<[1, 1], "
                      "!ttcore.tile<32x32, bf16>, 3>", text)
        self.assertEqual(len([l for l in text.splitlines() if "ttl.exp %a_dfb_wt" in l]), 1)
        self.assertEqual(len([l for l in text.splitlines() if "ttl.relu %e_dfb_wt" in l]), 1)

    def test_composition_errors(self):
        def check(src, message, line):
            with self.assertRaises(FrontendError) as e:
                translate("k.py", src, Options(args={"a": ((32, 32), "bf16"),
                                                     "out": ((32, 32), "bf16")}))
            self.assertIn(message, e.exception.message)
            self.assertEqual(e.exception.line, line, str(e.exception))

        check(COMPOSED.replace("exp_stage(a_dfb, e_dfb)", "exp_stage(a_dfb)"),
              "composing exp_stage into outer: no value for out", 31)
        check(COMPOSED.replace("exp_stage(a_dfb, e_dfb)", "exp_stage(a_dfb, e_dfb, e_dfb)"),
              "exp_stage takes 2 arguments, given 3", 31)
        check(COMPOSED.replace("writer(dst=out, src=e_dfb)", "writer(dst=out, sink=e_dfb)"),
              "writer has no parameter sink", 32)
        # An expression argument is bound to a name of the expansion where the call is (tt-lang's
        # op library: mcast(net, x[0:1, k:k + n], stage, dst)); indexing a DFB is then refused
        # there.
        check(COMPOSED.replace("exp_stage(a_dfb, e_dfb)", "exp_stage(a_dfb, e_dfb[0])"),
              "cannot index the dataflow buffer e_dfb", 31)
        check(COMPOSED.replace("exp_stage(a_dfb, e_dfb)", "x = exp_stage(a_dfb, e_dfb)"),
              "composes it only as a statement of its own", 31)
        check(COMPOSED.replace("    r.store(ttl.math.exp(x))", "    r.store(ttl.math.exp(x))\n"
                               "    exp_stage(inp, out)"),
              "operation exp_stage composes exp_stage, which composes it", 9)

    def test_a_module_level_pipe_net(self):
        # tt-lang's test_atom_pipe_unicast: a PipeNet at module scope, captured by the operation.
        src = '''import ttl

NET = ttl.PipeNet([ttl.Pipe(src=(1, 0), dst=(0, 0))])


@ttl.operation(grid=(2, 1))
def k(a, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    r = a_dfb.reserve()

    def send(pipe):
        ttl.copy(a[1, 0], r)
        ttl.copy(r, pipe)

    NET.if_src(send)

    def recv(pipe):
        ttl.copy(pipe, r)

    NET.if_dst(recv)
    x, _ = ttl.node(dims=2)
    if x == 0:
        ttl.copy(a_dfb.wait(), out[0, 0])
'''
        text = translate("k.py", src, Options(args={"a": ((64, 32), "bf16"),
                                                    "out": ((32, 32), "bf16")}))
        self.assertEqual(len([l for l in text.splitlines()
                              if "ttl.create_pipe src(1, 0) dst(0, 0)" in l]), 1)

    def test_a_pipe_net_built_by_a_factory(self):
        # tt-lang's pipenet_resource_allocation.py: the factory builds the net its operation
        # captures.
        src = '''import ttl


def make(n):
    net = ttl.PipeNet([ttl.Pipe((0, r), (n - 1, r)) for r in range(n)])

    @ttl.operation(grid=(n, n))
    def k(a, out):
        _net = net
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
        r = a_dfb.reserve()

        def send(pipe):
            ttl.copy(a[0, 0], r)
            ttl.copy(r, pipe)

        _net.if_src(send)
        ttl.copy(a_dfb.wait(), out[0, 0])

    return k
'''
        from ttlplan.frontend.operation import read_operations
        (op,) = read_operations("k.py", src, {"a": ((32, 32), "bf16"), "out": ((32, 32), "bf16"),
                                              "n": 3})
        self.assertEqual([(p.src, p.dst_first) for p in op.env["net"].pipes],
                         [((0, 0), (2, 0)), ((0, 1), (2, 1)), ((0, 2), (2, 2))])

    def test_a_file_of_expand_only_operations(self):
        src = COMPOSED[:COMPOSED.index("@ttl.operation(grid=(1, 1))")]
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options())
        self.assertIn("operation exp_stage is expand-only", e.exception.message)
        self.assertEqual(e.exception.line, 5)


class CallbackUses(unittest.TestCase):
    def test_a_block_a_pipe_callback_reads_is_released_after_the_callback_runs(self):
        # tt-lang's test_atom_pipe_unicast.py: s_blk reserved at operation scope, read only in the
        # send callback, which runs where net.if_src(send) passes it: the push goes after that.
        import ast
        from ttlplan.frontend.unified import Completion
        body = ast.parse(
            "s_blk = send_cb.reserve()\n"
            "def send(pipe):\n"
            "    ttl.copy(s_blk, pipe)\n"
            "x = 1\n"
            "net.if_src(send)\n"
            "y = 2\n").body
        done = Completion({"send_cb"}, set(), add_waits=False).finish(body)
        self.assertEqual([ast.unparse(s).splitlines()[0] for s in done],
                         ["s_blk = send_cb.reserve()", "def send(pipe):", "x = 1",
                          "net.if_src(send)", "s_blk.push()", "y = 2"])


class NothingToRun(unittest.TestCase):
    def test_an_operation_that_only_reads_its_coordinates(self):
        # The spec's grid/node.py and grid/size.py examples (newer than tt-lang 08d765a8, whose
        # splitter refused such a body) call an operation that only reads ttl.node and
        # ttl.grid_size: it plans as one empty data-movement thread and no buffers.
        text = translate("k.py", '''import ttl


@ttl.operation(grid=(8, 8))
def node_example():
    x, y = ttl.node(dims=2)
    gx, gy = ttl.grid_size(dims=2)
''', Options())
        self.assertEqual([line.strip().split()[0] for line in text.splitlines()
                          if "_thread {" in line], ["ttl.datamovement_thread"])
        self.assertNotIn("ttl.cb", text)

    def test_a_call_placed_in_no_thread_is_refused_not_dropped(self):
        # tt-lang's test/python/invalid/invalid_kernel_selector_missing.py: an extern call
        # alone is not "nothing to run".
        with self.assertRaises(FrontendError) as e:
            translate("k.py", '''import ttl


@ttl.operation(grid=(1, 1))
def k(inp):
    x = ttl.node(dims=1)
    ttl.call_extern_func("shim.hpp", "f")
''', Options(args={"inp": ((32, 32), "bf16")}))
        self.assertIn("ttl.call_extern_func is not supported", e.exception.message)
        self.assertEqual((e.exception.line, e.exception.col), (7, 5))


class Errors(unittest.TestCase):
    def check(self, body, message, line):
        with self.assertRaises(FrontendError) as e:
            translate("k.py", HEADER + body, Options(args=ARGS))
        self.assertIn(message, e.exception.message)
        self.assertEqual(e.exception.line, line, str(e.exception))

    def test_a_block_used_by_both_threads(self):
        # tt-lang: "DFB block 'b' is used by multiple logical kernels".
        self.check('''
    x = a_dfb.wait()
    s = o_dfb.reserve()
    s.store(ttl.math.exp(x))
    ttl.copy(s, out[0, 0])
''', "the block 's' is used by compute (line 12) and by data movement (line 13)", 13)

    def test_one_statement_of_both_kinds(self):
        # tt-lang: "calls in one indivisible expression select different logical kernels".
        self.check('''
    x = a_dfb.wait()
    ttl.copy(ttl.math.exp(x), out[0, 0])
''', "this statement mixes compute", 11)

    def test_a_kept_copy_handle(self):
        # tt-lang: "assigned transfer handle 'x' is not supported yet".
        self.check('''
    r = a_dfb.reserve()
    tx = ttl.copy(a[0, 0], r)
    tx.wait()
''', "does not keep a copy's handle", 11)

    def test_an_acquired_block_never_used(self):
        self.check('''
    x = a_dfb.wait()
''', "the block 'x' is acquired but never used", 10)

    def test_a_value_one_thread_computes_and_the_other_reads(self):
        # tt-lang: "value 'v' is produced for (data_movement) but consumed by excluded logical
        # kernels (compute)". Here `n` comes from a data-movement loop's body.
        self.check('''
    for i in range(2):
        r = a_dfb.reserve()
        n = i + 1
        ttl.copy(a[n, 0], r)
    for i in range(n):
        with a_dfb.wait() as x, o_dfb.reserve() as y:
            y.store(x)
''', "'n' is computed by data movement (line 10) but read by compute", 14)

    def test_a_declaration_inside_a_loop(self):
        self.check('''
    for i in range(2):
        c_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
''', "must be a simple assignment at the top of the operation body", 11)

    def test_a_loop_header_of_one_thread_over_work_of_the_other(self):
        self.check('''
    r = a_dfb.reserve()
    for i in range(ttl.read_index(r, 0, 0)):
        with o_dfb.reserve() as y:
            y.store(ttl.block.fill(0, shape=y.shape))
''', "header is data movement but its body has compute work", 11)



if __name__ == "__main__":
    unittest.main()
