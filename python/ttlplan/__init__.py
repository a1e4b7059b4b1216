"""ttlplan from Python: plan, cost, tune, compile and run TTL kernels and tt-lang Python kernels.

    import ttlplan
    report = ttlplan.plan("examples/eltwise_add.ttl")          # the dict of `ttlplan plan --json`
    best = ttlplan.tune("kernel.py", args={"a": "2048x2048:bf16", ...},
                        knobs={"GRANULARITY": "1,2,4,8"}, buffer_factor="auto")
    ttlplan.run(text=ttl_text)                                 # TTL given as text

Each function takes the kernel as a path (a `.ttl` file or a tt-lang `.py` kernel) or as TTL
`text=`, and the options of the `ttlplan` command of the same name (docs/python.md lists them).
It returns the command's JSON document as a dict (plan: docs/schema/plan.schema.json, tune:
tune.schema.json, cost: the cost report), and raises ttlplan.Error, which carries the structured
error (its kind, its located diagnostics, the text ttlplan would print), for anything the command
would report as an error. The functions run the driver library in this process (the _ttlplan
extension); ``python3 -m ttlplan`` is the command line.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

__all__ = ["Error", "plan", "cost", "tune", "compile", "run", "print_ttl"]


class Error(Exception):
    """A ttlplan error: `kind` (usage, input, infeasible, io, build), `message`, `diagnostics`
    (dicts with severity, file, line, column, message, notes), `text` (what ttlplan prints) and,
    for a kernel that does not fit, `infeasible` (the planner's reason, as plan --json has it)."""

    def __init__(self, document: dict):
        self.kind: str = document.get("kind", "input")
        self.message: str = document.get("message", "")
        self.diagnostics: list[dict] = document.get("diagnostics", [])
        self.text: str = document.get("text", "")
        self.infeasible: dict | None = document.get("infeasible")
        super().__init__(self.text.strip() or self.message)


def _native():
    try:
        import _ttlplan  # the extension, installed beside this package
    except ImportError as e:
        raise ImportError("ttlplan's extension module _ttlplan is not on the Python path: build "
                          "ttlplan with pybind11-dev installed and install it (cmake --install), "
                          f"or add the build's python/ folder to PYTHONPATH ({e})") from None
    return _ttlplan


def _options(args=None, knobs=None, bind=None, **rest) -> dict:
    """Keyword arguments as the extension reads them: args/knobs/bind dicts as their flags."""
    out: dict[str, Any] = {k: v for k, v in rest.items() if v is not None}
    if args:
        out["args"] = [f"{name}={_shape(spec)}" for name, spec in args.items()] \
            if isinstance(args, dict) else list(args)
    if knobs:
        out["knobs"] = [f"{name}={_domain(d)}" for name, d in knobs.items()] \
            if isinstance(knobs, dict) else list(knobs)
    if bind:
        out["bind"] = ",".join(f"{k}={v}" for k, v in bind.items()) if isinstance(bind, dict) \
            else str(bind)
    return out


def _shape(spec) -> str:
    """"2048x2048:bf16", or ((2048, 2048), "bf16"), or (2048, 2048)."""
    if isinstance(spec, str):
        return spec
    if len(spec) == 2 and isinstance(spec[1], str):
        return "x".join(str(d) for d in spec[0]) + ":" + spec[1]
    return "x".join(str(d) for d in spec)


def _domain(d) -> str:
    if isinstance(d, str):
        return d
    return ",".join(str(v) for v in d)


def _call(name: str, kernel, text: str | None, *extra, **options) -> dict:
    if (kernel is None) == (text is None):
        raise TypeError(f"ttlplan.{name}: give the kernel's path or text=, not both")
    fn = getattr(_native(), name)
    with tempfile.TemporaryDirectory(prefix="ttlplan-py-") as scratch:
        if text is not None:
            kernel = os.path.join(scratch, "kernel.ttl")
            with open(kernel, "w", encoding="utf-8") as f:
                f.write(text)
        document = json.loads(fn(os.fspath(kernel), *extra, _options(**options)))
    if isinstance(document, dict) and set(document) == {"error"}:
        raise Error(document["error"])
    return document


def plan(kernel=None, *, text=None, **options) -> dict:
    """`ttlplan plan --json`: the plan of every kernel (CBs in L1, indices, DST, pipes, cost).
    Options: device, device_file, grid, bind, config, db, args, knobs, buffer_factor."""
    return _call("plan", kernel, text, **options)


def cost(kernel=None, *, text=None, **options) -> dict:
    """`ttlplan cost --json`: each kernel's predicted device time and its trade-offs."""
    return _call("cost", kernel, text, **options)


def tune(kernel=None, *, text=None, **options) -> dict:
    """`ttlplan tune --json`: the search's space, counts, best points and pick. Also: strategy,
    budget_evals, time_limit, threads, seed, top, db_out (the tuning db to write)."""
    return _call("tune", kernel, text, **options)


def compile(kernel=None, output=None, *, text=None, **options) -> dict:  # noqa: A001
    """`ttlplan compile -o OUTPUT`: the generated files ({"files": [{"path", "written"}]}).
    target="metal" (default) or "emulator"."""
    if output is None:
        raise TypeError("ttlplan.compile: output= names the folder the files go to")
    return _call("compile", kernel, text, os.fspath(output), **options)


def run(kernel=None, *, text=None, **options) -> dict:
    """`ttlplan run`: build against the emulator, run, compare every argument with the reference
    ({"passed", "arguments": [...]}). Also: seed, inputs, dump, work_dir, timeout."""
    return _call("run", kernel, text, **options)


def print_ttl(kernel=None, *, text=None, **options) -> str:
    """`ttlplan print`: the kernel as TTL (a Python kernel's translation)."""
    return _call("print", kernel, text, **options)["ttl"]
