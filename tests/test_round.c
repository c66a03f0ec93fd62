/* SPDX-License-Identifier: MIT */
/*
 * Round engine invariants, checked from recorded data: start = min of the
 * thread starts, end = max of the thread ends, every thread ran exactly
 * sample_size iterations, T distinct threads took part, the requested round
 * count is honoured; calibration, hooks and failure reporting. Caller teams:
 * the code's own regions run at T on the PUs of the plan, every thread and
 * round (real binding on two of this process's PUs), the caller's settings
 * and mask come back, bad bodies fail or warn by name. The nested-region
 * warning of harness teams. No assertion depends on the host's speed or
 * core count.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <omp.h>

#include "core/clock.h"
#include "config/cli.h"
#include "fixtures.h"
#include "engine/fork_guard.h"
#include "placement/pin_plan.h"
#include "engine/round.h"
#include "suite.h"
#include "test_env.h"
#include "placement/topology.h"

#define T_TEST 3 /* more threads than this 2-PU machine has is fine: nothing is timed */

/* Every round here runs in a test environment (tests/test_env.h): no
 * process-wide collaborator, a fresh recording one per run. */
static ompb_test_env tenv;

static const ompb__engine_env *test_env(void)
{
    return ompb_test_env_init(&tenv);
}

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

static void test_round_invariants(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, T_TEST);
    ompb__sampling sp = base_sampling(inst.threads);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    reset_counters();
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
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

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The calibrated rounds are long relative to the target. Load only
 * lengthens rounds, but calibration rounds a time slice lengthened make the
 * size too small for the quieter rounds after them: the engine's own check
 * recalibrates a size whose rounds fall below a third of the target and
 * marks the record when that does not help. So every attempt must keep that
 * contract (unmarked, the median round is at least a third of the target),
 * and one of a few attempts must have at least half its rounds at half the
 * target: a broken calibration fails all of them, a busy machine one. */
static bool calibrated_once(bool *long_enough)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, 2);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 0;
    sp.min_round_ns = 2000000; /* 2 ms rounds */
    sp.rounds = 10;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    if (ompb__round_run(test_env(), &inst, &sp, NULL, &rec) != 0)
        return false;
    CU_ASSERT_TRUE(rec.calibration_rounds > 1);
    CU_ASSERT_TRUE(rec.sample_size > 1);
    /* The target is --min-time or the harness-cost floor, if higher. */
    uint64_t target = rec.round_target_ns;
    CU_ASSERT_TRUE(target >= sp.min_round_ns);
    uint64_t spans[64];
    size_t n = rec.rounds < 64 ? rec.rounds : 64, long_rounds = 0;
    for (size_t r = 0; r < n; r++) {
        spans[r] = ompb__record_makespan(&rec, r);
        long_rounds += spans[r] >= target / 2;
    }
    qsort(spans, n, sizeof spans[0], by_u64);
    CU_ASSERT_TRUE(n > 0);
    if (n > 0 && !rec.calibration_disturbed)
        CU_ASSERT_TRUE(spans[n / 2] * 3 >= target);
    *long_enough = n > 0 && !rec.calibration_disturbed && long_rounds * 2 >= n;
    ompb__record_free(&rec);
    return true;
}

static void test_calibration_reaches_target(void)
{
    bool long_enough = false;
    for (int attempt = 0; attempt < 5 && !long_enough; attempt++)
        CU_ASSERT_TRUE_FATAL(calibrated_once(&long_enough));
    CU_ASSERT_TRUE(long_enough);
}

static uint64_t sleep_per_iteration_ns;

static void sleeping_body(ompb_state *s)
{
    OMPB_ITER(s) {
        struct timespec ts = {0, (long)sleep_per_iteration_ns};
        nanosleep(&ts, NULL);
    }
}

/* The calibration's record: every step kept, growth from one step to the
 * next at most 10x, at least two rounds long enough to tell the time per
 * iteration (a tenth of the target) before it stops, the barrier estimate
 * of a team of two, and every round asked for with no reason given. */
