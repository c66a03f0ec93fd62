/* SPDX-License-Identifier: MIT */
/*
 * User counters: from the record's per-round team totals to figures by
 * their flags (one definition, used by every reporter through the named
 * figures of lib/report/result_figures.c, and by compare/scaling through
 * the JSON's per-round figures), a repetition's and an instance's.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/bench.h>

static uint64_t team_iterations(const ompb__record *rec, size_t r)
{
    int T = ompb__record_timed_threads(rec);
    uint64_t n = 0;
    for (int t = 0; t < T; t++)
        n += rec->thread_iters[r * (size_t)T + (size_t)t];
    return n;
}

double ompb__ucounter_round(const ompb__record *rec, size_t r, int k)
{
    unsigned flags = rec->ucounters.flags[k];
    double v = rec->ucounter_values[r * OMPB__UCOUNTERS_MAX + (size_t)k];
    if (flags & OMPB_COUNTER_AVG_THREADS)
        v /= (double)ompb__record_timed_threads(rec);
    if (flags & OMPB_COUNTER_PER_ITERATION) {
        uint64_t iters = team_iterations(rec, r);
        v = iters ? v / (double)iters : NAN;
    }
    if (flags & OMPB_COUNTER_RATE) {
        uint64_t ns = ompb__record_makespan(rec, r);
        v = ns ? v * 1e9 / (double)ns : NAN;
    }
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of the finite values of v[n] (reordered); NAN when none. */
static double median_of(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            v[m++] = v[i];
    if (m == 0)
        return NAN;
    qsort(v, m, sizeof *v, cmp_double);
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

int ompb__result_ucounters(ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    for (int k = 0; k < OMPB__UCOUNTERS_MAX; k++)
        res->user[k] = NAN;
    size_t n = rec->rounds;
    if (rec->failed || n == 0 || rec->ucounters.n == 0 || !rec->ucounter_values)
        return 0;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return OMPB_ENOMEM;
    for (int k = 0; k < rec->ucounters.n; k++) {
        for (size_t r = 0; r < n; r++)
            v[r] = ompb__ucounter_round(rec, r, k);
        res->user[k] = median_of(v, n);
    }
    free(v);
    return 0;
}

int ompb__instance_ucounters(ompb__instance_result *ir)
{
    ir->ucounters = NULL;
    for (int k = 0; k < OMPB__UCOUNTERS_MAX; k++)
        ir->user[k] = NAN;
    for (size_t i = 0; i < ir->n_reps && !ir->ucounters; i++)
        if (!ir->reps[i].rec.failed)
            ir->ucounters = &ir->reps[i].rec.ucounters;
    if (!ir->ucounters || ir->ucounters->n == 0)
        return 0;
    double *v = malloc(ir->n_reps * sizeof *v);
    if (!v)
        return OMPB_ENOMEM;
    for (int k = 0; k < ir->ucounters->n; k++) {
        for (size_t i = 0; i < ir->n_reps; i++) {
            const ompb__result *res = &ir->reps[i];
            int at = ompb__ucounter_find(&res->rec.ucounters, ir->ucounters->name[k]);
            v[i] = res->rec.failed || at < 0 ? NAN : res->user[at];
        }
        ir->user[k] = median_of(v, ir->n_reps);
    }
    free(v);
    return 0;
}

static int set(json_t *obj, const char *key, json_t *value)
{
    return obj && value ? json_object_set_new(obj, key, value) : (json_decref(value), -1);
}

/* {"flags": [...], "rounds": [figure of each measured round]} */
static json_t *per_round(const ompb__result *res, int k)
{
    const ompb__record *rec = &res->rec;
    json_t *o = json_object(), *flags = json_array(), *rounds = json_array();
    unsigned f = rec->ucounters.flags[k];
    int bad = !o || !flags || !rounds;
    for (unsigned bit = 1; bit <= OMPB__UCOUNTER_FLAGS && !bad; bit <<= 1) {
        char word[32];
        if ((f & bit) || (f == 0 && bit == 1))
            bad |= json_array_append_new(flags, json_string(ompb__ucounter_flag_words(
                                                    f & bit, word, sizeof word)));
    }
    /* A region keeps sums, not rounds: no per-round figures. */
    for (size_t r = 0; r < rec->rounds && !rec->region && !bad; r++) {
        double v = res->user_rounds ? res->user_rounds[r * OMPB__UCOUNTERS_MAX + (size_t)k]
                                    : ompb__ucounter_round(rec, r, k);
        bad |= json_array_append_new(rounds, isfinite(v) ? json_real(v) : json_null());
    }
    bad |= set(o, "flags", flags);
    bad |= set(o, "rounds", rounds);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int ompb__json_ucounter_rounds(json_t *omp, const ompb__result *res)
{
    if (res->rec.ucounters.n == 0 || res->rec.failed)
        return 0;
    json_t *all = json_object();
    int bad = 0;
    for (int k = 0; k < res->rec.ucounters.n; k++)
        bad |= set(all, res->rec.ucounters.name[k], per_round(res, k));
    bad |= set(omp, "user_counters", all);
    return bad ? -1 : 0;
}
