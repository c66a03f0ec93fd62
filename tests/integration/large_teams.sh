#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Large teams: T = 256 and 512 threads (oversubscribed on a small machine;
# correctness only, no time is checked) under `ompbench collect`, the
# in-tree runner double. Each instance must give the round semantics of
# docs/methodology.md: every measured round has one marker pair whose span
# is exactly the round's reduced makespan (max e_t - min s_t over all T
# threads), at least every thread's busy time and the start skew; the
# per-thread arrays are complete (busy_ns[r] has T entries, pu_map and
# involuntary_switches T each), every thread ran the fixed sample size;
# and the run stays within its bound. Fixed sample sizes and few rounds keep
# it short however loaded the machine is.
set -uo pipefail
build=$1
tool="$build/tools/ompbench"
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_PLACES OMP_PROC_BIND GOMP_CPU_AFFINITY KMP_AFFINITY OMP_NUM_THREADS
limit=$((240 * ${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}))
rounds=5 size=100

timeout "$limit" "$tool" collect --json "$tmp/c.json" -- "$bin" --filter '^count_set_bits\[42,' \
  --threads 256,512 --sample-count $rounds --sample-size $size --warmup-time 1ms \
  --max-time 120s --format json --output "$tmp/r.json" > "$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: collect exited $rc (124: past the ${limit}s bound):"; cat "$tmp/out"; exit 1
fi
python3 - "$tmp/c.json" "$tmp/r.json" $rounds $size <<'PY'
import json, sys
c, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rounds, size = int(sys.argv[3]), int(sys.argv[4])
errors = []
if not c["ok"]:
    errors.append("collector violations: %r" % c["violations"])
windows = {w["uri"]: w for w in c["windows"]}
runs = [b for b in r["benchmarks"] if b.get("run_type") == "iteration"]
if sorted(b["threads"] for b in runs) != [256, 512]:
    errors.append("instances ran with %r threads" % [b["threads"] for b in runs])
for b in runs:
    o, T = b["ompbench"], b["threads"]
    s = o["samples"]
    name = "t=%d" % T
    if o["threads"] != T or o["rounds"] != rounds or o["sample_size"] != size:
        errors.append("%s: threads %d rounds %d sample_size %d" % (name, o["threads"], o["rounds"],
                                                                     o["sample_size"]))
    if len(s["makespan_ns"]) != rounds or len(s["start_skew_ns"]) != rounds:
        errors.append("%s: %d makespans for %d rounds" % (name, len(s["makespan_ns"]), rounds))
    if len(s["busy_ns"]) != rounds or any(len(row) != T for row in s["busy_ns"]):
        errors.append("%s: busy_ns rows of %r entries" % (name, sorted({len(x) for x in s["busy_ns"]})))
    for key in ("pu_map", "involuntary_switches"):
        if len(o[key]) != T:
            errors.append("%s: %s has %d entries" % (name, key, len(o[key])))
    w = windows.get(o["uri"])
    if w is None or w["rounds"] != rounds or len(w["pairs"]) != rounds:
        errors.append("%s: marker pairs %r for %d rounds" % (name, w and len(w["pairs"]), rounds))
        continue
    for i, ((start, end), span, skew, busy) in enumerate(zip(w["pairs"], s["makespan_ns"],
                                                            s["start_skew_ns"], s["busy_ns"])):
        if end - start != span:
            errors.append("%s round %d: markers span %d ns, makespan %d ns" % (name, i, end - start, span))
        if min(busy) <= 0 or max(busy) > span or skew > span:
            errors.append("%s round %d: busy %d..%d, skew %d, makespan %d: not one reduction of "
                          "every thread's bounds" % (name, i, min(busy), max(busy), skew, span))
if c["commands"].get("AddMarker") != 2 * rounds * len(runs):
    errors.append("%r AddMarker frames for %d rounds" % (c["commands"].get("AddMarker"), rounds * len(runs)))
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
rc=$?
[ $rc -eq 0 ] && echo "large_teams: T=256 and T=512, $rounds rounds each, one marker pair per round"
exit $rc
