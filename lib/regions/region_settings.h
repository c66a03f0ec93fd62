/* SPDX-License-Identifier: MIT */
/*
 * The OMPB_REGIONS* settings (lib/regions/region_settings.c): the first link of
 * the regions' one-way chain (docs/architecture.md, "regions").
 */
#ifndef OMPB_REGION_SETTINGS_H
#define OMPB_REGION_SETTINGS_H

#include <stdbool.h>

#include <ompbench/error.h>

/* The hot path's first branch: false with OMPB_REGIONS=0, after a bad
 * setting, in a fork child, or after ompb__regions_set_enabled(false).
 * A plain variable: every region call reads it. */
extern bool ompb__regions_on;

/* Reads the settings once (at load time; later calls return the first
 * answer): false when regions stay off (set to 0, or a bad value, warned).
 * When on, a fork child turns them off. */
bool ompb__regions_settings_load(void);

/* Settings read at load time (OMPB_REGIONS_OUTPUT with %p expanded,
 * OMPB_REGIONS_FORMAT); NULL when unset. */
const char *ompb__regions_output(void);
const char *ompb__regions_format(void);

/* True when this process is a fork child of the one that used regions. */
bool ompb__regions_forked(void);

/* False with OMPB_REGIONS_CLOCK=clock_gettime: the markers never read the
 * TSC (lib/core/tsc.h). */
bool ompb__regions_tsc_allowed(void);

/* The OMPB_REGIONS* settings as read at load: 0, or OMPB_EINVAL with err
 * naming the value and what is accepted (regions are then off, after one
 * warning). ompb_main refuses them with it (exit 2). */
int ompb__regions_check_settings(ompb_error *err);

/* Tests and benches: turn every call into the OMPB_REGIONS=0 no-op (false)
 * or back. */
void ompb__regions_set_enabled(bool on);
/* False with OMPB_REGIONS=0 (or after set_enabled(false)). */
bool ompb__regions_enabled(void);

#endif
