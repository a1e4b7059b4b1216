"""Translating a tt-lang thread function (``@ttl.compute()``, ``@ttl.datamovement()``) to TTL.

A thread's body is compiled, not run: every statement becomes TTL ops (docs/python.md has the
table). Integers that are known when the operation scope ran (shapes, GRANULARITY) fold; those
that depend on a loop variable or on ``ttl.node`` become ``arith`` ops on ``index`` values; those
that depend on a knob are computed from ``ttl.param_value`` at run time. Every op carries the
location of the Python construct it came from, so that the verifier and the planner report
``kernel.py:LINE:COL``.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass
from typing import Any

from . import values
from .errors import FrontendError
from .evaluate import Evaluator, TensorArg, describe
from .helpers import Helper
from .unified import complete_thread
from .operation import (DataflowBuffer, NodeAtOperationScope, Operation, Pipe, PipeNet,
                        RemoteSemaphore, Semaphore, grid_size, remote_semaphore, ttl_attr)
from .types import DTYPES, block_type, cb_type, fold_batch, tensor_type
from .values import Int, Sym


@dataclass(frozen=True)
class Ssa:
    """An ``index`` (or ``i1``) value computed at run time in the thread."""

    name: str
    type: str = "index"


@dataclass
class Block:
    """A block acquired with ``dfb.reserve()`` or ``dfb.wait()``: a CB view."""

    ssa: str
    buffer: DataflowBuffer
    mode: str  # "reserve" | "wait"
    # Set once the block is pushed or popped by hand (blk.push() / blk.pop()).
    released: bool = False
    scoped: bool = False  # acquired by a `with`, which releases it where it ends


@dataclass(frozen=True)
class Value:
    """A block-valued compute result (``a + b``, ``ttl.math.exp(x)``, ``a @ b``)."""

    ssa: str
    shape: tuple[Int, Int]
    dtype: str
    batch: int = 1  # batch entries its rows hold (computed from blocks of shape (B, R, C))


@dataclass(frozen=True)
class TileRange:
    """``slice(a, b)`` bound to a name in a thread, for a later ``t[rows, cols]``."""

    start: Any
    extent: Any  # None when only known at run time


@dataclass(frozen=True)
class DType:
    """A data type named in a thread (``blk.dtype``, ``ttnn.float32``), in TTL's spelling."""

    name: str


@dataclass(frozen=True)
class Fill:
    """``ttl.block.fill(value, shape=...)``: a block of one value. It becomes a ``ttl.fill`` where
    it is used, in the data type of the block it meets (the stored block's, the other operand's)
    unless ``dtype=`` names one."""

    value: float
    shape: tuple[Int, Int]
    dtype: str | None
    node: ast.AST


@dataclass(frozen=True)
class Handle:
    """The transfer handle ``ttl.copy`` returns; ``.wait()`` waits for it."""

    ssa: str
    direction: str  # "read" | "write"


@dataclass(frozen=True)
class Slice:
    """``t[r0:r1, c0:c1]`` or ``t[r, c]`` of a tensor argument, in tiles."""

    tensor: TensorArg
    starts: tuple[Any, Any]
    extents: tuple[Any, Any]  # None where the subscript is a single index (extent 1)
    node: ast.AST


@dataclass(frozen=True)
class PipeValue:
    """A pipe created in this thread (inside if_src/if_dst)."""

    ssa: str


@dataclass(frozen=True)
class Callback:
    """A nested ``def f(pipe):`` a thread passes to ``net.if_src`` / ``net.if_dst``."""

    node: ast.FunctionDef


# tt-lang's elementwise ops that ttlplan has (docs/language.md "Ops"); the others are errors.
BINARY_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}
BINARY_FUNCTIONS = {"add": "add", "sub": "sub", "mul": "mul", "max": "max", "div": "div"}
UNARY_FUNCTIONS = {
    name: name
    for name in ("exp", "log", "sqrt", "rsqrt", "recip", "relu", "gelu", "sigmoid", "tanh",
                 "neg", "sin", "abs")
}
# Namespaces a math function may be called through: ttl.X, ttl.math.X, ttl.block.X.
MATH_PREFIXES = ("", "math.", "block.")
# Predicates of arith.cmpi for Python's comparisons on sizes (unsigned: sizes are not negative).
COMPARISONS = {ast.Lt: "ult", ast.LtE: "ule", ast.Gt: "ugt", ast.GtE: "uge", ast.Eq: "eq",
               ast.NotEq: "ne"}
# The most ops one thread may produce, so that no input can make the output grow without bound.
MAX_OPS = 200_000
MAX_UNROLLED_ITERATIONS = 64  # a loop carrying a value is unrolled up to this many times
# `%name = ttl.op ...`: a compute op's line (COMPUTE_OPS), and the SSA names in a line.
COMPUTE_DEF = re.compile(r"(%[A-Za-z0-9_.$]+) = ttl\.([a-z_]+)\b")
SSA_NAME = re.compile(r"%[A-Za-z0-9_.$]+")
COMPUTE_OPS = set(UNARY_FUNCTIONS.values()) | set(BINARY_FUNCTIONS.values()) | {
    "matmul", "transpose", "reduce_sum", "reduce_max", "bcast", "fill", "identity"}


class Scope:
    """Names bound in one region (a thread body, a loop body, a branch)."""

    def __init__(self, parent: "Scope | None"):
        self.parent = parent
        self.names: dict[str, Any] = {}
        self.constants: dict[tuple, str] = {}  # (value, type) -> SSA name, valid in this region
        # Names of enclosing regions read here (so a later assignment here would carry a value
        # across iterations), and names an inner region rebound (their value here is stale:
        # reading one is a value carried out of the loop or branch) with where it was rebound.
        self.outer_reads: set[str] = set()
        self.rebound_inside: dict[str, ast.AST] = {}
        # Carried-value buffers whose current block this region waited for (carry_past_release):
        # popped where the region ends, after every read in it.
        self.carried_waits: list[DataflowBuffer] = []

    def lookup(self, name: str) -> tuple[bool, Any]:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return True, scope.names[name]
            scope = scope.parent
        return False, None

    def defining(self, name: str) -> "Scope | None":
        scope: Scope | None = self
        while scope is not None and name not in scope.names:
            scope = scope.parent
        return scope

    def constant(self, key: tuple) -> str | None:
        scope: Scope | None = self
        while scope is not None:
            if key in scope.constants:
                return scope.constants[key]
            scope = scope.parent
        return None


