#!/usr/bin/env python3
"""Write a changed copy of a JSON file, for negative schema tests.

    mutate.py IN OUT delete PATH          remove the key (or array element) at PATH
    mutate.py IN OUT set PATH JSON_VALUE  replace the value at PATH (which must exist)
    mutate.py IN OUT add PATH JSON_VALUE  add a key that must not exist yet

PATH is dotted, array indices as numbers: `kernels.0.cbs.0.bytes`. Exit 1 when PATH does not fit
the file (so a test cannot pass by mutating nothing).
"""
import json
import sys


def main(argv):
    if len(argv) not in (4, 5) or argv[2] not in ("delete", "set", "add") or \
            (argv[2] == "delete") != (len(argv) == 4):
        print(__doc__, file=sys.stderr)
        return 2
    src, dst, op, path = argv[:4]
    try:
        with open(src, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"mutate.py: error: cannot read {src}: {e}", file=sys.stderr)
        return 1
    parts = path.split(".")
    node = doc
    try:
        for p in parts[:-1]:
            node = node[int(p)] if isinstance(node, list) else node[p]
        last = int(parts[-1]) if isinstance(node, list) else parts[-1]
        if op == "delete":
            del node[last]
        elif op == "set":
            node[last]  # must exist
            node[last] = json.loads(argv[4])
        else:
            if isinstance(node, list) or last in node:
                raise KeyError(f"{path} exists or is an array element")
            node[last] = json.loads(argv[4])
    except (KeyError, IndexError, ValueError, TypeError) as e:
        print(f"mutate.py: error: {op} {path} does not fit {src}: {e!r}", file=sys.stderr)
        return 1
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
