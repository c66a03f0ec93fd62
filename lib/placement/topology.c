/* SPDX-License-Identifier: MIT */
/*
 * hwloc access. The machine topology is loaded once and restricted to the
 * PUs this process may use: the allowed cpuset (cgroups, Slurm) intersected
 * with the process binding (taskset), joined with the OpenMP places because
 * libgomp narrows the initial thread to its first place before main() runs.
 * The whole machine is kept beside the usable view for the summary, the core
 * numbering and the XML export; the pin policies (lib/placement/pin.c) walk the usable
 * view, and plans (lib/placement/pin_plan.c) bind through it.
 */
#include "placement/topology.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <omp.h>

#include "placement/cpulist.h"
#include "core/core.h"

struct ompb__topology {
    hwloc_topology_t topo;    /* restricted to the usable PUs: plans are made here */
    hwloc_topology_t machine; /* the whole machine: summary, core numbering, XML */
    hwloc_bitmap_t usable;
    bool this_system;
    const char *fake_var;     /* the HWLOC_* variable that made it not this system */
};

/* libgomp binds the initial thread to the first place when OMP_PLACES or
 * OMP_PROC_BIND is set; the places themselves still cover the user's mask. */
static void add_omp_places(hwloc_bitmap_t set)
{
    int places = omp_get_num_places();
    for (int p = 0; p < places; p++) {
        int n = omp_get_place_num_procs(p);
        if (n <= 0)
            continue;
        int *ids = malloc((size_t)n * sizeof *ids);
        if (!ids)
            return;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < n; i++)
            if (ids[i] >= 0)
                hwloc_bitmap_set(set, (unsigned)ids[i]);
        free(ids);
    }
}

/* The calling thread's affinity, for machines of any size. */
static int thread_affinity(hwloc_bitmap_t set)
{
    for (size_t ncpus = 1024; ncpus <= (size_t)OMPB__CPULIST_MAX_INDEX; ncpus *= 2) {
        cpu_set_t *cs = CPU_ALLOC(ncpus);
        if (!cs)
            return OMPB_ENOMEM;
        size_t size = CPU_ALLOC_SIZE(ncpus);
        int rc = sched_getaffinity(0, size, cs);
        if (rc == 0) {
            for (size_t c = 0; c < ncpus; c++)
                if (CPU_ISSET_S(c, size, cs))
                    hwloc_bitmap_set(set, (unsigned)c);
        }
        CPU_FREE(cs);
        if (rc == 0)
            return 0;
        if (errno != EINVAL)
            return OMPB_EIO;
    }
    return OMPB_EIO;
}

/* The PUs of this process on this system: binding of all its threads (as
 * hwloc's RESTRICT_TO_CPUBINDING would use) plus places, within the allowed set. */
static int compute_usable(ompb__topology *t)
{
    hwloc_topology_t m = t->machine;
    if (!t->this_system) {
        hwloc_bitmap_and(t->usable, hwloc_topology_get_topology_cpuset(m),
                         hwloc_topology_get_allowed_cpuset(m));
        return 0;
    }
    if (hwloc_get_cpubind(m, t->usable, HWLOC_CPUBIND_PROCESS) != 0
        && ompb__process_cpuset(t->usable) != 0)
        return OMPB_EIO;
    add_omp_places(t->usable);
    hwloc_bitmap_and(t->usable, t->usable, hwloc_topology_get_allowed_cpuset(m));
    hwloc_bitmap_and(t->usable, t->usable, hwloc_topology_get_topology_cpuset(m));
    return 0;
}

/* Makes t->topo, the copy of the machine restricted to set, and sets
 * t->usable; on failure both stay as they were. */
