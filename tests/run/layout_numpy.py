#!/usr/bin/env python3
"""Where tiles go, checked against numpy (issue 40): the reference interpreter reads the same TTL
the emulator runs, so a front end that folds a batch dimension the wrong way, or a transpose that
swaps tiles but not the elements inside them, would agree with itself. numpy computes the kernel's
meaning from the Python's own shapes: [B, H, W] tensors as numpy arrays of that shape, transposes
with .T. Each case runs `ttlplan run FILE --kernel NAME --inputs IN --dump OUT` through
padding_numpy.check_case.

usage: layout_numpy.py TTLPLAN REPO_ROOT WORK_DIR [CASE...]
"""
import sys

import numpy as np

from padding_numpy import check_case


def swapped(t):
    """tests/run/batch_3d.py's swapped: out[b] = 2 x[b] + y[1 - b] on [2, 64, 64] tensors, which
    TTL sees as [128, 64]."""
    x, y = t["x"].reshape(2, 64, 64), t["y"].reshape(2, 64, 64)
    return (2 * x + y[::-1]).reshape(128, 64)


CASES = {
    "batch_3d_swapped": ("tests/run/batch_3d.py", ["--kernel", "swapped"],
                         {"x": ((128, 64), -1, 1), "y": ((128, 64), -1, 1)}, "out", swapped,
                         None),
    "transpose_2x3_tiles": ("tests/run/transpose.py", ["--kernel", "transposed"],
                            {"x": ((64, 96), -1, 1)}, "y", lambda t: t["x"].T, None),
    "matmul_transpose_rhs": ("tests/run/transpose.py", ["--kernel", "matmul_bt"],
                             {"a": ((64, 64), -1, 1), "b": ((96, 64), -1, 1)}, "w",
                             lambda t: t["a"] @ t["b"].T, None),
    "deferred_waits": ("tests/run/deferred_acquires.py", ["--kernel", "deferred_waits"],
                       {"a": ((32, 64), -1, 1)}, "out",
                       lambda t: deferred_waits(t["a"]), None),
    "deferred_reserves": ("tests/run/deferred_acquires.py", ["--kernel", "deferred_reserves"],
                          {"a": ((32, 96), -1, 1)}, "out", lambda t: np.exp(t["a"]), None),
    # A pipe's source inside its destinations receives its own block (tests/run/self_receive.py).
    "self_receive_after_send": ("tests/run/self_receive.py", ["--kernel", "send_then_receive"],
                                {"a": ((32, 32), -1, 1)}, "out",
                                lambda t: np.tile(2 * t["a"], (1, 4)), None),
    "self_receive_around_send": ("tests/run/self_receive.py",
                                 ["--kernel", "receive_around_send"], {"a": ((32, 32), -1, 1)},
                                 "out", lambda t: np.tile(np.exp(t["a"]), (2, 2)), None),
    "self_receive_across_threads": ("tests/run/self_receive.py", ["--kernel", "across_threads"],
                                    {}, "out", lambda t: np.full((64, 96), 3.0), None),
}


def deferred_waits(a):
    """tests/run/deferred_acquires.py's deferred_waits: tiles t1, t2 of a; t1 + 2 t2, t2 - t1."""
    t1, t2 = a[:, :32], a[:, 32:]
    return np.concatenate([t1 + 2 * t2, t2 - t1], axis=1)


def main():
    ttlplan, root, work, *names = sys.argv[1:]
    failures = [f for f in (check_case(ttlplan, root, work, n, CASES[n])
                            for n in (names or CASES)) if f]
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
