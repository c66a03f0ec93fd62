/* SPDX-License-Identifier: MIT */
/*
 * Record storage: every array is sized once, before the first round, so the
 * engine's master never allocates between rounds.
 */
#include "model/record.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

void ompb__record_free(ompb__record *rec)
{
    free(rec->start_ns);
    free(rec->end_ns);
    free(rec->thread_start_ns);
    free(rec->busy_ns);
    free(rec->thread_iters);
    free(rec->os_tid);
    free(rec->thread_pu);
    free(rec->involuntary_switches);
    free(rec->counter_values);
    free(rec->counter_enabled_ns);
    free(rec->counter_running_ns);
    free(rec->rank_bounds);
    free(rec->ucounter_values);
    free(rec->away_ns);
    free(rec->preemptions);
    free(rec->code_object);
    memset(rec, 0, sizeof *rec);
}

int ompb__record_alloc(ompb__record *rec, size_t rounds, int threads)
{
    rec->threads = threads;
    size_t cells = rounds * (size_t)ompb__record_timed_threads(rec);
    rec->start_ns = calloc(rounds, sizeof *rec->start_ns);
    rec->end_ns = calloc(rounds, sizeof *rec->end_ns);
    rec->thread_start_ns = calloc(cells, sizeof *rec->thread_start_ns);
    rec->busy_ns = calloc(cells, sizeof *rec->busy_ns);
    rec->thread_iters = calloc(cells, sizeof *rec->thread_iters);
    rec->os_tid = calloc((size_t)threads, sizeof *rec->os_tid);
    rec->thread_pu = calloc((size_t)threads, sizeof *rec->thread_pu);
    rec->involuntary_switches = calloc((size_t)threads, sizeof *rec->involuntary_switches);
    /* calloc leaves the pages of rows never used untouched. */
    rec->ucounter_values = calloc(rounds * OMPB__UCOUNTERS_MAX, sizeof *rec->ucounter_values);
    if (!rec->start_ns || !rec->end_ns || !rec->thread_start_ns || !rec->busy_ns
        || !rec->thread_iters || !rec->os_tid || !rec->thread_pu || !rec->involuntary_switches
        || !rec->ucounter_values)
        return OMPB_ENOMEM;
    if (rec->counters.n == 0)
        return 0;
    size_t thread_rounds = rounds * (size_t)threads;
    rec->counter_values = calloc(thread_rounds * (size_t)rec->counters.n,
                                 sizeof *rec->counter_values);
    rec->counter_enabled_ns = calloc(thread_rounds, sizeof *rec->counter_enabled_ns);
    rec->counter_running_ns = calloc(thread_rounds, sizeof *rec->counter_running_ns);
    if (!rec->counter_values || !rec->counter_enabled_ns || !rec->counter_running_ns)
        return OMPB_ENOMEM;
    return 0;
}

size_t ompb__record_clean_rounds(const ompb__record *rec)
{
    size_t n = 0;
    for (size_t r = 0; rec->away_ns && r < rec->rounds; r++)
        n += ompb__record_round_clean(rec, r);
    return n;
}

int ompb__record_alloc_accounting(ompb__record *rec, size_t rounds)
{
    size_t cells = rounds * (size_t)rec->threads;
    rec->away_ns = calloc(cells ? cells : 1, sizeof *rec->away_ns);
    rec->preemptions = calloc(cells ? cells : 1, sizeof *rec->preemptions);
    if (!rec->away_ns || !rec->preemptions) {
        ompb__record_unaccounted(rec, "out of memory");
        return OMPB_ENOMEM;
    }
    return 0;
}

void ompb__record_unaccounted(ompb__record *rec, const char *why)
{
    free(rec->away_ns);
    free(rec->preemptions);
    rec->away_ns = NULL;
    rec->preemptions = NULL;
    snprintf(rec->accounting_off, sizeof rec->accounting_off, "%s", why);
}

double ompb__record_counter_scaled(const ompb__record *rec, size_t r, int t, int e)
{
    size_t cell = r * (size_t)rec->threads + (size_t)t;
    return ompb__counter_scale(ompb__record_counter(rec, r, t, e), rec->counter_enabled_ns[cell],
                               rec->counter_running_ns[cell]);
}

void ompb__record_warn(ompb__record *rec, const char *fmt, ...)
{
    char raw[OMPB__RECORD_WARNING_MAX], text[OMPB__RECORD_WARNING_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    ompb__utf8_escape_controls(raw, text, sizeof text);
    for (size_t i = 0; i < rec->n_warnings; i++)
        if (strcmp(rec->warnings[i], text) == 0)
            return;
    if (rec->n_warnings < OMPB__RECORD_WARNINGS)
        memcpy(rec->warnings[rec->n_warnings++], text, sizeof text);
}
