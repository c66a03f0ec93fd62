#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Do in-process repetitions capture the run-to-run variance of separate
processes? Reads P result files, each one process of the same binary run with
--repetitions M (--format json), and for every instance compares:

  within   the spread of the repetitions' medians inside one process: the
           pooled standard deviation of log(repetition median) around each
           process's own mean (what in-process repetitions can see);
  between  the standard deviation across processes of each process's mean
           log(repetition median) (what a new run sees);
  expected what `between` would be if the processes differed only by the
           within-process noise: within / sqrt(M).

ratio = between / expected; with no process effect ratio^2 follows
F(P - 1, P (M - 1)) (one-way ANOVA on the log medians, the p column), so
about 5% of instances have p < 0.05 by chance. sigma_proc is the estimated
standard deviation of the process effect itself, sqrt(between^2 -
within^2 / M) (0 when negative). Logs make these relative spreads (0.05 is
about 5%). Then A/A on the same runs, judged as `ompbench compare` judges:
half the processes against the other half (each process one run), and one
process against another (each repetition one run). Usage: variance.py
FILE.json... (needs numpy and scipy; Debian: python3-numpy python3-scipy)."""
import json
import math
import random
import sys

import numpy as np
from scipy import stats


def rep_medians(path):
    """{instance name: [median per-iteration time of each repetition]}."""
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        o = b["ompbench"]
        per_iter = np.array(o["samples"]["makespan_ns"], dtype=float) / o["sample_size"]
        out.setdefault(b["name"], []).append(float(np.median(per_iter)))
    return out


def analyse(groups):
    """groups: one array of log repetition medians per process."""
    p = len(groups)
    m = np.mean([len(g) for g in groups])
    means = np.array([g.mean() for g in groups])
    ss_within = sum(((g - g.mean()) ** 2).sum() for g in groups)
    df_within = sum(len(g) for g in groups) - p
    within = math.sqrt(ss_within / df_within) if df_within > 0 else float("nan")
    between = float(means.std(ddof=1))
    expected = within / math.sqrt(m)
    sigma_proc = math.sqrt(max(0.0, between ** 2 - within ** 2 / m))
    pval = float(stats.f_oneway(*groups).pvalue) if within > 0 else float("nan")
    return within, between, expected, sigma_proc, pval


def mad(v):
    v = np.asarray(v)
    return 1.4826 * float(np.median(np.abs(v - np.median(v))))


def robust(groups):
    """The same comparison with medians and MADs (x 1.4826, a standard
    deviation for normal data), which a repetition hit by another job cannot
    inflate: within = median over processes of the MAD of its repetitions,
    between = MAD of the processes' medians."""
    return (float(np.median([mad(g) for g in groups])),
            mad([float(np.median(g)) for g in groups]))


def trimmed(v, trim=0.2):
    """Yuen's summary: h values kept, trimmed mean, (n-1) s_w^2 / (h-1)."""
    v = np.sort(np.asarray(v, dtype=float))
    n = len(v)
    g = int(trim * n)
    if n - 2 * g < 2:
        g = 0
    h = n - 2 * g
    w = v.copy()
    if g:
        w[:g], w[n - g:] = v[g], v[n - g - 1]
    return h, v[g:n - g].mean(), (n - 1) * w.var(ddof=1) / (h - 1)


def verdicts(pairs, threshold=0.05, alpha=0.05):
    """What `ompbench compare` decides for [(base logs, head logs)] per
    instance: Yuen's trimmed Welch interval against +-threshold,
    Benjamini-Hochberg over the instances (tools/lib/analysis/compare.c, in
    NumPy/SciPy)."""
    lo, hi = math.log1p(-threshold), math.log1p(threshold)
    rows = []
    for x, y in pairs:
        hx, mx, varx = trimmed(x)
        hy, my, vary = trimmed(y)
        vx, vy = varx / hx, vary / hy
        d, se = my - mx, math.sqrt(vx + vy)
        df = (vx + vy) ** 2 / (vx ** 2 / (hx - 1) + vy ** 2 / (hy - 1))
        half = stats.t.ppf(1 - alpha / 2, df) * se
        p = min(1.0, 2 * min(stats.t.sf((d - hi) / se, df), stats.t.cdf((d - lo) / se, df)))
        rows.append((d, d - half, d + half, p))
    ps = np.array([r[3] for r in rows])
    order = np.argsort(ps)
    q = ps[order] * len(ps) / np.arange(1, len(ps) + 1)
    q = np.minimum.accumulate(q[::-1])[::-1]
    qs = np.empty(len(ps))
    qs[order] = q
    out = {"flagged": 0, "untouched": 0, "noisy": 0}
    for (d, l, h, p), qv in zip(rows, qs):
        key = "flagged" if qv <= alpha else "untouched" if lo <= l and h <= hi else "noisy"
        out[key] += 1
    return out


