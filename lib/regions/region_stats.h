/* SPDX-License-Identifier: MIT */
/*
 * The streaming statistics of one (region, team size) entry, as an
 * accumulator of instances (lib/regions/region_stats.c): an instance is the
 * T packed begin/end slots of its threads, and the accumulator keeps, exact
 * over every instance, the count, min, max, total, mean and variance
 * (shifted sums), the start skew, the imbalance, each thread's busy time,
 * the instances with two threads on one PU and the PU changes; raw, every
 * instance up to keep_max, then a uniform sample of keep_max (reservoir
 * sampling, Li's algorithm L, with a deterministic generator); and once
 * there are more instances than that, every makespan in a log-linear
 * histogram (lib/core/histogram.h), from which quantiles come.
 *
 * It knows nothing of threads, lanes or locks: whoever owns it serializes
 * the calls (the entry's mutex, lib/regions/region_entry.h), and the unit
 * tests drive it alone (tests/test_region_stats.c). Adding one instance is
 * inline (ompb__region_acc_add), as are the sums the entry's batched fold
 * keeps in locals (ompb__region_sums_*): they run once per instance on the
 * thread that folds. What is rare (the kept sample, the histogram's
 * creation, a shared PU) is out of line.
 *
 * In the regions' one-way chain after the settings (docs/architecture.md,
 * "regions"), and calling no other region module.
 */
#ifndef OMPB_REGION_STATS_H
#define OMPB_REGION_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

/* Instances kept raw per entry: up to KEPT_MAX, within KEPT_BYTES, at
 * least KEPT_MIN; beyond that a uniform sample of that many. */
#define OMPB__REGION_KEPT_MAX 1024
#define OMPB__REGION_KEPT_MIN 64
#define OMPB__REGION_KEPT_BYTES (256u * 1024u)

/* One thread's begin/end of one instance, as its lane's ring keeps it,
 * packed in 16 bytes (4 per cache line: the ring's lines are what travels
 * between the owner and the thread that folds):
 * end - start in the high 48 bits (saturated at 2^48 - 1 ns, 78 hours),
 * the PU in the low 16 (OMPB__REGION_PU_UNKNOWN: unknown). */
typedef struct ompb__region_slot {
    uint64_t start_ns;
    uint64_t busy_pu;
} ompb__region_slot;

#define OMPB__REGION_BUSY_MAX ((UINT64_C(1) << 48) - 1)
#define OMPB__REGION_PU_UNKNOWN 0xffffu

static inline ompb__region_slot ompb__region_pack(uint64_t start, uint64_t end, int32_t pu)
{
    /* A thread's end read on another core's counter may trail its start
     * by a few ticks: that is an empty instance, not 78 hours. */
    uint64_t busy = end > start ? end - start : 0;
    busy = busy > OMPB__REGION_BUSY_MAX ? OMPB__REGION_BUSY_MAX : busy;
    return (ompb__region_slot){start, busy << 16 | (uint16_t)(pu < 0 || pu > 0xfffe ? 0xffff : pu)};
}

/* The accumulator. Its owner reads the fields (reports); the functions
 * below write them, and so does the entry's batched fold of the steady
 * state (lib/regions/region_entry.c, fold_steady), with the same
 * arithmetic. */
typedef struct ompb__region_acc {
    int threads;                /* T: slots per instance */
    /* The first allocation that failed since the owner last looked (static
     * text, "out of memory for ..."; NULL: none): that instance is then
     * left out of the kept sample or the histogram; the owner clears it
     * and reports it (the entry fails, once it holds no lock). */
    const char *failure;

    /* Exact over every instance. */
    uint64_t n;
    uint64_t min_ns, max_ns, total_ns;
    /* Variance by shifted sums (the first makespan is the shift, which
     * keeps cancellation away without a division per instance). */
    double shift, sum_d, sum_d2;
    uint64_t skew_sum;          /* ns */
    double imbalance_sum;
    uint64_t shared_pu;         /* instances with two threads on one PU */
    int shared_pu_example[3];   /* thread a, thread b, PU of the first one */
    uint64_t migrations;        /* PU changes of a thread between instances */
    uint64_t *busy_sum;         /* [threads] ns */
    int *last_pu;               /* [threads], -1: unknown */

    /* Kept instances: all while n <= keep_max, then a uniform sample. */
    size_t keep_max, kept, cap_kept;
    uint64_t *kept_index;       /* [kept] instance number; the block of all five */
    uint64_t *kept_start, *kept_end;        /* [kept] aggregate bounds */
    uint64_t *kept_tstart, *kept_busy;      /* [kept * threads] */
    uint64_t rng;
    double reservoir_w;         /* Algorithm L's W */
    uint64_t reservoir_next;    /* next instance to take a slot */
    ompb__histogram *hist;      /* every makespan once n > keep_max */
} ompb__region_acc;

