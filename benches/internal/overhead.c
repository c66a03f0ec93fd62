/* SPDX-License-Identifier: MIT */
/*
 * The harness measuring itself, against baselines measured in the same
 * process, so the figures are ratios that do not depend on the machine:
 *
 * 1. Per-round overhead at T = 1 and 2: the period between consecutive round
 *    starts of an instance whose body is one empty iteration, against the
 *    bare OpenMP floor: a parallel region with a min/max reduction of two
 *    clock reads. Bar: <= 1.25x the floor.
 * 2. Per-iteration cost of an empty body in OMPB_ITER against the same body
 *    in a hand-written counted loop. Bar: within 0.5 ns per iteration.
 * 3. With --counters (task-clock, one group per thread, read right before
 *    and right after its timed loop): the same round period against the same floor (bar:
 *    <= 1.25x), the median makespan of the one-iteration round with and
 *    without counters (the timed window must not change), and the bare
 *    cost of the reads the engine could make per round: a perf group read
 *    and getrusage(RUSAGE_THREAD).
 *
 * Usage: overhead [--quick]   (--quick: few repetitions, for the CTest smoke)
 * Figures and how to read them: docs/performance.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <ompbench.h>

#include <sys/resource.h>

#include "core/clock.h"
#include "counters/counters.h"
#include "model/registry.h"
#include "engine/round.h"

#define ROUND_BAR 1.25
#define ITER_BAR_NS 0.5

static int reps = 15;        /* medians are taken over this many repetitions */
static int rounds = 2000;    /* rounds per repetition */
static uint64_t iters = 20000000;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Bare floor: fork/join + min/max reduction + two clock reads, per round. */
static double floor_round_ns(int threads)
{
    uint64_t sink = 0;
    uint64_t t0 = ompb__now_ns();
    for (int r = 0; r < rounds; r++) {
        uint64_t s = UINT64_MAX, e = 0;
#pragma omp parallel num_threads(threads) reduction(min : s) reduction(max : e)
        {
            s = ompb__now_ns();
            e = ompb__now_ns();
        }
        sink += e - s;
    }
    double per = (double)(ompb__now_ns() - t0) / rounds;
    ompb_black_box(sink);
    return per;
}

static void empty_round(ompb_state *state)
{
    OMPB_ITER(state) {
        __asm__ volatile("");
    }
}

static const ompb_benchmark empty_bench = {.name = "empty", .file = __FILE__, .fn = empty_round};

