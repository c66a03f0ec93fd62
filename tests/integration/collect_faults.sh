#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runners that misbehave: absent, silent, dying mid-run, answering Err,
# answering garbage, refusing protocol version 2, or leaving stale acks in
# the pipe (tests/runner_peer.py). Each time the benchmarks must complete (exit 0) with a complete
# local JSON report, without a hang (a bounded OMPB_HOOKS_TIMEOUT_MS, a
# generous outer timeout), and with exactly one warning saying why the
# runner was dropped (none when there is nothing wrong). The runner is a
# small Python peer speaking the protocol on a private pair of FIFOs.
# Slow but live runners last: one that acks StartBenchmark after more than
# the instance's --max-time must not cost it its rounds; one that acks
# everything late must be dropped once OMPB_HOOKS_BUDGET_MS is spent.
set -uo pipefail
build=$1
bin="$build/benches/examples"
tmp=$(mktemp -d)
peer_pid=
trap '[ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
filter='^(count_set_bits\[42\]|fibonacci_iterative\[5\])$'
mult=${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}
# The runner timeout: long enough for a live peer on a loaded machine to
# answer, short enough that the silent cases stay quick.
hooks_to=$((300 * mult))
export OMP_NUM_THREADS=1 OMPB_HOOKS_TIMEOUT_MS=$hooks_to
export OMPB_RUNNER_CTL_FIFO="$tmp/ctl.fifo" OMPB_RUNNER_ACK_FIFO="$tmp/ack.fifo"
warning='no longer talking to the CodSpeed runner'


# start_peer BEHAVIOR LIMIT [DELAY_S]
start_peer() {
  rm -f "$tmp"/*.fifo "$tmp/ready" "$tmp/r.json"
  peer_pid=
  if [ "$1" != absent ]; then
    mkfifo "$tmp/ctl.fifo" "$tmp/ack.fifo"
    python3 "$(dirname "$0")/../runner_peer.py" "$tmp/ctl.fifo" "$tmp/ack.fifo" "$1" "$2" "$tmp/ready" "${3:-0}" &
    peer_pid=$!
    for _ in $(seq $((100 * mult))); do [ -e "$tmp/ready" ] && break; sleep 0.05; done
  fi
}

stop_peer() {
  [ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null && wait "$peer_pid" 2>/dev/null
  peer_pid=
}

# run_case NAME BEHAVIOR LIMIT EXPECTED_WARNINGS [PHRASE]
run_case() {
  local name=$1 behavior=$2 limit=$3 want=$4 phrase=${5:-}
  start_peer "$behavior" "$limit"
  timeout 300 "$bin" --filter "$filter" --test --format json --output "$tmp/r.json" \
    > /dev/null 2> "$tmp/err"
  local rc=$?
  stop_peer
  local got
  got=$(grep -c "$warning" "$tmp/err")
  if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
    echo "FAIL: $name: exit $rc, $got warnings (want 0 and $want):"; cat "$tmp/err"; fail=1; return
  fi
  if [ -n "$phrase" ] && ! grep -qF "$phrase" "$tmp/err"; then
    echo "FAIL: $name: the warning does not say '$phrase':"; cat "$tmp/err"; fail=1; return
  fi
  python3 - "$tmp/r.json" <<'PY' || { echo "FAIL: $name: local report incomplete"; fail=1; }
import json, sys
runs = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("run_type") == "iteration"]
names = sorted(b["name"] for b in runs)
ok = names == ["count_set_bits[42]", "fibonacci_iterative[5]"] and all(
    not b.get("error_occurred") and b["ompbench"]["rounds"] == 1 for b in runs)
sys.exit(0 if ok else "runs: %r" % names)
PY
}

run_case absent absent -1 0
run_case healthy ok -1 0
run_case stale stale -1 0
run_case silent silent -1 1 "no answer from the runner to GetIntegrationMode within $hooks_to ms"
run_case dies_after_hello ok 4 1 "no answer from the runner to"
run_case dies_mid_flush ok 5 1 "no answer from the runner to AddMarker"
run_case err err -1 1 "answered Err to GetIntegrationMode"
run_case garbage garbage -1 1 "undecodable reply"
run_case refuses_v2 refuse -1 1 "refused protocol version 2"

# StartBenchmark acked 0.4 s late, twice --max-time: the wait is the
# runner's, so both instances still measure all 50 rounds, and nothing is
# wrong (the timeout is above the delay).
start_peer slow_start -1 0.4
OMPB_HOOKS_TIMEOUT_MS=5000 timeout 300 "$bin" --filter "$filter" --max-time 200ms \
  --sample-count 50 --sample-size 10 --warmup-time 1ms --format json --output "$tmp/r.json" \
  > /dev/null 2> "$tmp/err"
rc=$?
stop_peer
got=$(grep -c "$warning" "$tmp/err")
if [ $rc -ne 0 ] || [ "$got" -ne 0 ]; then
  echo "FAIL: slow_start: exit $rc, $got warnings (want 0 and 0):"; cat "$tmp/err"; fail=1
else
  python3 - "$tmp/r.json" <<'PY' || { echo "FAIL: slow_start: rounds lost to the runner's wait"; fail=1; }
import json, sys
runs = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("run_type") == "iteration"]
rounds = {b["name"]: b["ompbench"]["rounds"] for b in runs}
sys.exit(0 if len(rounds) == 2 and set(rounds.values()) == {50} else "rounds: %r" % rounds)
PY
fi

# Every ack 50 ms late, a budget of 500 ms for all runner waits, ten
# instances: the hooks wait 500 ms in all, then stop with one warning that
# names the budget, and the run goes on locally. Without the budget the run
# would wait 13 x 50 ms for every instance (2.6 s more). The bound is 3
# budgets beyond the same run without a runner, measured just before: the
# machine's speed and load move both runs alike, and no absolute time is
# assumed (a loaded machine once made a fixed bound fail).
slow_filter='^(count_set_bits|find_highest_set_bit)\['
# run_slow_case: the run under test; sets rc and took_ms.
run_slow_case() {
  local t0
  t0=$(date +%s%N)
  OMPB_HOOKS_TIMEOUT_MS=5000 OMPB_HOOKS_BUDGET_MS=500 timeout 300 "$bin" --filter "$slow_filter" \
    --test --format json --output "$tmp/r.json" > /dev/null 2> "$tmp/err"
  rc=$?
  took_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
}
start_peer absent
run_slow_case
base_ms=$took_ms
start_peer slow -1 0.05
run_slow_case
stop_peer
got=$(grep -c "$warning" "$tmp/err")
if [ $rc -ne 0 ] || [ "$got" -ne 1 ] || ! grep -q "OMPB_HOOKS_BUDGET_MS=500" "$tmp/err"; then
  echo "FAIL: slow: exit $rc, $got warnings (want 0 and 1, naming the budget):"; cat "$tmp/err"; fail=1
elif [ $(( took_ms - base_ms )) -gt $(( 1500 * mult )) ]; then
  echo "FAIL: slow: the run took $took_ms ms, $(( took_ms - base_ms )) ms more than without" \
    "a runner ($base_ms ms): beyond 3 x the 500 ms budget"; fail=1
else
  python3 - "$tmp/r.json" <<'PY' || { echo "FAIL: slow: local report incomplete"; fail=1; }
import json, sys
runs = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("run_type") == "iteration"]
ok = len(runs) == 10 and all(not b.get("error_occurred") and b["ompbench"]["rounds"] == 1 for b in runs)
sys.exit(0 if ok else "runs: %r" % sorted(b["name"] for b in runs))
PY
fi
exit $fail
