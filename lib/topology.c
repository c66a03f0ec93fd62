/* SPDX-License-Identifier: MIT */
/*
 * Topology and pinning with hwloc. The machine topology is loaded once and
 * restricted to the PUs this process may use: the allowed cpuset (cgroups,
 * Slurm) intersected with the process binding (taskset), joined with the
 * OpenMP places because libgomp narrows the initial thread to its first place
 * before main() runs. Pin plans map team thread t -> one PU for the policies
 * compact, spread, cpus:LIST and none, or leave binding to the OpenMP runtime;
 * each team thread then binds itself once (thread binding only). The whole
 * machine is kept beside the usable view for the summary and the XML export.
 */
#include "topology.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hwloc.h>
#include <omp.h>

#include "cpulist.h"
#include "error.h"
#include "outfile.h"

struct ompb__topology {
    hwloc_topology_t topo;    /* restricted to the usable PUs: plans are made here */
    hwloc_topology_t machine; /* the whole machine: summary, core numbering, XML */
    hwloc_bitmap_t usable;
    bool this_system;
    const char *fake_var;     /* the HWLOC_* variable that made it not this system */
};

/* Variables that make the OpenMP runtime bind its threads: the standard ones,
 * libgomp's (which LLVM libomp also reads) and the LLVM/Intel one. */
static const char *const runtime_vars[] = {
    "OMP_PLACES", "OMP_PROC_BIND", "GOMP_CPU_AFFINITY", "KMP_AFFINITY",
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

/* Parses the LIST of "cpus:LIST" into list (NULL to validate only, else room
 * for OMPB__CPULIST_MAX_PUS) and *n; fills err naming policy on failure. */
static int parse_pu_list(const char *policy, const char *text, int *list, int *n,
                         ompb_error *err)
{
    char why[OMPB__CPULIST_WHY_MAX];
    int *pus = NULL;
    int rc = ompb__cpulist_parse(text, list ? &pus : NULL, n, why, sizeof why);
    if (rc == 0 && list)
        memcpy(list, pus, (size_t)*n * sizeof *list);
    free(pus);
    if (rc == 0)
        return 0;
    return ompb__error_set(err, rc, "--pin: invalid value '%s': %s (%s)", policy, why,
                           OMPB__PIN_ACCEPTED);
}

static bool env_set(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] != '\0';
}

/* OMP_PROC_BIND=false (its first item, any case): the runtime binds nothing,
 * whatever OMP_PLACES or GOMP_CPU_AFFINITY say (libgomp, and the spec). */
static bool proc_bind_false(void)
{
    const char *v = getenv("OMP_PROC_BIND");
    if (!v)
        return false;
    v += strspn(v, " \t");
    return strcspn(v, ", \t") == 5 && strncasecmp(v, "false", 5) == 0;
}

static bool runtime_configured(void)
{
    for (size_t i = 0; i < sizeof runtime_vars / sizeof runtime_vars[0]; i++)
        if (env_set(runtime_vars[i]))
            return true;
    return false;
}

static bool runtime_binds(void)
{
    return runtime_configured() && !proc_bind_false();
}

/* The runtime variables that are set, as "OMP_PLACES/OMP_PROC_BIND". */
static void runtime_vars_text(char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof runtime_vars / sizeof runtime_vars[0] && pos < len; i++) {
        if (!env_set(runtime_vars[i]))
            continue;
        int w = snprintf(buf + pos, len - pos, "%s%s", pos ? "/" : "", runtime_vars[i]);
        pos += w > 0 ? (size_t)w : 0;
    }
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

