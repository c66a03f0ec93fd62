#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bodies that stop the run (issue 14, item 4), with tests/hostile_fixture.c:
# - exit() from a body (thread 1 of a team): exit status 1, one line naming
#   the instance and the status it passed, and the report of what completed
#   (marked partial) with the instance that exited as failed; the same with
#   --processes, where the child hands its completed records to the parent;
# - SIGINT/SIGTERM while `slow` runs: the report of what completed, marked
#   partial, no temporary file, exit status 128 + signal; also through
#   --processes, and with a body that never returns (the guard's thread
#   answers after its grace second);
# - --timeout 2s with a body hung on thread 1: exit status 1 within the
#   script's 30 s bound, a message naming the instance and thread 1, the
#   report with the completed instance and the failed one.
# Usage: hostile_stop.sh BUILD_DIR SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
bin=$build/tests/hostile_fixture
[ -x "$bin" ] || { echo "hostile_stop: no $bin; skipped"; exit 77; }
short=(--sample-count 5 --warmup-time 0ns --min-time 100us --max-time 200ms)

# check_json FILE BY 'name|state ...': the context's partial marker and each
# iteration entry's state (ok, failed: TEXT in its message, absent).
check_json() {
  python3 - "$@" <<'PY'
import json, sys
path, by, want = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    doc = json.load(open(path))
except (OSError, ValueError) as e:
    print("FAIL: %s: %s" % (path, e)); sys.exit(1)
ctx, errors = doc["context"], []
if by == "-":
    if "partial" in ctx:
        errors.append("marked partial: %r" % ctx.get("interrupted_by"))
elif ctx.get("partial") is not True or ctx.get("interrupted_by") != by:
    errors.append("context not marked partial by %s: %r" % (by, {k: ctx.get(k) for k in ("partial", "interrupted_by")}))
runs = {}
for b in doc["benchmarks"]:
    if b.get("run_type") == "iteration":
        runs.setdefault(b["name"], []).append(b)
for w in want:
    name, state = w.split("|", 1)
    got = runs.get(name, [])
    if state == "absent":
        if got:
            errors.append("%s is in the report" % name)
        if by != "-" and name not in ctx.get("not_run", []):
            errors.append("%s not listed in not_run %r" % (name, ctx.get("not_run")))
    elif not got:
        errors.append("%s is not in the report" % name)
    elif state == "ok":
        if any(b.get("error_occurred") for b in got) or not all(b["iterations"] > 0 for b in got):
            errors.append("%s is not a result: %r" % (name, got))
    else:
        text = state.split(":", 1)[1]
        if not all(b.get("error_occurred") and text in b.get("error_message", "") for b in got):
            errors.append("%s: not failed with %r: %r" % (name, text, [b.get("error_message") for b in got]))
for e in errors:
    print("FAIL: %s: %s" % (path, e))
sys.exit(1 if errors else 0)
PY
}

# ---- exit() from a body ------------------------------------------------------
for code in 0 3; do
  OMPB_HOSTILE_EXIT=$code timeout 60 "$bin" --filter '^(quick|exits|slow)' "${short[@]}" \
    --format json --output "$tmp/exit$code.json" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || fail "exit($code): exit status $rc, want 1"
  grep -q "exits\[t=2\]: the benchmark called exit($code) while it was being measured" "$tmp/err" ||
    { fail "exit($code): no message naming the instance"; cat "$tmp/err"; }
  [ "$(grep -c 'called exit' "$tmp/err")" -eq 1 ] || fail "exit($code): not one line"
  check_json "$tmp/exit$code.json" exit "quick|ok" "exits[t=2]|failed:called exit($code)" "slow|absent" ||
    fails=$((fails + 1))
