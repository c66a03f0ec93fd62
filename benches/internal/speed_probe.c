/* SPDX-License-Identifier: MIT */
/*
 * Can a short probe between rounds see the host slowing the vCPU?
 * (docs/performance.md, "The example suite, quiet"). One thread, bound to
 * PU 0, alternates three timed pieces for SECONDS: a dependent chain of
 * multiply-adds (latency-bound), four independent chains of integer steps
 * (throughput-bound, as bodies are) and a "round" of a recursive body
 * (fib(23), ~70-100 us). It prints, per band of the round's slowdown
 * against its 2nd percentile, how slow each probe was then (median ratio
 * to its own 2nd percentile), how often the throughput probe exceeded 1.25
 * in slow and in fast rounds, and how long the slow stretches lasted.
 *
 * Usage: speed_probe [SECONDS [PU]]   (default 8 s on PU 0; --test: 0.2 s)
 */
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

#define MAX_SAMPLES 2000000

__attribute__((noinline)) static uint64_t dependent_chain(uint64_t x)
{
    for (int i = 0; i < 1000; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

__attribute__((noinline)) static uint64_t independent_chains(uint64_t seed)
{
    uint64_t a = seed, b = seed ^ 0x9e3779b97f4a7c15u, c = seed + 7, d = seed * 3;
    for (uint64_t i = 0; i < 1000; i++) {
        a += i;
        b ^= a;
        c += b >> 1;
        d += c;
        __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
    }
    return a + b + c + d;
}

__attribute__((noinline)) static uint64_t fib(uint64_t n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p-quantile (0..1) of v[0..n), by sorting a copy. */
static double quantile(const double *v, size_t n, double p)
{
    double *c = malloc(n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double q = c[(size_t)(p * (double)(n - 1))];
    free(c);
    return q;
}

int main(int argc, char **argv)
{
    bool test = argc > 1 && strcmp(argv[1], "--test") == 0;
    double seconds = test ? 0.2 : argc > 1 ? atof(argv[1]) : 8.0;
    int pu = !test && argc > 2 ? atoi(argv[2]) : 0;
    if (!(seconds > 0.0 && seconds <= 600.0) || pu < 0 || pu >= CPU_SETSIZE) {
        fprintf(stderr, "speed_probe: invalid arguments (accepted: SECONDS in (0, 600], "
                        "a PU number; or --test)\n");
        return 2;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(pu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        fprintf(stderr, "speed_probe: PU %d not available; running unbound\n", pu);
    double *chain = malloc(MAX_SAMPLES * sizeof *chain);
    double *indep = malloc(MAX_SAMPLES * sizeof *indep);
    double *round = malloc(MAX_SAMPLES * sizeof *round);
    if (!chain || !indep || !round) {
        fprintf(stderr, "speed_probe: out of memory\n");
        return 1;
    }
    volatile uint64_t sink = 0;
    size_t n = 0;
    uint64_t end = ompb__now_ns() + (uint64_t)(seconds * 1e9);
    while (n < MAX_SAMPLES) {
        uint64_t t0 = ompb__now_ns();
        sink = dependent_chain(t0);
        uint64_t t1 = ompb__now_ns();
        sink = independent_chains(t1);
        uint64_t t2 = ompb__now_ns();
        sink = fib(23);
        uint64_t t3 = ompb__now_ns();
        chain[n] = (double)(t1 - t0);
        indep[n] = (double)(t2 - t1);
        round[n] = (double)(t3 - t2);
        n++;
        if (t3 >= end)
            break;
    }
    (void)sink;
    double c0 = quantile(chain, n, 0.02), i0 = quantile(indep, n, 0.02);
    double r0 = quantile(round, n, 0.02);
    printf("%zu rounds on PU %d; 2nd percentiles: round %.0f ns, dependent chain %.0f ns, "
           "independent chains %.0f ns\n", n, pu, r0, c0, i0);
    static const double band[] = {0.0, 1.05, 1.2, 1.4, 1.7, 1e9};
    double *rc = malloc(n * sizeof *rc), *ri = malloc(n * sizeof *ri);
    if (!rc || !ri)
        return 1;
    printf("%-16s %8s %12s %12s %14s\n", "round slowdown", "rounds", "chain (med)",
           "indep (med)", "indep > 1.25");
    for (int b = 0; b < 5; b++) {
        size_t k = 0, over = 0;
        for (size_t j = 0; j < n; j++) {
            double s = round[j] / r0;
            if (s < band[b] || s >= band[b + 1])
                continue;
            rc[k] = chain[j] / c0;
            ri[k] = indep[j] / i0;
            over += ri[k] > 1.25;
            k++;
        }
        if (!k)
            continue;
        char name[32];
        snprintf(name, sizeof name, b == 4 ? "%.2f-" : "%.2f-%.2f", band[b], band[b + 1]);
        printf("%-16s %8zu %12.2f %12.2f %13.1f%%\n", name, k, quantile(rc, k, 0.5),
               quantile(ri, k, 0.5), 100.0 * (double)over / (double)k);
    }
    /* Slow stretches: consecutive rounds over 1.3x. */
    size_t stretches = 0, longest = 0, run = 0, slow = 0;
    for (size_t j = 0; j <= n; j++) {
        bool s = j < n && round[j] / r0 > 1.3;
        slow += s;
        if (s) {
            run++;
        } else if (run) {
            stretches++;
            longest = run > longest ? run : longest;
            run = 0;
        }
    }
    printf("rounds over 1.3x: %zu (%.1f%%) in %zu stretches, the longest %zu rounds\n", slow,
           100.0 * (double)slow / (double)n, stretches, longest);
    free(rc);
    free(ri);
    free(chain);
    free(indep);
    free(round);
    return 0;
}
