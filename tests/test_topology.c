/* SPDX-License-Identifier: MIT */
/*
 * Topology and pinning: hwloc access (lib/topology), the plans of the pin
 * policies (lib/pin_plan), who binds (lib/binder) and --show-plan
 * (lib/report/plan). Mapping logic is checked against golden thread -> PU
 * maps on synthetic hwloc topologies (never the host's core count); real
 * binding is checked on whatever PUs this process may use, in threads and in
 * a forked child narrowed to one PU as `taskset -c N` would. The policy table
 * and the --pin value itself are tested in test_pin.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>
#include <omp.h>

#include "placement/binder.h"
#include "placement/pin.h"
#include "placement/pin_plan.h"
#include "report/plan.h"
#include "suite.h"
#include "placement/topology.h"

/* ---- helpers ----------------------------------------------------------- */

static ompb__topology *synth(const char *desc)
{
    ompb__topology *t = NULL;
    ompb_error err = {0};
    int rc = ompb__topology_open_synthetic(desc, &t, &err);
    if (rc != 0)
        fprintf(stderr, "synthetic '%s': %s\n", desc, err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    return t;
}

/* ompb__pin_plan_new for a --pin text as the CLI parses it (NULL: not
 * given); a text the CLI refuses fails with the CLI's error. */
static int plan_new(const ompb__topology *t, const char *text, int threads,
                    ompb__pin_plan **out, ompb_error *err)
{
    ompb__pin_spec pin = {0};
    *out = NULL;
    int rc = text ? ompb__pin_parse(text, &pin, err) : 0;
    if (rc == 0)
        rc = ompb__pin_plan_new(t, &pin, threads, out, err);
    ompb__pin_spec_release(&pin);
    return rc;
}

/* The --pin text as the CLI parses it; NULL: not given (a zeroed spec). */
static ompb__pin_spec pin_of(const char *text)
{
    ompb__pin_spec pin = {0};
    if (text)
        CU_ASSERT_EQUAL_FATAL(ompb__pin_parse(text, &pin, NULL), 0);
    return pin;
}

/* Who binds for the --pin text (NULL: not given). */
static ompb__binder binder_of(const char *text)
{
    ompb__pin_spec pin = pin_of(text);
    ompb__binder binder = ompb__binder_for(&pin);
    ompb__pin_spec_release(&pin);
    return binder;
}

static void join_ints(const int *v, int n, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && pos < len; i++)
        pos += (size_t)snprintf(buf + pos, len - pos, "%s%d", i ? " " : "", v[i]);
}

/* Makes the plan and compares its PU map (and core map when given) with the
 * golden strings; prints both on mismatch. */
