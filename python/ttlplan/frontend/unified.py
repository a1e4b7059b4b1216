"""Splitting a unified-body operation (tt-lang spec 0.19+) into a compute and a data-movement thread.

Since spec 0.19 an ``@ttl.operation`` may be one body: DFB declarations, acquisitions, copies and
math side by side, with the compiler assigning each statement to a thread. This module does that
assignment on the AST, following the rules of tt-lang's splitter (tenstorrent/tt-lang
``python/ttl/_src/atom_split.py`` @08d765a8 and its tests ``test/python/atom/test_atom_split.py``),
so that the existing thread translator (threads.py) compiles each part:

* resource declarations (``x = ttl.make_dfb(...)``, ``make_dataflow_buffer_like``, ``ttl.Pipe``,
  ``ttl.PipeNet``) at the top level run at operation scope, as in the multi-kernel form;
* ``ttl.copy`` (and ``ttl.read_index``, ``raw_element_*``) anchor a statement to data movement;
  ``.store``, ``ttl.math.*``, ``ttl.block.*``, tt-lang's compute functions, ``@`` and block
  arithmetic anchor it to compute;
* a block acquired with ``x = dfb.reserve()`` / ``dfb.wait()`` belongs to the one thread that uses
  it, and its acquisition and release go there;
* ``for``, ``while``, ``if`` and ``with`` go to every thread one of their statements goes to, each
  with its own part of the body; a statement with no anchor (integer arithmetic, ``ttl.node``) is
  copied into every thread;
* what tt-lang's compiler adds after splitting is added here too: the release of a block the body
  never pushes or pops (after its last use), and the wait of a copy whose handle is not kept.

Where ttlplan differs from tt-lang (docs/python.md, "Unified-body operations"): a bare block
expression statement (``t = a + b``) is compute, where tt-lang copies it into every thread and then
reports it; pipe callbacks run on the one data-movement thread, where tt-lang gives ``if_src`` its
own.
"""

from __future__ import annotations

import ast
import copy
import itertools
from dataclasses import dataclass, field
from typing import Any

from .errors import FrontendError
from .evaluate import ttl_attr

COMPUTE, DATAMOVEMENT = "compute", "datamovement"
BOTH = frozenset((COMPUTE, DATAMOVEMENT))
KERNEL_TEXT = {COMPUTE: "compute", DATAMOVEMENT: "data movement"}

# The callee names (last attribute) of tt-lang's resource declarations (atom_split.py).
RESOURCE_FACTORIES = {"make_dfb", "make_dataflow_buffer_like", "make_circular_buffer_like",
                      "make_tensor_backed_dfb", "Pipe", "PipeNet", "make_dfb_allocation_group"}
# ttl.X calls that are data movement.
DATAMOVEMENT_CALLS = {"copy", "read_index", "raw_element_read", "raw_element_write",
                      "element_read", "element_write"}
# ttl.X calls an operation with nothing to run may make: it reads where it runs.
NO_WORK_CALLS = {"node", "grid_size"}
# ttl.X calls that are compute, besides every ttl.math.* and ttl.block.* (atom_split's _TTL_OPS).
COMPUTE_CALLS = {"fill", "matmul", "reduce_sum", "reduce_max", "broadcast", "transpose", "exp",
                 "mul", "add", "sub", "div", "recip", "neg", "sqrt", "tanh", "log", "abs", "relu",
                 "sign", "sigmoid", "silu", "gelu", "max", "min", "rsqrt", "sin", "cos", "typecast"}


THREAD_DECORATORS = ("compute", "datamovement")


def is_thread_def(node: ast.AST) -> bool:
    """A def decorated ``*.compute`` or ``*.datamovement`` (tt-lang decides by the spelling)."""
    if not isinstance(node, ast.FunctionDef):
        return False
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else \
            target.id if isinstance(target, ast.Name) else None
        if name in THREAD_DECORATORS:
            return True
    return False


def is_unified(fn: ast.FunctionDef) -> bool:
    """tt-lang's dispatch: an operation is multi-kernel when any def nested in it, at any depth, is
    a thread def; otherwise it is one body."""
    return not any(node is not fn and is_thread_def(node) for node in ast.walk(fn))


