/* SPDX-License-Identifier: MIT */
/*
 * LIKWID-style domain expressions for --pin ("S0:0-7@S1:0-7"): parsed into
 * items of the ompb__pin_spec once, turned into PUs on the topology when a
 * plan is made. Domains are found in the whole machine so that their
 * numbers do not shift under a cpuset; their PUs come from the usable view,
 * physical cores first, as LIKWID numbers them.
 */
#include "placement/pin_domain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "placement/cpulist.h"
#include "core/core.h"

/* Most items one expression may join; a longer one is a typo or a script gone wrong. */
#define MAX_ITEMS 4096
/* Largest domain number accepted by the parser; the topology decides the rest. */
#define MAX_NUMBER 1000000
/* Room for one item's text in messages. */
#define ITEM_TEXT_MAX 64
/* Room for the usable PU set in messages. */
#define USABLE_TEXT_MAX 128

static int bad_item(const char *value, const char *item, size_t len, const char *why,
                    ompb_error *err)
{
    return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%s': item '%.*s': %s "
                           "(accepted: %s)", value, (int)(len < ITEM_TEXT_MAX ? len : ITEM_TEXT_MAX),
                           item, why, OMPB__PIN_DOMAIN_SYNTAX);
}

static const char *kind_name(char kind)
{
    switch (kind) {
    case 'S': return "socket";
    case 'M': return "NUMA domain";
    case 'C': return "last-level cache";
    default: return "node";
    }
}

/* "socket S1", "node N": how messages name a domain. */
static const char *label(const struct ompb__pin_domain *d, char *buf, size_t len)
{
    if (d->kind == 'N')
        snprintf(buf, len, "node N");
    else
        snprintf(buf, len, "%s %c%d", kind_name(d->kind), d->kind, d->number);
    return buf;
}

/* Reads "N:" or "X<number>:" at s into *d; returns the list's start or NULL. */
static const char *read_domain(const char *s, struct ompb__pin_domain *d)
{
    d->kind = *s;
    d->number = 0;
    if (*s == 'N')
        return s[1] == ':' ? s + 2 : NULL;
    if (*s == '\0' || !strchr("SMC", *s) || s[1] < '0' || s[1] > '9')
        return NULL;
    long v = 0;
    for (s++; *s >= '0' && *s <= '9'; s++)
        if ((v = v * 10 + (*s - '0')) > MAX_NUMBER)
            return NULL;
    d->number = (int)v;
    return *s == ':' ? s + 1 : NULL;
}

/* Parses one item (item .. item+len) and appends its indexes to spec. */
static int parse_item(const char *value, const char *item, size_t len, ompb__pin_spec *spec,
                      ompb_error *err)
{
    struct ompb__pin_domain *d = &spec->domains[spec->n_domains];
    char list[ITEM_TEXT_MAX * 4], why[OMPB__CPULIST_WHY_MAX];
    const char *at = read_domain(item, d);
    if (!at || at > item + len)
        return bad_item(value, item, len, "expected N:, S<n>:, M<n>: or C<n>: before the list",
                        err);
    size_t llen = (size_t)(item + len - at);
    if (llen >= sizeof list)
        return bad_item(value, item, len, "list too long", err);
    memcpy(list, at, llen);
    list[llen] = '\0';
    int *idx = NULL, n = 0;
    int rc = ompb__cpulist_parse(list, &idx, &n, why, sizeof why);
    if (rc == OMPB_ENOMEM)
        return ompb__error_set(err, rc, "--pin: out of memory");
    if (rc != 0 && strncmp(why, "PU ", 3) == 0) {
        /* The list parser speaks of PUs; here the numbers are indexes. */
        char index_why[OMPB__CPULIST_WHY_MAX + 8];
        snprintf(index_why, sizeof index_why, "index %s", why + 3);
        return bad_item(value, item, len, index_why, err);
    }
    if (rc != 0)
        return bad_item(value, item, len, why, err);
    int *grown = realloc(spec->pus, (size_t)(spec->n_pus + n) * sizeof *grown);
    if (!grown) {
        free(idx);
        return ompb__error_set(err, OMPB_ENOMEM, "--pin: out of memory");
    }
    memcpy(grown + spec->n_pus, idx, (size_t)n * sizeof *idx);
    free(idx);
    spec->pus = grown;
    d->first = spec->n_pus;
    d->count = n;
    spec->n_pus += n;
    spec->n_domains++;
    return 0;
}

bool ompb__pin_domain_match(const char *value)
{
    if (value[0] == 'N')
        return value[1] == ':';
    return value[0] != '\0' && strchr("SMC", value[0]) && value[1] >= '0' && value[1] <= '9';
}