static void test_calibration_steps_bounded(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, 2);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 0;
    sp.min_round_ns = 1000000;
    sp.rounds = 10;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    /* Every step is kept up to the record's room (a loaded machine can
     * make a calibration redo itself and take more rounds). */
    CU_ASSERT_EQUAL_FATAL(rec.n_calib_steps, rec.calibration_rounds < OMPB__CALIB_STEPS_MAX
                                                 ? rec.calibration_rounds : OMPB__CALIB_STEPS_MAX);
    CU_ASSERT_TRUE(rec.barrier_cost_ns > 0);
    size_t trusted = 0;
    for (size_t i = 0; i < rec.n_calib_steps; i++) {
        trusted += rec.calib_steps[i].busy_ns >= rec.round_target_ns / 10;
        if (i > 0)
            CU_ASSERT_TRUE(rec.calib_steps[i].sample_size <= 10 * rec.calib_steps[i - 1].sample_size);
    }
    CU_ASSERT_TRUE(trusted >= 2);
    if (rec.recalibrations == 0)
        CU_ASSERT_EQUAL(rec.calib_steps[rec.n_calib_steps - 1].sample_size, rec.sample_size);
    CU_ASSERT_EQUAL(rec.rounds, sp.rounds);
    CU_ASSERT_STRING_EQUAL(rec.short_reason, "");
    CU_ASSERT_TRUE(rec.measure_wall_ns > 0);
    ompb__record_free(&rec);
}

/* A calibration disturbed by the machine: thread 0's first rounds each
 * stall for a while (as when a team thread loses its PU), so the time per
 * iteration looks far larger than it is and the size comes out too small.
 * The first measured rounds, far below the target, redo the calibration. */
static atomic_int stalled_rounds;
#define STALLS 3

static void stalling_body(ompb_state *s)
{
    uint64_t acc = 0;
    if (ompb_thread_index(s) == 0 && atomic_fetch_add(&stalled_rounds, 1) < STALLS) {
        OMPB_ITER(s) {
            struct timespec ts = {0, 4000000};
            nanosleep(&ts, NULL);
            acc += ompb_opaque_u64(acc) + 1;
        }
    } else {
        OMPB_ITER(s) {
            acc += ompb_opaque_u64(acc) + 1;
        }
    }
    ompb_black_box_u64(acc);
}

static void test_calibration_redone_when_disturbed(void)
{
    ompb_benchmark b = {.name = "stalling", .fn = stalling_body};
    ompb__instance inst = ompb_test_instance(&b, 1);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 0;
    sp.min_round_ns = 1000000;
    sp.rounds = 10;
    atomic_store(&stalled_rounds, 0);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_TRUE(rec.recalibrations >= 1);
    CU_ASSERT_EQUAL(rec.rounds, sp.rounds);
    /* The stalls made the first size 1: it grew again afterwards. */
    CU_ASSERT_TRUE(rec.sample_size > rec.calib_steps[0].sample_size * 10);
    ompb__record_free(&rec);
}

/* A body whose one iteration takes more than the budget allows per round:
 * the rounds it got, and a reason that says so. */
static void test_short_rounds_say_why(void)
{
    ompb_benchmark b = {.name = "sleeping", .fn = sleeping_body};
    ompb__instance inst = ompb_test_instance(&b, 1);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 0;
    sp.rounds = 10;
    sp.budget_ns = 20000000;
    sleep_per_iteration_ns = 8000000;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_TRUE(rec.rounds < sp.rounds);
    CU_ASSERT_EQUAL(rec.sample_size, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.short_reason, "budget: body "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.short_reason, " ms per iteration"));
    ompb__record_free(&rec);
}

static void test_max_time_bounds_rounds(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, 1);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.rounds = 1000000;
    sp.sample_size = 1;
    sp.budget_ns = 1; /* exhausted at once: still one measured round */
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(rec.rounds, 1);
    ompb__record_free(&rec);
}

static void test_test_mode_runs_one_round(void)
{
    ompb_benchmark b = {.name = "counting", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, 2);
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
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
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
    ompb__instance inst = ompb_test_instance(&b, 2);
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
    ompb__instance inst = ompb_test_instance(&b, 2);
    ompb__sampling sp = base_sampling(inst.threads);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    reset_counters();
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
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
    ompb__instance inst = ompb_test_instance(&b, 2);
    ompb__sampling sp = base_sampling(inst.threads);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), OMPB_ERUN);
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
    ompb__instance inst = ompb_test_instance(&b, 1);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 0;
    sp.min_round_ns = 1000000;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.error, "does not grow with the sample size"));
    CU_ASSERT_TRUE(rec.calibration_rounds < 64);
    ompb__record_free(&rec);
    /* With a small budget, calibration stops at the budget instead, and the
     * instance is measured at the size reached. */
    sp.budget_ns = 1;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(rec.rounds, 1);
    CU_ASSERT_TRUE(rec.sample_size >= 1);
    ompb__record_free(&rec);
}

