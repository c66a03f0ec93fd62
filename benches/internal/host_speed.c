/* SPDX-License-Identifier: MIT */
/*
 * Does the host slow a vCPU without descheduling it? (docs/performance.md,
 * "The example suite, quiet"): a team of 2, each thread bound to its PU,
 * runs ROUNDS rounds of a fixed integer loop and reads its own CPU clock
 * around each. A round over 1.3x the fastest one whose CPU time is still
 * the round's wall time ran slower rather than being preempted or stolen:
 * nothing a guest can record per round marks it.
 *
 * Usage: host_speed [ROUNDS]   (default 400)
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <omp.h>

#include "core/clock.h"

#define MAX_ROUNDS 100000

static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "host_speed: invalid rounds '%s' (accepted: 1 to %d)\n", argv[1],
                MAX_ROUNDS);
        return 2;
    }
    double *wall = calloc(2 * (size_t)rounds, sizeof *wall);
    double *cpu = calloc(2 * (size_t)rounds, sizeof *cpu);
    if (!wall || !cpu)
        return 1;
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(t, &set);
        (void)sched_setaffinity(0, sizeof set, &set);
        for (int r = 0; r < rounds; r++) {
#pragma omp barrier
            uint64_t c0 = thread_cpu_ns(), a = ompb__now_ns();
            uint64_t x = 0;
            for (long i = 0; i < 700000; i++) {
                x += (uint64_t)i;
                __asm__ volatile("" : "+r"(x)); /* one add per step, never folded */
            }
            uint64_t b = ompb__now_ns(), c1 = thread_cpu_ns();
            wall[2 * r + t] = (double)(b - a);
            cpu[2 * r + t] = (double)(c1 - c0);
        }
    }
    double fastest = 1e300;
    for (int i = 0; i < 2 * rounds; i++)
        fastest = wall[i] < fastest ? wall[i] : fastest;
    int slow = 0, slow_short = 0;
    for (int i = 0; i < 2 * rounds; i++)
        if (wall[i] > 1.3 * fastest) {
            slow++;
            slow_short += cpu[i] < 0.9 * wall[i];
        }
    printf("fastest round %.0f us; %d of %d thread-rounds over 1.3x it, of which %d had a CPU "
           "time below 0.9 of their wall time\n", fastest / 1e3, slow, 2 * rounds, slow_short);
    free(wall);
    free(cpu);
    return 0;
}