/* Core logical index of a PU in the whole machine: stable under taskset. */
static int core_of(const ompb__topology *t, int pu)
{
    hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(t->machine, (unsigned)pu);
    hwloc_obj_t core = obj ? hwloc_get_ancestor_obj_by_type(t->machine, HWLOC_OBJ_CORE, obj)
                           : NULL;
    return core ? (int)core->logical_index : -1;
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

/* compact: the k-th usable PU of every core, core by core, for k = 0, 1, ...
 * so SMT siblings are used only once every core has a thread. Without Core
 * objects, each PU counts as a core. */
static int compact_order(const ompb__topology *t, int *order, int n)
{
    hwloc_obj_type_t unit = unit_type(t->topo);
    int units = count(t->topo, unit), got = 0;
    for (int k = 0; got < n; k++) {
        int before = got;
        for (int u = 0; u < units && got < n; u++) {
            hwloc_obj_t obj = hwloc_get_obj_by_type(t->topo, unit, (unsigned)u);
            hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(t->topo, obj->cpuset,
                                                                 HWLOC_OBJ_PU, (unsigned)k);
            if (pu)
                order[got++] = (int)pu->os_index;
        }
        if (got == before)
            break;
    }
    return got;
}

/* 1 when slot j of k gets one of r < k things spread evenly, else 0; the
 * rounding hwloc_distrib uses, so symmetric machines get its maps. */
static int evenly(int j, int r, int k)
{
    return ((j + 1) * r + k - 1) / k - (j * r + k - 1) / k;
}

/* Shares n threads among m children that have cap[i] units each (n <= the
 * sum): every child gets the same number, or all its units when it has
 * fewer, and the r left over go to r of the k children with room, evenly
 * spaced. hwloc_distrib shares in proportion to PUs instead, which on an
 * uneven mask gives one package two threads while another gets none. */
static void share(const int *cap, int m, int n, int *quota)
{
    int level = 0, room;
    for (;;) {
        room = 0;
        for (int i = 0; i < m; i++)
            room += cap[i] > level;
        if (room == 0 || n < room)
            break;
        n -= room;
        level++;
    }
    for (int i = 0, j = 0; i < m; i++) {
        quota[i] = cap[i] < level ? cap[i] : level;
        if (cap[i] > level)
            quota[i] += evenly(j++, n, room);
    }
}

/* Units below set that have a k-th usable PU (k = 0: all of them). */
static int units_with(hwloc_topology_t topo, hwloc_const_cpuset_t set, hwloc_obj_type_t unit,
                      int k)
{
    int n = 0;
    hwloc_obj_t u = NULL;
    while ((u = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, unit, u)) != NULL)
        n += hwloc_bitmap_weight(u->cpuset) > k;
    return n;
}

/* Appends the k-th PU of n units below obj, spread level by level
 * (packages, NUMA groups, caches, cores) with share(). */
static int spread_below(hwloc_topology_t topo, hwloc_obj_type_t unit, hwloc_obj_t obj, int n,
                        int k, int *order, int *got)
{
    if (obj->type == unit) {
        hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo, obj->cpuset, HWLOC_OBJ_PU,
                                                             (unsigned)k);
        if (pu)
            order[(*got)++] = (int)pu->os_index;
        return 0;
    }
    int m = (int)obj->arity, rc = 0;
    int *cap = malloc(2 * (size_t)(m ? m : 1) * sizeof *cap);
    if (!cap)
        return OMPB_ENOMEM;
    int *quota = cap + m;
    for (int i = 0; i < m; i++)
        cap[i] = units_with(topo, obj->children[i]->cpuset, unit, k);
    share(cap, m, n, quota);
    for (int i = 0; rc == 0 && i < m; i++)
        if (quota[i] > 0)
            rc = spread_below(topo, unit, obj->children[i], quota[i], k, order, got);
    free(cap);
    return rc;
}

/* spread: one thread per core, spread evenly over packages, NUMA nodes and
 * caches; once every core has one, the second PUs (SMT siblings) of the
 * cores are spread the same way, then the third, ... */
static int spread_order(const ompb__topology *t, int *order, int n, int *got)
{
    hwloc_obj_type_t unit = unit_type(t->topo);
    hwloc_obj_t root = hwloc_get_root_obj(t->topo);
    int rc = 0;
    *got = 0;
    for (int k = 0; rc == 0 && *got < n; k++) {
        int avail = units_with(t->topo, root->cpuset, unit, k);
        if (avail == 0)
            break;
        rc = spread_below(t->topo, unit, root, n - *got < avail ? n - *got : avail, k, order, got);
    }
    return rc;
}

/* cpus:LIST: the PUs as written; each must be usable. */
static int list_order(const ompb__topology *t, const char *policy, int *order, int *n,
                      ompb_error *err)
{
    char usable[128];
    int rc = parse_pu_list(policy, policy + 5, order, n, err);
    for (int i = 0; rc == 0 && i < *n; i++) {
        if (hwloc_bitmap_isset(t->usable, (unsigned)order[i]))
            continue;
        hwloc_bitmap_list_snprintf(usable, sizeof usable, t->usable);
        rc = ompb__error_set(err, OMPB_EINVAL,
                             "--pin: invalid value '%s': PU %d is not usable by this process "
                             "(usable PUs: %s)", policy, order[i], usable);
    }
    return rc;
}

