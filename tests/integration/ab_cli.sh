#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench ab` end to end on the A/B fixture, the hostile fixture and a
# stand-in with chosen run values (tests/ab_fake.py), each call bounded by
# timeout(1); no absolute time and no verdict of a measured run is
# asserted: the verdicts, the gate and the run counts are checked on the
# stand-in's written values, which no load can disturb (under load a real
# HEAD's preempted rounds make an honest "disturbed", and its runs with too
# few clean rounds are not counted). Covers: bad input and a build that cannot run
# (exit 2, no report file), the CodSpeed runner refused, a wrapper command
# (--head-cmd through a script that logs its arguments), the verdict and
# the gate, --time and --fail-on-undecided, undecided failing
# --fail-on-regression unless --allow-undecided, --metric (unknown, on one
# side only, judged) and --max-time 0, every run kept (--keep), the
# markdown/JSON reports, a seeded order, futility stopping with and
# without --no-futility, no progress line when stderr is not a terminal
# (and one when it is, under script(1) when present), a crashing run and a
# run writing a bad file (counted, not pooled, the gate fails), a HEAD that
# always fails (stopped after three in a row), a hanging run (--timeout
# passed through: the instance fails in HEAD; without it, the end of
# --time stops it), different instance sets (new and missing reported, the
# common ones compared) and Ctrl-C (a partial report, exit 130; a run deaf
# to it is stopped after a grace). Every call pairs by run (--pair-by run):
# the run counts checked here are whole-suite runs; pairs by instance and
# --pair-by auto are tests/integration/ab_pair_by.sh's.
# Usage: ab_cli.sh BUILD_DIR SOURCE_DIR
fail_fast=1
keep_tmp=${OMPB_AB_KEEP_TMP:-}
. "$(dirname "$0")/lib.sh" "$@"
set -e
bin=$(realpath "$build/tests/ab_fixture")
hostile=$(realpath "$build/tests/hostile_fixture")
tool=$(realpath "$build/tools/ompbench")
pids=()
at_exit() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  # The deaf run's group (its own, as ab makes it), if a failure left it.
  [ -s "$tmp/deaf.pid" ] && kill -KILL -- "-$(cat "$tmp/deaf.pid")" 2>/dev/null || true
}
[ -x "$bin" ] && [ -x "$hostile" ] || { echo "no fixtures in this build"; exit 77; }
m=$mult
limit=$((300 * m))
# A small budget per run, rounds of a fixed size (calibration under load can
# go wrong, docs/methodology.md; a median of 7 rounds shrugs off preemption).
# The verdict check runs one thread per team: a loaded machine stretches a
# round of two threads whenever either waits for a CPU.
quick=(--sample-count 7 --sample-size 100 --warmup-time 0 --max-time 300ms)
json() { # json FILE CODE [ARG]: CODE with the document as d (ARG is sys.argv[2])
  /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1" "${@:3}"
}

# ---- bad input, a build that cannot run, the runner --------------------------
expect2() { # expect2 PATTERN ARGS...: exit 2 and the message
  local pat=$1 out status
  shift
  set +e
  out=$(timeout "$limit" "$tool" ab --pair-by run "$@" 2>&1)
  status=$?
  set -e
  [ "$status" = 2 ] || fail "ab $*: exit status $status, want 2 ($out)"
  grep -qF -- "$pat" <<< "$out" || fail "ab $*: message '$out' lacks '$pat'"
}
expect2 "expected 2 benchmark binaries" "$bin"
expect2 "--max-runs: invalid value '1'" --max-runs 1 "$bin" "$bin"
expect2 "--max-runs 4 is below --min-runs 5" --min-runs 5 --max-runs 4 "$bin" "$bin"
expect2 "--time: invalid value '10'" --time 10 "$bin" "$bin"
expect2 "--format: invalid value 'html'" --format html "$bin" "$bin"
expect2 "--head-cmd: empty command" --head-cmd ' ' "$bin"
expect2 "HEAD '$tmp/nothing' cannot run" --output "$tmp/never.md" "$bin" "$tmp/nothing"
[ ! -e "$tmp/never.md" ] || fail "a report was written for a build that cannot run"
expect2 "BASE '$tmp/nothing --x' cannot run (--list ended with exit status 127)" --base-cmd "$tmp/nothing --x" "$bin"
CODSPEED_ENV=runner expect2 "refused under the CodSpeed runner" "$bin" "$bin"
expect2 "no instance in common" "$bin" "$hostile"

