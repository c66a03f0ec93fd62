/* SPDX-License-Identifier: MIT */
/* Schedule: the run order of (instance, repetition) slots, its shuffle and
 * its seeds, and how the repetitions are shared between processes. */
#include <stdlib.h>
#include <string.h>

#include "config/schedule.h"
#include "suite.h"

static ompb__slot *make(size_t instances, uint32_t reps, uint32_t procs, uint32_t proc,
                        uint64_t seed, bool interleave, size_t *n)
{
    ompb__schedule_spec spec = {instances, reps, procs, proc, seed, interleave};
    ompb__slot *slots = NULL;
    CU_ASSERT_EQUAL_FATAL(ompb__schedule_make(&spec, &slots, n), 0);
    return slots;
}

/* One repetition: registration order, whatever the seed. */
static void test_single_repetition_keeps_order(void)
{
    size_t n;
    ompb__slot *s = make(7, 1, 1, 0, 12345, true, &n);
    CU_ASSERT_EQUAL_FATAL(n, 7);
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(s[i].instance, i);
        CU_ASSERT_EQUAL(s[i].repetition, 0);
    }
    free(s);
}

/* N repetitions: N passes, each a permutation of the instances holding one
 * repetition index; each (instance, repetition) exactly once. */
static void test_passes_are_permutations(void)
{
    enum { INST = 20, REPS = 5 };
    size_t n;
    ompb__slot *s = make(INST, REPS, 1, 0, 42, true, &n);
    CU_ASSERT_EQUAL_FATAL(n, INST * REPS);
    int seen[INST][REPS];
    memset(seen, 0, sizeof seen);
    bool shuffled = false;
    for (size_t pass = 0; pass < REPS; pass++) {
        bool in_pass[INST] = {false};
        for (size_t k = 0; k < INST; k++) {
            const ompb__slot *x = &s[pass * INST + k];
            CU_ASSERT_EQUAL(x->repetition, pass);
            CU_ASSERT_FALSE(in_pass[x->instance]);
            in_pass[x->instance] = true;
            seen[x->instance][x->repetition]++;
            shuffled |= x->instance != k;
        }
    }
    for (int i = 0; i < INST; i++)
        for (int r = 0; r < REPS; r++)
            CU_ASSERT_EQUAL(seen[i][r], 1);
    CU_ASSERT_TRUE(shuffled);
    /* Each pass is shuffled afresh. */
    CU_ASSERT_NOT_EQUAL(memcmp(s, s + INST, INST * sizeof *s), 0);
    free(s);
}

/* The seed replays the order; another seed gives another one. */
static void test_seed_replays(void)
{
    size_t n1, n2, n3;
    ompb__slot *a = make(30, 4, 1, 0, 7, true, &n1);
    ompb__slot *b = make(30, 4, 1, 0, 7, true, &n2);
    ompb__slot *c = make(30, 4, 1, 0, 8, true, &n3);
    CU_ASSERT_EQUAL(memcmp(a, b, n1 * sizeof *a), 0);
    CU_ASSERT_NOT_EQUAL(memcmp(a, c, n1 * sizeof *a), 0);
    free(a);
    free(b);
    free(c);
    CU_ASSERT_EQUAL(ompb__seed_for_process(99, 0), 99);
    CU_ASSERT_NOT_EQUAL(ompb__seed_for_process(99, 1), 99);
    CU_ASSERT_NOT_EQUAL(ompb__seed_for_process(99, 1), ompb__seed_for_process(99, 2));
    CU_ASSERT_NOT_EQUAL(ompb__seed_from_clock(), ompb__seed_from_clock());
}

/* Three instances over 600 passes: all six orders occur, each about a sixth
 * of the time (an unbiased shuffle; the bound is loose: 100 +- 40). */
static void test_shuffle_covers_all_orders(void)
{
    size_t n;
    ompb__slot *s = make(3, 600, 1, 0, 2024, true, &n);
    int count[6] = {0};
    for (size_t pass = 0; pass < 600; pass++) {
        const ompb__slot *p = &s[pass * 3];
        int code = (int)(p[0].instance * 2 + (p[1].instance > p[2].instance));
        count[code]++;
    }
    for (int k = 0; k < 6; k++)
        CU_ASSERT(count[k] > 60 && count[k] < 140);
    free(s);
}

/* P processes: process k runs repetitions k, k + P, ...; together they run
 * every (instance, repetition) once; shares differ by at most one. */
static void test_processes_share(void)
{
    enum { INST = 4, REPS = 7, PROCS = 3 };
    int seen[INST][REPS];
    memset(seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(ompb__schedule_share(REPS, PROCS, 0), 3);
    CU_ASSERT_EQUAL(ompb__schedule_share(REPS, PROCS, 1), 2);
    CU_ASSERT_EQUAL(ompb__schedule_share(REPS, PROCS, 2), 2);
    CU_ASSERT_EQUAL(ompb__schedule_share(5, 5, 4), 1);
    CU_ASSERT_EQUAL(ompb__schedule_share(5, 5, 5), 0);
    for (uint32_t k = 0; k < PROCS; k++) {
        size_t n;
        ompb__slot *s = make(INST, REPS, PROCS, k, ompb__seed_for_process(5, k), true, &n);
        CU_ASSERT_EQUAL(n, INST * ompb__schedule_share(REPS, PROCS, k));
        for (size_t j = 0; j < n; j++) {
            CU_ASSERT_EQUAL(s[j].repetition % PROCS, k);
            seen[s[j].instance][s[j].repetition]++;
        }
        free(s);
    }
    for (int i = 0; i < INST; i++)
        for (int r = 0; r < REPS; r++)
            CU_ASSERT_EQUAL(seen[i][r], 1);
}

/* Without interleaving (one CodSpeed window per instance): each instance's
 * repetitions back to back, instances in registration order. */
static void test_back_to_back(void)
{
    size_t n;
    ompb__slot *s = make(3, 4, 1, 0, 1, false, &n);
    CU_ASSERT_EQUAL_FATAL(n, 12);
    for (size_t j = 0; j < n; j++) {
        CU_ASSERT_EQUAL(s[j].instance, j / 4);
        CU_ASSERT_EQUAL(s[j].repetition, j % 4);
    }
    free(s);
}

static const ompb_test_case cases[] = {
    {"single_repetition_keeps_order", test_single_repetition_keeps_order},
    {"passes_are_permutations", test_passes_are_permutations},
    {"seed_replays", test_seed_replays},
    {"shuffle_covers_all_orders", test_shuffle_covers_all_orders},
    {"processes_share", test_processes_share},
    {"back_to_back", test_back_to_back},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_schedule = {"schedule", NULL, NULL, cases};
