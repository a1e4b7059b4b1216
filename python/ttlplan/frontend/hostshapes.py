"""The shapes a kernel file's own host code passes to its operations.

A tt-lang kernel file usually calls its operation itself: a script body or a pytest function
makes tensors with torch (``torch.rand((2048, 2048), dtype=torch.bfloat16)``), moves them to the
device (``ttnn.from_torch(...)`` or a helper of the file's own) and calls ``op(a, b, out)``. This
module reads that code with ``ast`` and follows it abstractly: it never imports or runs it. It
tracks integers, tuples and tensors (a shape and a dtype); anything else is unknown, and a call
whose arguments are unknown is simply not reported.

What it follows: assignments (tuple unpacking too), arithmetic on integers, ``x.shape`` and
``x.shape[i]``, the torch and ttnn constructors, conversions that keep a tensor's shape
(``ttnn.from_torch``, ``.to(...)``, any unknown call whose first argument is a tensor, such as a
file's ``to_dram(t, device)``), ``torch.cat``/``arange``/``triu`` and the like, ``ttnn.Shape``,
dicts (``{s: make(*s) for s in SHAPES}``), ``*args`` of a known list, an operation passed as a
value (``harness(kernel, ...)``), the file's own functions (called with the values they are given),
``if __name__ == "__main__":``, ``try``/``with`` bodies, the first iteration of a ``for`` over a
literal sequence or ``range``, and pytest functions (``test_*``) with the first value of each
``@pytest.mark.parametrize`` (``pytest.param(...)`` cases too). A budget of steps bounds the work
on any file.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

TORCH_DTYPES = {"bfloat16": "bf16", "float32": "f32", "float": "f32", "float16": "f16",
                "half": "f16"}
TTNN_DTYPES = {"bfloat16": "bf16", "float32": "f32", "bfloat8_b": "bfp8_b",
               "bfloat4_b": "bfp4_b", "float16": "f16"}
# torch/ttnn constructors whose positional arguments (or size=/shape=) are the shape.
CONSTRUCTORS = {"rand", "randn", "zeros", "ones", "empty", "full", "randint", "arange_shape"}
LIKE_CONSTRUCTORS = {"rand_like", "randn_like", "zeros_like", "ones_like", "empty_like",
                     "full_like"}
# torch and ttnn functions whose result has their first argument's shape (and dtype).
SHAPE_KEEPING = {"triu", "tril", "abs", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "relu",
                 "neg", "sin", "cos", "erf", "clamp", "clip", "round", "floor", "ceil", "sign",
                 "square", "reciprocal", "nan_to_num", "clone"}
# Tensor methods whose result has the tensor's shape and dtype: the functions above, moves, and
# elementwise arithmetic and in-place fills.
SHAPE_KEEPING_METHODS = SHAPE_KEEPING | {
    "contiguous", "cpu", "detach", "cuda", "mul", "add", "sub", "div", "remainder", "fmod", "pow",
    "masked_fill", "uniform_", "normal_", "fill_", "zero_", "clamp_"}
MAX_STEPS = 20000
MAX_LIST = 1 << 16  # entries a list the host code builds may have (torch.tensor's data)
MAX_DEPTH = 8


class Unknown:
    def __repr__(self) -> str:
        return "?"


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Tensor:
    shape: tuple[int, ...]
    dtype: str = "bf16"
    row_major: bool = False  # made with layout=ttnn.ROW_MAJOR_LAYOUT (not tiles)


@dataclass
class Function:
    node: ast.FunctionDef
    closure: dict | None = None  # a lambda's: the names where it was made


@dataclass(frozen=True)
class DType:
    name: str  # ttlplan's spelling: bf16, f32, f16, bfp8_b, bfp4_b


# Module constants the host code reads (tt-lang's and TT-NN's tile size).
MODULE_CONSTANTS = {("ttnn", "TILE_SIZE"): 32, ("ttl", "TILE_SIZE"): 32,
                    ("ttl", "TILE_SHAPE"): (32, 32), ("ttnn", "TILE_SHAPE"): (32, 32)}


@dataclass(frozen=True)
class OperationRef:
    """An operation as a value: one defined in a factory function (``def make(n): @ttl.operation
    def kernel(...): ...; return kernel``), with the factory's arguments of that call."""
    name: str
    factory: str | None
    factory_args: tuple[tuple[str, Any], ...] = ()


