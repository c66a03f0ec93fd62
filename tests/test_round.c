/* SPDX-License-Identifier: MIT */
/*
 * Round engine invariants, checked from recorded data: start = min of the
 * thread starts, end = max of the thread ends, every thread ran exactly
 * sample_size iterations, T distinct threads took part, the requested round
 * count is honoured; calibration, hooks and failure reporting. No assertion
 * depends on the host's speed or core count.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "clock.h"
#include "cli.h"
#include "round.h"
#include "suite.h"

#define T_TEST 3 /* more threads than this 2-PU machine has is fine: nothing is timed */

static atomic_int seen_thread_mask, bad_width, setups, teardowns, batch_setups, batch_teardowns;

static void reset_counters(void)
{
    atomic_store(&seen_thread_mask, 0);
    atomic_store(&bad_width, 0);
    atomic_store(&setups, 0);
    atomic_store(&teardowns, 0);
    atomic_store(&batch_setups, 0);
    atomic_store(&batch_teardowns, 0);
}

static void counting_body(ompb_state *s)
{
    atomic_fetch_or(&seen_thread_mask, 1 << omp_get_thread_num());
    if (omp_get_num_threads() != ompb_thread_count(s) || omp_get_thread_num() != ompb_thread_index(s))
        atomic_fetch_add(&bad_width, 1);
    ompb_set_bytes(s, 8);
    uint64_t acc = 0;
    OMPB_ITER(s) {
        acc += ompb_opaque_u64(acc) * 3 + 1;
    }
    ompb_black_box(acc);
}

static void breaking_body(ompb_state *s)
{
    OMPB_ITER(s) {
        if (ompb_thread_index(s) == 1)
            break;
    }
}

static void loopless_body(ompb_state *s) { (void)s; }

static void twice_body(ompb_state *s)
{
    OMPB_ITER(s) {
        ompb_clobber_memory();
    }
    OMPB_ITER(s) {
        ompb_clobber_memory();
    }
}

/* Ignores the count it is given: its time cannot grow with the sample size. */
static void ignoring_body(ompb_state *s)
{
    ompb_iter_begin(s);
    ompb_iter_end(s);
}

/* Timestamps of every batch hook call, to check none falls in a timed window. */
#define MAX_HOOK_STAMPS 100000
static uint64_t hook_stamps[MAX_HOOK_STAMPS];
static atomic_int n_hook_stamps;

static void stamp(void)
{
    int i = atomic_fetch_add(&n_hook_stamps, 1);
    if (i < MAX_HOOK_STAMPS)
        hook_stamps[i] = ompb__now_ns();
}

/* Thread 0 is slow, so the others finish early and would run their
 * teardown inside the round if it were not after the round's barrier. */
static void uneven_body(ompb_state *s)
{
    uint64_t spin = ompb_thread_index(s) == 0 ? 20000 : 10;
    uint64_t acc = 0;
    OMPB_ITER(s) {
        for (uint64_t i = 0; i < ompb_opaque_u64(spin); i++)
            acc += i;
    }
    ompb_black_box(acc);
}
static void stamp_hook(ompb_state *s)
{
    (void)s;
    stamp();
}

static int count_setup(ompb_state *s)
{
    atomic_fetch_add(&setups, 1);
    ompb_set_data(s, &setups);
    return 0;
}
static void count_teardown(ompb_state *s)
{
    CU_ASSERT_PTR_EQUAL(ompb_data(s), &setups);
    atomic_fetch_add(&teardowns, 1);
}
/* Runs on team threads: CUnit assertions are not thread-safe, so count. */
static void count_batch_setup(ompb_state *s)
{
    if (ompb_data(s) != &setups)
        atomic_fetch_add(&bad_width, 1);
    atomic_fetch_add(&batch_setups, 1);
}
static void count_batch_teardown(ompb_state *s)
{
    (void)s;
    atomic_fetch_add(&batch_teardowns, 1);
}
static int failing_setup(ompb_state *s)
{
    (void)s;
    return -1;
}

static ompb__sampling base_sampling(int threads)
{
    return (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = threads, .rounds = 20,
                            .sample_size = 50, .warmup_ns = 0, .min_round_ns = 1000,
                            .budget_ns = 3600000000000ull};
}

static ompb__instance make_instance(const ompb_benchmark *b, int threads)
{
    ompb__instance inst;
    memset(&inst, 0, sizeof inst);
    inst.bench = b;
    inst.threads = threads;
    snprintf(inst.name, sizeof inst.name, "%s", b->name);
    snprintf(inst.uri, sizeof inst.uri, "tests::%s", b->name);
    return inst;
}

