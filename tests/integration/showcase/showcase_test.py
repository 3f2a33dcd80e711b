#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of the cache-penetration showcase (examples/cache_guard).

demo: runs scripts/demo (with --build-dir, so no install or build) with small numbers:
it starts its own redis-server with bloomkit.so, fills a SQLite database, runs the
three modes and stops the server. Checks the properties the showcase claims:
  - none: every request for a missing id is a database query (1000 per 1000);
  - empty-cache: fewer than none (ids repeat), more than bloom, about one query per
    distinct missing id (its tombstone answers the rest);
  - bloom: at most 3 x the filter's target rate x 1000 (+ slack) per 1000 missing-id
    requests, and at least 95% fewer than none;
  - no wrong answer in any mode (the load generator checks every reply), every row
    inserted during a run is found right after (the filter stays in sync);
  - the measured false-positive rate (requests, and distinct probes) is within a
    binomial upper bound of the target;
  - the chart is a valid PNG; the server the demo started is gone.

no-module: runs the showcase binary against a plain redis-server (no bloomkit.so):
none and empty-cache still work, and the bloom mode fails with a message that says
how to load the module.
"""
import argparse
import json
import math
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import time
import zlib

FAILURES = []


def check(condition, message):
    status = "ok  " if condition else "FAIL"
    print(f"{status} {message}")
    if not condition:
        FAILURES.append(message)


def binomial_upper(p, n, z=5.0):
    """p + z standard deviations of a proportion over n trials, + 1/n for small n."""
    return p + z * math.sqrt(p * (1 - p) / max(n, 1)) + 1.0 / max(n, 1)


def check_png(path):
    """PNG signature, IHDR first with a sane size, every chunk's CRC, IEND last."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "bad signature"
    at, chunks = 8, []
    while at < len(data):
        if at + 12 > len(data):
            return "truncated chunk"
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind = data[at + 4:at + 8]
        body = data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            return f"CRC mismatch in {kind!r}"
        chunks.append((kind, body))
        at += 12 + length
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        return "IHDR/IEND missing"
    width, height = struct.unpack(">II", chunks[0][1][:8])
    if not (200 <= width <= 10000 and 200 <= height <= 10000):
        return f"odd size {width}x{height}"
    if not any(kind == b"IDAT" for kind, _ in chunks):
        return "no image data"
    return None


