/* SPDX-License-Identifier: MIT */
/*
 * Flags of user counters, shared by benchmarks (ompb_counter,
 * <ompbench/bench.h>) and application regions (ompb_region_counter,
 * <ompbench/region.h>): how the team's total of a counter becomes the
 * reported figure. Combine with |; 0 (OMPB_COUNTER_SUM) is the sum over
 * the team's threads.
 */
#ifndef OMPBENCH_COUNTER_H
#define OMPBENCH_COUNTER_H

/* The sum over the team's threads (the default). */
#define OMPB_COUNTER_SUM 0u
/* Divided by the time in seconds: a benchmark round's makespan; for a
 * region, the sum of its instances' makespans: "lookups per second". */
#define OMPB_COUNTER_RATE 1u
/* Divided by the iterations the team ran in the round (every thread's);
 * for a region, by its instances (one iteration each). */
#define OMPB_COUNTER_PER_ITERATION 2u
/* Divided by the number of threads (1 for a caller team): the mean per
 * thread instead of the sum. */
#define OMPB_COUNTER_AVG_THREADS 4u

#endif /* OMPBENCH_COUNTER_H */
