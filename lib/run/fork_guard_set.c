/* SPDX-License-Identifier: MIT */
/*
 * ompb_set_fork_guard (include/ompbench/fork_guard.h): one installation for
 * the two users of a fork guard, which cannot see each other (the regions
 * lie above the engine in the layers, docs/architecture.md): the engine
 * keeps the guard and decides what it sees by watching one probe fork
 * (lib/engine/fork_watch.c); the region markers get its observer, when the
 * probe showed that the process's forks reach the guard
 * (lib/regions/region_forks.c), so that the parallel loops of a phase
 * region name it without markers of their own.
 */
#include <stddef.h>

#include <ompbench/error.h>
#include <ompbench/fork_guard.h>

#include "engine/engine.h"
#include "regions/region.h"

int ompb_set_fork_guard(const ompb_fork_guard *g)
{
    if (g && !g->watch)
        return OMPB_EINVAL;
    ompb__fork_coverage c = ompb__fork_guard_install(g);
    bool reaches = c == OMPB__FORKS_SEEN_ALL || c == OMPB__FORKS_SEEN_GNU_ONLY;
    ompb__regions_fork_observer_set(g && reaches ? g->observe : NULL);
    return 0;
}
