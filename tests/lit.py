#!/usr/bin/env python3
"""Runs the `RUN:` lines of one lit-style test file (a small subset of LLVM's lit).

Each `// RUN: COMMAND` comment (or `# RUN:`) of FILE is a shell command run with bash under
`set -o pipefail`; a line ending in a backslash continues on the next RUN line. The test passes
when every command exits 0, in order. Substitutions, as lit spells them:

  %s   FILE                      %S   the folder of FILE
  %t   a scratch path for this test (removed before the first command; a command creates it)
  %%   a literal %

The tools named with --tool NAME=PATH (ttlplan, FileCheck) replace the word NAME at the start of
a command (after `|`, `&&`, `||`, `;` or `not`), and `not CMD` succeeds when CMD fails (not when
it crashes on a signal), as lit's `not` does. The CMake file that adds the test names no command:
the file is its only copy (tests/LitTests.cmake).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

NOT_FUNCTION = r"""
not() {
  "$@"
  local rc=$?
  if [ "$rc" -eq 0 ]; then return 1; fi
  if [ "$rc" -gt 128 ]; then echo "not: '$1' was killed by signal $((rc - 128))" >&2; return 1; fi
  return 0
}
"""


def run_lines(path):
    """The RUN commands of the file, continuation lines joined."""
    commands, pending = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = re.match(r"^\s*(?://|#)\s*RUN:\s?(.*)$", line.rstrip("\n"))
            if not m:
                if pending is not None:
                    sys.exit(f"{path}:{number}: the RUN line before ends in '\\' but this is not "
                             "a RUN line")
                continue
            text = m.group(1).rstrip()
            if pending is not None:
                text = pending[1] + " " + text.lstrip()
                number = pending[0]
            if text.endswith("\\"):
                pending = (number, text[:-1].rstrip())
                continue
            pending = None
            commands.append((number, text))
    if pending is not None:
        sys.exit(f"{path}:{pending[0]}: the last RUN line ends in '\\'")
    return commands


def substitute(command, path, scratch, tools):
    def percent(m):
        key = m.group(0)
        return {"%%": "%", "%s": path, "%S": os.path.dirname(path), "%t": scratch}[key]

    command = re.sub(r"%%|%s|%S|%t", percent, command)
    for name, tool in tools.items():
        command = re.sub(r"(^|[|;&]\s*|\bnot\s+)" + re.escape(name) + r"(?=\s|$)",
                         lambda m: m.group(1) + tool, command)
    return command


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="the test file")
    parser.add_argument("--tool", action="append", default=[], metavar="NAME=PATH",
                        help="run PATH where a command names NAME")
    parser.add_argument("--scratch", required=True, help="the folder %%t lives in")
    args = parser.parse_args()
    tools = {}
    for entry in args.tool:
        name, sep, tool = entry.partition("=")
        if not sep or not name or not tool:
            parser.error(f"--tool expects NAME=PATH, got '{entry}'")
        tools[name] = tool
    path = os.path.abspath(args.file)
    commands = run_lines(path)
    if not commands:
        sys.exit(f"{path}: no RUN line")
    scratch = os.path.join(os.path.abspath(args.scratch),
                           re.sub(r"[^A-Za-z0-9_.-]", "_", path.lstrip(os.sep)) + ".tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    if os.path.exists(scratch):
        os.remove(scratch)
    os.makedirs(os.path.dirname(scratch), exist_ok=True)
    for number, command in commands:
        shell = substitute(command, path, scratch, tools)
        done = subprocess.run(["bash", "-c", "set -o pipefail\n" + NOT_FUNCTION + shell],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            print(f"{path}:{number}: RUN line failed (exit {done.returncode}):\n  {command}\n"
                  f"as run:\n  {shell}\noutput:\n{done.stdout}", file=sys.stderr)
            return 1
        print(f"{path}:{number}: ok: {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
