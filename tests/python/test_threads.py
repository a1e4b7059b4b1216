"""Threads of the Python front end (python/ttlplan/frontend/threads.py, emit.py, __main__.py): the
TTL a small kernel becomes, checked line by line against what the kernel says (worked by hand in
the comments), the located errors for what is not supported, and hostile inputs that must end in
one located error, never a traceback or a hang."""

import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from ttlplan.frontend.__main__ import main  # noqa: E402
from ttlplan.frontend.emit import Options, translate  # noqa: E402
from ttlplan.frontend.errors import FrontendError  # noqa: E402

KERNEL = '''import ttl

G = 2


@ttl.operation(grid=(3, 2))
def k(a, out):
    n = a.shape[0] // 32 // G
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(G, 1))
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(G, 1), block_count=4)

    @ttl.datamovement()
    def read():
        x, y = ttl.node(dims=2)
        for i in range(n):
            with a_dfb.reserve() as blk:
                ttl.copy(a[i * G:(i + 1) * G, x:x + 1], blk).wait()

    @ttl.compute()
    def compute():
        for i in range(n):
            with a_dfb.wait() as p, o_dfb.reserve() as q:
                q.store(ttl.math.exp(p))

    @ttl.datamovement()
    def write():
        for i in range(n):
            with o_dfb.wait() as q:
                ttl.copy(q, out[i * G:(i + 1) * G, 0:1]).wait()
'''

ARGS = {"a": ((256, 96), "bf16"), "out": ((256, 96), "bf16")}


def lines_with(text, needle):
    return [line.strip() for line in text.splitlines() if needle in line]


class Translation(unittest.TestCase):
    def test_kernel_buffers_and_grid(self):
        text = translate("k.py", KERNEL, Options(args=ARGS))
        # grid=(x=3, y=2) is TTL's [rows, columns] = [2, 3].
        self.assertIn("attributes {grid = [2, 3]}", text)
        self.assertIn("%a: tensor<256x96xbf16, #ttl.layout<dram, interleaved>>", text)
        # block_count defaults to 2 (tt-lang's); o_dfb says 4. Each CB at its Python line.
        self.assertIn('%a_dfb = ttl.create_cb : !ttl.cb<[2, 1], !ttcore.tile<32x32, bf16>, 2> '
                      'loc("k.py":9:13)', text)
        self.assertIn('%o_dfb = ttl.create_cb : !ttl.cb<[2, 1], !ttcore.tile<32x32, bf16>, 4> '
                      'loc("k.py":10:13)', text)
        # Threads in definition order: reader (NOC 0), compute, writer.
        threads = [line for line in lines_with(text, "_thread {")]
        self.assertEqual(threads, ["ttl.datamovement_thread {", "ttl.compute_thread {",
                                   "ttl.datamovement_thread {"])

    def test_with_releases_in_reverse_at_the_with_line(self):
        text = translate("k.py", KERNEL, Options(args=ARGS))
        compute = text[text.index("ttl.compute_thread"):]
        compute = compute[:compute.index("ttl.datamovement_thread")]
        ops = [line.split(" loc(")[0].split("=")[-1].split()[0] if "=" in line.split(" loc(")[0]
               else line.split()[0] for line in compute.splitlines()[1:] if "ttl." in line]
        # wait p, reserve q, exp, store, then push q before pop p (reverse order).
        self.assertEqual(ops, ["ttl.cb_wait", "ttl.cb_reserve", "ttl.exp", "ttl.store",
                               "ttl.cb_push", "ttl.cb_pop"])
        self.assertEqual(len(lines_with(compute, 'loc("k.py":22:13)')), 2)  # push and pop

    def test_slices_are_tile_indices_and_node_coordinates(self):
        text = translate("k.py", KERNEL, Options(args=ARGS))
        self.assertEqual(len(lines_with(text, "= ttl.core_x : index")), 1)
        slices = lines_with(text, "ttl.tensor_slice %a[")
        self.assertEqual(len(slices), 1)
        # a[i * G : ..., x : x + 1]: row start i * 2, column start the node's x.
        self.assertRegex(slices[0], r"%a\[%muli\.\d+, %node_x\.\d+\]")
        # 96 columns = 3 tiles and 256 rows = 8 tiles divide into 2 x 1 blocks: no clip.
        self.assertNotIn("clip", text)

    def test_decorator_fidelity_and_fp32_accumulation(self):
        src = KERNEL.replace("@ttl.operation(grid=(3, 2))",
                             "@ttl.operation(grid=(3, 2), math_fidelity=ttl.MathFidelity.HiFi2, "
                             "fp32_dest_acc_en=True)")
        text = translate("k.py", src, Options(args=ARGS))
        self.assertIn('attributes {grid = [2, 3], math_fidelity = "HiFi2", fp32_dest_acc = 1}',
                      text)
        with self.assertRaises(FrontendError) as e:
            translate("k.py", KERNEL.replace("(grid=(3, 2))", "(grid=(3, 2), tiled=False)"),
                      Options(args=ARGS))
        self.assertIn("tiled=False (row-major tensors) is not supported", e.exception.message)

    def test_buffer_factor_auto_and_knobs(self):
        text = translate("k.py", KERNEL, Options(args=ARGS, knobs={"G": "[1, 2, 4]"},
                                                 buffer_factor_auto=True))
        self.assertIn("ttl.param @G = [1, 2, 4]", text)
        self.assertIn("!ttl.cb<[@G, 1], !ttcore.tile<32x32, bf16>, ?>", text)
        # n = 256 // 32 // G = (8 - 8 % G) / G at run time: divui of 8 by the knob's value.
        self.assertIn("%knob_G = ttl.param_value @G : index", text)
        self.assertTrue(lines_with(text, "arith.divui"))

    def test_clip_when_the_block_overhangs(self):
        # 96 rows are 3 tiles: blocks of 2 rows overhang the last tile.
        text = translate("k.py", KERNEL.replace("// 32 // G", "// 32 // 1"),
                         Options(args={"a": ((96, 96), "bf16"), "out": ((96, 96), "bf16")}))
        self.assertTrue(lines_with(text, "{clip = true}"))


class Names(unittest.TestCase):
    def test_user_names_never_collide_with_generated_ones(self):
        # A buffer named like a generated value (c0_1: the front end's constants were %c0_N) and a
        # tensor named like a loop variable (i_2): both read, each value defined once.
        src = KERNEL.replace("a_dfb", "c0_1").replace("def k(a, out)", "def k(i_2, out)") \
            .replace("a.shape[0]", "i_2.shape[0]").replace("ttl.copy(a[", "ttl.copy(i_2[") \
            .replace("like(a,", "like(i_2,")
        text = translate("k.py", src, Options(args={"i_2": ((256, 96), "bf16"),
                                                     "out": ((256, 96), "bf16")}))
        defined = [line.split("=")[0].strip() for line in text.splitlines()
                   if line.strip().startswith("%") and "=" in line]
        # The user's names are defined once each (the argument %i_2 by the kernel's signature);
        # generated names repeat only across threads, whose regions are separate.
        self.assertEqual(defined.count("%c0_1"), 1, text)
        self.assertNotIn("%i_2", defined)
        self.assertIn("@k(%i_2: tensor<256x96xbf16", text)


