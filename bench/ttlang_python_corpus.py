#!/usr/bin/env python3
"""How much of tt-lang's real Python code ttlplan reads, plans and runs (issue 40).

usage: ttlang_python_corpus.py DIR [DIR ...] [--ttlplan PATH] [--json OUT] [--jobs N]
                               [--timeout S] [--no-run] [--list]

Every ``*.py`` under each DIR (a tt-lang checkout, or a folder of tt-lang files) that uses ``ttl``
is one kernel file. For each, this runs ``ttlplan print`` (read), ``ttlplan plan`` (planned) and,
where the file's host code gives every tensor's shape, ``ttlplan run`` (ran on the emulator
against the reference; each of a file's kernels with ``--kernel NAME``, all of them passing). The shapes come from the file's own host code
(``ttlplan.frontend.hostshapes``: the tensors the script or its pytest functions pass to the
operation), else from a ``KERNEL.ttlplan.toml`` sidecar beside it, else from this project's
sidecar for that path under bench/ttlang_sidecars/ (tt-lang's op library has no host code: the
shapes there are ours, chosen to pass each factory's own checks); a file with none is read and
planned with the shapes unknown, which fails as a user would see it.

Files are grouped by the spec generation they are written in (found from the syntax):

  kernel-era    ``ttl.kernel`` / ``ttl.core`` / ``make_circular_buffer_like`` (before 0.13)
  multi-kernel  ``@ttl.operation`` with nested ``@ttl.compute``/``@ttl.datamovement`` (0.13-0.18)
  unified       ``@ttl.operation``/``@ttl.atom`` as one body (0.19+)
  error         kernels written to be refused: ``examples/errors/``, ``test/python/invalid/``,
                ``*_invalid.py`` (counted as refused, and refused at the documented line when
                the file documents one: a FileCheck snippet line, or ``INTENTIONAL ERROR``)
  multi-device  a program over a mesh of devices (``ttnn.open_mesh_device``, a fabric mesh,
                ``ShardTensorToMesh``), whatever its generation: reported on its own row, outside
                the single-device figures the issue's targets are stated for

and the first error of every failure is grouped by cause (the message with its location,
quoted names and numbers taken out). The corpus itself stays outside the repository.
"""

from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
from ttlplan.frontend.hostshapes import UNKNOWN, Tensor, host_calls  # noqa: E402

GENERATIONS = ["kernel-era", "multi-kernel", "unified", "error", "multi-device"]
SINGLE_DEVICE = GENERATIONS[:3]
# This project's shapes for tt-lang files without host code (its op library).
SIDECARS = HERE / "ttlang_sidecars"
# A program over a mesh of devices (the targets are for single-device kernels).
MULTI_DEVICE = re.compile(r"open_mesh_device|open_fabric_mesh|ShardTensorToMesh|MeshShape\(")
SKIP_NAMES = {"conftest.py", "__init__.py", "setup.py"}


def generation(path: Path, tree: ast.Module | None, text: str) -> str | None:
    """The spec generation a file is written in, or None when it defines no kernel."""
    parts = path.parts
    if "errors" in parts or "invalid" in parts or path.stem.endswith("_invalid") or \
            path.stem.startswith("invalid_"):
        return "error"
    # The kernel era's decorator and calls (0.19's module ttl.kernel, imported for its Kernel
    # selectors, is not one).
    if re.search(r"@ttl\.kernel\b|\bttl\.core\(|make_circular_buffer_like|ttl\.Program\(",
                 text):
        return "kernel-era"
    if tree is None:
        return "unified" if "ttl.operation" in text else None
    kinds = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        names = {_decorator(d) for d in fn.decorator_list}
        if names & {"operation", "atom"}:
            nested = any(isinstance(n, ast.FunctionDef) and
                         {_decorator(d) for d in n.decorator_list} & {"compute", "datamovement"}
                         for n in ast.walk(fn) if n is not fn)
            kinds.add("multi-kernel" if nested else "unified")
    if not kinds:
        return None
    return "multi-kernel" if "multi-kernel" in kinds else "unified"


def _decorator(dec: ast.expr) -> str | None:
    target = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Name):
        return target.id
    return None


def documented_line(text: str) -> int | None:
    """The line a refused kernel documents as the error's: a FileCheck snippet line
    (``[[LINE]] | source text``) found in the file, else the line after an ``INTENTIONAL ERROR``
    comment."""
    lines = text.splitlines()
    for m in re.finditer(r"#\s*CHECK(?:-NEXT)?:\s*\[\[LINE(?::[^\]]*)?\]\]\s*\|\s*(.+)", text):
        snippet = m.group(1).strip()
        for i, line in enumerate(lines, 1):
            if snippet and snippet in line and not line.lstrip().startswith("#"):
                return i
    for i, line in enumerate(lines, 1):
        if "INTENTIONAL ERROR" in line and i < len(lines) and not lines[i].lstrip().startswith("#"):
            return i + 1
    return None


