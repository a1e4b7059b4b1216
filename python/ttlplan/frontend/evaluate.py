"""Evaluation of the straight-line Python of a tt-lang operation (docs/tt-lang-python-notes.md, §4).

The body of an ``@ttl.operation`` is ordinary Python that tt-lang runs at call time to size its
buffers, loops and pipes. The front end never runs user code: it evaluates the constant
expressions it understands, in an environment of module constants, the operation's tensor
arguments (their shapes in elements and dtypes, from ``--args``) and the names the body binds,
and refuses anything else with a located error. Integers may be knob expressions (``values.Sym``).

Understood: int, float, bool, str and None literals; names; tuples and lists; ``+ - * // %`` and
unary ``-`` (``-(-a // b)`` is ``ceildiv(a, b)``); ``min``, ``max``, ``len``, ``int``, ``abs``,
``math.ceil(a / b)``; comparisons, ``and``/``or``/``not`` and conditional expressions on known
values; subscripts of tuples and lists by known integers; a tensor's ``.shape`` and ``.dtype``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable

from . import values
from .helpers import Helper, call_helper
from .errors import FrontendError
from .values import Int, Sym

_MISSING = object()


def ttl_attr(node: ast.expr) -> str | None:
    """`ttl.X` or `ttl.Y.X` (`ttl.math.exp`) as "X" / "Y.X"; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id == "ttl" and parts:
        return ".".join(reversed(parts))
    return None


# The most loop iterations operation-scope code may run (a `for` over range), so that no input can
# make the front end spin.
MAX_ITERATIONS = 100_000


class ShapeInt(int):
    """An integer read from a tensor's shape (or divided exactly from one): dividing it with a
    remainder drops part of the tensor, which the front end reports instead of planning a kernel
    that silently skips the last rows or columns."""

    origin: str  # "a.shape[0] = 100", for the message

    def __new__(cls, value: int, origin: str):
        obj = super().__new__(cls, value)
        obj.origin = origin
        return obj


@dataclass(frozen=True)
class TensorArg:
    """An operation argument: a tensor of `shape` elements and `dtype` (bf16, f32, bfp8_b, ...)."""

    name: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def flat_shape(self) -> tuple[int, int]:
        """The 2-D tensor TTL sees: leading (batch) dimensions folded into the rows. A tiled
        [B, H, W] tensor's tiles lie in DRAM in (b, row, column) order, which is the order of the
        [B * H, W] tensor's tiles when H is whole tiles (operation.py checks it)."""
        if not self.shape:  # a scalar: element (0, 0) of one tile, as ttnn tiles it
            return (1, 1)
        rows = 1  # a vector [M] is one row: row 0 of each tile, as ttnn tiles it
        for d in self.shape[:-1]:
            rows *= d
        return (rows, self.shape[-1])