static void test_round_invariants(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = make_instance(&b, T_TEST);
    ompb__sampling sp = base_sampling(inst.threads);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    reset_counters();
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&inst, &sp, NULL, &rec), 0);
    CU_ASSERT_FALSE(rec.failed);
    CU_ASSERT_EQUAL(rec.rounds, 20);
    CU_ASSERT_EQUAL(rec.threads, T_TEST);
    CU_ASSERT_EQUAL(rec.sample_size, 50);
    CU_ASSERT_EQUAL(rec.bytes_per_iter, 8 * T_TEST);
    CU_ASSERT_EQUAL(atomic_load(&seen_thread_mask), (1 << T_TEST) - 1);
    CU_ASSERT_EQUAL(atomic_load(&bad_width), 0);
    for (size_t r = 0; r < rec.rounds; r++) {
        uint64_t smin = UINT64_MAX, emax = 0;
        for (size_t t = 0; t < T_TEST; t++) {
            uint64_t s = rec.thread_start_ns[r * T_TEST + t];
            uint64_t e = s + rec.busy_ns[r * T_TEST + t];
            smin = s < smin ? s : smin;
            emax = e > emax ? e : emax;
            CU_ASSERT_EQUAL(rec.thread_iters[r * T_TEST + t], 50);
        }
        CU_ASSERT_EQUAL(rec.start_ns[r], smin);
        CU_ASSERT_EQUAL(rec.end_ns[r], emax);
        if (r > 0)
            CU_ASSERT_TRUE(rec.start_ns[r] >= rec.end_ns[r - 1]);
    }
    for (int i = 0; i < T_TEST; i++)
        for (int j = i + 1; j < T_TEST; j++)
            CU_ASSERT_NOT_EQUAL(rec.os_tid[i], rec.os_tid[j]);
    ompb__record_free(&rec);
}

static void test_calibration_reaches_target(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = make_instance(&b, 2);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 0;
    sp.min_round_ns = 2000000; /* 2 ms rounds */
    sp.rounds = 10;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&inst, &sp, NULL, &rec), 0);
    CU_ASSERT_TRUE(rec.calibration_rounds > 1);
    CU_ASSERT_TRUE(rec.sample_size > 1);
    /* The calibrated rounds are long relative to the target (allowing for the
     * machine speeding up after calibration): at least half of it. */
    size_t long_rounds = 0;
    for (size_t r = 0; r < rec.rounds; r++)
        long_rounds += ompb__record_makespan(&rec, r) >= sp.min_round_ns / 2;
    CU_ASSERT_TRUE(long_rounds * 2 >= rec.rounds);
    ompb__record_free(&rec);
}

static void test_max_time_bounds_rounds(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = make_instance(&b, 1);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.rounds = 1000000;
    sp.sample_size = 1;
    sp.budget_ns = 1; /* exhausted at once: still one measured round */
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(rec.rounds, 1);
    ompb__record_free(&rec);
}

static void test_test_mode_runs_one_round(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = make_instance(&b, 2);
    /* Through the resolver: --test means one round, no warm-up. */
    ompb__config config;
    memset(&config, 0, sizeof config);
    config.test = true;
    config.sample_count = 20;
    config.warmup_ns = 1000000000ull;
    config.max_time_ns = 3600000000000ull;
    ompb__sampling sp = ompb__sampling_resolve(&config, &inst, false, 0);
    CU_ASSERT_EQUAL(sp.mode, OMPB__SAMPLING_TEST);
    CU_ASSERT_EQUAL(sp.rounds, 1);
    CU_ASSERT_EQUAL(sp.warmup_ns, 0);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(rec.rounds, 1);
    CU_ASSERT_EQUAL(rec.sample_size, 1);
    CU_ASSERT_EQUAL(rec.warmup_rounds, 0);
    ompb__record_free(&rec);
}

/* With N repetitions the instance's rounds, warm-up and budget are split
 * N ways (rounds rounded up); a later repetition reuses the calibrated size;
 * CPU simulation runs once. */
static void test_sampling_split(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = make_instance(&b, 2);
    ompb__config config;
    memset(&config, 0, sizeof config);
    config.sample_count = 100;
    config.warmup_ns = 100000000ull;
    config.min_time_ns = 1000000ull;
    config.max_time_ns = 5000000000ull;
    config.repetitions = 3;
    ompb__sampling sp = ompb__sampling_resolve(&config, &inst, false, 2);
    CU_ASSERT_EQUAL(sp.rounds, 34);
    CU_ASSERT_EQUAL(sp.warmup_ns, 33333333ull);
    CU_ASSERT_EQUAL(sp.budget_ns, 1666666666ull);
    CU_ASSERT_EQUAL(sp.min_round_ns, 1000000ull);
    CU_ASSERT_EQUAL(sp.repetition, 2);
    CU_ASSERT_EQUAL(sp.repetitions, 3);
    CU_ASSERT_EQUAL(sp.sample_size, 0);
    ompb__sampling_reuse_size(&sp, 4096);
    CU_ASSERT_EQUAL(sp.sample_size, 4096);
    ompb__sampling_reuse_size(&sp, 8);  /* fixed now: stays */
    CU_ASSERT_EQUAL(sp.sample_size, 4096);
    config.repetitions = 5;
    sp = ompb__sampling_resolve(&config, &inst, false, 0);
    CU_ASSERT_EQUAL(sp.rounds, 20);
    CU_ASSERT_EQUAL(sp.warmup_ns, 20000000ull);
    CU_ASSERT_EQUAL(sp.budget_ns, 1000000000ull);
    config.sample_count = 3;    /* fewer rounds than repetitions: one each */
    sp = ompb__sampling_resolve(&config, &inst, false, 4);
    CU_ASSERT_EQUAL(sp.rounds, 1);
    sp = ompb__sampling_resolve(&config, &inst, true, 0);
    CU_ASSERT_EQUAL(sp.repetitions, 1);
    CU_ASSERT_EQUAL(sp.mode, OMPB__SAMPLING_SIMULATE);
    CU_ASSERT_EQUAL(ompb__sampling_repetitions(&config, true), 1);
    CU_ASSERT_EQUAL(ompb__sampling_repetitions(&config, false), 5);
}

