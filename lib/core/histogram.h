/* SPDX-License-Identifier: MIT */
/*
 * A log-linear histogram of durations in nanoseconds with a bounded
 * relative error, for quantiles over more values than can be kept (the
 * instances of an application region entered millions of times). Values
 * below 64 ns have a bucket each (exact); above, every power of two is cut
 * into 64 buckets, so a bucket is at most 1/64 of its lower bound wide and
 * its midpoint is within 1/128 (0.79%) of every value in it. Values of
 * 2^48 ns (about 78 hours) and more share the last bucket. Fixed size
 * (about 22 KiB), no allocation after creation; merging two is adding
 * their counts.
 */
#ifndef OMPB_HISTOGRAM_H
#define OMPB_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

/* Sub-buckets per power of two, as a power of two. */
#define OMPB__HISTOGRAM_SUB_BITS 6
/* Values at or above 2^OMPB__HISTOGRAM_TOP_BITS share the last bucket. */
#define OMPB__HISTOGRAM_TOP_BITS 48
#define OMPB__HISTOGRAM_BUCKETS \
    ((1u << OMPB__HISTOGRAM_SUB_BITS) \
     * (OMPB__HISTOGRAM_TOP_BITS - OMPB__HISTOGRAM_SUB_BITS + 1))
/* Largest relative error of a value estimated by its bucket's midpoint,
 * for values below 2^OMPB__HISTOGRAM_TOP_BITS: half a bucket, 1/128. */
#define OMPB__HISTOGRAM_REL_ERROR (1.0 / (2 << OMPB__HISTOGRAM_SUB_BITS))

typedef struct ompb__histogram {
    uint64_t n;                 /* values added */
    uint64_t min, max;          /* exact extremes; estimates are clamped to them */
    uint64_t counts[OMPB__HISTOGRAM_BUCKETS];
} ompb__histogram;

/* Empties h. */
void ompb__histogram_clear(ompb__histogram *h);

/* Bucket of a value: its power of two and next six bits, from one count
 * of leading zeros (inline: the regions' fold adds a value per instance). */
static inline size_t ompb__histogram_bucket(uint64_t ns)
{
    const unsigned sub = 1u << OMPB__HISTOGRAM_SUB_BITS;
    if (ns < sub)
        return (size_t)ns;
    int e = 63 - __builtin_clzll(ns);
    if (e >= OMPB__HISTOGRAM_TOP_BITS)
        return OMPB__HISTOGRAM_BUCKETS - 1;
    int shift = e - OMPB__HISTOGRAM_SUB_BITS;
    return sub + (size_t)shift * sub + ((size_t)(ns >> shift) - sub);
}

/* Adds one value. */
static inline void ompb__histogram_add(ompb__histogram *h, uint64_t ns)
{
    if (h->n == 0 || ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
    h->n++;
    h->counts[ompb__histogram_bucket(ns)]++;
}

/* The bucket's [low, high) bounds; exposed for tests. */
void ompb__histogram_bounds(size_t bucket, uint64_t *low, uint64_t *high);

/* Estimate of the order statistic of 0-based rank i (i < h->n): the
 * midpoint of the bucket holding it, clamped to [min, max]; exact below
 * 64 ns and for the extremes. */
double ompb__histogram_rank(const ompb__histogram *h, uint64_t i);

/* Quantile p in [0, 1], type 7 (as ompb__quantile_sorted) over the rank
 * estimates. 0 when h is empty. */
double ompb__histogram_quantile(const ompb__histogram *h, double p);

/* Distribution-free 95% confidence interval of the median from the rank
 * estimates (the ranks of ompb__median_ci_sorted); NAN when n <= 5. */
void ompb__histogram_median_ci(const ompb__histogram *h, double *low, double *high);

/* Values whose bucket midpoint lies outside [lo, hi]: outlier counts
 * against fences, exact except for the buckets a fence cuts through. */
uint64_t ompb__histogram_count_outside(const ompb__histogram *h, double lo, double hi);

#endif
