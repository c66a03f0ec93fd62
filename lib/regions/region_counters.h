/* SPDX-License-Identifier: MIT */
/*
 * Counters per region (OMPB_REGIONS_COUNTERS=task-clock,...): the events
 * of --counters (same names, same refusals: lib/counters/counters.c), one group per
 * thread opened by that thread on its first counted begin, read right after
 * begin's timestamp and right before end's, so the counts cover the marked
 * code and the region's time holds the two reads. Each thread sums the
 * deltas per region entry (region and team size) on its own memory; a
 * report sums over the threads: per instance (each thread's sum over its
 * instances), scaled for multiplexing. Off (the variable unset or empty),
 * the hot path pays one untaken branch per call.
 */
#ifndef OMPB_REGION_COUNTERS_H
#define OMPB_REGION_COUNTERS_H

#include <stdbool.h>

#include "counters/counters.h"
#include "regions/region_settings.h"
#include "regions/region_thread.h"
#include "model/model.h"

#define OMPB__REGION_COUNTERS_ENV "OMPB_REGIONS_COUNTERS"

/* Set once before main() when OMPB_REGIONS_COUNTERS names events that
 * this machine counts; the hot path's branch. */
extern bool ompb__region_counters_on;

/* Begin, right after its timestamp: reads the group into the reading of
 * the frame at depth. */
void ompb__region_counters_begin(int depth);
/* End, right before its timestamp: reads the group. */
void ompb__region_counters_end(void);
/* End, once the instance is recorded: adds end - begin(depth) to this
 * thread's sums for entry e. */
void ompb__region_counters_add(const ompb__region_entry *e, int depth);

/* The events counted (NULL when off). */
const ompb__counter_set *ompb__region_counters_set(void);

/* Entry e's counts per instance, summed over its threads (each thread's
 * scaled sum over the instances it counted, divided by them), into
 * per[OMPB__MAX_COUNTERS] (NAN where no thread counted); *multiplexed when
 * some count was scaled. Returns the threads that counted e (0: none). */
int ompb__region_counters_of(const ompb__region_entry *e, double *per, bool *multiplexed);

/* ompb_region_counter: entry e's names (over its threads, first seen
 * first) and each one's sum over every thread and instance. Returns
 * tab->n. Threads that gave one name different flags are not told apart
 * here: ompb_region_counter refuses that per thread. */
int ompb__region_user_counters_of(const ompb__region_entry *e, ompb__ucounter_table *tab,
                                  double *sum);

#endif