static void test_batch_hooks_outside_timed_windows(void)
{
    ompb_benchmark b = {.name = "uneven", .fn = uneven_body, .batch_setup = stamp_hook,
                        .batch_teardown = stamp_hook};
    ompb__instance inst = ompb_test_instance(&b, T_TEST);
    ompb__sampling sp = base_sampling(inst.threads);
    sp.sample_size = 5;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    atomic_store(&n_hook_stamps, 0);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    int n = atomic_load(&n_hook_stamps);
    CU_ASSERT_FATAL(n > 0 && n < MAX_HOOK_STAMPS);
    size_t inside = 0;
    for (size_t r = 0; r < rec.rounds; r++)
        for (int i = 0; i < n; i++)
            inside += hook_stamps[i] >= rec.start_ns[r] && hook_stamps[i] <= rec.end_ns[r];
    CU_ASSERT_EQUAL(inside, 0);
    ompb__record_free(&rec);
}

/* Each complete measurement can only lower the estimate of a width (load
 * only adds to a barrier); after three, the lowest stands unmeasured. */
static void test_barrier_cost_cached(void)
{
    bool complete;
    double prev = ompb__barrier_cost_ns(2, NULL, UINT64_MAX, &complete);
    CU_ASSERT_TRUE(prev > 0);
    for (int i = 0; i < 3; i++) {
        double next = ompb__barrier_cost_ns(2, NULL, UINT64_MAX, &complete);
        CU_ASSERT_TRUE(next <= prev);
        prev = next;
    }
    CU_ASSERT_DOUBLE_EQUAL(ompb__barrier_cost_ns(2, NULL, UINT64_MAX, &complete), prev, 0);
    CU_ASSERT_TRUE(complete);
}

/* A limit that cuts the probes short (after the 8 that always run) leaves
 * an estimate that raises no calibration floor: it says so. A width no
 * other test measures, so nothing is cached for it. */
#define CUT_SHORT_TEAM 5
static void test_barrier_cost_cut_short(void)
{
    bool complete = true;
    double cost = ompb__barrier_cost_ns(CUT_SHORT_TEAM, NULL, 1, &complete);
    CU_ASSERT_TRUE(cost > 0);
    CU_ASSERT_FALSE(complete);
}

/* Many more threads than this machine has PUs (fine: oversubscribed, a
 * barrier just costs more), and widths no other test uses, so that
 * nothing is cached yet. */
#define WIDE_TEAM 64
#define WIDE_TEAM_ENGINE 61

/* The most that a parallel region of T threads with one barrier took, of
 * three after one that starts the threads: the unit the bounds below are
 * expressed in, so they follow this machine's speed and load. */
static uint64_t one_barrier_ns(int threads)
{
    uint64_t worst = 0;
    omp_set_dynamic(0);
    for (int k = -1; k < 3; k++) {
        uint64_t t0 = ompb__now_ns();
#pragma omp parallel num_threads(threads)
        {
#pragma omp barrier
        }
        uint64_t took = ompb__now_ns() - t0;
        if (k >= 0 && took > worst)
            worst = took;
    }
    return worst;
}

/* The barrier cost is measured within its limit (a share of the budget),
 * not over a fixed 5 x 200 barriers: a region with one barrier costs about
 * three barriers, so those 1000 would take some 300 such regions, far
 * beyond the bound (4 x 20 + 4; the measurement takes about 20). */
static void test_barrier_cost_within_limit(void)
{
    /* Wall time on a loaded machine can pass any bound once (a preempted
     * team); a probe that ignored its limit passes it every time. So the
     * bound must hold in one of three attempts. */
    uint64_t unit = 0, limit = 0, took = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        unit = one_barrier_ns(WIDE_TEAM);
        limit = 20 * unit;
        bool complete;
        uint64_t t0 = ompb__now_ns();
        double cost = ompb__barrier_cost_ns(WIDE_TEAM, NULL, limit, &complete);
        took = ompb__now_ns() - t0;
        CU_ASSERT_TRUE(cost > 0);
        if (took <= 4 * limit + 4 * unit)
            break;
    }
    CU_ASSERT_TRUE(took <= 4 * limit + 4 * unit);
    if (took > 4 * limit + 4 * unit)
        fprintf(stderr, "    %" PRIu64 " ns for a limit of %" PRIu64 " ns\n", took, limit);
}

/* A calibrated instance of a wide team whose one iteration fills the
 * budget: one calibration round, one measured round, and before them the
 * barrier measurement, which must fit in its share of the budget (it
 * counts against none). Sleeping threads do not compete for the PUs, so the
 * rounds last about the sleep (2 budgets in all, bound: 6); the fixed 1000
 * barriers would add some 300 units, the budget being 10. */
