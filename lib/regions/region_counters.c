/* SPDX-License-Identifier: MIT */
/*
 * Counters per region: the setting (parsed and probed before main(), a
 * bad one stops the program with exit 2 as every OMPB_REGIONS_* does),
 * each thread's group and sums, and their totals for reports. A thread's
 * sums stay in a process-wide list after it exits (its group is closed
 * then), so a report still has the counts of threads that are gone.
 * ompb_region_counter's sums live in the same per-thread cells.
 */
#include "regions/region_counters.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/run.h>

#include "core/core.h"

/* One entry's sums on one thread; written by that thread only, read by
 * reports (relaxed atomics: no lock, no torn value). */
typedef struct cell {
    const ompb__region_entry *entry;
    _Atomic uint64_t instances;
    _Atomic uint64_t value[OMPB__MAX_COUNTERS];
    _Atomic uint64_t enabled_ns, running_ns;
    /* ompb_region_counter: names (published by n_user) and sums. */
    char user_name[OMPB__UCOUNTERS_MAX][OMPB__UCOUNTER_NAME_MAX];
    unsigned user_flags[OMPB__UCOUNTERS_MAX];
    _Atomic double user[OMPB__UCOUNTERS_MAX];
    _Atomic int n_user;
} cell;

typedef struct thread_counts {
    ompb__counter_group group;
    bool opened, failed;        /* failed: this thread counts no events */
    ompb__counter_reading begin[OMPB__REGION_DEPTH_MAX];
    ompb__counter_reading end;
    cell *_Atomic cells;         /* [cap], replaced (never freed) when it grows */
    _Atomic size_t n;
    size_t cap, last;
    struct thread_counts *next;
} thread_counts;

bool ompb__region_counters_on;
static ompb__counter_set events;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static thread_counts *all;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool key_made;
static atomic_flag told = ATOMIC_FLAG_INIT; /* ompb_region_counter's one message */
static __thread thread_counts *self;

static void thread_gone(void *arg)
{
    thread_counts *tc = arg;
    if (tc->opened)
        ompb__counter_group_close(&tc->group);
    tc->opened = false;
    tc->failed = true; /* a later use by this thread (another destructor) counts nothing */
}

__attribute__((noreturn)) static void refuse(const char *what)
{
    /* The prefix apart: --counters' reasons fill a message of their own. */
    fprintf(stderr, "ompbench: %s: ", OMPB__REGION_COUNTERS_ENV);
    ompb__error_print(stderr, "%s", what);
    exit(OMPB_EXIT_USAGE);
}

/* Same names and refusals as --counters: parsed, then opened once here. */
__attribute__((constructor)) static void region_counters_load(void)
{
    const char *v = getenv(OMPB__REGION_COUNTERS_ENV), *on = getenv("OMPB_REGIONS");
    if (!v || !*v || (on && strcmp(on, "0") == 0))
        return;
    ompb_error err = {0};
    if (ompb__counters_parse(v, &events, &err) != 0 ||
        ompb__counters_probe(&ompb__counter_ops_system, &events, &err) != 0)
        refuse(err.text);
    ompb__region_counters_on = true;
}

static void make_key(void)
{
    key_made = pthread_key_create(&key, thread_gone) == 0;
}

/* A thread's first counted begin or ompb_region_counter: its sums, and its
 * group when events are counted. */
static thread_counts *first_use(void)
{
    thread_counts *tc = calloc(1, sizeof *tc);
    if (!tc)
        return NULL;
    ompb_error err = {0};
    tc->failed = true;
    if (ompb__region_counters_on &&
        ompb__counter_group_open(&tc->group, &ompb__counter_ops_system, &events, 0, &err) == 0)
        tc->opened = !(tc->failed = false);
    else if (ompb__region_counters_on)
        ompb__error_print(stderr, "ompbench: %s: this thread counts nothing: %s",
                          OMPB__REGION_COUNTERS_ENV, err.text);
    pthread_once(&key_once, make_key);
    if (key_made)
        pthread_setspecific(key, tc);
    pthread_mutex_lock(&list_lock);
    tc->next = all;
    all = tc;
    pthread_mutex_unlock(&list_lock);
    return self = tc;
}

void ompb__region_counters_begin(int depth)
{
    thread_counts *tc = self;
    if (!tc && !(tc = first_use()))
        return;
    if (tc->failed || ompb__counter_group_mark(&tc->group) != 0)
        return;
    tc->begin[depth] = tc->group.last;
}

void ompb__region_counters_end(void)
{
    thread_counts *tc = self;
    if (!tc || tc->failed || ompb__counter_group_mark(&tc->group) != 0)
        return;
    tc->end = tc->group.last;
}

/* This thread's cell of e: the last one used, else a scan, else a new one
 * (the array doubles; the old one stays readable for a report in flight). */
