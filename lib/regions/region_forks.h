/* SPDX-License-Identifier: MIT */
/*
 * The teams a thread forks inside its regions outside any team (phase
 * regions, docs/guide.md) (lib/regions/region_forks.c): the widths its open
 * level-0 frames record, from the regions marked in those teams (the hot
 * path) or from a fork observer (ompb__region_team_forked: the GNU fork
 * guard's, include/ompbench/fork_guard.h, or a runtime tool's), which
 * threads the installed guard observes, and what the report says when no
 * observer is installed. Above the threads (lib/regions/region_thread.h) in
 * the regions' one-way chain.
 */
#ifndef OMPB_REGION_FORKS_H
#define OMPB_REGION_FORKS_H

#include <stdbool.h>

#include <ompbench/fork_guard.h>

#include "regions/region_thread.h"

/* The calling thread forked a team that ran with `threads` threads (>= 1)
 * from outside any team (OpenMP level 0; its thread 0 is the caller): every
 * region the caller has open at level 0 contains a team of that width. On
 * the forking thread, before or after the team runs, once per team; a
 * thread-local load and a return when it has no region open. The GNU fork
 * guard calls it (an ompb_fork_observer); a tool that learns of forks
 * another way (OMPT's parallel_begin and implicit_task on the primary
 * thread) may call it the same way, on the same terms: only for a team
 * forked at level 0, with the number of threads the team really got. A
 * team seen twice (a marked region begun in it, too) is no harm: widths
 * are kept as smallest and largest. */
void ompb__region_team_forked(unsigned threads);

/* The hot path's note (lib/regions/region.c): ts began a region in a team
 * of `threads` at level 1, inside its open level-0 regions. */
void ompb__region_note_inner(ompb__region_thread *ts, unsigned threads);

/* ompb_set_fork_guard (lib/run/fork_guard_set.c): observe is the installed
 * guard's (NULL: none, or a guard whose forks do not reach it). Observes
 * the calling thread at once when it already began a region at level 0;
 * other threads are observed at their next first begin of a region at
 * level 0. */
void ompb__regions_fork_observer_set(void (*observe)(ompb_fork_observer f));

/* A begin at level 0 that found no group of region r in ts's cache (ts's
 * first begin of r outside any team): ts is observed if a guard can, and
 * a begin while the runtime would fork more than one thread is kept for
 * the report's note. */
void ompb__region_forks_level0(ompb__region_thread *ts, const ompb__region *r);

/* When a region was begun outside any team while omp_get_max_threads()
 * answered more than 1 and no fork observer is installed: that region (the
 * first such) and the answer; NULL otherwise (then *max_threads is 0). */
const ompb__region *ompb__regions_unobserved_phase(int *max_threads);

/* Tests: forgets the note's region. */
void ompb__regions_forks_reset(void);

#endif
