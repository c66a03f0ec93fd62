/* SPDX-License-Identifier: MIT */
/*
 * User counters: the lock-free per-thread add, the master's merge of a
 * team's slots after each round, and the name rules (the body's
 * ompb_counter, which reaches into its round state, is lib/engine/state_counter.c). A name becomes a key
 * of the JSON run object and a CSV column beside the ones ompbench writes
 * itself, so those names are refused rather than silently shadowed.
 */
#include "model/ucounter.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <ompbench/bench.h>
#include <ompbench/error.h>

#include "core/core.h"
#include "counters/counters.h"

/* Keys of a JSON run object (Google Benchmark's and ours) and CSV columns:
 * a counter of one of these names would overwrite or shadow it. */
static const char *const reserved[] = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type",
    "repetitions", "repetition_index", "threads", "iterations", "real_time", "cpu_time",
    "time_unit", "aggregate_name", "aggregate_unit", "error_occurred", "error_message",
    "label", "bytes_per_second", "items_per_second", "ompbench", "uri", "repetition",
    "process", "rounds", "sample_size", "median_ns", "mean_ns", "stdev_ns", "min_ns",
    "max_ns", "q1_ns", "q3_ns", "ci95_low_ns", "ci95_high_ns", "iqr_outliers",
    "stdev_outliers", "mean_skew_ns", "mean_imbalance", "migrations", "error", "marks",
    "cpu_share", "time", "involuntary_switches", "counters_multiplexed",
    "rounds_with_switches", "ipc", "cache_miss_ratio", "branch_miss_ratio",
};

/* --counters' CSV columns are "<event>_per_iter". */
#define PER_ITER_SUFFIX "_per_iter"

/* --thread-columns' CSV columns are "t<k>_" and one of these (the
 * producer thread_columns in lib/report/result_figures.c). */
static const char *const thread_column_keys[] = {"busy_mean_ns", "busy_median_ns", "busy_cv",
                                                 "slowest_share"};

static bool thread_column(const char *name)
{
    if (name[0] != 't' || name[1] < '0' || name[1] > '9')
        return false;
    const char *p = name + 1;
    while (*p >= '0' && *p <= '9')
        p++;
    for (size_t i = 0; *p == '_' && i < sizeof thread_column_keys / sizeof *thread_column_keys;
         i++)
        if (strcmp(p + 1, thread_column_keys[i]) == 0)
            return true;
    return false;
}

static const struct {
    unsigned flag;
    const char *word;
} flag_words[] = {
    {OMPB_COUNTER_RATE, "rate"},
    {OMPB_COUNTER_PER_ITERATION, "per_iteration"},
    {OMPB_COUNTER_AVG_THREADS, "avg_threads"},
};

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

bool ompb__ucounter_name_ok(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    if (len == 0 || len >= OMPB__UCOUNTER_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!name_char(name[i]))
            return false;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(name, reserved[i]) == 0)
            return false;
    if (thread_column(name))
        return false;
    size_t suffix = sizeof PER_ITER_SUFFIX - 1;
    return len < suffix || strcmp(name + len - suffix, PER_ITER_SUFFIX) != 0;
}

const char *ompb__ucounter_event_clash(const ompb__counter_set *events, const char *name)
{
    for (int i = 0; events && name && i < events->n; i++)
        if (strcmp(events->ev[i].name, name) == 0 || strcmp(events->ev[i].given, name) == 0)
            return events->ev[i].given[0] ? events->ev[i].given : events->ev[i].name;
    return NULL;
}

/* The first failure only: later ones are usually its consequences. The
 * claim lets the threads of a shared state fail at once. */
static int refuse(ompb__ucounters *u, const char *name, const char *what)
{
    if (!__atomic_exchange_n(&u->error_claimed, 1, __ATOMIC_ACQ_REL)) {
        char shown[4 * OMPB__UCOUNTER_NAME_MAX];
        if (name)
            ompb__utf8_escape_controls(name, shown, sizeof shown);
        snprintf(u->error, sizeof u->error, "ompb_counter(\"%.60s\"): %s", name ? shown : "(null)",
                 what);
    }
    return OMPB_EINVAL;
}

static int new_slot(ompb__ucounters *u, const char *name, unsigned flags)
{
    if (!ompb__ucounter_name_ok(name))
        return refuse(u, name, "invalid name (accepted: 1-47 of A-Z a-z 0-9 _ . -, not a "
                      "key or column the reports already use, such as real_time, ipc or "
                      "NAME_per_iter)");
    const char *event = ompb__ucounter_event_clash(u->events, name);
    if (event) {
        char what[160];
        snprintf(what, sizeof what, "the name of the --counters event '%s' of this run (two "
                 "columns of one name; accepted: another name)", event);
        return refuse(u, name, what);
    }
    if (u->n == OMPB__UCOUNTERS_MAX)
        return refuse(u, name, "more than 8 counter names in one benchmark");
    int k = u->n;
    ompb__ucounter_slot *s = &u->slot[k];
    memcpy(s->name, name, strlen(name) + 1);
    s->flags = flags;
    s->value = 0;
    /* The slot is whole before a reader of a shared state can see it. */
    __atomic_store_n(&u->n, k + 1, __ATOMIC_RELEASE);
    return k;
}

