/* SPDX-License-Identifier: MIT */
/*
 * The rare parts of the regions' streaming statistics
 * (lib/regions/region_stats.h), whose per-instance arithmetic is inline in
 * the header: the accumulator's memory, the kept sample (reservoir
 * sampling, Li's algorithm L), the histogram's creation and the
 * statistics a report shows. No lock and no thread: the owner serializes
 * the calls.
 */
#include "regions/region_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

/* splitmix64: fast, good enough to choose reservoir slots, reproducible. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double next_unit(uint64_t *state)
{
    return (double)((next_random(state) >> 11) + 1) * 0x1.0p-53;
}

static size_t keep_max_for(int threads)
{
    size_t per = 3 * sizeof(uint64_t) + 2 * sizeof(uint64_t) * (size_t)threads;
    size_t k = OMPB__REGION_KEPT_BYTES / per;
    k = k < OMPB__REGION_KEPT_MIN ? OMPB__REGION_KEPT_MIN : k;
    return k > OMPB__REGION_KEPT_MAX ? OMPB__REGION_KEPT_MAX : k;
}

int ompb__region_acc_init(ompb__region_acc *a, int threads, uint64_t seed)
{
    memset(a, 0, sizeof *a);
    a->threads = threads;
    a->keep_max = keep_max_for(threads);
    a->rng = seed;
    a->busy_sum = ompb__calloc_lines((size_t)threads * sizeof *a->busy_sum);
    a->last_pu = ompb__calloc_lines((size_t)threads * sizeof *a->last_pu);
    if (!a->busy_sum || !a->last_pu) {
        free(a->busy_sum);
        free(a->last_pu);
        return OMPB_ENOMEM;
    }
    for (int t = 0; t < threads; t++)
        a->last_pu[t] = -1;
    return 0;
}

void ompb__region_acc_release(ompb__region_acc *a)
{
    free(a->busy_sum);
    free(a->last_pu);
    free(a->kept_index); /* the block of every kept_* array */
    free(a->hist);
}

/* ---- the kept sample ------------------------------------------------------ */

/* Room for one more kept instance. The five kept_* arrays share one block
 * (kept_index is its start), which grows four-fold from 16 to keep_max:
 * at most four allocations per accumulator, however many instances. */
static bool keep_room(ompb__region_acc *a)
{
    if (a->kept < a->cap_kept)
        return true;
    size_t cap = a->cap_kept ? a->cap_kept * 4 : 16, T = (size_t)a->threads, old = a->kept;
    cap = cap > a->keep_max ? a->keep_max : cap;
    uint64_t *block = ompb__calloc_lines(cap * (3 + 2 * T) * sizeof *block);
    if (!block)
        return false;
    uint64_t *index = block, *start = index + cap, *end = start + cap;
    uint64_t *tstart = end + cap, *busy = tstart + cap * T;
    if (old) {
        memcpy(index, a->kept_index, old * sizeof *index);
        memcpy(start, a->kept_start, old * sizeof *start);
        memcpy(end, a->kept_end, old * sizeof *end);
        memcpy(tstart, a->kept_tstart, old * T * sizeof *tstart);
        memcpy(busy, a->kept_busy, old * T * sizeof *busy);
    }
    free(a->kept_index);
    a->kept_index = index;
    a->kept_start = start;
    a->kept_end = end;
    a->kept_tstart = tstart;
    a->kept_busy = busy;
    a->cap_kept = cap;
    return true;
}

static void keep_at(ompb__region_acc *a, size_t slot, uint64_t index,
                    const ompb__region_slot *m, uint64_t start, uint64_t end)
{
    size_t T = (size_t)a->threads;
    a->kept_index[slot] = index;
    a->kept_start[slot] = start;
    a->kept_end[slot] = end;
    for (size_t t = 0; t < T; t++) {
        a->kept_tstart[slot * T + t] = m[t].start_ns;
        a->kept_busy[slot * T + t] = m[t].busy_pu >> 16;
    }
}

static void failed(ompb__region_acc *a, const char *what)
{
    if (!a->failure)
        a->failure = what;
}

