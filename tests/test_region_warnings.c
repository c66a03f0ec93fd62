/* SPDX-License-Identifier: MIT */
/*
 * lib/regions/region_warnings: the barrier-ended pattern on hand-made
 * instances, so its thresholds are checked whatever the host's load (the
 * same pattern on a real team is tests/integration/region_barrier.sh, which
 * needs the team's threads undisturbed when the barrier releases them).
 * Ends within 200 ns of 100 us instances warn, once per region; ends 5 us
 * apart, ends together in too few instances, a short region whose ends are
 * close only because it is short, one thread, and too few instances do not.
 */
#include <stdio.h>
#include <string.h>

#include "context/context.h"
#include "regions/region_warnings.h"
#include "suite.h"

#define THREADS 2
#define ROUNDS 40

/* One region entry of THREADS threads and ROUNDS instances: instance r
 * starts at r * 1 ms and lasts `length` ns on thread 0; thread 1 ends
 * `spread(r)` ns earlier. */
typedef struct fake_entry {
    ompb__instance inst;
    ompb__record_region region;
    uint64_t start[ROUNDS], end[ROUNDS];
    uint64_t thread_start[ROUNDS * THREADS], busy[ROUNDS * THREADS];
    ompb__result result;
} fake_entry;

static void fake_fill(fake_entry *f, const char *name, size_t family, size_t rounds,
                      uint64_t length, uint64_t spread_tight, uint64_t spread_loose,
                      size_t tight_rounds)
{
    memset(f, 0, sizeof *f);
    f->inst.family_index = family;
    snprintf(f->inst.name, sizeof f->inst.name, "region:%s[t=2]", name);
    f->region.name = name;
    f->region.instances = rounds;
    for (size_t r = 0; r < rounds; r++) {
        uint64_t s = (uint64_t)r * 1000000u;
        uint64_t spread = r < tight_rounds ? spread_tight : spread_loose;
        f->start[r] = s;
        f->end[r] = s + length;
        f->thread_start[r * THREADS] = s;
        f->busy[r * THREADS] = length;
        f->thread_start[r * THREADS + 1] = s;
        f->busy[r * THREADS + 1] = length - spread;
    }
    ompb__record *rec = &f->result.rec;
    rec->inst = &f->inst;
    rec->region = &f->region;
    rec->threads = THREADS;
    rec->rounds = rounds;
    rec->start_ns = f->start;
    rec->end_ns = f->end;
    rec->thread_start_ns = f->thread_start;
    rec->busy_ns = f->busy;
}

static size_t barrier_warnings(const ompb__context *ctx, const char *name)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "region:%s: every thread ended within ", name);
    size_t n = 0;
    for (size_t i = 0; i < ctx->n_warnings; i++)
        n += strncmp(ctx->warnings[i], prefix, strlen(prefix)) == 0 &&
             strstr(ctx->warnings[i], "the region ends after a barrier") != NULL;
    return n;
}

/* Which of the cases draw the warning, and the figures it gives. */
static void test_barrier_pattern(void)
{
    static fake_entry e[7];
    /* ends 200 ns apart in 100 us instances: the pattern */
    fake_fill(&e[0], "barrier", 0, ROUNDS, 100000, 200, 200, ROUNDS);
    /* ends 5 us apart: work split unevenly, no barrier */
    fake_fill(&e[1], "nowait", 1, ROUNDS, 100000, 5000, 5000, ROUNDS);
    /* together in 19 of 40 instances: below half */
    fake_fill(&e[2], "chance", 2, ROUNDS, 100000, 200, 5000, 19);
    /* together in 20 of 40: half is enough */
    fake_fill(&e[3], "half", 3, ROUNDS, 100000, 200, 5000, 20);
    /* 10 us instances whose ends are 500 ns apart: within 1 us but more
     * than 1/100 of the instance */
    fake_fill(&e[4], "short", 4, ROUNDS, 10000, 500, 500, ROUNDS);
    /* 15 instances: too few to tell */
    fake_fill(&e[5], "few", 5, 15, 100000, 200, 200, 15);
    /* one thread: nothing to compare */
    fake_fill(&e[6], "alone", 6, ROUNDS, 100000, 0, 0, ROUNDS);
    e[6].result.rec.threads = 1;

    ompb__region_warnings_reset();
    ompb__context_env quiet = {.quiet = true};
    ompb__context *ctx = ompb__context_new_in(&quiet, NULL, 0, "x");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ompb__result results[7];
    for (size_t i = 0; i < 7; i++)
        results[i] = e[i].result;
    ompb__region_warnings(ctx, results, 7);
    CU_ASSERT_EQUAL(barrier_warnings(ctx, "barrier"), 1);
    CU_ASSERT_EQUAL(barrier_warnings(ctx, "nowait"), 0);
    CU_ASSERT_EQUAL(barrier_warnings(ctx, "chance"), 0);
    CU_ASSERT_EQUAL(barrier_warnings(ctx, "half"), 1);
    CU_ASSERT_EQUAL(barrier_warnings(ctx, "short"), 0);
    CU_ASSERT_EQUAL(barrier_warnings(ctx, "few"), 0);
    CU_ASSERT_EQUAL(barrier_warnings(ctx, "alone"), 0);
    /* The figures: medians of the spread and the instance, the count. */
    const char *want = "region:barrier: every thread ended within 200 ns of the others in "
                       "40 of 40 instances (medians; an instance lasted 100";
    size_t found = 0;
    for (size_t i = 0; i < ctx->n_warnings; i++)
        found += strncmp(ctx->warnings[i], want, strlen(want)) == 0;
    CU_ASSERT_EQUAL(found, 1);
    size_t before = ctx->n_warnings;

    /* A second report of the same regions, as after another repetition,
     * with the figures changed: no second warning for the same name. */
    results[0].rec.rounds = ROUNDS - 1;
    ompb__region_warnings(ctx, results, 7);
    CU_ASSERT_EQUAL(ctx->n_warnings, before);
    /* Until the regions are forgotten. */
    ompb__region_warnings_reset();
    ompb__region_warnings(ctx, results, 7);
    CU_ASSERT_EQUAL(barrier_warnings(ctx, "barrier"), 2);
    ompb__context_free(ctx);
    ompb__region_warnings_reset();
}

static const ompb_test_case cases[] = {
    {"barrier_pattern", test_barrier_pattern},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_region_warnings = {"region_warnings", NULL, NULL, cases};
