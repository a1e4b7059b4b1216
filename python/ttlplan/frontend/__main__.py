"""``python3 -m ttlplan.frontend KERNEL.py``: a tt-lang Python kernel as TTL text.

``ttlplan`` runs this for every ``.py`` input (docs/python.md); it is also usable on its own:

    python3 -m ttlplan.frontend kernel.py --args a=2048x2048:bf16,b=2048x2048:bf16 \\
        --knob GRANULARITY=1,2,4,8 --buffer-factor auto -o kernel.ttl

Errors are one line, ``kernel.py:LINE:COL: error: ...``, on standard error, exit status 1; a
bad command line exits with 2. The kernel file is parsed, never imported or run.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tokenize
from typing import Any

from .emit import Options, translate
from .errors import FrontendError
from .sidecar import SidecarError, read_sidecar, sidecar_path
from .types import DTYPES

# The largest tensor dimension --args accepts, in elements (so no shape can overflow the planner's
# arithmetic or make the TTL absurd).
MAX_DIMENSION = 1 << 24


def read_kernel(path: str) -> str:
    """The kernel's text decoded as Python decodes a source file (PEP 263): UTF-8 unless a
    byte-order mark or a `# -*- coding: NAME -*-` line in the first two says otherwise; the mark
    is dropped."""
    with tokenize.open(path) as f:
        return f.read()


class UsageError(Exception):
    pass


def parse_args_spec(text: str) -> dict[str, Any]:
    """``a=2048x2048:bf16,b=64x64,n=4,eps=1e-6`` -> {"a": ((2048, 2048), "bf16"),
    "b": ((64, 64), "bf16"), "n": 4, "eps": 1e-06}: a tensor's shape in elements and its dtype
    (bf16 when left out); one number without a dtype is an integer or float parameter. A shape
    given to a parameter the operation does not use as a tensor is a tuple (``t=2x2``: (2, 2))."""
    out: dict[str, Any] = {}
    for entry in filter(None, (e.strip() for e in text.split(","))):
        number = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?)",
                              entry)
        if number and (number.group(3) or number.group(4) or number.group(2).startswith("-")):
            value = float(number.group(2)) if number.group(3) or number.group(4) \
                else int(number.group(2))
            if isinstance(value, float) and not math.isfinite(value):
                raise UsageError(f"--args {number.group(1)}: {number.group(2)} is not finite")
            if isinstance(value, int) and abs(value) > MAX_DIMENSION:
                raise UsageError(f"--args {number.group(1)}: {value} is out of range "
                                 f"(-{MAX_DIMENSION} to {MAX_DIMENSION})")
            out[number.group(1)] = value
            continue
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=([0-9]+(?:x[0-9]+)*)(?::([A-Za-z0-9_]+))?",
                         entry)
        if not m:
            raise UsageError(f"--args entry '{entry}' is not NAME=ROWSxCOLS[:DTYPE] (a tensor, "
                             "e.g. a=2048x2048:bf16) or NAME=NUMBER (a parameter, e.g. n=4)")
        name, dims, dtype = m.group(1), m.group(2), m.group(3)
        shape = tuple(int(d) for d in dims.split("x"))
        if any(d < 1 or d > MAX_DIMENSION for d in shape):
            raise UsageError(f"--args {name}: every dimension must be 1 to {MAX_DIMENSION}")
        if dtype is None and len(shape) == 1:
            out[name] = shape[0]  # an integer parameter
            continue
        dtype = dtype or "bf16"
        if dtype not in DTYPES:
            raise UsageError(f"--args {name}: unknown dtype '{dtype}' (one of "
                             f"{', '.join(sorted(DTYPES))})")
        out[name] = (shape, DTYPES[dtype])
    return out


def parse_knob(text: str) -> tuple[str, str]:
    """``GRANULARITY=1,2,4,8`` -> ("GRANULARITY", "[1, 2, 4, 8]"); a domain written as TTL writes
    it (``[1, 2]``, ``range(1, 9)``, ``divisors(64)``) is kept as it is."""
    name, sep, domain = text.partition("=")
    name, domain = name.strip(), domain.strip()
    if not sep or not name.isidentifier() or not domain:
        raise UsageError(f"--knob '{text}' is not NAME=DOMAIN (e.g. GRANULARITY=1,2,4,8)")
    if re.fullmatch(r"[0-9]+(\s*,\s*[0-9]+)*", domain):
        return name, "[" + ", ".join(v.strip() for v in domain.split(",")) + "]"
    if re.fullmatch(r"\[\s*[A-Za-z0-9_]+(\s*,\s*[A-Za-z0-9_]+)*\s*\]", domain) or (
            re.fullmatch(r"(range|divisors)\([A-Za-z0-9_@+\-*/%(), ]*\)", domain) and
            _balanced(domain)):
        return name, domain  # pasted into the TTL: only a list or a domain call, nothing else
    raise UsageError(f"--knob {name}: the domain '{domain}' is not a list of integers (1,2,4,8) "
                     "or a TTL domain ([1, 2], range(1, 9), divisors(64))")


def _balanced(text: str) -> bool:
    """Parentheses that open and close in order, the outermost pair spanning the whole call."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0 or (depth == 0 and ch == ")" and i != len(text) - 1):
            return False
    return depth == 0