done
# Every thread of the team calls exit(0) at once (glibc runs each exit
# handler once, so a second exiting thread must not find the run's handler
# gone and end the process with status 0): still status 1, the report, no
# temporary file. Five tries, as the threads race.
for try in 1 2 3 4 5; do
  OMPB_HOSTILE_EXIT=0 OMPB_HOSTILE_EXIT_ALL=1 timeout 60 "$bin" --filter '^(quick|exits)' \
    "${short[@]}" --format json --output "$tmp/all.json" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || { fail "exit() on every thread, try $try: exit status $rc, want 1"; cat "$tmp/err"; }
  check_json "$tmp/all.json" exit "quick|ok" "exits[t=2]|failed:called exit(0)" || fails=$((fails + 1))
  ls "$tmp" | grep -q '\.tmp\.' && fail "exit() on every thread, try $try: a temporary file is left"
  rm -f "$tmp/all.json"
done
# The console report says it too.
OMPB_HOSTILE_EXIT=0 timeout 60 "$bin" --filter '^(quick|exits)' "${short[@]}" > "$tmp/console" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "exit, console: exit status $rc, want 1"
grep -q '^partial: .*stopped early (exit)' "$tmp/console" || { fail "exit, console: no partial line"; cat "$tmp/console"; }
grep -q '^quick ' "$tmp/console" || fail "exit, console: quick missing"
# Without the variable the same run is complete and says nothing of it.
timeout 60 "$bin" --filter '^(quick|exits)' "${short[@]}" --format json --output "$tmp/calm.json" 2> "$tmp/err" ||
  fail "calm run: exit status $?"
check_json "$tmp/calm.json" - "quick|ok" "exits[t=2]|ok" || fails=$((fails + 1))
# --processes: each child stops at exits and hands over what it completed.
OMPB_HOSTILE_EXIT=0 timeout 60 "$bin" --filter '^(quick|exits)' "${short[@]}" --processes 2 \
  --format json --output "$tmp/proc.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "exit, --processes: exit status $rc, want 1"
check_json "$tmp/proc.json" - "exits[t=2]|failed:called exit(0)" || { fails=$((fails + 1)); cat "$tmp/err"; }
python3 - "$tmp/proc.json" <<'PY' || fail "exit, --processes: a repetition of quick is neither a result nor named lost"
import json, sys
q = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["name"] == "quick" and b["run_type"] == "iteration"]
sys.exit(0 if len(q) == 2 and all(not b.get("error_occurred") or "handed over no result" in b["error_message"] for b in q) else 1)
PY

# ---- SIGINT / SIGTERM ---------------------------------------------------------
# Job control: background jobs keep SIGINT at its default (without it, bash
# starts them with SIGINT ignored, and so does the run).
set -m
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
# interrupt NAME SIGNAL WANT_RC OUT ENV... -- ARGS...: starts the fixture, waits
# for `slow` to start (its mark file), sends SIGNAL; output to OUT.
interrupt() {
  local name=$1 sig=$2 want=$3 out=$4 i
  shift 4
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  rm -f "$tmp/mark"
  env OMPB_HOSTILE_MARK="$tmp/mark" "${envs[@]}" timeout 120 "$bin" "$@" > "$out" 2> "$tmp/err" &
  pid=$!
  for i in $(seq 1200); do [ -e "$tmp/mark" ] && break; sleep 0.05; done
  [ -e "$tmp/mark" ] || fail "$name: the instance never started"
  sleep 0.2
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  pid=
  [ "$rc" -eq "$want" ] || { fail "$name: exit status $rc, want $want"; cat "$tmp/err"; }
  grep -q "interrupted by SIG$sig" "$tmp/err" || { fail "$name: no message"; cat "$tmp/err"; }
  if ls "$tmp" | grep -q '\.tmp\.'; then fail "$name: temporary file left"; fi
}
long=(--sample-count 1000 --warmup-time 0ns --min-time 100us --max-time 60s)
interrupt SIGINT INT 130 /dev/null -- --filter '^(quick|slow)$' "${long[@]}" --format json --output "$tmp/int.json"
check_json "$tmp/int.json" SIGINT "quick|ok" "slow|absent" || { fails=$((fails + 1)); cat "$tmp/err"; }
grep -q 'not run: slow' "$tmp/err" || fail "SIGINT: the message does not name what did not run"
interrupt SIGTERM TERM 143 /dev/null -- --filter '^(quick|slow)$' "${long[@]}" --format json --output "$tmp/term.json"
check_json "$tmp/term.json" SIGTERM "quick|ok" "slow|absent" || { fails=$((fails + 1)); cat "$tmp/err"; }
interrupt console INT 130 "$tmp/console" -- --filter '^(quick|slow)$' "${long[@]}"
grep -q '^partial: .*(SIGINT); not run: slow' "$tmp/console" || { fail "SIGINT, console: no partial line"; cat "$tmp/console"; }
grep -q '^quick ' "$tmp/console" || fail "SIGINT, console: quick missing"
# --processes: the parent passes the signal on and writes what came back.
interrupt processes INT 130 /dev/null -- --filter '^(quick|slow)$' "${long[@]}" --processes 2 \
  --format json --output "$tmp/proc_int.json"
