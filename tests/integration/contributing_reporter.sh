#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md says a new output format is one file plus one table row.
# Do exactly that to a copy of the tree: add the TSV reporter the document
# shows and its ROW(tsv) line, build the example suite, and check that
# --format tsv works, that --help lists it and that a bad --format names it.
. "$(dirname "$0")/../contributing_tree.sh" "$@"
doc_block '/* lib/report/tsv.c */' > "$tree/lib/report/tsv.c"
grep -q 'ompb__reporter_tsv' "$tree/lib/report/tsv.c" || { echo "FAIL: no TSV example in CONTRIBUTING.md"; exit 1; }
sed -i 's/^    ROW(csv)$/    ROW(csv)            \\\n    ROW(tsv)/' "$tree/lib/report/reporters.c"
grep -q 'ROW(tsv)' "$tree/lib/report/reporters.c" || { echo "FAIL: could not add the row"; exit 1; }
[ "$(cd "$tree" && diff -rq "$src/lib" lib | wc -l)" -eq 2 ] || { echo "FAIL: more than one file and one row changed"; exit 1; }
timeout 600 cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF > "$tmp/cmake.log" 2>&1 \
  || { cat "$tmp/cmake.log"; exit 1; }
timeout 600 cmake --build "$tree/build" -j 2 --target examples > "$tmp/build.log" 2>&1 \
  || { tail -30 "$tmp/build.log"; exit 1; }
ex=$tree/build/benches/examples
out=$(timeout 120 "$ex" --test --format tsv --filter '^count_set_bits')
head -1 <<< "$out" | grep -qx "$(printf 'name\tmedian_ns')" || { echo "FAIL: TSV header missing:"; echo "$out"; exit 1; }
grep -qP '^count_set_bits\[42\]\t[0-9.e+-]+$' <<< "$out" || { echo "FAIL: TSV row missing:"; echo "$out"; exit 1; }
"$ex" --help | grep -q 'console, json, csv, tsv' || { echo "FAIL: --help does not list tsv"; exit 1; }
set +e
err=$("$ex" --format xml 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "accepted: console, json, csv, tsv" <<< "$err" \
  || { echo "FAIL: bad --format: exit $rc, '$err'"; exit 1; }
echo "ok: a TSV reporter from one file and one row"