class ConditionalExpressions(unittest.TestCase):
    def test_a_known_condition_picks_one_branch(self):
        # G = 2, so dims = [] + [1]: a broadcast over columns of the 2 x 1 block (general_broadcast's
        # idiom); the branch not taken (ttl.math.erf, which ttlplan lacks) is never read.
        src = KERNEL.replace(
            "q.store(ttl.math.exp(p))",
            "d = ([0] if G == 1 else []) + ([1] if G > 1 else [])\n"
            "                e = ttl.block.broadcast(p, dims=d, shape=(G, 1)) if d else "
            "ttl.math.erf(p)\n"
            "                q.store(ttl.math.exp(e))")
        text = translate("k.py", src, Options(args=ARGS))
        self.assertEqual(len(lines_with(text, "ttl.bcast")), 1, text)
        self.assertIn("{dims = [1]}", lines_with(text, "ttl.bcast")[0])

    def test_a_condition_known_only_at_run_time_is_an_error(self):
        src = KERNEL.replace("q.store(ttl.math.exp(p))",
                             "q.store(ttl.math.exp(p) if i > 0 else p)")
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options(args=ARGS))
        self.assertIn("a conditional expression needs a condition known when the kernel is "
                      "translated", e.exception.message)
        self.assertEqual(e.exception.line, 23)


class Silu(unittest.TestCase):
    def test_silu_is_x_times_its_sigmoid(self):
        # tt-lang's ttl.silu (test/python/swiglu_fused.py): x * sigmoid(x) from ops ttlplan has.
        src = KERNEL.replace("q.store(ttl.math.exp(p))", "q.store(ttl.silu(p))")
        text = translate("k.py", src, Options(args=ARGS))
        ops = [line.split(" = ", 1)[1].split()[0] for line in text.splitlines()
               if " = ttl." in line and ("sigmoid" in line or "ttl.mul" in line)]
        self.assertEqual(ops, ["ttl.sigmoid", "ttl.mul"])
        (mul,) = lines_with(text, "ttl.mul")
        (sig,) = lines_with(text, "ttl.sigmoid")
        p = lines_with(text, "ttl.cb_wait %a_dfb")[0].split(" = ")[0]
        self.assertIn(f"ttl.mul {p}, {sig.split(' = ')[0]}", mul)

    def test_transpose_and_transpose_rhs(self):
        # p is a 2x1 block (a_dfb's shape); its transpose is 1x2. matmul(l, r, transpose_rhs=True)
        # of two 2x1 blocks is l @ transpose(r): 2x1 @ 1x2 = 2x2, here reduced back to 2x1 by a
        # second product with p so that the stored block is q's shape.
        bt = "tensor<{}x!ttcore.tile<32x32, bf16>>"
        text = translate("k.py", KERNEL.replace("q.store(ttl.math.exp(p))",
                                                "q.store(ttl.transpose(ttl.math.transpose(p)))"),
                         Options(args=ARGS))
        first, second = lines_with(text, "= ttl.transpose")
        self.assertIn(f": {bt.format('2x1')} -> {bt.format('1x2')}", first)
        self.assertIn(f": {bt.format('1x2')} -> {bt.format('2x1')}", second)
        text = translate("k.py", KERNEL.replace(
            "q.store(ttl.math.exp(p))",
            "q.store(ttl.math.matmul(ttl.math.matmul(p, p, transpose_rhs=True), p))"),
            Options(args=ARGS))
        (tr,) = lines_with(text, "= ttl.transpose")
        self.assertIn(f": {bt.format('2x1')} -> {bt.format('1x2')}", tr)
        inner, outer = lines_with(text, "= ttl.matmul")
        self.assertIn(f"{tr.split(' = ')[0]} : {bt.format('2x1')}, {bt.format('1x2')} -> "
                      f"{bt.format('2x2')}", inner)
        self.assertIn(f"-> {bt.format('2x1')}", outer)
        # Older tt-lang's matmul(a, b, out): out names the result block and must be its shape.
        text = translate("k.py", KERNEL.replace(
            "q.store(ttl.math.exp(p))",
            "q.store(ttl.math.matmul(ttl.math.matmul(p, p, transpose_rhs=True), p, q))"),
            Options(args=ARGS))
        self.assertEqual(len(lines_with(text, "= ttl.matmul")), 2)
        src = KERNEL.replace("q.store(ttl.math.exp(p))",
                             "q.store(ttl.math.matmul(p, p, q, transpose_rhs=True))")
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options(args=ARGS))
        self.assertIn("the output block of ttl.math.matmul(a, b, out) is 2x1 but a @ b is 2x2",
                      e.exception.message)
        src = KERNEL.replace("q.store(ttl.math.exp(p))",
                             "q.store(ttl.math.matmul(p, p, transpose_rhs=p))")
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options(args=ARGS))
        self.assertIn("transpose_rhs must be True or False", e.exception.message)
        self.assertEqual(e.exception.line, 23)


class Batch(unittest.TestCase):
    """Tensors with batch dimensions: [B, H, W] is TTL's [B * H, W], a block (B, R, C) is
    B * R x C tiles, and t[b, r0:r1, c0:c1] starts at tile row b * (H / 32) + r0."""

    SRC = KERNEL.replace("shape=(G, 1))", "shape=(1, G, 1))").replace(
        "ttl.copy(a[i * G:(i + 1) * G, x:x + 1], blk)", "ttl.copy(a[i, 0:G, x:x + 1], blk)"
    ).replace("n = a.shape[0] // 32 // G", "n = a.shape[0]")
    ARGS3 = {"a": ((4, 64, 96), "bf16"), "out": ((256, 96), "bf16")}

    def test_slice_rows_are_batch_times_tile_rows(self):
        text = translate("k.py", self.SRC, Options(args=self.ARGS3))
        self.assertIn("%a: tensor<256x96xbf16", text)  # 4 x 64 rows
        self.assertIn("!ttl.cb<[2, 1]", text)  # (1, G, 1) with G = 2
        # a[i, 0:2, x] starts at tile row i * 2 (64 rows are 2 tiles).
        (slice_line,) = lines_with(text, "ttl.tensor_slice %a")
        row = slice_line.split("%a[")[1].split(",")[0]
        (mul,) = [line for line in lines_with(text, f"{row} = arith.muli")]
        self.assertRegex(mul, r"arith\.muli %i\S*, %c2")

    def test_blocks_that_are_not_one_range_of_tiles(self):
        src = self.SRC.replace("shape=(1, G, 1))", "shape=(2, 1, 1))").replace(
            "a[i, 0:G, x:x + 1]", "a[0:2, 0:1, x:x + 1]")
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options(args=self.ARGS3))
        self.assertIn("takes more than one entry of dimension 0 of 'a' but not all its rows",
                      e.exception.message)
        self.assertEqual(e.exception.line, 17)

    def test_only_elementwise_ops_see_several_entries(self):
        src = self.SRC.replace("shape=(1, G, 1))", "shape=(2, 2, 1))").replace(
            "a[i, 0:G, x:x + 1]", "a[0:2, 0:2, x:x + 1]").replace(
            "q.store(ttl.math.exp(p))", "q.store(ttl.math.reduce_sum(p, dims=[0]))")
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options(args=self.ARGS3))
        self.assertIn("ttl.math.reduce_sum of a block holding 2 batch entries",
                      e.exception.message)

    def test_squeeze_unsqueeze_and_a_broadcast_over_a_batch_of_one(self):
        # The spec's signpost.py: broadcast(unsqueeze(b, dims=[0]), dims=[0], shape=(1, R, C))
        # is b itself (no ttl.bcast); dims=[-1] of a 3-D shape is the columns, 2-D dims [1].
        text = translate("k.py", KERNEL.replace(
            "q.store(ttl.math.exp(p))",
            "q.store(ttl.block.broadcast(ttl.block.unsqueeze(p, dims=[0]), dims=[0], "
            "shape=(1, 2, 1)))"), Options(args=ARGS))
        self.assertEqual(lines_with(text, "ttl.bcast"), [])
        self.assertEqual(len(lines_with(text, "= ttl.identity")), 1)  # a waited block stored
        text = translate("k.py", KERNEL.replace(
            "q.store(ttl.math.exp(p))",
            "q.store(ttl.block.squeeze(ttl.block.broadcast(p, dims=[-1], shape=(1, 2, 1)), "
            "dims=[0]))"), Options(args=ARGS))
        (bcast,) = lines_with(text, "= ttl.bcast")
        self.assertIn("{dims = [1]}", bcast)

    def test_rows_that_are_not_whole_tiles(self):
        with self.assertRaises(FrontendError) as e:
            translate("k.py", self.SRC, Options(args={"a": ((4, 40, 96), "bf16"),
                                                      "out": ((256, 96), "bf16")}))
        self.assertIn("has batch dimensions and 40 rows, not whole tiles", e.exception.message)




