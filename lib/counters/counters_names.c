/* SPDX-License-Identifier: MIT */
/*
 * Event names for --counters (lib/counters/counters.h, lib/counters/counters_internal.h):
 * perf's generic hardware and software events and its cache events as
 * data, the aliases users write for them as one table, and the parse of a
 * --counters list into a set. Every event is known by one canonical name,
 * the one results carry, whichever of its names the list used: a run with
 * `cpu-cycles` and one with `cycles` write the same `cycles` and compare.
 * A name neither table knows goes to libpfm4 (lib/counters/counters_pfm.c).
 */
#include "counters/counters_internal.h"

#include <linux/perf_event.h>
#include <string.h>

#include "core/core.h"

typedef struct generic_event {
    const char *name;               /* canonical */
    uint32_t type;
    uint64_t config;
} generic_event;

/* perf's generic events, in --list-counters order. */
static const generic_event generic[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
};

/* Other names of the events above (or of cache or libpfm4 events): a
 * --counters list may use either, results carry the canonical one.
 * Adding an alias is one row (CONTRIBUTING.md). */
const ompb__counter_alias ompb__counter_aliases[] = {
    {"cpu-cycles", "cycles"},
    {"branch-instructions", "branches"},
    {"cs", "context-switches"},
    {"migrations", "cpu-migrations"},
    {"faults", "page-faults"},
};
const size_t ompb__counter_n_aliases =
    sizeof ompb__counter_aliases / sizeof ompb__counter_aliases[0];

/* perf's cache events: <cache>-<op>s counts accesses, <cache>-<op>-misses
 * misses; config = cache | op << 8 | result << 16. */
static const char *const caches[] = {"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB",
                                     "branch", "node"};
static const char *const cache_ops[] = {"load", "store", "prefetch"};
static const char *const cache_op_plurals[] = {"loads", "stores", "prefetches"};

#define COUNT_OF(a) (sizeof (a) / sizeof (a)[0])

const char *ompb__counter_canonical(const char *name)
{
    for (size_t i = 0; i < ompb__counter_n_aliases; i++)
        if (strcmp(name, ompb__counter_aliases[i].alias) == 0)
            return ompb__counter_aliases[i].canonical;
    return name;
}

static void set_event(ompb__counter_event *ev, const char *name, uint32_t type, uint64_t config)
{
    memset(ev, 0, sizeof *ev);
    snprintf(ev->name, sizeof ev->name, "%s", name);
    ev->type = type;
    ev->config = config;
    bool clock = type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK ||
                                                config == PERF_COUNT_SW_CPU_CLOCK);
    /* Switches and migrations happen in the kernel, with the kernel's
     * registers: counted in user space only they would read 0, a silent
     * zero column. Everything else asks for no kernel counting, which
     * kernel.perf_event_paranoid = 2 refuses to unprivileged users: the
     * clocks count the thread's whole CPU time either way, and a fault is
     * charged to the mode it was taken in, so the body's own page faults
     * count in user space (measured: 16385 of 16384 touched pages, as an
     * unprivileged user at level 2); faults the kernel takes on the
     * thread's behalf (copying into a user buffer in read(2)) do not. */
    ev->kernel = type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
                                                config == PERF_COUNT_SW_CPU_MIGRATIONS);
    ev->unit = clock ? OMPB__COUNTER_NS : OMPB__COUNTER_COUNT;
}

static bool find_generic(const char *name, ompb__counter_event *ev)
{
    for (size_t i = 0; i < COUNT_OF(generic); i++)
        if (strcmp(name, generic[i].name) == 0) {
            set_event(ev, name, generic[i].type, generic[i].config);
            return true;
        }
    return false;
}

static bool find_cache(const char *name, ompb__counter_event *ev)
{
    for (size_t c = 0; c < COUNT_OF(caches); c++) {
        size_t len = strlen(caches[c]);
        if (strncmp(name, caches[c], len) != 0 || name[len] != '-')
            continue;
        for (size_t op = 0; op < COUNT_OF(cache_ops); op++) {
            char miss[48];
            snprintf(miss, sizeof miss, "%s-misses", cache_ops[op]);
            int result = strcmp(name + len + 1, cache_op_plurals[op]) == 0 ? 0
                         : strcmp(name + len + 1, miss) == 0 ? 1 : -1;
            if (result >= 0) {
                set_event(ev, name, PERF_TYPE_HW_CACHE,
                          (uint64_t)c | (uint64_t)op << 8 | (uint64_t)result << 16);
                return true;
            }
        }
    }
    return false;
}

static bool find_named(const char *name, ompb__counter_event *ev)
{
    uint32_t type;
    uint64_t config[3];
    if (!ompb__counters_pfm_encode(name, &type, config))
        return false;
    set_event(ev, name, type, config[0]);
    ev->config1 = config[1];
    ev->config2 = config[2];
    ev->named = true;
    return true;
}

