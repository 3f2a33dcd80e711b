#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# interop.parquet (tests/interop/README.md): a live Parquet implementation, the npm
# packages hyparquet-writer and hyparquet (scripts/npm-interop installs them, pinned),
# against bloomkit's parquet kind:
#   run_parquet.sh SRC_DIR WORK_DIR PARQUET_CHECK BLOOMKIT NPM_DIR
# 1. hyparquet-writer writes a Parquet file (a string and an INT64 column, two row
#    groups, a split block filter per column chunk); hyparquet reads the footer's
#    bloom_filter_offset/length, cuts each filter out and answers 200,000 probes;
# 2. `bloomkit import parquet` imports each filter; parquet_check compares the answers,
#    the sizing, the bytes of the filter bloomkit builds from the same values (and
#    folds from 16 times the size), then adds values;
# 3. `bloomkit export --format parquet` writes them back, parquet_tool splices them into
#    the file at the footer's offsets and hyparquet must answer as bloomkit;
# 4. through the CLI: the string column's values found by `query`, and a filter of
#    2 MiB `export --fold-to` the writer's rate is the writer's filter byte for byte.
# Exit 77 (ctest's skip) when node or an npm package is missing.
set -euo pipefail
src=$1 work=$2 check=$3 bloomkit=$4 npm_dir=$5
if ! command -v node >/dev/null; then
  echo "SKIPPED: needs node (the machine's Node.js) and the npm packages hyparquet-writer and hyparquet (scripts/npm-interop)"
  exit 77
fi
for pkg in hyparquet-writer hyparquet; do
  if [ ! -f "$npm_dir/node_modules/$pkg/package.json" ]; then
    echo "SKIPPED: needs the npm package $pkg in $npm_dir (run scripts/npm-interop, which installs it pinned)"
    exit 77
  fi
done
rm -rf "$work" && mkdir -p "$work/files"
# node resolves an ES module's imports from the module's own folder.
cp "$src/parquet_tool.mjs" "$work/"
ln -s "$npm_dir/node_modules" "$work/node_modules"
tool() { node "$work/parquet_tool.mjs" "$@"; }
files=$work/files

tool gen "$files"
while read -r col rg _; do
  "$bloomkit" import parquet "$files/$col.rg$rg.bf" --from "$files/$col.rg$rg.bloom" >/dev/null
done < "$files/chunks.txt"
"$check" "$files"
while read -r col rg _; do
  "$bloomkit" export "$files/$col.rg$rg.back.bf" --format parquet --to "$files/$col.rg$rg.back.bloom" >/dev/null
done < "$files/chunks.txt"
tool verify "$files"

# The CLI: row group 0 of the string column holds values 0..59,999 (s.txt, one a line).
head -n 60000 "$files/s.txt" > "$files/s0.txt"
found=$("$bloomkit" query "$files/s.rg0.bf" -c "$files/s0.txt")
if [ "$found" != 60000 ]; then echo "FAIL: bloomkit query finds $found of 60000 values"; exit 1; fi
# A writer sizes for the most values a chunk may hold, then folds: 2 MiB folded to the
# writer's 1% is the filter hyparquet-writer sized for the 60,000 values exactly.
"$bloomkit" create "$files/big.bf" --kind parquet --capacity 1000000 --fp-rate 0.01 >/dev/null
"$bloomkit" add "$files/big.bf" "$files/s0.txt" >/dev/null
"$bloomkit" export "$files/big.bf" --format parquet --fold-to 0.01 --to "$files/big.bloom"
cmp "$files/big.bloom" "$files/s.rg0.bloom"
echo "run_parquet: passed"
