#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md says a compare verdict is one enum value and one table
# row. Do exactly that to the shared copy of the tree (recipe.sh): add the "skipped" verdict the
# document shows, build the ompbench tool, and check that every format of
# `ompbench compare` counts it (console and markdown summaries, JSON
# summary) without any other change.
. "$(dirname "$0")/recipe.sh" "$@"
analysis=$tree/tools/lib/analysis
blocks=$tmp/blocks.c
awk '/^```c$/ { inblock = 1; next } /^```$/ { inblock = 0 } inblock' "$src/CONTRIBUTING.md" > "$blocks"
value=$(awk '/^\/\* tools\/lib\/analysis\/compare.h, in enum ompb__verdict/{getline; print; exit}' "$blocks")
row=$(awk '/^\/\* tools\/lib\/analysis\/compare_verdicts.c, in verdicts\[\]/{getline; print; exit}' "$blocks")
grep -q 'OMPB__VERDICT_SKIPPED' <<< "$value" && grep -q '"skipped"' <<< "$row" \
  || { echo "FAIL: no verdict example in CONTRIBUTING.md"; exit 1; }
awk -v add="$value" '/^    OMPB__VERDICT_COUNT$/ { print add } { print }' "$analysis/compare.h" > "$tmp/compare.h"
mv "$tmp/compare.h" "$analysis/compare.h"
# The row last in verdicts[], before the table's closing brace.
table=$analysis/compare_verdicts.c
awk -v add="$row" '/^static const ompb__verdict_row verdicts\[/ { inside = 1 }
                   inside && /^};$/ { print add; inside = 0 } { print }' "$table" > "$tmp/compare_verdicts.c"
mv "$tmp/compare_verdicts.c" "$analysis/compare_verdicts.c"
grep -q 'OMPB__VERDICT_SKIPPED,' "$analysis/compare.h" && grep -q '\[OMPB__VERDICT_SKIPPED\] =' "$analysis/compare_verdicts.c" \
  || { echo "FAIL: could not add the value and the row"; exit 1; }
recipe_files "Adding a verdict" tools/lib/analysis/compare
[ "$(diff "$src/tools/lib/analysis/compare_verdicts.c" "$analysis/compare_verdicts.c" | grep -c '^[<>]')" -eq 1 ] \
  || { echo "FAIL: the row is not one line:"; diff "$src/tools/lib/analysis/compare_verdicts.c" "$analysis/compare_verdicts.c"; exit 1; }
recipe_build ompbench_tool
tool=$work/build/tools/ompbench
data=$src/tests/data/compare
out=$(timeout 60 "$tool" compare "$data/runs_base.json" "$data/runs_head.json")
grep -q "; not judged: .*, 0 skipped; " <<< "$out" || { echo "FAIL: console summary:"; echo "$out"; exit 1; }
out=$(timeout 60 "$tool" compare --format markdown "$data/runs_base.json" "$data/runs_head.json")
grep -q "not judged: .*, 0 skipped; " <<< "$out" || { echo "FAIL: markdown summary:"; echo "$out"; exit 1; }
out=$(timeout 60 "$tool" compare --format json "$data/runs_base.json" "$data/runs_head.json")
python3 -c 'import json, sys; s = json.load(sys.stdin)["summary"]; sys.exit(0 if s.get("skipped") == 0 else 1)' <<< "$out" \
  || { echo "FAIL: JSON summary has no skipped count:"; echo "$out" | head -40; exit 1; }
echo "ok: a verdict from one value and one row"