static void check_plan(const ompb__topology *t, const char *policy, int threads,
                       const char *want_pu, const char *want_core, bool oversub)
{
    ompb__pin_plan *plan = NULL;
    ompb_error err = {0};
    char got[1024];
    int rc = plan_new(t, policy, threads, &plan, &err);
    if (rc != 0)
        fprintf(stderr, "\n%s T=%d: %s\n", policy, threads, err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(plan->binder, OMPB__BINDER_OURS);
    CU_ASSERT_EQUAL(plan->threads, threads);
    CU_ASSERT_STRING_EQUAL(plan->policy, policy);
    join_ints(plan->pu, threads, got, sizeof got);
    if (strcmp(got, want_pu) != 0)
        fprintf(stderr, "\n%s T=%d: PU map '%s', want '%s'\n", policy, threads, got, want_pu);
    CU_ASSERT_STRING_EQUAL(got, want_pu);
    if (want_core) {
        join_ints(plan->core, threads, got, sizeof got);
        if (strcmp(got, want_core) != 0)
            fprintf(stderr, "\n%s T=%d: cores '%s', want '%s'\n", policy, threads, got, want_core);
        CU_ASSERT_STRING_EQUAL(got, want_core);
    }
    CU_ASSERT_EQUAL(plan->oversubscribed, oversub);
    ompb__pin_plan_free(plan);
}

/* The binder depends on the variables that make the OpenMP runtime bind:
 * tests that need a known value clear them and put them back. */
static const char *const binding_vars[] = {"OMP_PLACES", "OMP_PROC_BIND", "GOMP_CPU_AFFINITY",
                                           "KMP_AFFINITY"};
#define N_BINDING_VARS (sizeof binding_vars / sizeof binding_vars[0])
static char *saved_vars[N_BINDING_VARS];

static void env_clear(void)
{
    for (size_t i = 0; i < N_BINDING_VARS; i++) {
        const char *v = getenv(binding_vars[i]);
        saved_vars[i] = v ? strdup(v) : NULL;
        unsetenv(binding_vars[i]);
    }
}

static void env_restore(void)
{
    for (size_t i = 0; i < N_BINDING_VARS; i++) {
        unsetenv(binding_vars[i]);
        if (saved_vars[i])
            setenv(binding_vars[i], saved_vars[i], 1);
        free(saved_vars[i]);
        saved_vars[i] = NULL;
    }
}

/* The placement text for policy in the current environment. */
static const char *describe(const char *policy)
{
    static char text[OMPB__PLACEMENT_TEXT_MAX];
    ompb__pin_spec pin = pin_of(policy);
    ompb__binder_describe(&pin, text, sizeof text);
    ompb__pin_spec_release(&pin);
    return text;
}

/* ---- golden maps ------------------------------------------------------- */

/* 1 package x 4 cores x 2 PUs, siblings numbered 2c, 2c+1. */
static void test_compact_1x4x2(void)
{
    static const char *golden[] = {
        "0", "0 2", "0 2 4", "0 2 4 6", "0 2 4 6 1", "0 2 4 6 1 3", "0 2 4 6 1 3 5",
        "0 2 4 6 1 3 5 7",
    };
    ompb__topology *t = synth("pack:1 core:4 pu:2");
    CU_ASSERT_EQUAL(ompb__topology_usable_pus(t), 8);
    for (int n = 1; n <= 8; n++)
        check_plan(t, "compact", n, golden[n - 1], NULL, false);
    check_plan(t, "compact", 8, "0 2 4 6 1 3 5 7", "0 1 2 3 0 1 2 3", false);
    /* T > PUs wraps round-robin over the same order. */
    check_plan(t, "compact", 10, "0 2 4 6 1 3 5 7 0 2", "0 1 2 3 0 1 2 3 0 1", true);
    ompb__topology_close(t);
}

static void test_spread_1x4x2(void)
{
    ompb__topology *t = synth("pack:1 core:4 pu:2");
    check_plan(t, "spread", 1, "0", "0", false);
    check_plan(t, "spread", 2, "0 4", "0 2", false);
    check_plan(t, "spread", 3, "0 2 4", "0 1 2", false);
    check_plan(t, "spread", 4, "0 2 4 6", "0 1 2 3", false);
    /* More threads than cores: every core has one before a sibling is used. */
    check_plan(t, "spread", 5, "0 2 4 6 1", "0 1 2 3 0", false);
    check_plan(t, "spread", 8, "0 2 4 6 1 3 5 7", NULL, false);
    check_plan(t, "spread", 9, "0 2 4 6 1 3 5 7 0", NULL, true);
    ompb__topology_close(t);
}

/* Intel-style numbering: the siblings of core c are PUs c and c+4. The plan
 * must carry OS indexes, not hwloc logical ones. */
static void test_os_index_numbering(void)
{
    ompb__topology *t = synth("pack:1 core:4 pu:2(indexes=0,4,1,5,2,6,3,7)");
    check_plan(t, "compact", 8, "0 1 2 3 4 5 6 7", "0 1 2 3 0 1 2 3", false);
    check_plan(t, "spread", 2, "0 2", "0 2", false);
    check_plan(t, "cpus:4,0", 2, "4 0", "0 0", false);
    ompb__topology_close(t);
}

/* 2 packages x 2 NUMA nodes x 8 cores x 2 PUs = 64 PUs. */
static void test_maps_2x2x8x2(void)
{
    static const char *even =
        "0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42 44 46 48 50 52 54 "
        "56 58 60 62";
    char want[512];
    ompb__topology *t = synth("pack:2 numa:2 core:8 pu:2");
    ompb__topology_summary s;
    ompb__topology_summarize(t, &s);
    CU_ASSERT_EQUAL(s.packages, 2);
    CU_ASSERT_EQUAL(s.numa_nodes, 4);
    CU_ASSERT_EQUAL(s.cores, 32);
    CU_ASSERT_EQUAL(s.pus, 64);
    CU_ASSERT_FALSE(s.this_system);
    check_plan(t, "compact", 4, "0 2 4 6", "0 1 2 3", false);
    check_plan(t, "compact", 32, even, NULL, false);
    snprintf(want, sizeof want, "%s 1", even);
    check_plan(t, "compact", 33, want, NULL, false);
    /* spread: packages first, then NUMA nodes, then cores within a node. */
    check_plan(t, "spread", 2, "0 32", "0 16", false);
    check_plan(t, "spread", 4, "0 16 32 48", "0 8 16 24", false);
    check_plan(t, "spread", 8, "0 8 16 24 32 40 48 56", "0 4 8 12 16 20 24 28", false);
    /* Every core has a thread: the two siblings go to one package each. */
    snprintf(want, sizeof want, "%s 1 33", even);
    check_plan(t, "spread", 34, want, NULL, false);
    ompb__topology_close(t);
}

/* A cgroup/taskset mask with holes: core 2 gone, cores 3 and 4 half gone. */
static void test_restricted_with_holes(void)
{
    ompb__topology *t = synth("pack:2 core:4 pu:2");
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__topology_restrict(t, "0-3,6,9,12-15", &err), 0);
    ompb__topology_summary s;
    ompb__topology_summarize(t, &s);
    CU_ASSERT_EQUAL(s.cores, 8);
    CU_ASSERT_EQUAL(s.pus, 16);
    CU_ASSERT_EQUAL(s.usable_cores, 6);
    CU_ASSERT_EQUAL(s.usable_pus, 10);
    CU_ASSERT_STRING_EQUAL(s.usable_cpuset, "0-3,6,9,12-15");
    check_plan(t, "compact", 10, "0 2 6 9 12 14 1 3 13 15", "0 1 3 4 6 7 0 1 6 7", false);
    check_plan(t, "compact", 11, "0 2 6 9 12 14 1 3 13 15 0", NULL, true);
    check_plan(t, "spread", 2, "0 9", "0 4", false);
    check_plan(t, "spread", 4, "0 2 9 12", "0 1 4 6", false);
    /* Up to the 6 usable cores, one thread per core (PU 6 and 9 are alone on
     * theirs); siblings only after, never a second thread on core 0 while
     * core 3 is idle. */
    check_plan(t, "spread", 5, "0 2 6 9 12", "0 1 3 4 6", false);
    check_plan(t, "spread", 6, "0 2 6 9 12 14", "0 1 3 4 6 7", false);
    /* Then the siblings, spread the same way over the cores that have one. */
    check_plan(t, "spread", 7, "0 2 6 9 12 14 1", NULL, false);
    check_plan(t, "spread", 8, "0 2 6 9 12 14 1 13", "0 1 3 4 6 7 0 6", false);
    check_plan(t, "spread", 9, "0 2 6 9 12 14 1 3 13", NULL, false);
    check_plan(t, "spread", 10, "0 2 6 9 12 14 1 3 13 15", NULL, false);
    check_plan(t, "cpus:15,6", 2, "15 6", "7 3", false);

    ompb__pin_plan *plan = NULL;
    CU_ASSERT_EQUAL(plan_new(t, "cpus:0,5", 2, &plan, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NULL(plan);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "'cpus:0,5'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "PU 5 is not usable"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "0-3,6,9,12-15"));

    CU_ASSERT_EQUAL(ompb__topology_restrict(t, "0-3,x", &err), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__topology_restrict(t, "100", &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "no usable PU"));
    CU_ASSERT_EQUAL(ompb__topology_usable_pus(t), 10);
    ompb__topology_close(t);
}

/* Packages of unequal size: 2 + 2 + 1 usable cores. spread puts one thread
 * on each package before any package gets a second (hwloc_distrib, which
 * shares by PU count, gave "0 1 2": two on package 0, none on package 2). */
static void test_spread_uneven_packages(void)
{
    ompb__topology *t = synth("pack:4 core:2 pu:1");
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__topology_restrict(t, "0-4", &err), 0);
    check_plan(t, "spread", 2, "0 2", "0 2", false);
    check_plan(t, "spread", 3, "0 2 4", "0 2 4", false);
    check_plan(t, "spread", 4, "0 1 2 4", "0 1 2 4", false);
    check_plan(t, "spread", 5, "0 1 2 3 4", NULL, false);
    ompb__topology_close(t);
}

/* ---- cpus:LIST ---------------------------------------------------------- */

static void test_cpus_list(void)
{
    ompb__topology *t = synth("pack:1 core:4 pu:2");
    check_plan(t, "cpus:0,2,4-7", 6, "0 2 4 5 6 7", "0 1 2 2 3 3", false);
    check_plan(t, "cpus:0,2,4-7", 3, "0 2 4", NULL, false);
    check_plan(t, "cpus:7-7,3", 2, "7 3", NULL, false);
    /* More threads than listed PUs: round-robin, oversubscribed. */
    check_plan(t, "cpus:0,2,4-7", 8, "0 2 4 5 6 7 0 2", NULL, true);
    ompb__pin_plan *plan = NULL;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(plan_new(t, "cpus:1", 3, &plan, &err), 0);
    CU_ASSERT_EQUAL(ompb__pin_plan_pus(plan), 1);
    CU_ASSERT_TRUE(plan->oversubscribed);
    ompb__pin_plan_free(plan);
    ompb__topology_close(t);
}

static void test_bad_plans(void)
{
    ompb__topology *t = synth("pack:1 core:2 pu:1");
    ompb__pin_plan *plan = NULL;
    ompb_error err = {0};
    CU_ASSERT_EQUAL(plan_new(t, "compact", 0, &plan, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "0"));
    CU_ASSERT_EQUAL(plan_new(t, "cpus:2", 1, &plan, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "PU 2 is not usable"));
    CU_ASSERT_EQUAL(plan_new(t, "nearest", 1, &plan, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NULL(plan);
    ompb__topology_close(t);
    ompb_error e2 = {0};
    CU_ASSERT_EQUAL(ompb__topology_open_synthetic("pack:x", &t, &e2), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e2.text, "'pack:x'"));
    CU_ASSERT_PTR_NULL(t);
}

/* ---- who binds ---------------------------------------------------------- */

static void test_binder(void)
{
    ompb__topology *t = synth("pack:1 core:2 pu:2");
    ompb__pin_plan *plan = NULL;
    env_clear();
    CU_ASSERT_EQUAL(binder_of(NULL), OMPB__BINDER_OURS);
    CU_ASSERT_EQUAL_FATAL(plan_new(t, NULL, 2, &plan, NULL), 0);
    CU_ASSERT_EQUAL(plan->binder, OMPB__BINDER_OURS);
    CU_ASSERT_STRING_EQUAL(plan->policy, "compact");
    CU_ASSERT_EQUAL(plan->pu[1], 2);
    ompb__pin_plan_free(plan);

    setenv("OMP_PROC_BIND", "close", 1);
    CU_ASSERT_EQUAL(binder_of(NULL), OMPB__BINDER_RUNTIME);
    CU_ASSERT_EQUAL_FATAL(plan_new(t, NULL, 3, &plan, NULL), 0);
    CU_ASSERT_EQUAL(plan->binder, OMPB__BINDER_RUNTIME);
    CU_ASSERT_STRING_EQUAL(plan->policy, "runtime");
    CU_ASSERT_EQUAL(plan->pu[0], -1);
    CU_ASSERT_EQUAL(plan->core[2], -1);
    CU_ASSERT_EQUAL(ompb__pin_plan_bind_self(plan, 0), 0);
    ompb__pin_plan_free(plan);
    unsetenv("OMP_PROC_BIND");
    CU_ASSERT_EQUAL_FATAL(plan_new(t, "none", 5, &plan, NULL), 0);
    CU_ASSERT_EQUAL(plan->binder, OMPB__BINDER_NONE);
    CU_ASSERT_EQUAL(plan->pu[4], -1);
    CU_ASSERT_TRUE(plan->oversubscribed);
    CU_ASSERT_EQUAL(ompb__pin_plan_pus(plan), 4);
    ompb__pin_plan_free(plan);

    setenv("OMP_PLACES", "cores", 1);
    CU_ASSERT_EQUAL(binder_of(NULL), OMPB__BINDER_RUNTIME);
    /* --pin given: we bind, whatever OMP_PLACES says. */
    CU_ASSERT_EQUAL(binder_of("spread"), OMPB__BINDER_OURS);
    /* --pin none only keeps us from binding: the runtime still binds. */
    CU_ASSERT_EQUAL(binder_of("none"), OMPB__BINDER_RUNTIME);
    CU_ASSERT_STRING_EQUAL(describe("none"), "--pin none; ompbench does not bind, but the "
                           "OpenMP runtime still does (OMP_PLACES set); ompbench only observes");
    CU_ASSERT_EQUAL_FATAL(plan_new(t, "none", 2, &plan, NULL), 0);
    CU_ASSERT_EQUAL(plan->binder, OMPB__BINDER_RUNTIME);
    CU_ASSERT_STRING_EQUAL(plan->policy, "none");
    ompb__pin_plan_free(plan);
    env_restore();
    CU_ASSERT_STRING_EQUAL(ompb__binder_name(OMPB__BINDER_OURS), "ompbench");
    CU_ASSERT_STRING_EQUAL(ompb__binder_name(OMPB__BINDER_RUNTIME), "runtime");
    CU_ASSERT_STRING_EQUAL(ompb__binder_name(OMPB__BINDER_NONE), "none");
    ompb__topology_close(t);
}

/* GOMP_CPU_AFFINITY (libgomp's, also read by LLVM libomp) and KMP_AFFINITY
 * make the runtime bind too; OMP_PROC_BIND=false makes it bind nothing,
 * whatever else is set, and then nobody binds unless --pin is given. */
static void test_binder_runtime_vars(void)
{
    ompb__topology *t = synth("pack:1 core:2 pu:1");
    ompb__pin_plan *plan = NULL;
    env_clear();
    CU_ASSERT_STRING_EQUAL(describe(NULL), "--pin compact (default); ompbench binds each team "
                           "thread to one PU at team start (hwloc)");
    setenv("GOMP_CPU_AFFINITY", "0-3", 1);
    CU_ASSERT_EQUAL(binder_of(NULL), OMPB__BINDER_RUNTIME);
    CU_ASSERT_STRING_EQUAL(ompb__binder_policy_name(NULL), "runtime");
    CU_ASSERT_STRING_EQUAL(describe(NULL), "no --pin; the OpenMP runtime binds "
                           "(GOMP_CPU_AFFINITY set); ompbench only observes");
    unsetenv("GOMP_CPU_AFFINITY");
    setenv("KMP_AFFINITY", "compact", 1);
    CU_ASSERT_EQUAL(binder_of(NULL), OMPB__BINDER_RUNTIME);
    CU_ASSERT_EQUAL(binder_of("none"), OMPB__BINDER_RUNTIME);
    CU_ASSERT_STRING_EQUAL(describe("compact"), "--pin compact; ompbench binds each team thread "
                           "to one PU at team start (hwloc); --pin overrides KMP_AFFINITY "
                           "(ompbench binds last)");

    setenv("OMP_PLACES", "cores", 1);
    setenv("OMP_PROC_BIND", " FALSE", 1);
    CU_ASSERT_EQUAL(binder_of(NULL), OMPB__BINDER_NONE);
    CU_ASSERT_EQUAL(binder_of("none"), OMPB__BINDER_NONE);
    CU_ASSERT_EQUAL(binder_of("spread"), OMPB__BINDER_OURS);
    CU_ASSERT_PTR_NOT_NULL(strstr(describe(NULL), "no --pin; nobody binds: OMP_PROC_BIND=false, "
                                                  "so the OpenMP runtime binds nothing"));
    /* The runtime binds nothing, so there is nothing for --pin to override. */
    CU_ASSERT_STRING_EQUAL(describe("spread"), "--pin spread; ompbench binds each team thread "
                           "to one PU at team start (hwloc)");
    CU_ASSERT_EQUAL_FATAL(plan_new(t, NULL, 2, &plan, NULL), 0);
    CU_ASSERT_EQUAL(plan->binder, OMPB__BINDER_NONE);
    CU_ASSERT_STRING_EQUAL(plan->policy, "runtime");
    CU_ASSERT_EQUAL(plan->pu[0], -1);
    ompb__pin_plan_free(plan);
    setenv("OMP_PROC_BIND", "false,close", 1);
    CU_ASSERT_EQUAL(binder_of(NULL), OMPB__BINDER_NONE);
    setenv("OMP_PROC_BIND", "spread,close", 1);
    CU_ASSERT_EQUAL(binder_of(NULL), OMPB__BINDER_RUNTIME);
    env_restore();
    ompb__topology_close(t);
}

/* ---- --show-plan --------------------------------------------------------- */

/* --show-plan for instances count[t=N] of the given thread counts: the
 * plans are made first, as ompb_main does; *rc is the first plan's error. */
static char *show_team(const ompb__topology *t, const char *policy, const int *threads, size_t n,
                       int *rc, const ompb_benchmark *bench)
{
    ompb__instance inst[4];
    ompb__pin_plan *plans[4] = {NULL};
    ompb__pin_spec pin = pin_of(policy);
    char *text = NULL;
    size_t len = 0;
    memset(inst, 0, sizeof inst);
    *rc = 0;
    for (size_t i = 0; i < n && *rc == 0; i++) {
        inst[i].bench = bench;
        inst[i].threads = threads[i];
        snprintf(inst[i].name, sizeof inst[i].name, "count[t=%d]", threads[i]);
        *rc = ompb__pin_plan_new(t, &pin, threads[i], &plans[i], NULL);
    }
    FILE *out = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    if (*rc == 0)
        ompb__report_plan(out, t, &pin, inst, plans, n);
    fclose(out);
    for (size_t i = 0; i < n; i++)
        ompb__pin_plan_free(plans[i]);
    ompb__pin_spec_release(&pin);
    return text;
}

static char *show(const ompb__topology *t, const char *policy, const int *threads, size_t n,
                  int *rc)
{
    return show_team(t, policy, threads, n, rc, NULL);
}

static void test_show_plan_golden(void)
{
    static const int threads[] = {1, 3, 5};
    static const char *golden =
        "topology: 1 package, 1 NUMA node, 2 cores, 4 PUs (not this machine: synthetic or XML,"
        " nothing is bound)\n"
        "usable:   2 cores, 4 PUs (cpuset 0-3)\n"
        "pin:      --pin compact; ompbench binds each team thread to one PU at team start "
        "(hwloc)\n"
        "instance      T  thread->PU/core\n"
        "count[t=1]    1  t0->PU0/core0\n"
        "count[t=3]    3  t0->PU0/core0 t1->PU2/core1 t2->PU1/core0\n"
        "count[t=5]    5  t0->PU0/core0 t1->PU2/core1 t2->PU1/core0 t3->PU3/core1 "
        "t4->PU0/core0  [oversubscribed: 5 threads on 4 PUs]\n";
    ompb__topology *t = synth("pack:1 core:2 pu:2");
    int rc;
    env_clear();
    char *text = show(t, "compact", threads, 3, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    if (strcmp(text, golden) != 0)
        fprintf(stderr, "\n--- got\n%s--- want\n%s", text, golden);
    CU_ASSERT_STRING_EQUAL(text, golden);
    free(text);

    text = show(t, "none", threads, 1, &rc);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "nobody binds"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "count[t=1]    1  not bound\n"));
    free(text);

    setenv("OMP_PLACES", "cores", 1);
    text = show(t, NULL, threads, 1, &rc);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "the OpenMP runtime binds"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "places:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "decided by the OpenMP runtime"));
    free(text);
    text = show(t, "spread", threads, 1, &rc);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "--pin overrides OMP_PLACES (ompbench binds last)"));
    free(text);
    env_restore();

    text = show(t, "cpus:9", threads, 1, &rc);
    CU_ASSERT_EQUAL(rc, OMPB_EINVAL);
    free(text);
    ompb__topology_close(t);
}

