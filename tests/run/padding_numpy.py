#!/usr/bin/env python3
"""Tensors that are not whole tiles, run in the emulator and checked against numpy (issue 26,
item 3). Each case makes its inputs with numpy (bf16 values), runs `ttlplan run FILE --inputs IN
--dump OUT` (which also compares with the reference interpreter) and compares the output it
dumps, cropped to the logical shape, with the same math done by numpy in float64. numpy knows
nothing of tiles or padding, so a wrong pad value (or padding that leaks into the output, or a
crop that keeps it) shows here.

usage: padding_numpy.py TTLPLAN REPO_ROOT WORK_DIR [CASE...]
"""
import os
import subprocess
import sys

import numpy as np

# Largest |error| allowed, relative to the largest |expected| value: bf16 keeps 8 significant bits,
# so one rounding of the output is 2^-9; sums are accumulated in float32 DST registers.
TOLERANCE = 1.0 / 64


def bf16(x):
    """x rounded to the nearest bf16 value (ties to even), as float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def row_max(x):
    out = np.zeros((x.shape[0], 32))
    out[:, 0] = x.max(axis=1)  # the reduction's result is column 0; the rest is not compared
    return out


# name: (file, binding, {argument: (shape, low, high)}, output argument, numpy function,
#        columns of the output that are defined (None: all))
CASES = {
    "matmul_1000x1000x1000": (
        "examples/matmul_2d_template.ttl",
        ["--bind", "M=1000,K=1000,N=1000,DTYPE=bf16,FIDELITY=HiFi4,FP32_DEST_ACC=0",
         "--config", "ttnn-default"],
        {"a": ((1000, 1000), -1, 1), "b": ((1000, 1000), -1, 1)}, "c",
        lambda t: t["a"] @ t["b"], None),
    "matmul_33x65x17": (
        "examples/matmul_any_shape.ttl", ["--bind", "M=33,K=65,N=17"],
        {"a": ((33, 65), -1, 1), "b": ((65, 17), -1, 1)}, "c",
        lambda t: t["a"] @ t["b"], None),
    # All negative: padding with 0 instead of -inf would put e^2 or more into every row's sum.
    "softmax_1000_columns": (
        "tests/run/padding/softmax_1000_columns.ttl", [],
        {"in": ((50, 1000), -8, -2)}, "out", lambda t: softmax_rows(t["in"]), None),
    # All negative: padding with 0 instead of -inf would give a maximum of 0.
    "row_max_negative": (
        "tests/run/padding/max_dtype.ttl", ["--bind", "DTYPE=bf16"],
        {"in": ((32, 1000), -3, -1)}, "out", lambda t: row_max(t["in"]), 1),
    "eltwise_add_1x1": (
        "tests/run/padding/eltwise_add_1x1.ttl", [],
        {"a": ((1, 1), -1, 1), "b": ((1, 1), -1, 1)}, "c", lambda t: t["a"] + t["b"], None),
}


def run_case(ttlplan, root, work, name):
    return check_case(ttlplan, root, work, name, CASES[name])


def check_case(ttlplan, root, work, name, case):
    """Runs one case (a tuple as in CASES) and compares with numpy: None, or what went wrong."""
    source, flags, inputs, output, math, defined_cols = case
    rng = np.random.default_rng(sum(map(ord, name)))
    in_dir = os.path.join(work, name, "in")
    out_dir = os.path.join(work, name, "out")
    os.makedirs(in_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    tensors = {}
    for arg, (shape, low, high) in inputs.items():
        tensors[arg] = bf16(rng.uniform(low, high, size=shape))
        np.save(os.path.join(in_dir, arg + ".npy"), tensors[arg])
    expected = math({k: v.astype(np.float64) for k, v in tensors.items()})
    np.save(os.path.join(in_dir, output + ".npy"), np.zeros(expected.shape, dtype=np.float32))
    cmd = [ttlplan, "run", os.path.join(root, source), *flags, "--inputs", in_dir,
           "--dump", out_dir]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return f"{name}: `{' '.join(cmd)}` exited {run.returncode}:\n{run.stderr[-3000:]}"
    actual = np.load(os.path.join(out_dir, output + ".npy")).astype(np.float64)
    if actual.shape != expected.shape:
        return f"{name}: output {output} has shape {actual.shape}, numpy's {expected.shape}"
    if defined_cols is not None:
        actual, expected = actual[:, :defined_cols], expected[:, :defined_cols]
    error = np.abs(actual - expected)
    worst = np.unravel_index(np.argmax(error), error.shape)
    scale = np.abs(expected).max()
    verdict = f"max |error| {error[worst]:.3g} at {tuple(int(i) for i in worst)} (emulator " \
              f"{actual[worst]:.6g}, numpy {expected[worst]:.6g}); max |numpy| {scale:.3g}"
    if not np.isfinite(actual).all() or error[worst] > TOLERANCE * scale:
        return f"{name}: {verdict} exceeds {TOLERANCE:.3g} of max |numpy|"
    print(f"ok {name}: shape {actual.shape}, {verdict}")
    return None


def main():
    ttlplan, root, work, *names = sys.argv[1:]
    failures = [f for f in (run_case(ttlplan, root, work, n) for n in (names or CASES)) if f]
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
