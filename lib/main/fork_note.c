/* SPDX-License-Identifier: MIT */
/*
 * What each thread asked the guard for, and how the guard counts a fork
 * (fork_note.h), whichever way it saw it:
 * libgomp's entry points (fork_guard_gnu.c) or libomp's OMPT tool
 * (fork_guard_ompt.c). Only the watched thread writes its watch.
 */
#include "fork_note.h"

#include <stddef.h>

#include <omp.h>

static _Thread_local ompb__fork_thread self __attribute__((tls_model("initial-exec")));
_Thread_local ompb__fork_thread *ompb__fork_active __attribute__((tls_model("initial-exec")));

static void update_active(void)
{
    ompb__fork_active = self.watch || self.observer ? &self : NULL;
}

void ompb__fork_set_watch(ompb_fork_watch *w)
{
    self.watch = w;
    update_active();
}

void ompb__fork_set_observer(ompb_fork_observer f)
{
    self.observer = f;
    update_active();
}

/* Out of line: the common, unwatched path stays a load and a branch. */
__attribute__((noinline)) void ompb__fork_note(ompb_fork_watch *w, unsigned num_threads)
{
    w->forks++;
    /* The caller's own nested regions are its business, hence the level
     * test. num_threads is 0 without a clause: the region then takes
     * nthreads-var, which the engine set to width, unless the body changed
     * it for a while (omp_set_num_threads(1); kern(); and back), which the
     * check after the body cannot see. */
    if (!w->width || omp_get_level() != 0)
        return;
    unsigned asked = num_threads ? num_threads : (unsigned)omp_get_max_threads();
    if (asked != w->width) {
        w->other_width++;
        w->last_other = asked;
    }
}

/* A host `teams` construct (GOMP_teams_reg): libgomp 9+ runs the league's teams one after
 * another on this thread (no thread is created), so it is counted apart
 * from the forks, for the engine to say what it was. */
__attribute__((noinline)) void ompb__fork_note_teams(ompb_fork_watch *w, unsigned num_teams)
{
    w->host_teams++;
    w->last_num_teams = num_teams;
}
