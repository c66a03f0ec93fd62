/* SPDX-License-Identifier: MIT */
/*
 * The engine's side of the fork guard (include/ompbench/fork_guard.h): the
 * guard a main() library installed, if any, and what it sees. The engine
 * watches:
 * - each harness-team thread while it runs the body and the body's
 *   deferred tasks (up to the round's reduction barrier): any region it
 *   opens is nested inside the round (the nested-region warning);
 * - the caller of a caller-team benchmark during its rounds: the regions
 *   of the code under test, and the width they asked for.
 * Without an installed guard watching is a no-op and the coverage is "off".
 * The coverage is decided when a guard is installed, by watching one real
 * fork: the engine's own, which reaches the runtime the way a shared
 * library's does.
 */
#ifndef OMPB_FORK_GUARD_H
#define OMPB_FORK_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include <ompbench/fork_guard.h>

typedef ompb_fork_watch ompb__fork_watch;

/* Starts (w) or stops (NULL) watching the calling thread through the
 * installed guard; nothing without one. w must stay valid while set. (The
 * engine watches through its environment, lib/engine/engine_env.h, instead.) */
void ompb__fork_watch_set(ompb__fork_watch *w);

/* The guard installed by the last ompb_set_fork_guard ({0}: none), for the
 * default engine environment. */
ompb_fork_guard ompb__fork_guard_installed(void);

/* Which regions the guard sees in this process. */
typedef enum {
    /* The probe fork reached the guard, and the runtime has no entry point
     * it does not see (libgomp), or its __kmpc_fork_call reached the guard
     * too (libomp, through the guard's OMPT tool). */
    OMPB__FORKS_SEEN_ALL,
    /* The GNU entry points reach the guard, but the runtime also has an
     * entry point the guard does not see: libomp's or Intel's
     * __kmpc_fork_call, which Clang- and Intel-compiled code calls, when the
     * runtime did not start the guard's OMPT tool. A region counted is
     * real; a region not counted may still have been opened. */
    OMPB__FORKS_SEEN_GNU_ONLY,
    /* A guard is installed but the probe fork did not reach it (the
     * runtime's entry points are found first: a static link with the
     * runtime's archive, or the guard in a library after the runtime). */
    OMPB__FORKS_SEEN_NONE,
    /* No guard installed: a program with its own main() that did not opt
     * in (ompbench::fork_guard), an application using regions or hooks. */
    OMPB__FORKS_SEEN_OFF
} ompb__fork_coverage;

/* ompb_set_fork_guard's part for the engine (g: a guard with its watch, or
 * NULL): keeps a copy of g for the default engine environment and decides
 * the coverage by watching one probe fork; returns it. The public function
 * (lib/run/fork_guard_set.c) also hands g's observer to the regions. */
ompb__fork_coverage ompb__fork_guard_install(const ompb_fork_guard *g);

/* The coverage established by the last ompb_set_fork_guard (OFF before). */
ompb__fork_coverage ompb__fork_guard_coverage(void);

/* "all", "GNU entry points only", "none", "off" (static). */
const char *ompb__fork_coverage_name(ompb__fork_coverage c);

/* The run's warning for coverage c (static, one line), or NULL when the
 * guard sees every region (all). */
const char *ompb__fork_guard_warning(ompb__fork_coverage c);

#endif
