#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole example suite under `ompbench collect` (the CodSpeed runner
# stand-in): every protocol check holds (frames, Start/End alternation,
# windows, unique URIs, results file), and each instance's window carries
# exactly one marker pair per measured round, the very rounds of its local
# JSON report (pair span == round makespan). thread_example runs 4 workers.
set -uo pipefail
build=$1
tool="$build/tools/ompbench"
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tool" collect --json "$tmp/collect.json" -- "$bin" --sample-count 4 --warmup-time 1ms \
  --min-time 100us --max-time 500ms --format json --output "$tmp/local.json" \
  > "$tmp/out" 2>&1 || { echo "FAIL: ompbench collect reported violations:"; cat "$tmp/out"; exit 1; }
"$bin" --list > "$tmp/list" || { echo "FAIL: --list"; exit 1; }

python3 - "$tmp/collect.json" "$tmp/local.json" "$tmp/list" <<'PY'
import json, sys
collect = json.load(open(sys.argv[1]))
local = json.load(open(sys.argv[2]))
names = [l.strip() for l in open(sys.argv[3]) if l.strip()]
errors = []
if not collect["ok"] or collect["violations"]:
    errors.append("violations: %r" % collect["violations"])
if collect["integration"]["name"] != "ompbench" or collect["protocol_version"] != 2:
    errors.append("hello: %r v%r" % (collect["integration"], collect["protocol_version"]))
if collect["undecodable_frames"] != 0:
    errors.append("%d undecodable frames" % collect["undecodable_frames"])
windows = {w["uri"]: w for w in collect["windows"]}
if len(windows) != len(collect["windows"]) or len(windows) != len(names):
    errors.append("%d windows, %d unique URIs, %d instances"
                  % (len(collect["windows"]), len(windows), len(names)))
runs = {b["ompbench"]["uri"]: b for b in local["benchmarks"] if b.get("run_type") == "iteration"}
for name in names:
    uri = "benches/examples.c::" + name
    w, b = windows.get(uri), runs.get(uri)
    if w is None or b is None:
        errors.append("%s: window %s, local result %s" % (uri, w is not None, b is not None))
        continue
    spans = [e - s for s, e in w["pairs"]]
    makespans = b["ompbench"]["samples"]["makespan_ns"]
    if len(spans) != b["ompbench"]["rounds"] or spans != makespans:
        errors.append("%s: marker spans %r, measured rounds %r" % (uri, spans, makespans))
    flat = [t for p in w["pairs"] for t in p]
    if flat != sorted(flat) or not (w["window_start_ns"] <= flat[0] and flat[-1] <= w["window_stop_ns"]):
        errors.append("%s: markers out of order or outside their window" % uri)
t4 = windows.get("benches/examples.c::thread_example[t=4]")
if t4 is None or t4["rounds"] < 1:
    errors.append("thread_example[t=4]: no window with markers")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