check_json "$tmp/proc_int.json" SIGINT "slow|absent" || fails=$((fails + 1))
# A body that never returns: the master cannot answer; the guard's thread
# writes what completed a grace second later and the run dies of the signal.
interrupt "hang + SIGINT" INT 130 /dev/null OMPB_HOSTILE_HANG=1 -- --filter '^(quick|hangs)' "${short[@]}" \
  --format json --output "$tmp/hang_int.json"
grep -q 'hangs\[t=2\]: interrupted by SIGINT.*thread 1 of 2 still in the body' "$tmp/err" ||
  { fail "hang + SIGINT: the message does not name the stuck thread"; cat "$tmp/err"; }
check_json "$tmp/hang_int.json" SIGINT "quick|ok" "hangs[t=2]|absent" || fails=$((fails + 1))

# ---- --timeout: a body that never returns ------------------------------------
# D must hold the completed instance's whole slot (its first team start
# included) on a loaded machine or under ASan: 2 s, scaled.
to=$((2 * mult))s
bound=$((30 * mult))
# A timeout the instances stay inside changes nothing.
timeout $((60 * mult)) "$bin" --filter '^(quick|hangs)' "${short[@]}" --timeout 20s --format json \
  --output "$tmp/calm2.json" 2> "$tmp/err" || fail "--timeout, calm: exit status $?"
check_json "$tmp/calm2.json" - "quick|ok" "hangs[t=2]|ok" || fails=$((fails + 1))
OMPB_HOSTILE_HANG=1 timeout $bound "$bin" --filter '^(quick|hangs|slow)' "${short[@]}" --timeout $to \
  --format json --output "$tmp/hang.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || { fail "--timeout: exit status $rc, want 1 (124: the run hung)"; cat "$tmp/err"; }
grep -q "hangs\[t=2\]: --timeout $to expired (thread 1 of 2 still in the body)" "$tmp/err" ||
  { fail "--timeout: the message does not name the instance and thread 1"; cat "$tmp/err"; }
check_json "$tmp/hang.json" timeout "quick|ok" "hangs[t=2]|failed:--timeout $to expired" "slow|absent" ||
  fails=$((fails + 1))
# Every child of --processes has its own watchdog; the parent reports each.
# hangs runs alone: with quick first in a child's shuffled order, a loaded
# machine can hold quick's slot beyond the timeout, which ends that child
# before hangs starts ("process 2 of 2 handed over no result" for hangs:
# the run was right, the expectation was not).
OMPB_HOSTILE_HANG=1 timeout $bound "$bin" --filter '^hangs' "${short[@]}" --timeout $to \
  --processes 2 --format json --output "$tmp/hang_proc.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || { fail "--timeout, --processes: exit status $rc, want 1"; cat "$tmp/err"; }
check_json "$tmp/hang_proc.json" - "hangs[t=2]|failed:--timeout $to expired" ||
  fails=$((fails + 1))

[ $fails -eq 0 ] && echo "hostile_stop: exit(), signals and --timeout handled"
[ $fails -eq 0 ]
