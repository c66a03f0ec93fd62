/* SPDX-License-Identifier: MIT */
/*
 * The pin policy table and the --pin value. compact fills cores one PU at a
 * time, spread spreads threads evenly over packages, NUMA nodes, caches and
 * cores (both take the most performant kind of core first on hybrid CPUs), cpus:LIST takes the PUs as written, a LIKWID-style domain
 * expression (lib/placement/pin_domain.c) the PUs it names, none binds nothing. Each
 * policy's order function walks the usable view of the hwloc topology
 * (lib/placement/topology.h); plans (lib/placement/pin_plan.c) wrap threads over that order.
 */
#include "placement/pin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "placement/cpulist.h"
#include "core/core.h"
#include "placement/pin_domain.h"

/* Room for the usable PU set in a cpus:LIST message. */
#define USABLE_TEXT_MAX 128

static int invalid(const char *value, ompb_error *err)
{
    return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%s' (%s)", value,
                           ompb__pin_accepted());
}

/* compact, spread, none: no argument. */
static int parse_bare(const char *value, const char *arg, ompb__pin_spec *spec,
                      ompb_error *err)
{
    (void)spec;
    return arg ? invalid(value, err) : 0;
}

/* cpus:LIST */
static int parse_cpus(const char *value, const char *arg, ompb__pin_spec *spec,
                      ompb_error *err)
{
    char why[OMPB__CPULIST_WHY_MAX];
    if (!arg)
        return invalid(value, err);
    int rc = ompb__cpulist_parse(arg, &spec->pus, &spec->n_pus, why, sizeof why);
    if (rc == OMPB_ENOMEM)
        return ompb__error_set(err, rc, "--pin: out of memory");
    if (rc != 0)
        return ompb__error_set(err, rc, "--pin: invalid value '%s': %s (%s)", value, why,
                               ompb__pin_accepted());
    return 0;
}

static void free_kinds(hwloc_bitmap_t *sets, int n);

/* The CPU kinds of view from the most performant down (hwloc ranks them
 * the other way), as cpusets in *sets (freed with free_kinds): P-cores before
 * E-cores on hybrid machines, whatever their numbering (Apple's E-cores come
 * first on Asahi Linux). One set, the whole view, when hwloc knows no kinds.
 * Returns the number of sets, 0 when out of memory. */
static int kinds_by_performance(hwloc_topology_t view, hwloc_bitmap_t **sets)
{
    int nr = hwloc_cpukinds_get_nr(view, 0), n = nr > 1 ? nr : 1;
    *sets = calloc((size_t)n, sizeof **sets);
    for (int i = 0; *sets && i < n; i++) {
        if (!((*sets)[i] = hwloc_bitmap_alloc())) {
            free_kinds(*sets, i);
            return 0;
        }
        if (nr > 1)
            hwloc_cpukinds_get_info(view, (unsigned)(nr - 1 - i), (*sets)[i], NULL, NULL, NULL,
                                    0);
        else
            hwloc_bitmap_copy((*sets)[i], hwloc_get_root_obj(view)->cpuset);
    }
    return *sets ? n : 0;
}

static void free_kinds(hwloc_bitmap_t *sets, int n)
{
    for (int i = 0; sets && i < n; i++)
        hwloc_bitmap_free(sets[i]);
    free(sets);
}

/* compact: the k-th usable PU of every core, core by core, for k = 0, 1, ...
 * so SMT siblings are used only once every core has a thread; within each
 * k, the cores of the most performant kind first. Without Core objects,
 * each PU counts as a core. */
static int compact_order(const ompb__topology *t, const ompb__pin_spec *spec, int want,
                         int *order, int *n, ompb_error *err)
{
    hwloc_topology_t view = ompb__topology_usable_view(t);
    hwloc_obj_type_t unit = (hwloc_obj_type_t)ompb__topology_unit_type(view);
    hwloc_bitmap_t *kinds;
    int nk = kinds_by_performance(view, &kinds), got = 0;
    (void)spec;
    if (nk == 0)
        return ompb__error_set(err, OMPB_ENOMEM, "--pin compact: out of memory");
    for (unsigned k = 0; got < want; k++) {
        int before = got;
        for (int i = 0; i < nk; i++) {
            hwloc_obj_t u = NULL;
            while (got < want
                   && (u = hwloc_get_next_obj_inside_cpuset_by_type(view, kinds[i], unit, u))) {
                hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(view, u->cpuset,
                                                                     HWLOC_OBJ_PU, k);
                if (pu)
                    order[got++] = (int)pu->os_index;
            }
        }
        if (got == before)
            break;
    }
    free_kinds(kinds, nk);
    *n = got;
    return 0;
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

/* Units below set and of the kind within that have a k-th usable PU. */
static int units_with(hwloc_topology_t topo, hwloc_const_cpuset_t set, hwloc_obj_type_t unit,
                      int k, hwloc_const_cpuset_t within)
{
    int n = 0;
    hwloc_obj_t u = NULL;
    while ((u = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, unit, u)) != NULL)
        n += hwloc_bitmap_weight(u->cpuset) > k && hwloc_bitmap_isincluded(u->cpuset, within);
    return n;
}

/* Appends the k-th PU of n units of the kind within below obj, spread level
 * by level (packages, NUMA groups, caches, cores) with share(). */