class ThreadEmitter:
    """Emits one thread's ops as TTL lines (with locations) into `lines`."""

    def __init__(self, path: str, op: Operation, kernel: "KernelContext", kind: str):
        self.path = path
        self.op = op
        self.kernel = kernel
        self.kind = kind  # "compute" | "datamovement"
        self.lines: list[str] = []
        self.depth = 3
        self.scope = Scope(None)
        self.count = 0
        self.evaluator = Evaluator(path, op.env)
        self.pipes: dict[int, str] = {}  # id(Pipe) -> its SSA value
        self.prologue: list[str] = []  # ops placed at the top of the thread (the pipes)
        # Blocks a copy issued in program order has not been waited for: block SSA -> (the
        # copy's handle, the copy). Writing such a block is tt-lang's copy-lock error.
        self.in_flight: dict[str, tuple[Handle, ast.AST]] = {}
        self.inlining = 0  # helper calls being inlined, nested
        # Compute ops emitted, by result SSA: (the op's text, its node), so that a value a second
        # store reads can be computed again for it (compute_again); and the results that a store's
        # chain already holds (a compute op's tiles live in DST for one store).
        self.compute_defs: dict[str, tuple[str, ast.AST]] = {}
        self.stored_ops: set[str] = set()
        self.recomputed: set[str] = set()  # ops a store computed anew: dead unless stored
        # The statements still to run after the current one, at each nesting level (innermost
        # last): a value read there is live.
        self.rest: list[list[ast.stmt]] = []
        self.carried: dict[str, DataflowBuffer] = {}  # name -> its carried-value buffer
        self.held_waits: dict[int, Block] = {}  # id(DFB) -> its waited block not yet popped

    # --- Output ----------------------------------------------------------------------------

    def loc(self, node: ast.AST) -> str:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + 1
        path = getattr(node, "source_path", self.path)  # a node of an imported file: its own
        quoted = path.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{quoted}":{line}:{col})'

    def emit(self, text: str, node: ast.AST) -> None:
        if len(self.lines) >= MAX_OPS:
            raise self.error(node, f"the thread produces more than {MAX_OPS} ops; the front end "
                                   "stops here")
        self.lines.append("  " * self.depth + text + " " + self.loc(node))
        m = COMPUTE_DEF.match(text)
        if m and m.group(2) in COMPUTE_OPS:
            self.compute_defs[m.group(1)] = (text, node)

    def compute_tree(self, ssa: str) -> set[str]:
        """The compute ops `ssa`'s value is made of (itself included), down to blocks."""
        out, work = set(), [ssa]
        while work:
            v = work.pop()
            if v in out or v not in self.compute_defs:
                continue
            out.add(v)
            text = self.compute_defs[v][0]
            work += [o for o in SSA_NAME.findall(text.split(" = ", 1)[1]) if o != v]
        return out

    def live_lines(self) -> list[str]:
        """The thread's lines without the ops a later store computed anew and no store holds."""
        dead = self.recomputed - self.stored_ops
        if not dead:
            return self.lines
        return [line for line in self.lines
                if not ((m := COMPUTE_DEF.match(line.lstrip())) and m.group(1) in dead)]

    def compute_again(self, ssa: str, node: ast.AST) -> str:
        """`ssa`'s value computed anew by fresh ops (tt-lang stores one value into two DFBs;
        TTL's compute op feeds one store, whose chain holds its tiles in DST)."""
        if ssa not in self.compute_defs:
            return ssa
        text, _ = self.compute_defs[ssa]
        rhs = text.split(" = ", 1)[1]
        renamed = {o: self.compute_again(o, node) for o in set(SSA_NAME.findall(rhs)) if o != ssa}
        rhs = SSA_NAME.sub(lambda m: renamed.get(m.group(0), m.group(0)), rhs)
        out = self.fresh(ssa[1:].split(".")[0])
        self.emit(f"{out} = {rhs}", node)
        return out

    def open_region(self, text: str) -> None:
        """The first line of an op with a region; close_region writes its `}` and location."""
        self.lines.append("  " * self.depth + text + " {")

    def close_region(self, node: ast.AST) -> None:
        self.lines.append("  " * self.depth + "} " + self.loc(node))

    def fresh(self, hint: str) -> str:
        self.count += 1
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "v"
        if base[0].isdigit():
            base = "v" + base
        return f"%{base}.{self.count}"  # "." no Python name has: never a user's name

    def error(self, node: ast.AST | None, message: str) -> FrontendError:
        return FrontendError.at(self.path, node, message)

    # --- Names ------------------------------------------------------------------------------

    def lookup(self, node: ast.Name) -> Any:
        # Up to the region that binds the name: each region passed reads it from outside.
        scope = self.scope
        while scope is not None:
            if node.id in scope.rebound_inside:
                where = scope.rebound_inside[node.id]
                raise self.error(node, f"'{node.id}' was assigned inside a loop or branch (line "
                                       f"{where.lineno}) and is read after it: a value carried out "
                                       "of a loop or branch is not supported (compute it where it "
                                       "is used instead)")
            if node.id in scope.names:
                return scope.names[node.id]
            scope.outer_reads.add(node.id)
            scope = scope.parent
        if node.id in self.op.env:
            value = self.op.env[node.id]
            if isinstance(value, NodeAtOperationScope):  # this node's coordinates, read here
                return self.node_coords(value.call, "node")
            return value
        raise self.error(node, f"name '{node.id}' is not defined in this thread or its operation")

    def bind(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            if target.id in self.op.env and isinstance(self.op.env[target.id], ast.FunctionDef):
                raise self.error(target, f"'{target.id}' names a thread of the operation")
            home = self.scope.parent.defining(target.id) if self.scope.parent else None
            if home is not None and target.id not in self.scope.names and \
                    target.id in self.scope.outer_reads:
                raise self.error(
                    target,
                    f"'{target.id}' is assigned inside a loop or branch but defined before it: a "
                    "value carried across iterations or out of a branch is not supported (compute "
                    "it from the loop variable instead)",
                )
            if home is not None and target.id not in self.scope.names:
                # A new value for this region only (a name reused: `with d.wait() as blk` in a
                # loop after `blk = d.wait()` before it); the regions up to the name's own see
                # theirs as stale from here.
                scope = self.scope.parent
                while scope is not None:
                    scope.rebound_inside.setdefault(target.id, target)
                    if scope is home:
                        break
                    scope = scope.parent
            self.scope.names[target.id] = value
            self.scope.rebound_inside.pop(target.id, None)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, tuple) or len(value) != len(target.elts):
                raise self.error(target, f"cannot unpack {self.describe(value)} into "
                                         f"{len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.bind(t, v)
            return
        raise self.error(target, "only names and tuples of names may be assigned in a thread")

    def describe(self, v: Any) -> str:
        if isinstance(v, Ssa):
            return "a run-time integer"
        if isinstance(v, Block):
            return f"a block of {v.buffer.name}"
        if isinstance(v, (Value, Fill)):
            return "a block expression"
        if isinstance(v, Handle):
            return "a transfer handle"
        if isinstance(v, DataflowBuffer):
            return f"the dataflow buffer {v.name}"
        return describe(v)

    # --- Integers ---------------------------------------------------------------------------

    def materialize(self, v: Any, node: ast.AST) -> str:
        """An integer (int, knob expression or run-time value) as an SSA name of type index."""
        if isinstance(v, Ssa):
            return v.name
        if isinstance(v, bool) or not isinstance(v, (int, Sym)):
            raise self.error(node, f"expected an integer here, got {self.describe(v)}")
        if isinstance(v, int):
            key = (v, "index")
            name = self.scope.constant(key)
            if name is None:
                name = self.fresh(f"c{v}" if v >= 0 else f"cm{-v}")
                self.emit(f"{name} = arith.constant {v} : index", node)
                self.scope.constants[key] = name
            return name
        return self.materialize_tree(v.tree, node)

    def materialize_tree(self, tree: tuple | None, node: ast.AST) -> str:
        if tree is None:
            raise self.error(node, "this knob expression cannot be computed at run time")
        if tree[0] == "knob":
            return self.kernel.param_value(tree[1])
        op, a, b = tree
        x, y = self.materialize(a, node), self.materialize(b, node)
        if op == "ceildiv":  # (a + b - 1) / b
            one = self.materialize(1, node)
            s = self.arith("addi", x, y, node)
            s = self.arith("subi", s, one, node)
            return self.arith("divui", s, y, node)
        names = {"+": "addi", "-": "subi", "*": "muli", "//": "divui", "%": "remui",
                 "min": "minui", "max": "maxui"}
        return self.arith(names[op], x, y, node)

    def arith(self, name: str, x: str, y: str, node: ast.AST, type_: str = "index") -> str:
        out = self.fresh(name)
        self.emit(f"{out} = arith.{name} {x}, {y} : {type_}", node)
        return out

    def integer_op(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        if not isinstance(left, Ssa) and not isinstance(right, Ssa):
            combine = {ast.Add: values.add, ast.Sub: values.sub, ast.Mult: values.mul,
                       ast.FloorDiv: values.floordiv, ast.Mod: values.mod}.get(type(op))
            if combine is None:
                raise self.error(node, f"operator {type(op).__name__} is not supported on integers")
            try:
                return combine(left, right)
            except ZeroDivisionError as e:
                raise self.error(node, str(e)) from None
        names = {ast.Add: "addi", ast.Sub: "subi", ast.Mult: "muli", ast.FloorDiv: "divui",
                 ast.Mod: "remui"}
        if type(op) not in names:
            raise self.error(node, f"operator {type(op).__name__} is not supported on integers")
        if isinstance(right, int) and right == 0 and type(op) in (ast.FloorDiv, ast.Mod):
            raise self.error(node, "division by zero")
        x, y = self.materialize(left, node), self.materialize(right, node)
        return Ssa(self.arith(names[type(op)], x, y, node))

    # --- Expressions ------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (int, float, str, bool)) and node.value is not None:
                return node.value
            raise self.error(node, f"the literal {node.value!r} is not supported in a thread")
        if isinstance(node, ast.Name):
            return self.lookup(node)
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.expr(e) for e in node.elts]
        if isinstance(node, ast.IfExp):
            return self.ifexp(node)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.expr(node.operand)
            if isinstance(v, (int, Sym)) and not isinstance(v, bool):
                return values.neg(v)
            if isinstance(v, float):  # a fill value
                return -v
            if isinstance(v, (Block, Value, Fill)):  # -x on a block: ttl.neg
                return self.elementwise("neg", [v], node)
            raise self.error(node, f"unary minus of {self.describe(v)} is not supported")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self.condition(node.operand)
            if isinstance(v, bool):
                return not v
            one = self.fresh("true")
            self.emit(f"{one} = arith.constant 1 : i1", node)
            return Ssa(self.arith("xori", v.name, one, node, "i1"), "i1")
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.error(node, f"{type(node).__name__} expressions are not supported in a thread")

    def ifexp(self, node: ast.IfExp) -> Any:
        """`A if C else B` where C is known when the kernel is translated (sizes, constants):
        only the branch it picks is read."""
        test = self.expr(node.test)
        if isinstance(test, (bool, int, float, str, list, tuple)) and not isinstance(test, Sym):
            return self.expr(node.body if test else node.orelse)
        raise self.error(node.test, f"a conditional expression needs a condition known when the "
                                    f"kernel is translated, not {self.describe(test)}; write an "
                                    "if statement")

    def binop(self, node: ast.BinOp) -> Any:
        left, right = self.expr(node.left), self.expr(node.right)
        if isinstance(node.op, ast.Add) and isinstance(left, (list, tuple)) and \
                type(left) is type(right):
            return left + right
        if isinstance(left, (Block, Value, Fill)) or isinstance(right, (Block, Value, Fill)):
            return self.block_binop(node, left, right)
        for v in (left, right):
            if isinstance(v, bool) or not isinstance(v, (int, Sym, Ssa)):
                raise self.error(node, f"an operand is {self.describe(v)}, not an integer")
        return self.integer_op(node.op, left, right, node)

    def compare(self, node: ast.Compare) -> Any:
        result: Any = True
        left = self.expr(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            if type(op) not in COMPARISONS:
                raise self.error(node, f"comparison {type(op).__name__} is not supported")
            if isinstance(left, (int, Sym)) and isinstance(right, (int, Sym)) and \
                    not isinstance(left, Sym) and not isinstance(right, Sym):
                test = {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right,
                        ast.GtE: left >= right, ast.Eq: left == right,
                        ast.NotEq: left != right}[type(op)]
                one: Any = bool(test)
            else:
                x, y = self.materialize(left, node), self.materialize(right, node)
                name = self.fresh("cmp")
                self.emit(f"{name} = arith.cmpi {COMPARISONS[type(op)]}, {x}, {y} : index", node)
                one = Ssa(name, "i1")
            result = self.logical_and(result, one, node)
            left = right
        return result

    def logical_and(self, a: Any, b: Any, node: ast.AST) -> Any:
        if a is True:
            return b
        if b is True:
            return a
        if a is False or b is False:
            return False
        return Ssa(self.arith("andi", a.name, b.name, node, "i1"), "i1")

    def boolop(self, node: ast.BoolOp) -> Any:
        parts = [self.condition(v) for v in node.values]
        if isinstance(node.op, ast.And):
            out: Any = True
            for p in parts:
                out = self.logical_and(out, p, node)
            return out
        out = False
        for p in parts:
            if p is True or out is True:
                out = True
            elif p is False:
                continue
            elif out is False:
                out = p
            else:
                out = Ssa(self.arith("ori", out.name, p.name, node, "i1"), "i1")
        return out

    def condition(self, node: ast.expr) -> Any:
        v = self.expr(node)
        if isinstance(v, bool):
            return v
        if isinstance(v, Ssa) and v.type == "i1":
            return v
        if isinstance(v, int):
            return v != 0
        raise self.error(node, f"a condition must be a comparison, got {self.describe(v)}")

    def subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        if isinstance(base, TensorArg):
            return self.tensor_slice(node, base)
        if isinstance(base, tuple):
            index = self.expr(node.slice)
            if isinstance(index, bool) or not isinstance(index, int):
                raise self.error(node.slice, "a tuple index must be a known integer")
            if not -len(base) <= index < len(base):
                raise self.error(node.slice, f"index {index} is out of range")
            return base[index]
        raise self.error(node, f"cannot index {self.describe(base)} in a thread")

    def tensor_slice(self, node: ast.Subscript, tensor: TensorArg) -> Slice:
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        rank = max(len(tensor.shape), 2)  # a vector or a scalar is tiled 2-D (flat_shape)
        if len(parts) != rank:
            if len(tensor.shape) == 2:
                raise self.error(node, f"tensor '{tensor.name}' is 2-D: index it with two ranges "
                                       "of tiles, t[r0:r1, c0:c1]")
            raise self.error(node, f"tensor '{tensor.name}' has {len(tensor.shape)} dimensions: "
                                   f"index it with {len(tensor.shape)} (batch indices, then two "
                                   "ranges of tiles)")
        starts, extents = [], []
        # Tiles along each index: the batch sizes, then the 2-D form's rows and columns.
        tiles = list(tensor.shape[:-2]) + [-(-d // 32) for d in tensor.flat_shape]
        for p, whole in zip(parts, tiles):
            if isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and \
                    p.func.id == "slice" and len(p.args) == 2 and not p.keywords:
                p = ast.copy_location(ast.Slice(p.args[0], p.args[1], None), p)  # t[slice(a, b)]
            if isinstance(p, ast.Slice) and p.lower is None and p.upper is None and \
                    p.step is None:  # t[0, :]: every tile of that dimension
                starts.append(0)
                extents.append(whole)
            elif isinstance(p, ast.Slice):
                if p.lower is None or p.upper is None or p.step is not None:
                    raise self.error(p, "a tile range needs a start and a stop and no step "
                                        "(t[r0:r1, c0:c1]), or is the whole dimension (t[r, :])")
                lo = self.expr(p.lower)
                starts.append(lo)
                extents.append(self.extent(lo, p.upper))
            else:
                v = self.expr(p)
                if isinstance(v, TileRange):  # rows = slice(a, b); t[rows, c]
                    starts.append(v.start)
                    extents.append(v.extent)
                    continue
                starts.append(v)
                extents.append(1)
        if len(parts) > 2:
            return self.batch_slice(node, tensor, parts, starts, extents)
        return Slice(tensor, (starts[0], starts[1]), (extents[0], extents[1]), node)

    def batch_slice(self, node: ast.Subscript, tensor: TensorArg, parts: list, starts: list,
                    extents: list) -> Slice:
        """``t[b0:b1, r0:r1, c0:c1]`` of a tensor with batch dimensions, as a slice of its 2-D
        form (batch folded into the rows: row b * Ht + r). The tiles must be one range of rows
        there: past the first batch index that spans more than one entry, every dimension (the
        rows included) is whole."""
        row_tiles = tensor.shape[-2] // 32
        sizes = list(tensor.shape[:-2]) + [row_tiles]
        spanning = None
        for axis, (start, extent, size) in enumerate(zip(starts[:-1], extents[:-1], sizes)):
            if spanning is not None and not (start == 0 and extent == size):
                what = "rows" if axis == len(sizes) - 1 else f"dimension {axis}"
                raise self.error(parts[axis], f"the slice takes more than one entry of "
                                              f"dimension {spanning} of '{tensor.name}' but not "
                                              f"all its {what}: those tiles are not one range in "
                                              f"DRAM; take one batch entry per block (shape=(1, "
                                              f"..., rows, cols)) or whole {what}")
            if axis < len(sizes) - 1 and extent != 1:
                spanning = axis
        def zero(v: Any) -> bool:
            return isinstance(v, int) and v == 0

        row: Any = 0
        rows = 1
        for start, extent, size in zip(starts[:-1], extents[:-1], sizes):
            scaled = 0 if zero(row) else self.integer_op(ast.Mult(), row, size, node)
            row = start if zero(scaled) else scaled if zero(start) else \
                self.integer_op(ast.Add(), scaled, start, node)
            rows = None if rows is None or extent is None else rows * extent
        return Slice(tensor, (row, starts[-1]), (rows, extents[-1]), node)

    def extent(self, lo: Any, upper: ast.expr) -> Any:
        """stop - start when it folds (ints or knob expressions); None when it is only known at
        run time (then the block's shape is trusted, as tt-lang does). The stop is only checked,
        so the ops its evaluation emitted are taken back."""
        mark, constants = len(self.lines), dict(self.scope.constants)
        hi = self.expr(upper)
        del self.lines[mark:]
        self.scope.constants = constants
        if isinstance(lo, Ssa) or isinstance(hi, Ssa):
            return None
        return values.sub(hi, lo)

    def attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        if isinstance(base, (Block, Value, Fill)) and node.attr == "shape":
            if isinstance(base, Block):
                return base.buffer.logical_shape or base.buffer.shape
            return base.shape
        if isinstance(base, (Block, Value)) and node.attr == "dtype":
            return DType(self.dtype_of(base))
        if isinstance(base, TensorArg) and node.attr == "shape":
            return base.shape
        raise self.error(node, f"attribute .{node.attr} of {self.describe(base)} is not supported "
                               "in a thread")

    # --- Calls ------------------------------------------------------------------------------

    def call(self, node: ast.Call) -> Any:
        name = ttl_attr(node.func)
        if name is not None:
            return self.ttl_call(node, name)
        if isinstance(node.func, ast.Attribute):
            return self.method_call(node, node.func)
        if isinstance(node.func, ast.Name) and node.func.id == "slice" and \
                len(node.args) == 2 and not node.keywords:
            lo = self.expr(node.args[0])
            return TileRange(lo, self.extent(lo, node.args[1]))
        if isinstance(node.func, ast.Name):
            found, callee = self.scope.lookup(node.func.id)
            if not found:
                callee = self.op.env.get(node.func.id)
            if isinstance(callee, Helper):
                return self.inline_helper(callee, node)
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            args = [self.expr(a) for a in node.args]
            if len(args) != 2 or any(isinstance(a, bool) or not isinstance(a, (int, Sym, Ssa))
                                     for a in args):
                raise self.error(node, f"{node.func.id}() in a thread takes two integers")
            if any(isinstance(a, Ssa) for a in args):  # known at run time: arith.minui / maxui
                x, y = (self.materialize(a, node) for a in args)
                return Ssa(self.arith("minui" if node.func.id == "min" else "maxui", x, y, node))
            return (values.minimum if node.func.id == "min" else values.maximum)(*args)
        raise self.error(node, f"calling {ast.unparse(node.func)} is not supported in a thread: "
                               "threads call ttl functions and methods of blocks, buffers and "
                               "transfers only")

    def inline_helper(self, helper: Helper, node: ast.Call) -> Any:
        """A call of a helper function in a thread (``block_slice(kb, n)``): its body translated
        in place with its parameters bound to the arguments, the value of its final return."""
        fn = helper.fn
        params = fn.args.args
        if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.posonlyargs or \
                len(node.args) > len(params):
            raise self.error(node, f"{fn.name}() is inlined with its positional parameters only")
        if self.inlining >= 16:
            raise self.error(node, f"helper calls nest more than 16 deep here ({fn.name})")
        values = {p.arg: self.expr(a) for p, a in zip(params, node.args)}
        for kw in node.keywords:
            if kw.arg not in {p.arg for p in params} or kw.arg in values:
                raise self.error(kw, f"{fn.name}() has no parameter {kw.arg} to give here")
            values[kw.arg] = self.expr(kw.value)
        defaults = dict(zip([p.arg for p in params][len(params) - len(fn.args.defaults):],
                            fn.args.defaults))
        for p in params:
            if p.arg not in values:
                if p.arg not in defaults:
                    raise self.error(node, f"{fn.name}() needs its argument {p.arg}")
                values[p.arg] = self.expr(defaults[p.arg])
        body = [s for s in fn.body if not (isinstance(s, ast.Expr) and
                                           isinstance(s.value, ast.Constant))]
        if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None or \
                any(isinstance(n, ast.Return) for s in body[:-1] for n in ast.walk(s)):
            raise self.error(fn, f"{fn.name}() is inlined into a thread when its body ends in "
                                 "its one return of a value")
        outer = self.scope
        self.scope = Scope(outer)
        self.scope.names.update(values)
        self.inlining += 1
        try:
            self.body(body[:-1])
            return self.expr(body[-1].value)
        finally:
            self.inlining -= 1
            self.scope = outer

    def ttl_call(self, node: ast.Call, name: str) -> Any:
        if name in ("node", "core"):
            return self.node_coords(node, name)
        if name == "copy":
            return self.copy(node)
        if name == "grid_size":
            return grid_size(self.evaluator, self.op.grid, node)
        short = name
        for prefix in MATH_PREFIXES:
            if prefix and name.startswith(prefix):
                short = name[len(prefix):]
        if short == "fill":
            return self.fill(node)
        if short in UNARY_FUNCTIONS or short in BINARY_FUNCTIONS or short in (
                "reduce_sum", "reduce_max", "broadcast", "matmul", "silu", "transpose"):
            return self.math_call(node, short)
        if short in ("squeeze", "unsqueeze"):
            return self.squeeze(node, short)
        raise self.error(node, f"ttl.{name} is not supported by ttlplan's front end "
                               "(docs/python.md lists what is)")

    def node_coords(self, node: ast.Call, name: str) -> Any:
        """``ttl.node(dims=N)``: the node's (x, y); the spec flattens the highest dimension for
        dims=1 (x + y * grid columns, in [0, columns * rows)) and pads with 0 for dims=3."""
        dims = {kw.arg: kw.value for kw in node.keywords}.get("dims")
        if dims is None and len(node.args) == 1:
            dims = node.args[0]
        n = dims.value if isinstance(dims, ast.Constant) else None
        if n not in (1, 2, 3) or isinstance(n, bool):
            raise self.error(node, f"ttl.{name} takes dims=1, 2 or 3: x, y = "
                                   f"ttl.{name}(dims=2)")
        x, y = self.fresh("node_x"), self.fresh("node_y")
        self.emit(f"{x} = ttl.core_x : index", node)
        self.emit(f"{y} = ttl.core_y : index", node)
        if n == 1:
            return self.integer_op(ast.Add(), Ssa(x),
                                   self.integer_op(ast.Mult(), Ssa(y), self.op.grid[0], node),
                                   node)
        return (Ssa(x), Ssa(y)) if n == 2 else (Ssa(x), Ssa(y), 0)

    def pipe_role(self, net: PipeNet, method: str, node: ast.AST) -> Any:
        """``net.is_src()`` / ``is_dst()`` / ``is_active()`` (spec: the running node is a source,
        in a destination range, or either, of some pipe of the net), as an i1 on the node's
        coordinates."""
        x, y = self.fresh("node_x"), self.fresh("node_y")
        self.emit(f"{x} = ttl.core_x : index", node)
        self.emit(f"{y} = ttl.core_y : index", node)

        def cmp(predicate: str, a: str, bound: int) -> Any:
            if predicate == "uge" and bound == 0:
                return True  # every coordinate is >= 0
            name = self.fresh("cmp")
            self.emit(f"{name} = arith.cmpi {predicate}, {a}, {self.materialize(bound, node)} "
                      ": index", node)
            return Ssa(name, "i1")

        def all_of(*terms: Any) -> Any:
            out: Any = True
            for t in terms:
                out = self.logical_and(out, t, node)
            return out

        out: Any = False
        for p in net.pipes:
            terms = []
            if method in ("is_src", "is_active"):
                terms.append(all_of(cmp("eq", x, p.src[0]), cmp("eq", y, p.src[1])))
            if method in ("is_dst", "is_active"):
                terms.append(all_of(cmp("uge", x, p.dst_first[0]), cmp("ule", x, p.dst_last[0]),
                                    cmp("uge", y, p.dst_first[1]), cmp("ule", y, p.dst_last[1])))
            for t in terms:
                if t is True or out is True:
                    out = True
                elif out is False:
                    out = t
                else:
                    out = Ssa(self.arith("ori", out.name, t.name, node, "i1"), "i1")
        return out

    def method_call(self, node: ast.Call, func: ast.Attribute) -> Any:
        base = self.expr(func.value)
        method = func.attr
        if isinstance(base, DataflowBuffer) and method in ("reserve", "wait"):
            return self.acquire(base, method, node)
        if isinstance(base, DataflowBuffer) and method in ("push", "pop"):
            return self.release_buffer(base, method, node)  # tt-lang before spec 0.7
        if isinstance(base, Block) and method in ("push", "pop"):
            expected = "push" if base.mode == "reserve" else "pop"
            if method != expected:
                raise self.error(node, f"a block from {base.buffer.name}.{base.mode}() is released "
                                       f"with .{expected}(), not .{method}()")
            base.released = True
            return self.release_buffer(base.buffer, method, node)
        if isinstance(base, Block) and method == "store":
            return self.store(base, node, accumulate=False)
        if isinstance(base, Handle) and method == "wait":
            self.in_flight = {b: (h, n) for b, (h, n) in self.in_flight.items() if h != base}
            self.emit(f"ttl.wait {base.ssa} : !ttl.transfer_handle<{base.direction}>", node)
            return None
        if isinstance(base, PipeNet) and method in ("if_src", "if_dst"):
            return self.pipe_callbacks(base, method, node)
        if isinstance(base, (Semaphore, RemoteSemaphore)):
            return self.semaphore_call(base, method, node)
        if isinstance(base, PipeNet) and method in ("is_src", "is_dst", "is_active"):
            if node.args or node.keywords:
                raise self.error(node, f".{method}() takes no arguments")
            return self.pipe_role(base, method, node)
        raise self.error(node, f".{method}() of {self.describe(base)} is not supported")

    # --- Semaphores (the spec's "Semaphore" section) ------------------------------------------

    def semaphore_call(self, base: Semaphore | RemoteSemaphore, method: str,
                       node: ast.Call) -> Any:
        local = isinstance(base, Semaphore)
        if local and method in ("get_remote", "get_remote_multicast"):
            return remote_semaphore(self.evaluator, self.op.grid, base, method, node)
        allowed = ("wait_eq", "wait_ge", "set") if local else \
            ("inc", "set") if base.core is not None else ("set",)
        if method not in allowed:
            what = "a semaphore" if local else "a unicast remote semaphore" \
                if base.core is not None else "a multicast remote semaphore"
            raise self.error(node, f".{method}() of {what}: it has "
                                   f"{', '.join(f'.{m}()' for m in allowed)}")
        if self.kind != "datamovement":
            raise self.error(node, f".{method}() of a semaphore belongs in a "
                                   "@ttl.datamovement() thread")
        if len(node.args) != 1 or node.keywords:
            raise self.error(node, f".{method}() takes one value")
        value = self.expr(node.args[0])
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 32:
            raise self.error(node.args[0], f"a semaphore value known when the kernel is read, "
                                           f"in [0, 2^32), got {self.describe(value)}")
        sem = base if local else base.semaphore
        attrs = f"value = {value}"
        if method in ("wait_eq", "wait_ge"):
            attrs += f', cmp = "{method[-2:]}"'
        elif not local and base.core is not None:
            attrs += f", core = [{base.core[1]}, {base.core[0]}]"
        elif not local:
            (x0, y0), (x1, y1) = base.rect
            attrs += f", mcast = [[{y0}, {x0}], [{y1}, {x1}]]"
        verb = {"wait_eq": "wait", "wait_ge": "wait", "set": "set", "inc": "inc"}[method]
        self.emit(f"ttl.semaphore_{verb} %{sem.name} {{{attrs}}}", node)
        return None

    # --- Buffers ----------------------------------------------------------------------------

    def acquire(self, buffer: DataflowBuffer, method: str, node: ast.AST) -> Block:
        held = self.held_waits.get(id(buffer))
        if method == "wait" and held is not None and held.scoped:
            # tt-lang's rule (test/python/invalid/dfb_wait_held_across_loop_invalid.py).
            raise self.error(node, f"a block of {buffer.name} is still held by an enclosing "
                                   f"`with` when this waits on {buffer.name} again; release it "
                                   "before (end its `with`, or pop it) or acquire the block "
                                   "inside the region")
        if method == "wait" and held is not None and self.kind == "compute":
            self.release_early(held, node)
        hint = f"{buffer.name}_{'rsv' if method == 'reserve' else 'wt'}"
        name = self.fresh(hint)
        op = "cb_reserve" if method == "reserve" else "cb_wait"
        self.kernel.acquired.setdefault(id(buffer), set()).add(method)
        self.emit(f"{name} = ttl.{op} {self.kernel.cb(buffer)} : {cb_type(buffer, self.kernel)} "
                  f"-> {block_type(buffer.shape, buffer.like.dtype)}", node)
        block = Block(name, buffer, method)
        if method == "wait":
            self.held_waits[id(buffer)] = block
        return block

    def release_early(self, held: Block, node: ast.AST) -> None:
        """A second wait on a DFB while a block of it waited without `with` is held (tt-lang's
        test_auto_pop_push.py: `t1 = cb.wait(); t2 = cb.wait(); ... t1 + t2`). TTL holds one
        block of a CB at a time, so the held block is released here: the values computed from
        it, and the block itself where its name is read later, carried first
        (carry_past_release)."""
        self.carry_past_release(held, node, with_block=True)
        self.release_buffer(held.buffer, "pop", node)
        held.released = True

    def release_buffer(self, buffer: DataflowBuffer, method: str, node: ast.AST) -> None:
        if method == "pop":
            self.held_waits.pop(id(buffer), None)
            scope: Scope | None = self.scope
            while scope is not None:  # a carried block released by hand or after its last use
                if buffer in scope.carried_waits:
                    scope.carried_waits.remove(buffer)
                    break
                scope = scope.parent
        op = "cb_push" if method == "push" else "cb_pop"
        self.emit(f"ttl.{op} {self.kernel.cb(buffer)} : {cb_type(buffer, self.kernel)}", node)

    def store(self, block: Block, node: ast.Call, accumulate: bool) -> None:
        if block.ssa in self.in_flight:  # tt-lang's copy lock, whichever thread this is
            handle, copy = self.in_flight[block.ssa]
            what = "the destination" if handle.direction == "read" else "the source"
            raise self.error(node, f"{block.buffer.name}'s block is {what} of the copy at line "
                                   f"{copy.lineno}, still in flight (copy lock): wait for it "
                                   f"before writing the block")
        if self.kind != "compute":
            raise self.error(node, ".store() belongs in the @ttl.compute() thread; a "
                                   "datamovement thread fills blocks with ttl.copy")
        if block.mode != "reserve":
            raise self.error(node, f"a block from {block.buffer.name}.wait() is read-only: "
                                   "store into a reserved block")
        if len(node.args) != 1 or node.keywords:
            raise self.error(node, ".store() takes one block expression")
        value = self.expr(node.args[0])
        self.store_value(block, value, node, accumulate)

    def store_value(self, block: Block, value: Any, node: ast.AST, accumulate: bool) -> None:
        if isinstance(value, Fill):
            if value.dtype not in (None, block.buffer.like.dtype):
                raise self.error(value.node, f"a {value.dtype} fill stored into {block.buffer.name}, "
                                             f"whose blocks are {block.buffer.like.dtype}: drop "
                                             "dtype= or give the buffer's")
            value = self.emit_fill(value, block.buffer.like.dtype)
        if not isinstance(value, (Block, Value)):
            raise self.error(node, f"cannot store {self.describe(value)} into a block")
        if isinstance(value, Block):  # a block stored unchanged: copied through DST
            value = self.elementwise("identity", [value], node)
        source = value.ssa
        tree = self.compute_tree(source)
        if tree & self.stored_ops:  # a value a store already holds: computed anew for this one
            self.recomputed |= tree
            source = self.compute_again(source, node)
            tree = self.compute_tree(source)
        self.stored_ops |= tree
        btype = block_type(block.buffer.shape, block.buffer.like.dtype)
        attrs = " {accumulate = true}" if accumulate else ""
        self.emit(f"ttl.store {source}, {block.ssa}{attrs} : {btype}", node)

    # --- Copies -----------------------------------------------------------------------------

    def copy(self, node: ast.Call) -> Handle:
        if self.kind != "datamovement":
            raise self.error(node, "ttl.copy belongs in a @ttl.datamovement() thread")
        if len(node.args) != 2 or node.keywords:
            raise self.error(node, "ttl.copy takes a source and a destination")
        src, dst = self.expr(node.args[0]), self.expr(node.args[1])
        if isinstance(src, Slice) and isinstance(dst, Block):
            return self.copy_slice(src, dst, node, "read")
        if isinstance(src, Block) and isinstance(dst, Slice):
            return self.copy_slice(dst, src, node, "write")
        if isinstance(src, Block) and isinstance(dst, PipeValue):
            return self.copy_pipe(src, dst, node, "write")
        if isinstance(src, PipeValue) and isinstance(dst, Block):
            return self.copy_pipe(dst, src, node, "read")
        raise self.error(node, f"ttl.copy from {self.describe(src)} to {self.describe(dst)}: "
                               "copies go tensor slice to block, block to tensor slice, block to "
                               "pipe or pipe to block")

    def copy_slice(self, sl: Slice, block: Block, node: ast.Call, direction: str) -> Handle:
        if direction == "read" and block.mode != "reserve":
            raise self.error(node, f"a read fills a reserved block: {block.buffer.name}.wait() "
                                   "gives a block to read from")
        if direction == "write" and block.mode != "wait":
            # tt-lang's rule too (test/python/invalid/copy_reserved_dfb_source_invalid.py).
            raise self.error(node, f"a copy from a block to a tensor takes a block from "
                                   f"{block.buffer.name}.wait(), not reserve(): a write drains a "
                                   "waited block")
        shape = block.buffer.shape
        for axis, (extent, size) in enumerate(zip(sl.extents, shape)):
            if isinstance(extent, int) and isinstance(size, int) and extent != size:
                what = "rows" if axis == 0 else "columns"
                raise self.error(sl.node, f"the slice spans {extent} tile {what} but a block of "
                                          f"{block.buffer.name} has {size}")
        rows, cols = self.materialize(sl.starts[0], sl.node), self.materialize(sl.starts[1], sl.node)
        btype = block_type(shape, block.buffer.like.dtype)
        ttype = tensor_type(sl.tensor)
        clip = " {clip = true}" if self.needs_clip(sl, shape) else ""
        s = self.fresh(f"{sl.tensor.name}_slice")
        self.emit(f"{s} = ttl.tensor_slice %{sl.tensor.name}[{rows}, {cols}]{clip} : {ttype} "
                  f"-> {btype}", sl.node)
        h = self.fresh(f"{'rd' if direction == 'read' else 'wr'}")
        first, second = (s, block.ssa) if direction == "read" else (block.ssa, s)
        self.emit(f"{h} = ttl.copy {first}, {second} : ({btype}, {btype}) -> "
                  f"!ttl.transfer_handle<{direction}>", node)
        handle = Handle(h, direction)
        self.in_flight[block.ssa] = (handle, node)
        return handle

    def needs_clip(self, sl: Slice, shape: tuple) -> bool:
        """A block that does not divide the tensor's tiles may reach past its edge: tt-lang
        reads and writes only the tiles inside, which is TTL's clipped slice."""
        for dim, size in zip(sl.tensor.flat_shape, shape):
            tiles = -(-dim // 32)
            if not isinstance(size, int) or tiles % size != 0:
                return True
        return False

    def copy_pipe(self, block: Block, pipe: PipeValue, node: ast.Call, direction: str) -> Handle:
        btype = block_type(block.buffer.shape, block.buffer.like.dtype)
        h = self.fresh("send" if direction == "write" else "recv")
        if direction == "write":
            types, operands = f"({btype}, !ttl.pipe)", f"{block.ssa}, {pipe.ssa}"
        else:
            types, operands = f"(!ttl.pipe, {btype})", f"{pipe.ssa}, {block.ssa}"
        self.emit(f"{h} = ttl.copy {operands} : {types} -> !ttl.transfer_handle<{direction}>",
                  node)
        handle = Handle(h, direction)
        self.in_flight[block.ssa] = (handle, node)
        return handle

    # --- Pipes ------------------------------------------------------------------------------

    def pipe_callbacks(self, net: PipeNet, method: str, node: ast.Call) -> None:
        if self.kind != "datamovement":
            raise self.error(node, f"{method} belongs in a @ttl.datamovement() thread")
        if len(node.args) != 1:
            raise self.error(node, f".{method}() takes one function of the pipe")
        fn = self.expr(node.args[0])
        if not isinstance(fn, Callback):
            raise self.error(node.args[0], f".{method}() takes a function defined in this thread "
                                           "(def f(pipe): ...)")
        params = fn.node.args.args
        if len(params) != 1:
            raise self.error(fn.node, f"the function given to .{method}() takes one argument, "
                                      "the pipe")
        for pipe in net.pipes:
            ssa = self.pipe(pipe)
            self.open_region(f"ttl.{method} {ssa}")
            self.enter()
            self.scope.names[params[0].arg] = PipeValue(ssa)
            self.body(fn.node.body)
            self.leave()
            self.close_region(node)
        return None

    def pipe(self, pipe: Pipe) -> str:
        """The pipe's SSA value. Its ends are known numbers (operation scope computed them), so it
        is created once, at the top of the thread, whatever loop uses it."""
        if id(pipe) in self.pipes:
            return self.pipes[id(pipe)]
        src = f"src({pipe.src[0]}, {pipe.src[1]})"
        dst = f"dst({pipe.dst_first[0]}, {pipe.dst_first[1]})"
        to = ""
        if pipe.dst_last != pipe.dst_first:
            to = f" to({pipe.dst_last[0]}, {pipe.dst_last[1]})"
        name = self.fresh("pipe")
        self.pipes[id(pipe)] = name
        # tt-lang's source inside its destinations receives its own block (docs/lowering.md).
        attrs = " {source_receives = true}" if pipe.source_receives else ""
        self.prologue.append(f"      {name} = ttl.create_pipe {src} {dst}{to}{attrs} : !ttl.pipe "
                             f"{self.loc(pipe.node)}")
        return name

    # --- Compute ----------------------------------------------------------------------------

    def operand(self, v: Any, node: ast.AST) -> Block | Value:
        if isinstance(v, Block):
            if v.mode != "wait":
                raise self.error(node, f"a block from {v.buffer.name}.reserve() is written, not "
                                       "read: compute reads blocks from .wait()")
            return v
        if isinstance(v, Value):
            return v
        if isinstance(v, Fill):
            return self.emit_fill(v, v.dtype or "bf16")
        raise self.error(node, f"expected a block here, got {self.describe(v)}")

    def shape_of(self, v: Block | Value | Fill) -> tuple:
        return v.buffer.shape if isinstance(v, Block) else v.shape

    def dtype_of(self, v: Block | Value) -> str:
        return v.buffer.like.dtype if isinstance(v, Block) else v.dtype

    def block_binop(self, node: ast.BinOp, left: Any, right: Any) -> Value:
        if self.kind != "compute":
            raise self.error(node, "block arithmetic belongs in the @ttl.compute() thread")
        if isinstance(node.op, ast.MatMult):
            return self.matmul(node, left, right)
        name = BINARY_OPS.get(type(node.op))
        if isinstance(node.op, ast.Div) and isinstance(left, (Block, Value, Fill)) and \
                isinstance(right, (int, float)) and not isinstance(right, bool) and right != 0:
            # x / c as x * (1 / c): the same to within the rounding of 1 / c to f32.
            name, right = "mul", 1.0 / right
        if name is None and isinstance(node.op, ast.Div):
            name = "div"  # a / b of blocks (or c / x): ttl.div, div_binary_tile
        if isinstance(node.op, ast.Pow) and isinstance(left, (Block, Value)):
            if right != 2 or isinstance(right, bool):
                raise self.error(node, f"a block to the power {self.describe(right)}: ttlplan "
                                       "reads x ** 2 (x * x); write other powers with ttl.mul "
                                       "or ttl.exp/ttl.log")
            return self.elementwise("mul", [left, left], node)  # the spec's a_blk**2
        if name is None:
            raise self.error(node, f"operator {type(node.op).__name__} is not supported on blocks")
        if not isinstance(left, (Block, Value, Fill)) and isinstance(right, (Block, Value, Fill)):
            left = self.scalar_block(left, right, node)
        if not isinstance(right, (Block, Value, Fill)) and isinstance(left, (Block, Value, Fill)):
            right = self.scalar_block(right, left, node)
        return self.elementwise(name, [left, right], node)

    def scalar_block(self, v: Any, block: Any, node: ast.AST) -> Fill:
        """A number combined with a block (``x * 0.5``, ``2 - x``): a fill of the block's shape
        (tt-lang's block-scalar arithmetic)."""
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(node, f"{self.describe(v)} with a block: a block combines with "
                                   "another block or a number known when the kernel is read")
        if abs(v) > 3.4028234663852886e38:
            raise self.error(node, f"the number {v!r} does not fit in an f32")
        return Fill(float(v), self.shape_of(block), None, node)

    def elementwise(self, name: str, operands: list, node: ast.AST) -> Value:
        # A fill takes the data type of the block it meets.
        known = [self.dtype_of(self.operand(o, node)) for o in operands if not isinstance(o, Fill)]
        # A fill has the shape of the block it meets, batch entries included.
        batches = sorted({self.batch_of(o) for o in operands if not isinstance(o, Fill)} or {1})
        operands = [self.emit_fill(o, o.dtype or (known[0] if known else "bf16"))
                    if isinstance(o, Fill) else self.operand(o, node) for o in operands]
        shape = self.shape_of(operands[0])
        for other in operands[1:]:
            if self.shape_of(other) != shape:
                raise self.error(node, f"ttl.{name} of blocks shaped {self.shape_text(shape)} and "
                                       f"{self.shape_text(self.shape_of(other))}: elementwise ops "
                                       "take blocks of one shape (ttl.block.broadcast widens one)")
        if len(batches) > 1:
            raise self.error(node, f"ttl.{name} of blocks holding {batches[0]} and {batches[-1]} "
                                   "batch entries: elementwise ops take blocks of one shape")
        dtype = self.dtype_of(operands[0])
        out = self.fresh(name)
        args = ", ".join(o.ssa for o in operands)
        self.emit(f"{out} = ttl.{name} {args} : {block_type(shape, dtype)}", node)
        return Value(out, shape, dtype, batches[0])

    def batch_of(self, v: Any) -> int:
        if isinstance(v, Block):
            return v.buffer.batch
        return v.batch if isinstance(v, Value) else 1

    def one_batch_entry(self, v: Any, what: str, node: ast.AST) -> None:
        """Ops other than elementwise ones see a block's 2-D tiles: a block of several batch
        entries (shape=(B, R, C)) would mix them."""
        if self.batch_of(v) > 1:
            raise self.error(node, f"{what} of a block holding {self.batch_of(v)} batch entries: "
                                   "ttlplan folds batch entries into a block's rows, which only "
                                   "elementwise ops may see; give the block one batch entry "
                                   "(shape=(1, rows, cols)) and loop over the batch")

    def shape_text(self, shape: tuple) -> str:
        return "x".join(str(s) for s in shape)

    def matmul(self, node: ast.AST, left: Any, right: Any) -> Value:
        a, b = self.operand(left, node), self.operand(right, node)
        for v in (a, b):
            self.one_batch_entry(v, "a matmul", node)
        (m, k1), (k2, n) = self.shape_of(a), self.shape_of(b)
        if k1 != k2:
            raise self.error(node, f"a @ b of blocks {self.shape_text((m, k1))} and "
                                   f"{self.shape_text((k2, n))}: the inner dimensions differ")
        dtype = self.dtype_of(a)
        out = self.fresh("matmul")
        self.emit(f"{out} = ttl.matmul {a.ssa}, {b.ssa} : {block_type((m, k1), dtype)}, "
                  f"{block_type((k2, n), self.dtype_of(b))} -> {block_type((m, n), dtype)}", node)
        return Value(out, (m, n), dtype)

    def transpose(self, node: ast.AST, block: Any) -> Value:
        x = self.operand(block, node)
        self.one_batch_entry(x, "ttl.math.transpose", node)
        rows, cols = self.shape_of(x)
        dtype = self.dtype_of(x)
        out = self.fresh("transpose")
        self.emit(f"{out} = ttl.transpose {x.ssa} : {block_type((rows, cols), dtype)} -> "
                  f"{block_type((cols, rows), dtype)}", node)
        return Value(out, (cols, rows), dtype)

    def matmul_call(self, node: ast.Call, args: list, kwargs: dict) -> Value:
        """``ttl.math.matmul(a, b[, transpose_rhs=True])``: with transpose_rhs, ``b`` is
        ``[N, K]`` and the product is ``a @ transpose(b)`` (its transpose goes through an
        intermediate DFB, where tt-lang's unpacker transposes on the fly)."""
        unknown = sorted(k for k in kwargs if k != "transpose_rhs")
        if len(args) not in (2, 3) or unknown:
            raise self.error(node, "ttl.math.matmul takes two blocks and optionally "
                                   "transpose_rhs=True")
        if len(args) == 3:  # older tt-lang's matmul(a, b, out): `out` only hints the result
            hint = args[2]
            if not isinstance(hint, (Block, Value)):
                raise self.error(node.args[2], f"the third argument of ttl.math.matmul(a, b, out) "
                                               f"is the output block, got {self.describe(hint)}")
            product = self.matmul_call(node, args[:2], kwargs)
            if self.shape_of(hint) != product.shape:
                raise self.error(node.args[2], f"the output block of ttl.math.matmul(a, b, out) "
                                               f"is {self.shape_text(self.shape_of(hint))} but "
                                               f"a @ b is {self.shape_text(product.shape)}")
            return product
        flag = self.expr(kwargs["transpose_rhs"]) if "transpose_rhs" in kwargs else False
        if not isinstance(flag, bool):
            raise self.error(kwargs["transpose_rhs"], "transpose_rhs must be True or False, known "
                                                      "when the kernel is read")
        right = self.transpose(node, args[1]) if flag else args[1]
        return self.matmul(node, args[0], right)

    def squeeze(self, node: ast.Call, name: str) -> Any:
        """``ttl.block.squeeze(x, dims=[0])`` / ``unsqueeze``: add or drop dimensions of size 1.
        ttlplan's blocks are 2-D with batch entries folded into the rows, so a size-1 dimension
        changes nothing: the block itself."""
        kwargs = {kw.arg: kw.value for kw in node.keywords}
        args = [self.expr(a) for a in node.args]
        if len(args) != 1 or set(kwargs) - {"dims", "dim"}:
            raise self.error(node, f"ttl.block.{name} takes one block and dims=")
        x = args[0]
        if not isinstance(x, (Block, Value)):
            raise self.error(node, f"expected a block here, got {self.describe(x)}")
        if name == "squeeze" and self.batch_of(x) > 1:
            raise self.error(node, f"ttl.block.squeeze of a block holding {self.batch_of(x)} "
                                   "batch entries: only dimensions of size 1 go")
        return x

    def math_call(self, node: ast.Call, name: str) -> Value:
        if self.kind != "compute":
            raise self.error(node, f"ttl.{name} belongs in the @ttl.compute() thread")
        kwargs = {kw.arg: kw.value for kw in node.keywords}
        args = [self.expr(a) for a in node.args]
        if name == "matmul":
            return self.matmul_call(node, args, kwargs)
        if name == "transpose":
            if len(args) != 1 or kwargs:
                raise self.error(node, "ttl.math.transpose takes one block")
            return self.transpose(node, args[0])
        if name in UNARY_FUNCTIONS:
            if len(args) != 1 or kwargs:
                raise self.error(node, f"ttl.math.{name} takes one block")
            return self.elementwise(UNARY_FUNCTIONS[name], [args[0]], node)
        if name == "silu":  # tt-lang's ttl.silu: x * sigmoid(x), from ops ttlplan has
            if len(args) != 1 or kwargs:
                raise self.error(node, "ttl.silu takes one block")
            return self.elementwise("mul", [args[0], self.elementwise("sigmoid", [args[0]], node)],
                                    node)
        if name in BINARY_FUNCTIONS:
            if len(args) != 2 or kwargs:
                raise self.error(node, f"ttl.math.{name} takes two blocks")
            return self.elementwise(BINARY_FUNCTIONS[name], args, node)
        if name in ("reduce_sum", "reduce_max"):
            return self.reduce(node, name, args, kwargs)
        return self.broadcast(node, args, kwargs)

    def fill(self, node: ast.Call) -> Fill:
        """``ttl.block.fill(value, shape=(rows, cols)[, dtype=...])`` (``ttl.math.fill`` before
        spec 0.17)."""
        if self.kind != "compute":
            raise self.error(node, "ttl.block.fill belongs in the @ttl.compute() thread")
        kwargs = {kw.arg: kw.value for kw in node.keywords}
        unknown = sorted(k for k in kwargs if k not in ("value", "shape", "dtype", "layout"))
        args = list(node.args)
        if "value" in kwargs:
            args.insert(0, kwargs["value"])
        if len(args) != 1 or "shape" not in kwargs or unknown:
            raise self.error(node, "ttl.block.fill takes a value, shape=(rows, cols) and "
                                   "optionally dtype=: ttl.block.fill(0, shape=blk.shape)")
        value = self.expr(args[0])
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                value != value or value in (float("inf"), float("-inf")):
            raise self.error(args[0], f"the fill value must be a finite number known when the "
                                      f"kernel is read, got {self.describe(value)}")
        if abs(value) > 3.4028234663852886e38:
            raise self.error(args[0], f"the fill value {value!r} does not fit in an f32")
        shape = self.expr(kwargs["shape"])
        folded = fold_batch(shape) if isinstance(shape, tuple) and len(shape) > 2 else None
        if folded:
            shape = folded[0]  # (B, R, C): a B * R x C block
        if not isinstance(shape, tuple) or len(shape) != 2:
            raise self.error(kwargs["shape"], "the fill's shape must be (rows, cols) in tiles, as "
                                              "a block's .shape gives")
        dtype = None
        if "dtype" in kwargs:
            d = kwargs["dtype"]
            given = self.expr(d) if not isinstance(d, ast.Attribute) or \
                d.attr not in DTYPES else DType(DTYPES[d.attr])
            if not isinstance(given, DType):
                raise self.error(d, "dtype= names a data type: ttnn.bfloat16, ttnn.float32 or "
                                    "a block's .dtype")
            dtype = given.name
        if "layout" in kwargs and not (isinstance(kwargs["layout"], ast.Attribute) and
                                       kwargs["layout"].attr == "TILE_LAYOUT"):
            raise self.error(kwargs["layout"], "ttlplan fills tiled blocks only: "
                                               "layout=ttnn.TILE_LAYOUT")
        return Fill(float(value), shape, dtype, node)

    def emit_fill(self, fill: Fill, dtype: str) -> Value:
        out = self.fresh("fill")
        self.emit(f"{out} = ttl.fill {fill.value:.9e} : {block_type(fill.shape, dtype)}",
                  fill.node)
        return Value(out, fill.shape, dtype)

    def dims(self, node: ast.AST, kwargs: dict) -> list[int]:
        if "dims" not in kwargs:
            raise self.error(node, "dims=[...] is required")
        v = self.expr(kwargs["dims"])  # a name the thread binds, or a constant
        if isinstance(v, int):
            v = [v]
        if not isinstance(v, (list, tuple)) or not v or \
                any(isinstance(d, bool) or not isinstance(d, int) or d not in (-2, -1, 0, 1)
                    for d in v):
            raise self.error(kwargs["dims"], "dims must list dimensions of a 2-D block: 0, 1, -1 "
                                             "or -2")
        return sorted({d % 2 for d in v})

    def reduce(self, node: ast.Call, name: str, args: list, kwargs: dict) -> Value:
        if len(args) == 2:
            raise self.error(node.args[1], f"the scaler block of older tt-lang's "
                                           f"ttl.math.{name}(x, scaler, dims=...) is not read: "
                                           f"ttlplan's reduction scales by 1 (write "
                                           f"ttl.math.{name}(x, dims=...), spec 0.15+)")
        if len(args) != 1:
            raise self.error(node, f"ttl.math.{name} takes one block and dims=")
        x = self.operand(args[0], node)
        self.one_batch_entry(x, f"ttl.math.{name}", node)
        dims = self.dims(node, kwargs)
        rows, cols = self.shape_of(x)
        shape = (1 if 0 in dims else rows, 1 if 1 in dims else cols)
        if "shape" in kwargs:  # the spec's shape= must be the result's (1 in the reduced dims)
            given = self.expr(kwargs["shape"])
            if not isinstance(given, tuple) or len(given) != 2:
                raise self.error(kwargs["shape"], f"shape {given!r} of ttl.math.{name} has "
                                                  f"{len(given) if isinstance(given, tuple) else 1}"
                                                  f" dimensions but its input has rank 2")
            if tuple(given) != shape:
                raise self.error(kwargs["shape"], f"shape {tuple(given)} of ttl.math.{name} does "
                                                  f"not match its result, {shape} (dims "
                                                  f"{dims} of a {rows}x{cols} block become 1)")
        dtype = self.dtype_of(x)
        out = self.fresh(name)
        self.emit(f"{out} = ttl.{name} {x.ssa} {{dims = [{', '.join(map(str, dims))}]}} : "
                  f"{block_type((rows, cols), dtype)} -> {block_type(shape, dtype)}", node)
        return Value(out, shape, dtype)

    def broadcast(self, node: ast.Call, args: list, kwargs: dict) -> Value:
        if len(args) == 2 and "shape" not in kwargs and isinstance(args[1], (Block, Value)):
            # Older tt-lang's ttl.math.broadcast(x, out, dims=...): the result has out's shape.
            kwargs = dict(kwargs, shape=ast.copy_location(ast.Tuple(
                [ast.Constant(d) for d in self.shape_of(args[1])], ast.Load()), node))
            args = args[:1]
        if len(args) != 1 or "shape" not in kwargs:
            raise self.error(node, "ttl.block.broadcast takes one block, dims= and shape=")
        x = self.operand(args[0], node)
        self.one_batch_entry(x, "ttl.block.broadcast", node)
        shape = self.expr(kwargs["shape"])
        if isinstance(shape, tuple) and len(shape) > 2:
            # (1, .., R, C): batch dimensions of one entry, which broadcasting leaves as they are;
            # dims name the rows and columns as -2 and -1 (or by their place in the shape).
            if any(d != 1 for d in shape[:-2]):
                raise self.error(kwargs["shape"], f"ttl.block.broadcast to shape {shape}: "
                                                  "ttlplan broadcasts within one batch entry "
                                                  "(leading dimensions 1)")
            given = self.expr(kwargs["dims"]) if "dims" in kwargs else None
            given = [given] if isinstance(given, int) else given
            if not isinstance(given, (list, tuple)) or any(
                    isinstance(d, bool) or not isinstance(d, int) or
                    not -len(shape) <= d < len(shape) for d in given):
                raise self.error(kwargs.get("dims", node), f"dims must list dimensions of the "
                                                           f"{len(shape)}-D shape")
            n = len(shape)
            kept = sorted({d % n - (n - 2) for d in given if d % n >= n - 2})
            if not kept:  # only batch dimensions of size 1: the block as it is
                return x
            kwargs = dict(kwargs, dims=ast.copy_location(ast.List(
                [ast.Constant(d) for d in kept], ast.Load()), kwargs["dims"]))
            shape = shape[-2:]
        dims = self.dims(node, kwargs)
        if not isinstance(shape, tuple) or len(shape) != 2:
            raise self.error(kwargs["shape"], "shape must be (rows, cols) in tiles")
        dtype = self.dtype_of(x)
        out = self.fresh("bcast")
        self.emit(f"{out} = ttl.bcast {x.ssa} {{dims = [{', '.join(map(str, dims))}]}} : "
                  f"{block_type(self.shape_of(x), dtype)} -> {block_type(shape, dtype)}", node)
        return Value(out, shape, dtype)

    # --- Statements -------------------------------------------------------------------------

    def enter(self) -> None:
        self.scope = Scope(self.scope)
        self.depth += 1

    def leave(self) -> None:
        assert self.scope.parent is not None
        self.pop_carried(self.scope)
        self.scope = self.scope.parent
        self.depth -= 1

    def body(self, stmts: list[ast.stmt], then: list[ast.stmt] | None = None) -> None:
        """Runs `stmts`; `then` are statements that run after them at this level (the next
        iterations of an unrolled loop), for liveness."""
        stmts = continue_into_branches(carried_accumulators(stmts))
        for i, stmt in enumerate(stmts):
            self.rest.append(stmts[i + 1:] + (then or []))
            try:
                self.statement(stmt)
            finally:
                self.rest.pop()

    def read_later(self, name: str) -> bool:
        """Whether a statement still to run reads `name` (over-approximated: any read)."""
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                   or isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and
                   n.target.id == name
                   for stmts in self.rest for s in stmts for n in ast.walk(s))

    def carry_past_release(self, block: Block, node: ast.AST, with_block: bool = False) -> None:
        """Before `block` is popped: a computed value that reads it and is read later (acc = acc
        + blk in a with, stored after it) is stored into a carried-value buffer, made here, and
        its name rebound to that buffer's block. TTL computes a value where it is stored, so the
        block would be gone by then; tt-lang keeps such a value in a compiler-allocated DFB too
        (test/python/test_compiler_allocated_dfb.py). With `with_block`, a name of the block
        itself read later (t1 = cb.wait(); t2 = cb.wait(); ... t1 + t2) is carried too (a copy
        through DST)."""
        scope: Scope | None = self.scope
        seen: set[str] = set()
        while scope is not None:
            for name, value in list(scope.names.items()):
                if name in seen:
                    continue
                seen.add(name)
                if with_block and value is block and self.read_later(name):
                    as_value = Value(block.ssa, block.buffer.shape, block.buffer.like.dtype,
                                     block.buffer.batch)
                    scope.names[name] = self.carry(name, as_value, node, block)
                    continue
                if isinstance(value, Value) and self.reads_block(value, block) and \
                        self.read_later(name):
                    strategy, line = self.op.accumulation
                    if strategy == "dst":
                        # tt-lang: "cannot lower tensor accumulation scope to DST"
                        # (test/python/invalid/invalid_accumulation_strategy_dst.py).
                        raise self.error(node, f"cannot keep '{name}' in DST past the release of "
                                               f"{block.buffer.name}'s block, which it reads: "
                                               "--ttl-accumulation-strategy=dst (the options of "
                                               f"the call at line {line}) holds every block a "
                                               "recurrence reads until its store; leave the "
                                               "strategy automatic or l1-pack, which carry the "
                                               "value through L1")
                    scope.names[name] = self.carry(name, value, node)
            scope = scope.parent

    def reads_block(self, value: Value, block: Block) -> bool:
        """Whether an op of `value`'s compute tree reads `block`."""
        return any(block.ssa in SSA_NAME.findall(self.compute_defs[op][0].split(" = ", 1)[1])
                   for op in self.compute_tree(value.ssa))

    def carry(self, name: str, value: Value, node: ast.AST, block: Block | None = None) -> Block:
        """`value` (or `block`, stored unchanged) stored into `name`'s carried-value buffer,
        and the block to read it from."""
        buffer = self.carried.get(name)
        if buffer is None or buffer.shape != value.shape or buffer.like.dtype != value.dtype:
            taken = {b.name for b in self.op.buffers}
            labels = (f"{name}_carried{k or ''}" for k in range(len(taken) + 1))
            label = next(lb for lb in labels if lb not in taken)
            buffer = DataflowBuffer(label, TensorArg(label, (), value.dtype), value.shape, 2, node,
                                    batch=value.batch)
            self.op.buffers.append(buffer)
            self.kernel.cb_names[id(buffer)] = f"%{label}"
            self.carried[name] = buffer
        slot = self.acquire(buffer, "reserve", node)
        self.store_value(slot, block if block is not None else value, node, accumulate=False)
        self.release_buffer(buffer, "push", node)
        if buffer in self.scope.carried_waits:  # the block the value read: its last read is done
            self.release_buffer(buffer, "pop", node)
        self.scope.carried_waits.append(buffer)
        return self.acquire(buffer, "wait", node)

    def pop_carried(self, scope: Scope) -> None:
        while scope.carried_waits:
            self.release_buffer(scope.carried_waits[0], "pop", self.op.node)

    def statement(self, stmt: ast.stmt) -> None:
        method = getattr(self, "stmt_" + type(stmt).__name__, None)
        if method is None:
            raise self.error(stmt, f"{type(stmt).__name__} statements are not supported in a "
                                   "thread")
        method(stmt)

    def stmt_Pass(self, stmt: ast.Pass) -> None:
        pass

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        v = stmt.value
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return  # a docstring
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "print":
            return  # a device debug print: not planned
        if isinstance(v, ast.Call):
            self.expr(v)
            return
        raise self.error(stmt, "an expression statement that is not a call does nothing")

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        value = self.expr(stmt.value)
        for target in stmt.targets:
            self.bind(target, value)

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        if isinstance(stmt.target, ast.Name):
            found, current = self.scope.lookup(stmt.target.id)
            if found and isinstance(current, Block) and isinstance(stmt.op, ast.Add) and \
                    current.mode == "reserve":
                if self.kind != "compute":
                    raise self.error(stmt, "blk += ... belongs in the @ttl.compute() thread")
                self.store_value(current, self.expr(stmt.value), stmt, accumulate=True)
                return
            if found and (isinstance(current, Value) or isinstance(current, Block) and
                          current.mode == "wait") and type(stmt.op) in BINARY_OPS:
                # acc += x of a computed value or a waited (read-only) block, as in an unrolled
                # recurrence: acc = acc + x, a new value
                expr = ast.copy_location(ast.BinOp(ast.copy_location(
                    ast.Name(stmt.target.id, ast.Load()), stmt.target), stmt.op, stmt.value), stmt)
                self.bind(stmt.target, self.expr(expr))
                return
        raise self.error(stmt, "an augmented assignment in a thread must be blk += expression on "
                               "a reserved block (an accumulating store); a value carried across "
                               "loop iterations is not supported")

    def stmt_FunctionDef(self, stmt: ast.FunctionDef) -> None:
        if stmt.decorator_list:
            raise self.error(stmt, "a function nested in a thread must not be decorated")
        self.scope.names[stmt.name] = Callback(stmt)

    def stmt_For(self, stmt: ast.For) -> None:
        it = stmt.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and 1 <= len(it.args) <= 3 and not it.keywords):
            raise self.error(it, "a thread's for loop runs over range(...)")
        if stmt.orelse:
            raise self.error(stmt, "for ... else is not supported in a thread")
        if not isinstance(stmt.target, ast.Name):
            raise self.error(stmt.target, "the loop variable must be a plain name")
        bounds = [self.expr(a) for a in it.args]
        if len(bounds) == 1:
            bounds = [0, bounds[0], 1]
        elif len(bounds) == 2:
            bounds.append(1)
        if isinstance(bounds[2], int) and bounds[2] <= 0:
            raise self.error(it, "range() in a thread needs a positive step")
        if not isinstance(bounds[2], int):
            raise self.error(it, "range()'s step must be a known integer")
        carried = self.carried_names(stmt)
        if carried:
            self.unroll(stmt, bounds, carried)
            return
        lb, ub, step = (self.materialize(b, it) for b in bounds)
        iv = self.fresh(stmt.target.id if stmt.target.id != "_" else "i")
        self.open_region(f"scf.for {iv} = {lb} to {ub} step {step}")
        self.enter()
        self.scope.names[stmt.target.id] = Ssa(iv)
        self.body(stmt.body)
        self.leave()
        self.close_region(stmt)

    def carried_names(self, stmt: ast.For) -> list[str]:
        """Names bound before the loop that its body reads before assigning them (acc = acc + x):
        values carried from one iteration to the next."""
        first: dict[str, str] = {}  # name -> "read" or "store", whichever the body does first
        stored: set[str] = set()

        def visit(node: ast.AST) -> None:
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                return
            if isinstance(node, ast.Assign):
                visit(node.value)
                for t in node.targets:
                    visit(t)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                first.setdefault(node.target.id, "read")
                visit(node.value)
                stored.add(node.target.id)
            elif isinstance(node, ast.Name):
                event = "store" if isinstance(node.ctx, ast.Store) else "read"
                first.setdefault(node.id, event)
                if event == "store":
                    stored.add(node.id)
            else:
                for child in ast.iter_child_nodes(node):
                    visit(child)

        for inner in stmt.body:
            visit(inner)

        def carried(name: str) -> bool:
            found, value = self.scope.lookup(name)
            # blk += e of a reserved block is an accumulating store, not a carried value
            return found and not (isinstance(value, Block) and value.mode == "reserve")

        return sorted(n for n in stored if first[n] == "read" and n != stmt.target.id and
                      carried(n))

    def unroll(self, stmt: ast.For, bounds: list, carried: list[str]) -> None:
        """A loop that carries a value across iterations (a tensor recurrence, acc = acc + x):
        TTL's loops carry no values, so the loop is unrolled, each iteration's body run with the
        loop variable a known number and the carried names rebound in the enclosing region."""
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
            raise self.error(stmt, f"{', '.join(repr(n) for n in carried)} carried across the "
                                   "iterations of this loop: the loop is unrolled for that, so "
                                   "its range() needs known bounds")
        trips = range(*bounds)
        if len(trips) > MAX_UNROLLED_ITERATIONS:
            raise self.error(stmt, f"{', '.join(repr(n) for n in carried)} carried across "
                                   f"{len(trips)} iterations: a loop that carries a value is "
                                   f"unrolled, up to {MAX_UNROLLED_ITERATIONS} iterations (carry "
                                   "it in a reserved block with blk += ... instead)")
        for i in trips:
            self.scope.names[stmt.target.id] = i
            self.body(stmt.body, then=stmt.body if i != trips[-1] else None)

    def stmt_If(self, stmt: ast.If) -> None:
        cond = self.condition(stmt.test)
        if cond is True or cond is False:  # decided by known values: only that branch exists
            self.body(stmt.body if cond else stmt.orelse)
            return
        self.open_region(f"scf.if {cond.name}")
        self.enter()
        self.body(stmt.body)
        self.leave()
        if stmt.orelse:
            self.lines.append("  " * self.depth + "} else {")
            self.enter()
            self.body(stmt.orelse)
            self.leave()
        self.close_region(stmt)

    def stmt_With(self, stmt: ast.With) -> None:
        acquired: list[Block] = []
        for item in stmt.items:
            call = item.context_expr
            if isinstance(call, ast.Call) and ttl_attr(call.func) == "signpost":
                continue  # a profiler zone: nothing to plan
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("reserve", "wait") and not call.args):
                raise self.error(call, "a with item must be dfb.reserve() or dfb.wait()")
            buffer = self.expr(call.func.value)
            if not isinstance(buffer, DataflowBuffer):
                raise self.error(call, f".{call.func.attr}() of {self.describe(buffer)}: a with "
                                       "item acquires a block of a dataflow buffer")
            block = self.acquire(buffer, call.func.attr, call)
            block.scoped = True
            acquired.append(block)
            if item.optional_vars is not None:
                if not isinstance(item.optional_vars, ast.Name):
                    raise self.error(item.optional_vars, "bind the block to a plain name")
                self.scope.names[item.optional_vars.id] = block
        self.body(stmt.body)
        for block in reversed(acquired):  # released in reverse order, as tt-lang does
            if not block.released:
                if block.mode == "wait" and self.kind == "compute":
                    self.carry_past_release(block, stmt)
                self.release_buffer(block.buffer, "push" if block.mode == "reserve" else "pop",
                                    stmt)

    def stmt_Return(self, stmt: ast.Return) -> None:
        raise self.error(stmt, "return is not supported in a thread (a thread runs to its end)")

    def stmt_While(self, stmt: ast.While) -> None:
        raise self.error(stmt, "a while loop is not supported in a thread (tt-lang compiles "
                               "none): use for ... in range(...)")


class KernelContext:
    """What the threads of one kernel share: CB names, knob values, the buffer-factor choice."""

    def __init__(self, buffer_factor_auto: bool):
        self.buffer_factor_auto = buffer_factor_auto
        self.cb_names: dict[int, str] = {}
        self.params: dict[str, str] = {}  # knob -> SSA of its ttl.param_value
        self.acquired: dict[int, set[str]] = {}  # id(DFB) -> "reserve" / "wait", by any thread

    def cb(self, buffer: DataflowBuffer) -> str:
        return self.cb_names[id(buffer)]

    def param_value(self, knob: str) -> str:
        if knob not in self.params:
            self.params[knob] = f"%knob_{knob}"
        return self.params[knob]


def continue_into_branches(body: list[ast.stmt]) -> list[ast.stmt]:
    """An ``if``/``else`` whose branches both bind a name the statements after it read
    (``if c: t = ttl.add(x, x)`` ``else: t = ttl.mul(x, x)`` then ``o.store(t)``, tt-lang's
    test_compiler_allocated_dfb.py) with those statements copied into each branch: a compute
    value lives in one branch's DST chain, so each branch stores its own. Branches that leave
    early (break, continue, return) stay as written (the read is then the located error)."""
    for i, stmt in enumerate(body):
        if not isinstance(stmt, ast.If) or not stmt.orelse or i + 1 == len(body):
            continue
        if any(isinstance(n, (ast.Break, ast.Continue, ast.Return)) for n in ast.walk(stmt)):
            continue
        rest = body[i + 1:]

        def bound(stmts: list[ast.stmt]) -> set[str]:
            return {n.id for s in stmts for n in ast.walk(s)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

        both = bound(stmt.body) & bound(stmt.orelse)
        if not any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in both
                   for r in rest for n in ast.walk(r)):
            continue
        joined = copy.copy(stmt)
        joined.body = stmt.body + copy.deepcopy(rest)
        joined.orelse = stmt.orelse + copy.deepcopy(rest)
        return body[:i] + [joined]
    return body


def carried_accumulators(body: list[ast.stmt]) -> list[ast.stmt]:
    """``acc = E`` ... ``acc += e`` (in loops) ... ``blk.store(acc)``, a block value carried across
    iterations, as the accumulating stores TTL has: ``blk.store(E)`` ... ``blk += e`` ..., the
    final store dropped (blk is reserved around them all; a reserved view starts at zero and each
    accumulating store adds to it). Where `acc` is read any other way the body stays as written
    (and a carried value is the located error it was)."""
    out = list(body)
    for i, stmt in enumerate(out):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], ast.Name)):
            continue
        acc = stmt.targets[0].id
        store = next((k for k in range(i + 1, len(out)) if _stores_name(out[k], acc)), None)
        if store is None:
            continue
        blk = out[store].value.func.value.id
        between = [_as_augmented(s, acc) for s in out[i + 1:store]]
        updates = {id(n.target) for s in between for n in ast.walk(s)
                   if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)}
        uses = [n for s in between for n in ast.walk(s)
                if isinstance(n, ast.Name) and n.id in (acc, blk)]
        if not updates or any(n.id == blk and isinstance(n.ctx, ast.Store) for n in uses) or \
                any(n.id == acc and id(n) not in updates for n in uses):
            continue
        first = ast.copy_location(ast.Expr(ast.copy_location(ast.Call(
            ast.copy_location(ast.Attribute(ast.Name(blk, ast.Load()), "store", ast.Load()),
                              stmt), [stmt.value], []), stmt)), stmt)
        ast.fix_missing_locations(first)
        middle = [_retarget(s, acc, blk) for s in between]
        return out[:i] + [first] + middle + carried_accumulators(out[store + 1:])
    return out


