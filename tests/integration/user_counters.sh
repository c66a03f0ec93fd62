#!/usr/bin/env bash
# User counters (ompb_counter) end to end on tests/ucounter_fixture: each
# flag's figure in the JSON (a flat key of the run object, as Google
# Benchmark writes counters, plus its per-round figures), the CSV columns
# and the console columns; a reserved name fails its instance alone; the
# values come back from the children of --processes; compare and scaling
# take a user counter as --metric. The figures are exact (sums, averages,
# per iteration) or recomputed from the reported makespans (rates), so no
# bound depends on the machine's speed. Bounded: short budgets, timeouts.
set -uo pipefail
build=$1
bin="$build/tests/ucounter_fixture"
tool="$build/tools/ompbench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
fail=0
run() { timeout 120 "$@"; }
args=(--threads 2 --sample-count 5 --warmup-time 0s --min-time 50us --max-time 300ms)

# 1. JSON: the flat keys, their per-round figures, the refused name.
run "$bin" "${args[@]}" --format json --output "$tmp/r.json" 2> "$tmp/err"
if ! python3 - "$tmp/r.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
its = {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
def rounds(b, key):
    return b["ompbench"]["user_counters"][key]["rounds"]
exact = {"per_item[t=2]": ("items", 2.0, ["per_iteration"]),
         "per_thread[t=2]": ("per_thread", 15.0, ["avg_threads"]),
         "total[t=2]": ("total", 14.0, ["sum"]),
         "caller[t=2]": ("caller_avg", 5.0, ["avg_threads"])}
for name, (key, want, flags) in exact.items():
    b = its[name]
    assert abs(b[key] - want) < 1e-9, (name, key, b[key], want)
    assert b["ompbench"]["user_counters"][key]["flags"] == flags, (name, flags)
    assert all(abs(v - want) < 1e-9 for v in rounds(b, key)), (name, rounds(b, key))
b = its["lookups[t=2]"]
o = b["ompbench"]
# 3 per iteration on each of 2 threads over the round's makespan.
want = [3 * 2 * o["sample_size"] * 1e9 / m for m in o["samples"]["makespan_ns"]]
got = rounds(b, "lookups")
assert len(got) == len(want) == o["rounds"], (got, want)
assert all(abs(g - w) <= 1e-6 * w for g, w in zip(got, want)), (got, want)
assert abs(b["lookups"] - statistics.median(want)) <= 1e-6 * b["lookups"], b["lookups"]
assert o["user_counters"]["lookups"]["flags"] == ["rate"]
r = its["reserved[t=2]"]
assert r.get("error_occurred") and "real_time" in r["error_message"], r
assert "invalid name" in r["error_message"], r["error_message"]
assert not any(its[n].get("error_occurred") for n in its if n != "reserved[t=2]")
PY
then echo "FAIL: the JSON's user counters"; fail=1; fi

# 2. CSV: one column per name, empty where a benchmark has none.
run "$bin" "${args[@]}" --format csv --output "$tmp/r.csv" 2> /dev/null
if ! python3 - "$tmp/r.csv" <<'PY'
import csv, sys
rows = {r["name"]: r for r in csv.DictReader(open(sys.argv[1]))}
for key in ("lookups", "items", "per_thread", "total"):
    assert key in rows["total[t=2]"], key
assert float(rows["per_item[t=2]"]["items"]) == 2.0
assert float(rows["per_thread[t=2]"]["per_thread"]) == 15.0
assert float(rows["total[t=2]"]["total"]) == 14.0 and rows["total[t=2]"]["items"] == ""
assert float(rows["lookups[t=2]"]["lookups"]) > 0
PY
then echo "FAIL: the CSV's user counter columns"; fail=1; fi

# 3. Console: a column per counter, "/s" on the rate.
run "$bin" "${args[@]}" > "$tmp/console.txt" 2> /dev/null
head -n 20 "$tmp/console.txt" | grep -Eq '^benchmark .* lookups +items +per_thread +total' ||
  { echo "FAIL: no console column per counter"; cat "$tmp/console.txt"; fail=1; }
grep -Eq '^lookups\[t=2\] .*[0-9.]+[kMG]?/s ' "$tmp/console.txt" ||
  { echo "FAIL: no lookups per second on the console"; cat "$tmp/console.txt"; fail=1; }
grep -Eq '^per_thread\[t=2\] .* 15 ' "$tmp/console.txt" ||
  { echo "FAIL: per_thread is not 15 on the console"; cat "$tmp/console.txt"; fail=1; }

# 4. --processes: the children's counters come back in the dump.
run "$bin" "${args[@]}" --filter '^per_thread' --repetitions 2 --processes 2 --format json \
  --output "$tmp/p.json" 2> /dev/null
python3 -c '
import json, sys
its = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"]
assert len(its) == 2 and all(b["per_thread"] == 15.0 for b in its), its
assert len({b["ompbench"]["process"] for b in its}) == 2, [b["ompbench"]["process"] for b in its]
' "$tmp/p.json" || { echo "FAIL: user counters lost with --processes"; fail=1; }

# 5. compare and scaling take a user counter as --metric.
for side in a b; do
  run "$bin" "${args[@]}" --filter '^lookups' --format json --output "$tmp/$side.json" 2> /dev/null
done
run "$tool" compare "$tmp/a.json" "$tmp/b.json" --metric lookups > "$tmp/cmp.txt" 2>&1 ||
  { echo "FAIL: compare --metric lookups"; cat "$tmp/cmp.txt"; fail=1; }
grep -q '^Metric: lookups, a user counter' "$tmp/cmp.txt" && grep -q '^lookups\[t=2\] ' "$tmp/cmp.txt" ||
  { echo "FAIL: compare --metric lookups did not judge on the counter"; cat "$tmp/cmp.txt"; fail=1; }
run "$bin" --threads 1,2 --sample-count 3 --warmup-time 0s --max-time 200ms --filter '^total' \
  --format json --output "$tmp/s.json" 2> /dev/null
run "$tool" scaling "$tmp/s.json" --metric total > "$tmp/scaling.txt" 2>&1 ||
  { echo "FAIL: scaling --metric total"; cat "$tmp/scaling.txt"; fail=1; }
grep -Eq '^ +2 +14 ' "$tmp/scaling.txt" && grep -q '; user counter total)' "$tmp/scaling.txt" ||
  { echo "FAIL: scaling --metric total lacks the t=2 figure 14"; cat "$tmp/scaling.txt"; fail=1; }
run "$tool" compare "$tmp/r.json" "$tmp/r.json" --metric lookups > "$tmp/mixed.txt" 2>&1
[ $? -eq 2 ] && grep -q "neither a user counter of this entry" "$tmp/mixed.txt" ||
  { echo "FAIL: an entry without the counter is not refused with a reason"; cat "$tmp/mixed.txt"; fail=1; }

[ $fail -eq 0 ] && echo "user_counters: every flag, every format, --processes and --metric"
exit $fail
