/* SPDX-License-Identifier: MIT */
/*
 * Region programs stopped by SIGINT, SIGTERM or SIGHUP
 * (lib/regions/region_signal.c). Above the reports (lib/regions/region_report.h) in the
 * regions' one-way chain.
 */
#ifndef OMPB_REGION_SIGNAL_H
#define OMPB_REGION_SIGNAL_H

#include "regions/region_report.h"

/* First use of regions in an application (not a benchmark binary): SIGINT,
 * SIGTERM and SIGHUP still at their default action write the partial
 * report and then end the process of the signal. */
void ompb__regions_signals_init(void);

/* The report at exit (atexit, from the constructor): when a watched signal
 * was taken and the watcher has not ended the process yet (main returned
 * right after raise(), say), the partial report and death of that signal
 * instead; a signal that comes during the report at exit still ends the
 * process after it. A signal is never swallowed by returning from main. */
void ompb__regions_at_exit(void);

#endif
