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
# Then, for four ways of taking a run's value from its clean rounds (their
# median, which ab uses, their 25th and 10th percentiles and their
# minimum), the spread of the pairs' log ratios and how many instances
# ab's look (Yuen's 20%-trimmed paired t, 95%) would put within +-5%
# (untouched) over all the pairs, with no alpha spent on earlier looks:
# whether a lower quantile, which ignores rounds the host slowed, would
# narrow the pairs.
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


def quantile(v, p):
    v = sorted(v)
    k = (len(v) - 1) * p
    f = math.floor(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


ESTIMATORS = (("median", 0.5), ("p25", 0.25), ("p10", 0.10), ("min", 0.0))


def yuen_paired(d, stats, trim=0.2):
    """ab's look (ompb__summarize_trimmed, ompb__paired): Yuen's 20%
    trimmed mean of the pairs' log ratios and its 95% half-width."""
    n = len(d)
    g = int(trim * n)
    if not (g > 0 and n - 2 * g >= 2):
        return statistics.mean(d), stats.t.ppf(0.975, n - 1) * statistics.stdev(d) / math.sqrt(n)
    w = sorted(d)
    h = n - 2 * g
    m = statistics.mean(w[g:n - g])
    win = [w[g]] * g + w[g:n - g] + [w[n - 1 - g]] * g
    var = (n - 1) * statistics.variance(win) / (h - 1)
    return m, stats.t.ppf(0.975, h - 1) * math.sqrt(var / h)


def estimators(sides, names, threshold=0.05):
    from scipy import stats  # a test dependency (tools/install-deps.sh)
    print(f"{'run value':9s} {'untouched':>9s} {'pairs spread':>13s} {'p90':>6s}")
    for label, p in ESTIMATORS:
        decided, total, sds = 0, 0, []
        for name in names:
            lr = []
            for k, b in sides["base"].items():
                h = sides["head"].get(k, {})
                if name in b and name in h:
                    lr.append(quantile(h[name][1], p) - quantile(b[name][1], p))
            if len(lr) < 3:
                continue
            m, half = yuen_paired(lr, stats)
            total += 1
            sds.append(robust_sd(lr))
            decided += abs(m) + half < math.log(1 + threshold)
        if total:
            p90 = sorted(sds)[int(0.9 * (len(sds) - 1))]
            print(f"{label:9s} {decided:4d}/{total:<4d} {statistics.median(sds):13.3f} {p90:6.3f}")


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
    estimators(sides, names)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
