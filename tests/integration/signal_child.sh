#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Signals and jumps that used to lose results or crash (issue 19, defects
# 1, 2, 4 and 10), with tests/hostile_fixture.c:
# - SIGTERM, then SIGINT, to each --processes child alone (never to the
#   parent), each in its second repetition: the parent reads the
#   repetition each child completed before it died (2 of 4 entries are
#   results, the other 2 fail naming the signal);
# - a body that raise()s SIGINT in a child: the same;
# - runner FIFOs (a fake runner) that appear after the parent started and
#   before its second child starts: the child keeps the parent's decision
#   (no runner), so the fake runner hears nothing and every repetition is
#   a result;
# - a body whose team blocks every signal: SIGTERM still stops the run (exit
#   143, the report marked partial); one that installs its own SIGINT
#   handler keeps it, and the run warns;
# - a longjmp out of the OMPB_ITER loop back into the body, on thread 0 or
#   1: exit 1 and one line, every time.
# Usage: signal_child.sh BUILD_DIR SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
bin=$build/tests/hostile_fixture
[ -x "$bin" ] || { echo "signal_child: no $bin; skipped"; exit 77; }
pid= peer=
# Job control: background jobs keep SIGINT at its default.
set -m
at_exit() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  [ -n "$peer" ] && kill "$peer" 2>/dev/null
}
# No runner but the ones this script starts.
export OMPB_RUNNER_CTL_FIFO="$tmp/ctl.fifo" OMPB_RUNNER_ACK_FIFO="$tmp/ack.fifo" OMP_NUM_THREADS=1
long=(--sample-count 1000 --warmup-time 0ns --min-time 100us --max-time 60s)

# wait_mark FILE [NOT_PID]: the pid written in FILE once it holds another
# one than NOT_PID (a new process marked it); empty after the bound.
wait_mark() {
  local i p
  for i in $(seq $((1200 * mult))); do
    if [ -s "$1" ]; then
      p=$(cat "$1")
      [ "$p" != "${2:-}" ] && { echo "$p"; return; }
    fi
    sleep 0.05
  done
}

# check_entries FILE OK LOST PHRASE: the slow entries of the JSON report:
# OK results and LOST failures whose message holds PHRASE.
check_entries() {
  python3 - "$@" <<'PY'
import json, sys
path, ok, lost, phrase = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
try:
    doc = json.load(open(path))
except (OSError, ValueError) as e:
    print("FAIL: %s: %s" % (path, e)); sys.exit(1)
runs = [b for b in doc["benchmarks"] if b.get("run_type") == "iteration"]
good = [b for b in runs if not b.get("error_occurred") and b["iterations"] > 0]
bad = [b.get("error_message", "") for b in runs if b.get("error_occurred")]
if len(good) != ok or len(bad) != lost or not all(phrase in m for m in bad):
    print("FAIL: %s: %d results and %d failures %r, want %d and %d saying %r"
          % (path, len(good), len(bad), bad, ok, lost, phrase))
    sys.exit(1)
PY
}

# ---- 1: a signal that reaches a --processes child only ------------------------
rm -f "$tmp/mark"
OMPB_HOSTILE_MARK="$tmp/mark" OMPB_HOSTILE_FROM=2 timeout $((120 * mult)) "$bin" --filter '^slow$' \
  --repetitions 4 --processes 2 "${long[@]}" --format json --output "$tmp/kill.json" \
  > /dev/null 2> "$tmp/err" &
pid=$!
first=$(wait_mark "$tmp/mark")
[ -n "$first" ] || fail "signal to a child: the first child never reached its second repetition"
[ -n "$first" ] && [ "$first" != "$pid" ] && { sleep 0.2; kill -TERM "$first"; }
second=$(wait_mark "$tmp/mark" "$first")
[ -n "$second" ] || fail "signal to a child: the second child never reached its second repetition"
[ -n "$second" ] && { sleep 0.2; kill -INT "$second"; }
wait "$pid"
rc=$?
pid=
[ $rc -eq 1 ] || { fail "signal to a child: exit status $rc, want 1"; cat "$tmp/err"; }
grep -q 'without results' "$tmp/err" && { fail "signal to a child: results declared lost"; cat "$tmp/err"; }
check_entries "$tmp/kill.json" 2 2 "killed by signal" || { fails=$((fails + 1)); cat "$tmp/err"; }
grep -q 'process 1 of 2 was killed by signal 15.*handed over 1 of its 2 repetitions' "$tmp/err" ||
  { fail "signal to a child: no line for process 1"; cat "$tmp/err"; }

# A body that raises SIGINT in each child's second repetition.
OMPB_HOSTILE_MARK="$tmp/mark2" OMPB_HOSTILE_FROM=2 OMPB_HOSTILE_RAISE=INT timeout $((120 * mult)) \
  "$bin" --filter '^slow$' --repetitions 4 --processes 2 "${long[@]}" --format json \
  --output "$tmp/raise.json" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || { fail "raise(SIGINT) in a child: exit status $rc, want 1"; cat "$tmp/err"; }
