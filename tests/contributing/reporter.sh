#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md says a new output format is one file plus one table row.
# Do exactly that to the shared copy of the tree (recipe.sh): add the TSV reporter the document
# shows and its ROW(tsv) line, build the example suite, and check that
# --format tsv works, that --help lists it and that a bad --format names it.
. "$(dirname "$0")/recipe.sh" "$@"
# The one C block that begins with the file's name (other sections of
# CONTRIBUTING.md have C blocks of their own, before or after it).
awk '/^```c$/ { inblock = 1; first = 1; next }
     /^```$/ { inblock = 0; keep = 0; next }
     inblock && first { keep = ($0 == "/* lib/report/tsv.c */"); first = 0 }
     inblock && keep' "$src/CONTRIBUTING.md" > "$tree/lib/report/tsv.c"
grep -q 'ompb__reporter_tsv' "$tree/lib/report/tsv.c" || { echo "FAIL: no TSV example in CONTRIBUTING.md"; exit 1; }
sed -i 's/^    ROW(csv)$/    ROW(csv)            \\\n    ROW(tsv)/' "$tree/lib/report/reporters.c"
grep -q 'ROW(tsv)' "$tree/lib/report/reporters.c" || { echo "FAIL: could not add the row"; exit 1; }
recipe_files "Adding an output format" lib/report/
recipe_build examples
ex=$work/build/benches/examples
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