/* A caller team's plan is the same plan: thread t of the code's regions
 * (the caller being t0) takes plan PU t. compact, spread and cpus:LIST at
 * T=2 on a machine larger than this one, where they differ. */
static void test_show_plan_caller_team(void)
{
    static const int two[] = {2};
    static const struct { const char *policy, *map; } cases[] = {
        {"compact", "count[t=2]    2  t0->PU0/core0 t1->PU2/core1  [caller team: t0 is the caller]\n"},
        {"spread", "count[t=2]    2  t0->PU0/core0 t1->PU8/core4  [caller team: t0 is the caller]\n"},
        {"cpus:13,6", "count[t=2]    2  t0->PU13/core6 t1->PU6/core3  [caller team: t0 is the caller]\n"},
    };
    ompb_benchmark caller = {.name = "count", .team = OMPB_TEAM_CALLER};
    ompb__topology *t = synth("pack:2 core:4 pu:2");
    env_clear();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc;
        char *text = show_team(t, cases[i].policy, two, 1, &rc, &caller);
        CU_ASSERT_EQUAL(rc, 0);
        if (!strstr(text, cases[i].map))
            fprintf(stderr, "\n--- got\n%s--- want a line\n%s", text, cases[i].map);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, cases[i].map));
        free(text);
    }
    env_restore();
    ompb__topology_close(t);
}