/* An empty accumulator for instances of `threads` slots, its reservoir
 * drawn from `seed` (the same seed, the same sample). 0 or OMPB_ENOMEM
 * (nothing to release then). */
int ompb__region_acc_init(ompb__region_acc *a, int threads, uint64_t seed);
void ompb__region_acc_release(ompb__region_acc *a);

/* The statistics of the per-instance makespans: exact while every instance
 * is kept, else exact moments and extremes with quantiles, median interval
 * and outlier counts from the histogram. 0 or OMPB_ENOMEM. */
int ompb__region_acc_stats(const ompb__region_acc *a, ompb__stats *out);

/* The rare parts of adding instance i (m: its T slots; start, end: its
 * aggregate bounds), called by the inline code below. _keep: into the kept
 * sample, when i < keep_max or i == reservoir_next. _histogram_start: an
 * instance while there is no histogram; the first one past keep_max makes
 * it, of every instance so far. */
void ompb__region_acc_keep(ompb__region_acc *a, uint64_t i, const ompb__region_slot *m,
                           uint64_t start, uint64_t end);
void ompb__region_acc_histogram_start(ompb__region_acc *a, uint64_t makespan);

/* Counts instance m if two of its threads are on one PU, remembers the
 * first such pair, and says whether there was one. Inline (the compiler
 * decides), as the fold of a large team calls it at every batch's first
 * instance. */
static inline bool ompb__region_acc_shared_pu(ompb__region_acc *a, const ompb__region_slot *m)
{
    for (int x = 0; x < a->threads; x++) {
        unsigned px = (unsigned)(m[x].busy_pu & OMPB__REGION_PU_UNKNOWN);
        if (px == OMPB__REGION_PU_UNKNOWN)
            continue;
        for (int y = x + 1; y < a->threads; y++) {
            if ((m[y].busy_pu & OMPB__REGION_PU_UNKNOWN) != px)
                continue;
            if (a->shared_pu++ == 0) {
                a->shared_pu_example[0] = x;
                a->shared_pu_example[1] = y;
                a->shared_pu_example[2] = (int)px;
            }
            return true;
        }
    }
    return false;
}

/* True in the steady state: past the kept maximum, with a histogram that
 * holds every instance (so its count and extremes are the accumulator's).
 * A batched fold may then keep the sums in locals (ompb__region_sums) and
 * set the histogram's count and extremes once (ompb__region_sums_store). */
static inline bool ompb__region_acc_steady(const ompb__region_acc *a)
{
    return a->hist && a->hist->n == a->n && a->n > a->keep_max;
}

/* The scalar sums, in locals: across a batch in the entry's steady-state
 * folds (a local struct whose address never escapes: its fields stay in
 * registers where they fit), for one instance in ompb__region_acc_add. */
typedef struct ompb__region_sums {
    uint64_t mn, mx, total, skew, mig;
    double shift, sd, sd2, imb;
} ompb__region_sums;

static inline __attribute__((always_inline)) ompb__region_sums
ompb__region_sums_load(const ompb__region_acc *a)
{
    return (ompb__region_sums){.mn = a->min_ns, .mx = a->max_ns, .total = a->total_ns,
                               .skew = a->skew_sum, .mig = a->migrations, .shift = a->shift,
                               .sd = a->sum_d, .sd2 = a->sum_d2, .imb = a->imbalance_sum};
}

/* One instance's makespan, start skew, sum and maximum of its threads'
 * busy times (T: its threads). */