static void test_barrier_cost_within_budget(void)
{
    ompb_benchmark b = {.name = "sleeping", .fn = sleeping_body};
    ompb__instance inst = ompb_test_instance(&b, WIDE_TEAM_ENGINE);
    ompb__sampling sp = base_sampling(inst.threads);
    uint64_t unit = 0, took = 0;
    /* As above: the wall-time bound must hold in one of three attempts (a
     * loaded machine broke it once; the fixed barriers break it always). */
    for (int attempt = 0; attempt < 3; attempt++) {
        unit = one_barrier_ns(WIDE_TEAM_ENGINE);
        sp = base_sampling(inst.threads);
        sp.sample_size = 0;
        sp.rounds = 100;
        sp.budget_ns = 10 * unit;
        sleep_per_iteration_ns = sp.budget_ns < 999999999 ? sp.budget_ns : 999999999;
        ompb__record rec;
        memset(&rec, 0, sizeof rec);
        uint64_t t0 = ompb__now_ns();
        CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
        took = ompb__now_ns() - t0;
        CU_ASSERT_EQUAL(rec.calibration_rounds, 1);
        CU_ASSERT_EQUAL(rec.rounds, 1);
        ompb__record_free(&rec);
        if (took <= 6 * sp.budget_ns + 4 * unit)
            break;
    }
    CU_ASSERT_TRUE(took <= 6 * sp.budget_ns + 4 * unit);
    if (took > 6 * sp.budget_ns + 4 * unit)
        fprintf(stderr, "    %" PRIu64 " ns for a budget of %" PRIu64 " ns\n", took, sp.budget_ns);
}

/* ---- thread_setup ------------------------------------------------------------ */

static atomic_int setup_mask, setup_bad;

static int mask_thread_setup(ompb_state *s)
{
    if (ompb_thread_count(s) != omp_get_num_threads())
        atomic_fetch_add(&setup_bad, 1);
    atomic_fetch_or(&setup_mask, 1 << ompb_thread_index(s));
    return 0;
}

static int failing_thread_setup(ompb_state *s)
{
    return ompb_thread_index(s) == 1 ? -1 : 0;
}

static void test_thread_setup_harness(void)
{
    ompb_benchmark b = {.name = "tsetup", .fn = counting_body, .thread_setup = mask_thread_setup,
                        .setup = count_setup, .teardown = count_teardown};
    ompb__instance inst = ompb_test_instance(&b, T_TEST);
    ompb__sampling sp = base_sampling(inst.threads);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    reset_counters();
    atomic_store(&setup_mask, 0);
    atomic_store(&setup_bad, 0);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(atomic_load(&setup_mask), (1 << T_TEST) - 1);
    CU_ASSERT_EQUAL(atomic_load(&setup_bad), 0);
    ompb__record_free(&rec);
    /* A failing thread_setup fails the instance before any round; teardown
     * still undoes setup. */
    b.thread_setup = failing_thread_setup;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.error, "tsetup: thread_setup failed on thread 1"));
    CU_ASSERT_EQUAL(rec.rounds, 0);
    CU_ASSERT_EQUAL(atomic_load(&setups), 2);
    CU_ASSERT_EQUAL(atomic_load(&teardowns), 2);
    ompb__record_free(&rec);
}

/* ---- nested regions in harness teams ---------------------------------------- */

#define NESTED_TEXT "opens a nested parallel region inside the round; declare it with " \
    ".team = OMPB_TEAM_CALLER to benchmark code that forks its own team"

/* Stands for an existing OpenMP function called from a benchmark body. */
__attribute__((noinline)) static void forking_kernel(void)
{
#pragma omp parallel
    ompb_clobber_memory();
}

static void nesting_body(ompb_state *s)
{
    OMPB_ITER(s) {
        forking_kernel();
    }
}

/* Opens its region outside the timed loop's body: still inside the round. */
static void nesting_outside_loop_body(ompb_state *s)
{
    forking_kernel();
    OMPB_ITER(s) {
        ompb_clobber_memory();
    }
}

/* Hands the region to deferred tasks and never waits for them: they run
 * later, at a task scheduling point of the runtime's choosing, yet they are
 * the round's. */
static void nesting_task_body(ompb_state *s)
{
    OMPB_ITER(s) {
        ompb_clobber_memory();
    }
#pragma omp task
    forking_kernel();
}

static void nesting_task_in_loop_body(ompb_state *s)
{
    OMPB_ITER(s) {
#pragma omp task
        forking_kernel();
    }
}

static void forking_batch_setup(ompb_state *s)
{
    (void)s;
    forking_kernel();
}

