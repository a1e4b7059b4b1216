"""Finding a file's tt-lang operations and running their operation-scope Python symbolically.

`read_operations(path, source, args)` parses the file with Python's `ast` (never importing or running
it), evaluates its module-level integer constants, and for every function decorated
``@ttl.operation(grid=...)`` (or tt-lang's older ``@ttl.kernel``) executes the body's statements
with the evaluator of evaluate.py: assignments, ``if`` on known conditions, ``for`` over a known
``range`` (at most MAX_ITERATIONS steps), ``assert`` on known values. It collects what the threads
will need: the dataflow buffers (``ttl.make_dataflow_buffer_like``, older
``make_circular_buffer_like``), the thread functions (``@ttl.compute()``, ``@ttl.datamovement()``)
and every name bound, with the location of each. Any other construct is a located FrontendError.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from . import evaluate as ev_mod
from .errors import FrontendError
from .evaluate import MATH, Evaluator, TensorArg, describe, ttl_attr
from .helpers import Helper, bind
from .types import DTYPES, fold_batch
from . import hostshapes, imports, unified, values
from .values import Int, Sym

# Decorator spellings: spec 0.15 names first, then the older ones still in tt-lang's tree.
OPERATION_DECORATORS = ("operation", "kernel", "atom")
THREAD_DECORATORS = {"compute": "compute", "datamovement": "datamovement"}
BUFFER_FACTORIES = ("make_dataflow_buffer_like", "make_circular_buffer_like", "make_dfb")


@dataclass
class DataflowBuffer:
    """A ``ttl.make_dataflow_buffer_like(t, shape=(R, C), block_count=N)``: a TTL CB."""

    name: str
    like: TensorArg
    shape: tuple[Int, Int]  # tiles per block (batch dimensions folded into the rows)
    block_count: Int | None  # None: left to the planner (--buffer-factor auto)
    node: ast.AST
    # Batch entries per block: the product of a shape's leading dimensions, shape=(B, R, C)
    # (R and C in tiles) being a 2-D block of B * R x C tiles.
    batch: int = 1
    logical_shape: tuple = ()  # the shape as written, for .shape


@dataclass
class Pipe:
    """``ttl.Pipe(src=(x, y), dst=(x, y))``; a destination entry may be ``slice(a, b)`` (b
    exclusive), making a multicast to the rectangle dst_first..dst_last (inclusive)."""

    src: tuple[int, int]
    dst_first: tuple[int, int]
    dst_last: tuple[int, int]
    node: ast.AST
    # The source is one of the destinations the user wrote (tt-lang: it receives its own block),
    # not only a corner of the rectangle (a 1-D range that is whole rows with the source).
    source_receives: bool = False


@dataclass
class PipeNet:
    """``ttl.PipeNet([pipes])``."""

    pipes: list[Pipe]
    node: ast.AST


@dataclass
class Semaphore:
    """``ttl.Semaphore(initial_value)`` at operation scope: a TTL ``ttl.create_semaphore`` (the
    spec's "Semaphore" section; tt-lang's compiler and simulator do not implement it yet)."""

    name: str
    initial: int
    node: ast.AST


@dataclass
class RemoteSemaphore:
    """``sem.get_remote((x, y))`` (``core``) or ``sem.get_remote_multicast()`` (``rect``, the
    whole grid when called without a range): what ``.inc``/``.set`` of a thread write."""

    semaphore: Semaphore
    core: tuple[int, int] | None  # (x, y)
    rect: tuple[tuple[int, int], tuple[int, int]] | None  # ((x0, y0), (x1, y1)), inclusive
    node: ast.AST


@dataclass
class NodeAtOperationScope:
    """``ttl.node(dims=N)`` written at operation scope: each node's own coordinates, which a
    thread computes where it reads the name."""

    call: ast.Call


@dataclass
class Thread:
    kind: str  # "compute" | "datamovement"
    node: ast.FunctionDef


@dataclass
class Operation:
    name: str
    node: ast.FunctionDef
    grid: tuple[int, int]  # (x, y) = (columns, rows) of nodes; "auto"/"full" is the device's
    args: list[TensorArg]
    buffers: list[DataflowBuffer] = field(default_factory=list)
    semaphores: list[Semaphore] = field(default_factory=list)
    threads: list[Thread] = field(default_factory=list)
    env: dict[str, Any] = field(default_factory=dict)
    # Kernel attributes from the decorator: math_fidelity, fp32_dest_acc (TTL spellings).
    attributes: dict[str, str] = field(default_factory=dict)
    # tt-lang's --ttl-accumulation-strategy from the host call's options= ("auto", "dst",
    # "l1-pack") and that call's line: how a value carried past a block's release is kept.
    accumulation: tuple[str, int] = ("auto", 0)


def _decorator_name(dec: ast.expr) -> str | None:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return ttl_attr(target)


def module_constants(path: str, tree: ast.Module, knobs: dict[str, str]) -> dict[str, Any]:
    """The module's integer constants (NAME = expression of earlier constants); a constant named
    in `knobs` becomes the knob @NAME."""
    env: dict[str, Any] = {"math": MATH, "ttl": ev_mod.TTL_MODULE, "ttnn": ev_mod.TTNN_MODULE}
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(stmt, ast.FunctionDef) and _operation_decorator(stmt) is None and \
                not any(isinstance(s, ast.FunctionDef) and _operation_decorator(s) is not None
                        for s in stmt.body):
            env[stmt.name] = Helper(stmt, env)  # evaluated where the kernel calls it
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Tuple) and \
                all(isinstance(t, ast.Name) for t in stmt.targets[0].elts):
            # GRID_X, GRID_Y = 2, 4: each name its value, a knob where `knobs` names it.
            try:
                value = Evaluator(path, env).eval(stmt.value)
            except FrontendError:
                continue
            names = stmt.targets[0].elts
            if isinstance(value, (tuple, list)) and len(value) == len(names):
                for t, v in zip(names, value):
                    env[t.id] = values.knob(t.id) if t.id in knobs else v
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                if target.id in knobs:
                    env[target.id] = values.knob(target.id)
                    continue
                try:
                    env[target.id] = Evaluator(path, env, _module_ttl_call).eval(stmt.value)
                except FrontendError:
                    pass  # not a constant the front end needs unless a kernel reads it
    return env


def read_operations(
    path: str, source: str, args: dict[str, tuple[tuple[int, ...], str]],
    knobs: dict[str, str] | None = None, device_grid: tuple[int, int] = (8, 8),
) -> list[Operation]:
    """Every tt-lang operation of the file, with its operation scope executed."""
    knobs = knobs or {}
    if "\0" in source:  # Python's parser refuses it without a location (or with none at all)
        at = source.find("\0")
        line = source.count("\n", 0, at) + 1
        raise FrontendError(path, line, at - source.rfind("\n", 0, at),
                            "Python syntax error: a NUL byte in the source")
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise FrontendError(path, e.lineno or 1, (e.offset or 0) or 1,
                            f"Python syntax error: {e.msg}") from None
    imported = imports.read_imports(path, tree, module_constants,
                                    lambda fn: _operation_decorator(fn) is not None)
    constants = imports.with_imports(module_constants(path, tree, knobs), imported)
    host = host_arguments(tree, device_grid)
    ops = []
    found = []  # (factory or None, the operation's def, its decorator)
    for stmt in tree.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        decorator = _operation_decorator(stmt)
        if decorator is not None:
            found.append((None, stmt, decorator))
            continue
        for inner in stmt.body:  # a factory: def make(...): @ttl.operation def k(...) ...
            if isinstance(inner, ast.FunctionDef) and _operation_decorator(inner) is not None:
                found.append((stmt, inner, _operation_decorator(inner)))
    names = [fn.name for _, fn, _ in found]
    module_callees = {name: unified.Callee(fn, dict(values))
                      for name, (fn, values) in imported.operations.items()}
    module_callees.update(_module_callees(path, tree, found, constants))
    expand_only = []
    for factory, fn, decorator in found:
        if unified.is_expand_only(fn, decorator) and unified.is_unified(fn):
            expand_only.append(fn)  # it runs where an operation composes it, not on its own
            continue
        given = host.get((factory.name if factory else None, fn.name), HostArguments())
        for tensor, (line, col) in given.row_major.items():
            if tensor not in args:
                # tt-lang: "cannot mix tiled and non-tiled element types"
                # (test/python/invalid/native_copy_row_major_invalid.py).
                raise FrontendError(path, line, col, f"operation {fn.name}: the host code passes "
                                                   f"'{tensor}' in ttnn.ROW_MAJOR_LAYOUT; a "
                                                   "tiled operation takes TILE_LAYOUT tensors "
                                                   "(move it with layout=ttnn.TILE_LAYOUT)")
        env = constants if factory is None else \
            factory_constants(path, factory, fn, constants, given.factory_args, args)
        # Operations of different factories may share a name (`kernel`): such a one is named
        # after its factory too.
        name = f"{factory.name}_{fn.name}" if factory and names.count(fn.name) > 1 else fn.name
        callees = dict(module_callees)
        callees.update({other.name: unified.Callee(other, env) for f, other, _ in found
                        if factory is not None and f is factory and other is not fn})
        if factory is not None:
            before = factory.body[:factory.body.index(fn)]
            callees.update(_factory_built(path, tree, before, found, env))
        factory_missing = []
        if factory is not None:
            read = _factory_names_read(factory, fn)
            factory_missing = [a for a in factory.args.posonlyargs + factory.args.args +
                               factory.args.kwonlyargs if a.arg not in env and a.arg in read]
        ops.append(_read_operation(path, fn, decorator, env, {**given.tensors, **args}, knobs,
                                   device_grid, name, given.values, callees, factory_missing))
        if given.options is not None:
            strategy = re.search(r"--ttl-accumulation-strategy[= ]([A-Za-z0-9-]+)",
                                 given.options[0])
            if strategy:
                ops[-1].accumulation = (strategy.group(1), given.options[1])
    taken = {a.arg for factory, fn, _ in found for f in (fn, factory) if f is not None
             for a in f.args.posonlyargs + f.args.args + f.args.kwonlyargs}
    unknown = sorted(set(args) - taken)
    if unknown and found:
        raise FrontendError(path, 1, 1, f"--args gives {', '.join(unknown)}, which no operation "
                                        f"in this file takes (they take "
                                        f"{', '.join(sorted(taken)) or 'no arguments'})")
    if not ops and expand_only:
        raise FrontendError.at(path, expand_only[0], f"operation {expand_only[0].name} is "
                                                     "expand-only (it has no grid, or DFB or "
                                                     "PipeNet parameters): it runs where another "
                                                     "operation calls it, and this file has no "
                                                     "such operation to plan")
    if not ops:
        raise FrontendError(path, 1, 1, "no function decorated @ttl.operation(grid=...) (or "
                                        "@ttl.kernel) in this file")
    return ops


def _scan(fn: ast.FunctionDef) -> tuple[bool, set[str]]:
    """In one walk of `fn`: whether it is one body (no nested thread def, tt-lang's dispatch; the
    same test as unified.is_unified) and the names its body uses as tensors: what a DFB is made
    like, what a copy slices, what has a .shape or .dtype."""
    out = set()
    one_body = True
    for node in ast.walk(fn):
        if node is not fn and unified.is_thread_def(node):
            one_body = False
        if isinstance(node, ast.Call):
            name = ttl_attr(node.func)
            if name in BUFFER_FACTORIES + ("make_tensor_backed_dfb",) and node.args and \
                    isinstance(node.args[0], ast.Name):
                out.add(node.args[0].id)
            if name == "copy":
                out.update(a.value.id for a in node.args
                           if isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name))
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "dtype") and \
                isinstance(node.value, ast.Name):
            out.add(node.value.id)
    return one_body, out


def _module_callees(path: str, tree: ast.Module, found: list,
                    constants: dict[str, Any]) -> dict[str, unified.Callee]:
    """The operations a unified operation may compose by name: the module's own, and those a
    module-level ``NAME = make_op(...)`` builds with a factory (its arguments captured)."""
    out = {fn.name: unified.Callee(fn, {}) for factory, fn, _ in found if factory is None}
    out.update(_factory_built(path, tree, tree.body, found, constants))
    return out


def _factory_built(path: str, tree: ast.Module, statements: list[ast.stmt], found: list,
                   env: dict[str, Any]) -> dict[str, unified.Callee]:
    """``NAME = make_op(...)`` among `statements` (a module's, or a factory's before its own
    operation: tt-lang's flash_decode.py builds ``core = make_flash_decode_core(...)``) with
    ``make_op`` a factory of the module that returns one operation: that operation, its factory's
    arguments (evaluated in `env`) captured."""
    factories: dict[str, list[ast.FunctionDef]] = {}
    for factory, fn, _ in found:
        if factory is not None:
            factories.setdefault(factory.name, []).append(fn)
    by_name = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    out = {}
    for stmt in statements:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call) and
                isinstance(stmt.value.func, ast.Name) and stmt.value.func.id in factories):
            continue
        factory = by_name[stmt.value.func.id]
        returned = {n.value.id for n in ast.walk(factory)
                    if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
        inner = [fn for fn in factories[factory.name] if fn.name in returned]
        if len(inner) != 1:
            continue  # the factory returns no one operation by its name: not read
        params = [a.arg for a in factory.args.posonlyargs + factory.args.args]
        given = {}
        for key, node in list(zip(params, stmt.value.args)) + \
                [(kw.arg, kw.value) for kw in stmt.value.keywords if kw.arg]:
            try:
                given[key] = Evaluator(path, dict(env)).eval(node)
            except FrontendError:
                pass  # not a constant: an error where the expansion reads it
        constants = {k: v for k, v in env.items() if k not in params}
        out[stmt.targets[0].id] = unified.Callee(
            inner[0], factory_constants(path, factory, inner[0], constants, given))
    return out


def _operation_decorator(fn: ast.FunctionDef) -> ast.expr | None:
    decorators = [d for d in fn.decorator_list if _decorator_name(d) in OPERATION_DECORATORS]
    return decorators[0] if decorators else None


def _factory_names_read(factory: ast.FunctionDef, fn: ast.FunctionDef) -> set[str]:
    """The names operation `fn` reads, and those the factory's assignments before it read to
    compute them (``n_blocks = Rt // PNt``: a body reading n_blocks needs Rt and PNt)."""
    read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    assigns = []
    for stmt in factory.body:
        if stmt is fn:
            break
        if isinstance(stmt, ast.Assign):
            targets = {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            assigns.append((targets, {n.id for n in ast.walk(stmt.value)
                                      if isinstance(n, ast.Name)}))
    for targets, uses in reversed(assigns):  # a later assignment may read an earlier one
        if targets & read:
            read |= uses
    return read


def factory_constants(path: str, factory: ast.FunctionDef, fn: ast.FunctionDef,
                      constants: dict[str, Any], host_args: dict[str, Any],
                      cli_args: dict[str, Any] | None = None) -> dict[str, Any]:
    """The names an operation defined in a factory function sees: the module's constants, the
    factory's parameters (as the host code called it, else their defaults) and the factory's
    constant assignments before the operation."""
    env = dict(constants)
    cli_args = cli_args or {}
    params = factory.args.posonlyargs + factory.args.args
    defaults = dict(zip([a.arg for a in params][len(params) - len(factory.args.defaults):],
                        factory.args.defaults))
    defaults.update({a.arg: d for a, d in zip(factory.args.kwonlyargs, factory.args.kw_defaults)
                     if d is not None})
    for a in params + factory.args.kwonlyargs:
        if a.arg in cli_args:  # a factory's parameters are compile-time: numbers and tuples
            spec = cli_args[a.arg]
            env[a.arg] = tuple(spec[0]) if isinstance(spec, tuple) else spec
        elif a.arg in host_args:
            env[a.arg] = host_args[a.arg]
        elif a.arg in defaults:
            try:
                env[a.arg] = Evaluator(path, dict(env)).eval(defaults[a.arg])
            except FrontendError:
                pass
    for stmt in factory.body:
        if stmt is fn:
            break
        if isinstance(stmt, ast.If) and _raises(stmt.body) and not stmt.orelse:
            _check_factory_guard(path, factory, stmt, env)
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target = stmt.targets[0]
        try:
            # Pipes and pipe nets too: a factory builds the nets its operation captures.
            value = Evaluator(path, dict(env), _module_ttl_call).eval(stmt.value)
        except FrontendError:
            continue  # not a constant; an error where the operation reads it
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts) \
                and isinstance(value, (tuple, list)) and len(value) == len(target.elts):
            env.update({t.id: v for t, v in zip(target.elts, value)})  # Np, Kp = grid_cfg
    return env


def _raises(body: list[ast.stmt]) -> bool:
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _check_factory_guard(path: str, factory: ast.FunctionDef, stmt: ast.If,
                         env: dict[str, Any]) -> None:
    """``if K % TILE: raise ValueError(...)`` in a factory: with its arguments known, a guard that
    holds is the factory's own refusal of them, reported where it raises."""
    try:
        holds = Evaluator(path, dict(env)).eval(stmt.test)
    except FrontendError:
        return
    if holds is True or (isinstance(holds, int) and not isinstance(holds, bool) and holds != 0):
        raise FrontendError.at(path, stmt.body[0], f"{factory.name} refuses these arguments "
                                                   f"(its check at line {stmt.lineno} holds): "
                                                   f"{ast.unparse(stmt.test)}; give it others "
                                                   "(--args, or the sidecar)")


def _plain(v: Any) -> bool:
    """A value the evaluator takes as it is: a number, string, bool, None, or a tuple of them."""
    if isinstance(v, (tuple, list)):  # a list the host passes ([2, 2]) is read as a tuple
        return all(_plain(x) for x in v)
    return v is None or isinstance(v, (bool, int, float, str))


def _as_constant(v: Any) -> Any:
    """A plain value as the evaluator takes it: lists as tuples."""
    return tuple(_as_constant(x) for x in v) if isinstance(v, (tuple, list)) else v


@dataclass
class HostArguments:
    """What the file's own host code passes one operation (hostshapes), in the forms
    read_operations takes: tensors as --args gives them, ((shape), dtype); other values (ints,
    tuples, ...) as they are; and the arguments of the factory that made it, if one did."""
    tensors: dict[str, tuple[tuple[int, ...], str]] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    # tensor -> (line, column) of the call that passes it in row-major layout
    row_major: dict[str, tuple[int, int]] = field(default_factory=dict)
    factory_args: dict[str, Any] = field(default_factory=dict)
    options: tuple[str, int] | None = None  # the call's options="..." and its line


def host_arguments(tree: ast.Module,
                   device_grid: tuple[int, int] = (8, 8)) -> dict[tuple, HostArguments]:
    """Per operation ((factory or None, name)), its HostArguments; of several calls, the one that
    gives the most tensors."""
    out: dict[tuple, HostArguments] = {}
    for call in hostshapes.calls_of(tree, device_grid):
        host = HostArguments(factory_args={k: _as_constant(v)
                                           for k, v in call.factory_args.items() if _plain(v)})
        for name, v in call.args.items():
            if isinstance(v, hostshapes.Tensor) and v.dtype in DTYPES:
                host.tensors[name] = (v.shape, DTYPES[v.dtype])
                if v.row_major:
                    host.row_major[name] = (call.line, call.col)
            elif _plain(v):
                host.values[name] = _as_constant(v)
        if call.options is not None:
            host.options = (call.options, call.line)
        key = (call.factory, call.operation)
        if key not in out or len(host.tensors) > len(out[key].tensors):
            out[key] = host
    return out


def _read_operation(path, fn: ast.FunctionDef, decorator: ast.expr, constants, args, knobs,
                    device_grid, name: str | None = None,
                    host_values: dict[str, Any] | None = None,
                    callees: dict[str, Any] | None = None,
                    factory_missing: list[ast.arg] = ()) -> Operation:
    host_values = host_values or {}
    name = name or fn.name
    env = dict(constants)
    ev = Evaluator(path, env)
    params = []
    positional = fn.args.posonlyargs + fn.args.args
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(fn.args.defaults):],
                        fn.args.defaults))
    defaults.update({a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d})
    if fn.args.vararg or fn.args.kwarg:
        raise FrontendError.at(path, fn, f"operation {name}: *args and **kwargs are not read")
    missing = []
    # Since spec 0.19 every argument of a unified operation is a tensor; an older one may take
    # integers and tuples too, told apart by how the body uses each.
    is_unified, tensors = _scan(fn)
    if is_unified:
        tensors = {a.arg for a in positional + fn.args.kwonlyargs}
    for a in positional + fn.args.kwonlyargs:
        if a.arg in knobs:  # an integer parameter with a default, tuned
            env[a.arg] = values.knob(a.arg)
            continue
        if a.arg in args and (a.arg in tensors or not isinstance(args[a.arg], tuple)):
            spec = args[a.arg]
            if not isinstance(spec, tuple):  # --args n=4 / eps=1e-6: a compile-time constant
                env[a.arg] = spec
                continue
            shape, dtype = spec
            t = TensorArg(a.arg, tuple(shape), dtype)
            env[a.arg] = t
            params.append(t)
            continue
        if a.arg in args:  # a shape for a parameter not used as a tensor: a tuple (t=2x2)
            env[a.arg] = tuple(args[a.arg][0])
            continue
        if a.arg in host_values:  # a constant the file's own call passes (an int, a tuple)
            env[a.arg] = host_values[a.arg]
            continue
        if a.arg in defaults:
            env[a.arg] = ev.eval(defaults[a.arg])
            continue
        missing.append(a)
    # A factory's parameters the operation reads and nothing gives a value.
    missing += [a for a in factory_missing if a.arg not in env]
    if missing:
        # Every argument without a value at once, as one --args to fill in.
        names = ", ".join(f"'{a.arg}'" for a in missing)
        fill = ",".join(f"{a.arg}=ROWSxCOLS:DTYPE" if a.arg in tensors else f"{a.arg}=N"
                        for a in missing)
        raise FrontendError.at(path, missing[0],
                               f"operation {name}: argument{'s' if len(missing) > 1 else ''} "
                               f"{names} {'have' if len(missing) > 1 else 'has'} no "
                               f"{'shape and dtype' if missing[0].arg in tensors else 'value'} "
                               f"(the file does not call the operation with known tensors); "
                               f"pass --args {fill}")
    for t in params:
        # A vector [M] is the tiled [1, M] and a scalar [] the tiled [1, 1] (TensorArg.flat_shape):
        # ttnn's TILE_LAYOUT puts them in row 0 and at element (0, 0), and tt-lang indexes them
        # with two tile indices (c[0, :], d[0, 0]).
        if len(t.shape) > 2 and t.shape[-2] % 32:
            raise FrontendError.at(path, fn, f"operation {name}: tensor '{t.name}' of shape "
                                             f"{'x'.join(map(str, t.shape))} has batch "
                                             f"dimensions and {t.shape[-2]} rows, not whole "
                                             "tiles: a tile would hold rows of two batch entries "
                                             "(pad the rows to a multiple of 32)")
    grid: tuple[int, int] = device_grid
    attributes: dict[str, str] = {}
    if isinstance(decorator, ast.Call):
        for kw in decorator.keywords:
            if kw.arg == "tiled" and ev.known(kw.value) is False:
                raise ev.error(kw.value, "tiled=False (row-major tensors) is not supported: "
                                         "ttlplan plans tiled tensors, as tt-lang's compiler does")
            if kw.arg == "math_fidelity":
                fidelity = kw.value.attr if isinstance(kw.value, ast.Attribute) else \
                    ev.known(kw.value)  # ttl.MathFidelity.LoFi or "LoFi"
                if fidelity not in ("LoFi", "HiFi2", "HiFi3", "HiFi4"):
                    raise ev.error(kw.value, f"math_fidelity is LoFi, HiFi2, HiFi3 or HiFi4, got "
                                             f"{describe(fidelity)}")
                attributes["math_fidelity"] = f'"{fidelity}"'
            if kw.arg in ("fp32_dest_acc_en", "fp32_dest_acc"):
                acc = ev.known(kw.value)
                if acc is not None:
                    if not isinstance(acc, (bool, int)) or acc not in (0, 1):
                        raise ev.error(kw.value, f"{kw.arg} is True or False, got "
                                                 f"{describe(acc)}")
                    attributes["fp32_dest_acc"] = str(int(acc))
            if kw.arg == "grid":
                g = ev.known(kw.value)
                if g in ("auto", "full"):
                    grid = device_grid
                elif isinstance(g, tuple) and len(g) == 2 and all(
                        isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in g):
                    grid = (g[0], g[1])
                else:
                    raise ev.error(kw.value, f"grid must be (x, y), \"auto\" or \"full\", got "
                                             f"{describe(g)}")
    ev.ttl_call = lambda e, node, name: _ttl_call(e, op, node, name)
    ev.method_call = lambda e, base, method, node: _method_call(e, op, base, method, node)
    op = Operation(name, fn, grid, params, env=env, attributes=attributes)
    if is_unified:  # spec 0.19+: one body, split into threads
        split = unified.split_operation(path, fn, callees)
        _run_block(ev, op, split.resources, budget=ev.budget)
        for kind, body in split.threads.items():
            thread = ast.FunctionDef(name=kind, args=ast.arguments(
                posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                defaults=[]), body=body, decorator_list=[], returns=None)
            op.threads.append(Thread(kind, ast.copy_location(thread, fn)))
    else:
        _run_block(ev, op, fn.body, budget=ev.budget)
    if not op.threads:
        raise FrontendError.at(path, fn, f"operation {name} defines no @ttl.compute() or "
                                         "@ttl.datamovement() thread")
    return op


