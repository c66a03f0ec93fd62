#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Does pairing BASE and HEAD closer in time narrow an A/A's pairs?
# (docs/performance.md, "The example suite, quiet, 2026-12-04"). ab pairs
# whole-suite runs: a BASE process runs every instance, then a HEAD
# process, seconds later. Here, for each instance named, PAIRS times: a
# near pair (two runs of that instance alone, --exact, ab's per-run
# budget, one right after the other) and a far pair (the same, GAP
# seconds apart, as a suite run would put them); the same binary on both
# sides (an A/A). Prints per instance the robust spread (1.4826 x MAD) of
# each kind of pair's log ratios of the clean-round medians: if near is
# well below far, alternating per instance would narrow ab's pairs.
#   benches/pair_spacing.sh BINARY PAIRS GAP NAME...
# Every run is bounded by timeout(1); nothing asserts a time.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: pair_spacing.sh BINARY PAIRS GAP NAME..." >&2; exit 2; }
bin=$1 pairs=$2 gap=$3
shift 3
[ -x "$bin" ] || { echo "pair_spacing: '$bin' is not an executable" >&2; exit 2; }
[[ "$pairs" =~ ^[0-9]+$ ]] && [ "$pairs" -ge 3 ] ||
  { echo "pair_spacing: invalid PAIRS '$pairs' (accepted: an integer of at least 3)" >&2; exit 2; }
[[ "$gap" =~ ^[0-9]+$ ]] && [ "$gap" -le 60 ] ||
  { echo "pair_spacing: invalid GAP '$gap' (accepted: whole seconds, 0 to 60)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
budget=(--sample-count 10 --warmup-time 10ms --max-time 500ms --min-clean-rounds 5)
for name in "$@"; do
  run() { timeout 60 "$bin" --exact "$name" "${budget[@]}" --format json \
            --output "$dir/$1-$k.json" > /dev/null 2>&1 || true; }
  for ((k = 0; k < pairs; k++)); do
    run nbase; run nhead
    run fbase; sleep "$gap"; run fhead
  done
  python3 - "$dir" "$pairs" "$name" <<'PY'
import json, math, statistics, sys
d, pairs, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def value(path):
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        return None
    for e in doc.get("benchmarks", []):
        o = e.get("ompbench", {})
        if e.get("run_type") == "iteration" and o.get("clean_median_ns"):
            return math.log(o["clean_median_ns"])
    return None
out = f"{name[:44]:44s}"
for kind, label in (("n", "near"), ("f", "far")):
    lr = []
    for k in range(pairs):
        b, h = value(f"{d}/{kind}base-{k}.json"), value(f"{d}/{kind}head-{k}.json")
        if b is not None and h is not None:
            lr.append(h - b)
    if len(lr) < 3:
        out += f"  {label}: {len(lr)} pairs, too few"
        continue
    m = statistics.median(lr)
    sd = 1.4826 * statistics.median([abs(x - m) for x in lr])
    out += f"  {label} {sd:.3f} ({len(lr)} pairs)"
print(out)
PY
done