static void check_nested(void (*fn)(ompb_state *), void (*batch)(ompb_state *), int threads,
                         bool nested)
{
    ompb_benchmark b = {.name = "nest", .fn = fn, .batch_setup = batch};
    ompb__instance inst = ompb_test_instance(&b, threads);
    snprintf(inst.name, sizeof inst.name, "nest[t=%d]", threads);
    ompb__sampling sp = base_sampling(threads);
    sp.rounds = 3;
    sp.sample_size = 4;
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    if (!nested) {
        CU_ASSERT_EQUAL(rec.nested_regions, 0);
        CU_ASSERT_EQUAL(rec.n_warnings, 0);
    } else {
        char want[OMPB__RECORD_WARNING_MAX];
        snprintf(want, sizeof want, "nest[t=%d]: " NESTED_TEXT, threads);
        CU_ASSERT_TRUE(rec.nested_regions > 0);
        CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1); /* once per instance */
        CU_ASSERT_STRING_EQUAL(rec.warnings[0], want);
    }
    ompb__record_free(&rec);
}

/* Under libgomp a region nested in a team of one gets fresh OS threads, in a
 * team of two it runs on one thread: the warning fires for both. */
static void test_nested_region_warning(void)
{
#ifdef __clang__
    return; /* this file's regions compile to __kmpc_fork_call: not seen */
#endif
    check_nested(nesting_body, NULL, 1, true);
    check_nested(nesting_body, NULL, 2, true);
    check_nested(nesting_outside_loop_body, NULL, 2, true);
    /* Deferred tasks of the body run untimed, but still under the watch. */
    check_nested(nesting_task_body, NULL, 1, true);
    check_nested(nesting_task_body, NULL, 2, true);
    check_nested(nesting_task_in_loop_body, NULL, 1, true);
    check_nested(nesting_task_in_loop_body, NULL, 2, true);
    check_nested(counting_body, NULL, 2, false);
    /* The batch hooks are not the body: their regions are untimed. */
    check_nested(counting_body, forking_batch_setup, 2, false);
}

/* ---- caller teams ------------------------------------------------------------- */

#define CT_T 2
#define CT_ROUNDS 32

/* Where thread t of the code's team ran in body call r, seen from inside
 * the code's own region on every iteration. */
static int ct_cpu[CT_ROUNDS][CT_T], ct_tid[CT_ROUNDS][CT_T];
static atomic_int ct_inconsistent, ct_width_wrong, ct_calls, ct_state_wrong;

static void ct_reset(void)
{
    for (int r = 0; r < CT_ROUNDS; r++)
        for (int t = 0; t < CT_T; t++)
            ct_cpu[r][t] = ct_tid[r][t] = -1;
    atomic_store(&ct_inconsistent, 0);
    atomic_store(&ct_width_wrong, 0);
    atomic_store(&ct_calls, 0);
    atomic_store(&ct_state_wrong, 0);
}

__attribute__((noinline)) static void ct_kernel(int r)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num(), cpu = sched_getcpu(), tid = (int)syscall(SYS_gettid);
        if (omp_get_num_threads() != CT_T || t >= CT_T) {
            atomic_fetch_add(&ct_width_wrong, 1);
        } else if (ct_cpu[r][t] < 0) {
            ct_cpu[r][t] = cpu;
            ct_tid[r][t] = tid;
        } else if (ct_cpu[r][t] != cpu || ct_tid[r][t] != tid) {
            atomic_fetch_add(&ct_inconsistent, 1);
        }
    }
}

static void ct_body(ompb_state *s)
{
    int r = atomic_fetch_add(&ct_calls, 1);
    r = r < CT_ROUNDS ? r : CT_ROUNDS - 1;
    if (ompb_thread_index(s) != 0 || ompb_thread_count(s) != CT_T || omp_in_parallel())
        atomic_fetch_add(&ct_state_wrong, 1);
    OMPB_ITER(s) {
        ct_kernel(r);
    }
}

static int ct_setup_tid[CT_T];

/* Records which OS thread ran slot t's thread_setup: first touch is only
 * useful if the code's thread t is that thread. */
static int ct_thread_setup(ompb_state *s)
{
    ct_setup_tid[ompb_thread_index(s)] = (int)syscall(SYS_gettid);
    return 0;
}

static ompb__sampling ct_sampling(void)
{
    ompb__sampling sp = base_sampling(CT_T);
    sp.rounds = 10;
    sp.sample_size = 20;
    return sp;
}

static bool same_mask(const cpu_set_t *a, const cpu_set_t *b)
{
    return CPU_EQUAL(a, b);
}

/* Runs ct_body under plan and checks, for every body call (the calibration
 * round and the measured ones) and every thread of the code's regions, that
 * it ran on plan->pu[t], on the OS thread placed for slot t, with 0
 * migrations; and that the caller's mask and OpenMP settings come back. */