def resource_call(value: ast.expr) -> bool:
    """``ttl.make_dfb(...)`` and the like, or a list (comprehension) of ``ttl.Pipe(...)``."""
    if isinstance(value, ast.Call):
        f = value.func
        last = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        return last in RESOURCE_FACTORIES
    if isinstance(value, ast.List):
        return bool(value.elts) and all(resource_call(e) for e in value.elts)
    if isinstance(value, ast.ListComp):
        return resource_call(value.elt)
    return False


def is_resource(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], ast.Name) and resource_call(stmt.value)


@dataclass
class Callee:
    """An operation another may compose (call as a statement): its def and the compile-time values
    it captures (a factory's parameters), which its expansion writes in as literals."""

    fn: ast.FunctionDef
    constants: dict[str, Any] = field(default_factory=dict)


def is_expand_only(fn: ast.FunctionDef, decorator: ast.expr) -> bool:
    """tt-lang's expand-only operations (spec 0.19): a unified one with no grid, or with a
    parameter annotated ttl.DFB / ttl.PipeNet. They run only where another operation calls them."""
    grid = isinstance(decorator, ast.Call) and any(kw.arg == "grid" and not (
        isinstance(kw.value, ast.Constant) and kw.value.value is None) for kw in decorator.keywords)
    annotated = any(_annotation(a.annotation) in ("DFB", "PipeNet")
                    for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs)
    return not grid or annotated