/* Fills order[] (room for max(usable, OMPB__CPULIST_MAX_PUS)) for a binding policy. */
static int plan_order(const ompb__topology *t, const char *policy, int threads, int *order,
                      int *n, ompb_error *err)
{
    int usable = ompb__topology_usable_pus(t);
    int want = threads < usable ? threads : usable;
    if (strncmp(policy, "cpus:", 5) == 0)
        return list_order(t, policy, order, n, err);
    if (strcmp(policy, "spread") == 0) {
        if (spread_order(t, order, want, n) != 0)
            return ompb__error_set(err, OMPB_ENOMEM, "--pin spread: out of memory");
    } else {
        *n = compact_order(t, order, want);
    }
    return *n > 0 ? 0 : ompb__error_set(err, OMPB_EIO, "topology: no PU found");
}

static ompb__pin_plan *plan_alloc(int threads, const char *policy)
{
    size_t arrays = 2 * (size_t)threads * sizeof(int), plen = strlen(policy) + 1;
    ompb__pin_plan *p = calloc(1, sizeof *p + arrays + plen);
    if (!p)
        return NULL;
    p->threads = threads;
    p->pu = (int *)(void *)(p + 1);
    p->core = p->pu + threads;
    char *name = (char *)(p->core + threads);
    memcpy(name, policy, plen);
    p->policy = name;
    for (int t = 0; t < threads; t++)
        p->pu[t] = p->core[t] = -1;
    return p;
}

/* Threads wrap round-robin over the n PUs of the order. */
static int plan_fill(ompb__pin_plan *plan, const ompb__topology *t, ompb_error *err)
{
    int usable = ompb__topology_usable_pus(t), n = 0;
    size_t cap = (size_t)(usable > OMPB__CPULIST_MAX_PUS ? usable : OMPB__CPULIST_MAX_PUS);
    int *order = malloc(cap * sizeof *order);
    if (!order)
        return ompb__error_set(err, OMPB_ENOMEM, "--pin: out of memory");
    int rc = plan_order(t, plan->policy, plan->threads, order, &n, err);
    if (rc == 0) {
        for (int i = 0; i < plan->threads; i++) {
            plan->pu[i] = order[i % n];
            plan->core[i] = core_of(t, plan->pu[i]);
        }
        plan->oversubscribed = plan->threads > n;
    }
    free(order);
    return rc;
}

static const char *cache_type_name(hwloc_obj_cache_type_t type)
{
    switch (type) {
    case HWLOC_OBJ_CACHE_DATA: return "Data";
    case HWLOC_OBJ_CACHE_INSTRUCTION: return "Instruction";
    default: return "Unified";
    }
}

static void print_summary(FILE *out, const ompb__topology *topo)
{
    ompb__topology_summary s;
    ompb__topology_summarize(topo, &s);
    fprintf(out, "topology: %d package%s, %d NUMA node%s, %d core%s, %d PU%s%s\n",
            s.packages, ompb__plural(s.packages), s.numa_nodes, ompb__plural(s.numa_nodes),
            s.cores, ompb__plural(s.cores), s.pus, ompb__plural(s.pus),
            s.this_system ? "" : " (not this machine: synthetic or XML, nothing is bound)");
    fprintf(out, "usable:   %d core%s, %d PU%s (cpuset %s)\n", s.usable_cores,
            ompb__plural(s.usable_cores), s.usable_pus, ompb__plural(s.usable_pus),
            s.usable_cpuset);
}

/* Appends to buf at *pos, never past len. */
static void append(char *buf, size_t len, size_t *pos, const char *fmt, int v)
{
    if (*pos >= len)
        return;
    int w = snprintf(buf + *pos, len - *pos, fmt, v);
    *pos += w > 0 ? (size_t)w : 0;
}

static void print_places(FILE *out)
{
    char places[256];
    ompb__omp_places_text(places, sizeof places);
    fprintf(out, "places:   %s (proc_bind %s)\n", places,
            ompb__proc_bind_name((int)omp_get_proc_bind()));
}

