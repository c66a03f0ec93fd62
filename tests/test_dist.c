/* SPDX-License-Identifier: MIT */
/*
 * The engine's side of a distributed run, without MPI: a fake distribution
 * in this process plays "the other rank" by what it adds to every
 * element-wise maximum. Checked: the global round spans the other rank's
 * bounds (each relative to its own barrier exit) and every rank's bounds
 * reach rank 0's record; a rank that is not rank 0 takes rank 0's elapsed
 * time for its decisions; a failure on another rank fails the instance here;
 * the rank count enters the names; rounds within the clock error between
 * the ranks are warned about. The engine gets the fake through its
 * environment (tests/test_env.h), never through the process-wide
 * installation, which stays empty. No assertion depends on the host's
 * speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/distribution.h>

#include "engine/dist.h"
#include "fixtures.h"
#include "model/registry.h"
#include "engine/round.h"
#include "suite.h"
#include "test_env.h"

#define OTHER_END_NS 50000000 /* the other rank's round ends 50 ms after its barrier */

/* What the other rank contributes to each kind of maximum. */
typedef struct fake {
    int rank;
    int64_t elapsed_ns;  /* rank 0's elapsed time, when this process is rank 1 */
    bool fail_round;     /* the other rank fails its round */
    bool stop_at_start;  /* the other rank stops the instance before its first round */
    int64_t end_ns;      /* the other rank's round end after its barrier (0: OTHER_END_NS) */
    int starts, agreements, gathers;
} fake;

static fake fk;
static ompb_distribution fake_dist;
static ompb_test_env tenv;

static int64_t other_end(void)
{
    return fk.end_ns ? fk.end_ns : OTHER_END_NS;
}

static int fake_max(void *ctx, int64_t *v, int n, uint64_t hint)
{
    (void)ctx;
    (void)hint;
    if (n == 1) { /* the round-start collective (or the calibration target) */
        fk.starts++;
        if (fk.stop_at_start)
            v[0] = v[0] > 1 ? v[0] : 1;
    } else if (n == 5) { /* the agreement after a round */
        fk.agreements++;
        int64_t other[5] = {0, other_end(), 0, fk.fail_round, fk.rank == 1 ? fk.elapsed_ns : 0};
        for (int i = 0; i < n; i++)
            v[i] = other[i] > v[i] ? other[i] : v[i];
    }
    return 0;
}

/* Rank 0 receives its own values, then the other rank's: bounds (0, 50 ms). */
static int fake_gather(void *ctx, const void *send, size_t bytes, void *recv)
{
    (void)ctx;
    fk.gathers++;
    if (!recv)
        return 0;
    memcpy(recv, send, bytes);
    int64_t *other = (int64_t *)((char *)recv + bytes);
    for (size_t i = 0; i < bytes / sizeof *other; i++)
        other[i] = i % 2 ? other_end() : 0;
    return 0;
}

static void fake_abort(void *ctx, int status)
{
    (void)ctx;
    fprintf(stderr, "fake distribution: abort %d\n", status);
    abort();
}

/* A test environment whose distribution is the fake, as `rank` of 2. */
static const ompb__engine_env *fake_env(int rank)
{
    memset(&fk, 0, sizeof fk);
    fk.rank = rank;
    fake_dist = (ompb_distribution){.rank = rank, .size = 2, .max_i64 = fake_max,
                                    .gather = fake_gather, .abort = fake_abort};
    ompb_test_env_init(&tenv);
    tenv.env.dist = &fake_dist;
    return &tenv.env;
}

static void tiny_body(ompb_state *s)
{
    uint64_t acc = 0;
    OMPB_ITER(s) {
        acc += ompb_opaque_u64(acc) + 1;
    }
    ompb_black_box(acc);
}

static ompb__sampling sampling(int threads, uint64_t rounds)
{
    return (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = threads,
                            .rounds = rounds, .sample_size = 10, .min_round_ns = 1000,
                            .budget_ns = 3600000000000ull};
}

