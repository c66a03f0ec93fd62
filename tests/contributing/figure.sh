#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md says a new figure is a producer and one row of `producers`
# in lib/report/result_figures.c, with no change to any reporter. Do exactly
# that to the shared copy of the tree (recipe.sh): add the document's migrations_per_round
# producer and its row, build the example suite, and check that the figure
# is a console column, a CSV column and a key of every JSON entry.
. "$(dirname "$0")/recipe.sh" "$@"
figures=$tree/lib/report/result_figures.c
awk '/^```c$/ { inblock = 1; next } /^```$/ { inblock = 0 } inblock' "$src/CONTRIBUTING.md" \
  | awk '/^\/\* The PU changes per measured round/, /^}$/' > "$tmp/producer.c"
grep -q 'migrations_per_round' "$tmp/producer.c" || { echo "FAIL: no figure example in CONTRIBUTING.md"; exit 1; }
python3 - "$figures" "$tmp/producer.c" <<'PY'
import sys
p, producer = sys.argv[1], open(sys.argv[2]).read()
s = open(p).read()
table = "/* Every figure family, in the order a row lists them (the JSON keeps it). */\n"
s = s.replace(table, producer + "\n" + table, 1)
s = s.replace("    switches, clean, counters, counter_companions, marks, user_counters,\n",
              "    switches, clean, counters, counter_companions, marks, user_counters,\n"
              "    migrations_per_round,\n", 1)
open(p, "w").write(s)
PY
grep -q '^    migrations_per_round,$' "$figures" || { echo "FAIL: could not add the row"; exit 1; }
recipe_files "Adding a figure" lib/report/result_figures.c
recipe_build examples
ex=$work/build/benches/examples
run() { timeout 120 "$ex" --test --filter '^count_set_bits' "$@"; }
out=$(run --format console)
grep -q ' migr/round$' <<< "$out" || { echo "FAIL: no console column:"; echo "$out"; exit 1; }
grep -qP '^count_set_bits\[42\] .* [0-9]+\.[0-9]{2}$' <<< "$out" \
  || { echo "FAIL: no console value:"; echo "$out"; exit 1; }
out=$(run --format csv)
head -1 <<< "$out" | grep -q ',migrations_per_round$' || { echo "FAIL: no CSV column:"; echo "$out"; exit 1; }
grep -qP '^"count_set_bits\[42\]",.*,[0-9.e+-]+$' <<< "$out" || { echo "FAIL: no CSV value:"; echo "$out"; exit 1; }
run --format json --output "$tmp/out.json" > /dev/null
python3 - "$tmp/out.json" <<'PY' || exit 1
import json, sys
entries = [e for e in json.load(open(sys.argv[1]))["benchmarks"] if e["run_type"] == "iteration"]
if not entries or not all(isinstance(e.get("migrations_per_round"), float) for e in entries):
    sys.exit("FAIL: a JSON entry has no migrations_per_round")
PY
echo "ok: a figure from one producer and one row, in all three formats"