def _run_block(ev: Evaluator, op: Operation, body: list[ast.stmt], budget: list[int]) -> None:
    for stmt in body:
        _run(ev, op, stmt, budget)


def _run(ev: Evaluator, op: Operation, stmt: ast.stmt, budget: list[int]) -> None:
    if isinstance(stmt, ast.FunctionDef):
        kinds = [THREAD_DECORATORS.get(_decorator_name(d) or "") for d in stmt.decorator_list]
        kinds = [k for k in kinds if k]
        if not kinds:  # a helper: evaluated where operation scope calls it, inlined in threads
            ev.env[stmt.name] = Helper(stmt, ev.env)
            return
        op.threads.append(Thread(kinds[0], stmt))
        ev.env[stmt.name] = stmt
        return
    if isinstance(stmt, ast.Assign):
        value = _value(ev, op, stmt.value, stmt)
        for target in stmt.targets:
            _bind(ev, target, value)
        return
    if isinstance(stmt, ast.AugAssign):
        if not isinstance(stmt.target, ast.Name):
            raise ev.error(stmt, "only a name may be updated with an augmented assignment here")
        combined = ast.BinOp(left=ast.Name(stmt.target.id, ast.Load()), op=stmt.op,
                             right=stmt.value)
        ast.copy_location(combined, stmt)
        ev.env[stmt.target.id] = ev.eval(combined)
        return
    if isinstance(stmt, ast.If):
        _run_block(ev, op, stmt.body if ev.known(stmt.test) else stmt.orelse, budget)
        return
    if isinstance(stmt, ast.For):
        _run_for(ev, op, stmt, budget)
        return
    if isinstance(stmt, ast.Assert):
        if not ev.known(stmt.test):
            raise ev.error(stmt, "this assert fails for the given --args")
        return
    if isinstance(stmt, ast.Expr):
        if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            return  # a docstring
        if isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) and \
                stmt.value.func.id == "print":
            return  # host-side output only
        raise ev.error(stmt, "an expression statement that is not a ttl call is not supported here")
    if isinstance(stmt, (ast.Pass, ast.Import, ast.ImportFrom)):
        return
    if isinstance(stmt, ast.Return):
        return
    if isinstance(stmt, ast.While):
        raise ev.error(stmt, "a while loop is not supported at operation scope (its trip count "
                             "is not known): use for ... in range(...)")
    raise ev.error(stmt, f"{type(stmt).__name__} statements are not supported at operation scope")