static int restrict_copy(ompb__topology *t, hwloc_const_bitmap_t set, ompb_error *err)
{
    hwloc_topology_t copy;
    char list[64];
    if (hwloc_bitmap_iszero(set))
        return ompb__error_set(err, OMPB_EINVAL, "topology: no usable PU (the process mask "
                               "and the allowed cpuset do not intersect)");
    if (hwloc_topology_dup(&copy, t->machine) != 0)
        return ompb__error_set(err, OMPB_ENOMEM, "topology: cannot copy the hwloc topology");
    if (!hwloc_bitmap_isequal(set, hwloc_topology_get_topology_cpuset(copy))
        && hwloc_topology_restrict(copy, set, 0) != 0) {
        hwloc_bitmap_list_snprintf(list, sizeof list, set);
        hwloc_topology_destroy(copy);
        return ompb__error_set(err, OMPB_EIO, "topology: cannot restrict to PUs %s: %s",
                               list, strerror(errno));
    }
    if (t->topo)
        hwloc_topology_destroy(t->topo);
    t->topo = copy;
    if (set != t->usable)
        hwloc_bitmap_copy(t->usable, set);
    return 0;
}

static ompb__topology *topology_alloc(void)
{
    ompb__topology *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->usable = hwloc_bitmap_alloc();
    if (!t->usable || hwloc_topology_init(&t->machine) != 0) {
        hwloc_bitmap_free(t->usable);
        free(t);
        return NULL;
    }
    /* hwloc drops instruction caches by default; the context lists them. */
    hwloc_topology_set_icache_types_filter(t->machine, HWLOC_TYPE_FILTER_KEEP_ALL);
    /* The machine view must describe the whole machine, PUs outside our
     * cgroup included; compute_usable() leaves them out of the usable view. */
    hwloc_topology_set_flags(t->machine, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    return t;
}

/* Loads t->machine (already configured) and derives the restricted copy. */
static int topology_finish(ompb__topology *t, ompb__topology **out, ompb_error *err)
{
    int rc;
    if (hwloc_topology_load(t->machine) != 0) {
        rc = ompb__error_set(err, OMPB_EIO, "topology: hwloc cannot load the topology: %s",
                             strerror(errno));
    } else {
        t->this_system = hwloc_topology_is_thissystem(t->machine) != 0;
        rc = compute_usable(t);
        if (rc != 0)
            ompb__error_set(err, rc, "topology: cannot read the process CPU binding: %s",
                            strerror(errno));
        else
            rc = restrict_copy(t, t->usable, err);
    }
    if (rc != 0) {
        ompb__topology_close(t);
        return rc;
    }
    *out = t;
    return 0;
}

static bool env_set(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] != '\0';
}

/* The variable that made hwloc load another machine, in hwloc's order of
 * precedence; NULL when it is none of them. */
