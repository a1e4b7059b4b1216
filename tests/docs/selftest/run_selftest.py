#!/usr/bin/env python3
"""Self-test of tests/docs/check_doc.py (standard library only):

  python3 tests/docs/selftest/run_selftest.py --ttlplan build/tools/ttlplan --source-root .

good.md must pass (exit 0); bad.md must fail (exit 1) with its two failures reported; --update
on a copy of bad.md fixes the wrong output but not the wrong exit status; a malformed page is
exit 2. Prints what went wrong and exits 1 when the checker misbehaves."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(os.path.dirname(HERE), "check_doc.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ttlplan", required=True)
    ap.add_argument("--source-root", required=True)
    args = ap.parse_args()

    def check(doc, *extra):
        r = subprocess.run([sys.executable, CHECKER, "--ttlplan", args.ttlplan,
                            "--source-root", args.source_root, *extra, doc],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return r.returncode, r.stdout

    errors = []

    def expect(what, cond, out=""):
        if not cond:
            errors.append("%s\n%s" % (what, out))

    rc, out = check(os.path.join(HERE, "good.md"))
    expect("good.md: expected exit 0, got %d" % rc, rc == 0, out)

    rc, out = check(os.path.join(HERE, "bad.md"))
    expect("bad.md: expected exit 1, got %d" % rc, rc == 1, out)
    expect("bad.md: the wrong output is not reported", "bad.md:11: FAIL: output differs" in out
           and "-ttl.nonexistent_op ..." in out, out)
    expect("bad.md: the wrong exit status is not reported",
           "bad.md:18: FAIL: exit status 0, the block requires exit=1" in out, out)

    tmp = tempfile.mkdtemp(prefix="check_doc.selftest.")
    try:
        copy = os.path.join(tmp, "bad.md")
        shutil.copy(os.path.join(HERE, "bad.md"), copy)
        rc, out = check(copy, "--update")
        expect("--update: expected exit 1 (the exit status cannot be updated), got %d" % rc, rc == 1, out)
        expect("--update: the changed command is not listed", "updated %s:11: $ ttlplan ops" % copy in out, out)
        text = open(copy).read()
        expect("--update: the wrong line was not dropped or the `...` line not kept",
               "nonexistent_op" not in text and "params and kernels\n...\n```" in text, text)
        rc, out = check(copy)
        expect("after --update: only the exit status should fail (exit 1)", rc == 1
               and "output differs" not in out and "requires exit=1" in out, out)

        broken = os.path.join(tmp, "broken.md")
        with open(broken, "w") as f:
            f.write("```console\noutput first\n$ true\n```\n")
        rc, out = check(broken)
        expect("a malformed page: expected exit 2, got %d" % rc, rc == 2, out)
        rc, out = check(os.path.join(tmp, "missing.md"))
        expect("a missing page: expected exit 2, got %d" % rc, rc == 2, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    for e in errors:
        print("FAIL: " + e)
    print("check_doc self-test: %s" % ("FAILED" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
