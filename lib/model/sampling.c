/* SPDX-License-Identifier: MIT */
/*
 * The engine's sampling description: its mode names and the reuse of a
 * calibrated sample size. It is built from the configuration by
 * lib/config/sampling_resolve.c, one layer up (config), so that the record and
 * the reporters, which read it, never see an ompb__config.
 */
#include "model/sampling.h"

#include "core/core.h"

uint64_t ompb__sampling_capacity(const ompb__sampling *s)
{
    if (!s->min_clean_rounds || s->mode != OMPB__SAMPLING_MEASURE)
        return s->rounds;
    uint64_t cap = s->rounds * OMPB__CLEAN_EXTEND;
    cap = cap < s->min_clean_rounds ? s->min_clean_rounds : cap;
    return cap > OMPB__MAX_SAMPLE_COUNT ? OMPB__MAX_SAMPLE_COUNT : cap;
}

const char *ompb__sampling_mode_name(ompb__sampling_mode mode)
{
    switch (mode) {
    case OMPB__SAMPLING_TEST: return "test";
    case OMPB__SAMPLING_SIMULATE: return "simulate";
    case OMPB__SAMPLING_REGION: return "region";
    default: return "measure";
    }
}

void ompb__sampling_reuse_size(ompb__sampling *s, uint64_t calibrated)
{
    if (s->sample_size == 0 && s->mode == OMPB__SAMPLING_MEASURE)
        s->sample_size = calibrated;
}
