/* SPDX-License-Identifier: MIT */
/*
 * The cost of OpenMP constructs at T threads, measured the ompbench way:
 * each construct is a caller-team benchmark run by the round engine with a
 * real run's defaults (calibrated rounds of >= 1 ms, 100 ms warm-up, 100
 * rounds, the default pin plan), reported as its median time per
 * iteration. Next to each, in the same process, the EPCC syncbench method
 * by hand: time a loop of n constructs (n = the sample size the engine
 * chose), divide by n, median over as many loops as the engine has rounds,
 * with the caller bound where the plan puts thread 0 and the runtime's
 * threads left where the engine placed them. The set is syncbench's:
 * PARALLEL, PARALLEL FOR, BARRIER, SINGLE, CRITICAL, REDUCTION; bodies are
 * empty unless --delay-ns asks for a delay in each (syncbench's default is
 * 100 ns). The two are run alternately, --reps times, and the ratio
 * ompbench / reference is the median of the per-repetition ratios, so load
 * that changes during the run hits both. Bar: PARALLEL within 1.25x.
 *
 * Last, the fork guard's cost per fork: an empty region forked through
 * libgomp's own GOMP_parallel (dlsym RTLD_NEXT), through libompbench's
 * entry point (what every region in this process calls), through it
 * while the thread is watched (what a caller team's regions pay), and
 * while the region markers observe it (what each fork of a thread that
 * began a region outside teams pays: the wrapped body and the call of
 * ompb__region_team_forked after the join, here with no region open).
 *
 * Usage: openmp_constructs [--test] [--threads T] [--reps K] [--delay-ns D]
 * Figures and how to read them: docs/performance.md.
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <ompbench.h>

#include "core/clock.h"
#include "engine/fork_guard.h"
#include "regions/region.h"
#include "placement/pin_plan.h"
#include "report/report.h"
#include "engine/round.h"
#include "placement/topology.h"

#define PARALLEL_BAR 1.25
#define MAX_REPS 64
#define MAX_ROUNDS 1000
#define FORK_SAMPLES 500    /* forks per timed loop of the guard's cost */

static int threads = 2, reps = 5;
static uint64_t rounds = 100, min_round_ns = 1000000, warmup_ns = 100000000;
static uint64_t budget_ns = 5000000000ull;
static double delay_ns;
static uint64_t delay_iters;   /* spins of delay() for delay_ns, 0: no delay */

/* ---- the constructs --------------------------------------------------------- */

__attribute__((noinline)) static void delay(void)
{
    for (uint64_t i = 0; i < delay_iters; i++)
        __asm__ volatile("");
}

/* One construct per call, or n constructs in one region: syncbench's shapes. */
__attribute__((noinline)) static void parallel_once(void)
{
#pragma omp parallel
    delay();
}

__attribute__((noinline)) static void parallel_for_once(void)
{
    int n = omp_get_max_threads();
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        delay();
}

static int reduction_sink;

__attribute__((noinline)) static void reduction_once(void)
{
    int x = 0;
#pragma omp parallel reduction(+ : x)
    {
        delay();
        x += 1;
    }
    reduction_sink += x;
}

__attribute__((noinline)) static void barriers(uint64_t n)
{
#pragma omp parallel
    for (uint64_t j = 0; j < n; j++) {
        delay();
#pragma omp barrier
    }
}

__attribute__((noinline)) static void singles(uint64_t n)
{
#pragma omp parallel
    for (uint64_t j = 0; j < n; j++) {
#pragma omp single
        delay();
    }
}

/* n critical sections in all, shared out as syncbench does. */
__attribute__((noinline)) static void criticals(uint64_t n)
{
#pragma omp parallel
    {
        uint64_t T = (uint64_t)omp_get_num_threads(), t = (uint64_t)omp_get_thread_num();
        uint64_t mine = n / T + (t < n % T);
        for (uint64_t j = 0; j < mine; j++) {
#pragma omp critical(ompb_constructs)
            delay();
        }
    }
}

static void loop_of(void (*once)(void), uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        once();
}

static void run_parallel(uint64_t n) { loop_of(parallel_once, n); }
static void run_parallel_for(uint64_t n) { loop_of(parallel_for_once, n); }
static void run_reduction(uint64_t n) { loop_of(reduction_once, n); }

