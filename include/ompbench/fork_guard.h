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
 *
 * The same two lines give region markers the width of the parallel regions
 * a phase region contains when their loops carry no markers (docs/guide.md,
 * "Phase regions"). An application with its own main() and no ompb_main
 * (LULESH, say) links ompbench::fork_guard (or -lompbench_fork_guard before
 * -lompbench and the OpenMP runtime) and calls, first thing in main(),
 *
 *     ompb_set_fork_guard(&ompb_fork_guard_gnu);
 *
 * before its first region marker. Without it a phase region is named by
 * the teams of the regions marked inside it only, and the region report
 * says so.
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

/* Told by a guard, on the thread that forked it, of a team that thread
 * forked outside any team (OpenMP level 0): threads is the number of
 * threads the team ran with (omp_get_num_threads() inside it, not what was
 * asked for). Called after the join, or for the older split form
 * (GOMP_parallel_start) once the team has started. On LLVM's libomp the
 * guard's OMPT tool calls it at the fork (parallel_begin) with the width
 * the runtime resolved there, before any thread limit. */
typedef void (*ompb_fork_observer)(unsigned threads);

typedef struct ompb_fork_guard {
    /* Starts (w) or stops (NULL) watching the calling thread; w stays valid
     * while set. Called by the engine around each body, outside the timed
     * window. */
    void (*watch)(ompb_fork_watch *w);
    /* Starts (f) or stops (NULL) telling f of each team the calling thread
     * forks at OpenMP level 0 (ompb_fork_observer); NULL when the guard
     * cannot. Called by the region markers, once per thread that begins a
     * region outside any team: its unmarked parallel loops then name its
     * phase regions. Independent of watch: both may be set at once. */
    void (*observe)(ompb_fork_observer f);
} ompb_fork_guard;

/* Installs g (copied) for the following ompb_main() calls and for the
 * region markers; NULL removes it. Installing opens one empty parallel
 * region (one thread) while watched, to see whether the process's forks
 * reach g: the run context then says what the guard sees. When they do and
 * g can observe, every thread that begins a region outside any team from
 * then on is observed (the calling thread at once, if it already has).
 * Returns 0, or OMPB_EINVAL when g has no watch. */
OMPB_API int ompb_set_fork_guard(const ompb_fork_guard *g);

/* The guard of GNU OpenMP (libgomp), defined by ompbench::fork_guard, not by
 * libompbench: it counts the GOMP_parallel* and GOMP_teams_reg calls of a
 * watched thread and forwards every call to the runtime; for an observed
 * thread's forks at level 0 the team's thread 0 first reads the team's
 * width (the outlined function runs unchanged). On LLVM's libomp the same
 * library's OMPT tool (ompt_start_tool) counts the regions instead, those
 * Clang forks through __kmpc_fork_call included. */
extern const ompb_fork_guard ompb_fork_guard_gnu;

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_FORK_GUARD_H */
