#!/usr/bin/env python3
"""A fuzzing harness for the Python front end (issue 29): mutated tt-lang kernels (lines deleted,
duplicated or swapped, tokens replaced by hostile ones: `while True:`, huge ranges, deep
parentheses, recursion, wrong decorators) must each end in exit status 0, 1 or 2 within the time
limit, with at most one error line and never a traceback or an "internal error". With TTLPLAN,
every mutant the front end accepts is also given to `ttlplan verify`, which must not crash.

usage: fuzz_frontend.py [--iterations N] [--seed S] [--ttlplan PATH]
"""
import argparse
import io
import os
import random
import signal
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from ttlplan.frontend.__main__ import main  # noqa: E402

# What a mutation may put in place of a token or a line.
HOSTILE = [
    "while True:", "range(1000000000000)", "(" * 3000 + "1" + ")" * 3000, "f(f(f(1)))",
    "@ttl.operation", "@ttl.compute", "ttl.copy(", "lambda: 0", "[i for i in x]", "**",
    "-(-", "//", "0", "-1", "1e308", "None", "'s'", "a.shape[7]", "ttl.node(dims=3)",
    "yield", "await x", "import os", "os.system('true')", "__import__('os')", "def g(): g()",
    "x.wait()", "blk.store(", "with", "as", "ttl.Pipe(src=(0, 0), dst=(9, 9))", "global x",
    # Issue 40's constructs: transposes, division, batch dimensions, size-1 dimensions.
    "ttl.math.transpose(", "transpose_rhs=True", "a / b", "x[0, 0:2, 0:1]", "shape=(2, 2, 1)",
    "shape=(0, 1, 1)", "ttl.block.unsqueeze(", "dims=[7]", "acc = acc + ",
]

SECONDS_PER_CASE = 10


class CaseTimeout(BaseException):
    """Raised by the alarm: not an Exception, so the front end's own handlers do not catch it."""


def mutate(rng, lines):
    lines = list(lines)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        kind = rng.randrange(5)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3:
            words = lines[i].split(" ")
            words[rng.randrange(len(words))] = rng.choice(HOSTILE)
            lines[i] = " ".join(words)
        else:
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            lines.insert(i, indent + rng.choice(HOSTILE))
        if not lines:
            lines = ["x = 1"]
    return lines


def run_case(path, flags):
    out, err = io.StringIO(), io.StringIO()

    def alarm(signum, frame):
        raise CaseTimeout()

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(SECONDS_PER_CASE)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            status = main([path, *flags])
    except CaseTimeout:
        return None, "", "timed out"
    except SystemExit as e:  # argparse
        status = e.code
    finally:
        signal.alarm(0)
    return status, out.getvalue(), err.getvalue()


def main_fuzz():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--ttlplan")
    ns = parser.parse_args()
    rng = random.Random(ns.seed)
    examples = sorted((ROOT / "examples" / "python").glob("*.py")) + [
        ROOT / "tests" / "run" / name for name in ("transpose.py", "divide.py", "batch_3d.py")]
    failures, accepted, verified = [], 0, 0
    with tempfile.TemporaryDirectory() as work:
        for n in range(ns.iterations):
            example = rng.choice(examples)
            lines = mutate(rng, example.read_text().splitlines())
            path = os.path.join(work, f"mutant{n}.py")
            Path(path).write_text("\n".join(lines) + "\n")
            side = Path(example.with_suffix("").as_posix() + ".ttlplan.toml")
            if side.exists():  # the tests/run seeds give their shapes in their host code
                Path(path[:-3] + ".ttlplan.toml").write_text(side.read_text())
            status, out, err = run_case(path, [])
            problem = None
            if status not in (0, 1, 2):
                problem = f"exit status {status}: {err.strip()}"
            elif "Traceback" in err or "internal error" in err:
                problem = err.strip()
            elif len(err.strip().splitlines()) > 1:
                problem = f"more than one error line:\n{err}"
            elif status == 0:
                accepted += 1
                if ns.ttlplan:
                    ttl = path[:-3] + ".ttl"
                    Path(ttl).write_text(out)
                    done = subprocess.run([ns.ttlplan, "verify", ttl], capture_output=True,
                                          text=True, timeout=120)
                    verified += 1
                    if done.returncode not in (0, 1) or "internal" in done.stderr:
                        problem = f"ttlplan verify exited {done.returncode}: {done.stderr[-2000:]}"
            if problem:
                kept = os.path.join(work, "..", f"fuzz_frontend_failure_{n}.py")
                failures.append(f"case {n} (from {example.name}, kept as {kept}): {problem}")
                Path(kept).write_text("\n".join(lines) + "\n")
    print(f"{ns.iterations} mutants: {accepted} accepted ({verified} verified by ttlplan), "
          f"{len(failures)} failures")
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main_fuzz())