/* ---- caches and XML ------------------------------------------------------ */

static void test_caches(void)
{
    ompb__topology *t = synth("pack:1 l3:1 l2:2 l1d:1 l1i:1 core:1 pu:2");
    ompb__cache_info c[8];
    size_t n = ompb__topology_caches(t, c, 8);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_STRING_EQUAL(c[0].type, "Data");
    CU_ASSERT_EQUAL(c[0].level, 1);
    CU_ASSERT_EQUAL(c[0].num_sharing, 2);
    CU_ASSERT_STRING_EQUAL(c[1].type, "Instruction");
    CU_ASSERT_EQUAL(c[1].level, 1);
    CU_ASSERT_STRING_EQUAL(c[2].type, "Unified");
    CU_ASSERT_EQUAL(c[2].level, 2);
    CU_ASSERT_EQUAL(c[2].num_sharing, 2);
    CU_ASSERT_EQUAL(c[3].level, 3);
    CU_ASSERT_EQUAL(c[3].num_sharing, 4);
    CU_ASSERT_TRUE(c[0].size > 0 && c[3].size > c[2].size);
    /* cap smaller than the count: the count is still returned, out untouched past cap */
    CU_ASSERT_EQUAL(ompb__topology_caches(t, c, 1), 4);
    ompb__topology_close(t);
}