bool ompb__counters_find(const char *name, ompb__counter_event *ev)
{
    const char *canonical = ompb__counter_canonical(name);
    return find_generic(canonical, ev) || find_cache(canonical, ev);
}

/* name's aliases, ", "-separated, into buf. */
static void aliases_of(const char *name, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ompb__counter_n_aliases && at < len; i++)
        if (strcmp(ompb__counter_aliases[i].canonical, name) == 0) {
            int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
                             ompb__counter_aliases[i].alias);
            at += w > 0 ? (size_t)w : 0;
        }
}

void ompb__counters_each_event(bool cache,
                               void (*fn)(void *arg, const char *name, const char *aliases),
                               void *arg)
{
    char aliases[256], name[64];
    for (size_t i = 0; !cache && i < COUNT_OF(generic); i++) {
        aliases_of(generic[i].name, aliases, sizeof aliases);
        fn(arg, generic[i].name, aliases);
    }
    for (size_t c = 0; cache && c < COUNT_OF(caches); c++)
        for (size_t op = 0; op < COUNT_OF(cache_ops); op++) {
            snprintf(name, sizeof name, "%s-%s", caches[c], cache_op_plurals[op]);
            aliases_of(name, aliases, sizeof aliases);
            fn(arg, name, aliases);
            snprintf(name, sizeof name, "%s-%s-misses", caches[c], cache_ops[op]);
            aliases_of(name, aliases, sizeof aliases);
            fn(arg, name, aliases);
        }
}

/* ---- a --counters list ------------------------------------------------------- */

#ifdef OMPB_HAVE_LIBPFM
#define NAMED_HINT " or a processor event libpfm4 knows on this machine"
#else
#define NAMED_HINT "; processor events by name need libpfm4 at build time"
#endif

/* The same event twice, under one name or two. */
static int check_repeat(const char *name, const ompb__counter_set *set, ompb_error *err)
{
    const char *canonical = ompb__counter_canonical(name);
    for (int i = 0; i < set->n; i++) {
        const ompb__counter_event *ev = &set->ev[i];
        if (strcmp(ev->given, name) == 0)
            return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is listed twice "
                                   "(accepted: each event once)", name);
        if (strcmp(ev->name, canonical) == 0)
            return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is listed twice: "
                                   "'%s' and '%s' are both %s (accepted: each event once)",
                                   name, ev->given, name, ev->name);
    }
    return 0;
}

static int parse_one(const char *name, ompb__counter_set *set, ompb_error *err)
{
    if (!*name)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: empty event name in the list "
                               "(accepted: event names separated by commas, e.g. "
                               "task-clock,page-faults)");
    if (strlen(name) >= OMPB__COUNTER_NAME_MAX)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event name '%.40s...' is longer "
                               "than %d characters", name, OMPB__COUNTER_NAME_MAX - 1);
    if (check_repeat(name, set, err) != 0)
        return OMPB_EINVAL;
    if (set->n == OMPB__MAX_COUNTERS)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: more than %d events: '%s' is "
                               "event %d (accepted: at most %d per run, one group)",
                               OMPB__MAX_COUNTERS, name, OMPB__MAX_COUNTERS + 1,
                               OMPB__MAX_COUNTERS);
    ompb__counter_event *ev = &set->ev[set->n];
    if (!ompb__counters_find(name, ev) && !find_named(ompb__counter_canonical(name), ev))
        return ompb__error_set(err, OMPB_EINVAL, "--counters: unknown event '%s' (accepted: "
                               "perf's generic names such as instructions, cycles, "
                               "cache-misses, task-clock, context-switches, page-faults, "
                               "L1-dcache-load-misses" NAMED_HINT "; see --list-counters)",
                               name);
    snprintf(ev->given, sizeof ev->given, "%.*s", (int)sizeof ev->given - 1, name); /* fits: checked above */
    set->n++;
    return 0;
}

int ompb__counters_parse(const char *list, ompb__counter_set *set, ompb_error *err)
{
    memset(set, 0, sizeof *set);
    const char *p = list;
    for (;;) {
        char name[OMPB__COUNTER_NAME_MAX + 8];
        size_t len = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1), p);
        if (len >= sizeof name - 1)
            name[sizeof name - 2] = 'x'; /* too long: parse_one says so */
        int rc = parse_one(name, set, err);
        if (rc)
            return rc;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

const char *ompb__counter_label(const ompb__counter_event *ev)
{
    return ev->given[0] ? ev->given : ev->name;
}

void ompb__counters_names(const ompb__counter_set *set, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < set->n && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s", i ? "," : "",
                         ompb__counter_label(&set->ev[i]));
        at += w > 0 ? (size_t)w : 0;
    }
}

const char *ompb__counter_unit_name(ompb__counter_unit unit)
{
    return unit == OMPB__COUNTER_NS ? "ns" : "count";
}
