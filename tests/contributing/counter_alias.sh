#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md says a counter alias is one row in lib/counters/counters_names.c.
# Do exactly that to the shared copy of the tree (recipe.sh): add the row the document shows
# (and the same row for a software event, so that a machine without a PMU
# can run it), build the example suite, and check that the alias is
# accepted where the tree refuses it as unknown, listed beside its event,
# refused together with its event, and that results carry the canonical
# name and compare with a run that used it.
. "$(dirname "$0")/recipe.sh" "$@"
row=$(awk '/^## Adding a counter alias$/ { on = 1; next } /^## / { on = 0 }
           on && /^```c$/ { inblock = 1; next } /^```$/ { inblock = 0 } on && inblock' \
      "$src/CONTRIBUTING.md")
grep -q '^    {"PAPI_TOT_CYC", "cycles"},$' <<< "$row" \
  || { echo "FAIL: no alias row in CONTRIBUTING.md's 'Adding a counter alias': '$row'"; exit 1; }
soft=${row//PAPI_TOT_CYC/tclk}
soft=${soft//\"cycles\"/\"task-clock\"}
file=$tree/lib/counters/counters_names.c
awk -v row="$row" -v soft="$soft" '{ print } /^const ompb__counter_alias ompb__counter_aliases\[\] = \{$/ { print row; print soft }' \
  "$file" > "$tmp/names.c" && mv "$tmp/names.c" "$file"
[ "$(grep -c '"PAPI_TOT_CYC", "cycles"\|"tclk", "task-clock"' "$file")" -eq 2 ] || { echo "FAIL: could not add the rows"; exit 1; }
recipe_files "Adding a counter alias" lib/counters/counters_names.c
[ "$(diff "$src/lib/counters/counters_names.c" "$file" | grep -c '^>')" -eq 2 ] || { echo "FAIL: more than the rows changed"; exit 1; }

# The tree as it is refuses the alias as unknown: the row is what makes it.
set +e
err=$(timeout 60 "$build/benches/examples" --counters PAPI_TOT_CYC 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "unknown event 'PAPI_TOT_CYC'" <<< "$err" \
  || { echo "FAIL: the tree without the row: exit $rc, '$err'"; exit 1; }

recipe_build examples
ex=$work/build/benches/examples

"$ex" --list-counters > "$tmp/list"
grep -q '^  cycles (.*PAPI_TOT_CYC.*) ' "$tmp/list" \
  && grep -q '^  task-clock (tclk) ' "$tmp/list" \
  || { echo "FAIL: --list-counters does not show the aliases:"; cat "$tmp/list"; exit 1; }
set +e
err=$("$ex" --counters PAPI_TOT_CYC,cycles 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "event 'cycles' is listed twice: 'PAPI_TOT_CYC' and 'cycles' are both cycles" <<< "$err" \
  || { echo "FAIL: the event under both names: exit $rc, '$err'"; exit 1; }
# A machine without a PMU refuses the hardware event by its own name, as
# for any known event; one with it counts it under the canonical name.
set +e
err=$(timeout 120 "$ex" --exact 'count_set_bits[42, t=1]' --threads 1 --counters PAPI_TOT_CYC \
      --sample-count 2 --warmup-time 1ms --format json --output "$tmp/hw.json" 2>&1); rc=$?
set -e
if [ "$rc" -eq 0 ]; then
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['benchmarks'][0]['ompbench']['counters']
assert c['events'] == ['cycles'], c['events']" "$tmp/hw.json" \
    || { echo "FAIL: PAPI_TOT_CYC not written as cycles"; exit 1; }
else
  [ "$rc" -eq 2 ] && grep -q "event 'PAPI_TOT_CYC' is \(not available\|not permitted\)" <<< "$err" \
    || { echo "FAIL: --counters PAPI_TOT_CYC: exit $rc, '$err'"; exit 1; }
fi

# The software row runs here: its results say task-clock, and compare
# (this build's tool) with a run that asked for task-clock.
if ! timeout 120 "$ex" --exact 'count_set_bits[42, t=1]' --threads 1 --counters tclk \
     --sample-count 3 --warmup-time 1ms --format json --output "$tmp/a.json" 2> "$tmp/err"; then
  if grep -q "perf_event_open is not available\|not permitted" "$tmp/err"; then
    echo "skipped: software counters are not available here: $(cat "$tmp/err")"; exit 77
  fi
  echo "FAIL: --counters tclk:"; cat "$tmp/err"; exit 1
fi
timeout 120 "$ex" --exact 'count_set_bits[42, t=1]' --threads 1 --counters task-clock \
  --sample-count 3 --warmup-time 1ms --format json --output "$tmp/b.json" 2> /dev/null
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['benchmarks'][0]['ompbench']['counters']
assert c['events'] == ['task-clock'] and list(c['per_iteration']) == ['task-clock'], c" "$tmp/a.json" \
  || { echo "FAIL: tclk not written as task-clock"; exit 1; }
timeout 60 "$build/tools/ompbench" compare --metric task-clock "$tmp/a.json" "$tmp/b.json" > "$tmp/cmp.txt" \
  && grep -q "^Metric: task-clock per iteration" "$tmp/cmp.txt" \
  || { echo "FAIL: compare --metric task-clock:"; cat "$tmp/cmp.txt"; exit 1; }
echo "ok: a counter alias from one row"