static void test_hooks_called_outside_rounds(void)
{
    ompb_benchmark b = {.name = "hooked", .fn = counting_body, .setup = count_setup,
                        .teardown = count_teardown, .batch_setup = count_batch_setup,
                        .batch_teardown = count_batch_teardown};
    ompb__instance inst = make_instance(&b, 2);
    ompb__sampling sp = base_sampling(inst.threads);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    reset_counters();
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&inst, &sp, NULL, &rec), 0);
    int rounds = (int)(rec.calibration_rounds + rec.warmup_rounds + rec.rounds);
    CU_ASSERT_EQUAL(atomic_load(&setups), 1);
    CU_ASSERT_EQUAL(atomic_load(&teardowns), 1);
    CU_ASSERT_EQUAL(atomic_load(&batch_setups), 2 * rounds);
    CU_ASSERT_EQUAL(atomic_load(&batch_teardowns), 2 * rounds);
    CU_ASSERT_EQUAL(atomic_load(&bad_width), 0);
    ompb__record_free(&rec);
}

static void expect_failure(void (*fn)(ompb_state *), int (*setup)(ompb_state *), const char *why)
{
    ompb_benchmark b = {.name = "bad", .fn = fn, .setup = setup};
    ompb__instance inst = make_instance(&b, 2);
    ompb__sampling sp = base_sampling(inst.threads);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(&inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_TRUE(rec.failed);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.error, why));
    CU_ASSERT_EQUAL(rec.rounds, 0);
    ompb__record_free(&rec);
}

static void test_failures_are_reported(void)
{
    expect_failure(breaking_body, NULL, "left its OMPB_ITER loop early");
    expect_failure(loopless_body, NULL, "never entered its OMPB_ITER loop");
    expect_failure(twice_body, NULL, "entered OMPB_ITER more than once");
    expect_failure(counting_body, failing_setup, "setup failed");
}

static void test_calibration_detects_non_scaling_body(void)
{
    ompb_benchmark b = {.name = "ignoring", .fn = ignoring_body};
    ompb__instance inst = make_instance(&b, 1);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 0;
    sp.min_round_ns = 1000000;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(&inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.error, "does not grow with the sample size"));
    CU_ASSERT_TRUE(rec.calibration_rounds < 64);
    ompb__record_free(&rec);
    /* With a small budget, calibration stops at the budget instead, and the
     * instance is measured at the size reached. */
    sp.budget_ns = 1;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(&inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(rec.rounds, 1);
    CU_ASSERT_TRUE(rec.sample_size >= 1);
    ompb__record_free(&rec);
}

static void test_batch_hooks_outside_timed_windows(void)
{
    ompb_benchmark b = {.name = "uneven", .fn = uneven_body, .batch_setup = stamp_hook,
                        .batch_teardown = stamp_hook};
    ompb__instance inst = make_instance(&b, T_TEST);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 5;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    atomic_store(&n_hook_stamps, 0);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&inst, &sp, NULL, &rec), 0);
    int n = atomic_load(&n_hook_stamps);
    CU_ASSERT_FATAL(n > 0 && n < MAX_HOOK_STAMPS);
    size_t inside = 0;
    for (size_t r = 0; r < rec.rounds; r++)
        for (int i = 0; i < n; i++)
            inside += hook_stamps[i] >= rec.start_ns[r] && hook_stamps[i] <= rec.end_ns[r];
    CU_ASSERT_EQUAL(inside, 0);
    ompb__record_free(&rec);
}

static void test_barrier_cost_cached(void)
{
    double a = ompb__barrier_cost_ns(2);
    CU_ASSERT_TRUE(a > 0);
    CU_ASSERT_DOUBLE_EQUAL(ompb__barrier_cost_ns(2), a, 0);
}

static const ompb_test_case cases[] = {
    {"round_invariants", test_round_invariants},
    {"calibration_reaches_target", test_calibration_reaches_target},
    {"max_time_bounds_rounds", test_max_time_bounds_rounds},
    {"test_mode_runs_one_round", test_test_mode_runs_one_round},
    {"sampling_split", test_sampling_split},
    {"hooks_called_outside_rounds", test_hooks_called_outside_rounds},
    {"failures_are_reported", test_failures_are_reported},
    {"calibration_detects_non_scaling_body", test_calibration_detects_non_scaling_body},
    {"batch_hooks_outside_timed_windows", test_batch_hooks_outside_timed_windows},
    {"barrier_cost_cached", test_barrier_cost_cached},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_round = {"round", NULL, NULL, cases};
