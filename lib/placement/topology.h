/* SPDX-License-Identifier: MIT */
/*
 * hwloc access. The topology is restricted to what this process may use
 * (cgroups, Slurm and taskset masks); the whole machine is kept beside it.
 * Pin policies (lib/placement/pin.h) order PUs on the usable view, plans (lib/placement/pin_plan.h)
 * bind through it, the run context records its summary and caches.
 */
#ifndef OMPB_TOPOLOGY_H
#define OMPB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include <ompbench/error.h>

struct hwloc_bitmap_s;
struct hwloc_topology;

typedef struct ompb__topology ompb__topology;

static inline const char *ompb__plural(int n)
{
    return n == 1 ? "" : "s";
}

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
 * lib/placement/cpulist.h parses it), as a cgroup or taskset mask would (tests use it
 * for cpusets with holes). Returns 0, or OMPB_EINVAL when the list is
 * malformed or leaves no usable PU. */
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

/* The PU the calling thread runs on now, -1 if unknown. Cheap (vDSO getcpu). */
int ompb__current_pu(void);

/* --topology-xml: writes the hwloc XML of the whole machine (disallowed PUs
 * included) to path atomically. Returns 0 or OMPB_EIO / OMPB_ENOMEM with err
 * set. */
int ompb__topology_export_xml(const ompb__topology *topo, const char *path, ompb_error *err);

/* ---- for the pin policies and plans -------------------------------------- */

/* The hwloc topology restricted to the usable PUs, the one policies walk
 * (owned by topo, read-only). */
struct hwloc_topology *ompb__topology_usable_view(const ompb__topology *topo);
/* The whole machine, PUs outside the process mask included (owned by topo,
 * read-only): domain numbers that must not shift under a cpuset. */
struct hwloc_topology *ompb__topology_machine_view(const ompb__topology *topo);
/* What one thread per unit means on view, as an hwloc_obj_type_t: Core, or
 * PU when hwloc found no cores. The summary counts cores the same way. */
int ompb__topology_unit_type(struct hwloc_topology *view);
/* Whether this process may use the PU of OS index pu. */
bool ompb__topology_pu_usable(const ompb__topology *topo, int pu);
/* The usable PUs in list form ("0-3,8"), truncated to len. */
void ompb__topology_usable_text(const ompb__topology *topo, char *buf, size_t len);
/* Logical index in the whole machine of the core holding PU pu (stable under
 * taskset), -1 when there is none. */
int ompb__topology_core_of(const ompb__topology *topo, int pu);
/* Binds the calling thread to PU pu (pu < 0: leaves it alone). Returns 0,
 * OMPB_EINVAL when topo is not this machine (its PU numbers are not ours),
 * OMPB_ENOMEM, or OMPB_EIO when the kernel refused. */
int ompb__topology_bind_thread(const ompb__topology *topo, int pu);

#endif