def _annotation(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.rsplit(".", 1)[-1]
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _literal(v: Any) -> ast.expr | None:
    """A captured compile-time value as an AST literal, None for one that is not plain."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return ast.Constant(v)
    if isinstance(v, tuple):
        elts = [_literal(e) for e in v]
        return None if any(e is None for e in elts) else ast.Tuple(elts, ast.Load())
    return None


@dataclass
class Split:
    """The statements that run at operation scope and the body of each thread."""

    resources: list[ast.stmt]
    threads: dict[str, list[ast.stmt]] = field(default_factory=dict)


def _acquire(value: ast.expr, buffers: set[str]) -> str | None:
    """'reserve' or 'wait' when `value` is ``D.reserve()`` / ``D.wait()`` of a declared DFB."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            value.func.attr in ("reserve", "wait") and isinstance(value.func.value, ast.Name) and \
            value.func.value.id in buffers and not value.args:
        return value.func.attr
    return None


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _call_kernel(call: ast.Call) -> str | None:
    """The thread a call pins its statement to, None for one that pins none."""
    name = ttl_attr(call.func)
    if name is not None:
        if name in DATAMOVEMENT_CALLS:
            return DATAMOVEMENT
        if name in COMPUTE_CALLS or name.startswith(("math.", "block.")):
            return COMPUTE
        return None
    if isinstance(call.func, ast.Attribute):
        if call.func.attr == "store":
            return COMPUTE
        if call.func.attr in ("if_src", "if_dst", "publish"):
            return DATAMOVEMENT
    return None


class Completion:
    """What tt-lang's compiler adds to a thread body (its ttl-insert-cb-sync and
    ttl-insert-copy-wait passes; tt-lang's simulator mirrors them in auto_push_pop.py): the
    push or pop of a block acquired by assignment and never released by hand, after its last use
    in its statement list; an inline acquisition (``ttl.copy(out_dfb.wait(), out[i, 0])``)
    acquired just before its statement and released just after; for a unified body, the wait of
    a copy whose handle is not kept."""

    def __init__(self, buffers: set[str], explicit_release: set[str], add_waits: bool):
        self.buffers = buffers  # the DFB names acquisitions are made from
        self.explicit_release = explicit_release  # blocks the body pushes or pops itself
        self.add_waits = add_waits
        self.fresh = 0

    def finish(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """`body` with inline acquisitions named, a wait after a copy whose handle is dropped (when
        add_waits), the release of each block the body never releases."""
        out: list[ast.stmt] = []
        for stmt in body:
            if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.FunctionDef)):
                stmt = copy.copy(stmt)
                stmt.body = self.finish(stmt.body)
                if getattr(stmt, "orelse", None):
                    stmt.orelse = self.finish(stmt.orelse)
                out.append(stmt)
            else:
                out += self.name_inline_acquisitions(stmt)
        if self.add_waits:
            out = [self.wait_dropped_copy(s) for s in out]
        return self.release_blocks(self.reserve_at_first_use(out))

    def reserve_at_first_use(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """``r1 = d.reserve(); r2 = d.reserve(); r1.store(..); r2.store(..)`` (tt-lang's
        test_auto_pop_push.py): each reserve not released by hand moved down to just before the
        first statement that uses its block, so that r1 is filled and pushed (after its last use)
        before r2 is reserved: TTL holds one block of a CB at a time. A reserve made later only
        waits less; the DFB's blocks keep their order, so a move that would put a reserve before
        an earlier one of its DFB, or past any other release of it, is not made."""
        out = list(body)

        def reserve(stmt: ast.stmt) -> tuple[str, str] | None:  # (block name, DFB name)
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name) and \
                    _acquire(stmt.value, self.buffers) == "reserve" and \
                    stmt.targets[0].id not in self.explicit_release and \
                    stmt.value.func.value.id not in self.explicit_release:
                return stmt.targets[0].id, stmt.value.func.value.id
            return None

        def first_use(i: int, name: str) -> int | None:
            return next((j for j in range(i + 1, len(out)) if _reads(out[j], name) or
                         _binds(out[j], name)), None)

        # Only the DFBs reserved again before a reserved block of theirs is used.
        crowded = set()
        for i, stmt in enumerate(out):
            if (r := reserve(stmt)) and (use := first_use(i, r[0])) is not None and \
                    any((o := reserve(out[j])) and o[1] == r[1] for j in range(i + 1, use)):
                crowded.add(r[1])
        for i in range(len(out) - 1, -1, -1):  # the last first: earlier ones then move past it
            r = reserve(out[i])
            if not r or r[1] not in crowded:
                continue
            use = first_use(i, r[0])
            if use is None or use == i + 1 or any(_reads(out[j], r[1]) for j in range(i + 1, use)):
                continue
            out.insert(use - 1, out.pop(i))  # now just before its first use
        return out

    def name_inline_acquisitions(self, stmt: ast.stmt) -> list[ast.stmt]:
        """``ttl.copy(out_dfb.wait(), out[0, 0])`` as ``b = out_dfb.wait()`` then the copy of b
        (released after it)."""
        if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.FunctionDef)):
            return [stmt]
        if isinstance(stmt, ast.Assign) and _acquire(stmt.value, self.buffers):
            return [stmt]
        before: list[ast.stmt] = []
        completion = self

        class Namer(ast.NodeTransformer):
            def visit_Call(self, node: ast.Call) -> ast.AST:
                self.generic_visit(node)
                if not _acquire(node, completion.buffers):
                    return node
                completion.fresh += 1
                # Not an identifier, so no user name can be it.
                name = f"{node.func.value.id}.{node.func.attr}#{completion.fresh}"
                target = ast.copy_location(ast.Name(name, ast.Store()), node)
                before.append(ast.copy_location(ast.Assign([target], node), stmt))
                return ast.copy_location(ast.Name(name, ast.Load()), node)

        new = Namer().visit(copy.deepcopy(stmt))
        return before + [new] if before else [stmt]

    def wait_dropped_copy(self, stmt: ast.stmt) -> ast.stmt:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                ttl_attr(stmt.value.func) == "copy":
            call = ast.copy_location(
                ast.Call(ast.copy_location(ast.Attribute(stmt.value, "wait", ast.Load()),
                                           stmt.value), [], []), stmt.value)
            return ast.copy_location(ast.Expr(call), stmt)
        return stmt

    def release_blocks(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out = list(body)
        for i in range(len(out) - 1, -1, -1):
            stmt = out[i]
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
                    isinstance(stmt.targets[0], ast.Name)):
                continue
            mode = _acquire(stmt.value, self.buffers)
            name = stmt.targets[0].id
            # A block the body releases itself, or one of a DFB the body pushes or pops directly
            # (the kernel era's ``cb.wait()`` ... ``cb.pop()``).
            if mode is None or name in self.explicit_release or \
                    stmt.value.func.value.id in self.explicit_release:
                continue
            last = i
            callbacks: set[str] = set()  # nested defs that read the block: used where passed
            # Values computed from the block (`s = blk + p`): a compute value is computed where
            # it is stored (threads.py recomputes it for a second store), so a read of one is a
            # read of the block.
            derived: set[str] = {name}
            rebound = False
            for j in range(i + 1, len(out)):
                if _binds(out[j], name):
                    if not _reads(out[j], name):
                        break
                    # `tx = ttl.copy(tx, out[0, 0])` reads the block and rebinds its name to the
                    # copy's handle, whose wait (`tx.wait()`) is then a read of the block too;
                    # the release then names the DFB (the block has no name left).
                    rebound = True
                if isinstance(out[j], ast.FunctionDef):
                    if _reads(out[j], name):
                        callbacks.add(out[j].name)
                    continue
                reads = any(_reads(out[j], d) for d in derived)
                derived -= {d for d in derived if d != name and not reads and _binds(out[j], d)}
                if reads or any(_reads(out[j], c) for c in callbacks):
                    last = j
                    if isinstance(out[j], ast.Assign) and len(out[j].targets) == 1 and \
                            isinstance(out[j].targets[0], ast.Name) and \
                            not _acquire(out[j].value, self.buffers):
                        derived.add(out[j].targets[0].id)
            method = "push" if mode == "reserve" else "pop"
            at = out[last]
            owner = stmt.value.func.value.id if rebound else name
            release = ast.Expr(ast.Call(ast.Attribute(ast.Name(owner, ast.Load()), method,
                                                      ast.Load()), [], []))
            for node in ast.walk(release):
                ast.copy_location(node, at)
            out.insert(last + 1, release)
        return out