class Evaluator:
    """Evaluates expressions of one file; `env` maps names to values (ints, Syms, tuples, ...)."""

    def __init__(self, path: str, env: dict[str, Any],
                 ttl_call: Callable[["Evaluator", ast.Call, str], Any] | None = None):
        self.path = path
        self.env = env
        # Applies a call of ttl.X(...) (the operation scope's dataflow buffers, pipes, grid);
        # None where no ttl call is understood.
        self.ttl_call = ttl_call
        # Applies a method of an operation-scope object (`sem.get_remote((0, 0))`), or returns
        # NotImplemented; None where no object has methods.
        self.method_call: Callable[["Evaluator", Any, str, ast.Call], Any] | None = None
        # Iterations left to comprehensions (shared with the operation scope's for loops).
        self.budget = [MAX_ITERATIONS]

    def error(self, node: ast.AST | None, message: str) -> FrontendError:
        return FrontendError.at(self.path, node, message)

    def integer(self, node: ast.expr) -> Int:
        """`node` as an integer (or knob expression); an error naming what it is otherwise."""
        v = self.eval(node)
        if isinstance(v, bool) or not isinstance(v, (int, Sym)):
            raise self.error(node, f"expected an integer here, got {describe(v)}")
        return v

    def known(self, node: ast.expr) -> Any:
        """`node`'s value, which must not depend on a knob (a condition, a loop bound)."""
        v = self.eval(node)
        if isinstance(v, Sym):
            raise self.error(
                node,
                f"this value depends on a knob ({v}); only sizes may: conditions, loop bounds "
                "and indices at operation scope must be known numbers",
            )
        return v

    def eval(self, node: ast.expr) -> Any:
        method: Callable[[Any], Any] | None = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise self.error(
                node,
                f"{construct(node)} is not supported in a tt-lang operation's Python (the front "
                "end evaluates constant integer expressions only; docs/python.md)",
            )
        try:
            return method(node)
        except ZeroDivisionError as e:
            raise self.error(node, str(e)) from None

    # --- Literals, names, containers -------------------------------------------------------

    def _Constant(self, node: ast.Constant) -> Any:
        if isinstance(node.value, (int, float, str, bool)) or node.value is None:
            return node.value
        if node.value is Ellipsis:
            # A placeholder (the spec's `ROWS = ...  # rows participating`), fine until used.
            return Ellipsis
        raise self.error(node, f"the literal {node.value!r} is not supported")

    def _Name(self, node: ast.Name) -> Any:
        if node.id in self.env:
            return self.env[node.id]
        if node.id in _BUILTINS:
            return _BUILTINS[node.id]
        raise self.error(node, f"name '{node.id}' is not defined (or not a constant the front end knows)")

    def _Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.eval(e) for e in node.elts)

    def _List(self, node: ast.List) -> list:
        return [self.eval(e) for e in node.elts]

    # --- Arithmetic ---------------------------------------------------------------------------

    def _BinOp(self, node: ast.BinOp) -> Any:
        ops = {
            ast.Add: values.add,
            ast.Sub: values.sub,
            ast.Mult: values.mul,
            ast.FloorDiv: values.floordiv,
            ast.Mod: values.mod,
        }
        op = ops.get(type(node.op))
        if op is None and not isinstance(node.op, ast.Div):
            raise self.error(node, f"operator {type(node.op).__name__} is not supported")
        if (
            isinstance(node.op, ast.FloorDiv)
            and isinstance(node.left, ast.UnaryOp)
            and isinstance(node.left.op, ast.USub)
        ):
            # (-x) // y: half of the ceiling idiom -(-x // y).
            return values.floordiv_of_negation(
                self.integer(node.left.operand), self.integer(node.right)
            )
        left, right = self.eval(node.left), self.eval(node.right)
        if isinstance(left, float) or isinstance(right, float):
            return self._float_binop(node, left, right)
        if isinstance(node.op, ast.Div):
            raise self.error(node, "'/' gives a float; sizes use '//' (or -(-a // b) to round up)")
        if isinstance(left, (tuple, list)) and isinstance(node.op, (ast.Add, ast.Mult)):
            if isinstance(node.op, ast.Add) and isinstance(right, type(left)):
                size = len(left) + len(right)
            elif isinstance(node.op, ast.Mult) and isinstance(right, int) and \
                    not isinstance(right, bool):
                size = len(left) * max(right, 0)
            else:
                size = None
            if size is not None:
                # What a list builds counts against the same budget as the loops that could
                # build it: `[0] * 400000000` is an error, not 3 GiB.
                if size > MAX_ITERATIONS:
                    raise self.error(node, f"this builds a {type(left).__name__} of {size} "
                                           f"entries, more than the front end evaluates "
                                           f"({MAX_ITERATIONS})")
                return left + right if isinstance(node.op, ast.Add) else left * right
        for side, v in (("left", left), ("right", right)):
            if isinstance(v, bool) or not isinstance(v, (int, Sym)):
                raise self.error(node, f"the {side} operand is {describe(v)}, not an integer")
        if isinstance(node.op, ast.FloorDiv) and isinstance(left, ShapeInt) and \
                isinstance(right, int) and right > 0:
            if left % right:
                raise self.error(node, f"{left.origin} does not divide by {right}: "
                                       f"{int(left)} // {right} drops the last {left % right}, so "
                                       "the kernel would skip part of the tensor; use a shape that "
                                       f"divides, or round up with -(-n // {right}) and clip")
            return ShapeInt(left // right, f"{left.origin} // {right} = {left // right}")
        return op(left, right)

    def _float_binop(self, node: ast.BinOp, left: Any, right: Any) -> float:
        """Arithmetic with a float operand (``1.0 / D``, ``eps * 2``): a value for a fill or a
        scale, never a size."""
        if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            raise self.error(node, f"operator {type(node.op).__name__} on a float is not "
                                   "supported")
        for v in (left, right):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self.error(node, f"arithmetic of a float with {describe(v)}")
        if isinstance(node.op, ast.Div) and right == 0:
            raise self.error(node, "division by zero")
        ops = {ast.Add: float.__add__, ast.Sub: float.__sub__, ast.Mult: float.__mul__,
               ast.Div: float.__truediv__}
        result = ops[type(node.op)](float(left), float(right))
        if result != result or result in (float("inf"), float("-inf")):
            raise self.error(node, "this float arithmetic overflows")
        return result

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        if isinstance(node.op, ast.USub):
            v = self.eval(node.operand)
            if isinstance(v, float):
                return -v
            if isinstance(v, bool) or not isinstance(v, (int, Sym)):
                raise self.error(node.operand, f"expected an integer here, got {describe(v)}")
            return values.neg(v)
        if isinstance(node.op, ast.UAdd):
            return self.integer(node.operand)
        if isinstance(node.op, ast.Not):
            return not self.known(node.operand)
        raise self.error(node, f"operator {type(node.op).__name__} is not supported")

    # --- Conditions ---------------------------------------------------------------------------

    def _Compare(self, node: ast.Compare) -> bool:
        left = self.known(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.known(right_node)
            test = {
                ast.Eq: lambda a, b: a == b,
                ast.NotEq: lambda a, b: a != b,
                ast.Lt: lambda a, b: a < b,
                ast.LtE: lambda a, b: a <= b,
                ast.Gt: lambda a, b: a > b,
                ast.GtE: lambda a, b: a >= b,
            }.get(type(op))
            if test is None:
                raise self.error(node, f"comparison {type(op).__name__} is not supported")
            try:
                if not test(left, right):
                    return False
            except TypeError:
                raise self.error(
                    node, f"cannot compare {describe(left)} with {describe(right)}"
                ) from None
            left = right
        return True

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        result = None
        for v in node.values:
            result = self.known(v)
            if isinstance(node.op, ast.And) and not result:
                return result
            if isinstance(node.op, ast.Or) and result:
                return result
        return result

    def _IfExp(self, node: ast.IfExp) -> Any:
        return self.eval(node.body) if self.known(node.test) else self.eval(node.orelse)

    # --- Subscripts, attributes, calls -----------------------------------------------------------

    def _Subscript(self, node: ast.Subscript) -> Any:
        base = self.eval(node.value)
        if not isinstance(base, (tuple, list)):
            raise self.error(node, f"cannot index {describe(base)} at operation scope")
        index = self.known(node.slice)
        if not isinstance(index, int) or isinstance(index, bool):
            raise self.error(node.slice, f"an index must be an integer, got {describe(index)}")
        if not -len(base) <= index < len(base):
            raise self.error(node.slice, f"index {index} is out of range for {len(base)} entries")
        return base[index]

    def _Attribute(self, node: ast.Attribute) -> Any:
        base = self.eval(node.value)
        if isinstance(base, TensorArg):
            if node.attr == "shape":
                return tuple(ShapeInt(d, f"{base.name}.shape[{i}] = {d}")
                             for i, d in enumerate(base.shape))
            if node.attr == "dtype":
                return base.dtype
            raise self.error(node, f"a tensor argument has .shape and .dtype here, not .{node.attr}")
        if isinstance(base, Module) and node.attr in base.members:
            return base.members[node.attr]
        if isinstance(base, Module) and base.name == "ttl" and self.ttl_call is not None:
            return TtlFunction(node.attr)  # called later through its alias
        raise self.error(node, f"attribute .{node.attr} of {describe(base)} is not supported")

    def _ListComp(self, node: ast.ListComp) -> list:
        """[expr for T in SEQ if cond ... for T2 in SEQ2 ...]: each SEQ range(...) or a known list
        or tuple, each T a name or a tuple of names; the generators nest left to right."""
        names = []
        for gen in node.generators:
            if gen.is_async:
                raise self.error(gen.iter, "an async comprehension is not supported")
            targets = gen.target.elts if isinstance(gen.target, ast.Tuple) else [gen.target]
            if not all(isinstance(t, ast.Name) for t in targets):
                raise self.error(gen.target, "a comprehension variable must be a plain name or a "
                                             "tuple of names")
            names += [t.id for t in targets]
        saved = {n: self.env.get(n, _MISSING) for n in names}
        out: list = []
        try:
            self._comprehend(node, 0, out)
        finally:
            for n, v in saved.items():
                if v is _MISSING:
                    self.env.pop(n, None)
                else:
                    self.env[n] = v
        return out

    def _comprehend(self, node: ast.ListComp, k: int, out: list) -> None:
        if k == len(node.generators):
            out.append(self.eval(node.elt))
            return
        gen = node.generators[k]
        for item in self._sequence(gen.iter):
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise self.error(node, f"operation-scope loops ran more than {MAX_ITERATIONS} "
                                       "iterations; the front end stops here")
            if isinstance(gen.target, ast.Tuple):
                if not isinstance(item, (tuple, list)) or len(item) != len(gen.target.elts):
                    raise self.error(gen.target, f"cannot unpack {describe(item)} into "
                                                 f"{len(gen.target.elts)} names")
                for t, v in zip(gen.target.elts, item):
                    self.env[t.id] = v
            else:
                self.env[gen.target.id] = item
            if all(self.known(c) for c in gen.ifs):
                self._comprehend(node, k + 1, out)

    def _sequence(self, it: ast.expr):
        """What a comprehension runs over: range(...) with integer bounds, or a known list or
        tuple."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
            if not 1 <= len(it.args) <= 3 or it.keywords:
                raise self.error(it, "range() takes one to three integers")
            bounds = [self.known(a) for a in it.args]
            if any(isinstance(b, bool) or not isinstance(b, int) for b in bounds):
                raise self.error(it, "range(...) bounds must be integers")
            if len(bounds) == 3 and bounds[2] == 0:
                raise self.error(it, "range() step must not be zero")
            return range(*bounds)
        seq = self.known(it)
        if not isinstance(seq, (list, tuple)):
            raise self.error(it, f"a comprehension runs over range(...) or a known list or "
                                 f"tuple here, not {describe(seq)}")
        return seq

    def _Call(self, node: ast.Call) -> Any:
        name = ttl_attr(node.func)
        if name is not None and self.ttl_call is not None:
            return self.ttl_call(self, node, name)
        if name is not None:
            raise self.error(node, f"ttl.{name} is not understood here")
        if isinstance(node.func, ast.Attribute) and self.method_call is not None:
            out = self.method_call(self, self.eval(node.func.value), node.func.attr, node)
            if out is not NotImplemented:
                return out
        fn = self.eval(node.func)
        if isinstance(fn, TtlFunction) and self.ttl_call is not None:
            return self.ttl_call(self, node, fn.name)  # grid_size = ttl.grid_size; grid_size()
        if isinstance(fn, Helper):
            return call_helper(self, fn, node)
        if not isinstance(fn, Builtin):
            raise self.error(
                node,
                f"calling {describe(fn)} is not supported: the front end runs no user code; it "
                "evaluates min, max, len, int, abs, math.ceil(a / b) and the file's own helper "
                "functions over known values",
            )
        if node.keywords:
            raise self.error(node, f"{fn.name}() takes no keyword arguments here")
        return fn.apply(self, node)


@dataclass(frozen=True)
class Builtin:
    """A function the evaluator applies itself."""

    name: str
    apply: Callable[[Evaluator, ast.Call], Any]


@dataclass(frozen=True)
class TtlFunction:
    """``ttl.X`` named without a call (the spec's ``grid_size = ttl.grid_size``): a call of it is
    the call of ``ttl.X``."""

    name: str


@dataclass(frozen=True)
class Module:
    """A module whose members the evaluator knows (math)."""

    name: str
    members: dict


def _fold(ev: Evaluator, node: ast.Call, combine: Callable[[Int, Int], Int], name: str) -> Int:
    args = [ev.eval(a) for a in node.args]
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = list(args[0])
    if not args:
        raise ev.error(node, f"{name}() needs at least one argument")
    out = args[0]
    for a in args[1:]:
        if isinstance(a, bool) or not isinstance(a, (int, Sym)):
            raise ev.error(node, f"{name}() of {describe(a)}")
        out = combine(out, a)
    return out


def _slice(ev: Evaluator, node: ast.Call) -> slice:
    if not 1 <= len(node.args) <= 2:
        raise ev.error(node, "slice(start, stop) takes two integers here")
    bounds = [ev.known(a) for a in node.args]
    if any(isinstance(b, bool) or not isinstance(b, int) for b in bounds):
        raise ev.error(node, "slice() bounds must be known integers")
    return slice(*bounds) if len(bounds) == 2 else slice(0, bounds[0])


def _len(ev: Evaluator, node: ast.Call) -> int:
    if len(node.args) != 1:
        raise ev.error(node, "len() takes one argument")
    v = ev.eval(node.args[0])
    if not isinstance(v, (tuple, list, str)):
        raise ev.error(node, f"len() of {describe(v)}")
    return len(v)


def _int(ev: Evaluator, node: ast.Call) -> Int:
    if len(node.args) != 1:
        raise ev.error(node, "int() takes one argument")
    return ev.integer(node.args[0])


def _abs(ev: Evaluator, node: ast.Call) -> int:
    if len(node.args) != 1:
        raise ev.error(node, "abs() takes one argument")
    v = ev.known(node.args[0])
    if isinstance(v, bool) or not isinstance(v, int):
        raise ev.error(node, f"abs() of {describe(v)}")
    return abs(v)


def _ceil(ev: Evaluator, node: ast.Call) -> Int:
    # math.ceil(a / b) on integers: ceildiv(a, b); anything else is a float the front end lacks.
    if (
        len(node.args) == 1
        and isinstance(node.args[0], ast.BinOp)
        and isinstance(node.args[0].op, ast.Div)
    ):
        a, b = ev.integer(node.args[0].left), ev.integer(node.args[0].right)
        if isinstance(a, int) and isinstance(b, int):
            if b == 0:
                raise ev.error(node, "division by zero")
            return -(-a // b)
        return values.ceildiv(a, b)
    raise ev.error(node, "math.ceil is supported as math.ceil(a / b) of integers only")


_BUILTINS: dict[str, Any] = {
    "min": Builtin("min", lambda ev, n: _fold(ev, n, values.minimum, "min")),
    "max": Builtin("max", lambda ev, n: _fold(ev, n, values.maximum, "max")),
    "len": Builtin("len", _len),
    "int": Builtin("int", _int),
    "abs": Builtin("abs", _abs),
    "slice": Builtin("slice", _slice),
    "True": True,
    "False": False,
    "None": None,
}

MATH = Module("math", {"ceil": Builtin("math.ceil", _ceil)})
# The tile constants a kernel reads as names: tt-lang's ttl.TILE_SHAPE (32 x 32;
# tenstorrent/tt-lang python/sim/constants.py) and TT-NN's ttnn.TILE_SIZE.
TTL_MODULE = Module("ttl", {"TILE_SHAPE": (32, 32), "TILE_SIZE": 32})
TTNN_MODULE = Module("ttnn", {"TILE_SIZE": 32})


def describe(v: Any) -> str:
    """What a value is, for messages."""
    if isinstance(v, bool):
        return f"the bool {v}"
    if isinstance(v, int):
        return f"the integer {v}"
    if isinstance(v, Sym):
        return f"the knob expression {v}"
    if isinstance(v, TensorArg):
        return f"the tensor argument '{v.name}'"
    if isinstance(v, (tuple, list)):
        return f"a {type(v).__name__} of {len(v)}"
    if isinstance(v, slice):
        return f"slice({v.start}, {v.stop})"
    if isinstance(v, (Builtin, Module)):
        return v.name
    if v is None:
        return "None"
    if v is Ellipsis:
        return "the placeholder `...` (give it a value before it is used)"
    return f"a {type(v).__name__}"


def construct(node: ast.AST) -> str:
    """A node's kind as a user names it (for 'X is not supported')."""
    names = {
        "Lambda": "a lambda",
        "DictComp": "a dict comprehension",
        "SetComp": "a set comprehension",
        "GeneratorExp": "a generator expression",
        "Await": "await",
        "Yield": "yield",
        "YieldFrom": "yield from",
        "JoinedStr": "an f-string",
        "Dict": "a dict",
        "Set": "a set",
        "Starred": "a starred expression",
        "NamedExpr": "an assignment expression (:=)",
        "Slice": "a slice",
    }
    return names.get(type(node).__name__, f"the expression {type(node).__name__}")