def _run_for(ev: Evaluator, op: Operation, stmt: ast.For, budget: list[int]) -> None:
    it = stmt.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and 1 <= len(it.args) <= 3 and not it.keywords):
        raise ev.error(stmt.iter, "an operation-scope for loop must run over range(...)")
    bounds = [ev.known(a) for a in it.args]
    if any(isinstance(b, bool) or not isinstance(b, int) for b in bounds):
        raise ev.error(stmt.iter, "range(...) bounds must be integers")
    if len(bounds) == 3 and bounds[2] == 0:
        raise ev.error(stmt.iter, "range() step must not be zero")
    if not isinstance(stmt.target, ast.Name):
        raise ev.error(stmt.target, "the loop variable must be a plain name")
    for i in range(*bounds):
        budget[0] -= 1
        if budget[0] < 0:
            raise ev.error(stmt, f"operation-scope loops ran more than {ev_mod.MAX_ITERATIONS} "
                                 "iterations; the front end stops here")
        ev.env[stmt.target.id] = i
        _run_block(ev, op, stmt.body, budget)
    if stmt.orelse:
        _run_block(ev, op, stmt.orelse, budget)


def _bind(ev: Evaluator, target: ast.expr, value: Any) -> None:
    def name_buffer(name: str, v: Any) -> None:
        if isinstance(v, (DataflowBuffer, Semaphore)) and not v.name:
            v.name = name  # a DFB or semaphore is named after the first name bound to it

    bind(ev, target, value, name_buffer)