check_entries "$tmp/raise.json" 2 2 "killed by signal 2" || { fails=$((fails + 1)); cat "$tmp/err"; }

# ---- 2: a runner that appears between the parent's start and a child's -------
OMPB_HOSTILE_MARK="$tmp/mark3" OMPB_HOSTILE_GATE="$tmp/gate" timeout $((120 * mult)) "$bin" \
  --filter '^(quick|slow)$' --repetitions 2 --processes 2 --sample-count 5 --warmup-time 0ns \
  --min-time 100us --max-time 1s --format json --output "$tmp/runner.json" > /dev/null 2> "$tmp/err" &
pid=$!
[ -n "$(wait_mark "$tmp/mark3")" ] || fail "runner appears: the first child never started slow"
mkfifo "$tmp/ctl.fifo" "$tmp/ack.fifo"
python3 "$(dirname "$0")/../runner_peer.py" "$tmp/ctl.fifo" "$tmp/ack.fifo" ok -1 "$tmp/ready" 0 \
  "$tmp/frames" &
peer=$!
for _ in $(seq $((200 * mult))); do [ -e "$tmp/ready" ] && break; sleep 0.05; done
[ -e "$tmp/ready" ] || fail "runner appears: the fake runner did not start"
touch "$tmp/gate"
wait "$pid"
rc=$?
pid=
kill "$peer" 2>/dev/null; wait "$peer" 2>/dev/null; peer=
rm -f "$tmp/ctl.fifo" "$tmp/ack.fifo"
[ $rc -eq 0 ] || { fail "runner appears: exit status $rc, want 0"; cat "$tmp/err"; }
[ -e "$tmp/frames" ] && fail "runner appears: a child talked to the runner ($(cat "$tmp/frames") frames)"
check_entries "$tmp/runner.json" 4 0 - || { fails=$((fails + 1)); cat "$tmp/err"; }

# ---- 4: a team that blocks every signal ------------------------------------
OMPB_HOSTILE_MARK="$tmp/mark4" OMPB_HOSTILE_BLOCK=1 timeout $((120 * mult)) "$bin" \
  --filter '^(quick|blocks)' "${long[@]}" --format json --output "$tmp/block.json" \
  > /dev/null 2> "$tmp/err" &
pid=$!
target=$(wait_mark "$tmp/mark4")
[ -n "$target" ] || fail "blocked signals: blocks never started"
[ -n "$target" ] && { sleep 0.2; kill -TERM "$target"; }
wait "$pid"
rc=$?
pid=
[ $rc -eq 143 ] || { fail "blocked signals: exit status $rc, want 143"; cat "$tmp/err"; }
grep -q 'interrupted by SIGTERM' "$tmp/err" || { fail "blocked signals: no message"; cat "$tmp/err"; }
python3 - "$tmp/block.json" <<'PY' || fail "blocked signals: the report is not partial with quick in it"
import json, sys
doc = json.load(open(sys.argv[1]))
names = [b["name"] for b in doc["benchmarks"] if b.get("run_type") == "iteration"]
sys.exit(0 if doc["context"].get("interrupted_by") == "SIGTERM" and names == ["quick"] else 1)
PY

# A body that installs its own SIGINT handler keeps it; the run says so.
OMPB_HOSTILE_HANDLER=1 timeout $((60 * mult)) "$bin" --filter '^handles$' --sample-count 5 \
  --warmup-time 0ns --min-time 100us --max-time 200ms > /dev/null 2> "$tmp/err" ||
  fail "own handler: exit status $?"
grep -q 'handles: the benchmark installed its own SIGINT handler' "$tmp/err" ||
  { fail "own handler: no warning"; cat "$tmp/err"; }

# ---- 10: longjmp out of the OMPB_ITER loop ---------------------------------
# The jump lands in the body that set it, on the same thread: the only
# longjmp out of the loop C and OpenMP define (docs/guide.md, "Hostile
# bodies"). Thread 0 (the master, which goes on to run the round's
# checks) and thread 1, four times each.
for who in 0 1; do
  for try in 1 2 3 4; do
    OMPB_HOSTILE_JUMP=$who timeout $((60 * mult)) "$bin" --filter '^jumps\[' --sample-count 5 \
      --warmup-time 0ns --min-time 100us --max-time 200ms > /dev/null 2> "$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || { fail "longjmp on thread $who, try $try: exit status $rc, want 1"; cat "$tmp/err"; break; }
    grep -v 'warning: ' "$tmp/err" > "$tmp/lines" # the load, an unoptimized (sanitizer) build
    [ "$(wc -l < "$tmp/lines")" -eq 1 ] &&
      grep -q "jumps\[t=2\]: thread $who left its OMPB_ITER loop early" "$tmp/err" ||
      { fail "longjmp on thread $who, try $try: not one line naming the thread"; cat "$tmp/err"; break; }
  done
done

[ $fails -eq 0 ] && echo "signal_child: signalled children, late runners, blocked signals and longjmp handled"
[ $fails -eq 0 ]
