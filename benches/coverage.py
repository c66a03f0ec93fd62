#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Why compare uses Welch's t and not a bootstrap at five runs a side
(docs/methodology.md): the coverage of the nominal 95% percentile bootstrap
interval of a difference of means against Welch's t interval, for 5 vs 5
normally distributed run values and no true difference, over 2000 simulated
comparisons (2000 resamples each). Deterministic (seeded); ~1 minute.
Usage: /usr/bin/python3 benches/coverage.py [RUNS_PER_SIDE]"""
import sys

import numpy as np
from scipy import stats

rng = np.random.default_rng(1)
trials, B = 2000, 2000
n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
boot_hit = t_hit = 0
for _ in range(trials):
    x, y = rng.normal(0, 1, n), rng.normal(0, 1, n)
    bx = rng.choice(x, (B, n)).mean(1)
    by = rng.choice(y, (B, n)).mean(1)
    lo, hi = np.quantile(by - bx, [0.025, 0.975])
    boot_hit += lo <= 0 <= hi
    vx, vy = x.var(ddof=1) / n, y.var(ddof=1) / n
    se = np.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx ** 2 / (n - 1) + vy ** 2 / (n - 1))
    h = stats.t.ppf(0.975, df) * se
    d = y.mean() - x.mean()
    t_hit += d - h <= 0 <= d + h
print("%d vs %d runs: percentile bootstrap coverage %.3f, Welch t coverage %.3f (nominal 0.95)"
      % (n, n, boot_hit / trials, t_hit / trials))
