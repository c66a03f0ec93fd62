/* SPDX-License-Identifier: MIT */
/*
 * The instrument facade compiled out, for one comparison only: linked into
 * build/benches/examples_nohooks ahead of the library, these empty
 * definitions take the place of lib/hooks/instrument.c, so that binary is
 * the example suite built without hooks (docs/performance.md, "Hook
 * transport"). Nothing else uses this file.
 */
#include "hooks/instrument.h"

void ompb__instrument_init(void)
{
}

ompb__mode ompb__instrument_mode(void)
{
    return OMPB__MODE_NONE;
}

void ompb__instrument_instance_begin(const ompb__instance *inst)
{
    (void)inst;
}

void ompb__instrument_instance_end(const struct ompb__record *rec, bool close)
{
    (void)rec;
    (void)close;
}

void ompb__instrument_window_close(const ompb__instance *inst)
{
    (void)inst;
}

bool ompb__instrument_runner_walltime(void)
{
    return false;
}

bool ompb__instrument_runner_taken(void)
{
    return false;
}