# ---- the verdict and the gate, on chosen run values (tests/ab_fake.py) -------
# HEAD's `steady` takes 10x as long (AB_FAKE_SLOW): regressed at the first
# look whatever the machine's load (the values are written, not measured),
# and a regression alone fails --fail-on-regression; without it, status 0.
fake=$(realpath "$2/tests/ab_fake.py")
for gate in "" --fail-on-regression; do
  rm -f "$tmp"/*.n
  set +e
  AB_FAKE_DIR=$tmp AB_FAKE_SLOW=10 timeout "$limit" "$tool" ab --pair-by run --max-runs 12 $gate --format json \
    --output "$tmp/slow.json" --markdown "$tmp/slow.md" \
    --base-cmd "AB_FAKE_SIDE=base $fake" --head-cmd "AB_FAKE_SIDE=head $fake" -- --exact steady \
    2> "$tmp/slow.err"
  status=$?
  set -e
  want=0
  [ -n "$gate" ] && want=1
  [ "$status" = "$want" ] || fail "10x slower HEAD ($gate): exit status $status, want $want ($(cat "$tmp/slow.err"))"
done
grep -q "the gate fails: 1 regressed or failed, 0 undecided" "$tmp/slow.err" ||
  fail "10x slower HEAD: no line says why the gate fails: $(cat "$tmp/slow.err")"
json "$tmp/slow.json" '
rows = {r["name"]: r for r in d["instances"]}
assert set(rows) == {"steady"}, rows
s = rows["steady"]
assert s["verdict"] == "regressed", s
assert s["ci_low_pct"] > 5 and s["looks"] == 1 and s["q_value"] <= 0.05, s
assert s["base_runs"] == 3 and s["head_runs"] == 3, s
assert not d["partial"] and d["faults"] == [], d
'
grep -q '^### ompbench ab' "$tmp/slow.md" && grep -q '| `steady` |.*\*\*regressed\*\*' "$tmp/slow.md" ||
  fail "markdown report: $(cat "$tmp/slow.md")"

# ---- a wrapper, kept runs, the seed, non-terminal output (the real binary) ------
# What needs a real binary: --head-cmd through a script that logs its
# arguments, every run kept, the reports' frame. The machine's load decides
# the verdicts here (regressed, or disturbed when HEAD's rounds were
# preempted), so none is asserted; the gate fails either way, never 0.
cat > "$tmp/wrap.sh" <<EOF
#!/bin/sh
echo "\$*" >> "$tmp/wrap.log"
OMPB_AB_FACTOR=10 exec "$bin" "\$@"
EOF
chmod +x "$tmp/wrap.sh"
set +e
timeout "$limit" "$tool" ab --pair-by run --seed 11 --max-runs 12 --keep "$tmp/keep" --fail-on-regression \
  --format json --output "$tmp/ab.json" --markdown "$tmp/ab.md" \
  --head-cmd "$tmp/wrap.sh" "$bin" -- "${quick[@]}" --threads 1 --filter '^(slowed|steady_chain\[200,)' \
  2> "$tmp/ab.err"
status=$?
set -e
[ "$status" = 1 ] || fail "10x slower HEAD with --fail-on-regression: exit status $status ($(cat "$tmp/ab.err"))"
json "$tmp/ab.json" '
rows = {r["name"]: r for r in d["instances"]}
assert set(rows) == {"slowed[t=1]", "steady_chain[200, t=1]"}, rows
assert d["head"]["shell"] and not d["base"]["shell"], d["head"]
assert d["seed"] == "11" and not d["partial"], d
assert d["faults"] == [], d["faults"]
assert d["looks"][0] == 3 and d["looks"][-1] == 12, d["looks"]
n = d["base"]["runs"]
assert 3 <= n <= 12 and d["head"]["runs"] == n, (n, d["head"])
'
grep -q -- "--format json --output $tmp/keep/head-001.json" "$tmp/wrap.log" ||
  fail "the wrapper did not get the run's options: $(head -3 "$tmp/wrap.log")"
grep -q -- "--list" "$tmp/wrap.log" || fail "HEAD's --list did not go through the wrapper"
runs=$(json "$tmp/ab.json" 'print(d["base"]["runs"])')
for i in $(seq -f %03g 1 "$runs"); do
  [ -s "$tmp/keep/base-$i.json" ] && [ -s "$tmp/keep/head-$i.json" ] ||
    fail "--keep: run $i missing: $(ls "$tmp/keep")"
done
grep -q '^### ompbench ab' "$tmp/ab.md" && grep -q '| `slowed\[t=1\]` |' "$tmp/ab.md" ||
  fail "markdown report: $(cat "$tmp/ab.md")"
grep -q "seed 11 (--seed 11 repeats the order)" "$tmp/ab.err" || fail "seed not printed: $(cat "$tmp/ab.err")"
if grep -q $'\r' "$tmp/ab.err" || grep -q "instances decided" "$tmp/ab.err"; then
  fail "a progress line with stderr not a terminal: $(cat -A "$tmp/ab.err" | head -3)"
fi
# The same seed repeats the order within every pair.
order() { # order SEED: the sides in the order they ran, one letter each
  rm -f "$tmp/order.log"
  timeout "$limit" "$tool" ab --pair-by run --seed "$1" --min-runs 6 --max-runs 6 \
    --base-cmd "echo B >> $tmp/order.log; exec $bin" --head-cmd "echo H >> $tmp/order.log; exec $bin" \
    -- "${quick[@]}" --exact slowed > /dev/null 2>&1 || fail "order: ab failed"
  tr -d '\n' < "$tmp/order.log"
}
o1=$(order 3)
o2=$(order 3)
[ "$o1" = "$o2" ] || fail "--seed 3 gave the orders $o1 and $o2"
[ "${#o1}" = 14 ] || fail "order: $o1 (want 2 lists and 12 runs)"
# On a terminal the progress line is there (script(1) gives one).
if command -v script >/dev/null; then
  timeout "$limit" script -qec "'$tool' ab --max-runs 3 '$bin' '$bin' -- ${quick[*]} --exact slowed \
    > '$tmp/tty.out'" "$tmp/tty.log" > /dev/null || fail "ab under script(1): $(cat "$tmp/tty.log")"
  grep -q "instances decided, runs" "$tmp/tty.log" || fail "no progress line on a terminal: $(cat -A "$tmp/tty.log" | head)"
  grep -q "instances decided" "$tmp/tty.out" && fail "progress line in the report"
fi

# ---- the --time budget and --fail-on-undecided ----------------------------------
# No look before 40 runs: nothing can be decided in the budget; the runs
# end at --time (not partial), the instance is not looked at, the gate fails.
# On a loaded machine the end of --time may cut a side's first run, or
# the other side's first run may take the whole budget: then nothing was
# compared, which is exit status 2 with one line saying so (issue 30),
# never 0. (A CI run under load met the second: the --list runs took
# 0.6 s and HEAD's first run the rest.)
set +e
timeout "$limit" "$tool" ab --pair-by run --time 1s --min-runs 40 --max-runs 40 --fail-on-undecided \
  --format json "$bin" "$bin" -- "${quick[@]}" --exact slowed > "$tmp/time.json" 2> "$tmp/time.err"
status=$?
set -e
cut_first='none of its 1 run gave a usable result file (the last: killed, still running at its deadline (the end of --time)'
no_first="--time 1s: the budget ended before (BASE|HEAD)'s first run .*; nothing was compared\$"
if [ "$status" = 1 ]; then
  json "$tmp/time.json" '
assert not d["partial"] and d["stop_reason"].startswith("--time budget spent"), d["stop_reason"]
assert d["base"]["runs"] < 40, d["base"]
assert d["instances"][0]["verdict"] == "noise_unknown" and d["summary"]["open"] == 1, d
'
elif [ "$status" = 2 ] && { grep -qF -e "$cut_first" "$tmp/time.err" || grep -qE -e "$no_first" "$tmp/time.err"; }; then
  # Nothing was compared: the report (written when a run was made) judges
  # nothing and lists the cut run.
  if [ -s "$tmp/time.json" ]; then
    json "$tmp/time.json" '
assert d["summary"]["judged"] == 0 and d["summary"]["open"] == 1, d["summary"]
assert d["faults"], d
'
  fi
else
  fail "--time with --fail-on-undecided: exit status $status ($(cat "$tmp/time.err"))"
fi

# ---- decisions on chosen run values (tests/ab_fake.py) ---------------------------
# `steady` is untouched at the first look (3 runs a side); `wild` (runs
# spread ~60%) is too noisy for any look: futility stops it at the fourth
# look (7 runs a side), --no-futility runs it to --max-runs.
for mode in futility no-futility; do
  rm -f "$tmp"/*.n
  extra=()
  [ "$mode" = no-futility ] && extra=(--no-futility)
  AB_FAKE_DIR=$tmp timeout "$limit" "$tool" ab --pair-by run --max-runs 12 "${extra[@]}" --format json \
    --base-cmd "AB_FAKE_SIDE=base $fake" --head-cmd "AB_FAKE_SIDE=head $fake" \
    > "$tmp/fake.json" 2> "$tmp/fake.err" || fail "fake ($mode): $(cat "$tmp/fake.err")"
  json "$tmp/fake.json" '
import sys
mode = sys.argv[2]
rows = {r["name"]: r for r in d["instances"]}
s, w = rows["steady"], rows["wild"]
assert s["verdict"] == "untouched" and s["base_runs"] == 3 and s["looks"] == 1, s
want = 7 if mode == "futility" else 12
assert w["verdict"] == "noisy" and w["base_runs"] == want and w["head_runs"] == want, (mode, w)
assert ("not run further" in w["note"]) == (mode == "futility"), w["note"]
assert d["base"]["runs"] == want and d["summary"]["open"] == 0, d["base"]
' "$mode"
done

# ---- a gate never passes silently: undecided fails --fail-on-regression ----------
# `wild` stays noisy: with --fail-on-regression the gate fails on it (one
# line says so) unless --allow-undecided; without a gate, status 0.
for mode in gate allow plain; do
  rm -f "$tmp"/*.n
  extra=(--fail-on-regression)
  [ "$mode" = allow ] && extra=(--fail-on-regression --allow-undecided)
  [ "$mode" = plain ] && extra=()
  set +e
  AB_FAKE_DIR=$tmp timeout "$limit" "$tool" ab --pair-by run --max-runs 7 "${extra[@]}" --format json \
    --base-cmd "AB_FAKE_SIDE=base $fake" --head-cmd "AB_FAKE_SIDE=head $fake" \
    > "$tmp/undecided.json" 2> "$tmp/undecided.err"
  status=$?
  set -e
  want=0
  [ "$mode" = gate ] && want=1
  [ "$status" = "$want" ] || fail "undecided ($mode): exit status $status, want $want ($(cat "$tmp/undecided.err"))"
  if [ "$mode" = gate ]; then
    grep -q "the gate fails: 0 regressed or failed, 1 undecided (undecided fails --fail-on-regression unless --allow-undecided)" "$tmp/undecided.err" ||
      fail "undecided gate: no line says why: $(cat "$tmp/undecided.err")"
  fi
done

# ---- --metric and the budget: bad input is one line, exit status 2 ---------------
check_bad() { # check_bad WHAT EXPECTED-TEXT ab-arguments...
  local what=$1 want=$2
  shift 2
  set +e
  timeout "$limit" "$tool" ab --pair-by run "$@" > "$tmp/bad.out" 2> "$tmp/bad.err"
  local status=$?
  set -e
  [ "$status" = 2 ] || fail "$what: exit status $status ($(cat "$tmp/bad.err"))"
  grep -q -- "$want" "$tmp/bad.err" || fail "$what: $(cat "$tmp/bad.err")"
  [ -s "$tmp/bad.out" ] && fail "$what: a report on stdout"
  true
}
check_bad "--max-time 0" "--max-time: invalid value '0' (accepted: a duration above 0" \
  --max-time 0 "$bin" "$bin"
check_bad "--metric unknown" "--metric bogus: [A-Z]* run 1: .*'bogus' is neither a user counter" \
  --max-runs 3 --metric bogus "$bin" "$bin" -- "${quick[@]}" --exact slowed
check_bad "--metric on one side" "--metric task-clock: HEAD run 1: .*run it with --counters task-clock" \
  --max-runs 3 --metric task-clock --base-cmd "$bin --counters task-clock" "$bin" \
  -- "${quick[@]}" --exact slowed
# A metric both sides count: judged on it, the method line says so.
timeout "$limit" "$tool" ab --pair-by run --max-runs 3 --metric task-clock "$bin" "$bin" \
  -- "${quick[@]}" --exact slowed --counters task-clock > "$tmp/metric.txt" 2> "$tmp/metric.err" ||
  fail "--metric task-clock: $(cat "$tmp/metric.err")"
grep -q "gives its median of task-clock per iteration over all its rounds (--metric)" "$tmp/metric.txt" ||
  fail "--metric task-clock: $(cat "$tmp/metric.txt")"

# ---- a crashing run and a bad file: counted, not pooled, the gate fails ----------
# On the stand-in (tests/ab_fake.py): its runs have no rounds to be
# disturbed, so every run that gave a file counts, whatever the load.
cat > "$tmp/flaky.sh" <<EOF
#!/bin/bash
# HEAD: --list works; run 2 crashes, run 3 writes a bad file; the others run.
case " \$* " in *" --list "*) exec "$fake" "\$@";; esac
n=\$(( \$(cat "$tmp/flaky.n" 2>/dev/null || echo 0) + 1 ))
echo \$n > "$tmp/flaky.n"
[ \$n = 2 ] && kill -SEGV \$\$
"$fake" "\$@" || exit
if [ \$n = 3 ]; then
  while [ \$# -gt 0 ]; do [ "\$1" = --output ] && echo '{"benchmarks": [' > "\$2"; shift; done
fi
EOF
chmod +x "$tmp/flaky.sh"
# The gate fails on the faults alone: HEAD's 3 usable runs are below the
# first look (5 a side), and --allow-undecided keeps that open instance
# from failing it.
for gate in "" "--fail-on-regression --allow-undecided"; do
  rm -f "$tmp"/*.n
  set +e
  AB_FAKE_DIR=$tmp timeout "$limit" "$tool" ab --pair-by run --seed 5 --max-runs 5 --min-runs 5 $gate --format json \
    --base-cmd "AB_FAKE_SIDE=base $fake" --head-cmd "AB_FAKE_SIDE=head $tmp/flaky.sh" -- --exact steady \
    > "$tmp/flaky.json" 2> "$tmp/flaky.err"
  status=$?
  set -e
  want=0
  [ -n "$gate" ] && want=1
  [ "$status" = "$want" ] || fail "flaky HEAD ($gate): exit status $status, want $want ($(cat "$tmp/flaky.err"))"
done
grep -q "the gate fails: 0 regressed or failed, 1 undecided, HEAD runs that crashed, hung or wrote a bad file" \
  "$tmp/flaky.err" || fail "flaky HEAD: no line says why the gate fails: $(cat "$tmp/flaky.err")"
json "$tmp/flaky.json" '
f = {(x["side"], x["run"]): x for x in d["faults"]}
assert set(f) == {("head", 2), ("head", 3)}, d["faults"]
assert f[("head", 2)]["outcome"] == "crashed" and "signal 11" in f[("head", 2)]["detail"], f
assert f[("head", 3)]["outcome"] == "bad file", f
assert d["head"]["runs"] == 5 and d["head"]["pooled"] == 3 and d["base"]["pooled"] == 5, d
r = d["instances"][0]
assert r["head_runs"] == 3 and r["base_runs"] == 5, r
assert r["verdict"] == "noise_unknown" and r["looks"] == 0, r
'

# A HEAD whose every run fails (status 3, after writing to stderr): no pair
# starts after three in a row; the gate fails.
cat > "$tmp/broken.sh" <<EOF
#!/bin/sh
case " \$* " in *" --list "*) exec "$bin" "\$@";; esac
echo "broken: cannot map the input" >&2
exit 3
EOF
chmod +x "$tmp/broken.sh"
set +e
timeout "$limit" "$tool" ab --pair-by run --fail-on-regression --format json --head-cmd "$tmp/broken.sh" "$bin" \
  -- "${quick[@]}" --exact slowed > "$tmp/broken.json" 2> "$tmp/broken.err"
status=$?
set -e
[ "$status" = 1 ] || fail "broken HEAD: exit status $status ($(cat "$tmp/broken.err"))"
json "$tmp/broken.json" '
assert d["stop_reason"] == "HEAD failed 3 runs in a row", d["stop_reason"]
assert d["head"]["runs"] == 3 and d["head"]["pooled"] == 0, d["head"]
assert all(x["outcome"] == "exit status" and x["detail"] == "exit status 3: broken: cannot map the input"
           for x in d["faults"]) and len(d["faults"]) == 3, d["faults"]
assert d["instances"][0]["verdict"] == "noise_unknown", d["instances"]
'

# ---- a hanging run: --timeout passed through -----------------------------------
set +e
timeout "$limit" "$tool" ab --pair-by run --timeout $((5 * m))s --max-runs 3 --format json --fail-on-regression \
  --head-cmd "OMPB_HOSTILE_HANG=1 OMPB_HOSTILE_MARK=$tmp/mark exec $hostile" "$hostile" \
  -- "${quick[@]}" --filter '^(quick|hangs)' > "$tmp/hang.json" 2> "$tmp/hang.err"
status=$?
set -e
[ "$status" = 1 ] || fail "hanging HEAD: exit status $status ($(cat "$tmp/hang.err"))"
json "$tmp/hang.json" '
rows = {r["name"]: r for r in d["instances"]}
h = rows["hangs[t=2]"]
assert h["verdict"] == "failed" and "s expired (thread 1 of 2 still in the body)" in h["note"], h
assert "quick" in rows, rows
assert any(x["side"] == "head" and x["outcome"] == "failed" for x in d["faults"]), d["faults"]
'

# Without --timeout, the end of --max-time stops a hanging run (and no run
# starts after it); a HEAD run stopped so fails the gate. The budget is
# named as given (--time above, --max-time here).
set +e
timeout "$limit" "$tool" ab --pair-by run --max-time $((5 * m))s --format json --fail-on-regression \
  --head-cmd "OMPB_HOSTILE_HANG=1 OMPB_HOSTILE_MARK=$tmp/mark2 exec $hostile" "$hostile" \
  -- "${quick[@]}" --filter '^hangs' > "$tmp/hang2.json" 2> "$tmp/hang2.err"
status=$?
set -e
[ "$status" = 1 ] || fail "hanging HEAD under --max-time: exit status $status ($(cat "$tmp/hang2.err"))"
json "$tmp/hang2.json" '
f = [x for x in d["faults"] if x["outcome"] == "killed"]
assert len(f) == 1 and f[0]["side"] == "head" and "the end of --max-time" in f[0]["detail"], d["faults"]
assert d["stop_reason"].startswith("--max-time budget spent"), d["stop_reason"]
'

# ---- different instance sets ---------------------------------------------------
set +e
timeout "$limit" "$tool" ab --pair-by run --max-runs 3 --format json \
  --base-cmd "$bin --filter '^(slowed|steady_chain)'" \
  --head-cmd "$bin --filter '^(slowed|steady_sum|steady_chain\[2000)'" \
  -- "${quick[@]}" > "$tmp/sets.json" 2> "$tmp/sets.err"
status=$?
set -e
[ "$status" = 0 ] || fail "different sets: exit status $status ($(cat "$tmp/sets.err"))"
grep -q "BASE and HEAD list different instances: 1 new (only in HEAD), 1 missing (only in BASE); comparing the 3 in common" \
  "$tmp/sets.err" || fail "different sets: $(cat "$tmp/sets.err")"
json "$tmp/sets.json" '
rows = {r["name"]: r for r in d["instances"]}
assert rows["steady_sum"]["verdict"] == "new", rows["steady_sum"]
assert rows["steady_chain[200]"]["verdict"] == "missing", rows
for n in ("slowed", "steady_chain[2000]", "steady_chain[20000]"):
    assert rows[n]["base_runs"] >= 2 and rows[n]["head_runs"] >= 2, rows[n]
'

# ---- Ctrl-C: the report of what was run so far ---------------------------------
"$tool" ab --pair-by run --min-runs 40 --max-runs 40 --keep "$tmp/int" --format json --output "$tmp/int.json" \
  "$bin" "$bin" -- "${quick[@]}" --exact slowed 2> "$tmp/int.err" &
pid=$!
pids+=("$pid")
# Once a run of the third pair has started (its log exists), both runs of
# the second have ended.
for _ in $(seq 1 $((600 * m))); do
  [ -e "$tmp/int/head-003.log" ] || [ -e "$tmp/int/base-003.log" ] && break
  sleep 0.1
done
[ -e "$tmp/int/head-003.log" ] || [ -e "$tmp/int/base-003.log" ] || fail "Ctrl-C: no third pair in time"
kill -INT "$pid"
set +e
wait "$pid"
status=$?
set -e
[ "$status" = 130 ] || fail "Ctrl-C: exit status $status ($(cat "$tmp/int.err"))"
json "$tmp/int.json" '
assert d["partial"] and "interrupted by signal 2" in d["stop_reason"], d["stop_reason"]
assert d["base"]["pooled"] >= 2 and d["head"]["pooled"] >= 2, d
assert d["instances"][0]["base_runs"] >= 2, d["instances"]
'
grep -q "writing the report of what was run so far" "$tmp/int.err" || fail "Ctrl-C: $(cat "$tmp/int.err")"
# A run that ignores the signal is stopped after a grace, and the report
# is still written.
cat > "$tmp/deaf.sh" <<EOF
#!/bin/bash
case " \$* " in *" --list "*) exec "$bin" "\$@";; esac
trap '' INT TERM HUP
echo \$\$ > "$tmp/deaf.pid"
touch "$tmp/deaf.started"
sleep 600
EOF
chmod +x "$tmp/deaf.sh"
"$tool" ab --pair-by run --format json --output "$tmp/deaf.json" --head-cmd "$tmp/deaf.sh" "$bin" \
  -- "${quick[@]}" --exact slowed 2> "$tmp/deaf.err" &
pid=$!
pids+=("$pid")
for _ in $(seq 1 $((600 * m))); do
  [ -e "$tmp/deaf.started" ] && break
  sleep 0.1
done
[ -e "$tmp/deaf.started" ] || fail "deaf run: not started in time"
kill -INT "$pid"
timeout $((120 * m)) tail --pid="$pid" -f /dev/null || fail "deaf run: ab did not end after Ctrl-C"
set +e
wait "$pid"
status=$?
set -e
[ "$status" = 130 ] || fail "deaf run: exit status $status ($(cat "$tmp/deaf.err"))"
json "$tmp/deaf.json" '
assert d["partial"], d["stop_reason"]
assert [x["outcome"] for x in d["faults"]] == ["interrupted"], d["faults"]
'
echo "ab_cli: ok"
