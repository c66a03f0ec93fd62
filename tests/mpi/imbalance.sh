#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One rank sleeps in every iteration, the other does next to nothing: the
# rank imbalance is close to 2 (slowest rank's makespan over the mean) and
# the global makespan follows the slow rank, not the fast one.
set -euo pipefail
build=$1 src=$2
source "$src/tests/mpi/common.inc"

OMP_NUM_THREADS=1 mpirun2 "$build/tests/mpi_fixture" --exact 'slow_rank[r=2, t=1]' \
  --sample-count 15 --warmup-time 0s --format json --output "$tmp/r.json" 2> "$tmp/err" || {
  echo "FAIL: run"; cat "$tmp/err"; exit 1; }
python3 - "$tmp/r.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
o = next(b["ompbench"] for b in d["benchmarks"] if "ompbench" in b)
s = o["samples"]
imb = o["stats"]["mean_rank_imbalance"]
fast = [r[0] for r in s["rank_makespan_ns"]]
slow = [r[1] for r in s["rank_makespan_ns"]]
glob = s["makespan_ns"]
print("mean rank imbalance %.3f; medians: global %d, rank 0 %d, rank 1 %d ns" % (
    imb, statistics.median(glob), statistics.median(fast), statistics.median(slow)))
assert 1.7 <= imb <= 2.0, imb
assert all(g >= m for g, m in zip(glob, slow))
# Follows the slow rank: the global median is the slow rank's, give or take
# the fast rank's whole round and the barrier's skew, not twice it.
assert statistics.median(glob) < 1.5 * statistics.median(slow)
assert statistics.median(slow) > 10 * statistics.median(fast)
st = o["rank_stats"]
assert st[1]["median_ns"] > 10 * st[0]["median_ns"], st
PY
echo "PASS"