class TwoStores(unittest.TestCase):
    """tt-lang stores one value into two DFBs (test_store_patterns.py); a TTL compute op feeds
    one store, so the second store computes its value anew (test_dst_multi_consumer.py)."""

    def test_the_second_store_computes_anew(self):
        # tests/run/two_stores.py (run.two_stores runs it against the reference): e = exp(p),
        # q.store(e), r.store(e + e).
        path = Path(__file__).resolve().parents[1] / "run" / "two_stores.py"
        args = {n: ((32, 32), "bf16") for n in ("a", "y", "z")}
        text = translate(str(path), path.read_text(), Options(args=args))
        exps = lines_with(text, "= ttl.exp")
        self.assertEqual(len(exps), 2)  # once for each store
        (add,) = lines_with(text, "= ttl.add")  # the first e + e is gone: nothing stores it
        second = exps[1].split(" = ")[0]
        self.assertIn(f"ttl.add {second}, {second}", add)
        stores = lines_with(text, "ttl.store ")
        self.assertTrue(stores[0].startswith(f"ttl.store {exps[0].split(' = ')[0]},"))
        self.assertTrue(stores[1].startswith(f"ttl.store {add.split(' = ')[0]},"))


class Fill(unittest.TestCase):
    """ttl.block.fill (ttl.math.fill before spec 0.17) becomes ttl.fill in the data type of the
    block it meets."""

    def translate(self, store, out_dtype="bf16"):
        src = KERNEL.replace("q.store(ttl.math.exp(p))", store)
        args = {"a": ((256, 96), "bf16"), "out": ((256, 96), out_dtype)}
        return translate("k.py", src, Options(args=args))

    def test_stored_fill_takes_the_view_type(self):
        text = self.translate("q.store(ttl.block.fill(-1e30, shape=q.shape))", "f32")
        # q is a 2x1 block of o_dfb, like `out`: f32 tiles.
        self.assertEqual(lines_with(text, "ttl.fill")[0].split(" = ", 1)[1].split(" loc(")[0],
                         "ttl.fill -1.000000000e+30 : tensor<2x1x!ttcore.tile<32x32, f32>>")

    def test_fill_in_an_expression_takes_the_other_operand_type(self):
        text = self.translate("q.store(p + ttl.math.fill(2, shape=p.shape))")
        self.assertIn("ttl.fill 2.000000000e+00 : tensor<2x1x!ttcore.tile<32x32, bf16>>", text)
        self.assertEqual(len(lines_with(text, "ttl.add %a_dfb_wt")), 1)

    def test_a_fill_of_another_dtype_than_its_store(self):
        src = KERNEL.replace("q.store(ttl.math.exp(p))",
                             "q.store(ttl.block.fill(0, shape=q.shape, dtype=ttnn.float32))")
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options(args=ARGS))
        self.assertIn("a f32 fill stored into o_dfb, whose blocks are bf16", e.exception.message)
        self.assertEqual(e.exception.line, 23)

    def test_a_number_with_a_block_is_a_fill(self):
        # tt-lang's block-scalar arithmetic: p * 2.0 and 1 - p multiply and subtract a fill of
        # p's shape; p / 4 multiplies by 0.25.
        for store, fill, op in (("q.store(p * 2.0)", "2.000000000e+00", "ttl.mul %a_dfb_wt"),
                                ("q.store(1 - p)", "1.000000000e+00", "ttl.sub %fill"),
                                ("q.store(p / 4)", "2.500000000e-01", "ttl.mul %a_dfb_wt")):
            text = self.translate(store)
            self.assertIn(f"ttl.fill {fill} : tensor<2x1x!ttcore.tile<32x32, bf16>>", text)
            self.assertEqual(len(lines_with(text, op)), 1, store)

    def test_fill_values_that_are_not_finite_numbers(self):
        for value in ("p", "1e39", "-1e39"):
            src = KERNEL.replace("q.store(ttl.math.exp(p))",
                                 f"q.store(ttl.block.fill({value}, shape=q.shape))")
            with self.assertRaises(FrontendError) as e:
                translate("k.py", src, Options(args=ARGS))
            self.assertEqual(e.exception.line, 23, value)
            self.assertIn("fill value", e.exception.message)


PIPES = '''import ttl


@ttl.operation(grid=(4, 1))
def k(a, out):
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(slice(1, 3), 0))])
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

    @ttl.datamovement()
    def read():
        if not net.is_active():
            return
        i = ttl.node(dims=1)
        last = min(i + 1, 3)
        rows = slice(i, last)
        with a_dfb.reserve() as blk:
            ttl.copy(a[rows, 0:1], blk).wait()

    @ttl.datamovement()
    def write():
        with a_dfb.wait() as blk:
            ttl.copy(blk, out[0, 0]).wait()
'''