int ompb__pin_domain_parse(const char *value, const char *arg, ompb__pin_spec *spec,
                           ompb_error *err)
{
    size_t items = 1;
    for (const char *s = arg; *s; s++)
        items += *s == '@';
    if (items > MAX_ITEMS)
        return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%.40s...': %zu items "
                               "joined with @ (accepted: at most %d)", value, items, MAX_ITEMS);
    spec->domains = calloc(items, sizeof *spec->domains);
    if (!spec->domains)
        return ompb__error_set(err, OMPB_ENOMEM, "--pin: out of memory");
    for (const char *item = arg;;) {
        const char *end = strchr(item, '@');
        size_t len = end ? (size_t)(end - item) : strlen(item);
        int rc = parse_item(value, item, len, spec, err);
        if (rc != 0 || !end)
            return rc;
        item = end + 1;
    }
}

/* The last-level cache type of topo: the deepest cache level found, L5 to L1. */
static hwloc_obj_type_t llc_type(hwloc_topology_t topo)
{
    static const hwloc_obj_type_t types[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE,
                                             HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
                                             HWLOC_OBJ_L1CACHE};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (hwloc_get_nbobjs_by_type(topo, types[i]) > 0)
            return types[i];
    return HWLOC_OBJ_MACHINE;
}

/* The domain's object in the whole machine, NULL when there is none. */
static hwloc_obj_t domain_obj(hwloc_topology_t machine, const struct ompb__pin_domain *d)
{
    hwloc_obj_type_t type = d->kind == 'S' ? HWLOC_OBJ_PACKAGE
                            : d->kind == 'M' ? HWLOC_OBJ_NUMANODE
                            : d->kind == 'C' ? llc_type(machine) : HWLOC_OBJ_MACHINE;
    return hwloc_get_obj_by_type(machine, type, (unsigned)d->number);
}

/* Writes the usable PUs of set in LIKWID's order (the k-th PU of every core
 * for k = 0, 1, ...) into pus; returns how many. */
static int domain_pus(hwloc_topology_t view, hwloc_const_cpuset_t set, int *pus)
{
    hwloc_obj_type_t unit = (hwloc_obj_type_t)ompb__topology_unit_type(view);
    int got = 0;
    for (unsigned k = 0;; k++) {
        int before = got;
        hwloc_obj_t u = NULL;
        while ((u = hwloc_get_next_obj_inside_cpuset_by_type(view, set, unit, u)) != NULL) {
            hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(view, u->cpuset,
                                                                 HWLOC_OBJ_PU, k);
            if (pu)
                pus[got++] = (int)pu->os_index;
        }
        if (got == before)
            return got;
    }
}

/* Appends item d's PUs to order at *n; taken collects the PUs so far, since
 * two items naming one PU would put two threads on it unannounced. */
static int item_order(const ompb__topology *t, const ompb__pin_spec *spec,
                      const struct ompb__pin_domain *d, hwloc_bitmap_t set, int *dom,
                      hwloc_bitmap_t taken, int *order, int *n, ompb_error *err)
{
    char usable[USABLE_TEXT_MAX], name[ITEM_TEXT_MAX];
    hwloc_topology_t view = ompb__topology_usable_view(t);
    hwloc_obj_t obj = domain_obj(ompb__topology_machine_view(t), d);
    if (!obj)
        return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%s': there is no %s "
                               "on this machine", spec->text, label(d, name, sizeof name));
    hwloc_bitmap_and(set, obj->cpuset, hwloc_get_root_obj(view)->cpuset);
    int size = domain_pus(view, set, dom);
    ompb__topology_usable_text(t, usable, sizeof usable);
    if (size == 0)
        return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%s': %s has no PU this "
                               "process may use (usable PUs: %s)", spec->text,
                               label(d, name, sizeof name), usable);
    for (int i = 0; i < d->count; i++) {
        int idx = spec->pus[d->first + i];
        if (idx >= size)
            return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%s': index %d is "
                                   "past %s, which has %d usable PU%s (indexes 0-%d; usable PUs: "
                                   "%s)", spec->text, idx, label(d, name, sizeof name), size,
                                   ompb__plural(size), size - 1, usable);
        if (hwloc_bitmap_isset(taken, (unsigned)dom[idx]))
            return ompb__error_set(err, OMPB_EINVAL, "--pin: invalid value '%s': PU %d is named "
                                   "twice (index %d of %s is a PU an earlier item took)",
                                   spec->text, dom[idx], idx, label(d, name, sizeof name));
        hwloc_bitmap_set(taken, (unsigned)dom[idx]);
        order[(*n)++] = dom[idx];
    }
    return 0;
}

int ompb__pin_domain_order(const ompb__topology *t, const ompb__pin_spec *spec, int want,
                           int *order, int *n, ompb_error *err)
{
    int *dom = malloc((size_t)ompb__topology_usable_pus(t) * sizeof *dom);
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), taken = hwloc_bitmap_alloc();
    int rc = dom && set && taken ? 0 : ompb__error_set(err, OMPB_ENOMEM, "--pin: out of memory");
    (void)want;
    *n = 0;
    for (int i = 0; rc == 0 && i < spec->n_domains; i++)
        rc = item_order(t, spec, &spec->domains[i], set, dom, taken, order, n, err);
    hwloc_bitmap_free(taken);
    hwloc_bitmap_free(set);
    free(dom);
    return rc;
}