static int spread_below(hwloc_topology_t topo, hwloc_obj_type_t unit, hwloc_obj_t obj, int n,
                        int k, hwloc_const_cpuset_t within, int *order, int *got)
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
        cap[i] = units_with(topo, obj->children[i]->cpuset, unit, k, within);
    share(cap, m, n, quota);
    for (int i = 0; rc == 0 && i < m; i++)
        if (quota[i] > 0)
            rc = spread_below(topo, unit, obj->children[i], quota[i], k, within, order, got);
    free(cap);
    return rc;
}

/* spread: one thread per core, spread evenly over packages, NUMA nodes and
 * caches; once every core has one, the second PUs (SMT siblings) of the
 * cores are spread the same way, then the third, ... Within each of these
 * rounds the cores of the most performant kind come first. */
static int spread_order(const ompb__topology *t, const ompb__pin_spec *spec, int want,
                        int *order, int *n, ompb_error *err)
{
    hwloc_topology_t view = ompb__topology_usable_view(t);
    hwloc_obj_type_t unit = (hwloc_obj_type_t)ompb__topology_unit_type(view);
    hwloc_obj_t root = hwloc_get_root_obj(view);
    hwloc_bitmap_t *kinds;
    int nk = kinds_by_performance(view, &kinds), rc = nk ? 0 : OMPB_ENOMEM, more = 1;
    (void)spec;
    *n = 0;
    for (int k = 0; rc == 0 && more && *n < want; k++) {
        more = 0;
        for (int i = 0; rc == 0 && i < nk && *n < want; i++) {
            int avail = units_with(view, root->cpuset, unit, k, kinds[i]);
            more |= avail > 0;
            if (avail > 0)
                rc = spread_below(view, unit, root, want - *n < avail ? want - *n : avail, k,
                                  kinds[i], order, n);
        }
    }
    free_kinds(kinds, nk);
    return rc == 0 ? 0 : ompb__error_set(err, OMPB_ENOMEM, "--pin spread: out of memory");
}

/* cpus:LIST: the PUs as written; each must be usable. */
static int list_order(const ompb__topology *t, const ompb__pin_spec *spec, int want,
                      int *order, int *n, ompb_error *err)
{
    char usable[USABLE_TEXT_MAX];
    (void)want;
    for (int i = 0; i < spec->n_pus; i++) {
        if (ompb__topology_pu_usable(t, spec->pus[i])) {
            order[i] = spec->pus[i];
            continue;
        }
        ompb__topology_usable_text(t, usable, sizeof usable);
        return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%s': PU %d is not "
                               "usable by this process (usable PUs: %s)", spec->text,
                               spec->pus[i], usable);
    }
    *n = spec->n_pus;
    return 0;
}

/* The table: the first row is the default; messages list the rows in this
 * order. */
static const ompb__pin_policy policies[] = {
    {"compact", NULL, "compact", parse_bare, compact_order, "compact"},
    {"spread", NULL, "spread", parse_bare, spread_order, "spread"},
    {"none", NULL, "none", parse_bare, NULL, "none"},
    {"cpus", NULL, "cpus:LIST (e.g. cpus:0,2,4-7)", parse_cpus, list_order, "cpus:LIST"},
    {"domains", ompb__pin_domain_match, OMPB__PIN_DOMAIN_SYNTAX, ompb__pin_domain_parse,
     ompb__pin_domain_order, "LIKWID domains, e.g. S0:0-7@S1:0-7"},
};

#define N_POLICIES (sizeof policies / sizeof policies[0])

/* The row value names, and its argument (NULL: none). */
static const ompb__pin_policy *find(const char *value, const char **arg)
{
    for (size_t i = 0; i < N_POLICIES; i++) {
        if (policies[i].match) {
            if (!policies[i].match(value))
                continue;
            *arg = value;
            return &policies[i];
        }
        size_t len = strlen(policies[i].name);
        if (strncmp(value, policies[i].name, len) != 0
            || (value[len] != '\0' && value[len] != ':'))
            continue;
        *arg = value[len] == ':' ? value + len + 1 : NULL;
        return &policies[i];
    }
    return NULL;
}

int ompb__pin_parse(const char *value, ompb__pin_spec *out, ompb_error *err)
{
    const char *arg = NULL;
    const ompb__pin_policy *row = find(value, &arg);
    memset(out, 0, sizeof *out);
    if (!row)
        return invalid(value, err);
    int rc = row->parse(value, arg, out, err);
    if (rc == 0 && !(out->text = strdup(value)))
        rc = ompb__error_set(err, OMPB_ENOMEM, "--pin: out of memory");
    if (rc != 0) {
        ompb__pin_spec_release(out);
        return rc;
    }
    out->policy = row;
    return 0;
}

void ompb__pin_spec_release(ompb__pin_spec *spec)
{
    if (!spec)
        return;
    free(spec->text);
    free(spec->pus);
    free(spec->domains);
    memset(spec, 0, sizeof *spec);
}

const ompb__pin_policy *ompb__pin_row(const ompb__pin_spec *pin)
{
    return ompb__pin_given(pin) ? pin->policy : &policies[0];
}

const ompb__pin_policy *ompb__pin_policies(size_t *n)
{
    *n = N_POLICIES;
    return policies;
}

const char *ompb__pin_accepted(void)
{
    static char text[256];
    if (!text[0]) {
        size_t pos = (size_t)snprintf(text, sizeof text, "accepted: ");
        for (size_t i = 0; i < N_POLICIES && pos < sizeof text; i++)
            pos += (size_t)snprintf(text + pos, sizeof text - pos, "%s%s", i ? ", " : "",
                                    policies[i].syntax);
    }
    return text;
}