static void print_binder(FILE *out, const char *policy)
{
    char text[OMPB__PLACEMENT_TEXT_MAX];
    ompb__pin_describe(policy, text, sizeof text);
    fprintf(out, "pin:      %s\n", text);
    if (ompb__pin_binder(policy) == OMPB__BINDER_RUNTIME)
        print_places(out);
}

/* Who binds and why, the part of ompb__pin_describe after "--pin ...; ". */
static void binder_reason(const char *policy, char *buf, size_t len)
{
    char vars[80];
    bool overridden = runtime_binds();
    runtime_vars_text(vars, sizeof vars);
    switch (ompb__pin_binder(policy)) {
    case OMPB__BINDER_OURS:
        snprintf(buf, len, "ompbench binds each team thread to one PU at team start (hwloc)%s%s%s",
                 overridden ? "; --pin overrides " : "", overridden ? vars : "",
                 overridden ? " (ompbench binds last)" : "");
        break;
    case OMPB__BINDER_RUNTIME:
        snprintf(buf, len, "%s (%s set); ompbench only observes",
                 policy ? "ompbench does not bind, but the OpenMP runtime still does"
                        : "the OpenMP runtime binds", vars);
        break;
    default:
        snprintf(buf, len, "%s", policy ? "nobody binds (--pin none): the OS may move threads"
                                        : "nobody binds: OMP_PROC_BIND=false, so the OpenMP "
                                          "runtime binds nothing, and ompbench binds only with "
                                          "--pin; the OS may move threads");
    }
}

static void print_map(FILE *out, const ompb__pin_plan *plan)
{
    if (plan->binder != OMPB__BINDER_OURS) {
        fprintf(out, "%s", plan->binder == OMPB__BINDER_RUNTIME ? "decided by the OpenMP runtime"
                                                                : "not bound");
    }
    for (int t = 0; plan->binder == OMPB__BINDER_OURS && t < plan->threads; t++) {
        fprintf(out, "%st%d->PU%d", t ? " " : "", t, plan->pu[t]);
        if (plan->core[t] >= 0)
            fprintf(out, "/core%d", plan->core[t]);
    }
    if (plan->oversubscribed)
        fprintf(out, "  [oversubscribed: %d threads on %d PU%s]", plan->threads,
                ompb__pin_plan_pus(plan), ompb__plural(ompb__pin_plan_pus(plan)));
    fputc('\n', out);
}

int ompb__process_cpuset(struct hwloc_bitmap_s *set)
{
    hwloc_bitmap_zero(set);
    int rc = thread_affinity(set);
    if (rc == 0)
        add_omp_places(set);
    return rc;
}

int ompb__topology_open(ompb__topology **out, ompb_error *err)
{
    *out = NULL;
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

int ompb__pin_policy_check(const char *policy, ompb_error *err)
{
    int n;
    if (!policy || strcmp(policy, "compact") == 0 || strcmp(policy, "spread") == 0
        || strcmp(policy, "none") == 0)
        return 0;
    if (strncmp(policy, "cpus:", 5) == 0)
        return parse_pu_list(policy, policy + 5, NULL, &n, err);
    return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%s' (%s)", policy,
                           OMPB__PIN_ACCEPTED);
}

ompb__binder ompb__pin_binder(const char *policy)
{
    if (policy && strcmp(policy, "none") != 0)
        return OMPB__BINDER_OURS;
    if (runtime_binds())
        return OMPB__BINDER_RUNTIME;
    return policy || proc_bind_false() ? OMPB__BINDER_NONE : OMPB__BINDER_OURS;
}

const char *ompb__pin_policy_name(const char *policy)
{
    if (policy)
        return policy;
    return runtime_configured() ? "runtime" : "compact";
}

void ompb__pin_describe(const char *policy, char *buf, size_t len)
{
    const char *name = ompb__pin_policy_name(policy);
    int w = policy ? snprintf(buf, len, "--pin %s; ", policy)
                   : snprintf(buf, len, "%s; ", strcmp(name, "compact") == 0
                                                    ? "--pin compact (default)" : "no --pin");
    if (w > 0 && (size_t)w < len)
        binder_reason(policy, buf + w, len - (size_t)w);
}

const char *ompb__binder_name(ompb__binder binder)
{
    switch (binder) {
    case OMPB__BINDER_OURS: return "ompbench";
    case OMPB__BINDER_RUNTIME: return "runtime";
    default: return "none";
    }
}

