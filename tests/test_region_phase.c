/* SPDX-License-Identifier: MIT */
/*
 * Phase regions (lib/regions/region_forks.c): a region outside any team is
 * named by the width of the teams its thread forked while it was open, as a
 * fork observer tells them (ompb__region_team_forked: the GNU fork guard's,
 * or a runtime tool's) as well as through regions marked in those teams;
 * one that contained no team keeps t=1. Read from the entries' phase
 * figures (ompb__region_entry_phase), which the reports print; the JSON
 * side is tests/integration/region_phase.sh. Widths here never depend on
 * the host: teams of 2 run anywhere.
 */
#include <stdatomic.h>
#include <string.h>

#include <omp.h>

#include <ompbench/fork_guard.h>
#include <ompbench/region.h>

#include "regions/region.h"
#include "suite.h"

/* The phase figures of region `name`'s only entry; fails without one. */
static ompb__region_phase_info phase_of(const char *name)
{
    const ompb__region_entry *found = NULL;
    int n = 0;
    for (const ompb__region_entry *e = ompb__regions_entries(); e; e = e->next_all)
        if (strcmp(e->region->name, name) == 0) {
            found = e;
            n++;
        }
    CU_ASSERT_EQUAL(n, 1);
    return found ? ompb__region_entry_phase(found) : (ompb__region_phase_info){.width = -1};
}

/* The observer's entry point names the open region by the width it is
 * told, counting each instance that contained a team once; a region begun
 * after the fork stays t=1; a fork with no region open names nothing. */
static void test_by_observer(void)
{
    ompb__regions_reset();
    ompb__region_team_forked(5); /* no region open */
    for (int i = 0; i < 3; i++) {
        ompb_region_begin("forked");
        ompb__region_team_forked(3);
        ompb__region_team_forked(3); /* a second team of the same instance */
        ompb_region_begin("after");
        ompb_region_end("after");
        ompb_region_end("forked");
    }
    ompb__region_phase_info p = phase_of("forked");
    CU_ASSERT_EQUAL(p.width, 3);
    CU_ASSERT_EQUAL(p.instances, 3);
    CU_ASSERT_EQUAL(p.lo, 3);
    CU_ASSERT_EQUAL(p.hi, 3);
    p = phase_of("after");
    CU_ASSERT_EQUAL(p.width, 1);
    CU_ASSERT_EQUAL(p.instances, 0);
    ompb__regions_reset();
}

/* Teams of two widths in one region: named by the runtime's answer, mixed. */
static void test_mixed_widths(void)
{
    ompb__regions_reset();
    ompb_region_begin("both");
    ompb__region_team_forked(1);
    ompb__region_team_forked(4);
    ompb_region_end("both");
    ompb__region_phase_info p = phase_of("both");
    CU_ASSERT_TRUE(p.mixed);
    CU_ASSERT_EQUAL(p.lo, 1);
    CU_ASSERT_EQUAL(p.hi, 4);
    CU_ASSERT_EQUAL(p.width, omp_get_max_threads());
    ompb__regions_reset();
}

/* Through the GNU fork guard this binary installs (tests/main.c): a
 * parallel region without markers inside a region outside any team names
 * it by the number of threads it ran with. */
static void test_by_guard(void)
{
#ifdef __clang__
    return; /* Clang forks through __kmpc_fork_call, which the guard does not see */
#endif
    CU_ASSERT_EQUAL_FATAL(ompb_set_fork_guard(&ompb_fork_guard_gnu), 0);
    omp_set_dynamic(0);
    ompb__regions_reset();
    atomic_int ran = 0;
    for (int i = 0; i < 2; i++) {
        ompb_region_begin("unmarked");
#pragma omp parallel num_threads(2)
        atomic_fetch_add(&ran, 1);
        ompb_region_end("unmarked");
    }
    ompb__region_phase_info p = phase_of("unmarked");
    CU_ASSERT_EQUAL(p.width, 2);
    CU_ASSERT_EQUAL(p.instances, 2);
    CU_ASSERT_EQUAL(atomic_load(&ran), 4);
    ompb__regions_reset();
}

static const ompb_test_case cases[] = {
    {"by_observer", test_by_observer},
    {"mixed_widths", test_mixed_widths},
    {"by_guard", test_by_guard},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_region_phase = {"region_phase", NULL, NULL, cases};
