/* SPDX-License-Identifier: MIT */
/*
 * The fork guard: which parallel regions a thread opens while the round
 * engine watches it (a region nested in a benchmark body, a caller team's
 * region of another width). Seeing them takes definitions of the OpenMP
 * runtime's fork entry points (GOMP_parallel*, GOMP_teams_reg) placed before
 * the runtime's in symbol lookup, which would change every program that links
 * them: libompbench itself therefore has none, and an application that links
 * it for region markers or hooks forks straight into its runtime.
 *
 * The entry points live in ompbench::fork_guard (libompbench_fork_guard, a
 * static library so that they land in the executable), which ompbench::main
 * and ompbench::mpi link and install with ompb_set_fork_guard() from their
 * main() before ompb_main(). A benchmark binary with its own main() that
 * wants the guard links ompbench::fork_guard and does the same:
 *
 *     ompb_set_fork_guard(&ompb_fork_guard_gnu);
 *     return ompb_main(argc, argv);
 *
 * Without a guard the engine watches nothing and the run says the guard is
 * off. Like ompb_set_distribution, this is for main() libraries: call it
 * from the thread that calls ompb_main, before it, never during a run.
 */
#ifndef OMPBENCH_FORK_GUARD_H
#define OMPBENCH_FORK_GUARD_H

#include <stdint.h>

#include <ompbench/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What one watched thread did; written only by that thread. */
typedef struct ompb_fork_watch {
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
} ompb_fork_watch;

typedef struct ompb_fork_guard {
    /* Starts (w) or stops (NULL) watching the calling thread; w stays valid
     * while set. Called by the engine around each body, outside the timed
     * window. */
    void (*watch)(ompb_fork_watch *w);
} ompb_fork_guard;

/* Installs g (copied) for the following ompb_main() calls; NULL removes it.
 * Installing opens one empty parallel region (one thread) while watched, to
 * see whether the process's forks reach g: the run context then says what
 * the guard sees. Returns 0, or OMPB_EINVAL when g has no watch. */
OMPB_API int ompb_set_fork_guard(const ompb_fork_guard *g);

/* The guard of GNU OpenMP (libgomp), defined by ompbench::fork_guard, not by
 * libompbench: it counts the GOMP_parallel* and GOMP_teams_reg calls of a
 * watched thread and forwards every call to the runtime unchanged. On LLVM's
 * libomp the same library's OMPT tool (ompt_start_tool) counts the regions
 * instead, those Clang forks through __kmpc_fork_call included. */
extern const ompb_fork_guard ompb_fork_guard_gnu;

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_FORK_GUARD_H */