static const char *fake_topology_var(void)
{
    static const char *const vars[] = {"HWLOC_SYNTHETIC", "HWLOC_XMLFILE", "HWLOC_FSROOT"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (env_set(vars[i]))
            return vars[i];
    return NULL;
}

/* What one thread per unit means: cores, or PUs when hwloc found no cores. */
static hwloc_obj_type_t unit_type(hwloc_topology_t topo)
{
    return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

static int count(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);
    return n < 0 ? 0 : n;
}

static const char *cache_type_name(hwloc_obj_cache_type_t type)
{
    switch (type) {
    case HWLOC_OBJ_CACHE_DATA: return "Data";
    case HWLOC_OBJ_CACHE_INSTRUCTION: return "Instruction";
    default: return "Unified";
    }
}

int ompb__process_cpuset(struct hwloc_bitmap_s *set)
{
    hwloc_bitmap_zero(set);
    int rc = thread_affinity(set);
    if (rc == 0)
        add_omp_places(set);
    return rc;
}

/* hwloc ignores a synthetic description or an XML file it cannot use and
 * loads this machine instead, without a word: a --show-plan preview would
 * then show the wrong machine. So the variables are tried first on a
 * scratch topology (in hwloc's order: HWLOC_SYNTHETIC wins over
 * HWLOC_XMLFILE; empty means unset, as for hwloc). */
static int check_fake_env(ompb_error *err)
{
    const char *syn = getenv("HWLOC_SYNTHETIC"), *xml = getenv("HWLOC_XMLFILE");
    hwloc_topology_t probe;
    int rc = 0;
    if (!env_set("HWLOC_SYNTHETIC") && !env_set("HWLOC_XMLFILE"))
        return 0;
    if (hwloc_topology_init(&probe) != 0)
        return ompb__error_set(err, OMPB_ENOMEM, "topology: out of memory");
    if (env_set("HWLOC_SYNTHETIC") && hwloc_topology_set_synthetic(probe, syn) != 0)
        rc = ompb__error_set(err, OMPB_EINVAL, "HWLOC_SYNTHETIC: invalid description '%s' "
                             "(accepted: hwloc's synthetic syntax, e.g. \"pack:2 numa:2 core:8 "
                             "pu:2\"; unset it to use this machine)", syn);
    else if (!env_set("HWLOC_SYNTHETIC") && hwloc_topology_set_xml(probe, xml) != 0)
        rc = ompb__error_set(err, OMPB_EINVAL, "HWLOC_XMLFILE: cannot use '%s': %s (accepted: an "
                             "hwloc topology XML file, e.g. written with --topology-xml; unset it "
                             "to use this machine)", xml, strerror(errno));
    hwloc_topology_destroy(probe);
    return rc;
}

int ompb__topology_open(ompb__topology **out, ompb_error *err)
{
    *out = NULL;
    int bad = check_fake_env(err);
    if (bad)
        return bad;
    ompb__topology *t = topology_alloc();
    if (!t)
        return ompb__error_set(err, OMPB_ENOMEM, "topology: out of memory");
    int rc = topology_finish(t, out, err);
    if (rc == 0 && !t->this_system)
        t->fake_var = fake_topology_var();
    return rc;
}

int ompb__topology_open_synthetic(const char *description, ompb__topology **out,
                                  ompb_error *err)
{
    *out = NULL;
    ompb__topology *t = topology_alloc();
    if (!t)
        return ompb__error_set(err, OMPB_ENOMEM, "topology: out of memory");
    if (hwloc_topology_set_synthetic(t->machine, description) != 0) {
        ompb__topology_close(t);
        return ompb__error_set(err, OMPB_EINVAL,
                               "topology: invalid synthetic description '%s' "
                               "(e.g. \"pack:2 numa:2 core:8 pu:2\")", description);
    }
    return topology_finish(t, out, err);
}

int ompb__topology_check_measurable(const ompb__topology *topo, ompb_error *err)
{
    if (topo->this_system)
        return 0;
    if (topo->fake_var)
        return ompb__error_set(err, OMPB_EINVAL, "%s is set: a fake topology can only be "
                               "previewed with --show-plan (or exported with --topology-xml); "
                               "unset %s to measure on this machine", topo->fake_var,
                               topo->fake_var);
    return ompb__error_set(err, OMPB_EINVAL, "the hwloc topology is not this machine's: a fake "
                           "topology can only be previewed with --show-plan (or exported with "
                           "--topology-xml)");
}

void ompb__topology_close(ompb__topology *topo)
{
    if (!topo)
        return;
    if (topo->topo)
        hwloc_topology_destroy(topo->topo);
    hwloc_topology_destroy(topo->machine);
    hwloc_bitmap_free(topo->usable);
    free(topo);
}

int ompb__topology_usable_pus(const ompb__topology *topo)
{
    return hwloc_bitmap_weight(topo->usable);
}

int ompb__current_pu(void)
{
    int cpu = sched_getcpu();
    return cpu < 0 ? -1 : cpu;
}

void ompb__topology_summarize(const ompb__topology *topo, ompb__topology_summary *out)
{
    memset(out, 0, sizeof *out);
    out->packages = count(topo->machine, HWLOC_OBJ_PACKAGE);
    out->numa_nodes = count(topo->machine, HWLOC_OBJ_NUMANODE);
    out->cores = count(topo->machine, unit_type(topo->machine));
    out->pus = count(topo->machine, HWLOC_OBJ_PU);
    out->usable_cores = count(topo->topo, unit_type(topo->topo));
    out->usable_pus = ompb__topology_usable_pus(topo);
    out->this_system = topo->this_system;
    hwloc_bitmap_list_snprintf(out->usable_cpuset, sizeof out->usable_cpuset, topo->usable);
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo->machine, HWLOC_OBJ_PACKAGE, 0);
    const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
    snprintf(out->cpu_model, sizeof out->cpu_model, "%s", model ? model : "");
}

