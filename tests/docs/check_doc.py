#!/usr/bin/env python3
"""Check the command transcripts of a Markdown page against the real ttlplan.

Usage:
  python3 tests/docs/check_doc.py --ttlplan PATH/ttlplan --source-root REPO [--work DIR] [--update] DOC.md

The fenced code blocks of DOC.md are walked in order; everything runs in one work directory (a
fresh temporary one unless --work is given, which is emptied first) that holds a symlink `examples` -> REPO/examples.

  ```ttl file=bad.ttl        the block's text is written to WORK/bad.ttl (folders created) before
                             the commands after it run; any language, `file=` may be anywhere in
                             the info string.

  ```console                 a transcript: a line starting with `$ ` is a command, the lines after
  $ ttlplan verify bad.ttl   it (up to the next `$ ` line or the block's end) its expected output.
  bad.ttl:3:5: error: ...    A command line ending in `\\` continues on the next line.

  ```console exit=1          the same, and every command of the block must exit with status 1.
                             Without `exit=N` the exit status is not compared (any is accepted).

Other blocks (```sh, ```text, plain ```) are ignored.

Each command runs as `bash -c` in WORK with stderr merged into stdout inside the shell
(`exec 2>&1`), with PATH starting with a folder where `ttlplan` is the --ttlplan binary,
NO_COLOR=1, TERM=dumb, and a timeout of 600 s.

Matching: expected and actual output are compared line by line after stripping trailing
whitespace of each line and trailing empty lines. In an expected line, `...` matches any text
within that line (the rest of the line is literal); an expected line that is exactly `...` matches
zero or more whole lines.

On a mismatch it prints DOC:LINE of the command, the command and a unified diff (expected vs
actual, with the lines the wildcards matched shown as the actual text), goes on with the remaining
commands and exits 1 at the end. Exit 0 when every command matches; exit 2 for a usage error or a
doc it cannot read (an unclosed fence, output before the first `$ ` line, a bad `file=` name, an
unknown attribute on a console block).

--update rewrites DOC.md in place: each transcript's expected output becomes the actual output,
but expected lines holding `...` that still match are kept (and `...`-only lines always), so
hand-written wildcards survive. It lists the commands whose output changed. With --update only a
wrong exit status (`exit=N`) or a timeout makes the exit status 1.
"""

import argparse
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

TIMEOUT_S = 600


class DocError(Exception):
    """A doc the checker cannot read: exit 2."""


# ----------------------------------------------------------------------------------------------
# Markdown: fenced code blocks

FENCE_RE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")  # any indent: fences inside list items


class Block:
    def __init__(self, info, indent, open_line, lines):
        self.info = info            # the info string, stripped
        self.indent = indent        # spaces before the opening fence
        self.open_line = open_line  # 0-based index of the opening fence in the doc
        self.lines = lines          # content lines without newline, indent removed


def dedent(line, indent):
    n = 0
    while n < indent and n < len(line) and line[n] == " ":
        n += 1
    return line[n:]


def parse_blocks(doc_lines, doc_name):
    blocks = []
    i = 0
    while i < len(doc_lines):
        m = FENCE_RE.match(doc_lines[i].rstrip("\r\n"))
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        if fence[0] == "`" and "`" in info:
            i += 1  # not a fence (inline code spanning a line start)
            continue
        open_line = i
        content = []
        i += 1
        closed = False
        while i < len(doc_lines):
            raw = doc_lines[i].rstrip("\r\n")
            c = re.match(r"^ *(`{3,}|~{3,})\s*$", raw)
            if c and c.group(1)[0] == fence[0] and len(c.group(1)) >= len(fence):
                closed = True
                break
            content.append(dedent(raw, indent))
            i += 1
        if not closed:
            raise DocError("%s:%d: code block is never closed" % (doc_name, open_line + 1))
        blocks.append(Block(info, indent, open_line, content))
        i += 1
    return blocks


def parse_info(info):
    """(language, {attr: value}) from an info string such as `console exit=1`."""
    words = info.split()
    lang = words[0] if words and "=" not in words[0] else ""
    attrs = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            attrs[k] = v
    return lang, attrs, words


