#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Server CPU time per command of two bloomkit.so builds, A and B, in alternating rounds:
# each round starts a fresh redis-server with the module, reserves a 10^7-item filter,
# runs 1,000,000 pipelined BF.ADD then 1,000,000 BF.EXISTS of random items
# (redis-benchmark -c 2 -P 64), and reads the server's utime+stime from /proc (10 ms
# ticks: 1% resolution at these counts). CPU time of the server process moves less with
# a loaded machine than wall-clock rates do. Prints each round and the medians.
#   bench/redis/benchmark_ab_cpu.sh A/bloomkit.so B/bloomkit.so [ROUNDS]
# MODULE_ARGS passes module arguments to both sides, e.g. MODULE_ARGS="FORMAT native"
# to measure bloomkit's native filters instead of RedisBloom-format ones (the default).
set -euo pipefail
a="$(realpath "$1")"
b="$(realpath "$2")"
rounds="${3:-6}"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
n=1000000
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT
out=$(mktemp)
for round in $(seq "$rounds"); do
  for side in A B; do
    module=$a
    [ "$side" = B ] && module=$b
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
      --loadmodule "$module" ${MODULE_ARGS:-} >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
    redis-cli -p "$port" BF.RESERVE bench 0.01 10000000 >/dev/null
    t0=$(ticks "$pid")
    redis-benchmark -p "$port" -n "$n" -c 2 -P 64 -r 100000000 -q BF.ADD bench __rand_int__ >/dev/null
    t1=$(ticks "$pid")
    redis-benchmark -p "$port" -n "$n" -c 2 -P 64 -r 100000000 -q BF.EXISTS bench __rand_int__ >/dev/null
    t2=$(ticks "$pid")
    # ticks are 10 ms: ns per command = ticks * 10^7 / n
    echo "$round $side $(( (t1 - t0) * 10000000 / n )) $(( (t2 - t1) * 10000000 / n ))" | tee -a "$out"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=""
  done
done
/usr/bin/python3 - "$out" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for col, name in ((2, "BF.ADD"), (3, "BF.EXISTS")):
    a = statistics.median(int(r[col]) for r in rows if r[1] == "A")
    b = statistics.median(int(r[col]) for r in rows if r[1] == "B")
    print("%-9s server CPU ns/command: A median %d, B median %d, B/A %.3f" % (name, a, b, b / a))
PY
rm -f "$out"
