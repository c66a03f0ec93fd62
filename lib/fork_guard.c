/* SPDX-License-Identifier: MIT */
/*
 * The fork guard's entry points. GCC compiles every `parallel` construct
 * into a call of one of libgomp's GOMP_parallel* functions; libompbench
 * defines them too, so that calls from the benchmark executable and from
 * the shared libraries it loads reach these first (the executable exports
 * them, and a shared libompbench comes before the runtime in lookup order).
 * Each one counts the call when the calling thread is watched and forwards
 * it, with its arguments untouched, to the next definition: the runtime's.
 *
 * They are weak, so that a fully static link takes libgomp.a's without a
 * clash (the guard then sees nothing, and says so), and they have default
 * visibility although libompbench hides everything else: the boundary test
 * (tests/boundary/exports.sh) allows exactly these names. Nothing here runs
 * inside a harness-team round unless the body forks, which is what the guard
 * reports; an unwatched caller pays a thread-local load and a branch.
 */
#include "fork_guard.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

/* initial-exec: a load relative to the thread pointer, no __tls_get_addr
 * call on the fork path. libompbench is linked in or loaded at start-up,
 * never dlopen'ed late, which is what this model requires. */
static _Thread_local ompb__fork_watch *watch __attribute__((tls_model("initial-exec")));

void ompb__fork_watch_set(ompb__fork_watch *w)
{
    watch = w;
}

/* Out of line: the common, unwatched path stays a load and a branch. */
__attribute__((noinline)) static void note(ompb__fork_watch *w, unsigned num_threads)
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

/* A host `teams` construct: libgomp 9+ runs the league's teams one after
 * another on this thread (no thread is created), so it is counted apart
 * from the forks, for the engine to say what it was. */
__attribute__((noinline)) static void note_teams(ompb__fork_watch *w, unsigned num_teams)
{
    w->host_teams++;
    w->last_num_teams = num_teams;
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
 * guard_<name>, which calls note(w, nthreads) for a watched thread, and the
 * exported weak alias name; OMPB__ENTRY_NOTE names another note. POSIX lets
 * a dlsym result be used as a function pointer; memcpy keeps -Wpedantic
 * quiet about it. */
#define OMPB__ENTRY(ret, name, params, args, nthreads, ret_kw) \
    OMPB__ENTRY_NOTE(note, ret, name, params, args, nthreads, ret_kw)
#define OMPB__ENTRY_NOTE(note_fn, ret, name, params, args, nthreads, ret_kw)  \
    typedef ret (*name##_fn) params;                                          \
    static void *_Atomic real_##name;                                         \
    static ret guard_##name params;                                           \
    ret name params;                                                          \
    extern __typeof__(guard_##name) name                                      \
        __attribute__((weak, alias("guard_" #name), visibility("default")));  \
    static ret guard_##name params                                            \
    {                                                                         \
        ompb__fork_watch *w = watch;                                          \
        if (__builtin_expect(w != NULL, 0))                                   \
            note_fn(w, nthreads);                                             \
        void *p = resolve(&real_##name, #name);                               \
        name##_fn real;                                                       \
        memcpy(&real, &p, sizeof real);                                       \
        ret_kw real args;                                                     \
    }

#define FN body_fn fn, void *data, unsigned n
#define LOOP_ARGS long start, long end, long incr
/* `return` for the one entry point with a result, nothing for the others. */
#define RETURN return
#define NO_RETURN

/* GCC >= 4.9: one call per construct. */
OMPB__ENTRY(void, GOMP_parallel, (FN, unsigned flags), (fn, data, n, flags), n, NO_RETURN)
OMPB__ENTRY(unsigned, GOMP_parallel_reductions, (FN, unsigned flags), (fn, data, n, flags), n,
            RETURN)
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
OMPB__ENTRY(void, GOMP_parallel_start, (FN), (fn, data, n), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_sections_start, (FN, unsigned count), (fn, data, n, count), n,
            NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_static_start, (FN, LOOP_ARGS, long chunk),
            (fn, data, n, start, end, incr, chunk), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_dynamic_start, (FN, LOOP_ARGS, long chunk),
            (fn, data, n, start, end, incr, chunk), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_guided_start, (FN, LOOP_ARGS, long chunk),
            (fn, data, n, start, end, incr, chunk), n, NO_RETURN)
OMPB__ENTRY(void, GOMP_parallel_loop_runtime_start, (FN, LOOP_ARGS),
            (fn, data, n, start, end, incr), n, NO_RETURN)

/* GCC >= 9: `#pragma omp teams` outside a target region. */
OMPB__ENTRY_NOTE(note_teams, void, GOMP_teams_reg,
                 (body_fn fn, void *data, unsigned num_teams, unsigned thread_limit,
                  unsigned flags), (fn, data, num_teams, thread_limit, flags), num_teams,
                 NO_RETURN)

ompb__fork_coverage ompb__fork_guard_coverage(void)
{
    static _Atomic int cached = -1;
    int c = atomic_load_explicit(&cached, memory_order_relaxed);
    if (c >= 0)
        return (ompb__fork_coverage)c;
    /* What the process's symbol lookup finds for the main entry point is
     * what every dynamically linked caller calls; the executable's own calls
     * were bound to the same definition when it was linked. */
    void (*mine)(FN, unsigned) = guard_GOMP_parallel;
    void *found = dlsym(RTLD_DEFAULT, "GOMP_parallel"), *self;
    memcpy(&self, &mine, sizeof self);
    if (found != self)
        c = OMPB__FORKS_SEEN_NONE;
    else if (dlsym(RTLD_DEFAULT, "__kmpc_fork_call"))
        c = OMPB__FORKS_SEEN_GNU_ONLY;
    else
        c = OMPB__FORKS_SEEN_ALL;
    atomic_store_explicit(&cached, c, memory_order_relaxed);
    return (ompb__fork_coverage)c;
}

const char *ompb__fork_coverage_name(ompb__fork_coverage c)
{
    switch (c) {
    case OMPB__FORKS_SEEN_ALL: return "all";
    case OMPB__FORKS_SEEN_GNU_ONLY: return "GNU entry points only";
    default: return "none";
    }
}

const char *ompb__fork_guard_warning(ompb__fork_coverage c)
{
    switch (c) {
    case OMPB__FORKS_SEEN_ALL:
        return NULL;
    case OMPB__FORKS_SEEN_GNU_ONLY:
        /* Code compiled for libomp (Clang, the Intel compilers) forks
         * through __kmpc_fork_call, which is not intercepted. */
        return "the OpenMP runtime is not libgomp (it forks through __kmpc_fork_call: LLVM "
               "libomp or Intel's): the nested-region guard is off for code compiled for it "
               "(Clang, the Intel compilers): a parallel region nested in a benchmark body "
               "is not detected, nor a caller team's region of another width (build with GCC "
               "and libgomp to have them checked)";
    default:
        return "the OpenMP runtime's fork entry points are found before libompbench's: "
               "parallel regions nested in a benchmark body cannot be detected (link "
               "libompbench before the OpenMP runtime)";
    }
}
