#!/usr/bin/env python3
"""Every flag of every command is an option record: each `--NAME` that `ttlplan [COMMAND] --help`
lists (besides --help and --version) has a row `NAME` in docs/options.md, and a short flag `-S`
the row's "(`-S`)". Fails with the flags that have no record.

usage: flags_documented.py TTLPLAN docs/options.md
"""
import re
import subprocess
import sys

COMMANDS = [[], ["print"], ["verify"], ["devices"], ["ops"], ["options"], ["alloc"], ["plan"],
            ["lower"], ["compile"], ["run"], ["cost"], ["tune"], ["db", "show"], ["db", "best"],
            ["db", "merge"], ["db", "rerank"]]


def listed_flags(ttlplan, command):
    """(short, long) flag names in the Options section of COMMAND's --help."""
    text = subprocess.run([ttlplan, *command, "--help"], capture_output=True, text=True,
                          check=True).stdout
    options = text.split("Options:", 1)[1] if "Options:" in text else ""
    options = options.split("Subcommands:", 1)[0]
    flags = []
    for line in options.splitlines():
        match = re.match(r"\s{2}(-\S.*?)(?:\s{2,}|$)", line)
        if not match:
            continue
        for name in match.group(1).split(" ")[0].split(","):
            name = re.sub(r"\{.*\}$", "", name).lstrip("!")
            flags.append(name)
    return flags


def main():
    ttlplan, doc = sys.argv[1], sys.argv[2]
    rows = open(doc, encoding="utf-8").read()
    records = set(re.findall(r"^\| `([a-z0-9-]+)`", rows, re.M))
    shorts = set(re.findall(r"^\| `[a-z0-9-]+` \(`-([a-zA-Z])`\)", rows, re.M))
    missing, seen = [], 0
    for command in COMMANDS:
        for flag in listed_flags(ttlplan, command):
            if flag in ("-h", "--help", "--version"):
                continue
            seen += 1
            if flag.startswith("--no-") and flag[5:] in records:
                continue  # the off switch of a record that is on by default
            name = flag[2:] if flag.startswith("--") else None
            ok = name in records if name else flag[1:] in shorts
            if not ok:
                missing.append(f"ttlplan {' '.join(command)}: {flag}")
    if seen < 100:
        sys.exit(f"only {seen} flags read from the --help pages: the parser of this test is stale")
    if missing:
        sys.exit("flags without an option record in docs/options.md:\n  " + "\n  ".join(missing))
    print(f"{seen} flags, each an option record")


if __name__ == "__main__":
    main()
