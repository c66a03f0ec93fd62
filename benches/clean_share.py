#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The distribution of time away per round in a result file (docs/methodology.md,
# "Clean rounds"): for every accounted round, the largest time a team thread was
# preempted within it over the round's makespan, binned; and the clean share.
#   build/benches/examples --format json --output r.json && benches/clean_share.py r.json
import json
import sys

BINS = [0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, float("inf")]
if len(sys.argv) != 2:
    sys.exit("usage: clean_share.py RESULT.json")
doc = json.load(open(sys.argv[1]))
counts = [0] * (len(BINS) - 1)
rounds = unknown = clean = 0
for b in doc["benchmarks"]:
    s = b.get("ompbench", {}).get("samples", {})
    if "away_ns" not in s:
        continue
    for mk, away, ok in zip(s["makespan_ns"], s["away_ns"], s["clean"]):
        rounds += 1
        clean += ok
        if any(a is None for a in away):
            unknown += 1
            continue
        share = max(away) / mk if mk else 0.0
        for i in range(len(BINS) - 1):
            if BINS[i] <= share < BINS[i + 1]:
                counts[i] += 1
                break
print("rounds %d, clean %d (%.1f%%), unknown %d" % (rounds, clean,
      100.0 * clean / rounds if rounds else 0.0, unknown))
for i, n in enumerate(counts):
    print("  away %5.1f%% .. %5.1f%% of the round: %d" % (100 * BINS[i], 100 * BINS[i + 1], n))
