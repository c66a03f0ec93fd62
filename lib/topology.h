/* SPDX-License-Identifier: MIT */
/*
 * Topology and pinning (hwloc). The topology is restricted to what this
 * process may use (cgroups, Slurm and taskset masks). A pin plan maps team
 * thread index -> one PU for a given policy and says who binds.
 */
#ifndef OMPB_TOPOLOGY_H
#define OMPB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <ompbench/error.h>
#include "registry.h"

struct hwloc_bitmap_s;

typedef struct ompb__topology ompb__topology;

/* Who binds the team threads: whoever actually does, not what was asked. */
typedef enum {
    OMPB__BINDER_OURS,     /* we bind each team thread to plan->pu[t] */
    OMPB__BINDER_RUNTIME,  /* the OpenMP runtime binds (OMP_PLACES, OMP_PROC_BIND,
                            * GOMP_CPU_AFFINITY or KMP_AFFINITY set; no --pin or --pin none) */
    OMPB__BINDER_NONE      /* nobody: --pin none, or OMP_PROC_BIND=false without --pin */
} ompb__binder;

static inline const char *ompb__plural(int n)
{
    return n == 1 ? "" : "s";
}

typedef struct ompb__pin_plan {
    int threads;
    ompb__binder binder;
    const char *policy;    /* "compact", "spread", "cpus:...", "none", "runtime" (owned by plan) */
    int *pu;               /* [threads] OS index of the PU for thread t, -1 = unbound */
    int *core;             /* [threads] logical index of the core in the whole machine, -1 unknown */
    bool oversubscribed;   /* threads > distinct PUs available: the plan wraps round-robin */
    const ompb__topology *topo; /* the topology the plan was made for; must outlive the plan */
} ompb__pin_plan;

/* What the run header and the JSON context say about the machine. Without
 * Core objects in the topology each PU counts as a core, as for compact. */
#define OMPB__CPUSET_TEXT_MAX 1024
typedef struct ompb__topology_summary {
    int packages, numa_nodes, cores, pus;  /* whole machine, disallowed PUs included */
    int usable_cores, usable_pus;          /* what this process may use */
    bool this_system;                      /* false: HWLOC_SYNTHETIC/HWLOC_XMLFILE or synthetic */
    char usable_cpuset[OMPB__CPUSET_TEXT_MAX]; /* list form, e.g. "0-3,8" */
    char cpu_model[128];                   /* hwloc CPUModel of package 0, "" unknown */
} ompb__topology_summary;

/* One cache level in the Google Benchmark "caches" form. */
typedef struct ompb__cache_info {
    const char *type;           /* "Data", "Instruction" or "Unified" (static) */
    int level;
    unsigned long long size;    /* bytes */
    int num_sharing;            /* PUs sharing one instance of this cache */
} ompb__cache_info;

/* Accepted --pin values, for messages. */
#define OMPB__PIN_ACCEPTED "accepted: compact, spread, none, cpus:LIST (e.g. cpus:0,2,4-7)"

/* Room for ompb__pin_describe's text. */
#define OMPB__PLACEMENT_TEXT_MAX 320

/* Loads this machine's topology restricted to the process binding (joined
 * with the OpenMP places, since libgomp narrows the initial thread to the
 * first place at start-up). The machine view keeps the PUs the process is
 * not allowed to use (cgroups); the usable view does not. HWLOC_SYNTHETIC /
 * HWLOC_XMLFILE are honoured and give a fake topology: plans can be
 * previewed and exported, never measured (ompb__topology_check_measurable).
 * *out freed with ompb__topology_close. Returns 0 or OMPB_E* with err set. */
int ompb__topology_open(ompb__topology **out, ompb_error *err);
/* Loads a synthetic topology, e.g. "pack:2 numa:2 core:8 pu:2" (tests). */
int ompb__topology_open_synthetic(const char *description, ompb__topology **out,
                                  ompb_error *err);
void ompb__topology_close(ompb__topology *topo);

/* Whether a measured run may use topo: 0 when it is this machine, else
 * OMPB_EINVAL with err naming the cause, e.g. "HWLOC_SYNTHETIC is set: a fake
 * topology can only be previewed with --show-plan ...". Called after the
 * --show-plan / --topology-xml previews and before anything is measured,
 * because binding on a fake topology does nothing and its PU counts are not
 * this machine's. */
int ompb__topology_check_measurable(const ompb__topology *topo, ompb_error *err);

/* Restricts an open topology further to the PUs in pu_list ("0-3,6,9", as
 * lib/cpulist.h parses it), as a cgroup or taskset mask would (tests use it
 * for cpusets with holes).
 * Returns 0, or OMPB_EINVAL when the list is malformed or leaves no usable PU. */
