#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The region example under `ompbench collect` (the CodSpeed runner stand-in,
# which checks the protocol strictly): all checks pass, and what the runner
# gets is what docs/protocol.md ("Application regions") says:
# - the three regions interleave in every iteration, and the runner holds
#   one window at a time: the first region to begin (sweep) gets it, with
#   exactly one marker pair per instance, all inside the window, the very
#   makespans of the local report;
# - boundary and residual, which ran while sweep held the window, have
#   their entries in the results file without a window;
# - a program that calls ompb_regions_report() between two phases (a
#   region-set boundary) gives each phase's first region a window of its
#   own (tests/region_app.c phases);
# - no window opens from inside a region (an inner region that only ever
#   begins inside an outer one gets its entry without a window), and a
#   report called inside a region warns and leaves the runner alone until
#   the exit (region_app inside);
# - instances that overlap in time are cut to alternate (region_app
#   overlap).
set -uo pipefail
build=$1
tool="$build/tools/ompbench"
bin="$build/benches/stencil"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

OMPB_REGIONS_OUTPUT="$tmp/local.json" timeout 300 "$tool" collect --json "$tmp/c.json" -- \
  "$bin" --n 256 --iterations 40 --threads 2 > "$tmp/out" 2>&1 \
  || { echo "FAIL: ompbench collect reported violations:"; cat "$tmp/out"; exit 1; }
python3 - "$tmp/c.json" "$tmp/local.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
local = json.load(open(sys.argv[2]))
errors = []
if not c["ok"] or c["violations"]:
    errors.append("violations: %r" % c["violations"])
prefix = "benches/stencil.c::"
windows = {w["uri"]: w for w in c["windows"]}
if list(windows) != [prefix + "region:sweep[t=2]"]:
    errors.append("windows %r, want the sweep's only" % list(windows))
want_only = sorted(prefix + "region:%s[t=2]" % r for r in ("boundary", "residual"))
if sorted(c["results_without_window"]) != want_only:
    errors.append("results without a window %r, want %r" % (c["results_without_window"], want_only))
w = windows.get(prefix + "region:sweep[t=2]")
runs = {b["ompbench"]["uri"]: b for b in local["benchmarks"] if b["run_type"] == "iteration"}
b = runs.get(prefix + "region:sweep[t=2]")
if w and b:
    spans = [e - s for s, e in w["pairs"]]
    if len(spans) != 40 or spans != b["ompbench"]["samples"]["makespan_ns"]:
        errors.append("sweep: %d marker pairs %r, local makespans %r"
                      % (len(spans), spans[:5], b["ompbench"]["samples"]["makespan_ns"][:5]))
    flat = [t for p in w["pairs"] for t in p]
    if flat != sorted(flat) or not (w["window_start_ns"] <= flat[0] and flat[-1] <= w["window_stop_ns"]):
        errors.append("sweep: markers out of order or outside their window")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY

# Phases separated by ompb_regions_report(): each phase's region gets its
# own window, each with one pair per instance.
OMPB_REGIONS_OUTPUT="$tmp/phases.json" timeout 300 "$tool" collect --json "$tmp/p.json" -- \
  "$build/tests/region_app" phases > "$tmp/outp" 2>&1 \
  || { echo "FAIL: collect of region_app phases:"; cat "$tmp/outp"; exit 1; }
python3 - "$tmp/p.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
got = [(w["uri"], w["rounds"]) for w in c["windows"]]
want = [("tests/region_app.c::region:load[t=1]", 3), ("tests/region_app.c::region:solve[t=2]", 5)]
if not c["ok"] or got != want or c["results_without_window"]:
    sys.exit("FAIL: phases: windows %r (want %r), results without window %r, violations %r"
             % (got, want, c["results_without_window"], c["violations"]))
PY
# Instances that overlap in time (two threads outside OpenMP, each a team
# of one, in "both" at once): markers cannot alternate, so each pair ends
# where the next begins; the checks pass, the results match the pairs sent,
# and a warning says how much was cut.
timeout 300 "$tool" collect --json "$tmp/o.json" -- "$build/tests/region_app" overlap \
  > "$tmp/outo" 2>&1 || { echo "FAIL: collect of region_app overlap:"; cat "$tmp/outo"; exit 1; }
python3 - "$tmp/o.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
w = c["windows"]
if not c["ok"] or len(w) != 1 or w[0]["rounds"] != 8:
    sys.exit("FAIL: overlap: windows %r, violations %r" % ([(x["uri"], x["rounds"]) for x in w], c["violations"]))
flat = [t for p in w[0]["pairs"] for t in p]
if flat != sorted(flat):
    sys.exit("FAIL: overlap: pairs out of order")
PY
grep -q 'region:both\[t=1\]: [0-9]* of its 8 instances overlapped the next one' "$tmp/outo" \
  || { echo "FAIL: overlap: no warning about the cut pairs:"; cat "$tmp/outo"; fail=1; }
# Runner commands never from inside a region: "inner" always begins inside
# "outer" (which had its window in phase 1), so it gets none; "held" opens
# one at its begin, and the report called inside it leaves the window open
# (warned) until exit, which sends its one pair.
OMPB_REGIONS_OUTPUT="$tmp/inside.json" timeout 300 "$tool" collect --json "$tmp/i.json" -- \
  "$build/tests/region_app" inside > "$tmp/outi" 2>&1 \
  || { echo "FAIL: collect of region_app inside:"; cat "$tmp/outi"; exit 1; }
python3 - "$tmp/i.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
got = [(w["uri"], w["rounds"]) for w in c["windows"]]
want = [("tests/region_app.c::region:outer[t=1]", 3), ("tests/region_app.c::region:held[t=1]", 1)]
if not c["ok"] or got != want or c["results_without_window"] != ["tests/region_app.c::region:inner[t=1]"]:
    sys.exit("FAIL: inside: windows %r (want %r), results without window %r, violations %r"
             % (got, want, c["results_without_window"], c["violations"]))
PY
grep -q "warning: ompb_regions_report() called inside region 'held'" "$tmp/outi" \
  || { echo "FAIL: inside: no warning about the report inside a region:"; cat "$tmp/outi"; fail=1; }
exit $fail