static void test_export_xml(void)
{
    char dir[] = "/tmp/ompb-topo-XXXXXX", path[128], bad[160];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/machine.xml", dir);
    snprintf(bad, sizeof bad, "%s/missing/machine.xml", dir);
    ompb__topology *t = synth("pack:2 core:2 pu:2");
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__topology_restrict(t, "0-2", &err), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__topology_export_xml(t, path, &err), 0);

    /* The export is the whole machine, not the restricted view. */
    hwloc_topology_t back;
    CU_ASSERT_EQUAL_FATAL(hwloc_topology_init(&back), 0);
    CU_ASSERT_EQUAL(hwloc_topology_set_xml(back, path), 0);
    CU_ASSERT_EQUAL_FATAL(hwloc_topology_load(back), 0);
    CU_ASSERT_EQUAL(hwloc_get_nbobjs_by_type(back, HWLOC_OBJ_PU), 8);
    CU_ASSERT_EQUAL(hwloc_get_nbobjs_by_type(back, HWLOC_OBJ_PACKAGE), 2);
    hwloc_topology_destroy(back);

    CU_ASSERT_EQUAL(ompb__topology_export_xml(t, bad, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "missing"));
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(bad, &st), 0);
    ompb__topology_close(t);
    unlink(path);
    rmdir(dir);
}

