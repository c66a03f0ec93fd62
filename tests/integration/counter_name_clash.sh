#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A user counter with the name of a --counters event (issue 30, item 4,
# defect 9; tests/extremes_fixture's `clash`): with --counters task-clock,
# ompb_counter(state, "task-clock", ...) fails the instance with one
# message naming the user counter and the event (no two task-clock
# columns); and `ompbench compare --metric task-clock` of a file where an
# entry has both (an older ompbench wrote it) refuses the ambiguous metric
# instead of silently taking the user counter, also when the user counter
# has another name of the event (cs, context-switches).
# Usage: counter_name_clash.sh BUILD_DIR SOURCE_DIR
script_bound=120
. "$(dirname "$0")/lib.sh" "$@"
bin=$build/tests/extremes_fixture
tool=$build/tools/ompbench
[ -x "$bin" ] && [ -x "$tool" ] || { echo "counter_name_clash: no $bin or $tool; skipped"; exit 77; }
args=(--filter '^clash' --threads 1 --sample-count 3 --warmup-time 0s --min-time 50us --max-time 300ms)
timeout $((60 * mult)) "$bin" "${args[@]}" --counters task-clock --format json --output "$tmp/r.json" \
  2> "$tmp/err"
rc=$?
if grep -q "task-clock.*cannot be opened\|perf_event" "$tmp/err" && [ ! -s "$tmp/r.json" ]; then
  echo "counter_name_clash: task-clock cannot be counted here; skipped"; exit 77
fi
[ "$rc" -ne 0 ] || fail "the clashing instance did not fail (exit status 0)"
grep -q "ompb_counter(\"task-clock\").*--counters event 'task-clock'" "$tmp/err" ||
  fail "no message naming the user counter and the event: $(cat "$tmp/err")"
python3 - "$tmp/r.json" <<'PY' || fail "the JSON entry is not failed with the message"
import json, sys
d = json.load(open(sys.argv[1]))
e = [b for b in d["benchmarks"] if b["name"] == "clash[t=1]" and b["run_type"] == "iteration"]
assert e and e[0].get("error_occurred") and "--counters event" in e[0].get("error_message", ""), e
PY

# A file with both names in one entry: compare refuses the metric.
python3 - "$src/tests/data/report_golden/single.json" "$tmp/both.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    omp = b.get("ompbench", {})
    if "task-clock" in omp.get("counters", {}).get("events", []) and "user_counters" in omp:
        b["task-clock"] = 1.0
        n = len(omp["samples"]["makespan_ns"]) if "samples" in omp and "makespan_ns" in omp["samples"] else omp.get("rounds", 1)
        omp["user_counters"]["task-clock"] = {"flags": ["sum"], "rounds": [1.0] * n}
keep = {b["run_name"] for b in d["benchmarks"] if "task-clock" in b}
d["benchmarks"] = [b for b in d["benchmarks"] if b["run_name"] in keep]
assert keep
json.dump(d, open(sys.argv[2], "w"))
PY
timeout $((60 * mult)) "$tool" compare "$tmp/both.json" "$tmp/both.json" --metric task-clock \
  > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "compare --metric task-clock: exit status $rc, want 2 ($(head -3 "$tmp/out"))"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "both a user counter.*--counters event" "$tmp/err" ||
  fail "compare: want one line naming the clash: $(cat "$tmp/err")"
# The same with another name of the event: a user counter "cs" where the
# file counted context-switches (its canonical name) is the event too.
python3 - "$tmp/both.json" "$tmp/alias.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    omp = b.get("ompbench", {})
    ev = omp.get("counters", {}).get("events", [])
    if "task-clock" in ev:
        ev[ev.index("task-clock")] = "context-switches"
        omp["user_counters"]["cs"] = omp["user_counters"].pop("task-clock")
        b["cs"] = b.pop("task-clock")
json.dump(d, open(sys.argv[2], "w"))
PY
timeout $((60 * mult)) "$tool" compare "$tmp/alias.json" "$tmp/alias.json" --metric cs \
  > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "'cs' is both a user counter.*--counters event" "$tmp/err" ||
  fail "compare --metric cs (an alias of context-switches): exit status $rc, want 2 and the clash: $(cat "$tmp/err")"
[ "$fails" -eq 0 ] && echo "counter_name_clash: ok"
exit $((fails > 0))
