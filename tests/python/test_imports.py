"""Names a kernel imports from the Python files beside it (python/ttlplan/frontend/imports.py):
tt-lang's op library composes operations across its modules (`from ttl.ops.mcast import mcast`
in python/ttl/ops/gemv.py) and tt-lang's metal examples take helpers from a module of their own
folder. Each case writes a small package into a temporary folder."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from ttlplan.frontend.emit import Options, translate  # noqa: E402
from ttlplan.frontend.errors import FrontendError  # noqa: E402

STAGES = '''import ttl

TILES = 2


def double(n):
    return n * 2


@ttl.operation()
def exp_stage(src, inp: ttl.DFB, out: ttl.DFB):
    r = inp.reserve()
    ttl.copy(src, r)
    x = inp.wait()
    o = out.reserve()
    o.store(ttl.math.exp(x))
'''

KERNEL = '''import ttl
from pkg.stages import TILES, double, exp_stage


@ttl.operation(grid=(1, 1))
def k(a, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, TILES), block_count=double(1))
    e_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, TILES))
    exp_stage(a[0:1, 0:TILES], a_dfb, e_dfb)
    ttl.copy(e_dfb.wait(), out[0:1, 0:TILES])
'''

ARGS = {"a": ((32, 64), "bf16"), "out": ((32, 64), "bf16")}


class Imports(unittest.TestCase):
    def write(self, folder: Path, stages: str) -> Path:
        (folder / "pkg").mkdir()
        (folder / "pkg" / "__init__.py").write_text("")
        (folder / "pkg" / "stages.py").write_text(stages)
        (folder / "kernels").mkdir()
        kernel = folder / "kernels" / "k.py"
        kernel.write_text(KERNEL)
        return kernel

    def test_constants_helpers_and_operations_of_a_module_above(self):
        with tempfile.TemporaryDirectory() as d:
            kernel = self.write(Path(d), STAGES)
            text = translate(str(kernel), KERNEL, Options(args=ARGS))
        # TILES = 2 and double(1) = 2 from pkg/stages.py; exp_stage expanded with its source a
        # slice of a (an expression argument); its ops located in stages.py.
        self.assertIn("%a_dfb = ttl.create_cb : !ttl.cb<[1, 2], !ttcore.tile<32x32, bf16>, 2>",
                      text)
        self.assertIn("ttl.exp", text)
        self.assertRegex(text, r'ttl\.exp .*loc\(".*pkg/stages\.py":16:')

    def test_an_error_in_the_imported_file_names_that_file(self):
        with tempfile.TemporaryDirectory() as d:
            kernel = self.write(Path(d), STAGES.replace("ttl.math.exp(x)", "ttl.math.nope(x)"))
            with self.assertRaises(FrontendError) as e:
                translate(str(kernel), KERNEL, Options(args=ARGS))
        self.assertTrue(e.exception.path.endswith("pkg/stages.py"), e.exception.path)
        self.assertEqual(e.exception.line, 16)

    def test_names_of_ttl_itself_and_an_operation_a_factory_builds(self):
        # tt-lang's op library: `from ..pipe import Pipe` inside its ttl package (ttl.Pipe), and
        # flash_decode.py's factory building `core = make_core(...)` to compose.
        kernel_src = """import ttl
from ttl import PipeNet
from ..pipe import Pipe


def make_core(scale):
    @ttl.operation()
    def core(inp: ttl.DFB, out: ttl.DFB):
        o = out.reserve()
        o.store(ttl.math.exp(inp.wait()) * scale)

    return core


def make_k(n):
    core = make_core(n * 2.0)

    @ttl.operation(grid=(2, 1))
    def k(a, out):
        net = PipeNet([Pipe(src=(0, 0), dst=(1, 0))])
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
        e_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
        r = a_dfb.reserve()
        ttl.copy(a[0, 0], r)
        core(a_dfb, e_dfb)
        ttl.copy(e_dfb.wait(), out[0, 0])

    return k
"""
        with tempfile.TemporaryDirectory() as d:
            folder = Path(d) / "ttl" / "ops"
            folder.mkdir(parents=True)
            kernel = folder / "k.py"
            kernel.write_text(kernel_src)
            text = translate(str(kernel), kernel_src,
                             Options(args={**ARGS, "n": 3}))
        self.assertIn("ttl.exp", text)
        # the scale make_core captured: n * 2.0 with n = 3
        self.assertIn("ttl.fill 6.000000000e+00", text)

    def test_a_module_in_a_python_folder_of_the_checkout(self):
        # tt-lang's examples import `utils` from the checkout's python/ folder.
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "python" / "pkg").mkdir(parents=True)
            (root / "python" / "pkg" / "stages.py").write_text(STAGES)
            (root / "examples").mkdir()
            kernel = root / "examples" / "k.py"
            kernel.write_text(KERNEL)
            text = translate(str(kernel), KERNEL, Options(args=ARGS))
        self.assertIn("ttl.exp", text)

    def test_a_module_that_is_not_there_leaves_its_names_unknown(self):
        with tempfile.TemporaryDirectory() as d:
            kernel = Path(d) / "k.py"
            kernel.write_text(KERNEL)
            with self.assertRaises(FrontendError) as e:
                translate(str(kernel), KERNEL, Options(args=ARGS))
        self.assertIn("name 'TILES' is not defined", e.exception.message)


if __name__ == "__main__":
    unittest.main()
