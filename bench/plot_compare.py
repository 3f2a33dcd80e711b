#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plots ns/key against n from bloomkit_compare --json output (gnuplot, PNG).

    bloomkit_compare --n=1e4,1e5,1e6,1e7 --key-bytes=8 --fp-rate=0.01 --json=sweep.json
    bench/plot_compare.py sweep.json docs/

Writes <outdir>/bench-query.png (positive single-key and batch queries, one thread)
and <outdir>/bench-insert.png (single-key and batch inserts): one line per filter,
log-log, so the step where each filter leaves the caches shows. Needs gnuplot
(Debian gnuplot-nox).
"""
import json
import os
import subprocess
import sys
import tempfile

SERIES = [  # (filter, metric, title)
    ("libbloom", "{op}", "libbloom"),
    ("bloomkit-classic", "{op}", "bloomkit classic"),
    ("bloomkit-classic", "{op}_batch", "bloomkit classic, batch"),
    ("bloomkit-blocked", "{op}", "bloomkit blocked"),
    ("bloomkit-blocked", "{op}_batch", "bloomkit blocked, batch"),
]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_compare.py <compare.json> <outdir>")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    outdir = sys.argv[2]
    workloads = sorted(doc["workloads"], key=lambda w: w["n"])
    if not workloads:
        sys.exit("no workloads in " + sys.argv[1])
    w0 = workloads[0]
    subtitle = (f"{w0['keys']} keys, target FPR {100 * w0['fp_rate']:g}%, medians of {w0['reps']} "
                f"alternating runs; {doc['cpu']}, {doc['hardware_threads']} threads")
    with tempfile.TemporaryDirectory() as tmp:
        for op, title, name in (("pos", "positive query", "bench-query.png"),
                                ("insert", "insert", "bench-insert.png")):
            plots = []
            for i, (filt, metric, label) in enumerate(SERIES):
                key = metric.format(op=op)
                rows = []
                for w in workloads:
                    for r in w["results"]:
                        ns = r["ns_per_key"].get(key)
                        if r["filter"] == filt and ns is not None:
                            rows.append((w["n"], ns))
                if not rows:
                    continue
                path = os.path.join(tmp, f"{op}{i}.dat")
                with open(path, "w") as f:
                    f.writelines(f"{n} {ns}\n" for n, ns in rows)
                dash = "dt 2" if "batch" in key else "dt 1"
                plots.append(f"'{path}' using 1:2 with linespoints lw 2 {dash} title '{label}'")
            script = f"""
set terminal pngcairo size 900,560 font ',11'
set output '{os.path.join(outdir, name)}'
set title "bloomkit vs libbloom: {title} (ns per key, lower is better)\\n{{/*0.8 {subtitle}}}"
set logscale xy
set xlabel 'keys in the filter (n)'
set ylabel 'ns per key'
set format x '10^{{%L}}'
set grid xtics ytics mytics
set key top left
plot {', '.join(plots)}
"""
            subprocess.run(["gnuplot"], input=script, text=True, check=True)
            print("wrote", os.path.join(outdir, name))


if __name__ == "__main__":
    main()