def _value(ev: Evaluator, op: Operation, node: ast.expr, stmt: ast.stmt) -> Any:
    """An assignment's value (ttl calls go through _ttl_call)."""
    return ev.eval(node)


def _module_ttl_call(ev: Evaluator, call: ast.Call, name: str) -> Any:
    """The ttl calls a module constant may make: pipes and pipe nets (``NET = ttl.PipeNet([...])``,
    which operations capture)."""
    if name in ("Pipe", "PipeNet"):
        return _ttl_call(ev, None, call, name)
    raise ev.error(call, f"ttl.{name} is not read at module scope")


def _ttl_call(ev: Evaluator, op: Operation, call: ast.Call, name: str) -> Any:
    """The ttl functions operation scope calls."""
    if name in BUFFER_FACTORIES:
        return _buffer(ev, op, call)
    if name == "grid_size":
        return grid_size(ev, op.grid, call)
    if name == "Pipe":
        return _pipe(ev, op, call)
    if name == "Semaphore":
        return _semaphore(ev, op, call)
    if name in ("node", "core"):
        return NodeAtOperationScope(call)
    if name == "PipeNet":
        if len(call.args) != 1 or call.keywords:
            raise ev.error(call, "ttl.PipeNet takes one list of pipes")
        pipes = ev.eval(call.args[0])
        if not isinstance(pipes, list) or not pipes or \
                not all(isinstance(p, Pipe) for p in pipes):
            raise ev.error(call.args[0], "ttl.PipeNet takes a non-empty list of ttl.Pipe")
        return PipeNet(pipes, call)
    raise ev.error(call, f"ttl.{name} is not read at operation scope (docs/python.md lists what "
                         "is)")


