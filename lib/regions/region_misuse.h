/* SPDX-License-Identifier: MIT */
/*
 * Misuse of region markers (lib/regions/region_misuse.c): the slow branches of the
 * hot path (lib/regions/region.c), above the threads' state (lib/regions/region_thread.h)
 * in the regions' one-way chain. Each fails the entry concerned with a
 * message once and leaves the thread's stack consistent.
 */
#ifndef OMPB_REGION_MISUSE_H
#define OMPB_REGION_MISUSE_H

#include <stdbool.h>

#include "regions/region_thread.h"

/* begin of r while open at `open` on the same thread: pushed ignored. */
void ompb__region_begin_recursive(ompb__region_thread *ts, ompb__region *r, const char *name,
                                  ompb__region_group *g, const ompb__region_team *t,
                                  const char *file, int line, const ompb__region_frame *open);
/* begin that found its lane taken by another thread: pushed ignored. */
void ompb__region_begin_conflict(ompb__region_thread *ts, ompb__region *r, const char *name,
                                 ompb__region_group *g, const ompb__region_team *t,
                                 const char *file, int line);
/* A thread plays lane ln of g for the first time (its begin holds the
 * lane). False when the begin was turned into an ignored one. */
bool ompb__region_lane_new_player(ompb__region_thread *ts, ompb__region *r, const char *name,
                                  ompb__region_group *g, ompb__region_lane *ln,
                                  const ompb__region_team *t, const char *file, int line);
/* end that found its lane taken: the frame records nothing. */
void ompb__region_end_conflict(const ompb__region_thread *ts, ompb__region_frame *f);
/* begin past OMPB__REGION_DEPTH_MAX open regions: counted, not recorded. */
void ompb__region_begin_too_deep(ompb__region_thread *ts, ompb__region_group *g,
                                 const ompb__region_team *t, const char *file, int line);
/* end(name) that does not match the innermost open region: fails what it
 * must and returns the frame of name, now the innermost, for the caller
 * to record and pop; NULL when name is not open on the thread. */
ompb__region_frame *ompb__region_end_slow(ompb__region_thread *ts, const char *name,
                                          const char *file, int line);

#endif
