/* SPDX-License-Identifier: MIT */
/*
 * `ompbench trace` on GNU OpenMP (libgomp): the wrapper of the fork
 * guard's entry points (lib/main/fork_guard_gnu.c, built into the same
 * library) makes each top-level parallel-region instance an instance of a
 * region: every team thread runs ompb_region_begin_at / the outlined
 * function / ompb_region_end_at, so the statistics, reports and CodSpeed
 * markers are the region markers' own (lib/regions). The site is the
 * outlined function's (trace_sites.c), named from its address.
 *
 * A nested region (one opened inside a team) runs inside its parent's
 * instance and is not traced apart. A region whose name does not match
 * the filter runs untouched; one --min-duration leaves out is only
 * counted. Under libomp the guard never asks this wrapper (its OMPT tool
 * sees every fork, trace_omp.c).
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include <ompbench/region.h>

#include "main/fork_wrap.h"
#include "trace/trace.h"

static void traced_body(void *arg)
{
    ompb__fork_call *c = arg;
    const ompb__trace_site *s = c->site;
    ompb_region_begin_at(s->name, s->file, s->line);
    c->fn(c->data);
    ompb_region_end_at(s->name, s->file, s->line);
}

static void counted_body(void *arg)
{
    ompb__fork_call *c = arg;
    c->fn(c->data);
}

static void (*enter(ompb__fork_call *c))(void *)
{
    if (omp_get_level() != 0)
        return NULL;
    void *addr;
    memcpy(&addr, &c->fn, sizeof addr);
    ompb__trace_site *s = ompb__trace_site_of(addr, addr);
    if (!s)
        return NULL;
    uint64_t t0;
    bool traced = ompb__trace_enter(s, &t0);
    c->site = s;
    c->t0 = t0;
    c->traced = traced;
    return traced ? traced_body : counted_body;
}

static void leave(ompb__fork_call *c)
{
    /* enter's choice, kept in the call: another thread's instance of the
     * same region may change the site's flag meanwhile. */
    ompb__trace_leave(c->site, c->traced, c->t0);
}

static const ompb__fork_wrap wrapper = {.enter = enter, .leave = leave};

void ompb__trace_gnu_install(void)
{
    ompb__fork_wrap_set(&wrapper);
}
