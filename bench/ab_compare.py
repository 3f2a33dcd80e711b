#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Before/after comparison of two bloomkit_bench binaries on a noisy machine.

Runs the binaries alternately (A, B, A, B, ...) with the same Google Benchmark filter,
takes each benchmark's median ns/key over the rounds and prints the medians and the
ratio B/A (below 1: B is faster). Alternating, and quoting ratios within one run, is
what makes figures from a shared 2-core machine comparable.

  bench/ab_compare.py OLD_BINARY NEW_BINARY --filter='^MayContain/present/blocked/8B/' \\
      [--rounds=7] [--min-time=0.2] [other bloomkit_bench flags, e.g. --bloomkit_n=1e7]
"""
import argparse
import json
import statistics
import subprocess
import sys


def run_once(binary, flt, min_time, extra):
    cmd = [binary, f"--benchmark_filter={flt}", f"--benchmark_min_time={min_time}",
           "--benchmark_format=json"] + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration" and "ns/key" in b:
            result[b["name"]] = b["ns/key"] * 1e9  # the counter is in seconds per key
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--filter", required=True)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--min-time", default="0.2")
    args, extra = parser.parse_known_args()
    args.extra = extra
    samples = {"a": {}, "b": {}}
    for _ in range(args.rounds):
        for side in ("a", "b"):
            for name, ns in run_once(getattr(args, side), args.filter, args.min_time, args.extra).items():
                samples[side].setdefault(name, []).append(ns)
    names = list(samples["a"].keys())
    width = max(len(n) for n in names) if names else 10
    print(f"{'benchmark':<{width}}  {'A median':>9}  {'B median':>9}  {'B/A':>6}   ({args.rounds} alternating rounds)")
    for name in names:
        a = statistics.median(samples["a"][name])
        b = statistics.median(samples["b"].get(name, [float("nan")]))
        print(f"{name:<{width}}  {a:9.2f}  {b:9.2f}  {b / a:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