@dataclass
class OperationCall:
    """One call of an operation in the host code, with what is known of its arguments."""
    operation: str
    line: int
    args: dict[str, Any] = field(default_factory=dict)  # parameter -> Tensor, int, float, ...
    col: int = 1  # the call's column (1-based)
    factory: str | None = None  # the module-level function that defines the operation, if any
    factory_args: dict[str, Any] = field(default_factory=dict)  # its parameters in that call
    options: str | None = None  # tt-lang compiler options the call passes (options="...")

    def spec(self) -> str:
        """The ``--args`` text of the known tensor, integer and tuple arguments."""
        parts = []
        for name, v in self.args.items():
            if isinstance(v, Tensor):
                shape = v.shape or (1, 1)  # a scalar as the one tile it is tiled into
                parts.append(f"{name}={'x'.join(map(str, shape))}:{v.dtype}")
            elif isinstance(v, bool):
                continue
            elif isinstance(v, int):
                parts.append(f"{name}={v}")
            elif isinstance(v, tuple) and v and all(isinstance(x, int) for x in v):
                parts.append(f"{name}={'x'.join(map(str, v))}")
        return ",".join(parts)


class _Budget(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


# ttl.operation (spec 0.13+), ttl.atom (0.19's name for a unified body) and the kernel era's
# ttl.kernel: what the host code calls.
OPERATION_DECORATORS = ("operation", "atom", "kernel")


def _is_operation(fn: ast.FunctionDef) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr in OPERATION_DECORATORS and \
                isinstance(target.value, ast.Name) and target.value.id == "ttl":
            return True
        if isinstance(target, ast.Name) and target.id in OPERATION_DECORATORS:
            return True
    return False


def _module_of(node: ast.expr) -> str | None:
    """``torch`` for ``torch`` and for ``__import__("torch")``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "__import__" and len(node.args) == 1 and \
            isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


@dataclass(frozen=True)
class GridSize:
    """``device.compute_with_storage_grid_size()``: the device's compute grid, ``.x`` columns by
    ``.y`` rows (ttlplan's --device)."""
    x: int
    y: int


class HostInterpreter:
    def __init__(self, tree: ast.Module, device_grid: tuple[int, int] = (8, 8)) -> None:
        self.tree = tree
        self.device_grid = device_grid
        self.globals: dict[str, Any] = {}
        self.operations = {fn.name for fn in tree.body
                           if isinstance(fn, ast.FunctionDef) and _is_operation(fn)}
        self.calls: list[OperationCall] = []
        self.steps = 0
        self.depth = 0
        self.frames: list[tuple[str, dict[str, Any]]] = []  # (function, its parameters) running

    # --- statements ------------------------------------------------------------------------
    def run_module(self) -> None:
        try:
            self.block(self.tree.body, self.globals)
        except (_Budget, _Return):
            return
        # pytest functions: each test_* with the first value of each parametrize.
        tests = [n for n in self.tree.body if isinstance(n, ast.FunctionDef)]
        for cls in self.tree.body:
            if isinstance(cls, ast.ClassDef) and cls.name.startswith("Test"):
                tests += [n for n in cls.body if isinstance(n, ast.FunctionDef)]
        for node in tests:
            if not node.name.startswith("test"):
                continue
            # A parameter that lists operations (parametrize("op", [k1, k2])) runs the test once
            # per operation, so that each gets its call.
            runs = [{}]
            for key, names in self._operation_params(node).items():
                runs = [{**r, key: OperationRef(n, None)} for r in runs for n in names]
            for run in runs:
                env = dict(self.globals)
                for name, value in self._parametrize(node, env).items():
                    env[name] = value
                env.update(run)
                # The test is the frame of the operations it defines (their factory), as a
                # function the host code calls is.
                self.frames.append((node.name, {}))
                try:
                    self.block(node.body, env)
                except (_Budget, _Return):
                    pass
                finally:
                    self.frames.pop()

    def _operation_params(self, fn: ast.FunctionDef) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for dec in fn.decorator_list:
            if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and \
                    dec.func.attr == "parametrize" and len(dec.args) >= 2 and \
                    isinstance(dec.args[0], ast.Constant) and \
                    isinstance(dec.args[1], (ast.List, ast.Tuple)) and dec.args[1].elts and \
                    all(isinstance(e, ast.Name) and e.id in self.operations
                        for e in dec.args[1].elts):
                out[str(dec.args[0].value).strip()] = [e.id for e in dec.args[1].elts][:8]
        return out

    def _parametrize(self, fn: ast.FunctionDef, env: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for dec in fn.decorator_list:
            if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and
                    dec.func.attr == "parametrize" and len(dec.args) >= 2):
                continue
            names = self.expr(dec.args[0], env)
            values = self.expr(dec.args[1], env)
            if not isinstance(names, str) or not isinstance(values, (list, tuple)) or not values:
                continue
            keys = [n.strip() for n in names.split(",") if n.strip()]
            first = values[0]
            if len(keys) == 1:
                out[keys[0]] = first
            elif isinstance(first, tuple) and len(first) == len(keys):
                out.update(zip(keys, first))
        return out

    def block(self, body: list[ast.stmt], env: dict[str, Any]) -> None:
        for stmt in body:
            self.stmt(stmt, env)

    def stmt(self, s: ast.stmt, env: dict[str, Any]) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget()
        if isinstance(s, ast.FunctionDef):
            if _is_operation(s) and self.frames:
                name, params = self.frames[-1]
                env[s.name] = OperationRef(s.name, name, tuple(params.items()))
            elif not _is_operation(s):
                env[s.name] = Function(s)
        elif isinstance(s, ast.Assign):
            value = self.expr(s.value, env)
            for target in s.targets:
                self.bind(target, value, env)
        elif isinstance(s, ast.AnnAssign) and s.value is not None:
            self.bind(s.target, self.expr(s.value, env), env)
        elif isinstance(s, ast.AugAssign):
            if isinstance(s.target, ast.Name):
                env[s.target.id] = self.binop(s.op, env.get(s.target.id, UNKNOWN),
                                              self.expr(s.value, env))
        elif isinstance(s, ast.Expr):
            self.expr(s.value, env)
        elif isinstance(s, ast.Return):
            raise _Return(self.expr(s.value, env) if s.value else None)
        elif isinstance(s, ast.If):
            test = self.expr(s.test, env)
            if test is True or self._is_main_guard(s.test):
                self.block(s.body, env)
            elif test is False:
                self.block(s.orelse, env)
            else:
                self.block(s.body, env)
        elif isinstance(s, ast.Try):
            self.block(s.body, env)
            self.block(s.finalbody, env)
        elif isinstance(s, ast.With):
            for item in s.items:
                value = self.expr(item.context_expr, env)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, value, env)
            self.block(s.body, env)
        elif isinstance(s, ast.For):
            seq = self.expr(s.iter, env)
            if isinstance(seq, (list, tuple)) and seq:
                self.bind(s.target, seq[0], env)
                self.block(s.body, env)
            elif isinstance(seq, range) and len(seq):
                self.bind(s.target, seq[0], env)
                self.block(s.body, env)

    @staticmethod
    def _is_main_guard(test: ast.expr) -> bool:
        return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and \
            test.left.id == "__name__"

    def bind(self, target: ast.expr, value: Any, env: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value if isinstance(value, (tuple, list)) and \
                len(value) == len(target.elts) else [UNKNOWN] * len(target.elts)
            for t, v in zip(target.elts, items):
                self.bind(t, v, env)

    # --- expressions -----------------------------------------------------------------------
    def expr(self, node: ast.expr | None, env: dict[str, Any]) -> Any:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget()
        if node is None:
            return UNKNOWN
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id not in self.globals and node.id in self.operations:
                return OperationRef(node.id, None)  # passed to a harness: run(kernel, ...)
            return self.globals.get(node.id, UNKNOWN)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = tuple(self.expr(e, env) for e in node.elts)
            return items if isinstance(node, ast.Tuple) else list(items)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left, env), self.expr(node.right, env))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.expr(node.operand, env)
            return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else UNKNOWN
        if isinstance(node, ast.Attribute):
            module = _module_of(node.value)
            if module in ("torch", "ttnn") and (module not in env or module == "ttnn"):
                table = TORCH_DTYPES if module == "torch" else TTNN_DTYPES
                if node.attr in table:
                    return DType(table[node.attr])
            if (module, node.attr) in MODULE_CONSTANTS:
                return MODULE_CONSTANTS[(module, node.attr)]
            base = self.expr(node.value, env)
            if isinstance(base, GridSize) and node.attr in ("x", "y"):
                return getattr(base, node.attr)
            if isinstance(base, Tensor) and node.attr == "shape":
                return base.shape
            if isinstance(base, Tensor) and node.attr == "T" and len(base.shape) == 2:
                return Tensor((base.shape[1], base.shape[0]), base.dtype)
            return UNKNOWN
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value, env)
            index = self.expr(node.slice, env)
            if isinstance(base, (tuple, list)) and isinstance(index, int) and \
                    -len(base) <= index < len(base):
                return base[index]
            if isinstance(base, dict) and _hashable(index):
                return base.get(index, UNKNOWN)
            return UNKNOWN
        if isinstance(node, ast.Dict):  # {"a": t, ...}: the keys the code can name
            out = {}
            for k, v in zip(node.keys, node.values):
                key = self.expr(k, env) if k is not None else UNKNOWN
                if not _hashable(key):
                    return UNKNOWN
                out[key] = self.expr(v, env)
            return out
        if isinstance(node, ast.DictComp):  # {s: make(*s) for s in SHAPES}
            pairs = self.comprehension(
                ast.ListComp(ast.Tuple([node.key, node.value], ast.Load()), node.generators),
                node.generators, dict(env))
            if pairs is UNKNOWN or not all(_hashable(k) for k, _ in pairs):
                return UNKNOWN
            return dict(pairs)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.Lambda):  # make = lambda: to_dram(torch.randn(...), device)
            fn = ast.FunctionDef(name="<lambda>", args=node.args,
                                 body=[ast.copy_location(ast.Return(node.body), node)],
                                 decorator_list=[], returns=None)
            return Function(ast.copy_location(fn, node), env)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self.comprehension(node, node.generators, dict(env))
        return UNKNOWN

    def comprehension(self, node, generators: list[ast.comprehension], env: dict[str, Any]):
        """[elt for ... in KNOWN for ... in KNOWN if ...] as a list; unknown when a sequence is."""
        if not generators:
            return [self.expr(node.elt, env)]
        gen, out = generators[0], []
        seq = self.expr(gen.iter, env)
        if not isinstance(seq, (list, tuple, range)):
            return UNKNOWN
        for item in seq:
            self.bind(gen.target, item, env)
            if any(self.expr(cond, env) is False for cond in gen.ifs):
                continue
            rest = self.comprehension(node, generators[1:], env)
            if rest is UNKNOWN:
                return UNKNOWN
            out += rest
        return out

    def binop(self, op: ast.operator, a: Any, b: Any) -> Any:
        if isinstance(a, bool) or isinstance(b, bool):
            return UNKNOWN
        if isinstance(a, int) and isinstance(b, int):
            try:
                if isinstance(op, ast.Add):
                    return a + b
                if isinstance(op, ast.Sub):
                    return a - b
                if isinstance(op, ast.Mult):
                    return a * b if abs(a * b) < 1 << 40 else UNKNOWN
                if isinstance(op, ast.FloorDiv):
                    return a // b
                if isinstance(op, ast.Mod):
                    return a % b
                if isinstance(op, ast.Pow) and 0 <= b <= 40:
                    return a ** b if abs(a ** b) < 1 << 40 else UNKNOWN
            except ZeroDivisionError:
                return UNKNOWN
            return UNKNOWN
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
                isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            try:  # a float (1.0 / 64.0, a test's step): the value is rarely needed, never a shape
                return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(op)) \
                    if not isinstance(op, ast.Div) else a / b
            except ZeroDivisionError:
                return UNKNOWN
        if isinstance(op, ast.Add) and type(a) is type(b) and isinstance(a, (tuple, list)):
            return a + b if len(a) + len(b) <= MAX_LIST else UNKNOWN
        if isinstance(op, ast.Mult) and isinstance(a, (tuple, list)) and isinstance(b, int):
            return a * b if 0 <= len(a) * b <= MAX_LIST else UNKNOWN  # [[...]] * 32
        if isinstance(op, ast.MatMult) and isinstance(a, Tensor) and isinstance(b, Tensor) and \
                len(a.shape) == 2 and len(b.shape) == 2:
            return Tensor((a.shape[0], b.shape[1]), a.dtype)
        if isinstance(a, Tensor) and isinstance(b, (Tensor, int, float)):
            return a  # elementwise arithmetic keeps the shape
        if isinstance(a, (int, float)) and isinstance(b, Tensor):
            return b  # 2.0 + 0.5 * torch.rand(...)
        return UNKNOWN

    def call(self, node: ast.Call, env: dict[str, Any]) -> Any:
        func = node.func
        args = self._positional(node.args, env)
        kwargs = {k.arg: k.value for k in node.keywords if k.arg}
        name = func.id if isinstance(func, ast.Name) else None
        callee = env.get(name, self.globals.get(name)) if name else None
        computed = not isinstance(func, (ast.Name, ast.Attribute))
        if computed:  # kernels[shape](...), make(n)(...)
            callee = self.expr(func, env)
        if isinstance(callee, OperationRef):
            self._record(callee.name, node, args, {k: self.expr(v, env) for k, v in kwargs.items()},
                         callee.factory, dict(callee.factory_args))
            return UNKNOWN
        if name in self.operations and callee is None:
            self._record(name, node, args, {k: self.expr(v, env) for k, v in kwargs.items()})
            return UNKNOWN
        if isinstance(callee, Function):
            return self._call_function(callee, node, args, kwargs, env)
        if computed:
            return UNKNOWN
        if name == "range":
            ints = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
            if len(ints) == len(args) and 1 <= len(ints) <= 3:
                try:
                    return range(*ints)
                except ValueError:
                    return UNKNOWN
            return UNKNOWN
        if name in ("max", "min") and args:
            items = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            if items and all(isinstance(a, int) and not isinstance(a, bool) for a in items):
                return max(items) if name == "max" else min(items)
            return UNKNOWN
        if name in ("int", "len") and len(args) == 1:
            a = args[0]
            if name == "int" and isinstance(a, int):
                return a
            if name == "len" and isinstance(a, (tuple, list)):
                return len(a)
            return UNKNOWN
        if isinstance(func, ast.Attribute):
            return self._attribute_call(func, node, args, kwargs, env)
        # An unknown function of a tensor (a file's to_dram(t, device)): the same tensor.
        if args and isinstance(args[0], Tensor):
            return args[0]
        return UNKNOWN

    def _positional(self, nodes: list[ast.expr], env: dict[str, Any]) -> list[Any]:
        """A call's positional values, ``*seq`` spread; after a ``*`` of unknown length the
        positions are unknown, so they stop there."""
        out: list[Any] = []
        for a in nodes:
            if isinstance(a, ast.Starred):
                seq = self.expr(a.value, env)
                if not isinstance(seq, (list, tuple)):
                    break
                out += seq
            else:
                out.append(self.expr(a, env))
        return out

    def _attribute_call(self, func: ast.Attribute, node: ast.Call, args: list[Any],
                        kwargs: dict[str, ast.expr], env: dict[str, Any]) -> Any:
        owner = _module_of(func.value)
        attr = func.attr
        dtype = self.expr(kwargs["dtype"], env) if "dtype" in kwargs else None
        dtype = dtype.name if isinstance(dtype, DType) else None
        if owner == "torch" and attr == "tensor" and args:
            shape = _nested_shape(args[0])
            if shape:  # torch.tensor([[...] * 32] * 32): the nesting's shape
                return Tensor(shape, dtype or "f32")
            return UNKNOWN
        if owner in ("torch", "ttnn") and attr in CONSTRUCTORS:
            shape_node = kwargs.get("size") or kwargs.get("shape")
            if shape_node is not None:
                shape = self.expr(shape_node, env)
            elif attr == "randint":
                shape = args[2] if len(args) > 2 else UNKNOWN
            elif attr == "full":
                shape = args[0] if args else UNKNOWN
            elif len(args) == 1 and isinstance(args[0], (tuple, list)):
                shape = args[0]
            else:
                shape = tuple(args)
            # () is a scalar (torch.rand(()), the spec's elementwise_broadcast_reduce.py).
            if isinstance(shape, (tuple, list)) and \
                    all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
                default = "bf16" if owner == "ttnn" else "f32"
                return Tensor(tuple(shape), dtype or default,
                              owner == "ttnn" and _row_major(kwargs.get("layout")) is True)
            return UNKNOWN
        if owner in ("torch", "ttnn") and attr in LIKE_CONSTRUCTORS and args and \
                isinstance(args[0], Tensor):
            return Tensor(args[0].shape, dtype or args[0].dtype)
        if owner == "ttnn" and attr in ("from_torch", "to_device", "to_layout", "to_memory_config",
                                        "to_torch", "clone") and args and \
                isinstance(args[0], Tensor):
            layout = _row_major(kwargs.get("layout") or (node.args[1] if attr == "to_layout" and
                                                         len(node.args) > 1 else None))
            return Tensor(args[0].shape, dtype or args[0].dtype,
                          args[0].row_major if layout is None else layout)
        if owner == "pytest" and attr == "param":  # pytest.param(v1, v2, id=...): the values
            return tuple(args) if len(args) != 1 else args[0]
        if owner == "torch" and attr == "eye" and 1 <= len(args) <= 2 and \
                all(isinstance(a, int) and not isinstance(a, bool) and a > 0 for a in args):
            return Tensor((args[0], args[-1]), dtype or "f32")
        if owner == "ttnn" and attr == "Shape" and len(args) == 1 and \
                isinstance(args[0], (list, tuple)):
            return tuple(args[0])  # ttnn.Shape([M, N])
        if owner == "torch" and attr == "arange" and 1 <= len(args) <= 3 and \
                all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args):
            try:
                n = len(range(*args)) if all(isinstance(a, int) for a in args) else UNKNOWN
            except ValueError:
                n = UNKNOWN
            if isinstance(n, int) and n > 0:
                return Tensor((n,), dtype or "i64")
            return UNKNOWN
        if owner == "torch" and attr in ("cat", "concat") and args and \
                isinstance(args[0], (list, tuple)) and args[0] and \
                all(isinstance(t, Tensor) for t in args[0]):
            return _concatenate(args[0], self.expr(kwargs["dim"], env) if "dim" in kwargs
                                else args[1] if len(args) > 1 else 0)
        if owner in ("torch", "ttnn") and attr in SHAPE_KEEPING and args and \
                isinstance(args[0], Tensor):
            return Tensor(args[0].shape, dtype or args[0].dtype)
        if owner == "torch" and attr == "matmul" and len(args) == 2:
            return self.binop(ast.MatMult(), args[0], args[1])
        if attr == "compute_with_storage_grid_size" and not args:
            return GridSize(*self.device_grid)
        base = self.expr(func.value, env)
        if isinstance(base, Tensor):
            if attr == "to":
                to = dtype or (args[0].name if args and isinstance(args[0], DType) else None)
                return Tensor(base.shape, to or base.dtype)
            if attr in ("reshape", "view") and args:
                shape = args[0] if len(args) == 1 and isinstance(args[0], tuple) else tuple(args)
                if shape and all(isinstance(d, int) and d > 0 for d in shape):
                    return Tensor(shape, base.dtype)
                return UNKNOWN
            if attr in ("float",):
                return Tensor(base.shape, "f32")
            if attr in ("bfloat16",):
                return Tensor(base.shape, "bf16")
            if attr in SHAPE_KEEPING_METHODS:
                return base
            return UNKNOWN
        if args and isinstance(args[0], Tensor) and owner not in ("torch", "ttnn", "ttl"):
            return args[0]  # a helper module's conversion (utils.to_dram(t, device))
        return UNKNOWN

    def _call_function(self, fn: Function, node: ast.Call, args: list[Any],
                       kwargs: dict[str, ast.expr], env: dict[str, Any]) -> Any:
        if self.depth >= MAX_DEPTH:
            return UNKNOWN
        params = fn.node.args
        local: dict[str, Any] = dict(fn.closure) if fn.closure is not None else {}
        positional = params.posonlyargs + params.args
        defaults = params.defaults
        for i, p in enumerate(positional):
            if i < len(args):
                local[p.arg] = args[i]
            elif p.arg in kwargs:
                local[p.arg] = self.expr(kwargs[p.arg], env)
            else:
                d = i - (len(positional) - len(defaults))
                local[p.arg] = self.expr(defaults[d], self.globals) if d >= 0 else UNKNOWN
        for p, d in zip(params.kwonlyargs, params.kw_defaults):
            local[p.arg] = self.expr(kwargs[p.arg], env) if p.arg in kwargs else \
                self.expr(d, self.globals) if d is not None else UNKNOWN
        self.depth += 1
        self.frames.append((fn.node.name, dict(local)))
        try:
            self.block(fn.node.body, local)
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
            self.frames.pop()
        return None

    def _record(self, name: str, node: ast.Call, args: list[Any], kwargs: dict[str, Any],
                factory: str | None = None, factory_args: dict[str, Any] | None = None):
        scope = next((f for f in self.tree.body if isinstance(f, ast.FunctionDef) and
                      f.name == factory), self.tree) if factory else self.tree
        fn = next(f for f in ast.walk(scope)
                  if isinstance(f, ast.FunctionDef) and f.name == name and _is_operation(f))
        params = [p.arg for p in fn.args.posonlyargs + fn.args.args]
        call = OperationCall(name, node.lineno, col=node.col_offset + 1, factory=factory,
                             factory_args=factory_args or {})
        for p, v in zip(params, args):
            call.args[p] = v
        for k, v in kwargs.items():
            if k in params or k in [p.arg for p in fn.args.kwonlyargs]:
                call.args[k] = v
            elif k == "options" and isinstance(v, str):
                call.options = v
        self.calls.append(call)


