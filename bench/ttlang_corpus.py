#!/usr/bin/env python3
"""How much of tt-lang's own lit tests ttlplan reads (issue 29, item 6). Each file is split at
`// -----`; cases holding `expected-error` (tests of tt-lang's verifier) are left out.

1. A file reads when `ttlplan print` reads every other case; files with no other case are not
   counted (the target: at least 95 %).
2. Each case read is printed, in custom and in generic form, and the printed text read again: it
   must print back the same.
3. The cases with tt-lang thread functions and no `ttl.launch_grid` (threads on their own) that
   `ttlplan plan` plans, with the first error of each that does not, by kind.

The corpus is tenstorrent/tt-lang's `test/ttlang` tree, e.g. from a clone:
    git -C tt-lang archive HEAD test/ttlang | tar -x -C /tmp/ttlang-lit

usage: python3 bench/ttlang_corpus.py /tmp/ttlang-lit/test/ttlang [--ttlplan build/tools/ttlplan]
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cases(path):
    with open(path) as f:
        text = f.read()
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if "expected-error" not in c]


def ttlplan(exe, *args):
    return subprocess.run([exe, *args], capture_output=True, text=True)


def first_error(stderr, keep_names=False):
    """The first error's message; names replaced by X to group them, unless `keep_names`."""
    line = next((l for l in stderr.splitlines() if "error" in l), stderr.strip()[:100] or "?")
    line = re.sub(r"^.*?error: ", "", line)
    return (line if keep_names else re.sub(r"'[^']*'|%[\w.]+", "X", line))[:100]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--ttlplan", default=os.path.join(ROOT, "build", "tools", "ttlplan"))
    ns = parser.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(ns.corpus) for f in fs
                   if f.endswith(".mlir"))
    if not files:
        sys.exit(f"no .mlir files under {ns.corpus}")
    work = tempfile.mkdtemp()
    case_file, printed_file = os.path.join(work, "case.mlir"), os.path.join(work, "printed.mlir")
    read_files = counted = read_cases = unstable = alone = planned = 0
    unread, refusals = [], collections.Counter()
    for path in files:
        chunks = cases(path)
        if not chunks:
            continue
        counted += 1
        all_read = True
        for chunk in chunks:
            with open(case_file, "w") as f:
                f.write(chunk)
            first = ttlplan(ns.ttlplan, "print", case_file)
            if first.returncode:
                if all_read:
                    unread.append((os.path.relpath(path, ns.corpus), first_error(first.stderr, True)))
                all_read = False
                continue
            read_cases += 1
            for form in ([], ["--generic"]):
                with open(printed_file, "w") as f:
                    f.write(ttlplan(ns.ttlplan, "print", *form, case_file).stdout)
                again = ttlplan(ns.ttlplan, "print", printed_file)
                if again.returncode or again.stdout != first.stdout:
                    unstable += 1
                    print(f"does not print back ({form or 'custom'}): {path}")
                    break
            if "ttl.kernel_thread" in chunk and "ttl.launch_grid" not in chunk:
                alone += 1
                plan = ttlplan(ns.ttlplan, "plan", case_file)
                planned += plan.returncode == 0
                if plan.returncode:
                    refusals[first_error(plan.stderr)] += 1
        read_files += all_read
    print(f"files read: {read_files} of {counted} ({100 * read_files / counted:.1f} %)")
    for name, why in unread:
        print(f"  not read: {name}: {why}")
    print(f"cases read: {read_cases}; {unstable} do not print back the same")
    print(f"threads on their own planned: {planned} of {alone}")
    for why, n in refusals.most_common(12):
        print(f"  {n:4} {why}")


if __name__ == "__main__":
    main()