/* The ompbench bodies: one construct per iteration, or (for the constructs
 * syncbench times inside one region) the round's n iterations in one
 * region, with the hand-written loop API. */
static void bench_parallel(ompb_state *s)
{
    OMPB_ITER(s) {
        parallel_once();
    }
}

static void bench_parallel_for(ompb_state *s)
{
    OMPB_ITER(s) {
        parallel_for_once();
    }
}

static void bench_reduction(ompb_state *s)
{
    OMPB_ITER(s) {
        reduction_once();
    }
}

static void bench_in_region(ompb_state *s, void (*run)(uint64_t))
{
    uint64_t n = ompb_iter_begin(s);
    run(n);
    ompb_iter_end(s);
}

static void bench_barrier(ompb_state *s) { bench_in_region(s, barriers); }
static void bench_single(ompb_state *s) { bench_in_region(s, singles); }
static void bench_critical(ompb_state *s) { bench_in_region(s, criticals); }

typedef struct construct {
    const char *name;
    void (*reference)(uint64_t n);
    ompb_benchmark bench;
} construct;

#define CONSTRUCT(label, ref, body)                                                   \
    {label, ref, {.name = label, .file = __FILE__, .fn = body, .team = OMPB_TEAM_CALLER}}

static construct constructs[] = {
    CONSTRUCT("PARALLEL", run_parallel, bench_parallel),
    CONSTRUCT("PARALLEL_FOR", run_parallel_for, bench_parallel_for),
    CONSTRUCT("BARRIER", barriers, bench_barrier),
    CONSTRUCT("SINGLE", singles, bench_single),
    CONSTRUCT("CRITICAL", criticals, bench_critical),
    CONSTRUCT("REDUCTION", run_reduction, bench_reduction),
};
#define N_CONSTRUCTS (sizeof constructs / sizeof constructs[0])

/* ---- measuring --------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The ompbench way: median ns per iteration; *n the sample size chosen. */
static double ompbench_ns(construct *c, const ompb__pin_plan *plan, uint64_t *n)
{
    ompb__instance inst;
    memset(&inst, 0, sizeof inst);
    inst.bench = &c->bench;
    inst.threads = threads;
    inst.thread_variant = true;
    snprintf(inst.name, sizeof inst.name, "%s[t=%d]", c->name, threads);
    ompb__sampling sp = {.mode = OMPB__SAMPLING_MEASURE, .threads = threads, .rounds = rounds,
                         .min_round_ns = min_round_ns, .warmup_ns = warmup_ns,
                         .budget_ns = budget_ns};
    ompb__result res;
    memset(&res, 0, sizeof res);
    ompb__engine_env env = ompb__engine_env_default();
    if (ompb__round_run(&env, &inst, &sp, plan, &res.rec) != 0 || ompb__result_analyze(&res) != 0) {
        fprintf(stderr, "openmp_constructs: %s failed: %s\n", inst.name, res.rec.error);
        exit(1);
    }
    for (size_t w = 0; w < res.rec.n_warnings; w++)
        fprintf(stderr, "openmp_constructs: warning: %s\n", res.rec.warnings[w]);
    *n = res.rec.sample_size;
    double med = res.stats.median;
    ompb__record_free(&res.rec);
    return med;
}

/* syncbench's way: loops of n constructs, the caller where the plan puts
 * thread 0 (the runtime's other threads are still where the engine put
 * them); median ns per construct. */
static double reference_ns(const construct *c, const ompb__pin_plan *plan, uint64_t n)
{
    static double per[MAX_ROUNDS];
    cpu_set_t saved;
    bool bound = plan->binder == OMPB__BINDER_OURS && sched_getaffinity(0, sizeof saved, &saved) == 0;
    if (bound)
        bound = ompb__pin_plan_bind_self(plan, 0) == 0;
    omp_set_num_threads(threads);
    for (uint64_t r = 0; r < rounds; r++) {
        uint64_t t0 = ompb__now_ns();
        c->reference(n);
        per[r] = (double)(ompb__now_ns() - t0) / (double)n;
    }
    if (bound)
        sched_setaffinity(0, sizeof saved, &saved);
    return median(per, (size_t)rounds);
}