/* A topology recorded on the 2-PU CI machine (lstopo --no-io --of xml),
 * loaded through HWLOC_XMLFILE as a user previewing another node would. */
static void test_recorded_xml(void)
{
    ompb__topology *t = NULL;
    ompb_error err = {0};
    setenv("HWLOC_XMLFILE", OMPB_TEST_DATA_DIR "/topology/epyc-1x2.xml", 1);
    int rc = ompb__topology_open(&t, &err);
    unsetenv("HWLOC_XMLFILE");
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    ompb__topology_summary s;
    ompb__topology_summarize(t, &s);
    CU_ASSERT_FALSE(s.this_system);
    CU_ASSERT_STRING_EQUAL(s.cpu_model, "AMD EPYC");
    CU_ASSERT_EQUAL(s.cores, 2);
    CU_ASSERT_STRING_EQUAL(s.usable_cpuset, "0-1");
    ompb__cache_info c[8];
    CU_ASSERT_EQUAL_FATAL(ompb__topology_caches(t, c, 8), 4);
    static const struct { const char *type; int level; unsigned long long size; int sharing; }
        golden[] = {{"Data", 1, 32768, 1}, {"Instruction", 1, 32768, 1},
                    {"Unified", 2, 524288, 1}, {"Unified", 3, 33554432, 2}};
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_STRING_EQUAL(c[i].type, golden[i].type);
        CU_ASSERT_EQUAL(c[i].level, golden[i].level);
        CU_ASSERT_EQUAL(c[i].size, golden[i].size);
        CU_ASSERT_EQUAL(c[i].num_sharing, golden[i].sharing);
    }
    check_plan(t, "compact", 2, "0 1", "0 1", false);
    check_plan(t, "spread", 3, "0 1 0", "0 1 0", true);
    /* Previewed, never measured. */
    CU_ASSERT_EQUAL(ompb__topology_check_measurable(t, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "HWLOC_XMLFILE is set: a fake topology can only be "
                                            "previewed with --show-plan"));
    ompb__topology_close(t);
}

/* A recorded machine whose cgroup allows only PUs 0-2 and 5 of 8: the
 * summary and the XML export describe all 8, the plans use the 4 allowed. */