def cause(message: str) -> str:
    """An error message with what varies between files taken out, to group failures."""
    m = re.sub(r"^.*?:\d+:\d+: error: ", "", message.strip())
    m = re.sub(r"^ttlplan: error: ", "", m)
    m = re.sub(r"'[^']*'", "'_'", m)
    m = re.sub(r"`[^`]*`", "`_`", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:140]


def first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error:" in line:
            return line.strip()
    return stderr.strip().splitlines()[0] if stderr.strip() else "(no message)"


def run(cmd: list[str], timeout: float, out: list[str] | None = None) -> tuple[int, str]:
    """The exit status and stderr of `cmd` (its stdout appended to `out` when given)."""
    try:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"ttlplan: error: did not finish in {timeout:.0f} s"
    if out is not None:
        out.append(done.stdout.decode("utf-8", "replace"))
    return done.returncode, done.stderr.decode("utf-8", "replace")


MAX_KERNELS_RUN = 8  # a file's kernels run one by one (run --kernel), at most this many


def sidecar_flags(relative: Path) -> list[str]:
    """The flags of bench/ttlang_sidecars/RELATIVE.ttlplan.toml, this project's shapes for a
    tt-lang file that has no host code (its op library), as --args and --knob."""
    side = SIDECARS / relative.with_suffix(".ttlplan.toml")
    if not side.is_file():
        return []
    with open(side, "rb") as f:
        data = tomllib.load(f)
    flags = []
    if data.get("args"):
        flags += ["--args", ",".join(f"{k}={v}" for k, v in data["args"].items())]
    for k, v in data.get("knobs", {}).items():
        flags += ["--knob", f"{k}={v}"]
    return flags


def run_kernels(path: Path, plan_output: str, args, tmp: str,
                flags: list[str]) -> tuple[int, str, int]:
    """`ttlplan run` on each kernel the plan printed: (status, stderr of the first failure,
    kernels run)."""
    names = re.findall(r"^kernel @(\S+) \(", plan_output, re.M)[:MAX_KERNELS_RUN]
    for name in names or [None]:
        cmd = [args.ttlplan, "run", str(path), "--dump", os.path.join(tmp, f"dump-{name}"),
               *flags]
        if len(names) > 1:
            cmd += ["--kernel", name]
        code, err = run(cmd, args.timeout)
        if code != 0:
            return code, err, len(names)
    return 0, "", len(names)


def examine(path: Path, root: Path, args) -> dict | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not re.search(r"^\s*(import ttl\b|from ttl\b|import ttlang\b|from ttlang\b)", text, re.M):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    gen = generation(path.relative_to(root), tree, text)
    if gen is None:
        return None
    rec = {"file": str(path.relative_to(root)), "root": str(root), "generation": gen}
    if gen != "error" and MULTI_DEVICE.search(text):
        rec["generation"] = "multi-device"
    # ttlplan takes each operation's shapes from the file's own calls itself; here they only say
    # whether the file is runnable (every argument of its best-known call is known).
    calls = host_calls(text)
    best = max(calls, key=lambda c: sum(isinstance(v, Tensor) for v in c.args.values()),
               default=None)
    tensors_known = best is not None and all(v is not UNKNOWN for v in best.args.values()) and \
        any(isinstance(v, Tensor) for v in best.args.values())
    rec["shapes"] = "host code" if tensors_known else "unknown"
    if best is not None:
        rec["operation"] = best.operation
    flags: list[str] = []
    if not tensors_known and path.with_suffix(".ttlplan.toml").exists():
        rec["shapes"] = "sidecar"
        tensors_known = True
    elif not tensors_known and (ours := sidecar_flags(path.relative_to(root))):
        rec["shapes"] = "bench sidecar"
        tensors_known, flags = True, ours
    with tempfile.TemporaryDirectory(prefix="ttlang-corpus-") as tmp:
        code, err = run([args.ttlplan, "print", str(path), "-o", os.devnull, *flags],
                        args.timeout)
        rec["read"] = code == 0
        plan_output: list[str] = []
        if code == 0:
            code, err = run([args.ttlplan, "plan", str(path), *flags], args.timeout,
                            plan_output)
            rec["planned"] = code == 0
        else:
            rec["planned"] = False
        if rec["planned"] and tensors_known and not args.no_run and gen != "error":
            code, err, rec["kernels"] = run_kernels(path, "".join(plan_output), args, tmp,
                                                    flags)
            rec["ran"] = code == 0
        else:
            rec["ran"] = None if gen == "error" or not tensors_known or args.no_run else False
    rec["exit"] = code
    if code != 0:
        rec["error"] = first_error(err)
        rec["cause"] = cause(rec["error"])
    if gen == "error":
        line = documented_line(text)
        rec["documented_line"] = line
        m = re.match(r".*?:(\d+):\d+: error:", rec.get("error", ""))
        rec["refused"] = code == 1
        rec["refused_at_line"] = bool(code == 1 and line and m and int(m.group(1)) == line)
    return rec


