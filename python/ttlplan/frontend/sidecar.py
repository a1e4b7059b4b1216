"""The sidecar file: a kernel's --args, --knob and --buffer-factor kept beside it.

``kernel.py`` reads ``kernel.ttlplan.toml`` when it exists (the command line adds to it and wins):

    [args]
    a = "2048x2048:bf16"
    b = "2048x2048:bf16"

    [knobs]
    GRANULARITY = "1,2,4,8"

    buffer_factor = "auto"     # before the first table
"""

from __future__ import annotations

import os
import tomllib

from .emit import Options


class SidecarError(Exception):
    """``file:line:col: error: message`` for a sidecar that cannot be used."""


def sidecar_path(kernel: str) -> str:
    root, _ = os.path.splitext(kernel)
    return root + ".ttlplan.toml"


def read_sidecar(path: str) -> Options:
    from .__main__ import UsageError, parse_args_spec, parse_knob

    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise SidecarError(f"{path}:1:1: error: not a TOML file: {e}") from None
    except OSError as e:
        raise SidecarError(f"{path}:1:1: error: cannot read it: {e}") from None
    options = Options()
    unknown = set(data) - {"args", "knobs", "buffer_factor"}
    if unknown:
        raise SidecarError(f"{path}:1:1: error: unknown key(s) {', '.join(sorted(unknown))}; the "
                           "sidecar has [args], [knobs] and buffer_factor")
    try:
        for name, spec in dict(data.get("args", {})).items():
            options.args.update(parse_args_spec(f"{name}={spec}"))
        for name, domain in dict(data.get("knobs", {})).items():
            knob, text = parse_knob(f"{name}={domain}")
            options.knobs[knob] = text
    except (UsageError, TypeError, ValueError) as e:
        raise SidecarError(f"{path}:1:1: error: {e}") from None
    factor = data.get("buffer_factor")
    if factor is not None:
        if factor not in ("auto", "keep"):
            raise SidecarError(f"{path}:1:1: error: buffer_factor is auto or keep")
        options.buffer_factor_auto = factor == "auto"
    return options