def parse_grid(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"([0-9]{1,4})x([0-9]{1,4})", text)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise UsageError(f"--device-grid '{text}' is not COLSxROWS (e.g. 8x8)")
    return int(m.group(1)), int(m.group(2))


def options_from(ns: argparse.Namespace) -> Options:
    options = Options()
    side = sidecar_path(ns.kernel)
    if os.path.exists(side):
        options = read_sidecar(side)
    for spec in ns.args or []:
        options.args.update(parse_args_spec(spec))
    for spec in ns.knob or []:
        name, domain = parse_knob(spec)
        options.knobs[name] = domain
    if ns.buffer_factor is not None:
        if ns.buffer_factor not in ("auto", "keep"):
            raise UsageError(f"--buffer-factor '{ns.buffer_factor}' is not auto or keep")
        options.buffer_factor_auto = ns.buffer_factor == "auto"
    if ns.device_grid:
        options.device_grid = parse_grid(ns.device_grid)
    return options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m ttlplan.frontend",
        description="Translate a tt-lang Python kernel to TTL text (docs/python.md). The file is "
                    "parsed with Python's ast module, never imported or run.")
    parser.add_argument("kernel", help="the tt-lang kernel file (.py)")
    parser.add_argument("--args", action="append", metavar="NAME=ROWSxCOLS[:DTYPE],...",
                        help="shapes (in elements) and dtypes of the operation's tensor arguments")
    parser.add_argument("--knob", action="append", metavar="NAME=DOMAIN",
                        help="make a module integer constant or an operation keyword default a "
                             "knob with this domain (1,2,4,8 or a TTL domain)")
    parser.add_argument("--buffer-factor", metavar="auto|keep",
                        help="auto: leave every dataflow buffer's block_count to the planner")
    parser.add_argument("--device-grid", metavar="COLSxROWS",
                        help="the nodes grid=\"auto\" and \"full\" mean (default 8x8)")
    parser.add_argument("-o", "--output", help="write the TTL here (default: standard output)")
    ns = parser.parse_args(argv)
    try:
        options = options_from(ns)
        source = read_kernel(ns.kernel)
        text = translate(ns.kernel, source, options)
    except UsageError as e:
        print(f"ttlplan: error: {e}", file=sys.stderr)
        return 2
    except SidecarError as e:
        print(str(e), file=sys.stderr)
        return 1
    except FrontendError as e:
        print(str(e), file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError) as e:
        print(f"{ns.kernel}:1:1: error: cannot read the kernel: {e}", file=sys.stderr)
        return 1
    except SyntaxError as e:  # a coding line naming an encoding Python does not have
        print(f"{ns.kernel}:{e.lineno or 1}:1: error: cannot read the kernel: {e.msg}",
              file=sys.stderr)
        return 1
    except RecursionError:
        print(f"{ns.kernel}:1:1: error: the kernel nests expressions or statements too deeply "
              "for the front end", file=sys.stderr)
        return 1
    except MemoryError:
        print(f"{ns.kernel}:1:1: error: the kernel is too large for the front end",
              file=sys.stderr)
        return 1
    except Exception as e:  # a bug of the front end: still one line, never a traceback
        print(f"{ns.kernel}:1:1: error: internal error of the front end ({type(e).__name__}: "
              f"{e}); please report it with the kernel", file=sys.stderr)
        return 1
    if ns.output:
        with open(ns.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
