/* SPDX-License-Identifier: MIT */
/*
 * Global rounds across ranks in time order (issue 19: "ordering error in
 * window #2" under ompbench collect with two loaded MPI ranks). Each
 * global bound is right only to within the ranks' barrier exit skew, so
 * consecutive rounds could come out overlapping, which the runner's
 * backend cannot pair. Checked on the ordering itself and on rounds run by
 * the engine against a fake distribution whose other rank left each
 * round-start barrier 50 ms before this one (its rounds end 50 ms after
 * its exit, while this rank's next round starts microseconds after its
 * own): the recorded bounds, which the markers carry, are in time order
 * and every makespan is what the ranks measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/distribution.h>

#include "engine/dist.h"
#include "fixtures.h"
#include "model/record.h"
#include "engine/round.h"
#include "suite.h"
#include "test_env.h"

#define EARLY_NS 50000000 /* the other rank's round ends 50 ms after its barrier exit */
#define ROUNDS 5

static void test_order_rounds(void)
{
    /* Round 1 ends 30 after round 2 starts, round 0 then 60 after the
     * moved round 1 starts; round 3 is in order already. */
    uint64_t start[] = {100, 150, 200, 400};
    uint64_t end[] = {180, 230, 300, 500};
    ompb__dist_order_rounds(start, end, 4);
    uint64_t want_start[] = {40, 120, 200, 400}, want_end[] = {120, 200, 300, 500};
    CU_ASSERT_EQUAL(memcmp(start, want_start, sizeof start), 0);
    CU_ASSERT_EQUAL(memcmp(end, want_end, sizeof end), 0);
    /* In order: nothing moves; touching bounds are in order. */
    uint64_t s2[] = {0, 10, 20}, e2[] = {10, 20, 25};
    ompb__dist_order_rounds(s2, e2, 3);
    CU_ASSERT(s2[0] == 0 && s2[1] == 10 && s2[2] == 20 && e2[0] == 10 && e2[2] == 25);
    ompb__dist_order_rounds(s2, e2, 0);
}

/* The other rank: its round starts at its barrier exit and ends EARLY_NS
 * after it (v[0] is the negated start, v[1] the end, lib/engine/dist.c). */
static int early_max(void *ctx, int64_t *v, int n, uint64_t hint)
{
    (void)ctx;
    (void)hint;
    if (n == 5) {
        v[0] = v[0] > 0 ? v[0] : 0;
        v[1] = v[1] > EARLY_NS ? v[1] : EARLY_NS;
    }
    return 0;
}

static int early_gather(void *ctx, const void *send, size_t bytes, void *recv)
{
    (void)ctx;
    if (recv) {
        memcpy(recv, send, bytes);
        memset((char *)recv + bytes, 0, bytes);
    }
    return 0;
}

static void early_abort(void *ctx, int status)
{
    (void)ctx;
    fprintf(stderr, "fake distribution: abort %d\n", status);
    abort();
}

static void tiny_body(ompb_state *s)
{
    uint64_t acc = 0;
    OMPB_ITER(s) {
        acc += ompb_opaque_u64(acc) + 1;
    }
    ompb_black_box(acc);
}

static void test_engine_rounds_in_order(void)
{
    ompb_benchmark b = {.name = "tiny", .fn = tiny_body};
    ompb__instance inst = ompb_test_instance(&b, 1);
    ompb__sampling sp = {.mode = OMPB__SAMPLING_MEASURE, .threads = 1, .rounds = ROUNDS,
                         .sample_size = 10, .min_round_ns = 1000, .budget_ns = 3600000000000ull};
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    ompb_distribution d = {.rank = 0, .size = 2, .max_i64 = early_max, .gather = early_gather,
                           .abort = early_abort};
    ompb_test_env tenv;
    ompb_test_env_init(&tenv);
    tenv.env.dist = &d;
    CU_ASSERT_EQUAL(ompb__round_run(&tenv.env, &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_FALSE(rec.failed);
    CU_ASSERT_EQUAL_FATAL(rec.rounds, ROUNDS);
    for (size_t r = 0; r < rec.rounds; r++) {
        /* The makespan spans the other rank's round, as measured. */
        CU_ASSERT_TRUE(ompb__record_makespan(&rec, r) >= EARLY_NS);
        if (r > 0 && rec.start_ns[r] < rec.end_ns[r - 1])
            CU_FAIL("a global round starts before the previous one ends");
        /* Moved earlier only: this rank's own thread still starts inside. */
        CU_ASSERT_TRUE(rec.start_ns[r] <= rec.thread_start_ns[r]);
    }
    ompb__record_free(&rec);
}

static const ompb_test_case cases[] = {
    {"order_rounds", test_order_rounds},
    {"engine_rounds_in_order", test_engine_rounds_in_order},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_dist_order = {"dist_order", NULL, NULL, cases};
