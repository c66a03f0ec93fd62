/* SPDX-License-Identifier: MIT */
/*
 * The cost of region markers, against baselines measured in the same run
 * (docs/performance.md, "Region markers"):
 *
 * 1. begin + end per thread at T = 2: every thread of a team of two runs
 *    ompb_region_begin("r"); ompb_region_end("r") back to back, so pairing,
 *    the batched folding into the statistics and the cache traffic between
 *    the two threads are all in the figure; baseline: the same loop with
 *    two clock reads (the two a begin/end pair cannot avoid), and the
 *    same with the markers' two timestamps (lib/core/tsc.h: the TSC where it
 *    can be trusted). Bar: <= 50 ns per pair per thread (issue 23).
 *    In lockstep: the same pairs with the two threads meeting at a
 *    spinning barrier every 64 pairs (as a collective region's team meets
 *    at its work-sharing barriers), against the barriers alone: the fold
 *    then reads the lines the other thread has just written, and the
 *    faster thread waits for the slower, so this is the slowest thread's
 *    cost. Reported, no bar.
 * 2. OMPB_REGIONS=0: the cost of one call that returns at once (one
 *    branch), against an empty loop iteration. Reported, no bar beyond
 *    "a few ns".
 *
 * Blocks of the two kinds alternate and the figures are medians over
 * blocks, so load changes hit both alike.
 *
 * Figures are each thread's CPU time per iteration (CLOCK_THREAD_CPUTIME_ID
 * around a block), so time the CPU spent on other processes of the shared
 * machine is not in them. The two threads run their blocks side by side,
 * without a barrier inside a block.
 *
 * Usage: region_overhead [--quick | --steady N | --series N | --fold T [--quick]]
 *   --quick     few repetitions (the CTest smoke)
 *   --fold T    thread 0's folding alone, for a team of T threads (1 to
 *               64): one thread writes instances into a group's rings (the
 *               threads' PUs distinct and stable, busy times of 30-93 ns,
 *               start skews of 0-15 ns) and folds them 128 at a time, as
 *               thread 0 of a hot region does; against the same writes
 *               with nothing folded. One thread, so under callgrind its
 *               instruction counts depend on no scheduling (the T=2 loop's
 *               do: there the two threads share one CPU, and most
 *               instances count as two threads on one PU)
 *   --series N  N blocks in a row, one line each: the pair at T = 1, the
 *               two timestamps, two clock reads and a compute loop of the
 *               same length (8 xorshift steps and a store into an L1-sized
 *               table): to see whether a slow figure is the markers' path
 *               alone or the whole CPU (docs/performance.md)
 *   --steady N  only N begin/end pairs per thread at T = 2 after a
 *               warm-up, between two marker lines on stderr, then exit
 *               without a report: for counting system calls
 *               (tests/integration/region_syscalls.sh)
 */
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ompbench.h>

#include "core/clock.h"
#include "regions/region.h"
#include "core/tsc.h"
#include "core/pu.h"

#define PAIR_BAR_NS 50.0

static int reps = 21;
static long iters = 200000;

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

typedef enum { CLOCKS, STAMPS, PAIRS, EMPTY, OFF, LOCKSTEP, BARRIER, MIX } kind;

/* MIX's table: a working set the size of an L1 data cache. */
static uint64_t mix_table[4096];

/* Pairs between two spinning barriers, in lockstep (LOCKSTEP, BARRIER). */
#define LOCKSTEP_EVERY 64

static void spin_barrier(void);

/* CPU time of the calling thread: what the loop cost this thread,
 * without the time another process had the CPU (the machine is shared). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One thread's loop of iters iterations of kind k; its CPU time per
 * iteration. Called by every thread of the team. */