class Idioms(unittest.TestCase):
    def test_pipe_roles_early_return_linear_node_and_slices(self):
        text = translate("k.py", PIPES, Options(args={"a": ((128, 32), "bf16"),
                                                      "out": ((32, 32), "bf16")}))
        read = text.split("ttl.datamovement_thread {")[1]
        ops = [line.strip().split(" = ", 1)[-1].split(" loc(")[0] for line in read.splitlines()]
        # is_active on node (x, y): the source (0, 0), or x in [1, 2] and y in [0, 0] (x >= 1,
        # x <= 2, y <= 0; y >= 0 always); `not` is an xor with true; the early return makes the
        # rest of the thread the else branch (the copy runs where the net is active).
        self.assertEqual([o.split()[0] + " " + o.split()[1] if o.startswith("arith.cmpi") else
                          o.split()[0] for o in ops if o.startswith(("arith.cmpi", "arith.ori",
                                                                     "arith.xori", "scf.if"))],
                         ["arith.cmpi eq,", "arith.cmpi eq,", "arith.cmpi uge,", "arith.cmpi ule,",
                          "arith.cmpi ule,", "arith.ori", "arith.xori", "scf.if"])
        self.assertIn("} else {", read)
        # node(dims=1) = x + y * 4; min of a run-time value is arith.minui; the slice(i, last)
        # has an extent known only at run time, so the block's 1 row is trusted.
        self.assertEqual(len(lines_with(read, "arith.muli")), 1)
        self.assertEqual(len(lines_with(read, "arith.minui")), 1)
        self.assertEqual(len(lines_with(read, "ttl.tensor_slice %a[%addi")), 1)


CARRIED = '''import ttl


@ttl.operation(grid=(4, 1))
def k(a, b, c):
    net = ttl.PipeNet([ttl.Pipe((0,), (slice(1, 4),))])
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1))
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1))

    def tiles(i, n):
        first = i * n
        return slice(first, first + n)

    @ttl.compute()
    def compute():
        with c_dfb.reserve() as out:
            acc = ttl.block.fill(0, shape=out.shape)
            for k in range(2):
                with a_dfb.wait() as x, b_dfb.wait() as y:
                    acc += x @ y
            out.store(acc)

    @ttl.datamovement()
    def read():
        for k in range(2):
            with a_dfb.reserve() as x, b_dfb.reserve() as y:
                ttl.copy(a[0, tiles(k, 1)], x).wait()
                ttl.copy(b[tiles(k, 1), 0], y).wait()
        with c_dfb.wait() as z:
            ttl.copy(z, c[0, 0]).wait()
'''


class CarriedValuesHelpersLinearPipes(unittest.TestCase):
    def test_translation(self):
        text = translate("k.py", CARRIED, Options(args={"a": ((32, 64), "bf16"),
                                                        "b": ((64, 32), "bf16"),
                                                        "c": ((32, 32), "bf16")}))
        # acc = fill; acc += x @ y in the loop; out.store(acc): the fill stored into out, then
        # accumulating stores of each product, and no third store.
        stores = lines_with(text, "ttl.store ")
        self.assertEqual(len(stores), 2)
        self.assertTrue(stores[0].startswith("ttl.store %fill"))
        self.assertIn("{accumulate = true}", stores[1])
        # tiles(k, 1) inlined: slice(k, k + 1), one tile at column k (the loop variable).
        self.assertEqual(len(lines_with(text, "ttl.tensor_slice %a[%c0.")), 1)
        # The 1-D pipe (0,) -> slice(1, 4) on a 4 x 1 grid: nodes 1..3 and the source 0 are the
        # whole row, so the rectangle (0..3, 0), whose source a multicast skips.
        from ttlplan.frontend.operation import read_operations
        (op,) = read_operations("k.py", CARRIED, {"a": ((32, 64), "bf16"),
                                                  "b": ((64, 32), "bf16"),
                                                  "c": ((32, 32), "bf16")})
        pipe = op.env["net"].pipes[0]
        self.assertEqual((pipe.src, pipe.dst_first, pipe.dst_last), ((0, 0), (0, 0), (3, 0)))
        # On a 2 x 2 grid, nodes 1..3 with the source 0 are the whole grid: one rectangle.
        (op,) = read_operations("k.py", CARRIED.replace("grid=(4, 1)", "grid=(2, 2)"),
                                {"a": ((32, 64), "bf16"), "b": ((64, 32), "bf16"),
                                 "c": ((32, 32), "bf16")})
        pipe = op.env["net"].pipes[0]
        self.assertEqual((pipe.src, pipe.dst_first, pipe.dst_last), ((0, 0), (0, 0), (1, 1)))

    def test_acc_equals_acc_plus_is_an_update_too(self):
        # The spec's signpost.py: acc = acc + e after the loop is one more accumulating store.
        src = CARRIED.replace("            out.store(acc)\n",
                              "            acc = acc + ttl.block.fill(1, shape=out.shape)\n"
                              "            out.store(acc)\n")
        text = translate("k.py", src, Options(args={"a": ((32, 64), "bf16"),
                                                    "b": ((64, 32), "bf16"),
                                                    "c": ((32, 32), "bf16")}))
        stores = lines_with(text, "ttl.store ")
        self.assertEqual(len(stores), 3)
        self.assertTrue(stores[2].startswith("ttl.store %fill"))
        self.assertIn("{accumulate = true}", stores[2])

    def test_a_source_among_its_destinations_receives(self):
        # tt-lang's pipes: a source inside the destination range it was given receives its own
        # block (source_receives); one the front end adds to make whole rows of a 1-D range does
        # not (test_translation above).
        from ttlplan.frontend.operation import read_operations
        args = {"a": ((32, 64), "bf16"), "b": ((64, 32), "bf16"), "c": ((32, 32), "bf16")}
        (given,) = read_operations("k.py", CARRIED.replace("ttl.Pipe((0,), (slice(1, 4),))",
                                                           "ttl.Pipe((0,), (slice(0, 4),))"), args)
        (added,) = read_operations("k.py", CARRIED, args)
        self.assertEqual([p.source_receives for p in given.env["net"].pipes], [True])
        self.assertEqual([p.source_receives for p in added.env["net"].pipes], [False])
        # 2-D: the source inside the rectangle it was given; outside it.
        two_d = CARRIED.replace("grid=(4, 1)", "grid=(2, 2)")
        for dst, receives in (("(slice(0, 2), slice(0, 2))", True), ("(1, slice(0, 2))", False)):
            (op,) = read_operations("k.py", two_d.replace("(slice(1, 4),)", dst), args)
            self.assertEqual(op.env["net"].pipes[0].source_receives, receives, dst)

    def test_a_1d_range_that_is_no_rectangle(self):
        with self.assertRaises(FrontendError) as e:
            translate("k.py", CARRIED.replace("grid=(4, 1)", "grid=(3, 2)"),
                      Options(args={"a": ((32, 64), "bf16"), "b": ((64, 32), "bf16"),
                                    "c": ((32, 32), "bf16")}))
        # Nodes 1..3 of a 3 x 2 grid: (1, 0), (2, 0) and (0, 1).
        self.assertIn("the 1-D range slice(1, 4) crosses rows of the 3 x 2 grid",
                      e.exception.message)


