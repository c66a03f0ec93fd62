/* SPDX-License-Identifier: MIT */
/*
 * A small real OpenMP application with region markers: 2-D Jacobi
 * iterations of the heat equation on an N x N plate whose top edge is held
 * at 1 and bottom edge at 0, with insulated (zero-flux) left and right
 * edges. Each iteration is three regions, entered by every thread of one
 * team (the collective form):
 *
 *   sweep     new[i][j] = mean of the four neighbours, interior points
 *   boundary  the insulated edges copy their inner neighbours
 *   residual  sum of squared changes (a reduction); the grids swap after it
 *
 * The program times its own iteration loop (loop_ns, printed with the
 * final residual, and the process's CPU time over it, cpu_ns); the regions' report goes where OMPB_REGIONS_OUTPUT and
 * OMPB_REGIONS_FORMAT say (default: the console table on stderr at exit).
 * With a list of thread counts the whole solve runs once per count, from
 * the same initial plate: each count is its own region entry
 * (region:sweep[t=1], region:sweep[t=2], ...), which `ompbench scaling`
 * reads as a strong-scaling study.
 *
 * Usage: stencil [--n N] [--iterations K] [--threads T[,T...]] [--test]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fork, rmdir */

#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ompbench.h>

#define MAX_RUNS 16

typedef struct options {
    long n, iterations;
    int threads[MAX_RUNS];      /* 0: the OpenMP default */
    int runs;
} options;

/* "1,2,4" into o->threads; false when it is not such a list. */
static bool parse_threads(const char *text, options *o)
{
    o->runs = 0;
    for (const char *p = text; *p && o->runs < MAX_RUNS;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 4096 || (*end && *end != ','))
            return false;
        o->threads[o->runs++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return o->runs > 0 && text[strlen(text) - 1] != ',';
}

/* One line naming what was refused and what is accepted; exit status 2. */
static int usage(const char *argv0, const char *option, const char *value)
{
    fprintf(stderr, "%s: invalid %s%s%s%s (accepted: --n N (4 to 32768), --iterations K "
            "(>= 1), --threads T[,T...] (1 to 4096 each, at most %d), --test)\n", argv0,
            value ? "value '" : "argument '", value ? value : option, value ? "' for " : "'",
            value ? option : "", MAX_RUNS);
    return 2;
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.n = 1024, .iterations = 200, .runs = 1};
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
        bool number = end && end != argv[i + 1] && !*end;
        if (strcmp(argv[i], "--test") == 0) {
            o->n = 64;
            o->iterations = 10;
        } else if (strcmp(argv[i], "--n") == 0 && number && v >= 4 && v <= 1 << 15) {
            o->n = v;
            i++;
        } else if (strcmp(argv[i], "--iterations") == 0 && number && v >= 1) {
            o->iterations = v;
            i++;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc
                   && parse_threads(argv[i + 1], o)) {
            i++;
        } else if (strcmp(argv[i], "--n") == 0 || strcmp(argv[i], "--iterations") == 0
                   || strcmp(argv[i], "--threads") == 0) {
            return usage(argv[0], argv[i], i + 1 < argc ? argv[i + 1] : "(missing)");
        } else {
            return usage(argv[0], argv[i], NULL);
        }
    }
    return 0;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* The plate at rest: hot top edge, cold everything else. */
static void initialize(double *u, long n)
{
    long w = n + 2;
    memset(u, 0, (size_t)(w * w) * sizeof *u);
    for (long j = 0; j < w; j++)
        u[j] = 1.0;
}

/* One solve of o->iterations on a fresh plate with `threads` threads (0:
 * the OpenMP default); prints its line. */
static void solve(const options *o, int threads, double *u, double *v)
{
    long n = o->n, w = n + 2;
    initialize(u, n);
    initialize(v, n);
    if (threads)
        omp_set_num_threads(threads);
    double residual = 0.0;
    int team = 0;
    long last = o->iterations - 1;
    /* The runtime creates its threads at the first parallel region of a
     * width: not part of the loop. */
#pragma omp parallel
    team = omp_get_num_threads();
    double t0 = now_s(), cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    /* Every region ends before the barrier that follows its loop (nowait):
     * a region ended after an implicit barrier would make each thread wait
     * for the slowest inside it, and its imbalance would read ~1.00 whatever
     * the split of the work. The three loops have the same iteration count
     * and schedule(static), so OpenMP gives each thread the same rows in all
     * three: a thread's boundary and residual rows are the sweep rows it
     * wrote itself, and no barrier is needed between them. The one barrier
     * per iteration, before the swap, completes the reduction and every
     * row of v. */
#pragma omp parallel
    {
        for (long it = 0; it < o->iterations; it++) {
            ompb_region_begin("sweep");
#pragma omp for schedule(static) nowait
            for (long i = 1; i <= n; i++)
                for (long j = 1; j <= n; j++)
                    v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j]
                                           + u[i * w + j - 1] + u[i * w + j + 1]);
            ompb_region_end("sweep");

            ompb_region_begin("boundary");
#pragma omp for schedule(static) nowait
            for (long i = 1; i <= n; i++) {
                v[i * w] = v[i * w + 1];
                v[i * w + n + 1] = v[i * w + n];
            }
            ompb_region_end("boundary");

            ompb_region_begin("residual");
#pragma omp for schedule(static) reduction(+ : residual) nowait
            for (long i = 1; i <= n; i++)
                for (long j = 1; j <= n; j++) {
                    double d = v[i * w + j] - u[i * w + j];
                    residual += d * d;
                }
            ompb_region_end("residual");
#pragma omp barrier
            /* The last iteration's residual is the one printed. */
#pragma omp single
            {
                double *t = u;
                u = v;
                v = t;
                if (it < last)
                    residual = 0.0;
            }
        }
    }
    double t1 = now_s(), cpu1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    printf("stencil: n=%ld iterations=%ld threads=%d residual=%.17g loop_ns=%.0f cpu_ns=%.0f\n",
           n, o->iterations, team, residual, (t1 - t0) * 1e9, (cpu1 - cpu0) * 1e9);
}

int main(int argc, char **argv)
{
    options o;
    if (parse(argc, argv, &o) != 0)
        return 2;
    long w = o.n + 2;
    double *u = malloc((size_t)(w * w) * sizeof *u), *v = malloc((size_t)(w * w) * sizeof *v);
    if (!u || !v) {
        fprintf(stderr, "%s: out of memory for a %ld x %ld plate\n", argv[0], o.n, o.n);
        return 1;
    }
    for (int r = 0; r < o.runs; r++)
        solve(&o, o.threads[r], u, v);
    free(u);
    free(v);
    return 0;
}
