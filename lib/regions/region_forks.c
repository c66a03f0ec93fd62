/* SPDX-License-Identifier: MIT */
/*
 * The teams forked inside level-0 regions: the widths their frames record
 * (from marked regions in the teams, or from a fork observer) and the fork
 * guard's observation of the threads that begin regions at level 0. A
 * guard observes a thread once asked to and for the rest of its life: the
 * cost, a wrapped body per fork, falls on threads that mark regions outside
 * teams only, and ompb__region_team_forked is a load and a return while
 * no region is open.
 */
#include "regions/region_forks.h"

#include <stdatomic.h>

typedef void (*observe_fn)(ompb_fork_observer f);

/* The installed guard's observe (set by ompb_set_fork_guard, read by
 * every thread's first begins at level 0). */
static _Atomic(observe_fn) observer;
/* The first region begun at level 0 while the runtime would fork more than
 * one thread, and that answer: the report's note when nothing observes. */
static _Atomic(const ompb__region *) wide_first;
static _Atomic int wide_max;

void ompb__region_note_inner(ompb__region_thread *ts, unsigned threads)
{
    uint32_t w = threads;
    for (int i = 0; i < ts->depth; i++) {
        ompb__region_frame *f = &ts->stack[i];
        if (f->level != 0)
            continue;
        if (f->inner_lo == 0 || w < f->inner_lo)
            f->inner_lo = w;
        if (w > f->inner_hi)
            f->inner_hi = w;
    }
}

void ompb__region_team_forked(unsigned threads)
{
    ompb__region_thread *ts = ompb__region_self;
    if (ts && ts->depth > 0 && threads > 0)
        ompb__region_note_inner(ts, threads);
}

/* Gives ts's forks to the guard's observe o, once per guard. */
static void observe_thread(ompb__region_thread *ts, observe_fn o)
{
    if (o && ts->observed_by != o) {
        o(ompb__region_team_forked);
        ts->observed_by = o;
    }
}

void ompb__regions_fork_observer_set(observe_fn o)
{
    ompb__region_thread *ts = ompb__region_self;
    observe_fn old = atomic_exchange(&observer, o);
    if (!ts || !ts->level0)
        return;
    if (!o && old && ts->observed_by == old) {
        old(NULL);
        ts->observed_by = NULL;
    }
    observe_thread(ts, o);
}

void ompb__region_forks_level0(ompb__region_thread *ts, const ompb__region *r)
{
    ts->level0 = true;
    observe_thread(ts, atomic_load_explicit(&observer, memory_order_acquire));
    int max = omp_get_max_threads();
    const ompb__region *none = NULL;
    if (max > 1 && atomic_compare_exchange_strong(&wide_first, &none, r))
        atomic_store(&wide_max, max);
}

const ompb__region *ompb__regions_unobserved_phase(int *max_threads)
{
    const ompb__region *r = atomic_load(&wide_first);
    *max_threads = 0;
    if (!r || atomic_load(&observer))
        return NULL;
    *max_threads = atomic_load(&wide_max);
    return r;
}

void ompb__regions_forks_reset(void)
{
    atomic_store(&wide_first, NULL);
    atomic_store(&wide_max, 0);
}