def _method_call(ev: Evaluator, op: Operation, base: Any, method: str, call: ast.Call) -> Any:
    """Methods of operation-scope objects: a semaphore's remote views."""
    if isinstance(base, Semaphore) and method in ("get_remote", "get_remote_multicast"):
        return remote_semaphore(ev, op.grid, base, method, call)
    return NotImplemented


def _semaphore(ev: Evaluator, op: Operation, call: ast.Call) -> Semaphore:
    kwargs = {kw.arg: kw.value for kw in call.keywords}
    if len(call.args) > 1 or set(kwargs) - {"initial_value", "value"} or \
            (call.args and kwargs):
        raise ev.error(call, "ttl.Semaphore takes its initial value (0 when left out)")
    given = call.args[0] if call.args else next(iter(kwargs.values()), None)
    initial = ev.known(given) if given is not None else 0
    if isinstance(initial, bool) or not isinstance(initial, int) or not 0 <= initial < 1 << 32:
        raise ev.error(call, f"a semaphore's initial value is an integer in [0, 2^32), got "
                             f"{describe(initial)}")
    sem = Semaphore("", initial, call)
    op.semaphores.append(sem)
    return sem


def remote_semaphore(ev: Evaluator, grid: tuple[int, int], sem: Semaphore, method: str,
                     call: ast.Call) -> RemoteSemaphore:
    """``sem.get_remote((x, y))`` / ``sem.get_remote_multicast([((x0, y0), (x1, y1))])``: nodes
    known when the kernel is read, inside the grid."""
    gx, gy = grid
    args = [ev.known(a) for a in call.args]
    if call.keywords:
        raise ev.error(call, f".{method}() takes its nodes as arguments")

    def node(v: Any) -> tuple[int, int] | None:
        if isinstance(v, tuple) and len(v) == 2 and all(
                isinstance(c, int) and not isinstance(c, bool) for c in v) and \
                0 <= v[0] < gx and 0 <= v[1] < gy:
            return v
        return None

    if method == "get_remote":
        core = node(args[0]) if len(args) == 1 else None
        if core is None:
            raise ev.error(call, f".get_remote((x, y)) takes one node inside the {gx} x {gy} "
                                 "grid, known when the kernel is read")
        return RemoteSemaphore(sem, core, None, call)
    if not args:
        return RemoteSemaphore(sem, None, ((0, 0), (gx - 1, gy - 1)), call)
    ends = args[0] if len(args) == 1 and isinstance(args[0], tuple) and len(args[0]) == 2 \
        else None
    first, last = (node(ends[0]), node(ends[1])) if ends else (None, None)
    if first is None or last is None or first[0] > last[0] or first[1] > last[1]:
        raise ev.error(call, f".get_remote_multicast() takes no range (the whole grid) or "
                             f"((x0, y0), (x1, y1)) with x0 <= x1, y0 <= y1 inside the {gx} x "
                             f"{gy} grid")
    return RemoteSemaphore(sem, None, (first, last), call)


