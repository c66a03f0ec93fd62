#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# exit(0) from a body on one rank (issue 14, item 4) never passes for a
# successful run: on rank 0 its partial report (the completed instance, the
# failed one) is written and the job fails; on rank 1 that rank says so,
# naming itself, and the launcher fails the job.
set -uo pipefail
build=$1 src=$2
source "$src/tests/mpi/common.inc"
fails=0
for r in 0 1; do
  rm -f "$tmp/r.json"
  OMP_NUM_THREADS=1 OMPB_FIXTURE_EXIT_RANK=$r mpirun2 -x OMP_NUM_THREADS -x OMPB_FIXTURE_EXIT_RANK \
    "$build/tests/mpi_fixture" --filter '^(slow_rank|exits)' --sample-count 5 --warmup-time 0s \
    --format json --output "$tmp/r.json" > /dev/null 2> "$tmp/err"
  rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "FAIL: rank $r: exit status $rc"; fails=$((fails + 1)); }
  want="exits\[r=2, t=1\]: the benchmark called exit(0) while it was being measured"
  [ "$r" = 1 ] && want="rank 1: $want"
  grep -q "$want" "$tmp/err" || { echo "FAIL: rank $r: no message"; cat "$tmp/err"; fails=$((fails + 1)); }
  [ "$r" = 0 ] || continue
  python3 - "$tmp/r.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
ctx = d["context"]
its = {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
ok = (ctx.get("partial") is True and ctx.get("interrupted_by") == "exit"
      and not its["slow_rank[r=2, t=1]"].get("error_occurred")
      and "called exit(0)" in its["exits[r=2, t=1]"].get("error_message", ""))
print("PASS" if ok else "FAIL: %r %r" % ({k: ctx.get(k) for k in ("partial", "interrupted_by")}, its))
sys.exit(0 if ok else 1)
PY
done
[ $fails -eq 0 ]
