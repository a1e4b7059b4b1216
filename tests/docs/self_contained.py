#!/usr/bin/env python3
"""The repository reads and links nothing outside itself (issue 39).

A user's clone has only the repository: no development folder beside it. This test walks the
source tree (every file but build outputs and git's own) and fails on

- a name of the development folder beside the checkout or of its documents (the architecture,
  syntax and facts pages now live in docs/, the measured data in data/), and
- a relative Markdown link in a .md file whose target is missing or lies outside the repository.

usage: self_contained.py SOURCE_ROOT
"""
import os
import re
import sys

# Spelled in pieces so that this file does not name them itself.
SHARED = ".." + "/shared"
FORBIDDEN = [re.compile(re.escape(name)) for name in [
    SHARED + "/", "/work" + "/shared", "TTLPLAN_" + "SHARED_DIR", "DESIGN" + ".md",
    "TTL_SYNTAX" + ".md"]] + [re.compile(r"(?<![-\w])" + "FACTS" + r"\.md")]
SKIP_DIRS = {".git", ".cache", "__pycache__"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def source_files(root):
    for here, dirs, files in os.walk(root):
        rel = os.path.relpath(here, root)
        dirs[:] = sorted(d for d in dirs
                         if d not in SKIP_DIRS and not (rel == "." and d.startswith("build")))
        for f in sorted(files):
            yield os.path.join(here, f)


def text_of(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None  # binary
    return data.decode("utf-8", errors="replace")


def forbidden_names(root, path, text):
    problems = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for pattern in FORBIDDEN:
            hit = pattern.search(line)
            if hit:
                problems.append(f"{os.path.relpath(path, root)}:{lineno}: names '{hit.group(0)}', "
                                "which a clone does not have; use data/ or docs/ instead")
    return problems


def broken_links(root, path, text):
    problems = []
    in_code = False
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor on the same page
            target = target.split("#", 1)[0]
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
            where = f"{os.path.relpath(path, root)}:{lineno}"
            if os.path.relpath(resolved, root).startswith(".."):
                problems.append(f"{where}: link '{target}' leaves the repository")
            elif not os.path.exists(resolved):
                problems.append(f"{where}: link '{target}' names a file that does not exist")
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    problems, checked = [], 0
    for path in source_files(root):
        text = text_of(path)
        if text is None:
            continue
        checked += 1
        problems += forbidden_names(root, path, text)
        if path.endswith(".md"):
            problems += broken_links(root, path, text)
    for p in problems:
        print(p)
    print(f"self_contained: {checked} files checked, {len(problems)} problems")
    if checked < 100:
        print("self_contained: too few files; is SOURCE_ROOT the repository?")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
