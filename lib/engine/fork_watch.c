/* SPDX-License-Identifier: MIT */
/*
 * The engine's side of the fork guard: the guard a main() library installed
 * (ompb_set_fork_guard, lib/run/fork_guard_set.c), the watch calls the rounds make through it, and
 * what it was seen to cover. libompbench defines none of the runtime's
 * entry points itself (lib/main/fork_guard_gnu.c is linked only into programs
 * that ask for it), so a program without a guard forks straight into its
 * runtime and every watch here is a test and a return.
 */
#include "engine/fork_guard.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>


/* Set by the thread that runs ompb_main before it starts any team thread
 * (the team's creation orders it before their reads), never during a run. */
static ompb_fork_guard installed;
static _Atomic int coverage = OMPB__FORKS_SEEN_OFF;

void ompb__fork_watch_set(ompb__fork_watch *w)
{
    if (installed.watch)
        installed.watch(w);
}

/* libgomp's entry point of a `parallel` construct (GCC's ABI, which LLVM's
 * libomp implements too), declared by no header: the probe calls it by
 * name, so that it tests the GNU entry points the guard defines whatever
 * compiler built this file (Clang would fork through __kmpc_fork_call). */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

static void empty_region(void *data)
{
    (void)data;
}

/* libomp's own entry points (LLVM's libomp and Intel's runtime), through
 * which Clang- and Intel-compiled code forks: declared by no header, found
 * by name (dlsym), so that this file neither needs libomp nor is compiled
 * differently for it. The location and the microtask follow the runtime's
 * ABI (kmp.h: ident_t, kmpc_micro). */
typedef struct kmp_ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} kmp_ident;
typedef void (*kmp_micro)(int32_t *gtid, int32_t *btid, ...);
typedef void (*kmp_fork_call)(kmp_ident *loc, int32_t argc, kmp_micro fn, ...);
typedef int32_t (*kmp_thread_num)(kmp_ident *loc);
typedef void (*kmp_push_num_threads)(kmp_ident *loc, int32_t gtid, int32_t n);

static void empty_micro(int32_t *gtid, int32_t *btid, ...)
{
    (void)gtid;
    (void)btid;
}

/* A symbol of the process as a function pointer (POSIX allows it; memcpy
 * keeps -Wpedantic quiet). */
static bool lookup(const char *name, void *fn, size_t size)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (p)
        memcpy(fn, &p, size);
    return p != NULL;
}

/* One empty region on one thread forked through __kmpc_fork_call, as
 * Clang compiles a `parallel num_threads(1)`, while watched: counted only
 * when the guard sees libomp's own forks (fork_guard_ompt.c: the runtime
 * started its OMPT tool). */
static bool probe_kmpc_fork(const ompb_fork_guard *g)
{
    kmp_fork_call fork_call;
    kmp_thread_num thread_num;
    kmp_push_num_threads push;
    if (!lookup("__kmpc_fork_call", &fork_call, sizeof fork_call)
        || !lookup("__kmpc_global_thread_num", &thread_num, sizeof thread_num)
        || !lookup("__kmpc_push_num_threads", &push, sizeof push))
        return false;
    kmp_ident loc = {.flags = 0x2, .psource = ";unknown;ompb_set_fork_guard;0;0;;"};
    ompb_fork_watch w = {0};
    g->watch(&w);
    push(&loc, thread_num(&loc), 1);
    fork_call(&loc, 0, empty_micro);
    g->watch(NULL);
    return w.forks == 1;
}

/* One empty region on one thread, forked from libompbench while watched:
 * counted only when this library's forks reach the guard, which is also
 * what a shared library loaded by the benchmark gets (an executable's own
 * calls were bound to the guard's definitions when it was linked, or to
 * the runtime's archive before them, which the probe sees the same way in
 * a static link). */
static bool probe_fork(const ompb_fork_guard *g)
{
    ompb_fork_watch w = {0};
    g->watch(&w);
    GOMP_parallel(empty_region, NULL, 1, 0);
    g->watch(NULL);
    return w.forks == 1;
}

ompb__fork_coverage ompb__fork_guard_install(const ompb_fork_guard *g)
{
    installed = g ? *g : (ompb_fork_guard){0};
    /* The runtime's first fork initializes it, and libomp starts its OMPT
     * tool then: before it the guard's GNU entry points cannot know that
     * the tool will count the fork too. One unwatched fork first. */
    if (g)
        GOMP_parallel(empty_region, NULL, 1, 0);
    int c = OMPB__FORKS_SEEN_OFF;
    if (g && !probe_fork(g))
        c = OMPB__FORKS_SEEN_NONE;
    else if (g && dlsym(RTLD_DEFAULT, "__kmpc_fork_call"))
        c = probe_kmpc_fork(g) ? OMPB__FORKS_SEEN_ALL : OMPB__FORKS_SEEN_GNU_ONLY;
    else if (g)
        c = OMPB__FORKS_SEEN_ALL;
    atomic_store_explicit(&coverage, c, memory_order_relaxed);
    return (ompb__fork_coverage)c;
}

ompb_fork_guard ompb__fork_guard_installed(void)
{
    return installed;
}

ompb__fork_coverage ompb__fork_guard_coverage(void)
{
    return (ompb__fork_coverage)atomic_load_explicit(&coverage, memory_order_relaxed);
}

const char *ompb__fork_coverage_name(ompb__fork_coverage c)
{
    switch (c) {
    case OMPB__FORKS_SEEN_ALL: return "all";
    case OMPB__FORKS_SEEN_GNU_ONLY: return "GNU entry points only";
    case OMPB__FORKS_SEEN_NONE: return "none";
    default: return "off";
    }
}

const char *ompb__fork_guard_warning(ompb__fork_coverage c)
{
    switch (c) {
    case OMPB__FORKS_SEEN_ALL:
        return NULL;
    case OMPB__FORKS_SEEN_GNU_ONLY:
        /* Code compiled for libomp (Clang, the Intel compilers) forks
         * through __kmpc_fork_call, which only the OMPT tool sees. */
        return "the OpenMP runtime is not libgomp (it forks through __kmpc_fork_call: LLVM "
               "libomp or Intel's) and did not start the guard's OMPT tool (OMP_TOOL=disabled, "
               "OMP_TOOL_LIBRARIES or another tool took its one place, or a runtime without "
               "OMPT): the nested-region guard is off for code compiled for it (Clang, the "
               "Intel compilers): a parallel region nested in a benchmark body is not "
               "detected, nor a caller team's region of another width";
    case OMPB__FORKS_SEEN_NONE:
        return "the OpenMP runtime's fork entry points are found before the fork guard's: "
               "parallel regions nested in a benchmark body cannot be detected (link "
               "ompbench::fork_guard before the OpenMP runtime)";
    default:
        return "the fork guard is off (this program's main() installed none): parallel "
               "regions nested in a benchmark body are not detected (link ompbench::main, "
               "or ompbench::fork_guard and call ompb_set_fork_guard(&ompb_fork_guard_gnu) "
               "before ompb_main)";
    }
}
