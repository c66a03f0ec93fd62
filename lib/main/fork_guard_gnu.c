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
 * runtime's. Under LLVM's libomp the guard's OMPT tool counts every fork,
 * these included (fork_guard_ompt.c), and these only forward.
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

static void watch_set(ompb_fork_watch *w)
{
    ompb__fork_watching = w;
}

const ompb_fork_guard ompb_fork_guard_gnu = {.watch = watch_set};

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

/* A fork through this entry point: counted here unless the OMPT tool
 * counts it (libomp's GOMP_* entries fork through its parallel_begin). */
static void note(ompb_fork_watch *w, unsigned num_threads)
{
    if (!atomic_load_explicit(&ompb__fork_ompt_on, memory_order_relaxed))
        ompb__fork_note(w, num_threads);
}

static void note_teams(ompb_fork_watch *w, unsigned num_teams)
{
    if (!atomic_load_explicit(&ompb__fork_ompt_on, memory_order_relaxed))
        ompb__fork_note_teams(w, num_teams);
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
 * guard_<name>, which calls note(w, nthreads) for a watched thread and lets
 * an installed wrapper wrap the body (fork_wrap.h), and the exported weak
 * alias name; OMPB__ENTRY_NOTE names another note and the wrapping. POSIX lets
 * a dlsym result be used as a function pointer; memcpy keeps -Wpedantic
 * quiet about it. */
#define OMPB__ENTRY(ret, name, params, args, nthreads, ret_kw) \
    OMPB__ENTRY_NOTE(note, ret, name, params, args, nthreads, ret_kw, WRAP)
#define OMPB__ENTRY_NOTE(note_fn, ret, name, params, args, nthreads, ret_kw, wrap_kw) \
    typedef ret (*name##_fn) params;                                          \
    static void *_Atomic real_##name;                                         \
    static ret guard_##name params;                                           \
    ret name params;                                                          \
    extern __typeof__(guard_##name) name                                      \
        __attribute__((weak, alias("guard_" #name), visibility("default")));  \
    static ret guard_##name params                                            \
    {                                                                         \
        ompb_fork_watch *w = ompb__fork_watching;                             \
        if (__builtin_expect(w != NULL, 0))                                   \
            note_fn(w, nthreads);                                             \
        void *p = resolve(&real_##name, #name);                               \
        name##_fn real;                                                       \
        memcpy(&real, &p, sizeof real);                                       \
        wrap_kw                                                               \
        ret_kw real args;                                                     \
    }

#define FN body_fn fn, void *data, unsigned n
#define LOOP_ARGS long start, long end, long incr
/* The combined form is wrapped (fork_wrap.h; the cleanup tells the wrapper
 * after the join); the split form and `teams` are not. */
#define WRAP_AS(head)                                                          \
    __attribute__((cleanup(unwrap))) ompb__fork_call call = {0};               \
    wrap(&call, &fn, &data, n, head);
#define WRAP WRAP_AS(0)
#define WRAP_HEAD WRAP_AS(1)
#define NO_WRAP
/* `return` for the one entry point with a result, nothing for the others. */
#define RETURN return
#define NO_RETURN

/* GCC >= 4.9: one call per construct. */
OMPB__ENTRY(void, GOMP_parallel, (FN, unsigned flags), (fn, data, n, flags), n, NO_RETURN)
OMPB__ENTRY_NOTE(note, unsigned, GOMP_parallel_reductions, (FN, unsigned flags),
                 (fn, data, n, flags), n, RETURN, WRAP_HEAD)
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
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_start, (FN), (fn, data, n), n, NO_RETURN, NO_WRAP)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_sections_start, (FN, unsigned count),
                 (fn, data, n, count), n, NO_RETURN, NO_WRAP)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_loop_static_start, (FN, LOOP_ARGS, long chunk),
                 (fn, data, n, start, end, incr, chunk), n, NO_RETURN, NO_WRAP)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_loop_dynamic_start, (FN, LOOP_ARGS, long chunk),
                 (fn, data, n, start, end, incr, chunk), n, NO_RETURN, NO_WRAP)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_loop_guided_start, (FN, LOOP_ARGS, long chunk),
                 (fn, data, n, start, end, incr, chunk), n, NO_RETURN, NO_WRAP)
OMPB__ENTRY_NOTE(note, void, GOMP_parallel_loop_runtime_start, (FN, LOOP_ARGS),
                 (fn, data, n, start, end, incr), n, NO_RETURN, NO_WRAP)

/* GCC >= 9: `#pragma omp teams` outside a target region. */
OMPB__ENTRY_NOTE(note_teams, void, GOMP_teams_reg,
                 (body_fn fn, void *data, unsigned num_teams, unsigned thread_limit,
                  unsigned flags), (fn, data, num_teams, thread_limit, flags), num_teams,
                 NO_RETURN, NO_WRAP)
