/* SPDX-License-Identifier: MIT */
/*
 * The configuration resolved into the engine's sampling description
 * (lib/model/sampling.h), once per repetition of an instance: the one place
 * where an ompb__config becomes what the engine is asked to do.
 */
#ifndef OMPB_SAMPLING_RESOLVE_H
#define OMPB_SAMPLING_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct ompb__config;
struct ompb__instance;

/*
 * Resolves the sampling of repetition `repetition` of inst from the
 * configuration: --sample-count, --sample-size (else the descriptor's
 * .sample_size, else calibrate), --warmup-time, --min-time, --max-time,
 * --test and --counters; simulate selects the CPU-simulation shape (one
 * thread, one round of one iteration, one repetition, no counters). The
 * rounds, warm-up and budget are per instance and split evenly across
 * cfg->repetitions (rounds rounded up), so N repetitions cost about what one did.
 */
ompb__sampling ompb__sampling_resolve(const struct ompb__config *cfg,
                                      const struct ompb__instance *inst, bool simulate,
                                      uint32_t repetition);

/* The repetitions each instance gets: cfg->repetitions, or 1 in CPU
 * simulation (instruction counts do not vary between repetitions). */
uint32_t ompb__sampling_repetitions(const struct ompb__config *cfg, bool simulate);

#endif