class CarriedValues(unittest.TestCase):
    def test_a_value_read_after_its_blocks_with_is_carried(self):
        path = Path(__file__).resolve().parents[2] / "examples" / "python" / "running_relu_sum.py"
        with open(path) as f:
            src = f.read()
        text = translate("k.py", src, Options(args={"x": ((32, 64), "bf16"),
                                                    "y": ((128, 64), "bf16"),
                                                    "out": ((32, 64), "bf16")}))
        compute = text.split("ttl.compute_thread {")[1].split("ttl.datamovement_thread")[0]
        ops = [line.strip().split(" = ", 1)[-1].split(" ")[0] + " " +
               line.strip().split(" = ", 1)[-1].split(" ")[1]
               for line in compute.splitlines() if line.strip().startswith(("%", "ttl."))]
        # One carried-value buffer of acc's shape; four iterations unrolled.
        self.assertIn("%acc_carried = ttl.create_cb : !ttl.cb<[1, 2], !ttcore.tile<32x32, bf16>, 2>",
                      text)
        self.assertEqual(ops.count("ttl.cb_wait %y_dfb"), 4)
        self.assertEqual(lines_with(compute, "scf.for"), [])
        # Each y block is popped only after acc (which reads it) is stored into the carried
        # buffer; the previous carried block is popped once the next is pushed.
        for k in range(4):
            pop_y = [i for i, o in enumerate(ops) if o == "ttl.cb_pop %y_dfb"][k]
            push_c = [i for i, o in enumerate(ops) if o == "ttl.cb_push %acc_carried"][k]
            self.assertLess(push_c, pop_y)
        self.assertEqual(ops.count("ttl.cb_pop %acc_carried"), 4)  # 3 in the loop, 1 at the end
        self.assertEqual(ops[-1], "ttl.cb_pop %acc_carried")

    def test_a_wait_inside_the_with_of_a_block_of_the_same_dfb(self):
        # tt-lang's test/python/invalid/dfb_wait_held_across_loop_invalid.py: refused, not carried.
        path = Path(__file__).resolve().parents[2] / "examples" / "python" / "running_relu_sum.py"
        src = path.read_text().replace("        with x_dfb.wait() as xb:\n",
                                       "        with x_dfb.wait() as xb, y_dfb.wait() as y0:\n")
        src = src.replace("            acc = xb * xb\n", "            acc = xb * y0\n")
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options(args={"x": ((32, 64), "bf16"),
                                                 "y": ((128, 64), "bf16"),
                                                 "out": ((32, 64), "bf16")}))
        self.assertIn("a block of y_dfb is still held by an enclosing `with` when this waits on "
                      "y_dfb again", str(e.exception))
        self.assertEqual(e.exception.line, 24)  # `with y_dfb.wait() as yb:` in the loop

    def test_the_dst_accumulation_strategy_refuses_to_carry(self):
        # tt-lang's test/python/invalid/invalid_accumulation_strategy_dst.py: the host call asks
        # for --ttl-accumulation-strategy=dst, under which the value must stay in DST.
        path = Path(__file__).resolve().parents[2] / "examples" / "python" / "running_relu_sum.py"
        src = path.read_text() + """

import torch
x = torch.zeros(32, 64)
running_relu_sum(x, torch.zeros(128, 64), x, options="--ttl-accumulation-strategy=dst")
"""
        with self.assertRaises(FrontendError) as e:
            translate("k.py", src, Options())
        self.assertIn("cannot keep 'acc' in DST past the release of y_dfb's block", str(e.exception))
        self.assertIn("the options of the call at line", str(e.exception))
        self.assertEqual(e.exception.line, 24)
        # l1-pack (or no options) carries it.
        text = translate("k.py", src.replace("=dst", "=l1-pack"), Options())
        self.assertIn("%acc_carried = ttl.create_cb", text)


class AutomaticReleases(unittest.TestCase):
    def test_a_block_never_released_is_released_after_its_last_use(self):
        # tt-lang's test_cb_sync_intrathread_hang.py: blk = dfb.wait() with no pop; tt-lang's
        # compiler pops after the block's last use (the copy and its wait), and so does ttlplan.
        src = KERNEL.replace("""            with o_dfb.wait() as q:
                ttl.copy(q, out[i * G:(i + 1) * G, 0:1]).wait()""",
                             """            q = o_dfb.wait()
            ttl.copy(q, out[i * G:(i + 1) * G, 0:1]).wait()
            n2 = i + 1""")
        text = translate("k.py", src, Options(args=ARGS))
        write = text.split("ttl.datamovement_thread {")[2]
        ops = [line.strip().split(" = ", 1)[-1].split(" ")[0] for line in write.splitlines()
               if line.strip().startswith(("%", "ttl."))]
        # The pop comes after the copy's wait and before `n2 = i + 1`, which does not use q.
        self.assertEqual(ops.count("ttl.cb_pop"), 1)
        self.assertLess(ops.index("ttl.wait"), ops.index("ttl.cb_pop"))
        self.assertLess(ops.index("ttl.cb_pop"), ops.index("arith.addi"))


    def test_a_value_computed_from_the_block_keeps_it_until_its_last_store(self):
        # tt-lang's test_pipenet_multi_iter.py: p = a_dfb.wait() (no pop), s = p + p stored into
        # two blocks. The second store computes s anew from p, so the pop follows that store.
        src = KERNEL.replace("""            with a_dfb.wait() as p, o_dfb.reserve() as q:
                q.store(ttl.math.exp(p))""", """            p = a_dfb.wait()
            s = p + p
            with o_dfb.reserve() as q:
                q.store(s)
            with o_dfb.reserve() as r:
                r.store(s)""")
        self.assertNotEqual(src, KERNEL)
        text = translate("k.py", src, Options(args=ARGS))
        compute = text.split("ttl.compute_thread {")[1].split("ttl.datamovement_thread")[0]
        ops = [line.strip().split(" = ", 1)[-1].split(" ")[0] for line in compute.splitlines()
               if line.strip().startswith(("%", "ttl."))]
        self.assertEqual(ops.count("ttl.add"), 2)
        self.assertLess(len(ops) - 1 - ops[::-1].index("ttl.add"), ops.index("ttl.cb_pop"))


class BranchValues(unittest.TestCase):
    """tt-lang's test_compiler_allocated_dfb.py: `if c: t = ttl.add(x, x)` `else: t = ttl.mul(x,
    x)` then `o.store(t)`: the store is copied into each branch (a compute value lives in one
    branch's DST chain)."""

    SOURCE = KERNEL.replace("""                q.store(ttl.math.exp(p))""", """                if i % 2 == 0:
                    t = ttl.add(p, p)
                else:
                    t = ttl.mul(p, p)
                q.store(ttl.math.exp(t))""")

    def test_the_statements_after_the_branch_run_in_each_branch(self):
        self.assertNotEqual(self.SOURCE, KERNEL)
        text = translate("k.py", self.SOURCE, Options(args=ARGS))
        compute = text.split("ttl.compute_thread {")[1].split("ttl.datamovement_thread")[0]
        then, other = compute.split("} else {")
        self.assertEqual(len(lines_with(then, "= ttl.add")), 1)
        self.assertEqual(len(lines_with(then, "ttl.store")), 1)
        self.assertEqual(len(lines_with(other, "= ttl.mul")), 1)
        self.assertEqual(len(lines_with(other, "ttl.store")), 1)
        self.assertEqual(len(lines_with(compute, "ttl.store")), 2)

    def test_an_if_without_else_keeps_the_located_error(self):
        # t = p, then only one branch rebinds it (line 25): no copy into the branches, t is
        # carried out of the branch, which stays the located error at its read (line 26).
        source = self.SOURCE.replace("""                if i % 2 == 0:""", """                t = p
                if i % 2 == 0:""").replace("""                else:
                    t = ttl.mul(p, p)
""", "")
        self.assertNotEqual(source, self.SOURCE)
        with self.assertRaises(FrontendError) as e:
            translate("k.py", source, Options(args=ARGS))
        self.assertIn("k.py:26:38: error: 't' was assigned inside a loop or branch (line 25)",
                      str(e.exception))


