#!/usr/bin/env bash
# Counters per region (issue 23: 1 and 3): OMPB_REGIONS_COUNTERS=task-clock,...
# counts per thread and region instance, reported like --counters (JSON
# "ompbench.counters", a CSV column, a console column), per instance summed
# over the team; the counts lie inside the timed window, so a region's
# task-clock per instance is at most the sum of its threads' mean busy
# times. Bad values and events this machine cannot count are refused as
# --counters refuses them: the same message, exit 2, no report file. User
# counters of regions (ompb_region_counter) give lookups per second.
# Bounded: small fixed workloads, timeouts.
set -uo pipefail
build=$1
app="$build/tests/region_app"
tool="$build/tools/ompbench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
fail=0
run() { timeout 120 "$@"; }

# 1. task-clock and context-switches on a team of 2 (the 3:1 split).
for f in a b; do
  OMPB_REGIONS_COUNTERS=task-clock,context-switches OMPB_REGIONS_OUTPUT="$tmp/$f.json" \
    run "$app" split > /dev/null 2> "$tmp/err" || { echo "FAIL: region_app split"; cat "$tmp/err"; fail=1; }
done
python3 - "$tmp/a.json" <<'PY' || { echo "FAIL: region counters in the JSON"; fail=1; }
import json, sys
its = {b["name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"}
for name in ("region:barrier[t=2]", "region:nowait[t=2]"):
    o = its[name]["ompbench"]
    c = o["counters"]
    assert c["events"] == ["task-clock", "context-switches"] and c["units"] == ["ns", "count"], c
    tc = c["per_iteration"]["task-clock"]
    busy = sum(o["region"]["mean_busy_ns"])
    assert 0 < tc <= busy * 1.001 + 1000, (name, tc, busy)
    assert c["per_iteration"]["context-switches"] >= 0, c
    assert "values" not in c, "a region keeps sums, not rounds"
PY
OMPB_REGIONS_COUNTERS=task-clock OMPB_REGIONS_OUTPUT="$tmp/r.csv" run "$app" split > /dev/null 2>&1
python3 - "$tmp/r.csv" <<'PY' || { echo "FAIL: region counters in the CSV"; fail=1; }
import csv, sys
rows = {r["name"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert float(rows["region:barrier[t=2]"]["task-clock_per_iter"]) > 0, rows
PY
OMPB_REGIONS_COUNTERS=task-clock OMPB_REGIONS_OUTPUT=- run "$app" split > "$tmp/c.txt" 2> /dev/null
grep -Eq '^benchmark .* task-clock( |$)' "$tmp/c.txt" && grep -q '^counters: per region instance' "$tmp/c.txt" ||
  { echo "FAIL: no task-clock column on the console"; cat "$tmp/c.txt"; fail=1; }
run "$tool" compare "$tmp/a.json" "$tmp/b.json" --metric task-clock > "$tmp/cmp.txt" 2>&1 &&
  grep -q '^region:barrier\[t=2\] ' "$tmp/cmp.txt" || { echo "FAIL: compare --metric on regions"; cat "$tmp/cmp.txt"; fail=1; }

# 2. ompb_region_counter: per instance (items: 3 a thread, 6 a team) and a
# rate over the instances' summed makespans (lookups: 2 x 100 x 10 of them);
# a call outside the region is refused (one line), with or without events.
for ev in "" task-clock; do
  OMPB_REGIONS_COUNTERS=$ev OMPB_REGIONS_OUTPUT="$tmp/u.json" run "$app" counted > "$tmp/u.out" 2> "$tmp/u.err"
  grep -q '^outside=-1$' "$tmp/u.out" &&
    [ "$(grep -c 'ompb_region_counter("lookup", "lookups"): no instance of this region is open' "$tmp/u.err")" = 1 ] ||
    { echo "FAIL: a region counter outside its region was not refused once"; cat "$tmp/u.out" "$tmp/u.err"; fail=1; }
  python3 - "$tmp/u.json" <<'PY' || { echo "FAIL: region user counters (OMPB_REGIONS_COUNTERS='$ev')"; fail=1; }
import json, sys
b = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"][0]
assert b["name"] == "region:lookup[t=2]" and b["items"] == 6.0, b
want = 2 * 100 * 10 / b["ompbench"]["stats"]["total_time_s"]
assert abs(b["lookups"] - want) <= 1e-6 * want, (b["lookups"], want)
assert b["ompbench"]["user_counters"]["lookups"]["flags"] == ["rate"]
PY
done
OMPB_REGIONS=0 run "$app" counted > "$tmp/off.out" 2>&1
grep -q '^outside=0$' "$tmp/off.out" || { echo "FAIL: OMPB_REGIONS=0 does not make it a no-op"; fail=1; }

# 3. Without the variable regions count no events.
OMPB_REGIONS_OUTPUT="$tmp/n.json" run "$app" split > /dev/null 2>&1
python3 -c 'import json, sys
assert all("counters" not in b.get("ompbench", {}) for b in json.load(open(sys.argv[1]))["benchmarks"])' "$tmp/n.json" ||
  { echo "FAIL: counters without OMPB_REGIONS_COUNTERS"; fail=1; }

# 4. Refusals: --counters' own message, exit 2, no report.
refuse_like_counters() {  # EVENTS: the region message is --counters' message
  rm -f "$tmp/x.json"
  OMPB_REGIONS_COUNTERS=$1 OMPB_REGIONS_OUTPUT="$tmp/x.json" run "$app" split > /dev/null 2> "$tmp/e"
  local rc=$?
  run "$build/tests/ucounter_fixture" --counters "$1" --filter '^total' > /dev/null 2> "$tmp/ce"
  local want; want=$(sed -n 's/^[^:]*: //p' "$tmp/ce" | head -n 1)
  [ $rc -eq 2 ] && [ ! -e "$tmp/x.json" ] && [ -n "$want" ] &&
    grep -qF -- "ompbench: OMPB_REGIONS_COUNTERS: $want" "$tmp/e" ||
    { echo "FAIL: OMPB_REGIONS_COUNTERS=$1 -> exit $rc, not refused as --counters ($want)"; cat "$tmp/e"; fail=1; }
}
refuse_like_counters bogus
refuse_like_counters task-clock,task-clock
# A hardware event: refused here (no PMU in this VM); counted where there is one.
if ! run "$build/tests/ucounter_fixture" --counters instructions --filter '^total' --sample-count 1 \
     --max-time 50ms > /dev/null 2>&1; then
  refuse_like_counters instructions
fi
[ $fail -eq 0 ] && echo "region_counters: counted per region, refused as --counters"
exit $fail