static double loop_ns(kind k)
{
    uint64_t sink = 0, t0 = thread_cpu_ns();
    for (long i = 0; i < iters; i++) {
        switch (k) {
        case CLOCKS: {
            uint64_t a = ompb__now_ns();
            uint64_t b = ompb__now_ns();
            sink += b - a;
            break;
        }
        case STAMPS: {
            uint64_t a = ompb__stamp_ns();
            uint64_t b = ompb__stamp_end_ns();
            sink += b - a;
            break;
        }
        case PAIRS:
        case OFF:
            ompb_region_begin("r");
            ompb_region_end("r");
            break;
        case LOCKSTEP:
            if (i % LOCKSTEP_EVERY == 0)
                spin_barrier();
            ompb_region_begin("lockstep");
            ompb_region_end("lockstep");
            break;
        case MIX: {
            uint64_t x = sink + (uint64_t)i + 1;
            for (int j = 0; j < 8; j++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                mix_table[x & 4095] += x;
            }
            sink += x;
            break;
        }
        case BARRIER:
            if (i % LOCKSTEP_EVERY == 0)
                spin_barrier();
            __asm__ volatile("");
            break;
        default:
            __asm__ volatile("");
        }
    }
    double per = (double)(thread_cpu_ns() - t0) / (double)iters;
    ompb_black_box(sink);
    return per;
}

/* The slowest thread of the last team_ns call. */
static double slowest;
/* The fewest threads a T = 2 pairs block got from the runtime. */
static int pairs_team = 2;

/* Mean over a team of T threads of each thread's CPU time per iteration;
 * the slowest thread's in `slowest`. NAN for the barrier kinds when the
 * runtime gave the team another size (their barrier waits for two). */
static double team_ns(kind k, int T)
{
    double sum = 0, worst = 0;
    int got = 0;
    bool barrier = k == LOCKSTEP || k == BARRIER;
#pragma omp parallel num_threads(T) reduction(+ : sum, got) reduction(max : worst)
    if (!barrier || omp_get_num_threads() == 2) {
        double per = loop_ns(k);
        sum += per;
        worst = per;
        got = 1;
    }
    slowest = worst;
    if (k == PAIRS && T == 2 && got < pairs_team)
        pairs_team = got;
    return got ? sum / got : NAN;
}

static double clocks_ns(int T)
{
    return team_ns(CLOCKS, T);
}

static double stamps_ns(int T)
{
    return team_ns(STAMPS, T);
}

static double pairs_ns(int T)
{
    return team_ns(PAIRS, T);
}

/* The same, for the slowest thread of the team. */
static double pairs_slowest_ns(int T, double *mean)
{
    *mean = team_ns(PAIRS, T);
    return slowest;
}

static double empty_ns(void)
{
    return team_ns(EMPTY, 1);
}

static double off_call_ns(void)
{
    ompb__regions_set_enabled(false);
    double per = team_ns(OFF, 1);
    ompb__regions_set_enabled(true);
    return per / 2; /* two calls per iteration */
}

/* Marks the steady phase in a system-call trace: one write(2) each. */
static void mark(const char *text)
{
    ssize_t w = write(STDERR_FILENO, text, strlen(text));
    (void)w;
}

/* A barrier of two threads that only spins: libgomp's barrier makes a
 * futex call each time, which would hide ours in a system-call count. */
static _Atomic unsigned spin_arrived, spin_generation;

static void spin_barrier(void)
{
    unsigned gen = atomic_load(&spin_generation);
    if (atomic_fetch_add(&spin_arrived, 1) == 1) {
        atomic_store(&spin_arrived, 0);
        atomic_fetch_add(&spin_generation, 1);
        return;
    }
    while (atomic_load(&spin_generation) == gen)
        ompb__region_cpu_relax();
}

static void steady_pairs(long n)
{
    for (long i = 0; i < n; i++) {
        if (i % 32 == 0)
            spin_barrier();
        ompb_region_begin("r");
        ompb_region_end("r");
    }
}

/* After a warm-up (first use: allocations happen there), n pairs per
 * thread at T = 2 between two marks, the team meeting every 32 pairs at a
 * spinning barrier (a collective region's team meets at its work-sharing
 * barriers; these make no system call). */
