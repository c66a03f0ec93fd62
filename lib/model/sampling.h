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

struct ompb__counter_set;

typedef enum {
    OMPB__SAMPLING_MEASURE,   /* calibrate, warm up, measure `rounds` rounds */
    OMPB__SAMPLING_TEST,      /* --test: one short round, as a smoke test */
    OMPB__SAMPLING_SIMULATE,  /* CPU simulation: one thread, one iteration */
    OMPB__SAMPLING_REGION     /* not run by the engine: an application region's
                                 instances (include/ompbench/region.h) */
} ompb__sampling_mode;

typedef struct ompb__sampling {
    ompb__sampling_mode mode;
    int threads;              /* team width to run (1 in simulation) */
    uint64_t rounds;          /* measured rounds wanted (1 in test and simulation) */
    /* --min-clean-rounds: measuring goes on past `rounds`, up to
     * ompb__sampling_capacity, until this many were clean (0: off). */
    uint64_t min_clean_rounds;
    uint64_t sample_size;     /* iterations per round per thread; 0 = calibrate */
    uint64_t min_round_ns;    /* calibration aims at least this round time; the
                                 engine raises it to its own floor */
    uint64_t warmup_ns;       /* warm-up after calibration; 0: none (the
                                 calibration rounds warm up) */
    uint64_t budget_ns;       /* time budget of this repetition, warm-up included */
    /* Which repetition this is: the instance is measured `repetitions`
     * times in the run, each an independent call of the engine. */
    uint32_t repetition, repetitions;
    /* Under the CodSpeed runner an instance's repetitions share one
     * benchmark window (windows cannot interleave): the engine opens it at
     * its first measured round unless it is open already, and closes it
     * after sending the markers unless more repetitions follow. */
    bool window_keep_open;
    /* --counters: the events each team thread counts per round (NULL or
     * n = 0: none; none in CPU simulation). Borrowed from the config. */
    const struct ompb__counter_set *counters;
} ompb__sampling;

/* How far --min-clean-rounds may extend the measured rounds. */
#define OMPB__CLEAN_EXTEND 8

/* The most measured rounds the engine may record: `rounds`, or
 * OMPB__CLEAN_EXTEND times it when clean rounds are asked for (within the
 * sample count's limit). */
uint64_t ompb__sampling_capacity(const ompb__sampling *s);

/* The "mode" word of reports: "measure", "test", "simulate", "region" (static). */
const char *ompb__sampling_mode_name(ompb__sampling_mode mode);

/* A later repetition of an instance reuses the sample size an earlier one
 * of this process calibrated (Google Benchmark does the same), so only the
 * first pays for calibration and all measure the same work per round. No
 * change when the size was fixed or calibrated is 0. */
void ompb__sampling_reuse_size(ompb__sampling *s, uint64_t calibrated);

#endif
