/* SPDX-License-Identifier: MIT */
/*
 * Statistics over the per-iteration times of an instance's measured rounds:
 * location and spread, type-7 quantiles, a distribution-free confidence
 * interval of the median, and outlier counts. Outliers are only counted; every
 * sample stays in every statistic. Also the per-round team figures (start skew,
 * imbalance) that the reporters average over rounds.
 */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>


int ompb__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void moments(const double *x, size_t n, ompb__stats *out)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    out->mean = sum / (double)n;
    /* Two passes: the sum of squared deviations does not cancel the way
     * sum(x^2) - n mean^2 does for nearly constant timings. */
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - out->mean) * (x[i] - out->mean);
    out->stdev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

static void count_outliers(const double *x, size_t n, ompb__stats *out)
{
    double iqr = out->q3 - out->q1;
    double lo = out->q1 - OMPB__IQR_FENCE * iqr, hi = out->q3 + OMPB__IQR_FENCE * iqr;
    double dev = OMPB__STDEV_FENCE * out->stdev;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < lo || x[i] > hi)
            out->iqr_outliers++;
        if (fabs(x[i] - out->mean) > dev && out->stdev > 0.0)
            out->stdev_outliers++;
    }
}

/*
 * Number of lower order statistics that may be cut from each end: the largest
 * k with P(B < k) <= tail = (1 - level) / 2, B ~ Binomial(n, 1/2). The pmf is
 * walked in log space because 2^-n underflows for the round counts long runs
 * produce.
 */
size_t ompb__median_ci_cut(size_t n, double level)
{
    double tail = (1.0 - level) / 2.0;
    double log_pmf = -(double)n * log(2.0), cum = 0.0;
    size_t k = 0;
    while (k < n / 2) {
        double next = cum + exp(log_pmf);
        if (next > tail)
            break;
        cum = next;
        log_pmf += log((double)(n - k)) - log((double)(k + 1));
        k++;
    }
    return k;
}

int ompb__stats_compute(const double *samples, size_t n, ompb__stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0)
        return 0;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return OMPB_ENOMEM;
    memcpy(s, samples, n * sizeof *s);
    qsort(s, n, sizeof *s, ompb__cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    moments(s, n, out);
    out->q1 = ompb__quantile_sorted(s, n, 0.25);
    out->median = ompb__quantile_sorted(s, n, 0.5);
    out->q3 = ompb__quantile_sorted(s, n, 0.75);
    ompb__median_ci_sorted(s, n, OMPB__CI_LEVEL, &out->ci_low, &out->ci_high);
    count_outliers(s, n, out);
    free(s);
    return 0;
}

double ompb__quantile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0.0;
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

void ompb__median_ci_sorted(const double *sorted, size_t n, double level,
                            double *low, double *high)
{
    if (n == 0) {
        *low = *high = 0.0;
        return;
    }
    size_t k = ompb__median_ci_cut(n, level);
    if (k == 0) {
        *low = *high = NAN; /* no interval reaches the level: claim none */
        return;
    }
    *low = sorted[k - 1];
    *high = sorted[n - k];
}

double ompb__round_imbalance(const uint64_t *busy, size_t threads)
{
    uint64_t max = 0;
    double sum = 0.0;
    for (size_t t = 0; t < threads; t++) {
        sum += (double)busy[t];
        if (busy[t] > max)
            max = busy[t];
    }
    if (sum <= 0.0)
        return 1.0;
    return (double)max / (sum / (double)threads);
}

double ompb__mean_imbalance(const uint64_t *busy, size_t rounds, size_t threads)
{
    if (rounds == 0 || threads == 0)
        return 0.0;
    double sum = 0.0;
    for (size_t r = 0; r < rounds; r++)
        sum += ompb__round_imbalance(busy + r * threads, threads);
    return sum / (double)rounds;
}

double ompb__mean_u64(const uint64_t *values, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += (double)values[i];
    return n ? sum / (double)n : 0.0;
}
