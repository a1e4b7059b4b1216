"""A tt-lang Python file as a TTL module: one ``ttl.kernel`` per ``@ttl.operation``.

`translate(path, source, options)` reads the file (operation.py), translates each thread
(threads.py) and writes the module. The operation's tensor arguments become the kernel's
arguments, its dataflow buffers ``ttl.create_cb`` ops (in creation order, so CB indices follow
tt-lang's), its threads the kernel's threads in definition order (the first datamovement thread
is NOC 0, as in tt-lang). ``grid=(x, y)`` is TTL's ``grid = [y, x]``. Knobs named with ``--knob``
become ``ttl.param`` declarations.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .errors import FrontendError
from .operation import Operation, read_operations
from .threads import KernelContext, emit_thread
from .types import cb_type, tensor_type


@dataclass
class Options:
    args: dict[str, tuple[tuple[int, ...], str]] = field(default_factory=dict)
    knobs: dict[str, str] = field(default_factory=dict)  # NAME -> domain in TTL's syntax
    buffer_factor_auto: bool = False  # every DFB's block_count left to the planner (`?`)
    device_grid: tuple[int, int] = (8, 8)  # (x, y) nodes that grid="auto"/"full" means


def _loc(path: str, node) -> str:
    path = getattr(node, "source_path", path)  # a node of an imported file: its own
    quoted = path.replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{quoted}":{node.lineno}:{node.col_offset + 1})'


def translate(path: str, source: str, options: Options) -> str:
    """The TTL text of every operation in `source`; FrontendError when it cannot be read."""
    ops = read_operations(path, source, options.args, options.knobs, options.device_grid)
    lines = [f"// Translated by ttlplan from {path} (tt-lang Python); docs/python.md."]
    lines.append("module {")
    where = knob_definitions(ast.parse(source), options.knobs)
    for name, domain in options.knobs.items():
        if name not in where:
            raise FrontendError(path, 1, 1, f"--knob {name}: no module-level constant or "
                                            f"operation keyword argument is named {name}")
        lines.append(f"  ttl.param @{name} = {domain} {_loc(path, where[name])}")
    for op in ops:
        lines += _kernel(path, op, options)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _is_empty(fn: ast.FunctionDef) -> bool:
    """A thread whose body is only ``pass``, ``...`` or a docstring."""
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and
                                           isinstance(s.value, ast.Constant))
               for s in fn.body)


def _compile_only_ends(op: Operation, kernel: KernelContext) -> dict[int, str]:
    """tt-lang's compile-only kernels (test/python/signpost_scopes.py, auto_profile_*.py) leave
    every data-movement thread empty: the compute thread's DFBs have no producer (or consumer)
    in the file. Such an end is `outside` (docs/python.md): `plan` reports the kernel, while
    compile, run and tune refuse it instead of building a program that would wait forever."""
    movers = [t for t in op.threads if t.kind == "datamovement"]
    if not movers or not all(_is_empty(t.node) for t in movers):
        return {}
    ends: dict[int, str] = {}
    for buffer in op.buffers:
        acquired = kernel.acquired.get(id(buffer), set())
        if acquired == {"wait"}:
            ends[id(buffer)] = "producer"
        elif acquired == {"reserve"}:
            ends[id(buffer)] = "consumer"
    return ends


def knob_definitions(tree: ast.Module, knobs: dict[str, str]) -> dict[str, ast.AST]:
    """Where each knob is defined: its module-level assignment, or the operation's argument (so
    that tune --emit can say which line to change)."""
    out: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in knobs:
            out.setdefault(stmt.targets[0].id, stmt)
        if isinstance(stmt, ast.FunctionDef):
            for a in stmt.args.posonlyargs + stmt.args.args + stmt.args.kwonlyargs:
                if a.arg in knobs:
                    out.setdefault(a.arg, a)
    return out


def _kernel(path: str, op: Operation, options: Options) -> list[str]:
    kernel = KernelContext(options.buffer_factor_auto)
    for i, buffer in enumerate(op.buffers):
        kernel.cb_names[id(buffer)] = f"%{buffer.name or f'dfb{i}'}"
    names = [b.name for b in op.buffers]
    for b in op.buffers:
        if names.count(b.name) > 1:
            raise FrontendError.at(path, b.node, f"two dataflow buffers are named {b.name}")
    for i, sem in enumerate(op.semaphores):
        sem.name = sem.name or f"semaphore{i}"  # ttl.Semaphore().get_remote(...) unnamed
    body: list[str] = []
    computes = [t for t in op.threads if t.kind == "compute"]
    movers = [t for t in op.threads if t.kind == "datamovement"]
    if len(computes) > 1:
        raise FrontendError.at(path, computes[1].node, "an operation has at most one "
                                                       "@ttl.compute() thread")
    if len(movers) > 2:
        raise FrontendError.at(path, movers[2].node, "an operation has at most two "
                                                     "@ttl.datamovement() threads (NOC 0 and 1)")
    for thread in op.threads:
        body += emit_thread(path, op, kernel, thread)
    args = ", ".join(f"%{t.name}: {tensor_type(t)}" for t in op.args)
    gx, gy = op.grid
    attrs = "".join(f", {k} = {v}" for k, v in op.attributes.items())
    out = [f"  ttl.kernel @{op.name}({args}) attributes {{grid = [{gy}, {gx}]{attrs}}} {{"]
    for knob, ssa in kernel.params.items():
        out.append(f"    {ssa} = ttl.param_value @{knob} : index {_loc(path, op.node)}")
    missing = _compile_only_ends(op, kernel)
    for buffer in op.buffers:
        end = missing.get(id(buffer))
        attr = f' {{outside = "{end}"}}' if end else ""
        out.append(f"    {kernel.cb(buffer)} = ttl.create_cb{attr} : {cb_type(buffer, kernel)} "
                   f"{_loc(path, buffer.node)}")
    for sem in op.semaphores:
        out.append(f"    %{sem.name} = ttl.create_semaphore {{init = {sem.initial}}} : "
                   f"!ttl.semaphore {_loc(path, sem.node)}")
    out += body
    out.append(f"  }} {_loc(path, op.node)}")
    return out