def complete_thread(body: list[ast.stmt], buffers: set[str]) -> list[ast.stmt]:
    """A thread body of a multi-kernel operation with the releases tt-lang's compiler adds
    (Completion; the waits of dropped copy handles are not added there: a copy never waited for
    stays the verifier's located error)."""
    explicit = {_root(n.func.value) or "" for s in body for n in ast.walk(s)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                n.func.attr in ("push", "pop")}
    return Completion(buffers, explicit, add_waits=False).finish(body)


class Splitter:
    def __init__(self, path: str, fn: ast.FunctionDef,
                 composable: dict[str, Callee] | None = None):
        self.path = path
        self.fn = fn
        self.composable = composable or {}
        self.expansions = 0
        self.buffers: set[str] = set()
        self.owner: dict[str, str] = {}  # a produced block's name -> its thread
        self.explicit_release: set[str] = set()  # blocks the body pushes or pops itself

    def error(self, node: ast.AST, message: str) -> FrontendError:
        return FrontendError.at(self.path, node, message)

    # --- What each statement is ------------------------------------------------------------

    def producers(self, body: list[ast.stmt]) -> dict[str, list[ast.AST]]:
        """Names bound to ``D.reserve()`` / ``D.wait()`` anywhere in the body (defs excluded),
        with their acquisitions."""
        out: dict[str, list[ast.AST]] = {}
        for node in _walk_scope(body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Name) and _acquire(node.value, self.buffers):
                out.setdefault(node.targets[0].id, []).append(node)
            if isinstance(node, ast.With):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name) and \
                            _acquire(item.context_expr, self.buffers):
                        out.setdefault(item.optional_vars.id, []).append(item.context_expr)
        return out

    def infer_owners(self, body: list[ast.stmt], produced: dict[str, list[ast.AST]]) -> None:
        uses: dict[str, dict[str, ast.AST]] = {n: {} for n in produced}

        def use(name: str | None, kernel: str, at: ast.AST) -> None:
            if name in uses:
                uses[name].setdefault(kernel, at)

        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call):
                    kernel = _call_kernel(node)
                    if isinstance(node.func, ast.Attribute) and node.func.attr == "store":
                        use(_root(node.func.value), COMPUTE, node)
                    if isinstance(node.func, ast.Attribute) and node.func.attr in ("push", "pop"):
                        self.explicit_release.add(_root(node.func.value) or "")
                    if kernel is not None:  # the blocks it takes (not those of calls inside)
                        for a in list(node.args) + [k.value for k in node.keywords]:
                            use(_root(a), kernel, node)
                elif isinstance(node, ast.BinOp):
                    for side in (node.left, node.right):
                        use(_root(side), COMPUTE, node)
                elif isinstance(node, ast.AugAssign):
                    use(_root(node.target), COMPUTE, node)
                    use(_root(node.value), COMPUTE, node)
        for name, kernels in uses.items():
            at = produced[name][0]
            if len(kernels) > 1:
                (k1, n1), (k2, n2) = sorted(kernels.items())
                raise self.error(n2, f"the block '{shown(name)}' is used by compute (line "
                                     f"{kernels[COMPUTE].lineno}) and by data movement (line "
                                     f"{kernels[DATAMOVEMENT].lineno}); each reserve() or wait() "
                                     "belongs to one thread: store into one DFB, then copy out "
                                     "of another, e.g. ttl.copy(out_dfb.wait(), out[...])")
            if not kernels:
                raise self.error(at, f"the block '{shown(name)}' is acquired but never used: copy into "
                                     "or out of it, or store into it")
            self.owner[name] = next(iter(kernels))

    def selection(self, stmt: ast.stmt) -> frozenset:
        """The threads a statement goes to: those its work is pinned to, else (no work) both."""
        return self.pinned(stmt) or BOTH

    def pinned(self, stmt: ast.stmt) -> frozenset:
        """The threads a statement's work is pinned to; empty for one without work (integer
        arithmetic, ttl.node), which goes wherever its enclosing statement goes."""
        if isinstance(stmt, (ast.For, ast.While, ast.If)):
            inner = frozenset().union(*(self.pinned(s) for s in stmt.body + stmt.orelse))
            header = self.anchors(stmt.iter if isinstance(stmt, ast.For) else stmt.test, stmt)
            if header and inner - header:
                raise self.error(stmt, f"this {type(stmt).__name__.lower()} statement's header "
                                       f"is {KERNEL_TEXT[next(iter(header))]} but its body has "
                                       f"{KERNEL_TEXT[next(iter(inner - header))]} work: compute "
                                       "the condition in the thread that needs it")
            return header or inner
        if isinstance(stmt, ast.With):
            owners = set()
            for item in stmt.items:
                owners |= self.anchors(item.context_expr, stmt)
                if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id in self.owner:
                    owners.add(self.owner[item.optional_vars.id])
            inner = frozenset().union(*(self.pinned(s) for s in stmt.body))
            if len(owners) > 1:
                raise self.error(stmt, "this with statement acquires blocks of compute and of "
                                       "data movement: acquire them in separate with statements")
            if owners and inner - owners:
                raise self.error(stmt, f"this with statement acquires a "
                                       f"{KERNEL_TEXT[next(iter(owners))]} block but its body "
                                       f"has {KERNEL_TEXT[next(iter(inner - owners))]} work: move "
                                       "that work out of the with block")
            return frozenset(owners) or inner
        if isinstance(stmt, ast.FunctionDef):  # a pipe callback
            return frozenset().union(*(self.pinned(s) for s in stmt.body))
        return self.anchors(stmt, stmt)

    def anchors(self, node: ast.AST, stmt: ast.stmt) -> frozenset:
        """The threads what `node` calls or reads pins it to; more than one is an error."""
        found: dict[str, ast.AST] = {}
        for sub in ast.walk(node):
            kernel = None
            if isinstance(sub, ast.Call):
                kernel = _call_kernel(sub)
            elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.MatMult):
                kernel = COMPUTE
            elif isinstance(sub, ast.Name) and sub.id in self.owner:
                kernel = self.owner[sub.id]
            if kernel is not None:
                found.setdefault(kernel, sub)
        if len(found) > 1:
            raise self.error(stmt, f"this statement mixes compute (the "
                                   f"{_what(found[COMPUTE])}) and data movement (the "
                                   f"{_what(found[DATAMOVEMENT])}); each statement runs in one "
                                   "thread: split it into two statements with a DFB between them")
        return frozenset(found)

    # --- Each thread's body ------------------------------------------------------------------

    def part(self, body: list[ast.stmt], kernel: str, where: ast.AST) -> list[ast.stmt]:
        out = []
        for stmt in body:
            if kernel not in self.selection(stmt):
                continue
            if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.FunctionDef)):
                stmt = copy.copy(stmt)
                stmt.body = self.part(stmt.body, kernel, stmt)
                if hasattr(stmt, "orelse"):
                    stmt.orelse = self.part(stmt.orelse, kernel, stmt) if stmt.orelse else []
            out.append(stmt)
        return out or [ast.copy_location(ast.Pass(), where)]

    # --- Composition: an operation called as a statement is expanded in place ----------------

    def expand(self, body: list[ast.stmt], stack: list[str]) -> tuple[list, list]:
        """`body` with every composed call expanded: (the resource declarations the expansions
        bring, to go to the top of the operation, and the statements)."""
        resources, out = [], []
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                    isinstance(stmt.value.func, ast.Name) and \
                    stmt.value.func.id in self.composable:
                more, statements = self.inline(stmt.value, stack)
                resources += more
                out += statements
                continue
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                        node.func.id in self.composable and \
                        not isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):
                    raise self.error(node, f"a call of the operation {node.func.id} composes it "
                                           "only as a statement of its own (it returns nothing)")
            if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):
                stmt = copy.copy(stmt)
                more, stmt.body = self.expand(stmt.body, stack)
                resources += more
                if getattr(stmt, "orelse", None):
                    more, stmt.orelse = self.expand(stmt.orelse, stack)
                    resources += more
            out.append(stmt)
        return resources, out

    def inline(self, call: ast.Call, stack: list[str]) -> tuple[list, list]:
        name = call.func.id
        callee = self.composable[name]
        caller = stack[-1]
        if name in stack:
            raise self.error(call, f"operation {caller} composes {name}, which composes it: "
                                   "operations may not compose themselves")
        if not is_unified(callee.fn):
            raise self.error(call, f"{name} defines its own threads: only operations written as "
                                   "one body compose")
        fn = callee.fn
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
        given: dict[str, str] = {}
        if len(call.args) > len(params):
            raise self.error(call, f"{name} takes {len(params)} arguments, given "
                                   f"{len(call.args)}")
        for param, arg in zip(params, call.args):
            given[param] = arg
        for kw in call.keywords:
            if kw.arg is None:
                raise self.error(kw.value, f"composing {name}: ** unpacking is not read; name "
                                           "each argument")
            if kw.arg not in params:
                raise self.error(kw.value, f"{name} has no parameter {kw.arg}")
            if kw.arg in given:
                raise self.error(kw.value, f"{name}'s argument {kw.arg} is given twice")
            given[kw.arg] = kw.value
        missing = [p for p in params if p not in given]
        if missing:
            raise self.error(call, f"composing {name} into {caller}: no value for "
                                   f"{', '.join(missing)}")
        self.expansions += 1
        prefix = f"{name}-{self.expansions}-"
        # An argument that is an expression (mcast(net, x[0:1, k:k + n], stage, dst), tt-lang's
        # op library) is bound to a name of the expansion first, evaluated where the call is.
        bindings = []
        for param, arg in list(given.items()):
            if not isinstance(arg, ast.Name):
                target = ast.copy_location(ast.Name(prefix + param, ast.Store()), arg)
                bindings.append(ast.copy_location(ast.Assign([target], arg), call))
                given[param] = ast.copy_location(ast.Name(prefix + param, ast.Load()), arg)
        body = [s for s in copy.deepcopy(fn.body)
                if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        inner_resources, body = self.expand(body, stack + [name])
        body = inner_resources + body
        local = set(_all_bound(body))
        for p in params:
            if p in local:
                raise self.error(call, f"{name} assigns its parameter {p}; composing it would "
                                       "assign the caller's value: use a name of its own")
        renames = {p: given[p].id for p in params}
        renames.update({n: prefix + n for n in local})
        body = [_Renamer(renames, callee.constants).visit(s) for s in body]
        for s in body:
            ast.fix_missing_locations(s)
        resources = [s for s in body if is_resource(s)]
        return resources, bindings + [s for s in body if not is_resource(s)]

    # --- The split ---------------------------------------------------------------------------

    def split(self) -> Split:
        resources, body = [], []
        hoisted, statements = self.expand(list(self.fn.body), [self.fn.name])
        for stmt in hoisted + statements:
            if is_resource(stmt):
                resources.append(stmt)
                self.buffers.add(stmt.targets[0].id)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # a docstring
            else:
                body.append(stmt)
        for node in _walk_scope(body):
            if isinstance(node, ast.Assign) and resource_call(node.value):
                raise self.error(node, "a DFB or pipe declaration must be a simple assignment at "
                                       "the top of the operation body, not inside a loop, branch "
                                       "or with block (tt-lang's rule for unified operations)")
            if isinstance(node, ast.Return):
                raise self.error(node, "an operation body does not return a value: write its "
                                       "results into its output tensors")
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    ttl_attr(node.value.func) == "copy":
                raise self.error(node, "a unified operation does not keep a copy's handle: write "
                                       "ttl.copy(...).wait() as one statement, or ttl.copy(...) "
                                       "alone (the wait is added after it)")
        body = copy.deepcopy(body)  # blocks bound twice are renamed in place
        produced = self.producers(body)
        for name, acquisitions in produced.items():
            if len(acquisitions) > 1:
                _rename_bindings(body, name, itertools.count(1))
        self.infer_owners(body, self.producers(body))
        split = Split(resources)
        parts = {k: self.part(body, k, self.fn) for k in (DATAMOVEMENT, COMPUTE)}
        self.check_values(parts)
        for kernel, part in parts.items():
            if self.has_work(part, kernel):
                split.threads[kernel] = Completion(self.buffers, self.explicit_release,
                                                   add_waits=True).finish(part)
        if not split.threads:
            # Nothing to move or compute (the spec's ttl.node and ttl.grid_size examples only
            # read their coordinates): one empty data-movement thread, so the plan says so. A
            # ttl call the splitter placed nowhere (ttl.call_extern_func, ttl.Kernel) is not
            # nothing: it is refused where it is.
            for node in ast.walk(ast.Module(body, [])):
                name = ttl_attr(node.func) if isinstance(node, ast.Call) else None
                if name is not None and name not in NO_WORK_CALLS:
                    raise self.error(node, f"ttl.{name} is not supported by ttlplan's front end "
                                           "(docs/python.md lists what is)")
            split.threads[DATAMOVEMENT] = [ast.copy_location(ast.Pass(), self.fn)]
        return split

    def has_work(self, part: list[ast.stmt], kernel: str) -> bool:
        """Whether a statement of the thread is pinned to it (not only copied into it)."""
        for stmt in part:
            if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.FunctionDef)):
                if self.selection(stmt) == frozenset((kernel,)) or \
                        self.has_work(stmt.body + getattr(stmt, "orelse", []), kernel):
                    return True
            elif self.selection(stmt) == frozenset((kernel,)):
                return True
        return False

    def check_values(self, parts: dict[str, list[ast.stmt]]) -> None:
        """Threads share data only through DFBs: a name one thread's statements alone compute
        that the other reads is an error (tt-lang: 'produced for ... but consumed by ...')."""
        bound = {k: _bound_names(p, self.selection, k) for k, p in parts.items()}
        for kernel, part in parts.items():
            other = DATAMOVEMENT if kernel == COMPUTE else COMPUTE
            mine = set(_all_bound(part))
            for stmt in part:
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                            node.id not in mine and node.id in bound[other]:
                        raise self.error(node, f"'{node.id}' is computed by "
                                               f"{KERNEL_TEXT[other]} (line "
                                               f"{bound[other][node.id]}) but read by "
                                               f"{KERNEL_TEXT[kernel]}: threads share values "
                                               "only through dataflow buffers")


