/* SPDX-License-Identifier: MIT */
/*
 * The statistics behind `ompbench compare` verdicts (docs/methodology.md):
 * Student's t distribution, Welch's two-sample t on the logarithms of the
 * runs' medians (the unit of evidence is a run, not a round), in Yuen's
 * trimmed form so that one disturbed run in five cannot decide, a test of
 * the interval null "the change is within the threshold", and the
 * Benjamini-Hochberg adjustment that keeps the false discoveries of a
 * report with many instances at alpha. Everything here is a pure function
 * of numbers; tests/test_compare.c checks each against SciPy/NumPy values
 * (tests/data/compare/make_stats.py).
 */
#ifndef OMPB_ANALYSIS_WELCH_H
#define OMPB_ANALYSIS_WELCH_H

#include <stddef.h>

/* P(T <= t) for Student's t with df > 0 degrees of freedom (df need not be
 * whole: Welch's is not). NAN for df <= 0 or a NAN t. */
double ompb__t_cdf(double t, double df);

/* The p-quantile of Student's t with df > 0, p in (0, 1); NAN otherwise. */
double ompb__t_quantile(double p, double df);

/* One side of a comparison as Welch's formulas take it: n values, their
 * mean and a variance such that var / n is the squared standard error of
 * the mean. spread is the standard deviation to show (NAN for n < 2). */
typedef struct ompb__sample_summary {
    size_t n;
    double mean, var, spread;
} ompb__sample_summary;

/* The plain summary of v[n] (not modified): mean, sample variance (n - 1
 * in the denominator), spread its square root. */
ompb__sample_summary ompb__summarize(const double *v, size_t n);

/* The trimmed summary of Yuen's test: g = floor(trim * n) values cut from
 * each end (none when that leaves fewer than 2), n = h = n - 2g, mean the
 * trimmed mean, var = (n - 1) s_w^2 / (h - 1) with s_w^2 the variance of
 * the winsorized values (each cut value replaced by the nearest kept one),
 * so that Welch's formulas on it are Yuen-Welch's; spread is s_w. With
 * g = 0 it is ompb__summarize. trim in [0, 0.5). Returns the plain summary
 * when out of memory. */
ompb__sample_summary ompb__summarize_trimmed(const double *v, size_t n, double trim);

/* Welch's t for mean(y) - mean(x): the difference, its standard error
 * sqrt(var_x / n_x + var_y / n_y) and the Welch-Satterthwaite degrees of
 * freedom. Needs n >= 2 on both sides (else se and df are NAN). With both
 * variances 0, se is 0 and df is n_x + n_y - 2. */
typedef struct ompb__welch_result {
    double diff, se, df;
} ompb__welch_result;

ompb__welch_result ompb__welch(ompb__sample_summary x, ompb__sample_summary y);

/* The two-sided (1 - alpha) confidence interval of the difference:
 * diff -+ t(1 - alpha / 2, df) * se. With se 0 it is [diff, diff]. */
/* The one-sample (paired) form: d summarizes the pairs' differences
 * (ompb__summarize_trimmed, Yuen's variance); the difference is d's
 * (trimmed) mean, its standard error sqrt(var / n) over the n kept, with
 * n - 1 degrees of freedom. se NAN with fewer than 2 kept. */
ompb__welch_result ompb__paired(ompb__sample_summary d);

void ompb__welch_ci(const ompb__welch_result *w, double alpha, double *low, double *high);

/*
 * The p-value of the interval null lower <= true difference <= upper
 * (lower < upper; lower may be -INFINITY): 2 * min(P(T >= (diff - upper)
 * / se), P(T <= (diff - lower) / se)), at most 1. It is below alpha exactly
 * when the (1 - alpha) interval of ompb__welch_ci lies entirely above upper
 * or below lower. With se 0: 0 when diff is outside [lower, upper], else 1.
 */
double ompb__interval_p(const ompb__welch_result *w, double lower, double upper);

/* Benjamini-Hochberg adjusted p-values (q-values) of p[n] into q[n] (may
 * be the same array): q_(i) = min over j >= i of p_(j) * n / j, at most 1,
 * for p sorted ascending; rejecting every q <= alpha keeps the expected
 * share of false discoveries among the rejections at alpha or below
 * (independent or positively dependent tests). NAN entries are left out
 * (not counted in n) and stay NAN. Returns 0 or OMPB_ENOMEM. */
int ompb__bh_adjust(const double *p, size_t n, double *q);

/* The smallest n per side (2 to max) for which the (1 - alpha) interval of
 * a comparison now made with n_now runs per side and standard error se_now
 * would be no wider than half_width on each side, if the standard error
 * shrinks as 1 / sqrt(n) and each side keeps h = n - 2 floor(trim n) runs:
 * t(1 - alpha / 2, 2h - 2) se_now sqrt(n_now / n) <= half_width. max + 1
 * when none is. An estimate for a report ("~N runs would decide"). */
size_t ompb__units_needed(double se_now, size_t n_now, double half_width, double alpha,
                          double trim, size_t max);

#endif
