#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Repetitions under the CodSpeed runner stand-in (`ompbench collect`): each
# instance is still one benchmark window with a unique URI, its repetitions
# run back to back inside it (not interleaved: windows cannot interleave),
# and the window holds one marker pair per measured round of every
# repetition, in repetition order; the results file pools them (collect
# checks it against the markers). --processes is not used under the runner:
# a warning says so and everything runs in the runner's process.
# Usage: collect_repetitions.sh BUILD_DIR SOURCE_DIR
fail_fast=1
. "$(dirname "$0")/lib.sh" "$@"
tool="$build/tools/ompbench"
bin="$build/benches/examples"
args=(--filter '^(count_set_bits\[(0|42)\]|thread_example)' --repetitions 3 --processes 3
      --sample-count 6 --warmup-time 1ms --min-time 100us --max-time 300ms --format json)

timeout 120 "$tool" collect --json "$tmp/collect.json" -- "$bin" "${args[@]}" \
  --output "$tmp/local.json" > "$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "ompbench collect reported violations"; }
grep -q "under the CodSpeed runner all repetitions run in this process (one benchmark window per instance); --processes 3 ignored" "$tmp/out" ||
  { cat "$tmp/out"; fail "no warning about --processes"; }

/usr/bin/python3 - "$tmp/collect.json" "$tmp/local.json" <<'PY' || exit 1
import json, sys
collect = json.load(open(sys.argv[1]))
local = json.load(open(sys.argv[2]))
assert collect["ok"] and not collect["violations"], collect["violations"]
run = local["context"]["ompbench"]["run"]
assert run["repetitions"] == 3 and run["processes"] == 1 and not run["interleaved"], run
windows = {w["uri"]: w for w in collect["windows"]}
names = sorted({b["name"] for b in local["benchmarks"] if b["run_type"] == "iteration"})
assert len(collect["windows"]) == len(windows) == len(names) == 3, (len(collect["windows"]), names)
for name in names:
    reps = sorted((b for b in local["benchmarks"] if b["name"] == name and b["run_type"] == "iteration"),
                  key=lambda b: b["repetition_index"])
    assert [b["repetition_index"] for b in reps] == [0, 1, 2], reps
    w = windows["benches/examples.c::" + name]
    spans = [e - s for s, e in w["pairs"]]
    want = [m for b in reps for m in b["ompbench"]["samples"]["makespan_ns"]]
    assert spans == want, (name, spans, want)
    flat = [t for p in w["pairs"] for t in p]
    assert flat == sorted(flat) and w["window_start_ns"] <= flat[0] <= flat[-1] <= w["window_stop_ns"], name
print("collect_repetitions: one window per instance, every repetition's rounds in it")
PY
