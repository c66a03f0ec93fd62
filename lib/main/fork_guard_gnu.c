/* SPDX-License-Identifier: MIT */
/*
 * The fork guard of GNU OpenMP (ompbench::fork_guard, never part of
 * libompbench): definitions of libgomp's fork entry points. GCC compiles
 * every `parallel` construct into a call of one of the GOMP_parallel*
 * functions, and a host `teams` construct into GOMP_teams_reg; this static
 * library puts definitions of them into the executable that links it, so
 * that calls from the executable and from the shared libraries it loads
 * reach these first (the executable comes first in lookup order). Each one
 * counts the call when the calling thread is watched (fork_note.c) and
 * forwards it, with its arguments untouched, to the next definition: the
 * runtime's. Under LLVM's libomp the guard's OMPT tool counts and observes
 * every fork, these included (fork_guard_ompt.c), and these only forward.
 *
 * Only programs that ask for it carry this: ompbench::main and
 * ompbench::mpi, whose main() installs ompb_fork_guard_gnu, or a benchmark
 * binary with its own main() that links this library and does the same. An
 * application that links libompbench for regions or hooks keeps its forks.
 * The entries are weak, so that a fully static link takes libgomp.a's
 * without a clash (the engine's probe fork then is not counted, and the run
 * says so). Nothing here runs inside a harness-team round unless the body
 * forks, which is what the guard reports; an unwatched caller pays a
 * thread-local load and a branch.
 *
 * A thread the region markers observe (ompb_fork_observer: one that began
 * a region outside any team) has each of its forks at level 0 wrapped: the
 * team's thread 0 reads the team's width (omp_get_num_threads()) before it
 * runs the outlined function, and the observer hears it after the join.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include <ompbench/fork_guard.h>

#include "fork_note.h"
#include "fork_wrap.h"

typedef ompb__fork_thread guard_thread;

/* The calling thread's guard state for these entry points: NULL when it is
 * neither watched nor observed, or while the OMPT tool sees the forks
 * (libomp's GOMP_* entries fork through its parallel_begin, which counts
 * and observes them once: fork_note.h). */
static inline guard_thread *guard_self(void)
{
    guard_thread *g = ompb__fork_active;
    if (__builtin_expect(g != NULL, 0)
        && atomic_load_explicit(&ompb__fork_ompt_on, memory_order_relaxed))
        return NULL;
    return g;
}

const ompb_fork_guard ompb_fork_guard_gnu = {.watch = ompb__fork_set_watch,
                                             .observe = ompb__fork_set_observer};

/* The wrapper of `ompbench trace` (fork_wrap.h); NULL in every other
 * program, where it costs a load and a branch per construct. */
static const ompb__fork_wrap *_Atomic wrapper;

void ompb__fork_wrap_set(const ompb__fork_wrap *w)
{
    atomic_store_explicit(&wrapper, w, memory_order_release);
}

/* The cleanup of a wrapped call: runs when the entry point returns, after
 * the join (and after the result of GOMP_parallel_reductions is taken). */
static void unwrap(ompb__fork_call *c)
{
    const ompb__fork_wrap *w = c->wrapped ? atomic_load_explicit(&wrapper, memory_order_acquire)
                                          : NULL;
    if (w)
        w->leave(c);
}

/* Asks the wrapper for a body: on success fn and data become it and c. */
static void wrap(ompb__fork_call *c, void (**fn)(void *), void **data, unsigned n, int head)
{
    const ompb__fork_wrap *w = atomic_load_explicit(&wrapper, memory_order_acquire);
    /* Under libomp the OMPT tool traces this fork (fork_note.h). */
    if (__builtin_expect(w == NULL, 1)
        || atomic_load_explicit(&ompb__fork_ompt_on, memory_order_relaxed))
        return;
    *c = (ompb__fork_call){.head = head && *data ? *(void **)*data : NULL, .fn = *fn,
                          .data = *data, .num_threads = n};
    void (*body)(void *) = w->enter(c);
    if (!body)
        return;
    c->wrapped = 1;
    *fn = body;
    *data = c;
}

/* One observed fork (a combined-form construct at level 0), on the
 * encountering thread's stack for the length of the call; like
 * ompb__fork_call, head stays first. */
typedef struct observed_call {
    void *head;
    void (*fn)(void *);
    void *data;
    ompb_fork_observer observer;   /* NULL: not observed */
} observed_call;

