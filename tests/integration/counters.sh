#!/usr/bin/env bash
# --counters on a real benchmark binary: software events counted per round
# and thread (JSON, CSV, console); task-clock against the busy time in the
# JSON; refused events (not on this machine, not permitted, unknown) are one
# line, exit 2, no output file; aliases written under canonical names (and
# matched in an older build's file); repetitions, --processes (the counters
# come back from the children) and caller teams; compare --metric judging runs;
# CPU simulation says it ignores --counters. Bounded: every run has a short
# time budget.
set -uo pipefail
build=$1
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { timeout 120 "$@"; }

# 1. Software events: JSON with raw values per round and thread. A fixed
#    sample size: the 5 rounds checked must not depend on calibration, which
#    on a loaded machine can pick a size that leaves room for 1 round.
events=task-clock,context-switches,page-faults
if ! run "$bin" --exact 'count_set_bits[42, t=2]' --threads 2 --counters "$events" \
     --sample-count 5 --sample-size 20000 --warmup-time 10ms --format json \
     --output "$tmp/r.json" 2> "$tmp/err"; then
  if grep -q "perf_event_open is not available\|not permitted" "$tmp/err"; then
    echo "skipped: software counters are not available here: $(cat "$tmp/err")"; exit 77
  fi
  echo "FAIL: --counters $events:"; cat "$tmp/err"; exit 1
fi
python3 - "$tmp/r.json" <<'PY' || fail=1
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
o = b["ompbench"]
c = o["counters"]
assert c["events"] == ["task-clock", "context-switches", "page-faults"], c["events"]
assert c["units"] == ["ns", "count", "count"], c["units"]
assert len(c["values"]) == o["rounds"] == 5, (o["rounds"], b.get("error_message"), o.get("warnings"))
for r in range(5):
    assert len(c["values"][r]) == 2 and all(len(v) == 3 for v in c["values"][r])
    assert len(c["time_enabled_ns"][r]) == 2 and len(c["time_running_ns"][r]) == 2
    assert all(v[0] > 0 for v in c["values"][r]), "task-clock of a busy thread is > 0"
assert c["multiplexed"] is False
assert c["per_iteration"]["task-clock"] > 0
assert "rounds_with_switches" in c
assert len(o["involuntary_switches"]) == 2
PY

# 2. CSV and console carry one column per counter; without --counters the
#    involuntary switches are still there.
run "$bin" --exact 'count_set_bits[42, t=2]' --threads 2 --counters "$events" \
  --sample-count 3 --warmup-time 10ms --format csv > "$tmp/r.csv" 2> /dev/null
head -1 "$tmp/r.csv" | grep -q ",involuntary_switches,task-clock_per_iter,context-switches_per_iter,page-faults_per_iter,counters_multiplexed" \
  || { echo "FAIL: CSV header: $(head -1 "$tmp/r.csv")"; fail=1; }
run "$bin" --exact 'count_set_bits[42, t=2]' --threads 2 --counters "$events" \
  --sample-count 3 --warmup-time 10ms > "$tmp/r.txt" 2> /dev/null
grep -q "invcsw  *clean  *task-clock context-switches page-faults" "$tmp/r.txt" \
  || { echo "FAIL: console header:"; cat "$tmp/r.txt"; fail=1; }
run "$bin" --exact 'count_set_bits[42, t=2]' --threads 2 --sample-count 3 \
  --warmup-time 10ms --format json --output "$tmp/plain.json" 2> /dev/null
python3 -c "
import json,sys; o=json.load(open(sys.argv[1]))['benchmarks'][0]['ompbench']
assert 'counters' not in o and len(o['involuntary_switches']) == 2" "$tmp/plain.json" \
  || { echo "FAIL: plain run: counters or involuntary_switches"; fail=1; }

# 3. task-clock per round and thread agrees with the busy time within 5%
#    at T=1 (compute-bound body, pinned), in the rounds the thread was never
#    switched out; skipped when the machine is too busy for 3 such rounds.
run "$bin" --exact 'count_set_bits[65535, t=1]' --threads 1 --counters task-clock,cs \
  --sample-count 21 --min-time 2ms --warmup-time 10ms --format json \
  --output "$tmp/t1.json" 2> /dev/null || { echo "FAIL: T=1 run"; fail=1; }