def _row_major(layout: ast.expr | None) -> bool | None:
    """True for layout=ttnn.ROW_MAJOR_LAYOUT, False for ttnn.TILE_LAYOUT, None when not said (the
    tensor is taken as tiled: tt-lang's tests move tensors with layout=ttnn.TILE_LAYOUT)."""
    if isinstance(layout, ast.Attribute) and layout.attr in ("ROW_MAJOR_LAYOUT", "TILE_LAYOUT"):
        return layout.attr == "ROW_MAJOR_LAYOUT"
    return None


def _hashable(v: Any) -> bool:
    if v is UNKNOWN:
        return False
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _concatenate(tensors, dim: Any) -> Any:
    """torch.cat's result: the shapes agree except along `dim`, which adds up."""
    rank = len(tensors[0].shape)
    if not isinstance(dim, int) or not -rank <= dim < rank or \
            any(len(t.shape) != rank for t in tensors):
        return UNKNOWN
    dim %= rank
    if any(t.shape[:dim] + t.shape[dim + 1:] != tensors[0].shape[:dim] +
           tensors[0].shape[dim + 1:] for t in tensors):
        return UNKNOWN
    shape = list(tensors[0].shape)
    shape[dim] = sum(t.shape[dim] for t in tensors)
    return Tensor(tuple(shape), tensors[0].dtype)


def _nested_shape(data: Any) -> tuple[int, ...] | None:
    """The shape of a rectangular nested list of numbers, None for anything else."""
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return ()
    if not isinstance(data, (list, tuple)) or not data:
        return None
    inner = _nested_shape(data[0])
    if inner is None or any(_nested_shape(d) != inner for d in data[1:]):
        return None
    return (len(data),) + inner


def calls_of(tree: ast.Module, device_grid: tuple[int, int] = (8, 8)) -> list[OperationCall]:
    """host_calls of a parsed file; `device_grid` (x, y) is what the host code reads as the
    device's compute grid."""
    interp = HostInterpreter(tree, device_grid)
    interp.run_module()
    return interp.calls


def host_calls(source: str) -> list[OperationCall]:
    """Every call of an operation that the file's host code makes, in the order it makes them,
    with the arguments known there. Source that does not parse has none."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    interp = HostInterpreter(tree)
    interp.run_module()
    return interp.calls