/* The width of the team the calling thread forked last, written by it as
 * the team's thread 0 (the encountering thread): thread-local, so that the
 * other threads only read the observed call, which stays clean in their
 * caches. 0 until the team ran. */
static _Thread_local unsigned team_width __attribute__((tls_model("initial-exec")));

/* The body of an observed team: thread 0 is the encountering thread, whose
 * stack holds c until the join. */
static void observed_body(void *arg)
{
    const observed_call *c = arg;
    if (omp_get_thread_num() == 0)
        team_width = (unsigned)omp_get_num_threads();
    c->fn(c->data);
}

/* After the join (and after any wrapper's cleanup was declared before). */
static void unobserve(observed_call *c)
{
    if (c->observer && team_width)
        c->observer(team_width);
}

/* For an observed thread at level 0, makes fn and data observed_body and c
 * (after the trace wrapper's, whose body then runs inside it). */
__attribute__((noinline)) static void observe(const guard_thread *g, observed_call *c,
                                              void (**fn)(void *), void **data, int head)
{
    if (!g->observer || omp_get_level() != 0)
        return;
    team_width = 0;
    *c = (observed_call){.head = head && *data ? *(void **)*data : NULL, .fn = *fn,
                         .data = *data, .observer = g->observer};
    *fn = observed_body;
    *data = c;
}

/* The split form: GOMP_parallel*_start returns with the encountering
 * thread as thread 0 of the started team, one level deeper (level 1: it
 * forked at level 0), which tells the team's width at once. */
__attribute__((noinline)) static void observe_started(const guard_thread *g)
{
    if (g->observer && omp_get_level() == 1)
        g->observer((unsigned)omp_get_num_threads());
}

/* A fork through this entry point of a watched or observed thread. */
static void note(guard_thread *g, unsigned num_threads)
{
    if (g->watch)
        ompb__fork_note(g->watch, num_threads);
}

static void note_teams(guard_thread *g, unsigned num_teams)
{
    if (g->watch)
        ompb__fork_note_teams(g->watch, num_teams);
}

/* The next definition of name after this object's: the runtime's. */
static void *resolve(void *_Atomic *slot, const char *name)
{
    void *p = atomic_load_explicit(slot, memory_order_relaxed);
    if (__builtin_expect(p != NULL, 1))
        return p;
    p = dlsym(RTLD_NEXT, name);
    if (!p) {
        /* Only reachable when the code calling it was linked against a
         * runtime that has it, and the runtime now loaded has not. */
        fprintf(stderr, "ompbench: the OpenMP runtime loaded has no %s\n", name);
        abort();
    }
    atomic_store_explicit(slot, p, memory_order_relaxed);
    return p;
}

typedef void (*body_fn)(void *);

/* OMPB__ENTRY(ret, name, (params), (args), nthreads): the implementation
 * guard_<name>, which calls note(g, nthreads) for a watched or observed
 * thread, lets an installed wrapper wrap the body (fork_wrap.h) and an
 * observed thread's fork at level 0 be observed, and the exported weak alias
 * name; OMPB__ENTRY_NOTE names another note, the wrapping and what follows
 * the call. POSIX lets a dlsym result be used as a function pointer; memcpy
 * keeps -Wpedantic quiet about it. */
#define OMPB__ENTRY(ret, name, params, args, nthreads, ret_kw) \
    OMPB__ENTRY_NOTE(note, ret, name, params, args, nthreads, ret_kw, WRAP, NOTHING_AFTER)