size_t ompb__topology_caches(const ompb__topology *topo, ompb__cache_info *out, size_t cap)
{
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
        HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        hwloc_obj_t c = hwloc_get_obj_by_type(topo->machine, types[i], 0);
        if (!c)
            continue;
        if (n < cap) {
            out[n].type = cache_type_name(c->attr->cache.type);
            out[n].level = (int)c->attr->cache.depth;
            out[n].size = (unsigned long long)c->attr->cache.size;
            out[n].num_sharing = hwloc_bitmap_weight(c->cpuset);
        }
        n++;
    }
    return n;
}

int ompb__topology_export_xml(const ompb__topology *topo, const char *path, ompb_error *err)
{
    char *xml = NULL;
    int len = 0;
    if (hwloc_topology_export_xmlbuffer(topo->machine, &xml, &len, 0) != 0)
        return ompb__error_set(err, OMPB_ENOMEM, "--topology-xml: hwloc cannot export XML");
    ompb__outfile of;
    int rc = ompb__outfile_open(&of, path, err);
    if (rc == 0) {
        /* hwloc counts the terminating NUL in len. */
        size_t size = len > 0 ? (size_t)len - 1 : 0;
        if (fwrite(xml, 1, size, of.fp) != size) {
            ompb__outfile_abort(&of);
            rc = ompb__error_set(err, OMPB_EIO, "--topology-xml: cannot write '%s': %s",
                                 path, strerror(errno));
        } else {
            rc = ompb__outfile_commit(&of, err);
        }
    }
    hwloc_free_xmlbuffer(topo->machine, xml);
    return rc;
}

int ompb__topology_restrict(ompb__topology *topo, const char *pu_list, ompb_error *err)
{
    char why[OMPB__CPULIST_WHY_MAX];
    int *list = NULL, n = 0;
    int rc = ompb__cpulist_parse(pu_list, &list, &n, why, sizeof why);
    if (rc != 0)
        return ompb__error_set(err, rc, "topology: invalid PU list '%s': %s", pu_list, why);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        rc = ompb__error_set(err, OMPB_ENOMEM, "topology: out of memory");
    for (int i = 0; rc == 0 && i < n; i++)
        hwloc_bitmap_set(set, (unsigned)list[i]);
    if (rc == 0) {
        hwloc_bitmap_and(set, set, topo->usable);
        rc = restrict_copy(topo, set, err);
    }
    hwloc_bitmap_free(set);
    free(list);
    return rc;
}

struct hwloc_topology *ompb__topology_usable_view(const ompb__topology *topo)
{
    return topo->topo;
}

struct hwloc_topology *ompb__topology_machine_view(const ompb__topology *topo)
{
    return topo->machine;
}

int ompb__topology_unit_type(struct hwloc_topology *view)
{
    return (int)unit_type(view);
}

bool ompb__topology_pu_usable(const ompb__topology *topo, int pu)
{
    return pu >= 0 && hwloc_bitmap_isset(topo->usable, (unsigned)pu);
}

void ompb__topology_usable_text(const ompb__topology *topo, char *buf, size_t len)
{
    hwloc_bitmap_list_snprintf(buf, len, topo->usable);
}

int ompb__topology_core_of(const ompb__topology *topo, int pu)
{
    hwloc_obj_t obj = pu >= 0 ? hwloc_get_pu_obj_by_os_index(topo->machine, (unsigned)pu) : NULL;
    hwloc_obj_t core = obj ? hwloc_get_ancestor_obj_by_type(topo->machine, HWLOC_OBJ_CORE, obj)
                           : NULL;
    return core ? (int)core->logical_index : -1;
}

int ompb__topology_bind_thread(const ompb__topology *topo, int pu)
{
    /* On a synthetic or XML topology the PU numbers are not this machine's:
     * binding would silently do nothing while the run says we bind. */
    if (!topo->this_system)
        return OMPB_EINVAL;
    if (pu < 0)
        return 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return OMPB_ENOMEM;
    hwloc_bitmap_only(set, (unsigned)pu);
    int rc = hwloc_set_cpubind(topo->topo, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
    return rc == 0 ? 0 : OMPB_EIO;
}
