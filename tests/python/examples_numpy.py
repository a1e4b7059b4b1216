#!/usr/bin/env python3
"""The tt-lang Python examples (examples/python, issue 29 item 4): each is planned, tuned and run
on the emulator, and its output compared with numpy (tests/run/padding_numpy.py's check: inputs
made with numpy, `ttlplan run --inputs --dump`, which also checks the reference interpreter, and
the same math in float64). The shapes come from each example's .ttlplan.toml, as a user's would.

usage: examples_numpy.py TTLPLAN REPO_ROOT WORK_DIR EXAMPLE
"""
import os
import subprocess
import sys
import tomllib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "run"))
from padding_numpy import check_case  # noqa: E402


def row_sums(x):
    out = np.zeros((x.shape[0], 32))
    out[:, 0] = x.sum(axis=1)  # the reduction's result is column 0; the rest is not compared
    return out


# example: (output argument, numpy function, columns of the output that are defined, tune flags)
EXAMPLES = {
    "eltwise_single_tile": ("out", lambda t: t["a"] + t["b"], None, []),
    "eltwise_multitile": ("y", lambda t: np.maximum(t["a"] * t["b"] + t["c"], 0), None,
                          ["--knob", "GRANULARITY=1,2,4"]),
    "eltwise_multinode": ("out", lambda t: t["a"] - t["b"], None, []),
    "eltwise_grid_auto": ("out", lambda t: np.exp(t["a"]) * t["b"], None, []),
    "matmul_single_node": ("c", lambda t: t["a"] @ t["b"], None, ["--knob", "K_BLOCK=1,2,4"]),
    "matmul_mcast": ("c", lambda t: t["a"] @ t["b"], None, []),
    "reduce_rows": ("out", lambda t: row_sums(t["a"]), 1, []),
    "matmul_bias_relu": ("y", lambda t: np.maximum(t["a"] @ t["b"] + t["c"], 0), None, []),
    "add_relu_unified": ("out", lambda t: np.maximum(t["a"] + t["b"], 0) + 1, None, []),
    "running_relu_sum": ("out", lambda t: running_relu_sum(t["x"], t["y"]), None, []),
}


def running_relu_sum(x, y):
    acc = x * x
    for i in range(y.shape[0] // x.shape[0]):
        acc = np.maximum(acc + y[i * x.shape[0]:(i + 1) * x.shape[0]], 0)
    return acc


def shapes(root, name):
    with open(os.path.join(root, "examples", "python", name + ".ttlplan.toml"), "rb") as f:
        args = tomllib.load(f)["args"]
    return {arg: tuple(int(d) for d in spec.split(":")[0].split("x")) for arg, spec in args.items()}


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL `{' '.join(cmd)}` exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout


def main():
    ttlplan, root, work, name = sys.argv[1:]
    output, math, defined_cols, tune_flags = EXAMPLES[name]
    source = os.path.join(root, "examples", "python", name + ".py")
    plan = run([ttlplan, "plan", source])
    if f"kernel @{name}" not in plan:
        sys.exit(f"FAIL plan printed no kernel @{name}:\n{plan}")
    tune = run([ttlplan, "tune", source, "--buffer-factor", "auto", *tune_flags])
    if "no point fits" in tune or "rank" not in tune:
        sys.exit(f"FAIL tune found no point that fits:\n{tune}")
    print(tune.splitlines()[-1] if tune.strip() else "")
    sizes = shapes(root, name)
    inputs = {arg: (shape, -1, 1) for arg, shape in sizes.items() if arg != output}
    case = (os.path.relpath(source, root), [], inputs, output, math, defined_cols)
    failure = check_case(ttlplan, root, work, name, case)
    if failure:
        sys.exit("FAIL " + failure)


if __name__ == "__main__":
    main()
