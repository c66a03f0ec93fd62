#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Calibration on a busy machine (docs/methodology.md, "Calibration"): two
# CPU hogs (busy loops started here, bounded, stopped by PID) compete with
# the example suite's first instances at the CI setting, three processes in
# a row. Whatever the load, every instance must come out consistent with
# itself: the round target never above what the budget can hold for the
# rounds asked for, no calibration step growing the size more than 10x,
# every round asked for measured or the reason in the JSON, and the
# measured rounds not far below the target unless the instance is marked.
# Figures are compared with the run's own target, never with a time.
# Usage: calibration_load.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
bin=$build/benches/examples
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/none.ctl OMPB_RUNNER_ACK_FIFO=$tmp/none.ack
mult=${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}
for _ in 1 2; do
  timeout $(( 300 * mult )) sh -c 'while :; do :; done' &
  pids+=($!)
done
filter='^(count_set_bits\[(0|42)\]|fibonacci_iterative\[20\]|stream_triad\[t=2\])$'
for i in 1 2 3; do
  timeout $(( 120 * mult )) "$bin" --filter "$filter" --sample-count 10 --warmup-time 10ms \
    --max-time 500ms --format json --output "$tmp/r$i.json" 2>"$tmp/err$i" >/dev/null \
    || { cat "$tmp/err$i" >&2; echo "FAIL: run $i exited $?" >&2; exit 1; }
done
python3 - "$tmp" <<'PY'
import json, statistics, sys
budget, rounds_asked, min_time = 500e6, 10, 1e6
bad = []
for i in (1, 2, 3):
    d = json.load(open(f"{sys.argv[1]}/r{i}.json"))
    runs = [b for b in d["benchmarks"] if b.get("run_type") == "iteration"]
    if len(runs) != 4:
        bad.append(f"run {i}: {len(runs)} instances, want 4")
    for b in runs:
        o, name = b["ompbench"], f"run {i}: {b['name']}"
        cal = o["calibration"]
        target = cal["round_target_ns"]
        if not min_time <= target <= max(min_time, budget / 2 / rounds_asked):
            bad.append(f"{name}: round target {target} ns beyond the budget's share")
        steps = cal["steps"]
        if len(steps) < 2:
            bad.append(f"{name}: {len(steps)} calibration steps")
        for a, c in zip(steps, steps[1:]):
            if c["sample_size"] > 10 * a["sample_size"]:
                bad.append(f"{name}: calibration grew {a['sample_size']} -> {c['sample_size']}")
        if o["rounds"] < rounds_asked and not o.get("short_reason"):
            bad.append(f"{name}: {o['rounds']} rounds without a reason")
        if o["rounds"] < rounds_asked and "few_rounds" not in o["marks"]:
            bad.append(f"{name}: {o['rounds']} rounds, not marked few_rounds")
        busy = [max(t) for t in o["samples"]["busy_ns"]]
        if statistics.median(busy) * 3 < target and "calibration" not in o["marks"]:
            bad.append(f"{name}: median busy {statistics.median(busy):.0f} ns for a target "
                       f"of {target} ns, not marked: rounds {o['rounds']}, marks "
                       f"{o['marks']}, reason {o.get('short_reason')!r}, calibration {cal}")
for line in bad:
    print("FAIL:", line)
sys.exit(1 if bad else 0)
PY
echo "calibration_load: 3 loaded runs consistent"