int ompb__topology_usable_pus(const ompb__topology *topo)
{
    return hwloc_bitmap_weight(topo->usable);
}

int ompb__pin_plan_new(const ompb__topology *topo, const char *policy, int threads,
                       ompb__pin_plan **out, ompb_error *err)
{
    *out = NULL;
    if (threads < 1)
        return ompb__error_set(err, OMPB_EINVAL, "pin plan: invalid thread count %d "
                               "(accepted: 1 or more)", threads);
    int rc = ompb__pin_policy_check(policy, err);
    if (rc != 0)
        return rc;
    ompb__binder binder = ompb__pin_binder(policy);
    ompb__pin_plan *plan = plan_alloc(threads, ompb__pin_policy_name(policy));
    if (!plan)
        return ompb__error_set(err, OMPB_ENOMEM, "pin plan: out of memory");
    plan->binder = binder;
    plan->topo = topo;
    plan->oversubscribed = threads > ompb__topology_usable_pus(topo);
    if (binder == OMPB__BINDER_OURS && (rc = plan_fill(plan, topo, err)) != 0) {
        ompb__pin_plan_free(plan);
        return rc;
    }
    *out = plan;
    return 0;
}

void ompb__pin_plan_free(ompb__pin_plan *plan)
{
    free(plan);
}

int ompb__pin_plan_pus(const ompb__pin_plan *plan)
{
    if (plan->binder != OMPB__BINDER_OURS)
        return ompb__topology_usable_pus(plan->topo);
    hwloc_bitmap_t seen = hwloc_bitmap_alloc();
    if (!seen)
        return plan->threads;
    for (int t = 0; t < plan->threads; t++)
        hwloc_bitmap_set(seen, (unsigned)plan->pu[t]);
    int n = hwloc_bitmap_weight(seen);
    hwloc_bitmap_free(seen);
    return n;
}

int ompb__pin_plan_bind_self(const ompb__pin_plan *plan, int t)
{
    if (!plan || plan->binder != OMPB__BINDER_OURS)
        return 0;
    if (t < 0 || t >= plan->threads)
        return OMPB_EINVAL;
    /* On a synthetic or XML topology the PU numbers are not this machine's:
     * binding would silently do nothing while the run says we bind. */
    if (!plan->topo || !plan->topo->this_system)
        return OMPB_EINVAL;
    if (plan->pu[t] < 0)
        return 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return OMPB_ENOMEM;
    hwloc_bitmap_only(set, (unsigned)plan->pu[t]);
    int rc = hwloc_set_cpubind(plan->topo->topo, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
    return rc == 0 ? 0 : OMPB_EIO;
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

void ompb__omp_places_text(char *buf, size_t len)
{
    int places = omp_get_num_places();
    size_t pos = 0;
    buf[0] = '\0';
    if (places <= 0)
        snprintf(buf, len, "none");
    for (int p = 0; p < places; p++) {
        int n = omp_get_place_num_procs(p);
        int *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
        if (ids)
            omp_get_place_proc_ids(p, ids);
        append(buf, len, &pos, p ? ",{" : "{", 0);
        for (int i = 0; ids && i < n; i++)
            append(buf, len, &pos, i ? ",%d" : "%d", ids[i]);
        append(buf, len, &pos, "}", 0);
        free(ids);
    }
}

const char *ompb__proc_bind_name(int bind)
{
    switch (bind) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    default: return "unknown";
    }
}

int ompb__show_plan(FILE *out, const ompb__topology *topo, const ompb__instance *inst,
                    size_t n, const char *policy, ompb_error *err)
{
    int width = 8;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(inst[i].name) > width)
            width = (int)strlen(inst[i].name);
    print_summary(out, topo);
    print_binder(out, policy);
    fprintf(out, "%-*s  %3s  %s\n", width, "instance", "T", "thread->PU/core");
    for (size_t i = 0; i < n; i++) {
        ompb__pin_plan *plan;
        int rc = ompb__pin_plan_new(topo, policy, inst[i].threads, &plan, err);
        if (rc != 0)
            return rc;
        fprintf(out, "%-*s  %3d  ", width, inst[i].name, inst[i].threads);
        print_map(out, plan);
        ompb__pin_plan_free(plan);
    }
    return 0;
}