static void steady(long n)
{
    bool two = true;
#pragma omp parallel num_threads(2)
    if (omp_get_num_threads() != 2) {
        two = false; /* the spinning barrier waits for two */
    } else {
        steady_pairs(100000);
        spin_barrier();
        if (omp_get_thread_num() == 0)
            mark("region_overhead: steady phase begins\n");
        spin_barrier();
        steady_pairs(n);
        spin_barrier();
        if (omp_get_thread_num() == 0)
            mark("region_overhead: steady phase ends\n");
        spin_barrier();
    }
    if (!two) {
        fprintf(stderr, "region_overhead: --steady needs a team of 2 threads, the runtime gave "
                "fewer\n");
        exit(2);
    }
    printf("steady: %ld begin/end pairs per thread at T=2\n", n);
    ompb__regions_reset(); /* nothing to report at exit */
}

/* --fold: instances of a team of T written by this thread into g's rings,
 * folded 128 at a time when fold is set, else only marked folded; the
 * CPU time per instance. */
static double fold_block(ompb__region_group *g, int T, bool fold, uint64_t *t0, uint64_t *x)
{
    uint64_t c0 = thread_cpu_ns();
    for (long i = 0; i < iters; i++) {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        for (int t = 0; t < T; t++) {
            ompb__region_lane *ln = &g->lanes[t];
            uint64_t r = *x >> (t % 8 * 8);
            ln->ring[ln->count & ln->mask] =
                ompb__region_pack(*t0 + (r & 15), *t0 + 30 + (r >> 58), t);
            atomic_store_explicit(&ln->published, ++ln->count, memory_order_release);
        }
        *t0 += 200;
        if (i % 128 == 127) {
            if (fold)
                ompb__region_group_reduce_all(g);
            else
                atomic_store_explicit(&g->reduced, g->lanes[0].count, memory_order_release);
        }
    }
    return (double)(thread_cpu_ns() - c0) / (double)iters;
}

static int fold_only(int T)
{
    static ompb__region r = {.name = "fold", .display = "fold", .file = ""};
    ompb__region_entry *e = ompb__region_entry_new(&r, T, 0);
    ompb__region_group *g = e ? ompb__region_group_new(e, T) : NULL;
    bool ok = g != NULL;
    for (int t = 0; ok && t < T; t++) {
        ok = ompb__region_lane_make_room(g, &g->lanes[t]);
        if (ok)
            ompb__region_lane_heat(g, &g->lanes[t]);
    }
    if (!ok) {
        fprintf(stderr, "region_overhead: out of memory for a team of %d\n", T);
        if (g)
            ompb__region_group_free(g);
        if (e)
            ompb__region_entry_free(e);
        return 1;
    }
    uint64_t t0 = 1000000, x = 88172645463325252ull;
    double both[64], alone[64];
    fold_block(g, T, true, &t0, &x); /* past the kept maximum: the steady state */
    for (int i = 0; i < reps; i++) {
        both[i] = fold_block(g, T, true, &t0, &x);
        alone[i] = fold_block(g, T, false, &t0, &x);
    }
    double b = median(both, reps), a = median(alone, reps);
    printf("fold T=%d: %.1f ns per instance folded (writing and folding %.1f ns, writing alone "
           "%.1f ns; medians of %d blocks of %ld instances; %llu instances folded)\n", T,
           b - a, b, a, reps, iters, (unsigned long long)e->acc.n);
    ompb__region_group_free(g);
    ompb__region_entry_free(e);
    return 0;
}