/* A fixed sample size: no calibration, no warm-up, just the rounds. */
static ompb__sampling fixed_sampling(int threads, uint64_t n_rounds, uint64_t sample_size)
{
    return (ompb__sampling){.threads = threads, .rounds = n_rounds, .sample_size = sample_size,
                            .min_round_ns = 1, .budget_ns = 60000000000ull};
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Period between consecutive round starts of a one-iteration body, and
 * the median makespan of its rounds; counters: NULL or the events. */
static double harness_round_ns(int threads, const ompb__counter_set *counters, double *makespan)
{
    ompb__instance inst = {.bench = &empty_bench, .threads = threads};
    strcpy(inst.name, "empty");
    ompb__sampling sp = fixed_sampling(threads, (uint64_t)rounds, 1);
    sp.counters = counters;
    ompb__record rec = {0};
    ompb__engine_env env = ompb__engine_env_default();
    if (ompb__round_run(&env, &inst, &sp, NULL, &rec) != 0 || rec.rounds < 2) {
        fprintf(stderr, "overhead: harness run failed: %s\n", rec.error);
        exit(1);
    }
    double per = (double)(rec.start_ns[rec.rounds - 1] - rec.start_ns[0]) / (double)(rec.rounds - 1);
    if (makespan) {
        uint64_t *m = malloc(rec.rounds * sizeof *m);
        if (!m)
            exit(1);
        for (size_t r = 0; r < rec.rounds; r++)
            m[r] = ompb__record_makespan(&rec, r);
        qsort(m, rec.rounds, sizeof *m, cmp_u64);
        *makespan = (double)m[rec.rounds / 2];
        free(m);
    }
    ompb__record_free(&rec);
    return per;
}

/* Per-iteration time of the empty body inside OMPB_ITER at T = 1. */
static double harness_iter_ns(void)
{
    ompb__instance inst = {.bench = &empty_bench, .threads = 1};
    strcpy(inst.name, "empty");
    ompb__sampling sp = fixed_sampling(1, 1, iters);
    ompb__record rec = {0};
    ompb__engine_env env = ompb__engine_env_default();
    if (ompb__round_run(&env, &inst, &sp, NULL, &rec) != 0) {
        fprintf(stderr, "overhead: harness run failed: %s\n", rec.error);
        exit(1);
    }
    double per = (double)ompb__record_makespan(&rec, 0) / (double)iters;
    ompb__record_free(&rec);
    return per;
}

/* The same body in a hand-written loop, timed the same way. */
__attribute__((noinline)) static double hand_loop_ns(uint64_t n)
{
    n = ompb_opaque_u64(n);
    uint64_t t0 = ompb__now_ns();
    for (uint64_t i = 0; i < n; i++)
        __asm__ volatile("");
    return (double)(ompb__now_ns() - t0) / (double)n;
}

static void report_rounds(int threads)
{
    double fl[64], hr[64];
    for (int i = 0; i < reps; i++) {
        fl[i] = floor_round_ns(threads);
        hr[i] = harness_round_ns(threads, NULL, NULL);
    }
    double f = median(fl, reps), h = median(hr, reps);
    printf("round overhead  T=%d  harness %8.1f ns  floor %8.1f ns  ratio %5.2f  (bar <= %.2f: %s)\n",
           threads, h, f, h / f, ROUND_BAR, h / f <= ROUND_BAR ? "met" : "MISSED");
}

/* Rounds with counters on, against the floor and the harness without
 * them, all interleaved in the same run. */
static void report_counters(int threads, const ompb__counter_set *set)
{
    double fl[64], hr[64], hc[64], mo[64], mc[64];
    for (int i = 0; i < reps; i++) {
        fl[i] = floor_round_ns(threads);
        hr[i] = harness_round_ns(threads, NULL, &mo[i]);
        hc[i] = harness_round_ns(threads, set, &mc[i]);
    }
    double f = median(fl, reps), h = median(hr, reps), c = median(hc, reps);
    printf("counters on     T=%d  harness %8.1f ns  floor %8.1f ns  ratio %5.2f  (bar <= %.2f: %s); "
           "without counters %.1f ns\n", threads, c, f, c / f, ROUND_BAR,
           c / f <= ROUND_BAR ? "met" : "MISSED", h);
    printf("makespan        T=%d  counters on %6.1f ns  off %6.1f ns  (one-iteration round, median)\n",
           threads, median(mc, reps), median(mo, reps));
}

/* What one read per round and thread costs by itself. */
static void report_reads(const ompb__counter_set *set)
{
    enum { N = 20000 };
    double gr[64], ru[64];
    ompb__counter_group g;
    if (ompb__counter_group_open(&g, &ompb__counter_ops_system, set, 0, NULL) != 0)
        return;
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = ompb__now_ns();
        for (int k = 0; k < N; k++)
            (void)ompb__counter_group_read(&g);
        gr[i] = (double)(ompb__now_ns() - t0) / N;
        struct rusage u;
        t0 = ompb__now_ns();
        for (int k = 0; k < N; k++)
            (void)getrusage(RUSAGE_THREAD, &u);
        ru[i] = (double)(ompb__now_ns() - t0) / N;
    }
    ompb__counter_group_close(&g);
    printf("per-round reads      perf group read %6.1f ns  getrusage(RUSAGE_THREAD) %6.1f ns  (bare calls, median)\n",
           median(gr, reps), median(ru, reps));
}

static void report_iterations(void)
{
    double hi[64], lo[64];
    for (int i = 0; i < reps; i++) {
        hi[i] = harness_iter_ns();
        lo[i] = hand_loop_ns(iters);
    }
    double h = median(hi, reps), l = median(lo, reps);
    printf("empty iteration T=1  harness %8.3f ns  loop  %8.3f ns  diff  %+5.3f ns (bar <= %.1f: %s)\n",
           h, l, h - l, ITER_BAR_NS, h - l <= ITER_BAR_NS ? "met" : "MISSED");
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--quick") == 0 || strcmp(argv[1], "--test") == 0)) {
        reps = 3;
        rounds = 100;
        iters = 100000;
    } else if (argc > 1) {
        fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
        return 2;
    }
    /* The rounds measured are a benchmark binary's: with the fork guard's
     * watch around each body, as ompbench::main installs it. */
    (void)ompb_set_fork_guard(&ompb_fork_guard_gnu);
    omp_set_dynamic(0);
    printf("ompbench %s overhead (medians of %d repetitions; %d rounds each; libgomp wait policy: %s)\n",
           ompb_version(), reps, rounds, getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "default");
    report_rounds(1);
    report_rounds(2);
    report_iterations();
    ompb__counter_set set;
    ompb_error err = {0};
    if (ompb__counters_parse("task-clock", &set, &err) == 0 &&
        ompb__counters_probe(&ompb__counter_ops_system, &set, &err) == 0) {
        report_counters(1, &set);
        report_counters(2, &set);
        report_reads(&set);
    } else {
        printf("counters: not measured here: %s\n", err.text);
    }
    return 0;
}
