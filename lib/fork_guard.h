/* SPDX-License-Identifier: MIT */
/*
 * The fork guard: which parallel regions a thread opens while the round
 * engine watches it. libompbench defines the OpenMP runtime's fork entry
 * points (GOMP_parallel and the other combined-construct entries of the
 * GNU ABI, and the host `teams` construct's), counts the calls made by a
 * watched thread and forwards every
 * call to the runtime's own entry point (dlsym RTLD_NEXT). The engine
 * watches:
 * - each harness-team thread while it runs the body and the body's
 *   deferred tasks (up to the round's reduction barrier): any region it
 *   opens is nested inside the round (the nested-region warning);
 * - the caller of a caller-team benchmark during its rounds: the regions
 *   of the code under test, and the width they asked for.
 * An unwatched thread pays one thread-local load and a branch per region.
 * What the guard can see (the coverage) is decided once per process.
 */
#ifndef OMPB_FORK_GUARD_H
#define OMPB_FORK_GUARD_H

#include <stdbool.h>
#include <stdint.h>

/* What one watched thread did; written only by that thread. */
typedef struct ompb__fork_watch {
    unsigned width;           /* 0: count only; else the width regions should get */
    uint64_t forks;           /* regions this thread opened while watched */
    uint64_t other_width;     /* regions opened at the top level for another width
                                 than width: a num_threads (or if) clause, or
                                 without one while nthreads-var differed from it */
    unsigned last_other;      /* the width the last of those asked for */
    uint64_t host_teams;      /* `teams` constructs outside target (GOMP_teams_reg):
                                 libgomp runs their teams one after another on
                                 this thread, so they are no fork */
    unsigned last_num_teams;  /* num_teams of the last of those; 0: the default */
} ompb__fork_watch;

/* Starts (w) or stops (NULL) watching the calling thread. w must stay valid
 * while set. */
void ompb__fork_watch_set(ompb__fork_watch *w);

/* Which regions the guard sees in this process. */
typedef enum {
    /* Every fork entry point of the runtime in use reaches the guard
     * (libgomp, with libompbench's definitions first in symbol lookup). */
    OMPB__FORKS_SEEN_ALL,
    /* The GNU entry points reach the guard, but the runtime also has an
     * entry point the guard does not see: libomp's or Intel's
     * __kmpc_fork_call, which Clang- and Intel-compiled code calls. A region
     * counted is real; a region not counted may still have been opened. */
    OMPB__FORKS_SEEN_GNU_ONLY,
    /* The runtime's entry points are found before libompbench's (a shared
     * libompbench linked after the OpenMP runtime, or a static executable):
     * the guard sees nothing. */
    OMPB__FORKS_SEEN_NONE
} ompb__fork_coverage;

/* Decided on the first call (a symbol lookup), then cached. */
ompb__fork_coverage ompb__fork_guard_coverage(void);

/* "all", "GNU entry points only", "none" (static). */
const char *ompb__fork_coverage_name(ompb__fork_coverage c);

/* The run's warning for coverage c (static, one line), or NULL when the
 * guard sees every region (all). */
const char *ompb__fork_guard_warning(ompb__fork_coverage c);

#endif
