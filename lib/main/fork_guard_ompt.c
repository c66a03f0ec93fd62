/* SPDX-License-Identifier: MIT */
/*
 * The fork guard on LLVM's libomp (and Intel's runtime, the same code
 * base), through the OpenMP tools interface (OMPT): code compiled by Clang
 * or the Intel compilers forks through __kmpc_fork_call, which no
 * definition placed before the runtime's can see, but the runtime reports
 * every region it forks to the tool it started. This file defines that
 * tool's entry, ompt_start_tool, beside the GNU entry points
 * (fork_guard_gnu.c, which references ompb__fork_ompt_on and so pulls this
 * object out of the static libraries): in an executable (ompbench::main,
 * ompbench::mpi, ompbench::fork_guard) the runtime finds it first.
 *
 * - The guard: parallel_begin on a watched thread counts the region with
 *   the width the runtime resolved for it (the num_threads or if clause,
 *   else nthreads-var), as the GNU entry points do (fork_note.h); a
 *   `teams` league counts as a fork of its num_teams initial threads
 *   (libomp runs them at once, unlike libgomp's host teams). Only
 *   parallel_begin is registered, so a benchmark body's barriers cost
 *   nothing more.
 * - The tracing library (built with OMPB_OMPT_TRACE): also the implicit
 *   tasks and the barrier waits, handed to the hooks of fork_wrap.h.
 *
 * One tool per process: OMPT starts the first one found. The guard leaves
 * the place to another tool (one the next ompt_start_tool in symbol lookup
 * starts, or OMP_TOOL_LIBRARIES), and then sees Clang's forks no more (the
 * run's probe says so). The tracing library takes it (tracing is what was
 * asked for), and says when it keeps OMP_TOOL_LIBRARIES from loading.
 *
 * Which barrier closes a region: a 5.1 runtime says so
 * (barrier_implicit_parallel); libomp 14 reports that barrier and a
 * worksharing construct's alike as barrier_implicit, and tells them apart
 * only by the code pointer: the closing one carries the region's own
 * codeptr_ra on the primary thread and none on the others, where a
 * construct's barrier carries its call site in the outlined function.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>

#include "fork_note.h"
#include "fork_wrap.h"
#include "ompt_abi.h"

_Atomic bool ompb__fork_ompt_on;

static const ompb__ompt_hooks *_Atomic hooks;

/* A top-level region traced, on its encountering thread's own storage
 * (one top-level region at a time per thread): parallel_data points here. */
typedef struct region_state {
    const ompb__ompt_hooks *h;
    void *value;
    const void *ra;
} region_state;

static _Thread_local region_state opened __attribute__((tls_model("initial-exec")));

void ompb__ompt_hooks_set(const ompb__ompt_hooks *h)
{
    atomic_store_explicit(&hooks, h, memory_order_release);
}

int ompb__ompt_on(void)
{
    return atomic_load_explicit(&ompb__fork_ompt_on, memory_order_relaxed);
}

static void on_parallel_begin(ompb__ompt_data *task, const void *frame, ompb__ompt_data *parallel,
                              unsigned requested, int flags, const void *ra)
{
    (void)task;
    (void)frame;
    ompb__fork_thread *g = ompb__fork_active;
    if (__builtin_expect(g != NULL, 0)) {
        if (g->watch)
            ompb__fork_note(g->watch, requested);
        /* The observer hears the width the runtime resolved at the fork: a
         * thread limit or a dynamic adjustment after it is not seen here
         * (the GNU entry points read the width inside the team). */
        if (g->observer && omp_get_level() == 0 && requested > 0
            && !((unsigned)flags & OMPB__OMPT_PARALLEL_LEAGUE))
            g->observer(requested);
    }
    const ompb__ompt_hooks *h = atomic_load_explicit(&hooks, memory_order_acquire);
    if (!h || !parallel || ((unsigned)flags & OMPB__OMPT_PARALLEL_LEAGUE)
        || omp_get_level() != 0)
        return;
    void *v = h->begin(ra, requested);
    if (!v)
        return;
    opened = (region_state){.h = h, .value = v, .ra = ra};
    parallel->ptr = &opened;
}

#ifdef OMPB_OMPT_TRACE
/* The calling thread's implicit task of a traced region (implicit tasks
 * are tied: begin, barriers and end on one thread); task_data points here. */
typedef struct task_state {
    const ompb__ompt_hooks *h;
    void *value;                /* NULL: ended (or none) */
    const void *ra;
    uint64_t wait_t0;           /* a barrier wait's start; 0: none */
} task_state;

static _Thread_local task_state self __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_parallel_end(ompb__ompt_data *parallel, ompb__ompt_data *task, int flags,
                            const void *ra)
{
    (void)task;
    (void)flags;
    (void)ra;
    region_state *r = parallel ? parallel->ptr : NULL;
    if (!r)
        return;
    parallel->ptr = NULL;
    r->h->end(r->value);
    r->h = NULL;
}

static void task_end(void)
{
    void *v = self.value;
    self.value = NULL;
    self.h->task_end(v);
}