class _Renamer(ast.NodeTransformer):
    """An expanded operation's names: its parameters become the caller's arguments, its own names
    NAME-N-own (no Python name can be one), its captured compile-time values literals."""

    def __init__(self, renames: dict[str, str], constants: dict[str, Any]):
        self.renames = renames
        self.constants = constants

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.renames:
            node.id = self.renames[node.id]
        elif isinstance(node.ctx, ast.Load) and node.id in self.constants:
            lit = _literal(self.constants[node.id])
            if lit is not None:
                return ast.copy_location(lit, node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.renames.get(node.name, node.name)
        for a in node.args.args:
            a.arg = self.renames.get(a.arg, a.arg)
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        for a in node.args.args:
            a.arg = self.renames.get(a.arg, a.arg)
        self.generic_visit(node)
        return node


def shown(name: str) -> str:
    """A block's name as the user wrote it (one bound several times is renamed NAME@N)."""
    return name.split("@")[0]


def _rename_bindings(body: list[ast.stmt], name: str, counter) -> None:
    """Gives every acquisition bound to `name` a name of its own, NAME@N (no Python name can be
    it), and the reads it reaches the same: a block's thread is then that of its own uses, as
    tt-lang decides it per acquisition."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name:
            new = f"{name}@{next(counter)}"
            stmt.targets[0].id = new
            _rename_reads(body[i + 1:], name, new)
        if isinstance(stmt, ast.With):
            for item in stmt.items:
                if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == name:
                    new = f"{name}@{next(counter)}"
                    item.optional_vars.id = new
                    _rename_reads(stmt.body, name, new)
        for field_name in ("body", "orelse"):
            inner = getattr(stmt, field_name, None)
            if isinstance(inner, list) and not isinstance(stmt, ast.FunctionDef):
                _rename_bindings(inner, name, counter)


def _rename_reads(body: list[ast.stmt], old: str, new: str) -> bool:
    """Renames the reads of `old` in `body` up to its next binding; True when one was met."""
    for stmt in body:
        if isinstance(stmt, ast.With) and any(
                isinstance(i.optional_vars, ast.Name) and i.optional_vars.id == old
                for i in stmt.items):
            for item in stmt.items:
                _rename_in(item.context_expr, old, new)
            return True
        if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):
            for header in ([stmt.iter] if isinstance(stmt, ast.For) else
                           [stmt.test] if isinstance(stmt, (ast.While, ast.If)) else
                           [i.context_expr for i in stmt.items]):
                _rename_in(header, old, new)
            _rename_reads(stmt.body, old, new)
            _rename_reads(getattr(stmt, "orelse", []), old, new)
            continue
        if isinstance(stmt, ast.Assign) and _binds(stmt, old):
            _rename_in(stmt.value, old, new)
            return True
        _rename_in(stmt, old, new)
    return False


def _rename_in(node: ast.AST, old: str, new: str) -> None:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == old and isinstance(sub.ctx, ast.Load):
            sub.id = new


def _what(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return f"call {ast.unparse(node.func)}(...)"
    if isinstance(node, ast.BinOp):
        return "@ product"
    if isinstance(node, ast.Name):
        return f"block {shown(node.id)}"
    return ast.unparse(node)


def _walk_scope(body: list[ast.stmt]):
    """Every node of `body`, not entering nested defs and lambdas."""
    work = list(reversed(body))
    while work:
        node = work.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            continue
        work.extend(reversed(list(ast.iter_child_nodes(node))))


def _binds(stmt: ast.stmt, name: str) -> bool:
    """Whether `stmt` binds `name` anew (``blk += x`` accumulates into the block: no)."""
    updated = {id(n.target) for n in ast.walk(stmt) if isinstance(n, ast.AugAssign)}
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and
               id(n) not in updated for n in ast.walk(stmt))


def _reads(stmt: ast.stmt, name: str) -> bool:
    """Whether `stmt` uses `name` (``blk += x`` uses blk)."""
    return any(isinstance(n, ast.Name) and n.id == name and
               (isinstance(n.ctx, ast.Load) or
                any(isinstance(a, ast.AugAssign) and a.target is n for a in ast.walk(stmt)))
               for n in ast.walk(stmt))


def _all_bound(part: list[ast.stmt]) -> list[str]:
    return [n.id for s in part for n in ast.walk(s)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)] + \
        [n.name for s in part for n in ast.walk(s) if isinstance(n, ast.FunctionDef)] + \
        [a.arg for s in part for n in ast.walk(s) if isinstance(n, (ast.FunctionDef, ast.Lambda))
         for a in n.args.args]


def _bound_names(part: list[ast.stmt], selection, kernel: str) -> dict[str, int]:
    """Names that statements of `part` pinned to this thread alone bind, with their lines."""
    out: dict[str, int] = {}

    def visit(stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if isinstance(s, ast.Pass):
                continue
            if isinstance(s, (ast.For, ast.While, ast.If, ast.With)) and selection(s) == BOTH:
                visit(s.body)
                visit(getattr(s, "orelse", []))
                continue
            if selection(s) == frozenset((kernel,)):
                for n in ast.walk(s):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        out.setdefault(n.id, s.lineno)

    visit(part)
    return out


def split_operation(path: str, fn: ast.FunctionDef,
                    composable: dict[str, Callee] | None = None) -> Split:
    return Splitter(path, fn, composable).split()
