#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The region example's times add up (issue 11): at 2 threads, the three
# regions' total times (sums of per-instance makespans) are within 2% of
# the program's own measured loop time. The regions cover the loop, so
# less means lost time; more means instances of consecutive regions
# overlapped. The stencil's regions end before their loops' barriers
# (nowait, issue 18), so a thread that ends a region first begins the next
# while its team mate finishes: consecutive instances overlap by the spread
# of their threads' ends, which both makespans hold. That overlap is at
# most makespan - min busy per instance (the thread that ended first began
# no later than the earliest start and was busy at least the least), so
# the upper bar is 2% plus the sum of that over the instances. A thread
# descheduled by another process adds to the same overlap; the bar is
# checked on runs the machine did not disturb: with OMP_WAIT_POLICY=active
# both threads run all the time, and the program reports its CPU time over
# the loop; a run whose CPU time is below 97% of 2 x the loop time lost
# CPUs to other processes and does not count. Up to five runs; a checked
# run outside 2% fails the test; no checked run at all skips it (exit 77)
# with the figures, never passes it.
set -uo pipefail
build=$1
bin="$build/benches/stencil"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_WAIT_POLICY=active OMP_PROC_BIND=close OMP_PLACES=cores OMP_NUM_THREADS=2

checked=0
for attempt in 1 2 3 4 5; do
  OMPB_REGIONS_OUTPUT="$tmp/r.json" timeout 120 "$bin" --n 1024 --iterations 100 \
    > "$tmp/out" 2> "$tmp/err" || { echo "FAIL: stencil exited $?:"; cat "$tmp/err"; exit 1; }
  python3 - "$tmp/r.json" "$tmp/out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
m = re.search(r"threads=(\d+) .* loop_ns=(\d+) cpu_ns=(\d+)", open(sys.argv[2]).read())
t, loop_ns, cpu_ns = int(m.group(1)), int(m.group(2)), int(m.group(3))
entries = [b for b in d["benchmarks"]
           if b["run_type"] == "iteration" and b["name"].endswith("[t=%d]" % t)]
total = sum(b["ompbench"]["stats"]["total_time_s"] * 1e9 for b in entries)
overlap = sum(m - min(row) for b in entries
              for m, row in zip(b["ompbench"]["samples"]["makespan_ns"],
                                b["ompbench"]["samples"]["busy_ns"]))
diff = (total - loop_ns) / loop_ns
allowed = overlap / loop_ns
busy = cpu_ns / (t * loop_ns)
print("T=%d: regions %.3f ms, loop %.3f ms, %+.2f%% (bar -2%%..+%.2f%%: 2%% + %.2f%% of end "
      "spread); CPU %.1f%% of %d x the loop"
      % (t, total / 1e6, loop_ns / 1e6, 100 * diff, 100 * (0.02 + allowed), 100 * allowed,
         100 * busy, t))
if t != 2:
    sys.exit(3)
if busy < 0.97:
    sys.exit(2)   # disturbed: does not count
sys.exit(0 if -0.02 <= diff <= 0.02 + allowed else 1)
PY
  case $? in
    0) exit 0 ;;
    1) checked=1; echo "FAIL: an undisturbed run missed the 2% bar"; exit 1 ;;
    2) echo "  (other processes took CPU time from the run: not counted)" ;;
    *) echo "FAIL: the run did not use 2 threads"; exit 1 ;;
  esac
done
echo "SKIP: no run out of five had both CPUs to itself (load average $(cut -d' ' -f1 /proc/loadavg))"
exit 77