static void on_implicit_task(int endpoint, ompb__ompt_data *parallel, ompb__ompt_data *task,
                             unsigned actual, unsigned index, int flags)
{
    (void)actual;
    (void)index;
    if (!((unsigned)flags & OMPB__OMPT_TASK_IMPLICIT) || !task)
        return;
    if (endpoint == OMPB__OMPT_SCOPE_BEGIN) {
        const region_state *r = parallel ? parallel->ptr : NULL;
        void *v = r ? r->h->task_begin(r->value) : NULL;
        if (!v)
            return;
        self = (task_state){.h = r->h, .value = v, .ra = r->ra};
        task->ptr = &self;
    } else if (endpoint == OMPB__OMPT_SCOPE_END && task->ptr == &self) {
        /* A team of one has no closing barrier: its task's end is it. */
        if (self.value)
            task_end();
        task->ptr = NULL;
    }
}

static bool closing_barrier(int kind, const void *ra)
{
    if (kind == OMPB__OMPT_BARRIER_IMPLICIT_PARALLEL)
        return true;
    return kind == OMPB__OMPT_BARRIER_IMPLICIT && (ra == NULL || ra == self.ra);
}

static void on_sync_wait(int kind, int endpoint, ompb__ompt_data *parallel, ompb__ompt_data *task,
                         const void *ra)
{
    (void)parallel;
    if (!task || task->ptr != &self || !self.value)
        return;
    if (endpoint == OMPB__OMPT_SCOPE_BEGIN) {
        if (closing_barrier(kind, ra)) {
            self.wait_t0 = 0;
            task_end();
        } else {
            self.wait_t0 = now_ns();
        }
    } else if (endpoint == OMPB__OMPT_SCOPE_END && self.wait_t0) {
        self.h->barrier_wait(self.value, now_ns() - self.wait_t0);
        self.wait_t0 = 0;
    }
}
#endif

/* POSIX lets a function pointer travel through a data pointer; memcpy
 * keeps -Wpedantic quiet about it, as in fork_guard_gnu.c. */
static int set(ompb__ompt_set_callback s, int event, const void *fn)
{
    ompb__ompt_callback cb;
    memcpy(&cb, &fn, sizeof cb);
    int r = s(event, cb);
    return r != OMPB__OMPT_SET_ERROR && r != OMPB__OMPT_SET_NEVER;
}

static int initialize(ompb__ompt_lookup lookup, int device, ompb__ompt_data *tool_data)
{
    (void)device;
    (void)tool_data;
    ompb__ompt_callback f = lookup("ompt_set_callback");
    ompb__ompt_set_callback s;
    memcpy(&s, &f, sizeof s);
    if (!s)
        return 0;
    ompb__ompt_parallel_begin begin = on_parallel_begin;
    void *p;
    memcpy(&p, &begin, sizeof p);
    if (!set(s, OMPB__OMPT_PARALLEL_BEGIN, p))
        return 0;
#ifdef OMPB_OMPT_TRACE
    ompb__ompt_parallel_end end = on_parallel_end;
    ompb__ompt_implicit_task it = on_implicit_task;
    ompb__ompt_sync_region wait = on_sync_wait;
    memcpy(&p, &end, sizeof p);
    int ok = set(s, OMPB__OMPT_PARALLEL_END, p);
    memcpy(&p, &it, sizeof p);
    ok = ok && set(s, OMPB__OMPT_IMPLICIT_TASK, p);
    if (!ok) {
        fprintf(stderr, "ompbench trace: the OpenMP runtime refused the OMPT callbacks of "
                "parallel regions and implicit tasks: nothing is traced\n");
        return 0;
    }
    /* Without it (optional in OMPT) a thread's busy time runs to its task's
     * end: after the closing barrier. */
    memcpy(&p, &wait, sizeof p);
    (void)set(s, OMPB__OMPT_SYNC_REGION_WAIT, p);
#endif
    atomic_store_explicit(&ompb__fork_ompt_on, true, memory_order_relaxed);
    return 1;
}

static void finalize(ompb__ompt_data *tool_data)
{
    (void)tool_data;
}

static ompb__ompt_start_tool_result tool = {.initialize = initialize, .finalize = finalize};

typedef ompb__ompt_start_tool_result *(*start_tool_fn)(unsigned, const char *);

__attribute__((visibility("default"))) ompb__ompt_start_tool_result *
ompt_start_tool(unsigned omp_version, const char *runtime_version);

ompb__ompt_start_tool_result *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
    const char *libs = getenv("OMP_TOOL_LIBRARIES");
#ifdef OMPB_OMPT_TRACE
    (void)omp_version;
    (void)runtime_version;
    if (libs && *libs)
        fprintf(stderr, "ompbench trace: OMP_TOOL_LIBRARIES is not loaded (%s): the runtime "
                "starts one OMPT tool, the trace's\n", libs);
#else
    if (libs && *libs)
        return NULL;
    void *p = dlsym(RTLD_NEXT, "ompt_start_tool");
    start_tool_fn next;
    memcpy(&next, &p, sizeof next);
    ompb__ompt_start_tool_result *other = next ? next(omp_version, runtime_version) : NULL;
    if (other)
        return other;
#endif
    return &tool;
}
