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
# Parallel loops without markers (phase-loops, phase-loops-mixed):
# - with the fork guard installed (region_app_guard), the same: [t=1] and
#   [t=2] with the phase object, one scaling family, mixed widths said,
#   "serial" [t=1], and no note;
# - the width is what ran: OMP_THREAD_LIMIT=1 under OMP_NUM_THREADS=2 runs
#   teams of 1 (the runtime's answer, 2, is not what ran): [t=1], mixed;
# - without the guard (region_app) the region stays [t=1] with no phase
#   object, and one warning names the region and the fix; none at 1 thread.
script_bound=180
. "$(dirname "$0")/lib.sh" "$@"
app="$build/tests/region_app"
app_guard="$build/tests/region_app_guard"
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

# run NAME APP MODE [VAR=VALUE...]: NAME.json and NAME.err in $tmp.
run() {
  local name=$1 bin=$2 mode=$3
  shift 3
  env "$@" OMPB_REGIONS_OUTPUT="$tmp/$name.json" timeout 60 "$bin" "$mode" \
    > "$tmp/$name.out" 2> "$tmp/$name.err" \
    || { echo "FAIL: $name: $(basename "$bin") $mode $*:"; cat "$tmp/$name.out" "$tmp/$name.err"; exit 1; }
}
for t in 1 2; do
  run g$t "$app_guard" phase-loops OMP_NUM_THREADS=$t
  run n$t "$app" phase-loops OMP_NUM_THREADS=$t
done
run gm "$app_guard" phase-loops-mixed OMP_NUM_THREADS=2
run gl "$app_guard" phase-loops OMP_NUM_THREADS=2 OMP_THREAD_LIMIT=1
timeout 60 "$tool" scaling --format json --output "$tmp/gscaling.json" "$tmp/g1.json" "$tmp/g2.json" \
  2> "$tmp/gscaling.err" || { echo "FAIL: ompbench scaling (loops):"; cat "$tmp/gscaling.err"; exit 1; }

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
def timestep_family(name, what):
    """The families of scaling report name; checks region:timestep's points are 1 and 2."""
    fams = {f["name"]: f for f in json.load(open(os.path.join(tmp, name)))["families"]}
    ts = fams.get("region:timestep")
    if ts is None:
        errors.append("%s: no family region:timestep (%r)" % (what, sorted(fams)))
    elif [p["threads"] for p in ts["points"]] != [1, 2]:
        errors.append("%s: region:timestep has points %r, want [1, 2]"
                      % (what, [p["threads"] for p in ts["points"]]))
    return fams
fams = timestep_family("scaling.json", "scaling")
if "region:serial" in fams:
    errors.append("scaling: region:serial, one width, became a family")

# Parallel loops without markers.
NOTE = "region:timestep began outside any parallel region while the runtime would fork"
def notes(name):
    err = open(os.path.join(tmp, name + ".err")).read()
    ctx = json.load(open(os.path.join(tmp, name + ".json")))["context"]
    return ([l for l in err.splitlines() if NOTE in l],
            [w for w in ctx.get("ompbench", {}).get("warnings", []) if NOTE in w])
def phase_of(name, entry):
    e = entries(name + ".json")
    if entry not in e:
        errors.append("%s: no %s (entries %r)" % (name, entry, sorted(e)))
        return None
    return e[entry]["ompbench"]
for t in (1, 2):
    o = phase_of("g%d" % t, "region:timestep[t=%d]" % t)
    want = {"width": t, "instances": 4, "team_widths": [t, t], "runtime_widths": [t, t],
            "mixed": False}
    if o and o["region"].get("phase") != want:
        errors.append("guard, %d threads: unmarked loops' phase %r, want %r"
                      % (t, o["region"].get("phase"), want))
    if o and (o["threads"] != 1 or "team_width" in o["marks"]):
        errors.append("guard, %d threads: threads %r, marks %r" % (t, o["threads"], o["marks"]))
    s = phase_of("g%d" % t, "region:serial[t=1]")
    if s and "phase" in s["region"]:
        errors.append("guard, %d threads: serial, which contains no team, has a phase" % t)
    if notes("g%d" % t) != ([], []):
        errors.append("guard, %d threads: the no-observer note, with a guard: %r"
                      % (t, notes("g%d" % t)))
    o = phase_of("n%d" % t, "region:timestep[t=1]")
    if o and "phase" in o["region"]:
        errors.append("no guard, %d threads: a phase without any observer: %r"
                      % (t, o["region"]["phase"]))
    err_notes, ctx_notes = notes("n%d" % t)
    want_n = 1 if t == 2 else 0
    if len(err_notes) != want_n or len(ctx_notes) != want_n:
        errors.append("no guard, %d threads: %d note(s) on stderr, %d in the JSON, want %d"
                      % (t, len(err_notes), len(ctx_notes), want_n))
    elif want_n and "ompb_set_fork_guard(&ompb_fork_guard_gnu)" not in ctx_notes[0]:
        errors.append("no guard: the note does not name the fix: %r" % ctx_notes[0])
o = phase_of("gm", "region:timestep[t=2]")
if o:
    ph = o["region"].get("phase", {})
    if (not ph.get("mixed") or ph.get("team_widths") != [1, 2]
            or ph.get("runtime_widths") != [2, 2] or "team_width" not in o["marks"]):
        errors.append("guard, mixed loops: phase %r, marks %r" % (ph, o["marks"]))
o = phase_of("gl", "region:timestep[t=1]")
if o:
    ph = o["region"].get("phase", {})
    if ph != {"width": 1, "instances": 4, "team_widths": [1, 1], "runtime_widths": [2, 2],
              "mixed": True}:
        errors.append("guard, OMP_THREAD_LIMIT=1: phase %r, want teams of 1 against the "
                      "runtime's 2" % ph)
timestep_family("gscaling.json", "scaling (loops)")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
[ $fail -eq 0 ] && echo "phase regions: named by their teams' width (marked, or unmarked under the fork guard), one scaling family; without a guard, [t=1] and a note"
exit $fail