def port_open(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_demo(args):
    work = os.path.join(args.work, "demo")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    report = os.path.join(work, "showcase.json")
    target = 0.01
    command = [args.demo, "--build-dir", args.build_dir, "--var", work, "--users", "20000", "--seconds", "2",
               "--clients", "2", "--missing-keyspace", "4000", "--fp-rate", str(target), "--json", report]
    print("$ " + " ".join(command))
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    print(run.stdout)
    print(run.stderr, file=sys.stderr)
    check(run.returncode == 0, f"scripts/demo exits 0 (got {run.returncode})")
    if run.returncode != 0:
        return
    match = re.search(r"redis-server \(pid (\d+)\) on 127\.0\.0\.1:(\d+)", run.stdout)
    check(match is not None, "the demo says which redis-server it started")
    if match:
        check(not port_open(int(match.group(2))), f"the demo's redis-server on port {match.group(2)} was stopped")
        check(not os.path.exists(f"/proc/{match.group(1)}") or
              "zombie" in open(f"/proc/{match.group(1)}/status").read().lower(),
              f"the demo's redis-server pid {match.group(1)} is gone")

    with open(report) as f:
        modes = {entry["mode"]: entry for entry in json.load(f)}
    check(sorted(modes) == ["bloom", "empty-cache", "none"], f"JSON has the three modes (got {sorted(modes)})")
    if len(modes) != 3:
        return
    required = ["mode", "requests", "requests_per_s", "db_queries", "db_queries_for_missing", "p50_ms", "p99_ms"]
    for name, m in modes.items():
        missing_fields = [k for k in required if k not in m]
        check(not missing_fields, f"{name}: JSON has {required} (missing {missing_fields})")
        check(m["requests_missing"] >= 200, f"{name}: enough missing-id requests to judge ({m['requests_missing']})")
        check(m["wrong_answers"] == 0, f"{name}: no wrong answers ({m['wrong_answers']} of {m['requests']})")
        check(m["inserted"] > 0 and m["inserted_found"] == m["inserted"],
              f"{name}: rows inserted during the run are found at once ({m['inserted_found']}/{m['inserted']})")
        check(0 < m["p50_ms"] <= m["p99_ms"], f"{name}: 0 < p50 <= p99 ({m['p50_ms']}, {m['p99_ms']})")
    for key in ["filter_bytes", "filter_fp_rate"]:
        check(key in modes["bloom"], f"bloom: JSON has {key}")

    def per_1000(m):
        return 1000.0 * m["db_queries_for_missing"] / m["requests_missing"]

    none, empty, bloom = modes["none"], modes["empty-cache"], modes["bloom"]
    check(abs(per_1000(none) - 1000.0) < 1e-9, f"none: 1000 DB queries per 1000 missing-id requests ({per_1000(none):.1f})")
    bloom_limit = 3 * target * 1000 + 2.0
    check(per_1000(bloom) <= bloom_limit,
          f"bloom: DB queries per 1000 missing-id requests {per_1000(bloom):.2f} <= 3 x target x 1000 + 2 = {bloom_limit}")
    check(per_1000(bloom) <= 0.05 * per_1000(none),
          f"bloom: at least 95% fewer DB queries for missing ids than none ({per_1000(bloom):.2f} vs {per_1000(none):.1f})")
    check(per_1000(bloom) < per_1000(empty) < per_1000(none),
          f"empty-cache in between: {per_1000(bloom):.2f} < {per_1000(empty):.1f} < {per_1000(none):.1f}")
    # A tombstone lives longer than the run, so each missing id reaches the database about
    # once (two clients may both miss the same id before either caches it).
    limit = empty["missing_keyspace"] * 1.02 + 10
    check(empty["db_queries_for_missing"] <= limit,
          f"empty-cache: DB queries for missing ids {empty['db_queries_for_missing']} <= distinct missing ids "
          f"{empty['missing_keyspace']} (+2%): each one is queried once, then its tombstone answers")

    n = bloom["requests_missing"]
    bound = binomial_upper(target, n)
    check(bloom["filter_fp_rate"] <= bound,
          f"bloom: measured FPR over {n} missing-id requests {bloom['filter_fp_rate']:.4%} <= {bound:.4%}")
    probes = bloom["filter_probe_ids"]
    probe_rate = bloom["filter_probe_passed"] / probes
    bound = binomial_upper(target, probes)
    check(probes >= 10000 and probe_rate <= bound,
          f"bloom: FPR over {probes} distinct probes {probe_rate:.4%} <= {bound:.4%}")
    check(bloom["filter_bytes"] > 0 and bloom["filter_capacity"] >= 20000,
          f"bloom: BF.INFO reports the filter ({bloom['filter_bytes']} bytes, capacity {bloom['filter_capacity']})")

    chart = os.path.join(work, "showcase.png")
    check(os.path.exists(chart), f"chart written to {chart}")
    if os.path.exists(chart):
        problem = check_png(chart)
        check(problem is None, f"chart is a valid PNG ({problem or 'ok'})")
    check(chart in run.stdout, "the demo prints where the chart is")


def test_no_module(args):
    work = os.path.join(args.work, "no-module")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([args.redis_server, "--bind", "127.0.0.1", "--port", str(port), "--dir", work,
                               "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while not port_open(port) and time.time() < deadline:
            time.sleep(0.05)
        report = os.path.join(work, "showcase.json")
        run = subprocess.run([args.binary, "--redis", f"127.0.0.1:{port}", "--users", "5000", "--seconds", "0.5",
                              "--clients", "2", "--sqlite", os.path.join(work, "users.sqlite"), "--json", report,
                              "--chart", ""], capture_output=True, text=True, timeout=120)
        print(run.stdout)
        print(run.stderr, file=sys.stderr)
        check(run.returncode == 1, f"without bloomkit.so the showcase exits 1 (got {run.returncode})")
        check("BF.RESERVE" in run.stderr and "--loadmodule" in run.stderr,
              "the bloom mode's error names BF.RESERVE and how to load the module")
        with open(report) as f:
            modes = {entry["mode"]: entry for entry in json.load(f)}
        check(sorted(modes) == ["empty-cache", "none"], f"none and empty-cache still ran ({sorted(modes)})")
        for name, m in modes.items():
            check(m["requests"] > 0 and m["wrong_answers"] == 0, f"{name}: requests answered, none wrong")
        bad = subprocess.run([args.binary, "--missing-ratio", "1.5"], capture_output=True, text=True, timeout=30)
        check(bad.returncode == 2 and "1.5" in bad.stderr, f"a bad --missing-ratio is a usage error naming the value")
        bad = subprocess.run([args.binary, "--redis", "127.0.0.1:99999"], capture_output=True, text=True, timeout=30)
        check(bad.returncode == 2 and "99999" in bad.stderr and "1..65535" in bad.stderr,
              "a bad --redis port is a usage error naming the value and the range")
    finally:
        server.terminate()
        server.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("test", choices=["demo", "no-module"])
    parser.add_argument("--demo")
    parser.add_argument("--build-dir")
    parser.add_argument("--binary")
    parser.add_argument("--redis-server", default="redis-server")
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    {"demo": test_demo, "no-module": test_no_module}[args.test](args)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