python3 - "$tmp/t1.json" <<'PY' || fail=1
import json, statistics, sys
o = json.load(open(sys.argv[1]))["benchmarks"][0]["ompbench"]
busy = o["samples"]["busy_ns"]
vals = o["counters"]["values"]
clean = [vals[r][0][0] / busy[r][0] for r in range(o["rounds"]) if vals[r][0][1] == 0]
if len(clean) < 3:
    print(f"note: only {len(clean)} undisturbed rounds, task-clock check skipped")
else:
    m = statistics.median(clean)
    assert 0.95 < m < 1.05, f"median task-clock / busy = {m:.4f} over {len(clean)} rounds"
PY

# 4. Refusals: one line naming the event, exit 2, no file, nothing run.
expect_refusal() {   # expect_refusal WORD PREFIX... -- ARGS...
  local word=$1; shift
  local pre=()
  while [ "$1" != "--" ]; do pre+=("$1"); shift; done
  shift
  rm -f "$tmp/out.json"
  run "${pre[@]}" "$@" --output "$tmp/out.json" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  if [ $rc -ne 2 ] || ! grep -qF -- "$word" "$tmp/stderr" || [ "$(wc -l < "$tmp/stderr")" -ne 1 ] \
     || [ -e "$tmp/out.json" ]; then
    echo "FAIL: $*: rc=$rc, stderr:"; cat "$tmp/stderr"; fail=1
  fi
}
expect_refusal "unknown event 'bogus'" "$bin" -- --counters task-clock,bogus
expect_refusal "event 'cs' is listed twice" "$bin" -- --counters cs,cs
expect_refusal "event 'faults' is listed twice: 'page-faults' and 'faults' are both page-faults" \
  "$bin" -- --counters page-faults,faults
if "$bin" --list-counters | grep "^  cycles (cpu-cycles) *available" > /dev/null; then
  echo "note: this machine has hardware counters; the ENOENT case is covered by the unit double"
else
  expect_refusal "event 'cycles' is not available on this machine" "$bin" -- --counters cycles
fi

# 5. perf_event_paranoid: as an unprivileged user, events that count in the
#    kernel are refused at paranoid >= 2 (nothing of the system is changed).
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2> /dev/null || echo -1)
if [ "$(id -u)" -eq 0 ] && [ "$paranoid" -ge 2 ] && command -v setpriv > /dev/null; then
  cp "$bin" "$tmp/examples" && chmod 755 "$tmp" "$tmp/examples"
  expect_refusal "kernel.perf_event_paranoid is $paranoid" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/examples" -- \
    --counters context-switches --sample-count 1
  grep -q "sysctl -w kernel.perf_event_paranoid=1" "$tmp/stderr" \
    || { echo "FAIL: no fix named: $(cat "$tmp/stderr")"; fail=1; }
  # task-clock needs no kernel counting: an unprivileged user gets it.
  timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/examples" \
    --exact 'count_set_bits[42, t=1]' --threads 1 --counters task-clock --sample-count 2 \
    --warmup-time 1ms --format json > /dev/null 2> "$tmp/stderr" \
    || { echo "FAIL: unprivileged task-clock: $(cat "$tmp/stderr")"; fail=1; }
else
  echo "note: paranoid refusal not tried (needs root to drop to an unprivileged user, and paranoid >= 2)"
fi

# 6. compare and scaling on a counter: values in its unit; a counter the
#    files do not hold is one line, exit 2.
tool="$build/tools/ompbench"
for side in base head; do
  run "$bin" --filter '^count_set_bits\[42' --threads 1,2 --counters task-clock,page-faults \
    --sample-count 6 --warmup-time 10ms --max-time 500ms --format json \
    --output "$tmp/$side.json" 2> /dev/null || { echo "FAIL: $side run"; fail=1; }
done
"$tool" compare --metric page-faults "$tmp/base.json" "$tmp/head.json" > "$tmp/cmp.txt" \
  || { echo "FAIL: compare --metric page-faults"; cat "$tmp/cmp.txt"; fail=1; }
grep -q "^Metric: page-faults per iteration" "$tmp/cmp.txt" || { echo "FAIL: no Metric line"; fail=1; }
"$tool" compare --metric instructions "$tmp/base.json" "$tmp/head.json" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || \
   ! grep -q "counter 'instructions' was not counted (counted: task-clock, page-faults; run with --counters instructions)" "$tmp/err"; then
  echo "FAIL: compare --metric instructions: rc=$rc"; cat "$tmp/err"; fail=1