/* N blocks in a row at T = 1, one line each (--series). */
static void series(long n)
{
    for (long b = 0; b < n; b++) {
        double p = team_ns(PAIRS, 1), s = team_ns(STAMPS, 1), c = team_ns(CLOCKS, 1);
        double m = team_ns(MIX, 1);
        printf("block %3ld: pair T=1 %5.1f ns  two stamps %5.1f ns  two clock reads %5.1f ns  "
               "compute loop %5.1f ns\n", b + 1, p, s, c, m);
        fflush(stdout);
    }
    ompb__regions_reset();
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--steady") == 0) {
        steady(atol(argv[2]));
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "--series") == 0) {
        char *end;
        long n = strtol(argv[2], &end, 10);
        if (end == argv[2] || *end || n < 1 || n > 100000) {
            fprintf(stderr, "%s: --series takes a number of blocks from 1 to 100000, not '%s'\n",
                    argv[0], argv[2]);
            return 2;
        }
        omp_set_dynamic(0);
        series(n);
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "--fold") == 0) {
        char *end;
        long T = strtol(argv[2], &end, 10);
        if (end == argv[2] || *end || T < 1 || T > 64) {
            fprintf(stderr, "%s: --fold takes a team size from 1 to 64, not '%s'\n", argv[0],
                    argv[2]);
            return 2;
        }
        if (argc > 4 || (argc > 3 && strcmp(argv[3], "--quick") != 0)) {
            fprintf(stderr, "%s: --fold T takes only --quick after it, not '%s'\n", argv[0],
                    strcmp(argv[3], "--quick") != 0 ? argv[3] : argv[4]);
            return 2;
        }
        if (argc > 3)
            reps = 3;
        return fold_only((int)T);
    }
    if (argc > 1 && (strcmp(argv[1], "--quick") == 0 || strcmp(argv[1], "--test") == 0)) {
        reps = 3;
        iters = 20000;
    } else if (argc > 1) {
        fprintf(stderr, "usage: %s [--quick | --steady N | --series N | --fold T [--quick]]\n",
                argv[0]);
        return 2;
    }
    omp_set_dynamic(0);
    double c[64], s[64], p[64], w[64], c1[64], p1[64], e[64], o[64], l[64], b[64];
    pairs_ns(2); /* first use, outside the figures */
    pairs_ns(1);
    team_ns(LOCKSTEP, 2);
    for (int i = 0; i < reps; i++) {
        c[i] = clocks_ns(2);
        s[i] = stamps_ns(2);
        w[i] = pairs_slowest_ns(2, &p[i]);
        c1[i] = clocks_ns(1);
        p1[i] = pairs_ns(1);
        e[i] = empty_ns();
        o[i] = off_call_ns();
        l[i] = team_ns(LOCKSTEP, 2);
        b[i] = team_ns(BARRIER, 2);
    }
    double lm = median(l, reps), bm = median(b, reps);
    double cm = median(c, reps), pm = median(p, reps), em = median(e, reps), om = median(o, reps);
    double c1m = median(c1, reps), p1m = median(p1, reps), wm = median(w, reps);
    double sm = median(s, reps);
    char source[256];
    ompb__tsc_describe(source, sizeof source);
    printf("ompbench %s region markers (medians of %d blocks of %ld iterations per thread)\n",
           ompb_version(), reps, iters);
    printf("marker clock: %s\n", source);
    ompb__pu_describe(source, sizeof source);
    printf("marker PU: %s\n", source);
    if (pairs_team < 2) {
        printf("begin+end T=2   n/a: the runtime gave the team %d thread(s)\n", pairs_team);
    } else {
        printf("begin+end T=2   %7.1f ns per pair per thread  (two clock reads %5.1f ns, ratio "
               "%.2f)  bar <= %.0f ns: %s\n", pm, cm, pm / cm, PAIR_BAR_NS,
               pm <= PAIR_BAR_NS ? "met" : "MISSED");
        printf("  slowest thread %6.1f ns per pair (thread 0 folds the team's instances)\n", wm);
        printf("  the markers' two timestamps %5.1f ns; the markers' own share beyond them "
               "%5.1f ns\n", sm, pm - sm);
    }
    if (isnan(lm) || isnan(bm))
        printf("  in lockstep    n/a (the runtime did not give a team of 2 threads)\n");
    else
        printf("  in lockstep    %6.1f ns per pair (a spinning barrier every %d pairs, its %.1f "
               "ns per pair subtracted)\n", lm - bm, LOCKSTEP_EVERY, bm);
    printf("begin+end T=1   %7.1f ns per pair            (two clock reads %5.1f ns)\n", p1m,
           c1m);
    printf("OMPB_REGIONS=0  %7.2f ns per call  (empty loop iteration %.2f ns)\n", om, em);
    ompb__regions_reset();
    return 0;
}
