#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Phase regions (tests/region_app.c phase, phase-mixed): a region on the
# initial thread around a team is named by the team's width, so that
# OMP_NUM_THREADS=1 and 2 give two points of one family:
# - "timestep" is region:timestep[t=1] at 1 thread and [t=2] at 2, its
#   JSON says phase width, team widths and the runtime's answer, and its
#   per-thread arrays keep the one thread that ran it;
# - "serial" (no team inside) stays [t=1] at both widths;
# - `ompbench scaling` over the two files shows the family
#   region:timestep with the points 1 and 2;
# - a timestep whose teams alternate between 1 and 2 threads says so:
#   mixed, and the team_width mark.
script_bound=120
. "$(dirname "$0")/lib.sh" "$@"
app="$build/tests/region_app"
tool="$build/tools/ompbench"
fail=0

for t in 1 2; do
  OMP_NUM_THREADS=$t OMPB_REGIONS_OUTPUT="$tmp/p$t.json" timeout 60 "$app" phase \
    > "$tmp/out$t" 2>&1 || { echo "FAIL: region_app phase at $t threads:"; cat "$tmp/out$t"; exit 1; }
done
OMP_NUM_THREADS=2 OMPB_REGIONS_OUTPUT="$tmp/m2.json" timeout 60 "$app" phase-mixed \
  > "$tmp/outm" 2>&1 || { echo "FAIL: region_app phase-mixed:"; cat "$tmp/outm"; exit 1; }
timeout 60 "$tool" scaling --format json --output "$tmp/scaling.json" "$tmp/p1.json" "$tmp/p2.json" \
  2> "$tmp/scaling.err" || { echo "FAIL: ompbench scaling:"; cat "$tmp/scaling.err"; exit 1; }

python3 - "$tmp" <<'PY' || fail=1
import json, os, sys
tmp = sys.argv[1]
errors = []
def entries(f):
    d = json.load(open(os.path.join(tmp, f)))
    return {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
for t in (1, 2):
    e = entries("p%d.json" % t)
    want = {"region:timestep[t=%d]" % t, "region:stencil[t=%d]" % t, "region:serial[t=1]"}
    if set(e) != want:
        errors.append("at %d threads: entries %r, want %r" % (t, sorted(e), sorted(want)))
        continue
    o = e["region:timestep[t=%d]" % t]["ompbench"]
    ph = o["region"].get("phase")
    if ph != {"width": t, "instances": 4, "team_widths": [t, t], "runtime_widths": [t, t],
              "mixed": False}:
        errors.append("at %d threads: timestep's phase %r" % (t, ph))
    if o["threads"] != 1 or any(len(row) != 1 for row in o["samples"]["busy_ns"]):
        errors.append("at %d threads: timestep ran on one thread, its arrays say %r threads"
                      % (t, o["threads"]))
    if "team_width" in o["marks"]:
        errors.append("at %d threads: timestep marked team_width" % t)
    if "phase" in e["region:serial[t=1]"]["ompbench"]["region"]:
        errors.append("at %d threads: serial, which contains no team, has a phase" % t)
m = entries("m2.json").get("region:timestep[t=2]")
if m is None:
    errors.append("phase-mixed: no region:timestep[t=2]")
else:
    ph = m["ompbench"]["region"].get("phase", {})
    if not ph.get("mixed") or ph.get("team_widths") != [1, 2] or ph.get("runtime_widths") != [2, 2]:
        errors.append("phase-mixed: phase %r, want mixed team widths [1, 2]" % ph)
    if "team_width" not in m["ompbench"]["marks"]:
        errors.append("phase-mixed: no team_width mark (%r)" % m["ompbench"]["marks"])
fams = {f["name"]: f for f in json.load(open(os.path.join(tmp, "scaling.json")))["families"]}
ts = fams.get("region:timestep")
if ts is None:
    errors.append("scaling: no family region:timestep (%r)" % sorted(fams))
elif [p["threads"] for p in ts["points"]] != [1, 2]:
    errors.append("scaling: region:timestep has points %r, want [1, 2]"
                  % [p["threads"] for p in ts["points"]])
if "region:serial" in fams:
    errors.append("scaling: region:serial, one width, became a family")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
[ $fail -eq 0 ] && echo "phase regions: named by their teams' width, one scaling family"
exit $fail
