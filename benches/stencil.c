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
 *   residual  sum of squared changes (a reduction), then the grids swap
 *
 * The program times its own iteration loop (loop_ns, printed with the
 * final residual); the regions' report goes where OMPB_REGIONS_OUTPUT and
 * OMPB_REGIONS_FORMAT say (default: the console table on stderr at exit).
 *
 * Usage: stencil [--n N] [--iterations K] [--threads T] [--test]
 */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ompbench.h>

typedef struct options {
    long n, iterations;
    int threads;
} options;

static int usage(const char *argv0, const char *bad)
{
    fprintf(stderr, "%s: invalid argument '%s' (accepted: --n N (>= 4), --iterations K (>= 1), "
            "--threads T (>= 1), --test)\n", argv0, bad);
    return 2;
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.n = 1024, .iterations = 200, .threads = 0};
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
        } else if (strcmp(argv[i], "--threads") == 0 && number && v >= 1 && v <= 4096) {
            o->threads = (int)v;
            i++;
        } else {
            return usage(argv[0], argv[i]);
        }
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The plate at rest: hot top edge, cold everything else. */
static void initialize(double *u, long n)
{
    long w = n + 2;
    memset(u, 0, (size_t)(w * w) * sizeof *u);
    for (long j = 0; j < w; j++)
        u[j] = 1.0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse(argc, argv, &o) != 0)
        return 2;
    long n = o.n, w = n + 2;
    double *u = malloc((size_t)(w * w) * sizeof *u), *v = malloc((size_t)(w * w) * sizeof *v);
    if (!u || !v) {
        fprintf(stderr, "%s: out of memory for a %ld x %ld plate\n", argv[0], n, n);
        return 1;
    }
    initialize(u, n);
    initialize(v, n);
    if (o.threads)
        omp_set_num_threads(o.threads);
    double residual = 0.0;
    int team = 0;
    /* The runtime creates its threads at the first parallel region: not
     * part of the loop. */
#pragma omp parallel
    team = omp_get_num_threads();
    double t0 = now_s();
#pragma omp parallel
    {
#pragma omp single
        team = omp_get_num_threads();
        for (long it = 0; it < o.iterations; it++) {
            ompb_region_begin("sweep");
#pragma omp for schedule(static)
            for (long i = 1; i <= n; i++)
                for (long j = 1; j <= n; j++)
                    v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j]
                                           + u[i * w + j - 1] + u[i * w + j + 1]);
            ompb_region_end("sweep");

            ompb_region_begin("boundary");
#pragma omp for schedule(static)
            for (long i = 1; i <= n; i++) {
                v[i * w] = v[i * w + 1];
                v[i * w + n + 1] = v[i * w + n];
            }
            ompb_region_end("boundary");

            ompb_region_begin("residual");
#pragma omp single
            residual = 0.0;
#pragma omp for schedule(static) reduction(+ : residual)
            for (long i = 1; i <= n; i++)
                for (long j = 1; j <= n; j++) {
                    double d = v[i * w + j] - u[i * w + j];
                    residual += d * d;
                }
#pragma omp single
            {
                double *t = u;
                u = v;
                v = t;
            }
            ompb_region_end("residual");
        }
    }
    double t1 = now_s();
    printf("stencil: n=%ld iterations=%ld threads=%d residual=%.17g loop_ns=%.0f\n", n,
           o.iterations, team, residual, (t1 - t0) * 1e9);
    free(u);
    free(v);
    return 0;
}
