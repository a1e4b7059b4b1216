"""Names a kernel file imports from the Python files beside it (``from utils import
get_large_matmul_params``, tt-lang's op library's ``from ttl.ops.mcast import mcast``).

A module is looked for as a file: relative imports from the file's folder, absolute ones in the
file's folder and each folder above it, or in a ``python/`` folder of one of them (``ttl.ops.mcast``
is ``ttl/ops/mcast.py`` under one of them; tt-lang's examples import ``utils`` from the checkout's
``python/``), as Python finds them when the kernel runs from its checkout. The packages tt-lang runs
on (``ttl``, ``ttnn``, ``torch``, ...) are never read this way. Every node of an imported file
carries ``source_path``, so that an error in it names that file (errors.FrontendError.at).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from typing import Any

RUNTIME_MODULES = {"ttl", "ttnn", "torch", "numpy", "pytest", "ttlang", "typing", "math", "os",
                   "sys", "functools", "itertools", "dataclasses", "collections"}
MAX_FOLDERS_UP = 8


@dataclass
class Imported:
    """What a file imports: constants and helper functions by name (for the operation scope and
    threads) and operations another may compose (also those its imports import)."""

    constants: dict[str, Any] = field(default_factory=dict)
    operations: dict[str, tuple[ast.FunctionDef, dict[str, Any]]] = field(default_factory=dict)


def module_file(path: str, module: str | None, level: int) -> str | None:
    """The file an ``import`` of `module` (`level` dots) from the file at `path` reads, if any."""
    if not module or module.split(".")[0] in RUNTIME_MODULES and level == 0 and \
            "." not in module:
        return None
    rel = module.replace(".", os.sep)
    here = os.path.dirname(os.path.abspath(path))
    if level > 0:
        for _ in range(level - 1):
            here = os.path.dirname(here)
        folders = [here]
    else:
        folders = [here]
        for _ in range(MAX_FOLDERS_UP):
            parent = os.path.dirname(folders[-1])
            if parent == folders[-1]:
                break
            folders.append(parent)
    if level == 0:  # a checkout's python/ folder (tt-lang's python/utils, python/ttl)
        folders += [os.path.join(f, "python") for f in folders]
    for folder in folders:
        for candidate in (os.path.join(folder, rel + ".py"),
                          os.path.join(folder, rel, "__init__.py")):
            if os.path.isfile(candidate) and os.path.abspath(candidate) != os.path.abspath(path):
                return candidate
    return None


def ttl_member(name: str) -> Any:
    """`ttl.name` as the evaluator reads it: a known member, else the function to call."""
    from .evaluate import TTL_MODULE, TtlFunction
    return TTL_MODULE.members.get(name, TtlFunction(name))


def read_imports(path: str, tree: ast.Module, module_constants, is_operation,
                 seen: set[str] | None = None) -> Imported:
    """The names `tree` (the file at `path`) imports with ``from M import a, b as c``."""
    seen = seen if seen is not None else {os.path.abspath(path)}
    out = Imported()
    for stmt in tree.body:
        if not isinstance(stmt, ast.ImportFrom):
            continue
        other = module_file(path, stmt.module, stmt.level)
        if other is None and _is_ttl(path, stmt):
            # from ttl import Pipe (or tt-lang's own `from ..pipe import Pipe`): ttl.Pipe.
            for alias in stmt.names:
                out.constants[alias.asname or alias.name] = ttl_member(alias.name)
            continue
        if other is None or os.path.abspath(other) in seen:
            continue
        seen.add(os.path.abspath(other))
        try:
            with open(other, encoding="utf-8") as f:
                other_tree = ast.parse(f.read(), filename=other)
        except (OSError, SyntaxError, ValueError):
            continue  # not readable: its names stay unknown, an error where they are used
        for node in ast.walk(other_tree):
            node.source_path = other  # type: ignore[attr-defined]
        nested = read_imports(other, other_tree, module_constants, is_operation, seen)
        constants = with_imports(module_constants(other, other_tree, {}), nested)
        operations = {fn.name: fn for fn in other_tree.body
                      if isinstance(fn, ast.FunctionDef) and is_operation(fn)}
        plain = {k: v for k, v in constants.items() if _plain(v)}
        # What the imported operations compose is theirs to find: all of them, by name.
        out.operations.update(nested.operations)
        out.operations.update({n: (fn, plain) for n, fn in operations.items()})
        for alias in stmt.names:
            name, bound = alias.name, alias.asname or alias.name
            if name in operations:
                out.operations[bound] = (operations[name], plain)
            elif name in constants:
                out.constants[bound] = constants[name]
    return out


def with_imports(constants: dict[str, Any], imported: Imported) -> dict[str, Any]:
    """A module's constants with what it imports added in place (its helper functions hold that
    dict as their globals); its own definitions win."""
    for name, value in imported.constants.items():
        constants.setdefault(name, value)
    return constants


def _is_ttl(path: str, stmt: ast.ImportFrom) -> bool:
    """An import of tt-lang's `ttl` package: ``from ttl import X``, ``from ttl.sub import X``,
    or a relative import inside a ``ttl`` package folder (its op library)."""
    if stmt.level == 0:
        return stmt.module is not None and stmt.module.split(".")[0] == "ttl"
    return "ttl" in os.path.abspath(path).split(os.sep)[:-1]


def _plain(v: Any) -> bool:
    if isinstance(v, (tuple, list)):
        return all(_plain(x) for x in v)
    return v is None or isinstance(v, (bool, int, float, str))