def _as_augmented(stmt: ast.stmt, acc: str) -> ast.stmt:
    """`stmt` with every ``acc = acc + e`` (or ``e + acc``) as ``acc += e``, the same update."""
    class Augment(ast.NodeTransformer):
        def visit_Assign(self, node: ast.Assign) -> ast.AST:
            v = node.value
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                    node.targets[0].id == acc and isinstance(v, ast.BinOp) and \
                    isinstance(v.op, ast.Add):
                for mine, other in ((v.left, v.right), (v.right, v.left)):
                    if isinstance(mine, ast.Name) and mine.id == acc:
                        return ast.copy_location(ast.AugAssign(
                            ast.copy_location(ast.Name(acc, ast.Store()), node.targets[0]),
                            ast.Add(), other), node)
            return node

    return Augment().visit(copy.deepcopy(stmt))


def _stores_name(stmt: ast.stmt, name: str) -> bool:
    """``blk.store(name)`` with blk a name."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
        isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "store" and \
        isinstance(stmt.value.func.value, ast.Name) and len(stmt.value.args) == 1 and \
        not stmt.value.keywords and isinstance(stmt.value.args[0], ast.Name) and \
        stmt.value.args[0].id == name


def _retarget(stmt: ast.stmt, acc: str, blk: str) -> ast.stmt:
    """`stmt` with every ``acc += e`` as ``blk += e`` (a copy; `stmt` untouched)."""
    class Retarget(ast.NodeTransformer):
        def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
            self.generic_visit(node)
            if isinstance(node.target, ast.Name) and node.target.id == acc and \
                    isinstance(node.op, ast.Add):
                node.target = ast.copy_location(ast.Name(blk, ast.Store()), node.target)
            return node

    return Retarget().visit(copy.deepcopy(stmt))


def without_early_returns(body: list[ast.stmt]) -> list[ast.stmt]:
    """A thread body whose ``if cond: ...; return`` (at its top level: `if not
    net.is_active(): return`) becomes ``if cond: ... else: <the rest>``; a bare ``return`` at the
    end of the body is dropped. A return anywhere else stays an error at its line."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Return) and stmt.value is None:
            return body[:i]  # what follows never runs
        if isinstance(stmt, ast.If) and stmt.body and not stmt.orelse and \
                isinstance(stmt.body[-1], ast.Return) and stmt.body[-1].value is None:
            rest = without_early_returns(body[i + 1:])
            split = copy.copy(stmt)
            split.body = stmt.body[:-1] or [ast.copy_location(ast.Pass(), stmt)]
            split.orelse = rest or [ast.copy_location(ast.Pass(), stmt)]
            return body[:i] + [split]
    return body


def emit_thread(path: str, op: Operation, kernel: KernelContext, thread) -> list[str]:
    """The TTL lines of one thread, its region included."""
    emitter = ThreadEmitter(path, op, kernel, thread.kind)
    fn = thread.node
    if fn.args.args or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
        raise emitter.error(fn, f"thread {fn.name} takes no arguments (it reads what its "
                                "operation defines)")
    buffers = {name for name, v in op.env.items() if isinstance(v, DataflowBuffer)}
    emitter.body(complete_thread(without_early_returns(fn.body), buffers))
    emitter.pop_carried(emitter.scope)
    op_name = "ttl.compute_thread" if thread.kind == "compute" else "ttl.datamovement_thread"
    return [f"    {op_name} {{"] + emitter.prologue + emitter.live_lines() + \
        ["    } " + emitter.loc(fn)]
