/* SPDX-License-Identifier: MIT */
/*
 * Application regions (include/ompbench/region.h) inside the library: the
 * face of the regions for the rest of the library, the tests and the
 * benches. The regions are a one-way chain of modules, each with its
 * header; a module calls only the ones before it (docs/architecture.md,
 * "regions"):
 *
 *   region_settings  the OMPB_REGIONS* settings and the on/off switch
 *   region_stats     an entry's streaming statistics: an accumulator of
 *                    instances (inline per instance), no threads, no lock
 *   region_entry     the objects; pairing lanes into instances, folding
 *                    them into the statistics, the runner window's buffer
 *   region_table     names, regions, the entries' list, the global lock
 *   region_thread    each thread's state: its stack, caches, team; groups
 *   region_forks     the teams forked inside level-0 regions (phase
 *                    regions): widths, the fork guard's observer, the note
 *   region_misuse    the hot path's slow branches (messages, once each)
 *   region_counters  OMPB_REGIONS_COUNTERS and ompb_region_counter
 *   region_runner    the CodSpeed runner's windows, through an ops value
 *   region_warnings  what the reports warn about (barrier-ended regions...)
 *   region_report    the reports (on demand, at exit, on a signal)
 *   region_signal    the signal watcher of region programs
 *   region           the public begin/end (the hot path), first use, the
 *                    load-time constructor
 */
#ifndef OMPB_REGION_H
#define OMPB_REGION_H

#include "regions/region_forks.h"
#include "regions/region_misuse.h"
#include "regions/region_signal.h"

/* Tests and benches: forget every region, entry and thread cache (no
 * thread may be inside a region call). */
void ompb__regions_reset(void);

#endif
