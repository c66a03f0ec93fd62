/* SPDX-License-Identifier: MIT */
/*
 * What the fork guard's two ways of seeing a fork share (internal to
 * lib/main): what the calling thread asked for, the watched thread's
 * counters and how a fork is counted.
 *
 *   fork_guard_gnu    libgomp's entry points (GOMP_parallel*, GOMP_teams_reg),
 *                     defined in the executable before the runtime's
 *   fork_guard_ompt   the OMPT tool (ompt_start_tool) that LLVM's libomp and
 *                     Intel's runtime start: parallel_begin of every region,
 *                     whichever entry point forked it (__kmpc_fork_call, the
 *                     runtime's own GOMP_* compatibility entries)
 *
 * While the OMPT tool sees the forks (ompb__fork_ompt_on), the GNU entry
 * points neither count, observe nor wrap: libomp's GOMP_parallel forks
 * through the same path as __kmpc_fork_call, whose parallel_begin counts
 * and observes it once.
 */
#ifndef OMPB_FORK_NOTE_H
#define OMPB_FORK_NOTE_H

#include <stdatomic.h>
#include <stdbool.h>

#include <ompbench/fork_guard.h>

/* What the calling thread asked the guard for: the engine's watch (its
 * fork counters), the regions' observer (told the width of each team the
 * thread forks at level 0), or both. */
typedef struct ompb__fork_thread {
    ompb_fork_watch *watch;
    ompb_fork_observer observer;
} ompb__fork_thread;

/* The calling thread's ompb__fork_thread while either is set, else NULL:
 * the entry points test that one load. initial-exec: a load relative to
 * the thread pointer, no __tls_get_addr call on the fork path; these
 * objects are linked into the executable (or into a library loaded with it,
 * the tracing library), never dlopen'ed late. */
extern _Thread_local ompb__fork_thread *ompb__fork_active
    __attribute__((tls_model("initial-exec")));

/* Set or clear (NULL) the calling thread's watch or observer. */
void ompb__fork_set_watch(ompb_fork_watch *w);
void ompb__fork_set_observer(ompb_fork_observer f);

/* Set once the runtime started the OMPT tool and took its parallel_begin
 * callback: from then on the tool counts (and traces) every fork. */
extern _Atomic bool ompb__fork_ompt_on;

/* A region the watched thread w opened, asking for num_threads (0: no
 * clause, nthreads-var decides). */
void ompb__fork_note(ompb_fork_watch *w, unsigned num_threads);

/* A host `teams` construct of num_teams teams (0: the default). */
void ompb__fork_note_teams(ompb_fork_watch *w, unsigned num_teams);

#endif