COMPILE_ONLY = '''import ttl


@ttl.operation(grid=(1, 1))
def k(a, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as p, o_dfb.reserve() as q:
            q.store(ttl.math.exp(p))

    @ttl.datamovement()
    def read():
        pass

    @ttl.datamovement()
    def write():
        """Nothing: tt-lang's compile-only tests check the compute thread's C++."""
'''


class CompileOnly(unittest.TestCase):
    """tt-lang's compile-only kernels (test/python/signpost_scopes.py) leave every data-movement
    thread empty: a_dfb has no producer and o_dfb no consumer in the file, so those ends are
    outside (plan reports, compile/run/tune refuse)."""

    def test_empty_movers_make_the_missing_ends_outside(self):
        args = {"a": ((32, 32), "bf16"), "out": ((32, 32), "bf16")}
        text = translate("k.py", COMPILE_ONLY, Options(args=args))
        self.assertEqual(len(lines_with(text, 'create_cb {outside = "producer"}')), 1)
        self.assertIn("%a_dfb", lines_with(text, 'outside = "producer"')[0])
        self.assertIn("%o_dfb", lines_with(text, 'outside = "consumer"')[0])

    def test_a_mover_that_does_something_keeps_every_end_inside(self):
        source = COMPILE_ONLY.replace("    def read():\n        pass",
                                      "    def read():\n        with a_dfb.reserve() as b:\n"
                                      "            ttl.copy(a[0:1, 0:1], b).wait()")
        self.assertNotEqual(source, COMPILE_ONLY)
        args = {"a": ((32, 32), "bf16"), "out": ((32, 32), "bf16")}
        self.assertNotIn("outside", translate("k.py", source, Options(args=args)))


class Placeholders(unittest.TestCase):
    """The spec's examples write `ROWS = ...  # rows participating` and assign the value below
    (examples/spec/pipe/gather.py): `...` is a value until something uses it."""

    SOURCE = COMPILE_ONLY.replace("def k(a, out):\n", "def k(a, out):\n    N = ...\n    N = 1\n")

    def test_a_placeholder_assigned_again_reads(self):
        self.assertIn("N = ...", self.SOURCE)
        args = {"a": ((32, 32), "bf16"), "out": ((32, 32), "bf16")}
        self.assertIn("ttl.kernel @k", translate("k.py", self.SOURCE, Options(args=args)))

    def test_a_placeholder_used_is_a_located_error(self):
        source = self.SOURCE.replace("    N = 1\n", "").replace(
            "with a_dfb.wait()", "for i in range(N):\n            pass\n        with a_dfb.wait()")
        args = {"a": ((32, 32), "bf16"), "out": ((32, 32), "bf16")}
        with self.assertRaises(FrontendError) as e:
            translate("k.py", source, Options(args=args))
        self.assertIn("k.py:12:18: error:", str(e.exception))  # range(N), line 12
        self.assertIn("placeholder `...`", str(e.exception))


VECTORS = '''import ttl


@ttl.operation(grid=(1, 1))
def k(a, c, d, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2))
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 2))
    d_dfb = ttl.make_dataflow_buffer_like(d, shape=(1, 1))
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 2))

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as x:
            ttl.copy(a[1, :], x).wait()
        with c_dfb.reserve() as x:
            ttl.copy(c[0, :], x).wait()
        with d_dfb.reserve() as x:
            ttl.copy(d[0, 0], x).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, c_dfb.wait() as y, d_dfb.wait() as z, o_dfb.reserve() as o:
            o.store(x ** 2 + y + ttl.block.broadcast(z, dims=[0, 1], shape=(1, 2)))

    @ttl.datamovement()
    def write():
        with o_dfb.wait() as o:
            ttl.copy(o, out[0:1, 0:2]).wait()
'''


class VectorsScalarsWholeRangesSquares(unittest.TestCase):
    """The spec's elementwise_broadcast_reduce.py: a vector [M] is tiled as [1, M] (row 0 of
    each tile) and a scalar [] as [1, 1], both indexed with two tile indices; `t[r, :]` is every
    tile of that dimension; `x ** 2` is x * x."""

    ARGS = {"a": ((64, 64), "bf16"), "c": ((64,), "bf16"), "d": ((), "bf16"),
            "out": ((32, 64), "bf16")}

    def test_vector_and_scalar_arguments_are_one_row_and_one_element(self):
        text = translate("k.py", VECTORS, Options(args=self.ARGS))
        kernel = lines_with(text, "ttl.kernel @k")[0]
        self.assertIn("%c: tensor<1x64xbf16", kernel)
        self.assertIn("%d: tensor<1x1xbf16", kernel)

    def test_a_whole_range_is_every_tile_of_the_dimension(self):
        text = translate("k.py", VECTORS, Options(args=self.ARGS))
        # a is 2 x 2 tiles: a[1, :] starts at tile (1, 0) and spans both columns (1x2 block).
        [a_slice] = lines_with(text, "ttl.tensor_slice %a[")
        self.assertIn("-> tensor<1x2x", a_slice)
        self.assertRegex(a_slice, r"%a\[%c1(\.\d+)?, %c0(\.\d+)?\]")

    def test_a_square_is_one_multiply_of_the_block_by_itself(self):
        text = translate("k.py", VECTORS, Options(args=self.ARGS))
        [mul] = lines_with(text, "= ttl.mul ")
        operands = mul.split("= ttl.mul ")[1].split(" :")[0].split(", ")
        self.assertEqual(len(operands), 2)
        self.assertEqual(operands[0], operands[1])

    def test_other_powers_are_a_located_error(self):
        with self.assertRaises(FrontendError) as e:
            translate("k.py", VECTORS.replace("x ** 2", "x ** 3"), Options(args=self.ARGS))
        self.assertIn("k.py:23:21: error: a block to the power the integer 3", str(e.exception))