/* The delay of the bodies, timed alone the same way (syncbench subtracts it). */
static double delay_ref_ns(uint64_t n)
{
    static double per[MAX_ROUNDS];
    for (uint64_t r = 0; r < rounds; r++) {
        uint64_t t0 = ompb__now_ns();
        for (uint64_t i = 0; i < n; i++)
            delay();
        per[r] = (double)(ompb__now_ns() - t0) / (double)n;
    }
    return median(per, (size_t)rounds);
}

static void calibrate_delay(void)
{
    if (delay_ns <= 0)
        return;
    delay_iters = 1000;
    uint64_t t0 = ompb__now_ns();
    for (int i = 0; i < 1000; i++)
        delay();
    double per_spin = (double)(ompb__now_ns() - t0) / (1000.0 * 1000.0);
    delay_iters = (uint64_t)(delay_ns / (per_spin > 0 ? per_spin : 1));
}

static double median_copy(const double *v, int n)
{
    double tmp[MAX_REPS];
    memcpy(tmp, v, (size_t)n * sizeof *v);
    return median(tmp, (size_t)n);
}

static void report_constructs(const ompb__pin_plan *plan)
{
    static double omp[N_CONSTRUCTS][MAX_REPS], ref[N_CONSTRUCTS][MAX_REPS];
    static double ratio[N_CONSTRUCTS][MAX_REPS], dref[MAX_REPS];
    for (int k = 0; k < reps; k++) {
        for (size_t i = 0; i < N_CONSTRUCTS; i++) {
            uint64_t n = 1;
            omp[i][k] = ompbench_ns(&constructs[i], plan, &n);
            ref[i][k] = reference_ns(&constructs[i], plan, n);
            ratio[i][k] = omp[i][k] / ref[i][k];
            if (i == 0)
                dref[k] = delay_ref_ns(n);
        }
    }
    printf("%-13s %12s %12s %7s   %s\n", "construct", "ompbench", "reference", "ratio",
           "ratio in each repetition");
    for (size_t i = 0; i < N_CONSTRUCTS; i++) {
        double q = median_copy(ratio[i], reps);
        printf("%-13s %9.1f ns %9.1f ns %7.3f  ", constructs[i].name, median_copy(omp[i], reps),
               median_copy(ref[i], reps), q);
        for (int k = 0; k < reps; k++)
            printf(" %.3f", ratio[i][k]);
        if (i == 0)
            printf("   (bar <= %.2f: %s)", PARALLEL_BAR, q <= PARALLEL_BAR ? "met" : "MISSED");
        printf("\n");
    }
    if (delay_iters)
        printf("delay alone   %9.1f ns (syncbench subtracts it: overhead = time - delay)\n",
               median_copy(dref, reps));
}

/* ---- the fork guard's cost ------------------------------------------------- */

typedef void (*gomp_parallel_fn)(void (*)(void *), void *, unsigned, unsigned);
/* The fork guard's entry point (lib/main/fork_guard_gnu.c, ompbench::fork_guard),
 * declared by no header. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

static void empty_region(void *data)
{
    (void)data;
}

static double forks_ns(gomp_parallel_fn fork, ompb__fork_watch *watch, bool observed)
{
    ompb__fork_watch_set(watch);
    if (observed)
        ompb_fork_guard_gnu.observe(ompb__region_team_forked);
    uint64_t t0 = ompb__now_ns();
    for (int i = 0; i < FORK_SAMPLES; i++)
        fork(empty_region, NULL, 0, 0);
    double per = (double)(ompb__now_ns() - t0) / FORK_SAMPLES;
    if (observed)
        ompb_fork_guard_gnu.observe(NULL);
    ompb__fork_watch_set(NULL);
    return per;
}

/* Alternating loops of FORK_SAMPLES empty regions by each path, the caller
 * and the runtime's threads placed as for the constructs. The differences
 * are medians of the differences within each round (three loops back to
 * back), so load that changes between rounds cancels out. */