fi
"$tool" scaling --metric task-clock "$tmp/base.json" --svg "$tmp/s.svg" > "$tmp/sc.txt" \
  || { echo "FAIL: scaling --metric"; fail=1; }
grep -q "team sum of task-clock" "$tmp/sc.txt" && grep -q "work efficiency" "$tmp/s.svg" \
  || { echo "FAIL: scaling --metric output"; cat "$tmp/sc.txt"; fail=1; }
"$tool" scaling --metric cycles "$tmp/base.json" --svg "$tmp/s2.svg" > /dev/null 2>&1
[ $? -eq 2 ] && [ ! -e "$tmp/s2.svg" ] || { echo "FAIL: scaling --metric cycles"; fail=1; }

# 6b. Aliases are written under their event's canonical name, so a run that
#     spelled an event differently compares; a file of an older build that
#     wrote the alias is matched by either name.
run "$bin" --exact 'count_set_bits[42, t=1]' --threads 1 --counters faults,task-clock \
  --sample-count 4 --warmup-time 5ms --max-time 300ms --format json \
  --output "$tmp/alias.json" 2> /dev/null || { echo "FAIL: --counters faults run"; fail=1; }
python3 - "$tmp/alias.json" "$tmp/old.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
c = r["benchmarks"][0]["ompbench"]["counters"]
assert c["events"] == ["page-faults", "task-clock"], c["events"]
assert set(c["per_iteration"]) == {"page-faults", "task-clock"}, c["per_iteration"]
for b in r["benchmarks"]:   # what an older build wrote for --counters faults
    c = b.get("ompbench", {}).get("counters")
    if c:
        c["events"][0] = "faults"
        c["per_iteration"]["faults"] = c["per_iteration"].pop("page-faults")
json.dump(r, open(sys.argv[2], "w"))
PY
grep -q ',page-faults_per_iter,task-clock_per_iter,' <(run "$bin" --exact 'count_set_bits[42, t=1]' \
  --threads 1 --counters faults,task-clock --sample-count 2 --warmup-time 1ms --format csv 2> /dev/null) \
  || { echo "FAIL: CSV columns of --counters faults"; fail=1; }
for metric in page-faults faults; do
  "$tool" compare --metric $metric "$tmp/old.json" "$tmp/alias.json" > "$tmp/cmpa.txt" 2>&1 \
    && grep -q "^Metric: $metric per iteration" "$tmp/cmpa.txt" \
    || { echo "FAIL: compare --metric $metric, old file against new:"; cat "$tmp/cmpa.txt"; fail=1; }
done

# 8. Repetitions in 2 processes: one JSON entry per repetition, each with
#    its own counters (those of the child processes through the dump); a
#    caller team keeps its team (one timed column, counters per thread).
run "$bin" --filter '^(count_set_bits\[42|triad_parallel_for)' --threads 2 --counters task-clock,cs \
  --repetitions 4 --processes 2 --sample-count 8 --warmup-time 5ms --max-time 400ms \
  --format json --output "$tmp/p.json" 2> /dev/null || { echo "FAIL: --processes 2 run"; fail=1; }
python3 - "$tmp/p.json" <<'PY' || fail=1
import json, sys
it = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"]
names = sorted({b["name"] for b in it})
assert names == ["count_set_bits[42, t=2]", "triad_parallel_for[t=2]"], names
for name in names:
    reps = [b for b in it if b["name"] == name]
    assert len(reps) == 4, (name, len(reps))
    assert sorted(b["ompbench"]["process"] for b in reps) == [0, 0, 1, 1], name
    for b in reps:
        o = b["ompbench"]
        c = o["counters"]
        assert c["events"] == ["task-clock", "context-switches"], c["events"]  # cs: canonical
        assert len(c["values"]) == o["rounds"] > 0, name
        assert all(len(row) == 2 for row in c["values"]), "a column per thread"
        assert c["per_iteration"]["task-clock"] > 0, (name, c["per_iteration"])
        assert len(o["involuntary_switches"]) == 2
        caller = name.startswith("triad_parallel_for")
        assert o["team"] == ("caller" if caller else "harness"), (name, o["team"])
        assert ("busy_ns" in o["samples"]) != caller, (name, list(o["samples"]))