#define OMPB__ENTRY_NOTE(note_fn, ret, name, params, args, nthreads, ret_kw, wrap_kw,   \
                         after_kw)                                              \
    typedef ret (*name##_fn) params;                                          \
    static void *_Atomic real_##name;                                         \
    static ret guard_##name params;                                           \
    ret name params;                                                          \
    extern __typeof__(guard_##name) name                                      \
        __attribute__((weak, alias("guard_" #name), visibility("default")));  \
    static ret guard_##name params                                            \
    {                                                                         \
        guard_thread *g = guard_self();                                       \
        if (__builtin_expect(g != NULL, 0))                                   \
            note_fn(g, nthreads);                                             \
        void *p = resolve(&real_##name, #name);                               \
        name##_fn real;                                                       \
        memcpy(&real, &p, sizeof real);                                       \
        wrap_kw                                                               \
        ret_kw real args;                                                     \
        after_kw                                                              \
    }

#define FN body_fn fn, void *data, unsigned n
#define LOOP_ARGS long start, long end, long incr
/* The combined form is wrapped (fork_wrap.h; the cleanup tells the wrapper
 * after the join) and observed (the observer hears after the join, before
 * the wrapper: cleanups run in reverse order); the split form is observed
 * once started; `teams` neither. */
#define WRAP_AS(head)                                                          \
    __attribute__((cleanup(unwrap))) ompb__fork_call call = {0};               \
    wrap(&call, &fn, &data, n, head);                                          \
    __attribute__((cleanup(unobserve))) observed_call seen;                   \
    seen.observer = NULL; /* all the cleanup reads unless observe fills it */ \
    if (__builtin_expect(g != NULL, 0))                                        \
        observe(g, &seen, &fn, &data, head);
#define WRAP WRAP_AS(0)
#define WRAP_HEAD WRAP_AS(1)
#define NO_WRAP
#define NOTHING_AFTER
#define STARTED                                                                \
    if (__builtin_expect(g != NULL, 0))                                        \
        observe_started(g);
/* `return` for the one entry point with a result, nothing for the others. */
#define RETURN return
#define NO_RETURN

/* GCC >= 4.9: one call per construct. */
OMPB__ENTRY(void, GOMP_parallel, (FN, unsigned flags), (fn, data, n, flags), n, NO_RETURN)
OMPB__ENTRY_NOTE(note, unsigned, GOMP_parallel_reductions, (FN, unsigned flags),
                 (fn, data, n, flags), n, RETURN, WRAP_HEAD, NOTHING_AFTER)
OMPB__ENTRY(void, GOMP_parallel_sections, (FN, unsigned count, unsigned flags),
            (fn, data, n, count, flags), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_static, (FN, LOOP_ARGS, long chunk, unsigned flags),
            (fn, data, n, start, end, incr, chunk, flags), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_dynamic, (FN, LOOP_ARGS, long chunk, unsigned flags),
            (fn, data, n, start, end, incr, chunk, flags), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_guided, (FN, LOOP_ARGS, long chunk, unsigned flags),
            (fn, data, n, start, end, incr, chunk, flags), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_nonmonotonic_dynamic,
            (FN, LOOP_ARGS, long chunk, unsigned flags),
            (fn, data, n, start, end, incr, chunk, flags), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_nonmonotonic_guided,
            (FN, LOOP_ARGS, long chunk, unsigned flags),
            (fn, data, n, start, end, incr, chunk, flags), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_runtime, (FN, LOOP_ARGS, unsigned flags),
            (fn, data, n, start, end, incr, flags), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_nonmonotonic_runtime, (FN, LOOP_ARGS, unsigned flags),
            (fn, data, n, start, end, incr, flags), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_maybe_nonmonotonic_runtime,
            (FN, LOOP_ARGS, unsigned flags), (fn, data, n, start, end, incr, flags), n,
            NO_RETURN)
/* Older GCC: a start call (the encountering thread then runs the body and
 * calls GOMP_parallel_end itself), which is where the region forks. */
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_start, (FN), (fn, data, n), n, NO_RETURN, NO_WRAP,
                 STARTED)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_sections_start, (FN, unsigned count),
                 (fn, data, n, count), n, NO_RETURN, NO_WRAP, STARTED)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_loop_static_start, (FN, LOOP_ARGS, long chunk),
                 (fn, data, n, start, end, incr, chunk), n, NO_RETURN, NO_WRAP, STARTED)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_loop_dynamic_start, (FN, LOOP_ARGS, long chunk),
                 (fn, data, n, start, end, incr, chunk), n, NO_RETURN, NO_WRAP, STARTED)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_loop_guided_start, (FN, LOOP_ARGS, long chunk),
                 (fn, data, n, start, end, incr, chunk), n, NO_RETURN, NO_WRAP, STARTED)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_loop_runtime_start, (FN, LOOP_ARGS),
                 (fn, data, n, start, end, incr), n, NO_RETURN, NO_WRAP, STARTED)

/* GCC >= 9: `#pragma omp teams` outside a target region. */
OMPB__ENTRY_NOTE(note_teams, void, GOMP_teams_reg,
                 (body_fn fn, void *data, unsigned num_teams, unsigned thread_limit,
                  unsigned flags), (fn, data, num_teams, thread_limit, flags), num_teams,
                 NO_RETURN, NO_WRAP, NOTHING_AFTER)
