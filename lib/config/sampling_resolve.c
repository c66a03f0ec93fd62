/* SPDX-License-Identifier: MIT */
/*
 * Configuration -> the engine's sampling description, once per repetition
 * of an instance. It lives with the configuration (config layer), not with
 * the description (lib/model/sampling.h, model layer), which everything from the
 * engine to the reporters reads without knowing the command line.
 */
#include "config/sampling_resolve.h"

#include "config/cli.h"
#include "model/model.h"

uint32_t ompb__sampling_repetitions(const ompb__config *cfg, bool simulate)
{
    return simulate || cfg->repetitions < 1 ? 1 : cfg->repetitions;
}

ompb__sampling ompb__sampling_resolve(const ompb__config *cfg, const ompb__instance *inst,
                                      bool simulate, uint32_t repetition)
{
    uint32_t n = ompb__sampling_repetitions(cfg, simulate);
    uint64_t budget = cfg->max_time_ns / n;
    ompb__sampling s = {
        .mode = OMPB__SAMPLING_MEASURE,
        .threads = inst->threads,
        .rounds = (cfg->sample_count + n - 1) / n,
        .min_clean_rounds = (cfg->min_clean_rounds + n - 1) / n,
        .sample_size = cfg->sample_size ? cfg->sample_size : inst->bench->sample_size,
        .min_round_ns = cfg->min_time_ns,
        .warmup_ns = cfg->warmup_ns / n,
        .budget_ns = budget ? budget : 1,
        .repetition = repetition,
        .repetitions = n,
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
