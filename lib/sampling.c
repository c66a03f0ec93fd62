/* SPDX-License-Identifier: MIT */
/*
 * Configuration -> the engine's sampling description, once per instance.
 */
#include "sampling.h"

#include "cli.h"
#include "registry.h"

const char *ompb__sampling_mode_name(ompb__sampling_mode mode)
{
    switch (mode) {
    case OMPB__SAMPLING_TEST: return "test";
    case OMPB__SAMPLING_SIMULATE: return "simulate";
    default: return "measure";
    }
}

ompb__sampling ompb__sampling_resolve(const ompb__config *cfg, const ompb__instance *inst,
                                      bool simulate)
{
    ompb__sampling s = {
        .mode = OMPB__SAMPLING_MEASURE,
        .threads = inst->threads,
        .rounds = cfg->sample_count,
        .sample_size = cfg->sample_size ? cfg->sample_size : inst->bench->sample_size,
        .min_round_ns = cfg->min_time_ns,
        .warmup_ns = cfg->warmup_ns,
        .budget_ns = cfg->max_time_ns,
        .counters = cfg->counters.n > 0 ? &cfg->counters : NULL,
    };
    if (simulate) {
        /* Callgrind counts one iteration of one thread: the instruction
         * count is the figure, and valgrind serializes threads anyway. */
        s.mode = OMPB__SAMPLING_SIMULATE;
        s.threads = 1;
        s.sample_size = 1;
        s.counters = NULL; /* callgrind counts the instructions itself */
    } else if (cfg->test) {
        s.mode = OMPB__SAMPLING_TEST;
    }
    if (s.mode != OMPB__SAMPLING_MEASURE) {
        s.rounds = 1;
        s.warmup_ns = 0; /* the single calibration round is the warm-up */
    }
    return s;
}