def splits(logs, trials=20, seed=1):
    """A/A on these very runs, as compare would judge them: (a) half the
    processes against the other half, one run per process; (b) two single
    processes against each other, their in-process repetitions as runs."""
    rng = random.Random(seed)
    names = list(logs)
    procs = len(logs[names[0]])
    for label, make in (
            ("%d vs %d processes (runs = processes)" % (procs // 2, procs // 2),
             lambda: rng.sample(range(procs), procs)),
            ("1 vs 1 process (runs = its repetitions)", lambda: rng.sample(range(procs), 2))):
        counts = []
        for _ in range(trials):
            pick = make()
            if len(pick) == 2:
                pairs = [(logs[n][pick[0]], logs[n][pick[1]]) for n in names]
            else:
                half = procs // 2
                pairs = [([logs[n][k].mean() for k in pick[:half]],
                          [logs[n][k].mean() for k in pick[half:2 * half]]) for n in names]
            counts.append(verdicts(pairs))
        flagged = [c["flagged"] for c in counts]
        print("A/A %s, %d random splits: flagged regressed/improved per split: median %d, "
              "max %d; untouched median %d, noisy median %d (of %d)" % (
                  label, trials, int(np.median(flagged)), max(flagged),
                  int(np.median([c["untouched"] for c in counts])),
                  int(np.median([c["noisy"] for c in counts])), len(names)))


def quantiles(v):
    v = np.array(v)
    return "min %.4f  q1 %.4f  median %.4f  q3 %.4f  max %.4f" % tuple(
        np.quantile(v, [0, 0.25, 0.5, 0.75, 1]))


def main(paths):
    runs = [rep_medians(p) for p in paths]
    if len(runs) < 4:
        sys.exit("variance.py: at least 4 files (processes) are needed")
    names = [n for n in runs[0] if all(n in r for r in runs)]
    rows = []
    for n in names:
        groups = [np.log(np.array(r[n])) for r in runs]
        if min(len(g) for g in groups) < 2:
            continue
        rows.append((n,) + analyse(groups) + robust(groups))
    print("%d processes, %d instances, %s repetitions each" %
          (len(runs), len(rows), sorted({len(r[names[0]]) for r in runs})))
    print("%-40s %8s %8s %8s %6s %10s %9s" %
          ("instance", "within", "between", "expected", "ratio", "sigma_proc", "p"))
    for n, w, b, e, s, p, rw, rb in sorted(rows, key=lambda r: -(r[2] / r[3] if r[3] > 0 else 0)):
        print("%-40s %8.4f %8.4f %8.4f %6.2f %10.4f %9.2g" % (n[:40], w, b, e, b / e, s, p))
    ratio = [r[2] / r[3] for r in rows if r[3] > 0]
    print()
    print("within  (spread of repetition medians in one process):", quantiles([r[1] for r in rows]))
    print("between (spread of process means across processes):   ", quantiles([r[2] for r in rows]))
    print("expected between if repetitions captured it:          ", quantiles([r[3] for r in rows]))
    print("ratio between / expected:                             ", quantiles(ratio))
    print("sigma_proc (process effect alone):                    ", quantiles([r[4] for r in rows]))
    print("robust (medians, MAD x 1.4826): within", quantiles([r[6] for r in rows]))
    print("                                between", quantiles([r[7] for r in rows]))
    print("  between / (within / sqrt(M)):          ",
          quantiles([r[7] / (r[6] / math.sqrt(len(runs[0][names[0]]))) for r in rows if r[6] > 0]))
    pv = [r[5] for r in rows]
    print("instances with a process effect (ANOVA): p < 0.05: %d of %d (%.0f expected by chance), "
          "p < 0.001: %d" % (sum(x < 0.05 for x in pv), len(pv), 0.05 * len(pv),
                             sum(x < 0.001 for x in pv)))
    print("instances where between > 2x expected: %d of %d" %
          (sum(x > 2 for x in ratio), len(ratio)))
    print()
    splits({r[0]: [np.log(np.array(x[r[0]])) for x in runs] for r in rows})


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: variance.py FILE.json FILE.json...")
    main(sys.argv[1:])