static cell *cell_of(thread_counts *tc, const ompb__region_entry *e)
{
    cell *cells = atomic_load_explicit(&tc->cells, memory_order_relaxed);
    size_t n = atomic_load_explicit(&tc->n, memory_order_relaxed);
    if (tc->last < n && cells[tc->last].entry == e)
        return &cells[tc->last];
    for (size_t i = 0; i < n; i++)
        if (cells[i].entry == e)
            return &cells[tc->last = i];
    if (n == tc->cap) {
        size_t cap = tc->cap ? 2 * tc->cap : 8;
        cell *grown = calloc(cap, sizeof *grown);
        if (!grown)
            return NULL;
        for (size_t i = 0; i < n; i++) {
            grown[i].entry = cells[i].entry;
            atomic_store_explicit(&grown[i].instances, atomic_load(&cells[i].instances),
                                  memory_order_relaxed);
            for (int k = 0; k < OMPB__MAX_COUNTERS; k++)
                atomic_store_explicit(&grown[i].value[k], atomic_load(&cells[i].value[k]),
                                      memory_order_relaxed);
            atomic_store_explicit(&grown[i].enabled_ns, atomic_load(&cells[i].enabled_ns),
                                  memory_order_relaxed);
            atomic_store_explicit(&grown[i].running_ns, atomic_load(&cells[i].running_ns),
                                  memory_order_relaxed);
            memcpy(grown[i].user_name, cells[i].user_name, sizeof grown[i].user_name);
            memcpy(grown[i].user_flags, cells[i].user_flags, sizeof grown[i].user_flags);
            for (int k = 0; k < OMPB__UCOUNTERS_MAX; k++)
                atomic_store_explicit(&grown[i].user[k], atomic_load(&cells[i].user[k]),
                                      memory_order_relaxed);
            atomic_store_explicit(&grown[i].n_user, atomic_load(&cells[i].n_user),
                                  memory_order_relaxed);
        }
        atomic_store_explicit(&tc->cells, grown, memory_order_release);
        tc->cap = cap;
        cells = grown;
    }
    cells[n].entry = e;
    atomic_store_explicit(&tc->n, n + 1, memory_order_release);
    return &cells[tc->last = n];
}

static void bump(_Atomic uint64_t *v, uint64_t by)
{
    atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + by,
                          memory_order_relaxed);
}

/* One line for the process's first refused ompb_region_counter call. */
static int told_once(const char *region, const char *name, const char *why)
{
    if (!atomic_flag_test_and_set(&told)) {
        char r[4 * 64], n[4 * OMPB__UCOUNTER_NAME_MAX];
        ompb__utf8_escape_controls(region ? region : "(null)", r, sizeof r);
        ompb__utf8_escape_controls(name ? name : "(null)", n, sizeof n);
        ompb__error_print(stderr, "ompbench: ompb_region_counter(\"%.60s\", \"%.60s\"): %s "
                          "(later refused calls are not reported)", r, n, why);
    }
    return OMPB_EINVAL;
}

/* The counter names of one entry over all its threads: at most 8, as for
 * a benchmark's team, so that the report never leaves a name out. */
typedef struct entry_names {
    const ompb__region_entry *entry;
    int n;
    char name[OMPB__UCOUNTERS_MAX][OMPB__UCOUNTER_NAME_MAX];
    struct entry_names *next;
} entry_names;
static entry_names *names_of_entries; /* under list_lock; never freed */

/* Takes name for e's threads (a thread's first call with it); false when
 * they use 8 other names already. Out of memory: taken, unchecked. */
static bool claim_name(const ompb__region_entry *e, const char *name)
{
    pthread_mutex_lock(&list_lock);
    entry_names *en = names_of_entries;
    while (en && en->entry != e)
        en = en->next;
    if (!en && (en = calloc(1, sizeof *en))) {
        en->entry = e;
        en->next = names_of_entries;
        names_of_entries = en;
    }
    bool ok = true;
    if (en) {
        int k = 0;
        while (k < en->n && strcmp(en->name[k], name) != 0)
            k++;
        if (k == en->n && en->n < OMPB__UCOUNTERS_MAX)
            memcpy(en->name[en->n++], name, strlen(name) + 1);
        ok = k < en->n;
    }
    pthread_mutex_unlock(&list_lock);
    return ok;
}

/* This cell's slot of name, a new one if there is room and the name is
 * one ompb_counter takes; -1 with *why set otherwise. */
static int user_slot(cell *c, const char *name, unsigned flags, const char **why)
{
    int n = atomic_load_explicit(&c->n_user, memory_order_relaxed);
    for (int k = 0; k < n; k++)
        if (strcmp(c->user_name[k], name) == 0) {
            *why = c->user_flags[k] == flags ? NULL : "other flags than at its first call";
            return *why ? -1 : k;
        }
    if (!ompb__ucounter_name_ok(name)) {
        *why = "invalid name (accepted: 1-47 of A-Z a-z 0-9 _ . -, not a key or column the "
               "reports already use, such as real_time, ipc or NAME_per_iter)";
        return -1;
    }
    if (ompb__region_counters_on && ompb__ucounter_event_clash(&events, name)) {
        *why = "the name of an OMPB_REGIONS_COUNTERS event of this run (two columns of one "
               "name; accepted: another name)";
        return -1;
    }
    if (n == OMPB__UCOUNTERS_MAX || !claim_name(c->entry, name)) {
        *why = "more than 8 counter names in one region, over all its threads";
        return -1;
    }
    memcpy(c->user_name[n], name, strlen(name) + 1);
    c->user_flags[n] = flags;
    atomic_store_explicit(&c->n_user, n + 1, memory_order_release);
    return n;
}