static void report_guard(const ompb__pin_plan *plan)
{
    static double direct[MAX_ROUNDS], guarded[MAX_ROUNDS], watched[MAX_ROUNDS];
    static double observed[MAX_ROUNDS];
    static double d_guarded[MAX_ROUNDS], d_watched[MAX_ROUNDS], d_observed[MAX_ROUNDS];
    void *p = dlsym(RTLD_NEXT, "GOMP_parallel");
    gomp_parallel_fn runtime, ours = GOMP_parallel;
    if (!p) {
        printf("fork guard: the runtime's GOMP_parallel was not found; not measured\n");
        return;
    }
    memcpy(&runtime, &p, sizeof runtime);
    cpu_set_t saved;
    bool bound = plan->binder == OMPB__BINDER_OURS && sched_getaffinity(0, sizeof saved, &saved) == 0
                 && ompb__pin_plan_bind_self(plan, 0) == 0;
    omp_set_num_threads(threads);
    ompb__fork_watch w;
    memset(&w, 0, sizeof w);
    w.width = (unsigned)threads;
    for (uint64_t r = 0; r < rounds; r++) {
        direct[r] = forks_ns(runtime, NULL, false);
        guarded[r] = forks_ns(ours, NULL, false);
        watched[r] = forks_ns(ours, &w, false);
        observed[r] = forks_ns(ours, NULL, true);
        d_guarded[r] = guarded[r] - direct[r];
        d_watched[r] = watched[r] - direct[r];
        d_observed[r] = observed[r] - direct[r];
    }
    if (bound)
        sched_setaffinity(0, sizeof saved, &saved);
    printf("fork guard    empty region at T=%d: libgomp's GOMP_parallel %.1f ns; through the "
           "guard %+.1f ns, watched %+.1f ns, observed %+.1f ns (medians of %llu paired "
           "loops of %d forks)\n",
           threads, median(direct, (size_t)rounds), median(d_guarded, (size_t)rounds),
           median(d_watched, (size_t)rounds), median(d_observed, (size_t)rounds),
           (unsigned long long)rounds, FORK_SAMPLES);
}

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--test] [--threads T (1-64)] [--reps K (1-%d)] "
            "[--delay-ns D (0-100000)]\n", argv0, MAX_REPS);
    return 2;
}

/* A whole number in [lo, hi], or -1. */
static long number(const char *text, long lo, long hi)
{
    char *end;
    long v = text ? strtol(text, &end, 10) : -1;
    return text && *text && !*end && v >= lo && v <= hi ? v : -1;
}

static int parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n = 0;
        if (strcmp(a, "--test") == 0 || strcmp(a, "--quick") == 0) {
            reps = 1;
            rounds = 5;
            min_round_ns = 100000;
            warmup_ns = 0;
            continue;
        }
        if (strcmp(a, "--threads") == 0 && (n = number(v, 1, 64)) > 0)
            threads = (int)n;
        else if (strcmp(a, "--reps") == 0 && (n = number(v, 1, MAX_REPS)) > 0)
            reps = (int)n;
        else if (strcmp(a, "--delay-ns") == 0 && (n = number(v, 0, 100000)) >= 0)
            delay_ns = (double)n;
        else
            return -1;
        i++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (parse(argc, argv) != 0)
        return usage(argv[0]);
    ompb__topology *topo = NULL;
    ompb__pin_plan *plan = NULL;
    ompb_error err = {0};
    if (ompb__topology_open(&topo, &err) != 0
        || ompb__pin_plan_new(topo, NULL, threads, &plan, &err) != 0) {
        fprintf(stderr, "openmp_constructs: %s\n", err.text);
        return 1;
    }
    /* As a benchmark binary's main() does (ompbench::main). */
    (void)ompb_set_fork_guard(&ompb_fork_guard_gnu);
    calibrate_delay();
    double load[3] = {0};
    FILE *la = fopen("/proc/loadavg", "r");
    if (!la || fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
        load[0] = -1;
    if (la)
        fclose(la);
    printf("ompbench %s OpenMP constructs at T=%d, caller teams vs syncbench's method "
           "(medians of %d alternating repetitions, %llu rounds each; delay %.0f ns; "
           "pin %s; fork guard sees %s; load %.2f)\n", ompb_version(), threads, reps,
           (unsigned long long)rounds, delay_ns, plan->policy,
           ompb__fork_coverage_name(ompb__fork_guard_coverage()), load[0]);
    report_constructs(plan);
    report_guard(plan);
    ompb__pin_plan_free(plan);
    ompb__topology_close(topo);
    return 0;
}
