#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regions and barriers (issue 18), on tests/region_app.c:
# - "split": a team of 2 splits an omp for 3:1 (150 us and 50 us spun on
#   the clock, so the split does not depend on the machine's speed).
#   "barrier" ends after the loop's implicit barrier: its imbalance reads
#   ~1.00, and one warning names the region, gives its figures and says to
#   end it before the barrier (nowait). "nowait" ends before the barrier:
#   no warning, imbalance clearly above 1 (1.5 for 3:1).
# - "once": a region entered once (by a team of 2, and serially): no
#   _stddev or _cv aggregates, no standard deviation and no interval in
#   the JSON, "-" in the console's spread column.
# The warning needs the threads on their own PUs when the barrier releases
# them (a waiter descheduled by another process ends late, and the pattern
# does not show): the team is bound (OMP_PROC_BIND) and the run repeated up
# to five times until it shows. A host with one usable PU skips that part,
# and so does a host whose load average is at least its PUs when the
# pattern never showed (unit.region_warnings checks the thresholds on
# hand-made instances).
set -uo pipefail
build=$1
app="$build/tests/region_app"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
export OMP_PROC_BIND=spread OMP_PLACES=cores

# check_split JSON ERR: 0 when the warning and figures are as expected, 1
# when something is wrong whatever the load, 3 when only the warning is
# missing (the run may have been disturbed).
check_split() {
  python3 - "$1" "$2" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
it = {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
hard = []
for name in ("region:barrier[t=2]", "region:nowait[t=2]"):
    b = it.get(name)
    if b is None or b.get("error_occurred") or b["ompbench"]["region"]["instances"] != 60:
        hard.append("%s: 60 instances expected, got %r" % (name, b))
nowait = it.get("region:nowait[t=2]")
imb = nowait["ompbench"]["stats"]["mean_imbalance"] if nowait else None
if imb is None or imb < 1.3:
    hard.append("region:nowait[t=2]: imbalance %r, want > 1.3 (a 3:1 split)" % imb)
warnings = [l for l in err.splitlines() if "ends after a barrier" in l]
if any("region:nowait" in l for l in warnings):
    hard.append("a barrier warning for the nowait region: %r" % warnings)
if len(warnings) > 1:
    hard.append("one warning expected, got %r" % warnings)
for e in hard:
    print("FAIL:", e)
if hard:
    sys.exit(1)
pat = (r"^ompbench: warning: region:barrier: every thread ended within [0-9.]+ [num]?s of the "
       r"others in [0-9]+ of 60 instances \(medians; an instance lasted [0-9.]+ [num]?s\): "
       r"the region ends after a barrier .*end the region before the barrier: nowait on the "
       r"construct")
if not warnings:
    imb = it["region:barrier[t=2]"]["ompbench"]["stats"]["mean_imbalance"]
    print("  no warning in this run (barrier region imbalance %.3f)" % imb)
    sys.exit(3)
if not re.match(pat, warnings[0]):
    print("FAIL: warning text: %r" % warnings[0])
    sys.exit(1)
print("  " + warnings[0])
sys.exit(0)
PY
}

pus=$(nproc 2> /dev/null || echo 1)
if [ "$pus" -ge 2 ]; then
  shown=0
  for attempt in 1 2 3 4 5; do
    OMPB_REGIONS_OUTPUT="$tmp/split.json" timeout 60 "$app" split > /dev/null 2> "$tmp/split.err" \
      || { bad "split exited $?: $(cat "$tmp/split.err")"; break; }
    check_split "$tmp/split.json" "$tmp/split.err"
    case $? in
      0) shown=1; break ;;
      3) ;;
      *) fail=1; break ;;
    esac
  done
  # Not shown in five runs: a failure on an idle host; on a host busier
  # than its PUs (other tests, hogs) the waiters are descheduled and the
  # pattern blurs, and the thresholds are then left to unit.region_warnings,
  # which checks them on hand-made instances.
  if [ $shown = 0 ] && [ $fail = 0 ]; then
    load=$(cut -d' ' -f1 /proc/loadavg)
    if awk -v l="$load" -v p="$pus" 'BEGIN { exit !(l >= p) }'; then
      echo "  no barrier warning in five runs under load $load on $pus PUs: not checked here (unit.region_warnings checks the pattern)"
    else
      bad "no barrier warning for region:barrier in five runs (load average $load on $pus PUs)"
    fi
  fi
else
  echo "  one usable PU: the barrier pattern is not checked"
fi

# One value: no spread, in JSON and on the console.
OMPB_REGIONS_OUTPUT="$tmp/once.json" timeout 60 "$app" once > /dev/null 2> "$tmp/once.err" \
  || bad "once exited $?: $(cat "$tmp/once.err")"
python3 - "$tmp/once.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
names = [b["name"] for b in d["benchmarks"]]
errors = []
for base in ("region:single_shot[t=2]", "region:single_shot[t=1]"):
    it = [b for b in d["benchmarks"] if b["name"] == base and b["run_type"] == "iteration"]
    if len(it) != 1 or it[0]["ompbench"]["region"]["instances"] != 1:
        errors.append("%s: one entry of one instance expected (%r)" % (base, names))
        continue
    st = it[0]["ompbench"]["stats"]
    for key in ("stdev_ns", "ci95_low_ns", "ci95_high_ns"):
        if st.get(key) is not None:
            errors.append("%s: stats.%s is %r, want null (one value)" % (base, key, st.get(key)))
    if st.get("median_ns") is None or st["median_ns"] < 90000:
        errors.append("%s: median %r, want the one instance's ~100 us" % (base, st.get("median_ns")))
    for agg in ("_stddev", "_cv"):
        if base + agg in names:
            errors.append("%s%s: written for one value" % (base, agg))
    for agg in ("_mean", "_median"):
        if base + agg not in names:
            errors.append("%s%s: missing" % (base, agg))
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
OMPB_REGIONS_OUTPUT=- OMPB_REGIONS_FORMAT=console timeout 60 "$app" once > "$tmp/once.txt" 2> /dev/null \
  || bad "once (console) exited $?"
row=$(grep '^region:single_shot\[t=2\]' "$tmp/once.txt")
echo "$row" | grep -qE '^region:single_shot\[t=2\] +2 +[0-9.]+ [num]?s +[0-9.]+ [num]?s +- ' \
  || bad "console row of a region seen once: '-' for its spread expected: '$row'"
echo "$row" | grep -q '±' && bad "console row of a region seen once shows a ± spread: '$row'"
exit $fail
