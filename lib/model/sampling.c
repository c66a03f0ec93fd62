/* SPDX-License-Identifier: MIT */
/*
 * The engine's sampling description: its mode names and the reuse of a
 * calibrated sample size. It is built from the configuration by
 * lib/config/sampling_resolve.c, one layer up (config), so that the record and
 * the reporters, which read it, never see an ompb__config.
 */
#include "model/sampling.h"

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
