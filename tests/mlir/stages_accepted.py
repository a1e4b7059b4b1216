#!/usr/bin/env python3
"""Every IR that `ttlplan lower --generic --print-ir-after-all FILE` prints (each pass's dump and
the final output) must be accepted by `mlir-opt-16 --allow-unregistered-dialect`.

usage: stages_accepted.py TTLPLAN MLIR_OPT FILE [ttlplan flags...]
"""
import re
import subprocess
import sys


def example_bind(source):
    """The `// example-bind: K=V,...` line of a template with problem knobs (examples/README.md)."""
    with open(source) as f:
        for line in f:
            m = re.match(r"// example-bind: (\S+)", line)
            if m:
                return ["--bind", m.group(1)]
    return []


def main():
    ttlplan, mlir_opt, source, *flags = sys.argv[1:]
    flags = example_bind(source) + flags
    run = subprocess.run([ttlplan, "lower", "--generic", "--print-ir-after-all", source, *flags],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ttlplan lower failed on {source}:\n{run.stderr}")
    parts = re.split(r"^// -----// IR Dump After (\S+) //----- //\n", run.stderr, flags=re.M)
    stages = list(zip(parts[1::2], parts[2::2])) + [("output", run.stdout)]
    if len(stages) < 2:
        sys.exit(f"no IR dumps in the output of ttlplan lower on {source}:\n{run.stderr}")
    failed = 0
    for name, text in stages:
        check = subprocess.run([mlir_opt, "--allow-unregistered-dialect", "-o", "/dev/null", "-"],
                               input=text, capture_output=True, text=True)
        if check.returncode != 0:
            failed += 1
            print(f"mlir-opt rejected the IR after {name} of {source}:\n{check.stderr}")
    print(f"{len(stages) - failed} of {len(stages)} stages accepted")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
