#!/usr/bin/env python3
"""The host time factor of a device (docs/cost-model.md, "The host time factor"): a least-squares
line host = a * device + b through the rows of a GEMM_FLOPS table that give both times of the same
run (inference_time_avg_ns, measured on the host, and device_time_ns_derived), traced and untraced
rows apart. Wormhole's cost.host_time_factor is the slope over the traced rows.

usage: host_time_factor.py [CSV]   (default data/gemm/gemm_flops_n150.csv)
"""
import csv
import os
import sys


def fit(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    slope = sxy / sxx
    return slope, my - slope * mx


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "..", "data", "gemm", "gemm_flops_n150.csv")
    rows = {"True": [], "False": []}
    with open(path) as f:
        for r in csv.DictReader(f):
            try:
                rows[r["use_trace"]].append((float(r["device_time_ns_derived"]),
                                             float(r["inference_time_avg_ns"])))
            except (KeyError, ValueError):
                continue
    for trace, points in rows.items():
        if len(points) < 2:
            continue
        slope, intercept = fit(points)
        print(f"use_trace={trace}: {len(points)} rows, host = {slope:.3f} x device + "
              f"{intercept / 1000:.1f} us")


if __name__ == "__main__":
    main()
