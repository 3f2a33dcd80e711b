#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Instructions per key of bloomkit's and Boost.Bloom's filters, counted by callgrind
# (valgrind) on bloomkit_instructions (bench/compare/instructions.cc). The counts are
# the same on every run, so they show a change of a few percent that timings on a
# shared host cannot (docs/BENCHMARKS.md).
#
#   bench/compare/instructions.sh build/boost/bench/bloomkit_instructions [n]
set -eu
bin=${1:?usage: instructions.sh PATH/TO/bloomkit_instructions [n]}
n=${2:-100000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$n" >/dev/null 2>&1
callgrind_annotate --inclusive=yes "$out" | awk -v n="$n" '
  # Lines look like: "  3,300,025 ( 1.9%)  ???:void (anonymous namespace)::Insert<(anonymous namespace)::Classic4, ...".
  match($0, /::(Insert|InsertBatch|Query|QueryBatch)<\(anonymous namespace\)::[A-Za-z0-9]+/) {
    s = substr($0, RSTART + 2, RLENGTH - 2)
    split(s, parts, "<\\(anonymous namespace\\)::")
    count = $1; gsub(",", "", count)
    per[parts[2] "," parts[1]] = count / n
    seen[parts[2]] = 1
  }
  END {
    printf "%-14s %8s %8s %8s %8s   (instructions per key, n = %d)\n", "filter", "insert", "ins-b", "query", "query-b", n
    split("Blocked256 BoostFmb32x8 Classic1 Classic4 BoostClassic7", order, " ")
    for (i = 1; i <= 5; i++) {
      f = order[i]
      if (!(f in seen)) continue
      printf "%-14s %8.1f %8.1f %8.1f %8.1f\n", f, per[f ",Insert"], per[f ",InsertBatch"], per[f ",Query"], per[f ",QueryBatch"]
    }
  }'
