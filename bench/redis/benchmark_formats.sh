#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# redis-benchmark of bloomkit.so's two filter formats side by side: one server with
# FORMAT redisbloom (the default) and one with FORMAT native, the same commands on each,
# rounds interleaved (redisbloom, native, redisbloom, ...) so that the machine's noise
# falls on both alike. Every round gets fresh filters reserved for 10^6 items (BF: 0.01;
# CF: capacity 10^6, bucket size 2); BF.MADD adds 10 items per command into a 10^7-item
# filter. Items are random integers below 10^6 (redis-benchmark -r). Prints
# commands/s per round and format, then the medians and the redisbloom/native ratios.
# Given a RedisBloom module as well, a third server runs it ("RedisBloom", first in each
# round), and its ratios to both formats are printed too.
#   bench/redis/benchmark_formats.sh path/to/bloomkit.so [ROUNDS] [REQUESTS] [redisbloom.so]
set -euo pipefail
module="$(realpath "$1")"
rounds="${2:-7}"
requests="${3:-1000000}"
redisbloom_module="${4:+$(realpath "$4")}"
formats="redisbloom native"
[ -n "$redisbloom_module" ] && formats="RedisBloom $formats"
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
dir=$(mktemp -d)
declare -A port
for format in $formats; do
  port[$format]=$(free_port)
  mkdir "$dir/$format"
  if [ "$format" = RedisBloom ]; then load=("$redisbloom_module"); else load=("$module" FORMAT "$format"); fi
  redis-server --port "${port[$format]}" --bind 127.0.0.1 --dir "$dir/$format" --save '' --appendonly no \
    --logfile "$dir/$format/log" --loadmodule "${load[@]}" --daemonize yes \
    --pidfile "$dir/$format/pid"
done
cleanup() {
  for format in $formats; do redis-cli -p "${port[$format]}" shutdown nosave >/dev/null 2>&1 || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
for format in $formats; do
  for _ in $(seq 50); do redis-cli -p "${port[$format]}" ping >/dev/null 2>&1 && break; sleep 0.1; done
done
reserve() {
  local p=$1
  redis-cli -p "$p" DEL bf bm cf >/dev/null
  redis-cli -p "$p" BF.RESERVE bf 0.01 1000000 >/dev/null
  redis-cli -p "$p" BF.RESERVE bm 0.01 10000000 >/dev/null
  redis-cli -p "$p" CF.RESERVE cf 1000000 >/dev/null
}
for format in $formats; do
  reserve "${port[$format]}"
  echo "$format: key types $(redis-cli -p "${port[$format]}" TYPE bf) $(redis-cli -p "${port[$format]}" TYPE cf)"
done

rps() {
  local p=$1
  shift
  redis-benchmark -p "$p" -c 50 -P 16 -n "$requests" -r 1000000 -q "$@" | tr '\r' '\n' |
    awk '/requests per second/ {for (i = 2; i <= NF; i++) if ($i == "requests") v = $(i - 1)} END {print v}'
}
# The server's CPU time (utime + stime, 10 ms ticks) around each run, as ns per command:
# it moves far less than the rates when other processes share the cores.
ticks() { awk '{print $14 + $15}' "/proc/$(cat "$dir/$1/pid")/stat"; }
timed() {
  local format=$1 t0 v t1
  shift
  t0=$(ticks "$format")
  v=$(rps "${port[$format]}" "$@")
  t1=$(ticks "$format")
  echo "$v $(( (t1 - t0) * 10000000 / requests ))"
}
r10=$(printf ' __rand_int__%.0s' $(seq 10))
echo "round format BF.ADD BF.EXISTS CF.ADD CF.EXISTS BF.MADD10(items/s) | server CPU ns per command of each"
for round in $(seq "$rounds"); do
  for format in $formats; do
    reserve "${port[$format]}"
    read -r a ta < <(timed "$format" BF.ADD bf __rand_int__)
    read -r x tx < <(timed "$format" BF.EXISTS bf __rand_int__)
    read -r ca tca < <(timed "$format" CF.ADD cf __rand_int__)
    read -r cx tcx < <(timed "$format" CF.EXISTS cf __rand_int__)
    # shellcheck disable=SC2086
    read -r m tm < <(timed "$format" BF.MADD bm $r10)
    awk -v r="$round" -v f="$format" -v a="$a" -v x="$x" -v ca="$ca" -v cx="$cx" -v m="$m" \
      -v t="$ta $tx $tca $tcx $tm" \
      'BEGIN {printf "%s %s %.0f %.0f %.0f %.0f %.0f %s\n", r, f, a, x, ca, cx, m * 10, t}' | tee -a "$dir/runs"
  done
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for format in $formats; do
  printf 'median %s' "$format"
  for col in 3 4 5 6 7; do printf ' %s' "$(awk -v f="$format" -v c="$col" '$2 == f {print $c}' "$dir/runs" | median)"; done
  printf ' | CPU ns'
  for col in 8 9 10 11 12; do printf ' %s' "$(awk -v f="$format" -v c="$col" '$2 == f {print $c}' "$dir/runs" | median)"; done
  echo
done
# Ratio a/b per round (measured back to back), then its median: rates, then CPU per command.
ratio() {
  printf 'median ratio %s/%s' "$1" "$2"
  for col in 3 4 5 6 7 '|' 8 9 10 11 12; do
    if [ "$col" = '|' ]; then printf ' | CPU'; continue; fi
    printf ' %s' "$(awk -v c="$col" -v a="$1" -v b="$2" '$2 == a {r[$1] = $c} $2 == b {n[$1] = $c}
      END {for (k in r) printf "%.3f\n", r[k] / n[k]}' "$dir/runs" | median)"
  done
  echo
}
ratio redisbloom native
if [ -n "$redisbloom_module" ]; then
  ratio redisbloom RedisBloom
  ratio native RedisBloom
fi
for format in $formats; do
  echo "$format keys after the runs: BF.CARD bf $(redis-cli -p "${port[$format]}" BF.CARD bf)," \
    "CF.INFO cf items $(redis-cli -p "${port[$format]}" CF.INFO cf | sed -n 8p)"
done
redis-server --version
nproc
grep -m1 'model name' /proc/cpuinfo
