#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# One interop test against a real library (tests/interop/README.md):
#   run_interop.sh bits-and-blooms|guava|bits-and-blooms-big|guava-big SRC_DIR WORK_DIR INTEROP_CHECK BLOOMKIT
# The library writes filters, interop_check compares every answer and writes them back
# with keys added, the library reads them and checks every key; then the same through
# the CLI (import, add, query, verify, export). Exit 77 (ctest's skip) when the
# library's toolchain is missing.
set -euo pipefail
mode=$1 src=$2 work=$3 check=$4 bloomkit=$5
if [[ $mode == *-big && ${BLOOMKIT_HEAVY_TESTS:-0} != 1 ]]; then
  echo "SKIPPED: a filter of more than 2^32 bits (~550 MB files, ~2 min); set BLOOMKIT_HEAVY_TESTS=1 to run it"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"

case $mode in
  bits-and-blooms*)
    lib=/usr/share/gocode/src/github.com/bits-and-blooms/bloom
    if ! command -v go >/dev/null || [ ! -d "$lib" ]; then
      echo "SKIPPED: needs go and $lib (Debian: golang-go golang-github-willf-bloom-dev)"
      exit 77
    fi
    GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE="$work/gocache" \
      go build -o "$work/babtool" "$src/babtool.go"
    tool() { "$work/babtool" "$@"; }
    prefix=bab ;;
  guava*)
    jar=/usr/share/java/guava.jar
    if ! command -v javac >/dev/null || ! command -v java >/dev/null || [ ! -f "$jar" ]; then
      echo "SKIPPED: needs javac, java and $jar (Debian: default-jdk-headless libguava-java)"
      exit 77
    fi
    javac -cp "$jar" -d "$work" "$src/GuavaTool.java"
    tool() { java -Xmx4g -cp "$jar:$work" GuavaTool "$@"; }
    prefix=guava ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

if [[ $mode == *-big ]]; then
  # More than 2^32 bits: every probe's 64-bit modulo; about 550 MB each way.
  tool heavy "$work"
  "$check" "$mode" "$work"
  exit 0
fi

tool gen "$work"
"$check" "$mode" "$work"
tool verify "$work"

# The same path through the CLI, as docs/CLI.md shows it.
python3 -c "
for i in range(1000): print(f'n{i}-' + 'z' * (i % 19))" > "$work/added.txt"
python3 -c "
for i in range(1000):
    s = f'k{i}' + ('-\u00e9\u65e5' if i % 7 == 0 else '') + '-' + 'x' * (i % 37)
    print(s)" > "$work/keys.txt"
"$bloomkit" import "$mode" "$work/f.bkf" --from "$work/${prefix}_20000_01.bin"
"$bloomkit" add "$work/f.bkf" "$work/added.txt"
"$bloomkit" query "$work/f.bkf" --print absent "$work/keys.txt" "$work/added.txt" > "$work/absent.txt"
if [ -s "$work/absent.txt" ]; then echo "FAIL: keys missing after import and add:"; head "$work/absent.txt"; exit 1; fi
"$bloomkit" verify "$work/f.bkf"
# Merge with a filter of the same shape: the library's own file of the same n and p.
"$bloomkit" import "$mode" "$work/g.bkf" --from "$work/${prefix}_20000_01.bin"
"$bloomkit" merge "$work/m.bkf" "$work/g.bkf" "$work/f.bkf"
"$bloomkit" export "$work/m.bkf" --format "$mode" --to "$work/m.out"
tool contains "$work/m.out" 1000
# Unchanged, the round trip is byte-identical.
"$bloomkit" export "$work/g.bkf" --format "$mode" --to "$work/g.out"
cmp "$work/g.out" "$work/${prefix}_20000_01.bin"
echo "run_interop $mode: passed"
