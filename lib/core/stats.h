/* SPDX-License-Identifier: MIT */
/*
 * Statistics over rounds. Samples are per-iteration times in ns (round
 * makespan / iterations of that round). Nothing is ever dropped: outliers are
 * counted. Quantiles use linear interpolation between closest ranks
 * (Hyndman-Fan type 7, the default of R, NumPy and the CodSpeed runner).
 */
#ifndef OMPB_STATS_H
#define OMPB_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ompb__stats {
    size_t n;
    double min, max, mean, stdev;   /* stdev with n-1; 0 when n < 2 */
    double q1, median, q3;
    double ci_low, ci_high;         /* 95% rank-based CI of the median; NAN
                                       when n <= 5 (see ompb__median_ci_sorted) */
    size_t iqr_outliers;            /* outside [q1 - 1.5 IQR, q3 + 1.5 IQR] */
    size_t stdev_outliers;          /* outside mean +- 3 stdev */
} ompb__stats;

/* Computes stats over n samples (not modified). n = 0 gives all zeros.
 * Returns 0 or OMPB_ENOMEM. */
int ompb__stats_compute(const double *samples, size_t n, ompb__stats *out);

/* qsort's comparison of two doubles, ascending (NaN is not ordered). */
int ompb__cmp_double(const void *a, const void *b);

/* Quantile p in [0,1] of sorted data, type 7. */
double ompb__quantile_sorted(const double *sorted, size_t n, double p);

/*
 * Distribution-free confidence interval of the median of sorted data: the
 * order statistics [x(k), x(n+1-k)] (1-based) with the largest k such that
 * P(B < k) <= (1 - level) / 2 for B ~ Binomial(n, 1/2), so the coverage is
 * at least level. When n is too small for any such k (n <= 5 at 95%: even
 * [min, max] covers the median only with probability 1 - 2^(1-n), 93.75% at
 * n = 5), *low and *high are NAN rather than an interval that would be
 * labelled with a coverage it does not have; JSON writers turn them into
 * null, CSV into an empty field. n = 0 gives 0, 0. level in (0, 1).
 */
void ompb__median_ci_sorted(const double *sorted, size_t n, double level,
                            double *low, double *high);

/* The k of ompb__median_ci_sorted: how many order statistics the interval
 * leaves out at each end for n samples (0: no interval reaches level).
 * For callers that hold ranks rather than sorted values (lib/core/histogram.c). */
size_t ompb__median_ci_cut(size_t n, double level);

/* The confidence level of the median intervals of every report, and the
 * outlier fences: 1.5 IQR beyond the quartiles, 3 stdev from the mean. */
#define OMPB__CI_LEVEL 0.95
#define OMPB__IQR_FENCE 1.5
#define OMPB__STDEV_FENCE 3.0

/* Imbalance of one round: max busy / mean busy over the team's threads;
 * 1 when every thread was idle (nothing to be unequal about). */
double ompb__round_imbalance(const uint64_t *busy, size_t threads);

/* Mean over rounds of ompb__round_imbalance; busy is row-major
 * [round * threads + thread]. 0 when rounds or threads is 0. */
double ompb__mean_imbalance(const uint64_t *busy, size_t rounds, size_t threads);

/* Arithmetic mean of n values (e.g. the mean start skew of the rounds);
 * 0 when n is 0. */
double ompb__mean_u64(const uint64_t *values, size_t n);

#endif
