/* SPDX-License-Identifier: MIT */
/*
 * The figures of --counters and of the involuntary context switches: per
 * iteration summed over the team, computed once, here, from the record (a
 * repetition) or from the repetitions' figures (an instance), and the
 * ratios derived from them. lib/report/result_figures.c names them for
 * the reporters.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

double ompb__result_counter_round(const ompb__record *rec, size_t r, int e)
{
    double sum = 0;
    for (int t = 0; t < rec->threads; t++)
        sum += ompb__record_counter_scaled(rec, r, t, e); /* NAN propagates */
    return sum / (double)rec->sample_size;
}

/* The event of set with this canonical name, by any of its names (a set
 * parsed here holds canonical names; one from elsewhere may not). */
static int index_of(const ompb__counter_set *set, const char *canonical)
{
    for (int i = 0; i < set->n; i++)
        if (strcmp(ompb__counter_canonical(set->ev[i].name), canonical) == 0)
            return i;
    return -1;
}

/* The per-iteration figure of an event, NAN when it was not counted. */
static double per_iter(const ompb__counter_set *set, const ompb__counter_figures *f,
                       const char *canonical)
{
    int i = index_of(set, canonical);
    return i < 0 ? NAN : f->per_iter[i];
}

static double ratio(double num, double den)
{
    return isnan(num) || isnan(den) || den <= 0 ? NAN : num / den;
}

static void derive(const ompb__counter_set *set, ompb__counter_figures *f)
{
    f->ipc = ratio(per_iter(set, f, "instructions"), per_iter(set, f, "cycles"));
    f->cache_miss_ratio = ratio(per_iter(set, f, "cache-misses"),
                                per_iter(set, f, "cache-references"));
    f->branch_miss_ratio = ratio(per_iter(set, f, "branch-misses"), per_iter(set, f, "branches"));
}

static int switches_event(const ompb__counter_set *set)
{
    return index_of(set, "context-switches");
}

static void count_switch_rounds(ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    int e = switches_event(&rec->counters);
    res->counts.rounds_with_switches = 0;
    for (size_t r = 0; e >= 0 && r < rec->rounds; r++)
        res->counts.rounds_with_switches += ompb__result_counter_round(rec, r, e) > 0;
}

static void clear_figures(ompb__counter_figures *f)
{
    memset(f, 0, sizeof *f);
    for (int e = 0; e < OMPB__MAX_COUNTERS; e++)
        f->per_iter[e] = NAN;
    f->ipc = f->cache_miss_ratio = f->branch_miss_ratio = NAN;
}

static bool counted(const ompb__result *res)
{
    return !res->rec.failed && res->rec.rounds > 0;
}

int ompb__result_counters(ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    ompb__counter_figures *f = &res->counts;
    clear_figures(f);
    if (!counted(res))
        return 0;
    f->switches_measured = rec->involuntary_switches != NULL;
    for (int t = 0; rec->involuntary_switches && t < rec->threads; t++)
        f->involuntary_switches += rec->involuntary_switches[t];
    if (rec->counters.n == 0)
        return 0;
    double *v = malloc(rec->rounds * sizeof *v);
    if (!v)
        return OMPB_ENOMEM;
    for (size_t c = 0; c < rec->rounds * (size_t)rec->threads; c++)
        f->multiplexed |= rec->counter_running_ns[c] < rec->counter_enabled_ns[c];
    for (int e = 0; e < rec->counters.n; e++) {
        size_t k = 0;
        for (size_t r = 0; r < rec->rounds; r++) {
            double x = ompb__result_counter_round(rec, r, e);
            if (!isnan(x))
                v[k++] = x;
        }
        ompb__stats st;
        f->per_iter[e] = k && ompb__stats_compute(v, k, &st) == 0 ? st.median : NAN;
    }
    free(v);
    derive(&rec->counters, f);
    count_switch_rounds(res);
    return 0;
}

void ompb__counter_figures_set(ompb__counter_figures *f, const ompb__counter_set *set,
                               const double *per, bool multiplexed)
{
    for (int e = 0; e < set->n; e++)
        f->per_iter[e] = per[e];
    f->multiplexed = multiplexed;
    derive(set, f);
}

/* Same events in the same order: a run counts one set, but a report may be
 * assembled from anything. */
static bool same_events(const ompb__counter_set *a, const ompb__counter_set *b)
{
    if (a->n != b->n)
        return false;
    for (int e = 0; e < a->n; e++)
        if (strcmp(a->ev[e].name, b->ev[e].name) != 0)
            return false;
    return true;
}

/* An instance's figure of event e: the median over the repetitions that
 * counted it of theirs (the console's line for several repetitions sits
 * next to the median of their medians, and is made the same way). */
static double median_over_reps(const ompb__instance_result *ir, int e, double *v)
{
    size_t k = 0;
    for (size_t i = 0; i < ir->n_reps; i++) {
        const ompb__result *res = &ir->reps[i];
        if (counted(res) && same_events(&res->rec.counters, ir->counters) &&
            !isnan(res->counts.per_iter[e]))
            v[k++] = res->counts.per_iter[e];
    }
    ompb__stats st;
    return k && ompb__stats_compute(v, k, &st) == 0 ? st.median : NAN;
}

int ompb__instance_counters(ompb__instance_result *ir)
{
    ompb__counter_figures *f = &ir->counts;
    clear_figures(f);
    ir->counters = NULL;
    for (size_t i = 0; i < ir->n_reps; i++) {
        const ompb__result *res = &ir->reps[i];
        if (!counted(res))
            continue;
        f->involuntary_switches += res->counts.involuntary_switches;
        f->switches_measured |= res->counts.switches_measured;
        if (res->rec.counters.n == 0)
            continue;
        if (!ir->counters)
            ir->counters = &res->rec.counters;
        if (!same_events(&res->rec.counters, ir->counters))
            continue;
        f->multiplexed |= res->counts.multiplexed;
        f->rounds_with_switches += res->counts.rounds_with_switches;
    }
    if (!ir->counters)
        return 0;
    double *v = malloc(ir->n_reps * sizeof *v);
    if (!v)
        return OMPB_ENOMEM;
    for (int e = 0; e < ir->counters->n; e++)
        f->per_iter[e] = median_over_reps(ir, e, v);
    free(v);
    derive(ir->counters, f);
    return 0;
}