def report(records: list[dict]) -> str:
    out = ["| generation | files | read | planned | ran / runnable |", "|---|---:|---:|---:|---:|"]
    for gen in GENERATIONS:
        rs = [r for r in records if r["generation"] == gen]
        if not rs:
            continue
        if gen == "error":
            documented = [r for r in rs if r.get("documented_line")]
            out.append(f"| error (refused; at the documented line) | {len(rs)} | "
                       f"{sum(r['refused'] for r in rs)} refused | "
                       f"{sum(r['refused_at_line'] for r in rs)} of {len(documented)} "
                       "with a documented line | |")
            continue
        runnable = [r for r in rs if r["ran"] is not None]
        pct = lambda n: f"{n} ({100 * n / len(rs):.0f} %)"  # noqa: E731
        out.append(f"| {gen} | {len(rs)} | {pct(sum(r['read'] for r in rs))} | "
                   f"{pct(sum(r['planned'] for r in rs))} | "
                   f"{sum(bool(r['ran']) for r in runnable)} / {len(runnable)} |")
    single = [r for r in records if r["generation"] in SINGLE_DEVICE]
    if single:
        planned = sum(r["planned"] for r in single)
        out.append(f"\nall single-device kernels (not error kernels): {planned} of {len(single)} plan "
                   f"({100 * planned / len(single):.0f} %)")
        # tt-lang's op library (python/ttl/ops/): factories with no host code of their own, so
        # their shapes come only from --args or a sidecar; the corpus is examples/,
        # test/python/ and the spec's examples.
        library = [r for r in single if r["file"].startswith("python/")]
        if library:
            rest = [r for r in single if not r["file"].startswith("python/")]
            lp, rp = sum(r["planned"] for r in library), sum(r["planned"] for r in rest)
            out.append(f"of them tt-lang's library (python/, no host code): {lp} of "
                       f"{len(library)} plan; the rest (examples/, test/python/, the spec's "
                       f"examples): {rp} of {len(rest)} ({100 * rp / len(rest):.0f} %)")
            for gen in SINGLE_DEVICE:
                rs = [r for r in rest if r["generation"] == gen]
                if rs:
                    n = sum(r["planned"] for r in rs)
                    out.append(f"  {gen} without the library: {n} of {len(rs)} "
                               f"({100 * n / len(rs):.0f} %)")
    causes = collections.Counter(r["cause"] for r in records
                                 if r.get("cause") and r["generation"] in SINGLE_DEVICE)
    if causes:
        out.append("\nfirst error of each failure, by cause:\n")
        out.append("| files | cause | e.g. |")
        out.append("|---:|---|---|")
        for c, n in causes.most_common(40):
            example = next(r for r in records if r.get("cause") == c)
            out.append(f"| {n} | {c.replace('|', '/')} | {example['file']} |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--ttlplan", default=str(HERE.parent / "build" / "tools" / "ttlplan"))
    parser.add_argument("--json", type=Path, help="write every file's record here")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--no-run", action="store_true", help="read and plan only")
    parser.add_argument("--list", action="store_true", help="print one line per file too")
    args = parser.parse_args()
    if not os.access(args.ttlplan, os.X_OK):
        parser.error(f"--ttlplan {args.ttlplan} is not an executable (build ttlplan first)")
    files = []
    for d in args.dirs:
        if not d.is_dir():
            parser.error(f"{d} is not a folder")
        files += [(p, d) for p in sorted(d.rglob("*.py")) if p.name not in SKIP_NAMES]
    print(f"corpus: {len(files)} .py files under {', '.join(map(str, args.dirs))}",
          file=sys.stderr)
    records = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(examine, p, d, args) for p, d in files]
        for n, f in enumerate(futures, 1):
            rec = f.result()
            if rec:
                records.append(rec)
            if n % 25 == 0:
                print(f"  {n}/{len(files)} files", file=sys.stderr)
    if args.list:
        for r in records:
            state = "ran" if r["ran"] else "planned" if r["planned"] else \
                "read" if r["read"] else "refused" if r["generation"] == "error" else "failed"
            print(f"{r['generation']:12s} {state:8s} {r['file']}  {r.get('error', '')[:160]}")
    print(report(records))
    if args.json:
        args.json.write_text(json.dumps(records, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
