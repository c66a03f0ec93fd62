/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histogram (the layout HdrHistogram uses): the bucket of a value
 * is its power of two and its next six bits, found with one count of leading
 * zeros, so adding a value is a few instructions. Rank queries walk the
 * cumulative counts; they run at report time only.
 */
#include "core/histogram.h"

#include <math.h>
#include <string.h>

#include "core/stats.h"

#define SUB (1u << OMPB__HISTOGRAM_SUB_BITS)

void ompb__histogram_clear(ompb__histogram *h)
{
    memset(h, 0, sizeof *h);
}

void ompb__histogram_bounds(size_t bucket, uint64_t *low, uint64_t *high)
{
    if (bucket < SUB) {
        *low = bucket;
        *high = bucket + 1;
        return;
    }
    size_t shift = (bucket - SUB) / SUB, sub = (bucket - SUB) % SUB;
    *low = (uint64_t)(SUB + sub) << shift;
    *high = *low + ((uint64_t)1 << shift);
}

/* Midpoint of the integers in the bucket, within 1/128 of each of them. */
static double midpoint(size_t bucket)
{
    uint64_t low, high;
    ompb__histogram_bounds(bucket, &low, &high);
    return (double)low + (double)(high - 1 - low) / 2.0;
}

double ompb__histogram_rank(const ompb__histogram *h, uint64_t i)
{
    if (h->n == 0)
        return 0.0;
    if (i == 0)
        return (double)h->min;
    if (i >= h->n - 1)
        return (double)h->max;
    uint64_t seen = 0;
    for (size_t b = 0; b < OMPB__HISTOGRAM_BUCKETS; b++) {
        seen += h->counts[b];
        if (seen > i) {
            double v = midpoint(b);
            return fmin(fmax(v, (double)h->min), (double)h->max);
        }
    }
    return (double)h->max;
}

double ompb__histogram_quantile(const ompb__histogram *h, double p)
{
    if (h->n == 0)
        return 0.0;
    double pos = (double)(h->n - 1) * p;
    uint64_t lo = (uint64_t)floor(pos);
    if (lo >= h->n - 1)
        return (double)h->max;
    double a = ompb__histogram_rank(h, lo), b = ompb__histogram_rank(h, lo + 1);
    return a + (pos - (double)lo) * (b - a);
}

void ompb__histogram_median_ci(const ompb__histogram *h, double *low, double *high)
{
    if (h->n == 0) {
        *low = *high = 0.0;
        return;
    }
    size_t k = ompb__median_ci_cut((size_t)h->n, OMPB__CI_LEVEL);
    if (k == 0) {
        *low = *high = NAN;
        return;
    }
    *low = ompb__histogram_rank(h, k - 1);
    *high = ompb__histogram_rank(h, h->n - k);
}

uint64_t ompb__histogram_count_outside(const ompb__histogram *h, double lo, double hi)
{
    uint64_t out = 0;
    for (size_t b = 0; b < OMPB__HISTOGRAM_BUCKETS; b++) {
        if (!h->counts[b])
            continue;
        double m = fmin(fmax(midpoint(b), (double)h->min), (double)h->max);
        if (m < lo || m > hi)
            out += h->counts[b];
    }
    return out;
}
