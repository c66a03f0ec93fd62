/* SPDX-License-Identifier: MIT */
/*
 * The fork guard's wrapping hook (lib/main/fork_guard_gnu.c), for the
 * tracing library of `ompbench trace` (lib/main/trace_gnu.c) and nothing
 * else: while a wrapper is installed, each GOMP_parallel* call of the
 * combined form (GCC >= 4.9) asks it, on the encountering thread before the
 * fork, for a body to run on every thread of the new team in place of the
 * outlined function, and tells it after the join. The older split form
 * (GOMP_parallel_start ... GOMP_parallel_end) and host `teams` are never
 * wrapped. Internal to lib/main: never installed.
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

#endif