static void test_disallowed_pus(void)
{
    char dir[] = "/tmp/ompb-topo-XXXXXX", path[128];
    ompb__topology *t = NULL;
    ompb_error err = {0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/machine.xml", dir);
    setenv("HWLOC_XMLFILE", OMPB_TEST_DATA_DIR "/topology/disallowed-2x2x2.xml", 1);
    int rc = ompb__topology_open(&t, &err);
    unsetenv("HWLOC_XMLFILE");
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    ompb__topology_summary s;
    ompb__topology_summarize(t, &s);
    CU_ASSERT_EQUAL(s.packages, 2);
    CU_ASSERT_EQUAL(s.cores, 4);
    CU_ASSERT_EQUAL(s.pus, 8);
    CU_ASSERT_EQUAL(s.usable_cores, 3);
    CU_ASSERT_EQUAL(s.usable_pus, 4);
    CU_ASSERT_STRING_EQUAL(s.usable_cpuset, "0-2,5");
    check_plan(t, "compact", 4, "0 2 5 1", "0 1 2 0", false);
    check_plan(t, "spread", 2, "0 5", "0 2", false);
    CU_ASSERT_EQUAL_FATAL(ompb__topology_export_xml(t, path, &err), 0);
    hwloc_topology_t back;
    CU_ASSERT_EQUAL_FATAL(hwloc_topology_init(&back), 0);
    hwloc_topology_set_flags(back, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    CU_ASSERT_EQUAL(hwloc_topology_set_xml(back, path), 0);
    CU_ASSERT_EQUAL_FATAL(hwloc_topology_load(back), 0);
    CU_ASSERT_EQUAL(hwloc_get_nbobjs_by_type(back, HWLOC_OBJ_PU), 8);
    hwloc_topology_destroy(back);
    ompb__topology_close(t);
    unlink(path);
    rmdir(dir);
}

/* Without Core objects each PU counts as a core, in the summary as in plans. */
static void test_no_core_objects(void)
{
    ompb__topology *t = synth("pack:2 pu:2");
    ompb__topology_summary s;
    ompb__topology_summarize(t, &s);
    CU_ASSERT_EQUAL(s.cores, 4);
    CU_ASSERT_EQUAL(s.usable_cores, 4);
    check_plan(t, "compact", 3, "0 1 2", "-1 -1 -1", false);
    check_plan(t, "spread", 2, "0 2", NULL, false);
    ompb__topology_close(t);
}

/* ---- this machine -------------------------------------------------------- */

static void test_open_this_machine(void)
{
    ompb__topology *t = NULL;
    ompb_error err = {0};
    int rc = ompb__topology_open(&t, &err);
    if (rc != 0)
        fprintf(stderr, "\n%s\n", err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    ompb__topology_summary s;
    ompb__topology_summarize(t, &s);
    hwloc_bitmap_t mine = hwloc_bitmap_alloc(), usable = hwloc_bitmap_alloc();
    CU_ASSERT_EQUAL(ompb__process_cpuset(mine), 0);
    CU_ASSERT_EQUAL(hwloc_bitmap_list_sscanf(usable, s.usable_cpuset), 0);
    /* The usable set never leaves what the process may run on. */
    CU_ASSERT_TRUE(hwloc_bitmap_isincluded(usable, mine));
    CU_ASSERT_EQUAL(s.usable_pus, hwloc_bitmap_weight(usable));
    CU_ASSERT_TRUE(s.usable_pus >= 1 && s.usable_pus <= s.pus);
    CU_ASSERT_TRUE(s.usable_cores >= 1 && s.usable_cores <= s.cores);
    CU_ASSERT_TRUE(s.this_system);
    CU_ASSERT_EQUAL(ompb__topology_check_measurable(t, &err), 0);
    int pu = ompb__current_pu();
    CU_ASSERT_TRUE(pu >= 0 && hwloc_bitmap_isset(mine, (unsigned)pu));
    hwloc_bitmap_free(mine);
    hwloc_bitmap_free(usable);
    ompb__topology_close(t);
}

typedef struct bind_job {
    const ompb__pin_plan *plan;
    int t, rc, cpus_in_mask, runs_on;
    bool mask_is_pu;
} bind_job;

static void *bind_thread(void *arg)
{
    bind_job *j = arg;
    cpu_set_t set;
    j->rc = ompb__pin_plan_bind_self(j->plan, j->t);
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        j->cpus_in_mask = CPU_COUNT(&set);
        j->mask_is_pu = CPU_ISSET(j->plan->pu[j->t], &set);
    }
    sched_yield();
    j->runs_on = ompb__current_pu();
    return NULL;
}

/* Every thread ends up bound to exactly its planned PU, and runs there. */
static void test_bind_threads(void)
{
    enum { MAX_T = 4 };
    ompb__topology *t = NULL;
    ompb__pin_plan *plan = NULL;
    CU_ASSERT_EQUAL_FATAL(ompb__topology_open(&t, NULL), 0);
    int threads = ompb__topology_usable_pus(t) < MAX_T ? ompb__topology_usable_pus(t) : MAX_T;
    CU_ASSERT_EQUAL_FATAL(plan_new(t, "compact", threads, &plan, NULL), 0);
    pthread_t tid[MAX_T];
    bind_job job[MAX_T];
    for (int i = 0; i < threads; i++) {
        job[i] = (bind_job){.plan = plan, .t = i, .rc = -99};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&tid[i], NULL, bind_thread, &job[i]), 0);
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        CU_ASSERT_EQUAL(job[i].rc, 0);
        CU_ASSERT_EQUAL(job[i].cpus_in_mask, 1);
        CU_ASSERT_TRUE(job[i].mask_is_pu);
        CU_ASSERT_EQUAL(job[i].runs_on, plan->pu[i]);
    }
    CU_ASSERT_EQUAL(ompb__pin_plan_bind_self(plan, threads), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__pin_plan_bind_self(plan, -1), OMPB_EINVAL);
    ompb__pin_plan_free(plan);
    ompb__topology_close(t);
}

