/* SPDX-License-Identifier: MIT */
/*
 * What the round engine is asked to do for one instance: a small, resolved
 * description built once from the configuration and the benchmark's
 * descriptor (Google Benchmark's BenchmarkRunner does the same). The engine
 * reads nothing else, and the record it returns carries this description
 * next to what was actually done, so reporters never work out again what the
 * engine decided.
 */
#ifndef OMPB_SAMPLING_H
#define OMPB_SAMPLING_H

#include <stdbool.h>
#include <stdint.h>

struct ompb__config;
struct ompb__counter_set;
struct ompb__instance;

typedef enum {
    OMPB__SAMPLING_MEASURE,   /* calibrate, warm up, measure `rounds` rounds */
    OMPB__SAMPLING_TEST,      /* --test: one short round, as a smoke test */
    OMPB__SAMPLING_SIMULATE   /* CPU simulation: one thread, one iteration */
} ompb__sampling_mode;

typedef struct ompb__sampling {
    ompb__sampling_mode mode;
    int threads;              /* team width to run (1 in simulation) */
    uint64_t rounds;          /* measured rounds wanted (1 in test and simulation) */
    uint64_t sample_size;     /* iterations per round per thread; 0 = calibrate */
    uint64_t min_round_ns;    /* calibration aims at least this round time; the
                                 engine raises it to its own floor */
    uint64_t warmup_ns;       /* warm-up after calibration; 0: none (the
                                 calibration rounds warm up) */
    uint64_t budget_ns;       /* time budget of the instance, warm-up included */
    /* --counters: the events each team thread counts per round (NULL or
     * n = 0: none; none in CPU simulation). Borrowed from the config. */
    const struct ompb__counter_set *counters;
} ompb__sampling;

/* The "mode" word of reports: "measure", "test", "simulate" (static). */
const char *ompb__sampling_mode_name(ompb__sampling_mode mode);

/*
 * Resolves the sampling of inst from the configuration: --sample-count,
 * --sample-size (else the descriptor's .sample_size, else calibrate),
 * --warmup-time, --min-time, --max-time, --test and --counters; simulate selects the
 * CPU-simulation shape (one thread, one round of one iteration).
 */
ompb__sampling ompb__sampling_resolve(const struct ompb__config *cfg,
                                      const struct ompb__instance *inst, bool simulate);

#endif
