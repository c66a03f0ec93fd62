#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The region example's times add up (issue 11): at 2 threads, the three
# regions' total times (sums of per-instance makespans) are within 2% of
# the program's own measured loop time. The regions cover the loop, so
# less means lost time; more means instances of consecutive regions
# overlapped: a thread that leaves a barrier late (descheduled by another
# process) ends its region after a team mate began the next one, and both
# makespans hold that delay. That is what the makespan means, so the bar
# holds only on a machine that is not oversubscribed: a run that misses is
# retried twice; when all three miss while the load average is above the
# usable CPUs, the test is skipped (exit 77) with the figures, never passed.
set -uo pipefail
build=$1
bin="$build/benches/stencil"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_WAIT_POLICY=active OMP_PROC_BIND=close OMP_PLACES=cores OMP_NUM_THREADS=2

for attempt in 1 2 3; do
  OMPB_REGIONS_OUTPUT="$tmp/r.json" timeout 120 "$bin" --n 1024 --iterations 100 \
    > "$tmp/out" 2> "$tmp/err" || { echo "FAIL: stencil exited $?:"; cat "$tmp/err"; exit 1; }
  python3 - "$tmp/r.json" "$tmp/out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
m = re.search(r"threads=(\d+) .* loop_ns=(\d+)", open(sys.argv[2]).read())
t, loop_ns = int(m.group(1)), int(m.group(2))
total = sum(b["ompbench"]["stats"]["total_time_s"] * 1e9 for b in d["benchmarks"]
            if b["run_type"] == "iteration" and b["name"].endswith("[t=%d]" % t))
diff = (total - loop_ns) / loop_ns
print("T=%d: regions %.3f ms, loop %.3f ms, %+.2f%% (bar 2%%)" % (t, total / 1e6, loop_ns / 1e6, 100 * diff))
sys.exit(0 if abs(diff) <= 0.02 and t == 2 else 1)
PY
  [ $? = 0 ] && exit 0
done
load=$(cut -d' ' -f1 /proc/loadavg)
cpus=$(nproc)
if awk -v l="$load" -v c="$cpus" 'BEGIN { exit !(l > c) }'; then
  echo "SKIP: three runs missed the 2% bar with the load average at $load on $cpus CPUs"
  exit 77
fi
echo "FAIL: three runs missed the 2% bar (load average $load on $cpus CPUs)"
exit 1