static void check_caller_placement(const ompb__pin_plan *plan, const char *what)
{
    ompb_benchmark b = {.name = "ct", .fn = ct_body, .team = OMPB_TEAM_CALLER,
                        .thread_setup = ct_thread_setup};
    ompb__instance inst = ompb_test_instance(&b, CT_T);
    ompb__sampling sp = ct_sampling();
    ompb__record rec;
    cpu_set_t before, after;
    int nthreads = omp_get_max_threads(), dynamic = omp_get_dynamic();
    memset(&rec, 0, sizeof rec);
    ct_reset();
    omp_set_num_threads(3);
    omp_set_dynamic(1);
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof before, &before), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, plan, &rec), 0);
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof after, &after), 0);
    CU_ASSERT_TRUE(same_mask(&before, &after));
    CU_ASSERT_EQUAL(omp_get_max_threads(), 3);
    CU_ASSERT_EQUAL(omp_get_dynamic(), 1);
    omp_set_dynamic(dynamic);
    omp_set_num_threads(nthreads);
    int calls = atomic_load(&ct_calls);
    CU_ASSERT_EQUAL(calls, (int)(rec.calibration_rounds + rec.warmup_rounds + rec.rounds));
    CU_ASSERT_EQUAL(rec.rounds, 10);
    CU_ASSERT_TRUE(rec.caller_team);
    CU_ASSERT_EQUAL(rec.threads, CT_T);
    CU_ASSERT_EQUAL(rec.migrations, 0);
    CU_ASSERT_EQUAL(rec.n_warnings, 0);
    CU_ASSERT_EQUAL(atomic_load(&ct_width_wrong), 0);
    CU_ASSERT_EQUAL(atomic_load(&ct_inconsistent), 0);
    CU_ASSERT_EQUAL(atomic_load(&ct_state_wrong), 0);
    int wrong = 0;
    for (int r = 0; r < calls && r < CT_ROUNDS; r++)
        for (int t = 0; t < CT_T; t++)
            wrong += ct_cpu[r][t] != plan->pu[t] || ct_tid[r][t] != rec.os_tid[t];
    if (wrong)
        fprintf(stderr, "\n%s: %d of %d thread-rounds off the plan (t0->%d t1->%d; round 0 "
                "ran t0 on %d, t1 on %d)\n", what, wrong, calls * CT_T, plan->pu[0],
                plan->pu[1], ct_cpu[0][0], ct_cpu[0][1]);
    CU_ASSERT_EQUAL(wrong, 0);
    for (int t = 0; t < CT_T; t++) {
        CU_ASSERT_EQUAL(rec.thread_pu[t], plan->pu[t]);
        CU_ASSERT_EQUAL(ct_setup_tid[t], rec.os_tid[t]);
    }
    CU_ASSERT_EQUAL(rec.os_tid[0], (int)syscall(SYS_gettid)); /* the caller is thread 0 */
    ompb__record_free(&rec);
}

/* Two PUs this process may use, in the order given; false if it has fewer. */
static bool two_pus(int *first, int *second)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return false;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set))
            (n++ ? second : first)[0] = c;
    return n == 2;
}

/* compact, spread and cpus:LIST (the two PUs reversed, so that thread 0 is
 * not where an unbound runtime would likely start it) on this machine. The
 * mapping logic of the same policies on larger synthetic machines is in
 * test_topology.c (show_plan_caller_team). */
