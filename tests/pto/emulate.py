#!/usr/bin/env python3
"""Builds a C++ program against the pto emulator (codegen/pto-emu/include) and checks its run.

  emulate.py --include DIR [--ttlplan T --ttl FILE --kernel NAME] SOURCE [--expect-fail REGEX]...

With --ttl, `ttlplan compile --target pto FILE -o WORK` writes the kernels first and SOURCE (a
harness) includes WORK/NAME.cpp through TTLPLAN_PTO_KERNEL; each --mutate OLD@@NEW first replaces
the text OLD (which must be there) by NEW in that file, to break a flag on purpose. The program is built with g++
-std=c++20 -Wall -Wextra -Werror (the generated code and the emulator compile without a warning)
and run: it must exit 0, or with --expect-fail exit non-zero with every REGEX in its stderr.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def main():
    p = argparse.ArgumentParser()
    p.add_argument("source")
    p.add_argument("--include", required=True)
    p.add_argument("--ttlplan")
    p.add_argument("--ttl")
    p.add_argument("--kernel")
    p.add_argument("--expect-fail", action="append", default=[])
    p.add_argument("--mutate", action="append", default=[])
    p.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as work:
        flags = []
        if args.ttl:
            out = os.path.join(work, "out")
            r = subprocess.run([args.ttlplan, "compile", "--target", "pto", args.ttl, "-o", out],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"ttlplan compile --target pto failed ({r.returncode}):\n{r.stderr}")
            kernel = os.path.join(out, args.kernel + ".cpp")
            text = open(kernel).read()
            for m in args.mutate:
                old, new = m.split("@@")
                if old not in text:
                    sys.exit(f"--mutate: '{old}' is not in the generated {kernel}")
                text = text.replace(old, new)
            open(kernel, "w").write(text)
            flags = [f'-DTTLPLAN_PTO_KERNEL="{kernel}"']
        exe = os.path.join(work, "program")
        cmd = [args.cxx, "-std=c++20", "-O1", "-Wall", "-Wextra", "-Werror", "-I", args.include,
               *flags, args.source, "-o", exe, "-pthread"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"build failed: {' '.join(cmd)}\n{r.stderr}")
        r = subprocess.run([exe], capture_output=True, text=True, timeout=120)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        if not args.expect_fail:
            sys.exit(0 if r.returncode == 0 else f"the program exited {r.returncode}")
        if r.returncode == 0:
            sys.exit("the program exited 0; a failure was expected")
        missing = [x for x in args.expect_fail if not re.search(x, r.stderr)]
        if missing:
            sys.exit(f"stderr lacks: {missing}")


if __name__ == "__main__":
    main()
