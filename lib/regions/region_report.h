/* SPDX-License-Identifier: MIT */
/*
 * Reporting application regions (lib/regions/region_report.c): ompb_regions_report,
 * the report at exit and the partial one of a process stopped by a signal,
 * each entry turned into reporter input by one adapter. Above the runner
 * (lib/regions/region_runner.h) and the region counters in the regions' one-way
 * chain; below the signal watcher and the hot path.
 */
#ifndef OMPB_REGION_REPORT_H
#define OMPB_REGION_REPORT_H

#include "regions/region_counters.h"
#include "regions/region_runner.h"
#include "regions/region_settings.h"
#include "regions/region_warnings.h"

/* The report at process exit (registered with atexit at load time). */
void ompb__regions_exit_report(void);

/* The checks of the report at exit, without the report (tests): open
 * instances and threads of a team with different counts fail their entry. */
void ompb__regions_final_check(void);
/* Forgets the report's cached context (tests). */
void ompb__regions_report_reset(void);

/* On the signal watcher's thread: writes the report of the completed
 * instances marked partial (interrupted by sig; the instances in flight
 * are left out, not failed), then ends the process of sig. Does nothing
 * but end it when the report at exit has begun (that one is complete). */
_Noreturn void ompb__regions_stop_on_signal(int sig);

#endif