static void test_caller_team_placement(void)
{
    int a, b;
    if (!two_pus(&a, &b)) {
        fprintf(stderr, "\ncaller_team_placement: fewer than 2 usable PUs, nothing bound\n");
        return;
    }
    ompb__topology *topo = NULL;
    CU_ASSERT_EQUAL_FATAL(ompb__topology_open(&topo, NULL), 0);
    char list[64];
    snprintf(list, sizeof list, "cpus:%d,%d", b, a);
    const char *policies[] = {"compact", "spread", list};
    for (size_t i = 0; i < 3; i++) {
        ompb__pin_spec pin;
        ompb__pin_plan *plan = NULL;
        CU_ASSERT_EQUAL_FATAL(ompb__pin_parse(policies[i], &pin, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(ompb__pin_plan_new(topo, &pin, CT_T, &plan, NULL), 0);
        if (plan->binder == OMPB__BINDER_OURS)
            check_caller_placement(plan, policies[i]);
        else
            fprintf(stderr, "\ncaller_team_placement: the OpenMP runtime binds here (OMP_PLACES?)\n");
        ompb__pin_plan_free(plan);
        ompb__pin_spec_release(&pin);
    }
    ompb__topology_close(topo);
}

/* The round is the caller's loop: one column of bounds, equal to the
 * round's; no skew to speak of. */
static void test_caller_team_record(void)
{
    ompb_benchmark b = {.name = "ct", .fn = ct_body, .team = OMPB_TEAM_CALLER};
    ompb__instance inst = ompb_test_instance(&b, CT_T);
    ompb__sampling sp = ct_sampling();
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    ct_reset();
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(ompb__record_timed_threads(&rec), 1);
    for (size_t r = 0; r < rec.rounds; r++) {
        CU_ASSERT_EQUAL(rec.thread_start_ns[r], rec.start_ns[r]);
        CU_ASSERT_EQUAL(rec.busy_ns[r], rec.end_ns[r] - rec.start_ns[r]);
        CU_ASSERT_EQUAL(rec.thread_iters[r], 20);
        CU_ASSERT_EQUAL(ompb__record_start_skew(&rec, r), 0);
    }
    CU_ASSERT_EQUAL(atomic_load(&ct_width_wrong), 0);
    ompb__record_free(&rec);
}

static void lonely_body(ompb_state *s)
{
    OMPB_ITER(s) {
        ompb_clobber_memory();
    }
}

static void wide_body(ompb_state *s)
{
    OMPB_ITER(s) {
#pragma omp parallel num_threads(CT_T + 1)
        ompb_clobber_memory();
    }
}

static void resizing_body(ompb_state *s)
{
    OMPB_ITER(s) {
        forking_kernel();
    }
    omp_set_num_threads(1);
}

/* Narrows its regions for a while and restores the width before the body
 * returns, where the check after the body would have seen it. */
static void narrowing_body(ompb_state *s)
{
    OMPB_ITER(s) {
        omp_set_num_threads(1);
        forking_kernel();
        omp_set_num_threads(CT_T);
    }
}

static void dynamic_body(ompb_state *s)
{
    OMPB_ITER(s) {
        forking_kernel();
    }
    omp_set_dynamic(1);
}

static void forking_loopless_body(ompb_state *s)
{
    (void)s;
    forking_kernel();
}

/* Runs a caller-team body; returns the record's rc, *rec filled. */
static int run_caller(void (*fn)(ompb_state *), ompb_team team, ompb__record *rec)
{
    ompb_benchmark b = {.name = "ct", .fn = fn, .team = team, .setup = count_setup,
                        .teardown = count_teardown};
    ompb__instance inst = ompb_test_instance(&b, CT_T);
    ompb__sampling sp = ct_sampling();
    memset(rec, 0, sizeof *rec);
    return ompb__round_run(test_env(), &inst, &sp, NULL, rec);
}

static void test_caller_team_bad_bodies(void)
{
    ompb__record rec;
    int nthreads = omp_get_max_threads();
    reset_counters();
    /* An unknown team: the instance fails by name before setup runs. */
    CU_ASSERT_EQUAL(run_caller(counting_body, (ompb_team)7, &rec), OMPB_ERUN);
    CU_ASSERT_STRING_EQUAL(rec.error, "ct: .team = 7 is not a team (accepted: "
                           "OMPB_TEAM_HARNESS, OMPB_TEAM_CALLER)");
    CU_ASSERT_EQUAL(atomic_load(&setups), 0);
    ompb__record_free(&rec);
    /* A body that never enters OMPB_ITER. */
    CU_ASSERT_EQUAL(run_caller(forking_loopless_body, OMPB_TEAM_CALLER, &rec), OMPB_ERUN);
    CU_ASSERT_STRING_EQUAL(rec.error, "ct: the body never entered its OMPB_ITER loop");
    ompb__record_free(&rec);
    /* omp_set_num_threads() and omp_set_dynamic() in the body: failures,
     * and the caller's settings are restored all the same. */
    CU_ASSERT_EQUAL(run_caller(resizing_body, OMPB_TEAM_CALLER, &rec), OMPB_ERUN);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.error, "ct: the body changed the team size of its "
                                  "regions to 1 with omp_set_num_threads()"));
    CU_ASSERT_EQUAL(rec.rounds, 0);
    ompb__record_free(&rec);
    CU_ASSERT_EQUAL(omp_get_max_threads(), nthreads);
    CU_ASSERT_EQUAL(run_caller(dynamic_body, OMPB_TEAM_CALLER, &rec), OMPB_ERUN);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.error, "ct: the body turned on omp_set_dynamic()"));
    ompb__record_free(&rec);
    CU_ASSERT_FALSE(omp_get_dynamic());
    CU_ASSERT_EQUAL(atomic_load(&setups), 3);
    CU_ASSERT_EQUAL(atomic_load(&teardowns), 3);
}