/* A synthetic plan's PU numbers are not this machine's: binding to them is
 * refused (a run would otherwise claim to bind and silently not), the mask
 * is left alone, and a run on such a topology is refused up front. */
static void test_bind_synthetic_refused(void)
{
    cpu_set_t before, after;
    ompb__topology *t = synth("pack:4 core:16 pu:2");
    ompb__pin_plan *plan = NULL;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(plan_new(t, "cpus:127", 1, &plan, NULL), 0);
    CU_ASSERT_EQUAL(sched_getaffinity(0, sizeof before, &before), 0);
    CU_ASSERT_EQUAL(ompb__pin_plan_bind_self(plan, 0), OMPB_EINVAL);
    CU_ASSERT_EQUAL(sched_getaffinity(0, sizeof after, &after), 0);
    CU_ASSERT_TRUE(CPU_EQUAL(&before, &after));
    ompb__pin_plan_free(plan);
    CU_ASSERT_EQUAL(ompb__topology_check_measurable(t, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "a fake topology can only be previewed with "
                                            "--show-plan"));
    ompb__topology_close(t);

    setenv("HWLOC_SYNTHETIC", "pack:2 core:2 pu:1", 1);
    int rc = ompb__topology_open(&t, &err);
    unsetenv("HWLOC_SYNTHETIC");
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(ompb__topology_check_measurable(t, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "HWLOC_SYNTHETIC is set: a fake topology can only "
                                            "be previewed with --show-plan"));
    CU_ASSERT_PTR_NULL(strchr(err.text, '\n'));
    ompb__topology_close(t);
}

/* Child of test_taskset_mask: narrowed to one PU like `taskset -c pu`.
 * Returns 0 or the number of the failed check. */
static int narrowed_child(int pu)
{
    cpu_set_t one;
    ompb__topology *t = NULL;
    ompb__pin_plan *plan = NULL;
    ompb__topology_summary s;
    char want[32];
    CPU_ZERO(&one);
    CPU_SET(pu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return 1;
    if (ompb__topology_open(&t, NULL) != 0)
        return 2;
    ompb__topology_summarize(t, &s);
    snprintf(want, sizeof want, "%d", pu);
    /* OpenMP places computed by the parent (OMP_PLACES in the test's
     * environment) may widen the set; without them it is exactly the mask. */
    bool strict = omp_get_num_places() == 0;
    if (strict && strcmp(s.usable_cpuset, want) != 0)
        return 3;
    if (plan_new(t, "compact", 2, &plan, NULL) != 0)
        return 4;
    if (strict && (plan->pu[0] != pu || plan->pu[1] != pu || !plan->oversubscribed))
        return 5;
    if (ompb__pin_plan_bind_self(plan, 1) != 0 || ompb__current_pu() != plan->pu[1])
        return 6;
    ompb__pin_plan_free(plan);
    ompb__topology_close(t);
    return 0;
}

static void test_taskset_mask(void)
{
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    CU_ASSERT_EQUAL_FATAL(ompb__process_cpuset(mine), 0);
    int pu = hwloc_bitmap_last(mine);
    hwloc_bitmap_free(mine);
    pid_t child = fork();
    CU_ASSERT_TRUE_FATAL(child >= 0);
    if (child == 0)
        _exit(narrowed_child(pu));
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "\nnarrowed child failed at check %d\n", WEXITSTATUS(status));
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static const ompb_test_case cases[] = {
    {"compact_1x4x2", test_compact_1x4x2},
    {"spread_1x4x2", test_spread_1x4x2},
    {"os_index_numbering", test_os_index_numbering},
    {"maps_2x2x8x2", test_maps_2x2x8x2},
    {"restricted_with_holes", test_restricted_with_holes},
    {"spread_uneven_packages", test_spread_uneven_packages},
    {"cpus_list", test_cpus_list},
    {"bad_plans", test_bad_plans},
    {"binder", test_binder},
    {"binder_runtime_vars", test_binder_runtime_vars},
    {"show_plan_golden", test_show_plan_golden},
    {"show_plan_caller_team", test_show_plan_caller_team},
    {"caches", test_caches},
    {"export_xml", test_export_xml},
    {"recorded_xml", test_recorded_xml},
    {"disallowed_pus", test_disallowed_pus},
    {"no_core_objects", test_no_core_objects},
    {"open_this_machine", test_open_this_machine},
    {"bind_threads", test_bind_threads},
    {"bind_synthetic_refused", test_bind_synthetic_refused},
    {"taskset_mask", test_taskset_mask},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_topology = {"topology", NULL, NULL, cases};
