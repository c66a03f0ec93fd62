/* SPDX-License-Identifier: MIT */
/*
 * The fork guard's hooks for the tracing library of `ompbench trace`
 * (lib/trace/) and nothing else.
 *
 * GNU OpenMP (lib/main/fork_guard_gnu.c): while a wrapper is installed, each GOMP_parallel* call of the
 * combined form (GCC >= 4.9) asks it, on the encountering thread before the
 * fork, for a body to run on every thread of the new team in place of the
 * outlined function, and tells it after the join. The older split form
 * (GOMP_parallel_start ... GOMP_parallel_end) and host `teams` are never
 * wrapped.
 *
 * LLVM's libomp and Intel's runtime (lib/main/fork_guard_ompt.c, through
 * OMPT): while hooks are installed, the OMPT tool tells them of each
 * top-level parallel region (not a nested one, not a `teams` league): its
 * start on the encountering thread, each team thread's implicit task from
 * its start to its arrival at the region's closing barrier, the time each
 * thread waits in the region's other barriers, and its end.
 *
 * Internal to lib/main: never installed.
 */
#ifndef OMPB_FORK_WRAP_H
#define OMPB_FORK_WRAP_H

/* One parallel construct, on the encountering thread's stack for the
 * length of the call. For GOMP_parallel_reductions `head` is a copy of
 * the first pointer of the original data, which libgomp reads from
 * whatever data it is given (the task reductions' descriptor); the
 * wrapper's body gets the call as its data, so head must stay first. */
typedef struct ompb__fork_call {
    void *head;
    void (*fn)(void *);       /* the outlined function and its data */
    void *data;
    unsigned num_threads;     /* as the construct asked (0: the default) */
    void *site;               /* the wrapper's, set by enter */
    unsigned long long t0;    /* the wrapper's, set by enter */
    int traced;               /* the wrapper's, set by enter */
    int wrapped;              /* the guard's: enter gave a body */
} ompb__fork_call;

typedef struct ompb__fork_wrap {
    /* Before the fork: the body every team thread runs with the call as
     * its data (it must call c->fn(c->data)), or NULL to fork unchanged
     * (leave is then not called). */
    void (*(*enter)(ompb__fork_call *c))(void *);
    /* After the join, on the same thread. */
    void (*leave)(ompb__fork_call *c);
} ompb__fork_wrap;

/* Installs w (kept by pointer; NULL removes it) for every later call. */
void ompb__fork_wrap_set(const ompb__fork_wrap *w);

typedef struct ompb__ompt_hooks {
    /* On the encountering thread before the team starts: the region's
     * codeptr_ra (the return address of the runtime call that forks it, in
     * the function holding the construct) and the width it asked for; the
     * region's value, passed to the other hooks, or NULL to leave the
     * region alone (no other hook is then called for it). */
    void *(*begin)(const void *codeptr_ra, unsigned requested);
    /* On each team thread, first thing in its implicit task (the region's
     * value): the task's value, or NULL (no task_end, no barrier_wait). */
    void *(*task_begin)(void *region);
    /* On the same thread when it arrives at the region's closing barrier,
     * still inside the team (or when its task ends, for a team of one,
     * which has no barrier). */
    void (*task_end)(void *task);
    /* ns the thread waited in a barrier of the region before its closing
     * one (an explicit barrier, a worksharing construct's implicit one). */
    void (*barrier_wait)(void *task, unsigned long long ns);
    /* After the join, on the encountering thread. */
    void (*end)(void *region);
} ompb__ompt_hooks;

/* Installs h (kept by pointer; NULL removes it) for every later region. */
void ompb__ompt_hooks_set(const ompb__ompt_hooks *h);

/* Whether the runtime started the OMPT tool and reports its forks to it
 * (libomp or Intel's runtime, OMPT not disabled): the GNU wrapper is then
 * never asked. */
int ompb__ompt_on(void);

#endif
