"""Module-level helper functions an operation calls at operation scope (``_even_split(n, 8)``,
``get_large_matmul_params(M, N, K)``): evaluated, not run.

tt-lang kernels compute their block counts and splits with small pure functions over integers.
The front end evaluates such a call by interpreting the helper's body with the same evaluator as
the operation scope: assignments, ``if``, ``for`` over a range or a known sequence, ``while``,
``assert`` and ``return`` on known values. Every loop iteration counts against the evaluator's
budget and calls nest at most MAX_DEPTH deep, so a helper can neither hang the front end nor
recurse without end; anything else in the body (I/O, imports, attribute stores) is a located error
at the helper's line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from .errors import FrontendError

MAX_DEPTH = 32


@dataclass(frozen=True)
class Helper:
    """A module-level function the evaluator may call: its def and the module's names."""

    fn: ast.FunctionDef
    globals: dict[str, Any]

    @property
    def name(self) -> str:
        return f"the function {self.fn.name}"


class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _loop_body(ev, body: list[ast.stmt]) -> bool:
    """One iteration; False when it breaks out of the loop."""
    try:
        _block(ev, body)
    except _Continue:
        pass
    except _Break:
        return False
    return True


def call_helper(ev, helper: Helper, node: ast.Call) -> Any:
    """`helper(args)` evaluated: the value its body returns (None when it returns nothing)."""
    from .evaluate import Evaluator

    depth = getattr(ev, "depth", 0)
    if depth >= MAX_DEPTH:
        raise ev.error(node, f"helper calls nest more than {MAX_DEPTH} deep here")
    fn = helper.fn
    args = fn.args
    if args.vararg or args.kwarg or args.posonlyargs:
        raise ev.error(node, f"{fn.name}() has *args, **kwargs or positional-only parameters, "
                             "which the front end does not evaluate")
    params = [a.arg for a in args.args + args.kwonlyargs]
    values: dict[str, Any] = {}
    if len(node.args) > len(args.args):
        raise ev.error(node, f"{fn.name}() takes {len(args.args)} positional arguments, given "
                             f"{len(node.args)}")
    for a, v in zip(args.args, node.args):
        values[a.arg] = ev.eval(v)
    for kw in node.keywords:
        if kw.arg is None or kw.arg not in params or kw.arg in values:
            raise ev.error(kw, f"{fn.name}() gets {kw.arg or '**'} wrongly")
        values[kw.arg] = ev.eval(kw.value)
    local = Evaluator(ev.path, dict(helper.globals), ev.ttl_call)
    local.budget = ev.budget  # one budget for the whole evaluation
    local.depth = depth + 1
    positional_defaults = dict(zip([a.arg for a in args.args][len(args.args) - len(args.defaults):],
                                   args.defaults))
    kw_defaults = {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    for p in params:
        if p not in values:
            default = positional_defaults.get(p, kw_defaults.get(p))
            if default is None:
                raise ev.error(node, f"{fn.name}() needs its argument {p}")
            values[p] = local.eval(default)
    local.env.update(values)
    try:
        _block(local, fn.body)
    except _Return as r:
        return r.value
    except FrontendError as e:
        if depth:
            raise
        # Located in the helper's body, where it fails; the kernel's call is named too.
        raise FrontendError(e.path, e.line, e.col, f"{e.message} (in {fn.name}(), called at "
                                                    f"line {node.lineno})") from None
    return None


def _block(ev, body: list[ast.stmt]) -> None:
    for stmt in body:
        _statement(ev, stmt)


def _statement(ev, stmt: ast.stmt) -> None:
    from .evaluate import describe

    if isinstance(stmt, ast.Return):
        raise _Return(ev.eval(stmt.value) if stmt.value is not None else None)
    if isinstance(stmt, ast.Assign):
        value = ev.eval(stmt.value)
        for target in stmt.targets:
            bind(ev, target, value)
        return
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        combined = ast.copy_location(
            ast.BinOp(ast.copy_location(ast.Name(stmt.target.id, ast.Load()), stmt), stmt.op,
                      stmt.value), stmt)
        ev.env[stmt.target.id] = ev.eval(combined)
        return
    if isinstance(stmt, ast.If):
        _block(ev, stmt.body if ev.known(stmt.test) else stmt.orelse)
        return
    if isinstance(stmt, ast.While):
        while ev.known(stmt.test):
            _tick(ev, stmt)
            if not _loop_body(ev, stmt.body):
                break
        return
    if isinstance(stmt, ast.For):
        it = stmt.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and 1 <= len(it.args) <= 3 and not it.keywords:
            bounds = [ev.known(a) for a in it.args]
            if any(isinstance(b, bool) or not isinstance(b, int) for b in bounds) or \
                    (len(bounds) == 3 and bounds[2] == 0):
                raise ev.error(it, "range() takes known integers (and a step that is not 0)")
            sequence = range(*bounds)
        else:
            sequence = ev.eval(it)
        if not isinstance(sequence, (range, tuple, list)):
            raise ev.error(stmt.iter, f"a helper's for loop runs over range(...) or a known "
                                      f"sequence, not {describe(sequence)}")
        for item in sequence:
            _tick(ev, stmt)
            bind(ev, stmt.target, item)
            if not _loop_body(ev, stmt.body):
                break
        return
    if isinstance(stmt, (ast.Break, ast.Continue)):
        raise _Break() if isinstance(stmt, ast.Break) else _Continue()
    if isinstance(stmt, ast.Assert):
        if not ev.known(stmt.test):
            raise ev.error(stmt, "this assert fails for the given arguments")
        return
    if isinstance(stmt, ast.Raise):
        raise ev.error(stmt, "the helper raises here for the given arguments")
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return  # a docstring
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
            call.func.attr in ("append", "extend") and isinstance(call.func.value, ast.Name) and \
            len(call.args) == 1 and not call.keywords:
        target = ev.env.get(call.func.value.id)  # pipes.append(ttl.Pipe(...)) on a helper's list
        if not isinstance(target, list):
            raise ev.error(call, f"{call.func.value.id}.{call.func.attr}() needs a list the "
                                 f"helper made, not {describe(target)}")
        item = ev.eval(call.args[0])
        if call.func.attr == "extend" and not isinstance(item, (list, tuple, range)):
            raise ev.error(call.args[0], f"extend() takes a sequence, not {describe(item)}")
        target.extend(item) if call.func.attr == "extend" else target.append(item)
        return
    if isinstance(stmt, ast.Pass):
        return
    raise ev.error(stmt, f"{type(stmt).__name__} statements in a helper function are not "
                         "evaluated (the front end evaluates assignments, if, for, while, assert "
                         "and return on known values, break, continue and list.append/extend)")


def _tick(ev, stmt: ast.stmt) -> None:
    from .evaluate import MAX_ITERATIONS

    ev.budget[0] -= 1
    if ev.budget[0] < 0:
        raise ev.error(stmt, f"loops ran more than {MAX_ITERATIONS} iterations; the front end "
                             "stops here")


def bind(ev, target: ast.expr, value: Any, on_name=None) -> None:
    """``target = value`` in the evaluator's names (tuples unpacked); `on_name(name, value)` sees
    each name bound."""
    from .evaluate import describe

    if isinstance(target, ast.Name):
        ev.env[target.id] = value
        if on_name is not None:
            on_name(target.id, value)
        return
    if isinstance(target, (ast.Tuple, ast.List)):
        if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
            raise ev.error(target, f"cannot unpack {describe(value)} into {len(target.elts)} names")
        for t, v in zip(target.elts, value):
            bind(ev, t, v, on_name)
        return
    raise ev.error(target, "only names and tuples of names may be assigned here")
