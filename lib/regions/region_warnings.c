/* SPDX-License-Identifier: MIT */
/*
 * What the region reports warn about, into the run context (each warning
 * once): names beyond the table's size, two threads of a team on one PU,
 * threads that moved between PUs, a region that ends after a barrier
 * (its imbalance then reads ~1.00 whatever the split of the work), and
 * regions outside teams whose forks nothing observes. Reads the results
 * the report built (lib/regions/region_report.c) and the forks' note
 * (lib/regions/region_forks.h), nothing else.
 */
#include "regions/region_warnings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "model/model.h"

/* The barrier-ended pattern (barrier_end_warning): an instance's thread
 * ends within about one barrier (at most BARRIER_END_NS apart, and at most
 * 1 / BARRIER_END_RATIO of its makespan), in at least BARRIER_END_SHARE of
 * at least BARRIER_END_MIN instances. */
#define OMPB__REGION_BARRIER_END_NS 1000
#define OMPB__REGION_BARRIER_END_RATIO 100
#define OMPB__REGION_BARRIER_END_SHARE 0.5
#define OMPB__REGION_BARRIER_END_MIN 16

/* Regions (by id) already warned of ending after a barrier: one warning
 * per region name, whatever its team sizes and however many reports. */
static uint8_t barrier_warned[OMPB__REGIONS_MAX / 8];

/* What the ends of an entry's threads say (kept instances). */
typedef struct end_figures {
    size_t instances;           /* kept instances looked at */
    size_t tight;               /* of them, ends within about one barrier */
    double median_spread_ns;    /* max end - min end, median over them */
    double median_makespan_ns;
} end_figures;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The spread of the threads' ends in instance r of rec. */
static uint64_t end_spread(const ompb__record *rec, size_t r)
{
    size_t T = (size_t)rec->threads;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t t = 0; t < T; t++) {
        uint64_t e = rec->thread_start_ns[r * T + t] + rec->busy_ns[r * T + t];
        lo = e < lo ? e : lo;
        hi = e > hi ? e : hi;
    }
    return hi - lo;
}

/* An instance's ends are "within about one barrier" when their spread is
 * at most OMPB__REGION_BARRIER_END_NS and at most 1 / BARRIER_END_RATIO of
 * the instance's makespan: both, so that a short region whose threads end
 * together by chance does not count, and the figure stays relative to the
 * region's own length whatever the machine's speed or load. */
static int end_figures_of(const ompb__record *rec, end_figures *f)
{
    size_t n = rec->rounds;
    memset(f, 0, sizeof *f);
    uint64_t *spread = malloc((n ? n : 1) * sizeof *spread);
    uint64_t *makespan = malloc((n ? n : 1) * sizeof *makespan);
    if (!spread || !makespan) {
        free(spread);
        free(makespan);
        return OMPB_ENOMEM;
    }
    for (size_t r = 0; r < n; r++) {
        spread[r] = end_spread(rec, r);
        makespan[r] = ompb__record_makespan(rec, r);
        f->tight += spread[r] <= OMPB__REGION_BARRIER_END_NS &&
                    spread[r] * OMPB__REGION_BARRIER_END_RATIO <= makespan[r];
    }
    f->instances = n;
    if (n) {
        qsort(spread, n, sizeof *spread, cmp_u64);
        qsort(makespan, n, sizeof *makespan, cmp_u64);
        f->median_spread_ns = (double)spread[n / 2];
        f->median_makespan_ns = (double)makespan[n / 2];
    }
    free(spread);
    free(makespan);
    return 0;
}

/* The pattern: in nearly every instance all threads end within about one
 * barrier of each other while the instance lasts far longer. That is what
 * a region ended after a worksharing construct's implicit barrier looks
 * like: the barrier holds every thread until the slowest arrives, so each
 * thread's busy time includes its wait, and the imbalance reads ~1.00
 * whatever the split of the work. Work split evenly without a barrier
 * also ends close together, but not instance after instance: any
 * disturbance of one thread (an interrupt, a slower cache miss) shows at
 * its end, which a barrier hides. */
static void barrier_end_warning(ompb__context *ctx, const ompb__record *rec)
{
    end_figures f;
    uint32_t id = (uint32_t)rec->inst->family_index;
    bool seen = id < OMPB__REGIONS_MAX && (barrier_warned[id / 8] >> (id % 8) & 1);
    if (seen || rec->threads < 2 || rec->failed || rec->rounds < OMPB__REGION_BARRIER_END_MIN ||
        end_figures_of(rec, &f) != 0 ||
        (double)f.tight < OMPB__REGION_BARRIER_END_SHARE * (double)f.instances)
        return;
    if (id < OMPB__REGIONS_MAX)
        barrier_warned[id / 8] |= (uint8_t)(1u << (id % 8));
    char spread[32], length[32];
    ompb__format_duration(f.median_spread_ns, spread, sizeof spread);
    ompb__format_duration(f.median_makespan_ns, length, sizeof length);
    ompb__context_warn(ctx, "region:%s: every thread ended within %s of the others in %zu of "
                       "%zu instances (medians; an instance lasted %s): the region ends after "
                       "a barrier (e.g. a worksharing construct's implicit one), where each "
                       "thread waits for the slowest, so its imbalance reads ~1.00 whatever "
                       "the split of the work; end the region before the barrier: nowait on "
                       "the construct, and a barrier after the end if the code needs one",
                       rec->region->name, spread, f.tight, f.instances, length);
}

/* A region outside any team, begun while the runtime would fork several
 * threads, and nothing that sees forks: its parallel loops without markers
 * cannot name it (docs/guide.md, "Phase regions"). Never a guessed width. */
static void unobserved_warning(ompb__context *ctx)
{
    int max = 0;
    const ompb__region *r = ompb__regions_unobserved_phase(&max);
    if (!r)
        return;
    ompb__context_warn(ctx, "region:%s began outside any parallel region while the runtime "
                       "would fork %d threads, and no fork observer is installed: a parallel "
                       "region inside a region outside teams is seen only when its threads "
                       "begin a marked region, so unmarked parallel loops leave such a region "
                       "[t=1] (link ompbench::fork_guard and call "
                       "ompb_set_fork_guard(&ompb_fork_guard_gnu) first in main(): "
                       "docs/guide.md, \"Phase regions\")", r->display, max);
}

void ompb__region_warnings(ompb__context *ctx, const ompb__result *results, size_t n)
{
    unobserved_warning(ctx);
    uint64_t ignored = ompb__regions_ignored_names();
    if (ignored)
        ompb__context_warn(ctx, "%llu calls used region names beyond the first %d distinct "
                           "ones and were ignored", (unsigned long long)ignored,
                           OMPB__REGIONS_MAX);
    /* No counts in the texts: a later report repeats a warning only when
     * it is new (the counts are in the JSON). */
    for (size_t i = 0; i < n; i++) {
        const ompb__record *rec = &results[i].rec;
        const int *first = rec->region->shared_pu_first;
        if (rec->region->shared_pu)
            ompb__context_warn(ctx, "%s: two threads of the team began instances on the same "
                               "PU (first threads %d and %d, on PU %d): they shared its time "
                               "(each thread's busy time is still its own; "
                               "shared_pu_instances in the JSON counts them)", rec->inst->name,
                               first[0], first[1], first[2]);
        if (rec->migrations)
            ompb__context_warn(ctx, "%s: threads moved between PUs between instances "
                               "(migrations in the JSON)", rec->inst->name);
        barrier_end_warning(ctx, rec);
    }
}

void ompb__region_warnings_reset(void)
{
    memset(barrier_warned, 0, sizeof barrier_warned);
}