class Semaphores(unittest.TestCase):
    """ttl.Semaphore (the spec's "Semaphore" section) as TTL's create_semaphore and
    semaphore_wait/set/inc: nodes are (x, y), TTL's core and mcast attributes [y, x]; the
    lowering and a run are tests/run/semaphores.py."""

    SOURCE = (Path(__file__).resolve().parents[1] / "run" / "semaphores.py").read_text()

    def text(self, source=None):
        return translate("k.py", source or self.SOURCE, Options())

    def test_semaphores_are_created_with_their_initial_values(self):
        self.assertEqual(lines_with(self.text(), "ttl.create_semaphore")[0].split(" loc(")[0],
                         "%go = ttl.create_semaphore {init = 0} : !ttl.semaphore")
        self.assertEqual(len(lines_with(self.text(), "ttl.create_semaphore")), 3)

    def test_remote_views_name_their_nodes_y_first(self):
        text = self.text()
        # get_remote_multicast() of the 2 x 2 grid: nodes (0, 0) to (1, 1).
        self.assertIn("ttl.semaphore_set %go {value = 1, mcast = [[0, 0], [1, 1]]}", text)
        # get_remote((0, 0)).inc(1) and get_remote((GX - 1, GY - 1)) = (1, 1).set(7).
        self.assertIn("ttl.semaphore_inc %done {value = 1, core = [0, 0]}", text)
        self.assertIn("ttl.semaphore_set %ack {value = 7, core = [1, 1]}", text)
        # wait_eq(GX * GY - 1) = 3 and wait_ge(7).
        self.assertIn('ttl.semaphore_wait %done {value = 3, cmp = "eq"}', text)
        self.assertIn('ttl.semaphore_wait %ack {value = 7, cmp = "ge"}', text)

    def test_misuses_are_located_errors(self):
        cases = [
            ("node_0_done.inc(1)", "everyone.inc(1)",
             "k.py:44:13: error: .inc() of a multicast remote semaphore: it has .set()"),
            ("last_ack.set(7)", "last_ack.set(nx)",
             "k.py:47:26: error: a semaphore value known when the kernel is read"),
            ("b.store(ttl.math.exp(a))", "b.store(ttl.math.exp(a))\n        go.set(0)",
             "k.py:39:9: error: .set() of a semaphore belongs in a @ttl.datamovement() thread"),
            ("done.get_remote((0, 0))", "done.get_remote((2, 0))",
             "k.py:21:19: error: .get_remote((x, y)) takes one node inside the 2 x 2 grid"),
        ]
        for old, new, message in cases:
            with self.subTest(new=new):
                source = self.SOURCE.replace(old, new, 1)
                self.assertNotEqual(source, self.SOURCE)
                with self.assertRaises(FrontendError) as e:
                    self.text(source)
                self.assertIn(message, str(e.exception))


class Errors(unittest.TestCase):
    def check(self, source, message, line, args=ARGS):
        with self.assertRaises(FrontendError) as e:
            translate("k.py", source, Options(args=args))
        self.assertIn(message, e.exception.message)
        self.assertEqual(e.exception.line, line, str(e.exception))

    def test_copy_lock(self):
        # tt-lang's examples/errors/copy_lock_error.py: a block written while the copy into it is
        # in flight is the copy-lock error at the write, in whichever thread (before the rule
        # that only compute stores).
        src = KERNEL.replace("ttl.copy(a[i * G:(i + 1) * G, x:x + 1], blk).wait()",
                             "tx = ttl.copy(a[i * G:(i + 1) * G, x:x + 1], blk)\n"
                             "                blk.store(blk)\n"
                             "                tx.wait()")
        self.check(src, "a_dfb's block is the destination of the copy at line 17, still in "
                        "flight (copy lock)", 18)

    def test_a_write_from_a_reserved_block(self):
        # tt-lang's test/python/invalid/copy_reserved_dfb_source_invalid.py: a reserved block
        # filled and then copied to a tensor is refused at that copy, as tt-lang refuses it.
        src = KERNEL.replace("ttl.copy(a[i * G:(i + 1) * G, x:x + 1], blk).wait()",
                             "ttl.copy(a[i * G:(i + 1) * G, x:x + 1], blk).wait()\n"
                             "                ttl.copy(blk, out[i * G:(i + 1) * G, 0:1]).wait()")
        self.check(src, "a copy from a block to a tensor takes a block from a_dfb.wait(), not "
                        "reserve()", 18)

    def test_allocation_groups_are_refused_where_written(self):
        # tt-lang's test/python/invalid/invalid_dfb_allocation_group.py: ttlplan places DFBs by
        # their lifetimes, so an allocation group is refused at its keyword (line 10 here).
        src = KERNEL.replace("block_count=4)", "block_count=4, allocation_group=GROUP)")
        self.assertNotEqual(src, KERNEL)
        self.check(src, "DFB allocation groups are not supported", 10)

    def test_reduce_shape_must_be_the_result(self):
        src = KERNEL.replace("q.store(ttl.math.exp(p))",
                             "q.store(ttl.math.reduce_sum(p, dims=[0], shape=(2, 1)))")
        # p is 2x1: dims [0] gives 1x1.
        self.check(src, "shape (2, 1) of ttl.math.reduce_sum does not match its result, (1, 1)",
                   23)
        src = KERNEL.replace("q.store(ttl.math.exp(p))",
                             "q.store(ttl.math.reduce_sum(p, p, dims=[0]))")
        self.check(src, "the scaler block of older tt-lang's ttl.math.reduce_sum", 23)

    def test_store_outside_compute(self):
        src = KERNEL.replace("ttl.copy(a[i * G:(i + 1) * G, x:x + 1], blk).wait()",
                             "blk.store(blk)")
        self.check(src, ".store() belongs in the @ttl.compute() thread", 17)

    def test_slice_that_does_not_match_the_block(self):
        src = KERNEL.replace("out[i * G:(i + 1) * G, 0:1]", "out[0:3, 0:1]")
        self.check(src, "the slice spans 3 tile rows but a block of o_dfb has 2", 29)

    def test_unsupported_statements_and_calls(self):
        self.check(KERNEL.replace("        for i in range(n):\n            with a_dfb.wait()",
                                  "        while True:\n            with a_dfb.wait()"),
                   "a while loop is not supported in a thread", 21)
        self.check(KERNEL.replace("ttl.math.exp(p)", "ttl.math.erf(p)"),
                   "ttl.math.erf is not supported", 23)
        self.check(KERNEL.replace("ttl.math.exp(p)", "p * a"), "the tensor argument 'a' with a "
                   "block: a block combines with another block or a number", 23)
        self.check(KERNEL.replace("    def compute():", "    def compute(z):"),
                   "thread compute takes no arguments", 20)

    def test_a_value_carried_across_iterations(self):
        src = KERNEL.replace("        x, y = ttl.node(dims=2)\n",
                             "        x, y = ttl.node(dims=2)\n        t = 0\n")
        carried = src.replace("            with a_dfb.reserve() as blk:",
                              "            t = t + i\n            with a_dfb.reserve() as blk:")
        # A loop that carries a value is unrolled (TTL's loops carry none): the read thread's
        # four iterations become four copies, and no scf.for is left in it.
        read = translate("k.py", carried, Options(args=ARGS)).split("ttl.compute_thread")[0]
        self.assertEqual(len(lines_with(read, "ttl.copy %a_slice")), 4)
        self.assertEqual(lines_with(read, "scf.for"), [])
        # Unrolled up to 64 iterations, and only over known bounds.
        many = carried.replace("        for i in range(n):\n            t = t + i",
                               "        for i in range(n * 20):\n            t = t + i")
        self.check(many, "'t' carried across 80 iterations: a loop that carries a value is "
                   "unrolled, up to 64 iterations", 16)
        unknown = carried.replace("        for i in range(n):\n            t = t + i",
                                  "        for i in range(x):\n            t = t + i")
        self.check(unknown, "'t' carried across the iterations of this loop: the loop is unrolled "
                   "for that, so its range() needs known bounds", 16)
        branch = src.replace("        for i in range(n):\n            with a_dfb.reserve()",
                             "        if x > 0:\n            t = t + 1\n"
                             "        for i in range(n):\n            with a_dfb.reserve()", 1)
        self.check(branch, "'t' is assigned inside a loop or branch but defined before it", 17)
        # Rebound in the loop and read after it: the value the last iteration left.
        read_after = src.replace("            with a_dfb.reserve() as blk:",
                                 "            t = i\n            with a_dfb.reserve() as blk:")
        read_after = read_after.replace("x:x + 1], blk).wait()\n",
                                        "x:x + 1], blk).wait()\n        u = t\n")
        self.check(read_after, "'t' was assigned inside a loop or branch (line 17) and is read "
                   "after it", 20)

    def test_a_name_reused_inside_a_loop(self):
        # test_matmul_acc.py's first K step before the loop and the rest in it, under the same
        # names: each region's own block, nothing carried.
        src = KERNEL.replace(
            "        for i in range(n):\n            with a_dfb.wait() as p, o_dfb.reserve() as q:",
            "        p = a_dfb.wait()\n        p.pop()\n"
            "        for i in range(n - 1):\n            with a_dfb.wait() as p, o_dfb.reserve() as q:")
        text = translate("k.py", src, Options(args=ARGS))
        self.assertEqual(len(lines_with(text, "ttl.cb_wait")), 2 + 1)  # compute's two, write's

    def test_a_shape_that_does_not_divide_into_tiles(self):
        self.check(KERNEL, "a.shape[0] = 250 does not divide by 32", 8,
                   args={"a": ((250, 96), "bf16"), "out": ((250, 96), "bf16")})