static void test_global_round_spans_ranks(void)
{
    ompb_benchmark b = {.name = "tiny", .fn = tiny_body};
    ompb__instance inst = ompb_test_instance(&b, 2);
    ompb__sampling sp = sampling(2, 5);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    const ompb__engine_env *env = fake_env(0);
    /* 10 s: beyond anything ten tiny iterations take, even on a machine so
     * loaded that a round waits many time slices (50 ms was once passed). */
    fk.end_ns = 10000000000LL;
    CU_ASSERT_EQUAL(ompb__round_run(env, &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_PTR_NULL(ompb__dist());
    CU_ASSERT_FALSE(rec.failed);
    CU_ASSERT_EQUAL_FATAL(rec.rounds, 5);
    CU_ASSERT_EQUAL(rec.ranks, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rec.rank_bounds);
    /* One start per round plus the last one (which ends the rounds), one
     * agreement per round (the calibration round included), one gather. */
    CU_ASSERT_EQUAL(fk.agreements, 6);
    CU_ASSERT_EQUAL(fk.starts, 7);
    CU_ASSERT_EQUAL(fk.gathers, 1);
    for (size_t r = 0; r < rec.rounds; r++) {
        uint64_t global = ompb__record_makespan(&rec, r);
        uint64_t own = ompb__record_rank_makespan(&rec, 0, r);
        CU_ASSERT_EQUAL(ompb__record_rank_makespan(&rec, 1, r), (uint64_t)fk.end_ns);
        CU_ASSERT_TRUE(global >= (uint64_t)fk.end_ns);
        CU_ASSERT_TRUE(global >= own);
        CU_ASSERT_TRUE(own < (uint64_t)fk.end_ns); /* ten tiny iterations */
        /* This rank's own bounds lie inside the global ones. */
        CU_ASSERT_TRUE(rec.rank_bounds[r * 2] >= 0);
        CU_ASSERT_TRUE(rec.start_ns[r] <= rec.thread_start_ns[r * 2]);
    }
    ompb__record_free(&rec);
}

static void test_rank0_decides(void)
{
    /* This process is rank 1; rank 0 says its budget is spent: the rounds
     * end after the first measured one, as on rank 0, though this rank's
     * own clock would have allowed all 100. */
    ompb_benchmark b = {.name = "tiny", .fn = tiny_body};
    ompb__instance inst = ompb_test_instance(&b, 1);
    ompb__sampling sp = sampling(1, 100);
    sp.budget_ns = 1000000000000ull;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    const ompb__engine_env *env = fake_env(1);
    fk.elapsed_ns = 2000000000000ll;
    CU_ASSERT_EQUAL(ompb__round_run(env, &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_FALSE(rec.failed);
    CU_ASSERT_EQUAL(rec.rounds, 1);
    CU_ASSERT_PTR_NULL(rec.rank_bounds); /* rank 0 alone keeps them */
    ompb__record_free(&rec);
}

static void test_other_rank_failure(void)
{
    ompb_benchmark b = {.name = "tiny", .fn = tiny_body};
    ompb__instance inst = ompb_test_instance(&b, 2);
    ompb__sampling sp = sampling(2, 5);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    const ompb__engine_env *env = fake_env(0);
    fk.fail_round = true;
    CU_ASSERT_EQUAL(ompb__round_run(env, &inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_TRUE(rec.failed);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.error, "another rank failed"));
    CU_ASSERT_EQUAL(fk.gathers, 1);
    ompb__record_free(&rec);

    memset(&rec, 0, sizeof rec);
    env = fake_env(0);
    fk.stop_at_start = true;
    CU_ASSERT_EQUAL(ompb__round_run(env, &inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_TRUE(rec.failed);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.error, "another rank stopped"));
    CU_ASSERT_EQUAL(fk.agreements, 0);
    CU_ASSERT_EQUAL(rec.rounds, 0);
    ompb__record_free(&rec);
}

/* Whether rec holds a warning containing text. */
static bool has_warning(const ompb__record *rec, const char *text)
{
    for (size_t i = 0; i < rec->n_warnings; i++)
        if (strstr(rec->warnings[i], text))
            return true;
    return false;
}

/* Runs tiny at T=1 for 5 rounds as `rank` of a distribution whose barrier
 * exit skew and rank 1's clock offset error are as given; the rounds are
 * the fake other rank's, 50 ms each. */
static void run_with_clock(int rank, double skew_ns, uint64_t err_ns, ompb__sampling_mode mode,
                           ompb__record *rec)
{
    static const ompb_benchmark b = {.name = "tiny", .fn = tiny_body};
    static ompb__instance inst;
    inst = ompb_test_instance(&b, 1);
    ompb__sampling sp = sampling(1, 5);
    sp.mode = mode;
    uint64_t errs[2] = {0, err_ns};
    const ompb__engine_env *env = fake_env(rank);
    fake_dist.clock_offset_error_ns = errs;
    fake_dist.barrier_exit_skew_ns = skew_ns;
    memset(rec, 0, sizeof *rec);
    CU_ASSERT_EQUAL(ompb__round_run(env, &inst, &sp, NULL, rec), 0);
    CU_ASSERT_FALSE(rec->failed);
}

static void test_clock_error_warning(void)
{
    const char *text = "dominated by the clock error between the ranks";
    ompb__record rec;
    /* 50 ms rounds against 10 x (1 s + 0.5 s): warned, naming the instance
     * and both figures. */
    run_with_clock(0, 1e9, 500000000, OMPB__SAMPLING_MEASURE, &rec);
    CU_ASSERT_EQUAL(rec.n_warnings, 1);
    CU_ASSERT_TRUE(has_warning(&rec, text));
    CU_ASSERT_TRUE(has_warning(&rec, "tiny: its median global round is below 10x the barrier "
                                     "exit skew plus its error (1000000000 + 500000000 ns)"));
    ompb__record_free(&rec);
    /* The error alone decides it too: a skew of 0 estimated with 1 s of
     * error is no better. */
    run_with_clock(0, 0, 1000000000, OMPB__SAMPLING_MEASURE, &rec);
    CU_ASSERT_TRUE(has_warning(&rec, text));
    ompb__record_free(&rec);
    /* 50 ms against 10 x (200 + 600 ns): fine. */
    run_with_clock(0, 200, 600, OMPB__SAMPLING_MEASURE, &rec);
    CU_ASSERT_FALSE(has_warning(&rec, text));
    ompb__record_free(&rec);
    /* Rank 1 does not warn (rank 0 speaks), nor does a --test round. */
    run_with_clock(1, 1e9, 500000000, OMPB__SAMPLING_MEASURE, &rec);
    CU_ASSERT_FALSE(has_warning(&rec, text));
    ompb__record_free(&rec);
    run_with_clock(0, 1e9, 500000000, OMPB__SAMPLING_TEST, &rec);
    CU_ASSERT_FALSE(has_warning(&rec, text));
    ompb__record_free(&rec);
}

static void test_skew_error_bound(void)
{
    /* A spread between two ranks' translated exits is off by at most the
     * sum of their two offset errors: the two largest bound every pair. */
    uint64_t errs[4] = {0, 300, 500, 100};
    ompb_distribution d = {.rank = 0, .size = 4, .clock_offset_error_ns = errs};
    CU_ASSERT_DOUBLE_EQUAL(ompb__dist_skew_error_ns(&d), 800.0, 1e-9);
    d.size = 2;
    CU_ASSERT_DOUBLE_EQUAL(ompb__dist_skew_error_ns(&d), 300.0, 1e-9);
    d.clock_offset_error_ns = NULL;
    CU_ASSERT_DOUBLE_EQUAL(ompb__dist_skew_error_ns(&d), 0.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(ompb__dist_skew_error_ns(NULL), 0.0, 1e-9);
}

static void test_names_carry_ranks(void)
{
    ompb_benchmark b = {.name = "halo"};
    ompb__instance inst = ompb_test_instance(&b, 4);
    char name[OMPB__NAME_MAX];
    CU_ASSERT_EQUAL(ompb__instance_format_name(&inst, 2, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "halo[r=2, t=4]");
    inst.arity = 1;
    inst.argv[0] = 64;
    CU_ASSERT_EQUAL(ompb__instance_format_name(&inst, 2, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "halo[64, r=2, t=4]");
    CU_ASSERT_EQUAL(ompb__instance_format_name(&inst, 0, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "halo[64]");
    /* A distribution must be whole. */
    ompb_distribution bad = {.rank = 2, .size = 2, .max_i64 = fake_max, .gather = fake_gather,
                             .abort = fake_abort};
    CU_ASSERT_EQUAL(ompb_set_distribution(&bad), OMPB_EINVAL);
    CU_ASSERT_PTR_NULL(ompb__dist());
}

static const ompb_test_case cases[] = {
    {"global_round_spans_ranks", test_global_round_spans_ranks},
    {"rank0_decides", test_rank0_decides},
    {"other_rank_failure", test_other_rank_failure},
    {"clock_error_warning", test_clock_error_warning},
    {"skew_error_bound", test_skew_error_bound},
    {"names_carry_ranks", test_names_carry_ranks},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_dist = {"dist", NULL, NULL, cases};
