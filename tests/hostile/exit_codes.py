#!/usr/bin/env python3
"""Every command ends with exit 0, 1 or 2 on any input (issue 14): a sweep through the CLI.

Mutates the shipped examples and test inputs deterministically (truncation, byte flips, deleted
and repeated lines, integer literals replaced by extreme values such as 2^63 - 1, 2^64 and -2^63,
control bytes) and runs each mutant through print, print --generic, verify, plan, cost, lower,
compile and tune, and through three passes of the lowering pipeline run alone (`lower --pipeline
P`); CSV mutants through alloc. The examples are also lowered part way (`lower --pipeline` up to
plan, apply-plan, expand-threads, lower-compute) and those texts mutated too, so that the
attributes the passes write (ttl.bind_cb, ttl.work_ranges, ...) arrive hand-made and wrong.
A run fails the sweep when it

  - exits with a status other than 0, 1 or 2, or is killed by a signal;
  - does not finish within its time limit (a hang);
  - prints a sanitizer report, "terminate called" or an assertion failure;
  - prints an error line with a doubled prefix ("error: ... error:").

The fuzzers (tests/fuzz/) call the library below the driver; this checks the executable itself.
Usage: exit_codes.py TTLPLAN SOURCE_ROOT [--mutants N] [--seed S] [--jobs J] [--keep DIR]
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXTREME_INTEGERS = ["0", "-1", "1", "2147483648", "4294967296", "9223372036854775807",
                    "9223372036854775808", "-9223372036854775808", "99999999999999999999"]
BAD_OUTPUT = re.compile(r"Sanitizer|runtime error:|terminate called|Assertion .* failed|"
                        r"std::bad_alloc|Segmentation fault")
DOUBLED_PREFIX = re.compile(r"error:.*\berror:")
TIME_LIMIT_S = 120  # a hang guard: every run here takes well under a second normally
PIPELINE = ["import-ttlang", "verify", "infer-pipe-semaphores", "insert-sync", "plan",
            "apply-plan", "infer-dst", "expand-threads", "lower-compute", "lower-data-movement",
            "lower-sync"]
STAGES = ["plan", "apply-plan", "expand-threads", "lower-compute"]


def mutate(text: bytes, rng: random.Random) -> bytes:
    """One deterministic mutation of `text`."""
    kind = rng.randrange(6)
    if not text:
        return b"\x00"
    if kind == 0:  # truncation
        return text[:rng.randrange(len(text))]
    if kind == 1:  # byte flips
        data = bytearray(text)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    lines = text.split(b"\n")
    if kind == 2:  # a deleted line
        del lines[rng.randrange(len(lines))]
        return b"\n".join(lines)
    if kind == 3:  # a repeated line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return b"\n".join(lines)
    if kind == 4:  # an integer literal replaced by an extreme value
        numbers = list(re.finditer(rb"(?<![\w.])\d+(?![\w.])", text))
        if not numbers:
            return text + b"\x01"
        m = rng.choice(numbers)
        return text[:m.start()] + rng.choice(EXTREME_INTEGERS).encode() + text[m.end():]
    # control bytes and a long line
    i = rng.randrange(len(text))
    return text[:i] + bytes(rng.choice([0, 7, 27, 127, 255]) for _ in range(3)) + b"x" * 5000 + \
        text[i:]


def commands(path: Path, out_dir: Path, is_csv: bool, rng: random.Random):
    p = str(path)
    if is_csv:
        return [["alloc", p, "--time-limit", "1", "-o", "/dev/null"],
                ["alloc", p, "--capacity", "1024", "--solver", "cbc", "--time-limit", "1",
                 "-o", "/dev/null"]]
    return [["print", p], ["print", "--generic", p], ["verify", p],
            ["plan", p, "--time-limit", "2"], ["cost", p, "--time-limit", "2"],
            ["lower", p, "--time-limit", "2"],
            ["compile", p, "--time-limit", "2", "-o", str(out_dir / (path.stem + "_out"))],
            ["tune", p, "--budget-evals", "3", "--time-limit", "5", "--threads", "1", "--quiet"]] + \
        [["lower", p, "--pipeline", stage, "--time-limit", "2"]
         for stage in rng.sample(PIPELINE[2:], 3)]


def staged_seeds(ttlplan: str, examples, work: Path):
    """Each example lowered up to each of STAGES (those that lower cleanly)."""
    out = []
    for example in examples:
        for stage in STAGES:
            prefix = ",".join(PIPELINE[:PIPELINE.index(stage) + 1])
            done = subprocess.run([ttlplan, "lower", str(example), "--pipeline", prefix],
                                  stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=TIME_LIMIT_S)
            if done.returncode == 0 and done.stdout:
                seed = work / "stages" / f"{example.stem}.{stage}.ttl"
                seed.parent.mkdir(exist_ok=True)
                seed.write_bytes(done.stdout)
                out.append(seed)
    return out


def run_one(ttlplan: str, args, label: str):
    try:
        done = subprocess.run([ttlplan, *args], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        return f"{label}: ttlplan {' '.join(args)}: did not finish in {TIME_LIMIT_S} s"
    output = (done.stdout + done.stderr).decode("utf-8", "replace")
    if done.returncode not in (0, 1, 2):
        return (f"{label}: ttlplan {' '.join(args)}: exit {done.returncode}\n"
                f"{output[-2000:]}")
    bad = BAD_OUTPUT.search(output)
    if bad:
        return f"{label}: ttlplan {' '.join(args)}: printed '{bad.group(0)}'\n{output[-2000:]}"
    for line in done.stderr.decode("utf-8", "replace").splitlines():
        if DOUBLED_PREFIX.search(line):
            return f"{label}: ttlplan {' '.join(args)}: doubled error prefix: {line[:300]}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ttlplan")
    parser.add_argument("source_root", type=Path)
    parser.add_argument("--mutants", type=int, default=3, help="mutants per seed file")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--keep", type=Path, help="copy each failing input into this folder")
    args = parser.parse_args()

    root = args.source_root
    seeds = sorted(root.glob("examples/*.ttl")) + sorted(root.glob("tests/hostile/*.ttl")) + \
        sorted(root.glob("tests/hostile/*.mlir"))
    csv_seeds = sorted(root.glob("tests/hostile/*.csv")) + sorted(p for p in root.glob("tests/planner/alloc/*.csv") if "expected" not in p.name)
    rng = random.Random(args.seed)
    failures = []
    runs = 0
    with tempfile.TemporaryDirectory(prefix="ttlplan-exit-codes-") as tmp:
        work = Path(tmp)
        seeds += staged_seeds(args.ttlplan, sorted(root.glob("examples/*.ttl")), work)
        jobs = []
        for seed_file in seeds + csv_seeds:
            text = seed_file.read_bytes()
            is_csv = seed_file.suffix == ".csv"
            for k in range(args.mutants):
                mutant = work / f"{seed_file.stem}_{k}{seed_file.suffix}"
                mutant.write_bytes(mutate(text, rng))
                name = seed_file.relative_to(root) if seed_file.is_relative_to(root) else \
                    f"{seed_file.name} (lowered)"
                for cmd in commands(mutant, work, is_csv, rng):
                    jobs.append((cmd, f"{name} mutant {k}", mutant))
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for job, result in zip(jobs, pool.map(lambda j: run_one(args.ttlplan, *j[:2]), jobs)):
                runs += 1
                if result:
                    failures.append(result)
                    if args.keep:
                        args.keep.mkdir(parents=True, exist_ok=True)
                        shutil.copy(job[2], args.keep)
    for f in failures:
        print(f"FAIL {f}\n")
    print(f"exit_codes: {runs} runs on {len(seeds) + len(csv_seeds)} seed files x {args.mutants} "
          f"mutants (seed {args.seed}): {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
