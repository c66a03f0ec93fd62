#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Where the noise of an A/A comes from (docs/performance.md, "Verdicts on a
# busy machine"): from the runs `ompbench ab --keep DIR` kept, per instance,
#   within  the spread of the clean rounds inside one run (median over the
#           runs of each run's robust spread: 1.4826 x MAD of log round time),
#   between the spread of the runs' clean-round medians across the runs,
#   pairs   the spread of the log ratios HEAD/BASE of the pairs of runs,
# all as robust standard deviations on the log scale (0.05 is about 5%).
# When `between` is far above `within`, more rounds per run cannot help:
# each process (each run) has its own speed for the instance.
#   benches/run_spread.py DIR [--min-runs N]
import glob
import json
import math
import os
import statistics
import sys


def robust_sd(values):
    m = statistics.median(values)
    return 1.4826 * statistics.median([abs(v - m) for v in values])


def clean_rounds(entry):
    o = entry.get("ompbench", {})
    s = o.get("samples", {})
    n = o.get("sample_size")
    if not n or "makespan_ns" not in s:
        return []
    ok = s.get("clean") or [True] * len(s["makespan_ns"])
    return [math.log(mk / n) for mk, c in zip(s["makespan_ns"], ok) if c and mk > 0]


def runs_of(path):
    """{instance: (log clean-round median, [log clean rounds])} of one run."""
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        return {}  # a run ab could not use either (crashed, cut)
    out = {}
    for e in doc.get("benchmarks", []):
        if e.get("run_type") != "iteration":
            continue
        r = clean_rounds(e)
        if len(r) >= 3:
            out[e["name"]] = (statistics.median(r), r)
    return out


def refuse(msg):
    print(f"run_spread.py: {msg}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--min-runs"):
        refuse("usage: run_spread.py DIR [--min-runs N]")
    if len(argv) == 4 and not (argv[3].isdigit() and int(argv[3]) >= 2):
        refuse(f"--min-runs: invalid value '{argv[3]}' (accepted: an integer of at least 2)")
    min_runs = int(argv[3]) if len(argv) == 4 else 5
    d = argv[1]
    sides = {}
    for side in ("base", "head"):
        for p in sorted(glob.glob(os.path.join(d, side + "-[0-9][0-9][0-9].json"))):
            sides.setdefault(side, {})[os.path.basename(p)[5:8]] = runs_of(p)
    if not sides.get("base") or not sides.get("head"):
        refuse(f"no base-NNN.json and head-NNN.json in '{d}' "
               "(accepted: a directory ompbench ab --keep wrote)")
    names = sorted({n for runs in sides["base"].values() for n in runs})
    print(f"{'instance':44s} {'runs':>4s} {'within':>7s} {'between':>8s} {'pairs':>7s}")
    ratios = []
    for name in names:
        meds, within, pairs = [], [], []
        for side in ("base", "head"):
            for runs in sides[side].values():
                if name in runs:
                    meds.append(runs[name][0])
                    within.append(robust_sd(runs[name][1]))
        for k, b in sides["base"].items():
            h = sides["head"].get(k, {})
            if name in b and name in h:
                pairs.append(h[name][0] - b[name][0])
        if len(meds) < min_runs or len(pairs) < 3:
            continue
        w, bt, pr = statistics.median(within), robust_sd(meds), robust_sd(pairs)
        if w > 0:
            ratios.append(bt / w)
        print(f"{name[:44]:44s} {len(meds):4d} {w:7.3f} {bt:8.3f} {pr:7.3f}")
    if ratios:
        print(f"between / within: median {statistics.median(ratios):.1f} over {len(ratios)} "
              "instances (1: the runs agree as their rounds do)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