PY
#    CSV: a row per repetition; console: a line per instance, with the cells.
run "$bin" --exact 'count_set_bits[42, t=2]' --threads 2 --counters task-clock --repetitions 3 \
  --sample-count 6 --warmup-time 5ms --max-time 300ms --format csv > "$tmp/p.csv" 2> /dev/null
[ "$(grep -c '^"count_set_bits\[42, t=2\]"' "$tmp/p.csv")" -eq 3 ] \
  || { echo "FAIL: CSV rows per repetition:"; cat "$tmp/p.csv"; fail=1; }
run "$bin" --exact 'count_set_bits[42, t=2]' --threads 2 --counters task-clock --repetitions 3 \
  --sample-count 6 --warmup-time 5ms --max-time 300ms > "$tmp/p.txt" 2> /dev/null
# 2 rounds per repetition: the marks column (few_rounds) follows the cells,
# after the CPU share column when a loaded machine starved the team.
grep -Eq "±run .*invcsw  *clean  *task-clock( +CPU share)?( marks)?$" "$tmp/p.txt" \
  && grep -Eq "^count_set_bits\[42, t=2\] .* ~?3 x [0-9]+ x [0-9]+ .* [0-9.]+ [nu]s( +[0-9]+%)?( [-A-Z1]+)?$" "$tmp/p.txt" \
  && grep -q "the median of the repetitions' figures" "$tmp/p.txt" \
  || { echo "FAIL: console with repetitions:"; cat "$tmp/p.txt"; fail=1; }

# 9. compare --metric judges runs: 3 processes a side, each process one run;
#    the JSON names the metric and counts the runs.
for side in pb ph; do
  run "$bin" --exact 'count_set_bits[42, t=1]' --threads 1 --counters task-clock,page-faults \
    --processes 3 --sample-count 9 --warmup-time 5ms --max-time 300ms --format json \
    --output "$tmp/$side.json" 2> /dev/null || { echo "FAIL: $side run"; fail=1; }
done
"$tool" compare --metric task-clock --format json "$tmp/pb.json" "$tmp/ph.json" > "$tmp/pc.json" \
  || { echo "FAIL: compare --metric task-clock on processes"; fail=1; }
python3 - "$tmp/pc.json" "$tmp/pb.json" <<'PY' || fail=1
import json, math, statistics, sys
c = json.load(open(sys.argv[1]))
assert c["metric"] == "task-clock" and c["unit"] == "ns", (c["metric"], c["unit"])
row = c["instances"][0]
assert row["base_runs"] == 3 and row["head_runs"] == 3, row
assert row["basis"] == "processes", row
assert row["verdict"] in ("regressed", "improved", "untouched", "noisy"), row
# BASE's value: the geometric mean of each process's median (its one
# repetition's per-iteration task-clock), 3 runs, none trimmed.
it = [b for b in json.load(open(sys.argv[2]))["benchmarks"] if b["run_type"] == "iteration"]
meds = [b["ompbench"]["counters"]["per_iteration"]["task-clock"] for b in it]
want = math.exp(statistics.mean(math.log(m) for m in meds))
assert abs(row["base_ns"] - want) <= 1e-6 * want, (row["base_ns"], want)
PY

# 10. CPU simulation (under callgrind) counts no perf events: it says so.
if command -v valgrind > /dev/null && ! grep -q '^OMPB_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2> /dev/null; then
  timeout 300 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$tmp/cg.%p" \
    "$bin" --exact 'count_set_bits[42, t=2]' --threads 2 --counters task-clock > "$tmp/sim.txt" 2> "$tmp/sim.err" \
    || { echo "FAIL: simulation with --counters"; cat "$tmp/sim.err"; fail=1; }
  grep -q "CPU simulation: callgrind counts the instructions, the thread runs alone; --counters ignored" \
    "$tmp/sim.err" || { echo "FAIL: no simulation notice:"; cat "$tmp/sim.err"; fail=1; }
else
  echo "note: simulation case not tried (no valgrind, or a sanitizer build)"
fi

# 7. --list-counters: what this machine offers, and the libpfm4 line.
"$bin" --list-counters > "$tmp/list" || { echo "FAIL: --list-counters"; fail=1; }
grep -q "^  task-clock  *available" "$tmp/list" || { echo "FAIL: task-clock not listed"; fail=1; }
grep -q "^Named events" "$tmp/list" || { echo "FAIL: no libpfm4 line"; fail=1; }
exit $fail