static int find_slot(const ompb__ucounters *u, int n, const char *name)
{
    int k = 0;
    while (k < n && strcmp(u->slot[k].name, name ? name : "") != 0)
        k++;
    return k;
}

static void lock(ompb__ucounters *u)
{
    while (__atomic_exchange_n(&u->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&u->lock, __ATOMIC_RELAXED))
            sched_yield();
}

/* A name no thread added yet: looked up again and added under the lock,
 * so that two threads never take two slots for one name. */
static int shared_slot(ompb__ucounters *u, const char *name, unsigned flags)
{
    int n = __atomic_load_n(&u->n, __ATOMIC_ACQUIRE);
    int k = find_slot(u, n, name);
    if (k < n)
        return k;
    lock(u);
    n = u->n;
    k = find_slot(u, n, name);
    if (k == n)
        k = new_slot(u, name, flags);
    __atomic_store_n(&u->lock, 0, __ATOMIC_RELEASE);
    return k;
}

static int shared_add(ompb__ucounters *u, const char *name, ompb__ucounter_slot *s, double value)
{
    double old, sum;
    __atomic_load(&s->value, &old, __ATOMIC_RELAXED);
    do {
        sum = old + value;
        if (!isfinite(sum))
            return refuse(u, name, "the thread's total in a round overflows a double");
    } while (!__atomic_compare_exchange(&s->value, &old, &sum, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
    return 0;
}

int ompb__ucounter_add(ompb__ucounters *u, const char *name, double value, unsigned flags)
{
    if (flags & ~OMPB__UCOUNTER_FLAGS)
        return refuse(u, name, "unknown flag bits (accepted: OMPB_COUNTER_RATE, "
                      "_PER_ITERATION, _AVG_THREADS, or 0 for the sum)");
    if (!isfinite(value))
        return refuse(u, name, "value is not finite");
    int k;
    if (u->shared) {
        k = shared_slot(u, name, flags);
    } else if ((k = find_slot(u, u->n, name)) == u->n) {
        k = new_slot(u, name, flags);
    }
    if (k < 0)
        return k;
    ompb__ucounter_slot *s = &u->slot[k];
    if (s->flags != flags)
        return refuse(u, name, "other flags than at its first call");
    if (u->shared)
        return shared_add(u, name, s, value);
    if (!isfinite(s->value + value))
        return refuse(u, name, "the thread's total in a round overflows a double");
    s->value += value;
    return 0;
}

void ompb__ucounters_reset(ompb__ucounters *u)
{
    for (int k = 0; k < u->n; k++)
        u->slot[k].value = 0;
}

int ompb__ucounter_find(const ompb__ucounter_table *tab, const char *name)
{
    for (int k = 0; k < tab->n; k++)
        if (strcmp(tab->name[k], name) == 0)
            return k;
    return -1;
}

int ompb__ucounters_collect(ompb__ucounter_table *tab, const ompb__ucounters *u, double *row,
                            char *why, size_t len)
{
    if (u->error[0]) {
        snprintf(why, len, "%s", u->error);
        return OMPB_EINVAL;
    }
    for (int k = 0; k < u->n; k++) {
        const ompb__ucounter_slot *s = &u->slot[k];
        int at = ompb__ucounter_find(tab, s->name);
        if (at < 0 && tab->n == OMPB__UCOUNTERS_MAX) {
            snprintf(why, len, "ompb_counter(\"%s\"): the team uses more than 8 counter names",
                     s->name);
            return OMPB_EINVAL;
        }
        if (at < 0) {
            at = tab->n++;
            memcpy(tab->name[at], s->name, sizeof s->name);
            tab->flags[at] = s->flags;
        }
        if (tab->flags[at] != s->flags) {
            snprintf(why, len, "ompb_counter(\"%s\"): threads or rounds give it different flags",
                     s->name);
            return OMPB_EINVAL;
        }
        if (row && !isfinite(row[at] += s->value)) {
            snprintf(why, len, "ompb_counter(\"%s\"): the team's total in a round overflows a "
                     "double", s->name);
            return OMPB_EINVAL;
        }
    }
    return 0;
}

const char *ompb__ucounter_flag_words(unsigned flags, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
        if (flags & flag_words[i].flag) {
            int w = snprintf(buf + at, len - at, "%s%s", at ? "," : "", flag_words[i].word);
            at = w > 0 && (size_t)w < len - at ? at + (size_t)w : at;
        }
    if (!at)
        snprintf(buf, len, "sum");
    return buf;
}

bool ompb__ucounter_flag_of_word(const char *word, unsigned *flag)
{
    *flag = 0;
    if (strcmp(word, "sum") == 0)
        return true;
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
        if (strcmp(word, flag_words[i].word) == 0) {
            *flag = flag_words[i].flag;
            return true;
        }
    return false;
}
