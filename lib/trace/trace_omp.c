/* SPDX-License-Identifier: MIT */
/*
 * `ompbench trace` on LLVM's libomp (and Intel's runtime), from the events
 * its OMPT tool receives (lib/main/fork_guard_ompt.c, built into the same
 * library; the runtime starts it because the library, preloaded, defines
 * ompt_start_tool): each top-level parallel-region instance becomes an
 * instance of a region, as on libgomp (trace_gnu.c), through the region
 * markers on every team thread:
 *
 * - a thread's begin is the start of its implicit task, right before the
 *   outlined function runs;
 * - its end is its arrival at the region's closing barrier (the join),
 *   where libgomp's outlined function returns; a team of one, which has no
 *   barrier, ends with its task;
 * - the time a thread waits in the region's other barriers (explicit ones,
 *   a worksharing construct's implicit one) is summed per region, over
 *   threads and traced instances, for the report's context (libgomp has no
 *   such event).
 *
 * The site is the construct's codeptr_ra: the return address of the
 * runtime call that forks the region (__kmpc_fork_call), in the function
 * that holds the construct. It is named from the call itself (the address
 * before it): Clang gives that call the construct's line, so with line
 * tables the name is the construct's FILE:LINE, as on libgomp; without
 * them it is the enclosing function and the call's offset (main+0x3b),
 * where libgomp's names the outlined function.
 */
#include <stdint.h>

#include <ompbench/region.h>

#include "main/fork_wrap.h"
#include "trace/trace.h"

/* A top-level instance, on its encountering thread (one at a time there). */
typedef struct instance {
    ompb__trace_site *site;
    bool traced;
    uint64_t t0;
} instance;

static _Thread_local instance current;

static void *begin(const void *ra, unsigned requested)
{
    (void)requested;
    ompb__trace_site *s = ompb__trace_site_of(ra, (const char *)ra - 1);
    if (!s)
        return NULL;
    current.site = s;
    current.traced = ompb__trace_enter(s, &current.t0);
    return &current;
}

static void *task_begin(void *region)
{
    const instance *in = region;
    if (!in->traced)
        return NULL;
    ompb__trace_site *s = in->site;
    ompb_region_begin_at(s->name, s->file, s->line);
    return s;
}

static void task_end(void *task)
{
    const ompb__trace_site *s = task;
    ompb_region_end_at(s->name, s->file, s->line);
}

static void barrier_wait(void *task, unsigned long long ns)
{
    ompb__trace_site *s = task;
    atomic_fetch_add_explicit(&s->barrier_ns, ns, memory_order_relaxed);
}

static void end(void *region)
{
    instance *in = region;
    ompb__trace_leave(in->site, in->traced, in->t0);
}

static const ompb__ompt_hooks hooks = {.begin = begin, .task_begin = task_begin,
                                       .task_end = task_end, .barrier_wait = barrier_wait,
                                       .end = end};

void ompb__trace_omp_install(void)
{
    ompb__ompt_hooks_set(&hooks);
}