def grid_size(ev: Evaluator, grid: tuple[int, int], call: ast.Call) -> Any:
    """ttl.grid_size(dims=N): the grid in N dimensions (tt-lang's spec, "Grid size"): dims=1 the
    number of nodes, dims=2 (x, y), more dims padded with ones; without dims, the grid's own
    rank (2 here)."""
    dims = {kw.arg: kw.value for kw in call.keywords}.get("dims")
    if dims is None and call.args:
        dims = call.args[0]
    d = ev.known(dims) if dims is not None else 2
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise ev.error(call, f"ttl.grid_size takes dims = 1, 2, 3, ..., got {describe(d)}")
    if d == 1:
        return grid[0] * grid[1]
    return tuple(grid) + (1,) * (d - 2)


def _pipe(ev: Evaluator, op: Operation, call: ast.Call) -> Pipe:
    kwargs = {kw.arg: kw.value for kw in call.keywords}
    nodes = list(call.args) + [kwargs[k] for k in ("src", "dst") if k in kwargs]
    if len(nodes) != 2 or set(kwargs) - {"src", "dst"}:
        raise ev.error(call, "ttl.Pipe takes src=(x, y) and dst=(x, y)")
    src, dst = ev.eval(nodes[0]), ev.eval(nodes[1])
    given_src = src
    gx, gy = op.grid if op is not None else (1 << 30, 1 << 30)  # a module's: the grid unknown
    linear_covers_source = []  # a 1-D range's answer: whether it names the source itself

    def linear(v, node):
        """A 1-D end (the node index x + y * columns, the spec's flattening) as (x, y); a range
        is a rectangle when it stays within one row, or when with the source (which a multicast
        skips) it is whole rows."""
        (c,) = v
        if isinstance(c, slice):
            source = given_src[0] if isinstance(given_src, tuple) and len(given_src) == 1 \
                else None
            linear_covers_source.append(isinstance(source, int) and c.start <= source < c.stop)
            nodes = set(range(c.start, c.stop)) | ({source} if isinstance(source, int) else set())
            r0, r1 = min(nodes, default=0) // gx, max(nodes, default=0) // gx
            if c.stop > c.start and nodes == set(range(r0 * gx, (r1 + 1) * gx)):
                return (slice(0, gx), slice(r0, r1 + 1))
            if c.stop <= c.start or c.start // gx != (c.stop - 1) // gx:
                raise ev.error(node, f"the 1-D range slice({c.start}, {c.stop}) crosses rows of "
                                     f"the {gx} x {gy} grid: write the end as (x, y) ranges")
            return (slice(c.start % gx, (c.stop - 1) % gx + 1), c.start // gx)
        if isinstance(c, int) and not isinstance(c, bool):
            return (c % gx, c // gx)
        return v

    def point(v, node, allow_slice):
        if isinstance(v, tuple) and len(v) == 1 and op is not None:
            v = linear(v, node)
        if not isinstance(v, tuple) or len(v) != 2:
            raise ev.error(node, f"a pipe end is (x, y), got {describe(v)}")
        for c in v:
            ok = isinstance(c, int) and not isinstance(c, bool) or \
                allow_slice and isinstance(c, slice)
            if not ok:
                raise ev.error(node, f"a pipe coordinate is {describe(c)}: known integers"
                                     + (" or slice(a, b)" if allow_slice else ""))
        return v

    src = point(src, nodes[0], False)
    dst = point(dst, nodes[1], True)
    first, last = [], []
    for c in dst:
        if isinstance(c, slice):
            if c.stop <= c.start:
                raise ev.error(nodes[1], f"slice({c.start}, {c.stop}) is empty")
            first.append(c.start)
            last.append(c.stop - 1)
        else:
            first.append(c)
            last.append(c)
    for (x, y), node in ((src, nodes[0]), (tuple(first), nodes[1]), (tuple(last), nodes[1])):
        if not (0 <= x < gx and 0 <= y < gy):
            raise ev.error(node, f"pipe end ({x}, {y}) is outside the grid of {gx} x {gy} nodes")
    inside = first[0] <= src[0] <= last[0] and first[1] <= src[1] <= last[1]
    receives = linear_covers_source[-1] if linear_covers_source else inside
    return Pipe((src[0], src[1]), (first[0], first[1]), (last[0], last[1]), call,
                receives and (first, last) != ([src[0], src[1]], [src[0], src[1]]))


def _buffer(ev: Evaluator, op: Operation, call: ast.Call) -> DataflowBuffer:
    factory = ttl_attr(call.func)
    if not call.args:
        raise ev.error(call, f"ttl.{factory} needs the "
                             f"{'data type' if factory == 'make_dfb' else 'tensor it is like'}")
    if factory == "make_dfb":  # spec 0.19: ttl.make_dfb(dtype, shape, block_count=2)
        like = TensorArg("", (), _dtype(ev, call.args[0]))
    else:
        like = ev.eval(call.args[0])
    if not isinstance(like, TensorArg):
        raise ev.error(call.args[0], f"ttl.{factory}'s first argument must be a tensor argument "
                                     f"of the operation, got {describe(like)}")
    kwargs = {kw.arg: kw.value for kw in call.keywords}
    if "allocation_group" in kwargs:  # spec 0.22's shared L1 for DFBs never live together
        raise ev.error(kwargs["allocation_group"], "DFB allocation groups are not supported: "
                                                   "ttlplan's L1 planner places every DFB by its "
                                                   "lifetime itself; leave allocation_group out")
    shape_node = kwargs.get("shape", call.args[1] if len(call.args) > 1 else None)
    if shape_node is None:
        raise ev.error(call, f"ttl.{factory} needs shape=(rows, cols) in tiles")
    shape = ev.eval(shape_node)
    if not isinstance(shape, tuple) or len(shape) < 2:
        raise ev.error(shape_node, f"shape must be (rows, cols) in tiles, or (batch, ..., rows, "
                                   f"cols), got {describe(shape)}")
    logical = shape
    folded = fold_batch(shape)
    if folded is None:
        bad = [s for s in shape[:-2] if isinstance(s, bool) or not isinstance(s, int) or s < 1]
        raise ev.error(shape_node, f"a batch dimension of a block is {describe(bad[0])}; it must "
                                   "be a positive integer known when the kernel is read" if bad
                       else "a block with batch entries needs its rows known when the kernel "
                            "is read")
    shape, batch = folded
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, (int, Sym)):
            raise ev.error(shape_node, f"a block dimension is {describe(s)}, not an integer")
        if isinstance(s, int) and s < 1:
            raise ev.error(shape_node, f"a block dimension is {s}; it must be at least 1")
    count_node = kwargs.get("block_count", kwargs.get("buffer_factor"))
    if count_node is None and len(call.args) > 2:
        count_node = call.args[2]
    count: Int | None = 2  # tt-lang's default
    if count_node is not None:
        count = ev.integer(count_node)
        if isinstance(count, int) and not 1 <= count <= 32:
            raise ev.error(count_node, f"block_count is {count}; tt-lang takes 1 to 32")
    buffer = DataflowBuffer("", like, (shape[0], shape[1]), count, call, batch, logical)
    op.buffers.append(buffer)
    return buffer


def _dtype(ev: Evaluator, node: ast.expr) -> str:
    """A data type named as tt-lang's ``make_dfb`` takes it: ``"bf16"``, ``ttnn.bfloat16``."""
    name = node.attr if isinstance(node, ast.Attribute) else ev.known(node)
    if not isinstance(name, str) or name not in DTYPES:
        raise ev.error(node, f"expected a data type (\"bf16\", ttnn.bfloat16, ttnn.float32, ...), "
                             f"got {ast.unparse(node)}")
    return DTYPES[name]