static inline __attribute__((always_inline)) void
ompb__region_sums_add(ompb__region_sums *s, uint64_t makespan, uint64_t skew, uint64_t bsum,
                      uint64_t bmax, const int T)
{
    s->mn = makespan < s->mn ? makespan : s->mn;
    s->mx = makespan > s->mx ? makespan : s->mx;
    s->total += makespan;
    /* Through int64_t (every value here is below 2^63): one conversion
     * instruction instead of the unsigned one's branches. */
    double d = (double)(int64_t)makespan - s->shift;
    s->sd += d;
    s->sd2 += d * d;
    s->skew += skew;
    if (T == 1 || bsum == 0)
        s->imb += 1.0;
    else
        s->imb += (double)(int64_t)bmax * T / (double)(int64_t)bsum;
}

/* Back into the accumulator. */
static inline __attribute__((always_inline)) void
ompb__region_sums_put(ompb__region_acc *a, const ompb__region_sums *s)
{
    a->min_ns = s->mn;
    a->max_ns = s->mx;
    a->total_ns = s->total;
    a->skew_sum = s->skew;
    a->migrations = s->mig;
    a->sum_d = s->sd;
    a->sum_d2 = s->sd2;
    a->imbalance_sum = s->imb;
}

/* The same at the end of a steady-state batch, n instances in all; the
 * histogram's count and extremes are the accumulator's
 * (ompb__region_acc_steady). */
static inline __attribute__((always_inline)) void
ompb__region_sums_store(ompb__region_acc *a, const ompb__region_sums *s, uint64_t n)
{
    ompb__region_sums_put(a, s);
    a->n = n;
    a->hist->n = n;
    a->hist->min = s->mn;
    a->hist->max = s->mx;
}

/* An instance's aggregate bounds: its threads' first start, last end. */
typedef struct ompb__region_span {
    uint64_t start_ns, end_ns;
} ompb__region_span;

/* Adds one instance, the T slots m of its threads (T: a->threads; a
 * constant where a fold inlines it for one team size), and returns its
 * bounds. Everything but the kept sample, the histogram's creation and a
 * shared PU stays inline. */
static inline __attribute__((always_inline)) ompb__region_span
ompb__region_acc_add(ompb__region_acc *a, const ompb__region_slot *m, const int T)
{
    uint64_t start = m[0].start_ns, end = 0, smax = 0, busy_sum = 0, busy_max = 0;
    for (int t = 0; t < T; t++) {
        uint64_t s = m[t].start_ns, busy = m[t].busy_pu >> 16;
        int pu = (int)(m[t].busy_pu & OMPB__REGION_PU_UNKNOWN);
        start = s < start ? s : start;
        smax = s > smax ? s : smax;
        end = s + busy > end ? s + busy : end;
        a->busy_sum[t] += busy;
        busy_sum += busy;
        busy_max = busy > busy_max ? busy : busy_max;
        if (pu != OMPB__REGION_PU_UNKNOWN && a->last_pu[t] >= 0 && pu != a->last_pu[t])
            a->migrations++;
        a->last_pu[t] = pu == OMPB__REGION_PU_UNKNOWN ? -1 : pu;
    }
    uint64_t makespan = end - start, i = a->n++;
    if (__builtin_expect(i == 0, 0)) {
        a->min_ns = makespan;
        a->shift = (double)(int64_t)makespan;
    }
    ompb__region_sums sum = ompb__region_sums_load(a);
    ompb__region_sums_add(&sum, makespan, smax - start, busy_sum, busy_max, T);
    ompb__region_sums_put(a, &sum);
    if (T == 2) {
        unsigned pa = (unsigned)(m[0].busy_pu & OMPB__REGION_PU_UNKNOWN);
        if (__builtin_expect(pa != OMPB__REGION_PU_UNKNOWN
                             && (m[1].busy_pu & OMPB__REGION_PU_UNKNOWN) == pa, 0))
            ompb__region_acc_shared_pu(a, m);
    } else if (T > 1) {
        ompb__region_acc_shared_pu(a, m);
    }
    /* _keep's own test, so that most instances make no call. */
    if (__builtin_expect(i < a->keep_max || i == a->reservoir_next, 0))
        ompb__region_acc_keep(a, i, m, start, end);
    if (__builtin_expect(a->hist != NULL, 1))
        ompb__histogram_add(a->hist, makespan);
    else
        ompb__region_acc_histogram_start(a, makespan);
    return (ompb__region_span){start, end};
}

#endif