/* Algorithm L (Li, 1994): instead of a random number per instance (as
 * Algorithm R), draw how many instances to skip before the next one takes
 * a random slot; the kept ones stay a uniform sample of all so far, and an
 * instance costs one comparison. */
static void reservoir_skip(ompb__region_acc *a, uint64_t i)
{
    double u = next_unit(&a->rng);
    a->reservoir_next = i + 1 + (uint64_t)floor(log(u) / log1p(-a->reservoir_w));
}

void ompb__region_acc_keep(ompb__region_acc *a, uint64_t i, const ompb__region_slot *m,
                           uint64_t start, uint64_t end)
{
    if (i < a->keep_max) {
        if (!keep_room(a)) {
            failed(a, "out of memory for the kept instances");
            return;
        }
        keep_at(a, a->kept++, i, m, start, end);
        if (a->kept == a->keep_max) {
            a->reservoir_w = exp(log(next_unit(&a->rng)) / (double)a->keep_max);
            reservoir_skip(a, i);
        }
        return;
    }
    if (i != a->reservoir_next)
        return;
    /* 53 random bits times keep_max (at most 2^10) fit in 64 bits. */
    size_t slot = (size_t)(((next_random(&a->rng) >> 11) * a->keep_max) >> 53);
    keep_at(a, slot, i, m, start, end);
    a->reservoir_w *= exp(log(next_unit(&a->rng)) / (double)a->keep_max);
    reservoir_skip(a, i);
}

/* ---- the histogram -------------------------------------------------------- */

void ompb__region_acc_histogram_start(ompb__region_acc *a, uint64_t makespan)
{
    if (!a->hist) {
        if (a->n <= a->keep_max)
            return;
        if (!(a->hist = ompb__calloc_lines(sizeof *a->hist))) {
            failed(a, "out of memory for the histogram");
            return;
        }
        ompb__histogram_clear(a->hist);
        /* The kept instances are every instance so far. */
        for (size_t s = 0; s < a->kept; s++)
            ompb__histogram_add(a->hist, a->kept_end[s] - a->kept_start[s]);
    }
    ompb__histogram_add(a->hist, makespan);
}

/* ---- what a report shows -------------------------------------------------- */

int ompb__region_acc_stats(const ompb__region_acc *a, ompb__stats *out)
{
    memset(out, 0, sizeof *out);
    if (a->n == 0)
        return 0;
    if (!a->hist) {
        /* Every instance is kept: the benchmarks' exact statistics. */
        double *x = malloc(a->kept * sizeof *x);
        if (!x)
            return OMPB_ENOMEM;
        for (size_t s = 0; s < a->kept; s++)
            x[s] = (double)(a->kept_end[s] - a->kept_start[s]);
        int rc = ompb__stats_compute(x, a->kept, out);
        free(x);
        return rc;
    }
    const ompb__histogram *h = a->hist;
    out->n = (size_t)a->n;
    out->min = (double)a->min_ns;
    out->max = (double)a->max_ns;
    double n = (double)a->n, ss = fmax(a->sum_d2 - a->sum_d * a->sum_d / n, 0.0);
    out->mean = a->shift + a->sum_d / n;
    out->stdev = a->n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    out->q1 = ompb__histogram_quantile(h, 0.25);
    out->median = ompb__histogram_quantile(h, 0.5);
    out->q3 = ompb__histogram_quantile(h, 0.75);
    ompb__histogram_median_ci(h, &out->ci_low, &out->ci_high);
    double iqr = out->q3 - out->q1;
    out->iqr_outliers = (size_t)ompb__histogram_count_outside(
        h, out->q1 - OMPB__IQR_FENCE * iqr, out->q3 + OMPB__IQR_FENCE * iqr);
    if (out->stdev > 0)
        out->stdev_outliers = (size_t)ompb__histogram_count_outside(
            h, out->mean - OMPB__STDEV_FENCE * out->stdev,
            out->mean + OMPB__STDEV_FENCE * out->stdev);
    return 0;
}
