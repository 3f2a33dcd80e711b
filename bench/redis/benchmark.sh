#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# redis-benchmark of bloomkit.so: BF.ADD and BF.EXISTS against plain EXISTS, and
# BF.MADD with 10 items, all in one run against one server (so ratios compare like with
# like), repeated RUNS times; prints requests/s per run and the medians. BF.CARD (open
# the key, reply an integer: no hashing, no probe) shows what any module command costs
# over a built-in one on this server; BF.CARD of a missing key does what EXISTS does (look
# up a key that is not there, reply 0) through the module API.
#   bench/redis/benchmark.sh path/to/bloomkit.so [RUNS] [REQUESTS]
set -euo pipefail
module="$(realpath "$1")"
runs="${2:-3}"
requests="${3:-1000000}"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save '' --appendonly no \
  --logfile "$dir/log" --loadmodule "$module" --daemonize yes --pidfile "$dir/pid"
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

common=(-p "$port" -c 50 -P 16 -n "$requests" -r 1000000 -q)
rps() { redis-benchmark "${common[@]}" "$@" | tr '\r' '\n' | awk '/requests per second/ {for (i = 2; i <= NF; i++) if ($i == "requests") v = $(i - 1)} END {print v}'; }

redis-cli -p "$port" BF.RESERVE bf 0.01 1000000 >/dev/null
redis-cli -p "$port" BF.RESERVE bm 0.01 10000000 >/dev/null
r10=$(printf ' __rand_int__%.0s' $(seq 10))
echo "run EXISTS BF.CARD(missing) BF.CARD BF.ADD BF.EXISTS BF.MADD10(cmds/s) BF.MADD10(items/s) missing/exists card/exists add/exists bfexists/exists"
for run in $(seq "$runs"); do
  e=$(rps EXISTS key:__rand_int__)
  z=$(rps BF.CARD nokey:__rand_int__)
  c=$(rps BF.CARD bf)
  a=$(rps BF.ADD bf __rand_int__)
  x=$(rps BF.EXISTS bf __rand_int__)
  # shellcheck disable=SC2086
  m=$(rps BF.MADD bm $r10)
  awk -v r="$run" -v e="$e" -v z="$z" -v c="$c" -v a="$a" -v x="$x" -v m="$m" \
    'BEGIN {printf "%s %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.3f %.3f %.3f %.3f\n", r, e, z, c, a, x, m, m*10, z/e, c/e, a/e, x/e}' |
    tee -a "$dir/runs"
done
# The median of each column (of the per-run ratios for the ratio columns).
printf 'median'
for col in $(seq 2 12); do
  printf ' %s' "$(cut -d' ' -f"$col" "$dir/runs" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')"
done
echo
echo "MEMORY USAGE (BF.RESERVE bf 0.01 1000000): $(redis-cli -p "$port" MEMORY USAGE bf) bytes"
redis-server --version
nproc; grep -m1 'model name' /proc/cpuinfo