class Command:
    def __init__(self, doc_line, text, out_first, out_end, expected, block):
        self.doc_line = doc_line    # 1-based line of the `$ ` line
        self.text = text            # the command (continuations joined with newlines)
        self.out_first = out_first  # 0-based doc index of the first expected-output line
        self.out_end = out_end      # 0-based doc index one past the last expected-output line
        self.expected = expected    # expected output lines (indent removed)
        self.block = block
        self.exit = None            # required exit status, or None


def parse_transcript(block, doc_name):
    lang, attrs, words = parse_info(block.info)
    required_exit = None
    for w in words[1:]:
        if "=" not in w:
            raise DocError("%s:%d: unknown word '%s' on a console block (only exit=N is allowed)"
                           % (doc_name, block.open_line + 1, w))
        k, v = w.split("=", 1)
        if k != "exit" or not re.fullmatch(r"\d+", v):
            raise DocError("%s:%d: unknown attribute '%s' on a console block (only exit=N is allowed)"
                           % (doc_name, block.open_line + 1, w))
        required_exit = int(v)
    commands = []
    lines = block.lines
    base = block.open_line + 1  # doc index of the block's first content line
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if line.strip() == "" and not commands:
                i += 1
                continue
            raise DocError("%s:%d: output before the first `$ ` command in a console block"
                           % (doc_name, base + i + 1))
        doc_line = base + i + 1
        text = line[2:]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text + "\n" + lines[i]
        i += 1
        first = i
        while i < len(lines) and not lines[i].startswith("$ "):
            i += 1
        cmd = Command(doc_line, text, base + first, base + i, lines[first:i], block)
        cmd.exit = required_exit
        commands.append(cmd)
    return commands


# ----------------------------------------------------------------------------------------------
# Matching

def normalize(lines):
    out = [l.rstrip() for l in lines]
    while out and out[-1] == "":
        out.pop()
    return out


def is_dots(p):
    return p == "..."


_pattern_cache = {}


def line_matches(pattern, actual):
    if "..." not in pattern:
        return pattern == actual
    rx = _pattern_cache.get(pattern)
    if rx is None:
        rx = re.compile(".*".join(re.escape(part) for part in pattern.split("...")), re.DOTALL)
        _pattern_cache[pattern] = rx
    return rx.fullmatch(actual) is not None


def matches(expected, actual):
    """Does the expected pattern (normalized lines) match the actual output (normalized lines)?"""
    reach = {0}
    for p in expected:
        if not reach:
            return False
        if is_dots(p):
            lo = min(reach)
            reach = set(range(lo, len(actual) + 1))
        else:
            reach = {j + 1 for j in reach if j < len(actual) and line_matches(p, actual[j])}
    return len(actual) in reach


