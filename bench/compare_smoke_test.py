#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest smoke run of bloomkit_compare (label bench).

    compare_smoke_test.py <bloomkit_compare> <json file>

Runs every workload at n = 4e4 (2e4 queries) and checks only that the program runs and that
bloomkit's numbers are sane; it never checks a timing (benchmarks are not tests).
The keys are fixed, so the counts are the same on every run.
  - no false negatives: every inserted key queried is found;
  - measured FPR over 2e4 absent keys is below 3x the target: at p = 0.1% the
    expected count is 20 and P(X > 60) < 1e-12 (Poisson); and above 0 at p = 1%
    (mean 200 false positives);
  - the classic filter's bits/key is within 1% of -ln p / ln^2 2 (bloomkit rounds
    m up to a whole word only); the blocked filter's is above that optimum and below
    1.25x of it (sizing.h documents 10.3 and 15.8 bits/key at 1% and 0.1%);
  - every time is a positive finite number; libbloom's row is present.
"""
import json
import math
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_smoke_test.py <bloomkit_compare> <json file>")
    exe, out = sys.argv[1], sys.argv[2]
    run = subprocess.run([exe, "--quick", "--reps=5", "--json=" + out],
                         capture_output=True, text=True, timeout=300)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        sys.exit(f"bloomkit_compare --quick exited with {run.returncode}:\n{run.stderr}")
    with open(out) as f:
        doc = json.load(f)

    failures = []
    workloads = doc["workloads"]
    if len(workloads) != 4:
        failures.append(f"expected 4 workloads (8B/url x 1%/0.1%), got {len(workloads)}")
    for w in workloads:
        p, optimum = w["fp_rate"], w["optimal_bits_per_key"]
        rows = {r["filter"]: r for r in w["results"]}
        for name in ("libbloom", "bloomkit-classic", "bloomkit-blocked"):
            if name not in rows:
                failures.append(f"keys={w['keys']} p={p}: no row for {name}")
        for name, r in rows.items():
            where = f"{name} keys={w['keys']} p={p}"
            for metric, ns in r["ns_per_key"].items():
                batch = "batch" in metric
                if ns is None and batch and name == "libbloom":
                    continue
                if ns is None or not math.isfinite(ns) or ns <= 0:
                    failures.append(f"{where}: {metric} time {ns} is not a positive number")
            if name == "libbloom":
                continue
            if r["false_negatives"] != 0:
                failures.append(f"{where}: {r['false_negatives']} false negatives")
            fpr = r["measured_fpr"]
            if not fpr < 3 * p:
                failures.append(f"{where}: measured FPR {fpr} is not below 3x the target {p}")
            if p >= 0.01 and not fpr > 0:
                failures.append(f"{where}: measured FPR is 0 over {w['queries']} absent keys at p={p}")
            bpk = r["bits_per_key"]
            if name == "bloomkit-classic" and abs(bpk / optimum - 1) > 0.01:
                failures.append(f"{where}: {bpk} bits/key is not within 1% of {optimum}")
            if name == "bloomkit-blocked" and not optimum <= bpk <= 1.25 * optimum:
                failures.append(f"{where}: {bpk} bits/key is outside [{optimum}, {1.25 * optimum}]")
    if failures:
        sys.exit("bloomkit_compare smoke run found:\n  " + "\n  ".join(failures))
    print(f"bloomkit_compare smoke run: {len(workloads)} workloads sane")


if __name__ == "__main__":
    main()