int ompb_region_counter(const char *region, const char *name, double value, unsigned flags)
{
    if (!ompb__regions_enabled())
        return 0;
    if ((flags & ~OMPB__UCOUNTER_FLAGS) || !isfinite(value) || !name)
        return told_once(region, name, "unknown flag bits, a value that is not finite, or no "
                         "name (accepted: OMPB_COUNTER_* flags, a finite value)");
    const ompb__region_entry *e = ompb__regions_open_entry(region);
    if (!e)
        return told_once(region, name, "no instance of this region is open on this thread "
                         "(call it between its begin and end)");
    thread_counts *tc = self;
    cell *c;
    if ((!tc && !(tc = first_use())) || !(c = cell_of(tc, e)))
        return OMPB_ENOMEM;
    const char *why = NULL;
    int k = user_slot(c, name, flags, &why);
    if (k < 0)
        return told_once(region, name, why);
    double sum = atomic_load_explicit(&c->user[k], memory_order_relaxed) + value;
    if (!isfinite(sum))
        return told_once(region, name, "this thread's total overflows a double");
    atomic_store_explicit(&c->user[k], sum, memory_order_relaxed);
    return 0;
}

void ompb__region_counters_add(const ompb__region_entry *e, int depth)
{
    thread_counts *tc = self;
    cell *c;
    if (!tc || tc->failed || !(c = cell_of(tc, e)))
        return;
    const ompb__counter_reading *b = &tc->begin[depth], *x = &tc->end;
    for (int k = 0; k < events.n; k++)
        bump(&c->value[k], x->value[k] - b->value[k]);
    bump(&c->enabled_ns, x->enabled_ns - b->enabled_ns);
    bump(&c->running_ns, x->running_ns - b->running_ns);
    bump(&c->instances, 1);
}

int ompb__region_user_counters_of(const ompb__region_entry *e, ompb__ucounter_table *tab,
                                  double *sum)
{
    memset(tab, 0, sizeof *tab);
    for (int k = 0; k < OMPB__UCOUNTERS_MAX; k++)
        sum[k] = 0;
    pthread_mutex_lock(&list_lock);
    for (const thread_counts *tc = all; tc; tc = tc->next) {
        const cell *cells = atomic_load_explicit(&tc->cells, memory_order_acquire);
        size_t n = atomic_load_explicit(&tc->n, memory_order_acquire);
        for (size_t i = 0; i < n; i++) {
            const cell *c = &cells[i];
            int nu = c->entry == e ? atomic_load_explicit(&c->n_user, memory_order_acquire) : 0;
            for (int k = 0; k < nu; k++) {
                int at = ompb__ucounter_find(tab, c->user_name[k]);
                if (at < 0 && tab->n == OMPB__UCOUNTERS_MAX)
                    continue; /* cannot happen: claim_name refused a ninth name */
                if (at < 0) {
                    at = tab->n++;
                    memcpy(tab->name[at], c->user_name[k], sizeof tab->name[at]);
                    tab->flags[at] = c->user_flags[k];
                }
                sum[at] += atomic_load_explicit(&c->user[k], memory_order_relaxed);
            }
        }
    }
    pthread_mutex_unlock(&list_lock);
    return tab->n;
}

const ompb__counter_set *ompb__region_counters_set(void)
{
    return ompb__region_counters_on ? &events : NULL;
}

int ompb__region_counters_of(const ompb__region_entry *e, double *per, bool *multiplexed)
{
    int threads = 0;
    *multiplexed = false;
    for (int k = 0; k < OMPB__MAX_COUNTERS; k++)
        per[k] = NAN;
    pthread_mutex_lock(&list_lock);
    for (const thread_counts *tc = all; tc; tc = tc->next) {
        const cell *cells = atomic_load_explicit(&tc->cells, memory_order_acquire);
        size_t n = atomic_load_explicit(&tc->n, memory_order_acquire);
        for (size_t i = 0; i < n; i++) {
            const cell *c = &cells[i];
            uint64_t inst = atomic_load_explicit(&c->instances, memory_order_relaxed);
            if (c->entry != e || inst == 0)
                continue;
            uint64_t en = atomic_load_explicit(&c->enabled_ns, memory_order_relaxed);
            uint64_t run = atomic_load_explicit(&c->running_ns, memory_order_relaxed);
            *multiplexed |= run < en;
            threads++;
            for (int k = 0; k < events.n; k++) {
                double v = ompb__counter_scale(
                    atomic_load_explicit(&c->value[k], memory_order_relaxed), en, run);
                per[k] = (isnan(per[k]) ? 0 : per[k]) + v / (double)inst;
            }
        }
    }
    pthread_mutex_unlock(&list_lock);
    return threads;
}