def run_main(source, *flags):
    """main() on `source` written to a file: (exit status, stdout, stderr)."""
    return run_main_bytes(source.encode(), *flags)


def run_main_bytes(data, *flags):
    """main() on a file holding exactly `data`: (exit status, stdout, stderr)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.py")
        with open(path, "wb") as f:
            f.write(data)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main([path, *flags])
        return status, out.getvalue(), err.getvalue().replace(path, "k.py")


class HostileInput(unittest.TestCase):
    """Each ends in one located line and exit status 1 (2 for a bad flag), never a traceback."""

    def check(self, source, message, *flags, status=1):
        code, _, err = run_main(source, *flags)
        self.assertEqual(code, status, err)
        self.assertIn(message, err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_deep_nesting(self):
        deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
        self.check(deep, "k.py:")

    def test_long_sums(self):
        self.check(KERNEL.replace("n = a.shape[0] // 32 // G",
                                  "n = " + " + ".join(["1"] * 100000)),
                   "k.py:", "--args", "a=256x96,out=256x96")

    def test_not_python(self):
        # A NUL byte is a syntax error at its line and column (Python's parser gives none, or
        # raises ValueError, depending on its version), never an internal error.
        self.check("\x00\x01 def", "k.py:1:1: error: Python syntax error: a NUL byte", "--args",
                   "a=32x32")
        self.check("x = 1\ny = 2\x00\n", "k.py:2:6: error: Python syntax error: a NUL byte")

    def test_a_list_repetition_counts_against_the_budget(self):
        # At operation scope it is an error at its line; at module scope the constant is simply
        # not known (and unused here), so the kernel still reads, without building the list.
        self.check(KERNEL.replace("    n = a.shape[0] // 32 // G\n",
                                  "    n = a.shape[0] // 32 // G\n    big = [0] * 400000000\n"),
                   "k.py:9:11: error: this builds a list of 400000000 entries", "--args",
                   "a=256x96,out=256x96")
        code, out, err = run_main("BIG = [0] * 400000000\n" + KERNEL, "--args",
                                  "a=256x96,out=256x96")
        self.assertEqual(code, 0, err)

    def test_huge_range_and_while_at_operation_scope(self):
        self.check(KERNEL.replace("    n = a.shape[0] // 32 // G\n",
                                  "    n = 0\n    for j in range(1000000000000):\n        n = j\n"),
                   "ran more than 100000 iterations", "--args", "a=256x96,out=256x96")
        self.check(KERNEL.replace("    n = a.shape[0] // 32 // G\n",
                                  "    n = 1\n    while True:\n        pass\n"),
                   "a while loop is not supported", "--args", "a=256x96,out=256x96")

    def test_recursion_is_not_run(self):
        src = "import ttl\n\ndef f(n):\n    return f(n)\n\n" + KERNEL.replace(
            "n = a.shape[0] // 32 // G", "n = f(3)")
        self.check(src, "k.py:4:12: error: helper calls nest more than 32 deep here (in f(), "
                        "called at line 13)", "--args", "a=256x96,out=256x96")

    def test_bad_flags(self):
        self.check(KERNEL, "is not NAME=ROWSxCOLS", "--args", "a=lots", status=2)
        self.check(KERNEL, "--args gives c, which no operation in this file takes", "--args",
                   "a=256x96,out=256x96,c=64x64")
        self.check(KERNEL, "--knob G: the domain", "--knob", "G=two", status=2)
        # Domain text goes into the TTL: only a list or a range/divisors call gets there.
        for domain in ("[1, (]", "[1] } ttl.kernel @evil() {", "range(1)) (2", "divisors(4"):
            self.check(KERNEL, "--knob G: the domain", "--knob", f"G={domain}", status=2)

    def test_a_decorator_used_wrongly(self):
        self.check(KERNEL.replace("grid=(3, 2)", "grid=7"), "grid must be (x, y)",
                   "--args", "a=256x96,out=256x96")


class Encodings(unittest.TestCase):
    """Valid Python is read whatever encoding it declares (PEP 263), as Python reads it."""

    def test_a_byte_order_mark(self):
        code, out, err = run_main_bytes(b"\xef\xbb\xbf" + KERNEL.encode(), "--args",
                                        "a=256x96,out=256x96")
        self.assertEqual(code, 0, err)
        self.assertIn("ttl.kernel @k", out)

    def test_a_latin_1_coding_line(self):
        data = b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + KERNEL.encode()
        code, out, err = run_main_bytes(data, "--args", "a=256x96,out=256x96")
        self.assertEqual(code, 0, err)
        # Two lines before KERNEL: its `def k` (line 7 of KERNEL) is at line 9.
        self.assertIn('k.py":9:1)\n}', out)

    def test_an_unknown_encoding_is_one_located_error(self):
        code, _, err = run_main_bytes(b"# coding: no-such-codec\n" + KERNEL.encode())
        self.assertEqual(code, 1, err)
        self.assertIn("k.py:1:1: error: cannot read the kernel: unknown encoding", err)
        self.assertNotIn("Traceback", err)


class Sidecar(unittest.TestCase):
    def test_sidecar_gives_the_args_and_the_command_line_adds(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k.py")
            with open(path, "w") as f:
                f.write(KERNEL)
            with open(os.path.join(d, "k.ttlplan.toml"), "w") as f:
                f.write('buffer_factor = "auto"\n[args]\na = "256x96"\nout = "256x96:bf16"\n')
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                status = main([path, "--knob", "G=1,2"])
            self.assertEqual(status, 0, err.getvalue())
            self.assertIn("!ttl.cb<[@G, 1], !ttcore.tile<32x32, bf16>, ?>", out.getvalue())


if __name__ == "__main__":
    unittest.main()