int ompb__topology_restrict(ompb__topology *topo, const char *pu_list, ompb_error *err);

/* Number of PUs the process may use. */
int ompb__topology_usable_pus(const ompb__topology *topo);

/* Fills *out with the machine counts, usable set and CPU model. */
void ompb__topology_summarize(const ompb__topology *topo, ompb__topology_summary *out);

/* Writes up to cap cache levels of the machine (level order, data before
 * instruction) into out; returns how many there are. */
size_t ompb__topology_caches(const ompb__topology *topo, ompb__cache_info *out, size_t cap);

/* Fills set with the PUs this process may use, without loading a topology:
 * the calling thread's affinity joined with the OpenMP places.
 * Returns 0 or OMPB_ENOMEM / OMPB_EIO. */
int ompb__process_cpuset(struct hwloc_bitmap_s *set);

/* The OpenMP places as the runtime reports them, "{0,1},{2,3}", or "none";
 * truncated to len. */
void ompb__omp_places_text(char *buf, size_t len);
/* "false", "true", "primary", "close", "spread" for an omp_proc_bind_t (static). */
const char *ompb__proc_bind_name(int bind);

/* Validates a --pin value without a topology (NULL = not given, valid).
 * Returns 0 or OMPB_EINVAL with err naming the value and OMPB__PIN_ACCEPTED. */
int ompb__pin_policy_check(const char *policy, ompb_error *err);

/* Who binds for this --pin value in the current environment:
 * - compact, spread, cpus:LIST: we do (last, over any runtime placement);
 * - none or NULL (not given): the OpenMP runtime when it binds, i.e. when
 *   OMP_PLACES, OMP_PROC_BIND, GOMP_CPU_AFFINITY or KMP_AFFINITY is set
 *   and OMP_PROC_BIND is not false;
 * - otherwise nobody for none or OMP_PROC_BIND=false, and we (compact) for NULL. */
ompb__binder ompb__pin_binder(const char *policy);
/* "ompbench", "runtime" or "none" (static). */
const char *ompb__binder_name(ompb__binder binder);
/* The policy of a plan for this --pin value: the value itself, else
 * "runtime" when the OpenMP variables above decide, else "compact" (static
 * or policy). */
const char *ompb__pin_policy_name(const char *policy);
/* The placement line of the run header and --show-plan, e.g. "--pin compact
 * (default); ompbench binds each team thread to one PU at team start (hwloc)":
 * what was chosen, who binds and why, truncated to len. */
void ompb__pin_describe(const char *policy, char *buf, size_t len);

/*
 * Makes the plan for `threads` team threads. policy is the --pin value
 * ("compact", "spread", "cpus:LIST", "none") or NULL when --pin was not given
 * (then as ompb__pin_binder says).
 * *out freed with ompb__pin_plan_free. Returns 0 or OMPB_EINVAL with err set
 * naming the bad value and the accepted ones (also for cpus:LIST naming a PU
 * this process may not use).
 */
int ompb__pin_plan_new(const ompb__topology *topo, const char *policy, int threads,
                       ompb__pin_plan **out, ompb_error *err);
void ompb__pin_plan_free(ompb__pin_plan *plan);

/* How many distinct PUs the plan's threads share: the plan's own PUs when we
 * bind, else the usable PUs. oversubscribed == (threads > this). */
int ompb__pin_plan_pus(const ompb__pin_plan *plan);

/* Called once by team thread t at team start: binds the calling thread only
 * to plan->pu[t] when binder is OURS; otherwise does nothing. Safe to call
 * concurrently from every team thread. Returns 0, OMPB_EINVAL (t out of
 * range, or a plan we should bind on a topology that is not this machine:
 * its PU numbers are not ours, and a run must not look bound when it is
 * not), OMPB_ENOMEM or OMPB_EIO (the kernel refused). */
int ompb__pin_plan_bind_self(const ompb__pin_plan *plan, int t);

/* The PU the calling thread runs on now, -1 if unknown. Cheap (vDSO getcpu). */
int ompb__current_pu(void);

/* --show-plan: prints the topology summary, who binds, and for each of the n
 * instances its thread -> PU (core) map, without running anything.
 * policy as for ompb__pin_plan_new. Returns 0 or the plan's error. */
int ompb__show_plan(FILE *out, const ompb__topology *topo, const ompb__instance *inst,
                    size_t n, const char *policy, ompb_error *err);

/* --topology-xml: writes the hwloc XML of the whole machine (disallowed PUs
 * included) to path atomically. Returns 0 or OMPB_EIO / OMPB_ENOMEM with err
 * set. */
int ompb__topology_export_xml(const ompb__topology *topo, const char *path, ompb_error *err);

#endif
