#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes stats_reference.json: the reference values tests/test_compare.c checks
tools/lib/analysis/welch.c against, computed with SciPy/NumPy (SciPy 1.10,
NumPy 1.24: Debian 12's python3-scipy). Run it with /usr/bin/python3 from
anywhere; the output is deterministic and committed.

- t_cdf:      scipy.stats.t.cdf(t, df)
- t_quantile: scipy.stats.t.ppf(p, df)
- welch:      two samples; diff = mean(y) - mean(x), se, Welch-Satterthwaite
              df (NumPy, from their definitions), scipy.stats.ttest_ind(y, x,
              equal_var=False) for the two-sided p-value at 0 (our interval p
              with lower = upper = 0), the 95% interval diff -+ t.ppf(.975,
              df) se, and the interval-null p for [log(0.95), log(1.05)]:
              2 min(t.sf((diff - upper) / se), t.cdf((diff - lower) / se))
- yuen:       Yuen's trimmed Welch test, 20% cut from each end:
              scipy.stats.ttest_ind(y, x, equal_var=False, trim=0.2) for the
              two-sided p-value; trimmed means, winsorized variances and
              the Yuen-Welch df from their definitions (NumPy)
- bh:         Benjamini-Hochberg q-values, q_(i) = min_{j >= i} p_(j) m / j
- units:      smallest n in [2, 1000] with t.ppf(1 - a/2, 2h - 2) se sqrt(n0 / n)
              <= half_width, h = n - 2 floor(trim n) (n when that is below 2),
              by scanning n
"""
import json
import math
import os

import numpy as np
import scipy
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))


def t_cdf_cases():
    pairs = [(0.0, 1.0), (1.5, 3.0), (-2.3, 7.5), (10.0, 4.0), (-40.0, 2.2), (3.0, 100.0),
             (0.2, 0.7), (60.0, 30.0), (-60.0, 30.0), (-5.0, 1e4), (-1e-3, 2.0), (25.0, 1.0)]
    return [{"t": t, "df": df, "cdf": float(stats.t.cdf(t, df))} for t, df in pairs]


def t_quantile_cases():
    pairs = [(0.975, 1.0), (0.975, 4.0), (0.975, 8.37), (0.995, 2.5), (0.025, 12.0),
             (0.9999, 3.0), (0.6, 50.0), (1e-8, 5.0), (0.5, 3.0), (0.9995, 1.3)]
    return [{"p": p, "df": df, "q": float(stats.t.ppf(p, df))} for p, df in pairs]


def welch_case(x, y):
    x, y = np.array(x, dtype=float), np.array(y, dtype=float)
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    se = math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
    diff = y.mean() - x.mean()
    half = stats.t.ppf(0.975, df) * se
    lower, upper = math.log(0.95), math.log(1.05)
    p_int = min(1.0, 2 * min(stats.t.sf((diff - upper) / se, df),
                             stats.t.cdf((diff - lower) / se, df)))
    return {"x": list(x), "y": list(y), "diff": diff, "se": se, "df": df,
            "p_two_sided": float(stats.ttest_ind(y, x, equal_var=False).pvalue),
            "ci_low": diff - half, "ci_high": diff + half, "p_interval": float(p_int)}


def welch_cases():
    ln = lambda v: [math.log(a) for a in v]
    return [
        # Five runs per side, a 20% slowdown with ~3% run-to-run noise.
        welch_case(ln([100, 103, 98, 101, 99]), ln([121, 118, 123, 119, 120.5])),
        # The same noise, no change: the interval null is not rejected.
        welch_case(ln([100, 103, 98, 101, 99]), ln([99.5, 102, 100.5, 97.5, 101])),
        # Unequal sizes and variances (Welch df far from n1 + n2 - 2).
        welch_case(ln([10, 10.1, 9.9]), ln([12, 9, 15, 11, 8, 14, 10])),
        # A large, noisy change: beyond 5% but not confidently so.
        welch_case(ln([100, 120, 90, 110, 95]), ln([112, 130, 99, 125, 104])),
    ]


def yuen_side(v, trim=0.2):
    v = np.sort(np.array(v, dtype=float))
    n = len(v)
    g = int(trim * n)
    h = n - 2 * g
    w = v.copy()
    w[:g], w[n - g:] = v[g], v[n - g - 1]
    sw2 = w.var(ddof=1)
    return h, v[g:n - g].mean(), (n - 1) * sw2 / (h - 1), math.sqrt(sw2)


def yuen_case(x, y):
    hx, mx, vx, sx = yuen_side(x)
    hy, my, vy, sy = yuen_side(y)
    dx, dy = vx / hx, vy / hy
    return {"x": list(map(float, x)), "y": list(map(float, y)), "h_x": hx, "h_y": hy,
            "mean_x": mx, "mean_y": my, "var_x": vx, "var_y": vy, "spread_x": sx,
            "spread_y": sy, "diff": my - mx, "se": math.sqrt(dx + dy),
            "df": (dx + dy) ** 2 / (dx ** 2 / (hx - 1) + dy ** 2 / (hy - 1)),
            "p_two_sided": float(stats.ttest_ind(y, x, equal_var=False, trim=0.2).pvalue)}


def yuen_cases():
    ln = lambda v: [math.log(a) for a in v]
    return [
        # Five runs a side, one HEAD run disturbed fourfold: trimmed away.
        yuen_case(ln([4023, 4055, 4039, 4049, 4041]), ln([4846, 4929, 4827, 20778, 4880])),
        # Ten runs a side: two cut from each end.
        yuen_case(ln([100, 101, 99, 102, 98, 100.5, 99.5, 130, 70, 100]),
                  ln([110, 111, 109, 112, 108, 110.5, 109.5, 90, 160, 110])),
        # Seven against six (one cut from each end of each).
        yuen_case([1.0, 2.0, 3.0, 4.0, 100.0, 5.0, 6.0], [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]),
    ]


def bh(p):
    p = np.array(p, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    q = p[order] * m / np.arange(1, m + 1)
    q = np.minimum.accumulate(q[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(q, 1.0)
    return list(out)


def bh_cases():
    ps = [[0.01, 0.04, 0.03, 0.005, 0.5, 0.2],
          [0.001] + [0.5] * 51,
          [0.0001, 0.0002, 0.9, 0.04, 0.04, 0.6, 1.0]]
    return [{"p": p, "q": bh(p)} for p in ps]


def kept(n, trim):
    g = int(trim * n)
    return n - 2 * g if n - 2 * g >= 2 else n


def units(se, n0, half, alpha, trim, cap=1000):
    for n in range(2, cap + 1):
        if stats.t.ppf(1 - alpha / 2, 2 * kept(n, trim) - 2) * se * math.sqrt(n0 / n) <= half:
            return n
    return cap + 1


def units_cases():
    cases = [(0.02, 10, 0.05, 0.05, 0.2), (0.05, 10, 0.02, 0.05, 0.2), (0.01, 5, 0.05, 0.05, 0.2),
             (0.2, 10, 0.001, 0.05, 0.2), (0.03, 4, 0.03, 0.01, 0.0), (0.04, 10, 0.03, 0.05, 0.2)]
    return [{"se": se, "n_now": n0, "half_width": h, "alpha": a, "trim": t,
             "n": units(se, n0, h, a, t)} for se, n0, h, a, t in cases]


doc = {"generator": "tests/data/compare/make_stats.py", "scipy": scipy.__version__,
       "numpy": np.__version__,
       "t_cdf": t_cdf_cases(), "t_quantile": t_quantile_cases(), "welch": welch_cases(),
       "yuen": yuen_cases(),
       "bh": bh_cases(), "units": units_cases()}
with open(os.path.join(HERE, "stats_reference.json"), "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