static void test_caller_team_warnings(void)
{
#ifdef __clang__
    return; /* this file's regions compile to __kmpc_fork_call: not seen */
#endif
    ompb__record rec;
    /* Regions asking for another width than T: measured, with a warning. */
    CU_ASSERT_EQUAL(run_caller(wide_body, OMPB_TEAM_CALLER, &rec), 0);
    CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.warnings[0], "ct: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.warnings[0], "of its parallel regions asked for 3 "
                                  "threads (num_threads or if clause, or "
                                  "omp_set_num_threads() around them) instead of T=2"));
    ompb__record_free(&rec);
    /* Regions without a clause that ran while the body had narrowed
     * nthreads-var: the same warning, with the width they got. */
    CU_ASSERT_EQUAL(run_caller(narrowing_body, OMPB_TEAM_CALLER, &rec), 0);
    CU_ASSERT_FALSE(rec.failed);
    CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.warnings[0], "ct: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rec.warnings[0], "of its parallel regions asked for 1 "
                                  "threads (num_threads or if clause, or "
                                  "omp_set_num_threads() around them) instead of T=2"));
    ompb__record_free(&rec);
    /* A caller-team body that forks nothing ran on one thread. */
    CU_ASSERT_EQUAL(run_caller(lonely_body, OMPB_TEAM_CALLER, &rec), 0);
    if (ompb__fork_guard_coverage() == OMPB__FORKS_SEEN_ALL) {
        CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(rec.warnings[0], "ct: the body opened no parallel region"));
    }
    ompb__record_free(&rec);
    /* The same kernel in a caller team: no nested-region warning. */
    CU_ASSERT_EQUAL(run_caller(nesting_body, OMPB_TEAM_CALLER, &rec), 0);
    CU_ASSERT_EQUAL(rec.n_warnings, 0);
    CU_ASSERT_EQUAL(rec.nested_regions, 0);
    ompb__record_free(&rec);
}

/* Issue 19: a caller-team body whose only construct is a host teams
 * region ran on one thread (libgomp runs the teams one after another); the
 * warning says that, not only that no parallel region was opened. */
static void teams_body(ompb_state *s)
{
    OMPB_ITER(s) {
#pragma omp teams num_teams(2)
        ompb_clobber_memory();
    }
}

static void test_caller_team_host_teams(void)
{
#ifdef __clang__
    return; /* Clang's host teams go through __kmpc_fork_teams: not seen */
#endif
    ompb__record rec;
    CU_ASSERT_EQUAL(run_caller(teams_body, OMPB_TEAM_CALLER, &rec), 0);
    if (ompb__fork_guard_coverage() == OMPB__FORKS_SEEN_ALL) {
        CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(rec.warnings[0], "ct: the body opened no parallel region: "
                                      "libgomp ran its "));
        CU_ASSERT_PTR_NOT_NULL(strstr(rec.warnings[0], "(2 teams) one team after another on "
                                      "the calling thread, so the rounds time one thread (for "
                                      "T=2, open a parallel region inside"));
    }
    ompb__record_free(&rec);
}

static const ompb_test_case cases[] = {
    {"caller_team_host_teams", test_caller_team_host_teams},
    {"round_invariants", test_round_invariants},
    {"calibration_reaches_target", test_calibration_reaches_target},
    {"calibration_steps_bounded", test_calibration_steps_bounded},
    {"calibration_redone_when_disturbed", test_calibration_redone_when_disturbed},
    {"short_rounds_say_why", test_short_rounds_say_why},
    {"max_time_bounds_rounds", test_max_time_bounds_rounds},
    {"test_mode_runs_one_round", test_test_mode_runs_one_round},
    {"sampling_split", test_sampling_split},
    {"hooks_called_outside_rounds", test_hooks_called_outside_rounds},
    {"failures_are_reported", test_failures_are_reported},
    {"calibration_detects_non_scaling_body", test_calibration_detects_non_scaling_body},
    {"batch_hooks_outside_timed_windows", test_batch_hooks_outside_timed_windows},
    {"barrier_cost_cached", test_barrier_cost_cached},
    {"barrier_cost_cut_short", test_barrier_cost_cut_short},
    {"barrier_cost_within_limit", test_barrier_cost_within_limit},
    {"barrier_cost_within_budget", test_barrier_cost_within_budget},
    {"thread_setup_harness", test_thread_setup_harness},
    {"nested_region_warning", test_nested_region_warning},
    {"caller_team_placement", test_caller_team_placement},
    {"caller_team_record", test_caller_team_record},
    {"caller_team_bad_bodies", test_caller_team_bad_bodies},
    {"caller_team_warnings", test_caller_team_warnings},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_round = {"round", NULL, NULL, cases};