def align(expected, actual):
    """A cheapest alignment of the pattern with the actual lines as a list of operations:
    ('match', i, j), ('absorb', i, j) (a `...` line takes actual line j), ('enddots', i),
    ('del', i) (pattern line i matches nothing) and ('ins', j) (actual line j is unexpected).
    Returns None when the problem is too large for the table (the caller then diffs plainly)."""
    n, m = len(expected), len(actual)
    if (n + 1) * (m + 1) > 4_000_000:
        return None
    INF = 1 << 30
    cost = [[INF] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        cost[n][j] = m - j
    for i in range(n - 1, -1, -1):
        row, nxt = cost[i], cost[i + 1]
        p = expected[i]
        dots = is_dots(p)
        for j in range(m, -1, -1):
            if dots:
                best = nxt[j]
                if j < m and row[j + 1] < best:
                    best = row[j + 1]
            else:
                best = nxt[j] + 1
                if j < m:
                    if row[j + 1] + 1 < best:
                        best = row[j + 1] + 1
                    if nxt[j + 1] < best and line_matches(p, actual[j]):
                        best = nxt[j + 1]
            row[j] = best
    ops = []
    i = j = 0
    while i < n or j < m:
        if i == n:
            ops.append(("ins", j))
            j += 1
            continue
        p = expected[i]
        c = cost[i][j]
        if is_dots(p):
            if j < m and cost[i][j + 1] == c:
                ops.append(("absorb", i, j))
                j += 1
            else:
                ops.append(("enddots", i))
                i += 1
            continue
        if j < m and cost[i + 1][j + 1] == c and line_matches(p, actual[j]):
            ops.append(("match", i, j))
            i += 1
            j += 1
        elif j < m and cost[i][j + 1] + 1 == c:
            ops.append(("ins", j))
            j += 1
        else:
            ops.append(("del", i))
            i += 1
    return ops


def diff_lines(expected, actual, name):
    ops = align(expected, actual)
    if ops is None:
        shown = expected
    else:
        shown = []
        for op in ops:
            if op[0] in ("match", "absorb"):
                shown.append(actual[op[2]])
            elif op[0] == "del":
                shown.append(expected[op[1]])
    return list(difflib.unified_diff(shown, actual, "expected (%s)" % name, "actual", lineterm=""))


def updated_expected(expected, actual):
    """The actual output, keeping the wildcard lines of the expected output that still match."""
    ops = align(expected, actual)
    if ops is None:
        return list(actual)
    out = []
    for op in ops:
        if op[0] == "match":
            p = expected[op[1]]
            out.append(p if "..." in p else actual[op[2]])
        elif op[0] == "enddots":
            out.append(expected[op[1]])
        elif op[0] == "ins":
            out.append(actual[op[1]])
    return out


# ----------------------------------------------------------------------------------------------
# Running

def make_env(bin_dir):
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    env["NO_COLOR"] = "1"
    env["TERM"] = "dumb"
    return env


def run_command(text, work, env):
    """(exit status or None on a timeout, output lines)."""
    proc = subprocess.Popen(["bash", "-c", "exec 2>&1\n" + text], cwd=work, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT_S)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = proc.communicate()
        status = None
    return status, out.decode("utf-8", errors="replace").split("\n")


def safe_file_name(name):
    if not name or name.startswith("/") or "\\" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def first_line(text, width=100):
    line = text.split("\n", 1)[0]
    if "\n" in text:
        line += " ..."
    return line if len(line) <= width else line[: width - 3] + "..."


def main(argv):
    ap = argparse.ArgumentParser(
        prog="check_doc.py",
        description="Run the ```console transcripts of a Markdown page and compare their output.",
        epilog="Exit status: 0 every transcript matches, 1 a mismatch, 2 usage error or unreadable doc.")
    ap.add_argument("--ttlplan", required=True, help="the ttlplan binary the commands run")
    ap.add_argument("--source-root", required=True, help="the repository (WORK/examples links to its examples/)")
    ap.add_argument("--work", help="work directory (default: a fresh temporary one, removed afterwards)")
    ap.add_argument("--update", action="store_true",
                    help="rewrite the expected outputs in DOC with the actual ones (wildcard lines that still match are kept)")
    ap.add_argument("doc", metavar="DOC.md")
    args = ap.parse_args(argv)  # exits 2 on a usage error

    ttlplan = os.path.abspath(args.ttlplan)
    if not (os.path.isfile(ttlplan) and os.access(ttlplan, os.X_OK)):
        print("check_doc.py: --ttlplan %s is not an executable file" % args.ttlplan, file=sys.stderr)
        return 2
    examples = os.path.join(os.path.abspath(args.source_root), "examples")
    if not os.path.isdir(examples):
        print("check_doc.py: --source-root %s has no examples/ folder" % args.source_root, file=sys.stderr)
        return 2
    try:
        with open(args.doc, encoding="utf-8", newline="") as f:
            doc_text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print("check_doc.py: cannot read %s: %s" % (args.doc, e), file=sys.stderr)
        return 2
    doc_lines = doc_text.splitlines(keepends=True)
    doc_name = args.doc

    # Read the whole doc before running anything: a malformed doc is exit 2.
    steps = []  # ('file', block, name) | ('cmd', Command)
    try:
        for block in parse_blocks(doc_lines, doc_name):
            lang, attrs, _ = parse_info(block.info)
            if "file" in attrs:
                name = attrs["file"]
                if not safe_file_name(name):
                    raise DocError("%s:%d: file=%s must be a relative path inside the work directory"
                                   % (doc_name, block.open_line + 1, name))
                steps.append(("file", block, name))
            elif lang == "console":
                steps.extend(("cmd", c) for c in parse_transcript(block, doc_name))
    except DocError as e:
        print("check_doc.py: %s" % e, file=sys.stderr)
        return 2

    cleanup = []
    if args.work:
        # A scratch directory: emptied first, so a rerun starts from the same state.
        work = os.path.abspath(args.work)
        if os.path.isdir(work):
            shutil.rmtree(work)
        os.makedirs(work, exist_ok=True)
    else:
        work = tempfile.mkdtemp(prefix="check_doc.")
        cleanup.append(work)
    link = os.path.join(work, "examples")
    if os.path.islink(link):
        os.unlink(link)
    if os.path.exists(link):
        print("check_doc.py: %s exists and is not a symlink" % link, file=sys.stderr)
        return 2
    os.symlink(examples, link)

    bin_dir = os.path.dirname(ttlplan)
    if os.path.basename(ttlplan) != "ttlplan":
        bin_dir = tempfile.mkdtemp(prefix="check_doc.bin.")
        cleanup.append(bin_dir)
        os.symlink(ttlplan, os.path.join(bin_dir, "ttlplan"))
    env = make_env(bin_dir)

    total = sum(1 for s in steps if s[0] == "cmd")
    failures = 0
    updates = []  # (Command, new expected lines)
    k = 0
    try:
        for step in steps:
            if step[0] == "file":
                _, block, name = step
                path = os.path.join(work, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(block.lines) + ("\n" if block.lines else ""))
                continue
            cmd = step[1]
            k += 1
            print("[%d/%d] %s" % (k, total, first_line(cmd.text)), file=sys.stderr, flush=True)
            status, out = run_command(cmd.text, work, env)
            actual = normalize(out)
            expected = normalize(cmd.expected)
            where = "%s:%d" % (doc_name, cmd.doc_line)
            problems = []
            if status is None:
                problems.append("timed out after %d s" % TIMEOUT_S)
            elif cmd.exit is not None and status != cmd.exit:
                problems.append("exit status %d, the block requires exit=%d" % (status, cmd.exit))
            output_ok = matches(expected, actual)
            if not output_ok and args.update and status is not None:
                updates.append((cmd, updated_expected(expected, actual)))
            elif not output_ok and not args.update:
                problems.append("output differs")
            if problems:
                failures += 1
                print("%s: FAIL: %s" % (where, "; ".join(problems)))
                print("  $ " + cmd.text.replace("\n", "\n    "))
                if not output_ok and not args.update:
                    for d in diff_lines(expected, actual, where):
                        print("  " + d)
                sys.stdout.flush()
    finally:
        for d in cleanup:
            shutil.rmtree(d, ignore_errors=True)

    if args.update and updates:
        new_lines = list(doc_lines)
        for cmd, lines in sorted(updates, key=lambda u: u[0].out_first, reverse=True):
            nl = "\r\n" if doc_lines[cmd.block.open_line].endswith("\r\n") else "\n"
            pad = " " * cmd.block.indent
            repl = [(pad + l if l else l) + nl for l in lines]
            # Keep the blank lines that separated this output from the next command.
            tail = []
            j = cmd.out_end - 1
            while j >= cmd.out_first and new_lines[j].strip() == "":
                tail.insert(0, new_lines[j])
                j -= 1
            new_lines[cmd.out_first:cmd.out_end] = repl + tail
        with open(args.doc, "w", encoding="utf-8", newline="") as f:
            f.write("".join(new_lines))
        for cmd, _ in updates:
            print("updated %s:%d: $ %s" % (doc_name, cmd.doc_line, first_line(cmd.text)))

    summary = "%d command%s, %d failed" % (total, "" if total == 1 else "s", failures)
    if args.update:
        summary += ", %d updated" % len(updates)
    print(summary, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
