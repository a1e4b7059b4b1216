#!/usr/bin/env python3
"""How long the Python front end takes to read a tt-lang kernel and produce its TTL (issue 29,
item 7: under 100 ms per example), and what `ttlplan print KERNEL.py` costs end to end (a
process for ttlplan, one for python3, the parse of the TTL) against `ttlplan print` of the same
TTL written out, in the same run. Then the search: `ttlplan tune` of the examples with knobs, as
Python and as the TTL `ttlplan print` makes of it (the same knobs, now `ttl.param`s), each the
best of --tune-repeat runs of the search's own seconds and its evaluations (the front end runs
once, before the search, so the cost per evaluation should be the same).

usage: python3 bench/python_frontend_bench.py [--ttlplan build/tools/ttlplan] [--repeat 20]
                                              [--tune-repeat 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

from ttlplan.frontend.emit import translate  # noqa: E402
from ttlplan.frontend.sidecar import read_sidecar, sidecar_path  # noqa: E402


def median_ms(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


# Examples with knobs, and the tune flags that make them (more than tests/python/examples_numpy.py
# tunes: searches of a few milliseconds are mostly noise).
TUNED = {"eltwise_multitile.py": ["--knob", "GRANULARITY=1,2,4,8"],
         "matmul_single_node.py": ["--knob", "K_BLOCK=1,2,4,8", "--knob", "M_BLOCK=1,2,4",
                                   "--knob", "N_BLOCK=1,2,4"]}


def tune_rate(ttlplan, path, flags):
    """Evaluations per second of one search, and the evaluation count."""
    out = subprocess.run([ttlplan, "tune", path, "--json", "-", "--quiet", *flags],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    return doc["evaluations_per_second"]["timing"], doc["evaluated"]


def tune_comparison(ttlplan, folder, repeat):
    """The best rate of `repeat` searches each, the Python and TTL runs taking turns."""
    print(f"\n{'tuned example':24} {'evals':>6} {'.py evals/s':>12} {'.ttl evals/s':>13} {'ratio':>6}")
    for name, knobs in TUNED.items():
        path = os.path.join(folder, name)
        flags = [*knobs, "--buffer-factor", "auto"]
        printed = subprocess.run([ttlplan, "print", path, *flags], check=True,
                                 capture_output=True, text=True).stdout
        with tempfile.NamedTemporaryFile("w", suffix=".ttl", delete=False) as t:
            t.write(printed)
        py = ttl = 0.0
        for _ in range(repeat):
            rate, count = tune_rate(ttlplan, path, flags)
            py = max(py, rate)
            rate, ttl_count = tune_rate(ttlplan, t.name, [])
            ttl = max(ttl, rate)
            if ttl_count != count:
                sys.exit(f"{name}: {count} points as Python but {ttl_count} as TTL")
        os.unlink(t.name)
        print(f"{name:24} {count:6} {py:12.0f} {ttl:13.0f} {py / ttl:6.2f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ttlplan", default=os.path.join(ROOT, "build", "tools", "ttlplan"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tune-repeat", type=int, default=3)
    ns = parser.parse_args()
    folder = os.path.join(ROOT, "examples", "python")
    names = sorted(f for f in os.listdir(folder) if f.endswith(".py"))
    print(f"{'example':24} {'translate':>10} {'print .py':>10} {'print .ttl':>11}")
    for name in names:
        path = os.path.join(folder, name)
        options = read_sidecar(sidecar_path(path))
        with open(path) as f:
            source = f.read()
        in_process = median_ms(lambda: translate(path, source, options), ns.repeat)
        with tempfile.NamedTemporaryFile("w", suffix=".ttl", delete=False) as t:
            t.write(translate(path, source, options))
        py = median_ms(lambda: subprocess.run([ns.ttlplan, "print", path], check=True,
                                              capture_output=True), ns.repeat)
        ttl = median_ms(lambda: subprocess.run([ns.ttlplan, "print", t.name], check=True,
                                               capture_output=True), ns.repeat)
        os.unlink(t.name)
        print(f"{name:24} {in_process:8.2f} ms {py:7.1f} ms {ttl:8.1f} ms")
    tune_comparison(ns.ttlplan, folder, ns.tune_repeat)


if __name__ == "__main__":
    main()
