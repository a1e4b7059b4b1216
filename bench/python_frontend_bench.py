#!/usr/bin/env python3
"""How long the Python front end takes to read a tt-lang kernel and produce its TTL (issue 29,
item 7: under 100 ms per example), and what `ttlplan print KERNEL.py` costs end to end (a
process for ttlplan, one for python3, the parse of the TTL) against `ttlplan print` of the same
TTL written out, in the same run.

usage: python3 bench/python_frontend_bench.py [--ttlplan build/tools/ttlplan] [--repeat 20]
"""
import argparse
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ttlplan", default=os.path.join(ROOT, "build", "tools", "ttlplan"))
    parser.add_argument("--repeat", type=int, default=20)
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


if __name__ == "__main__":
    main()
