/* SPDX-License-Identifier: MIT */
/*
 * User counters in the reports: from the record's per-round team totals
 * to figures by their flags (one definition, used by every reporter and
 * by compare/scaling through the JSON's per-round figures), and the parts
 * of the console table, the CSV and the JSON that show them. A run may mix
 * benchmarks with different counters: the console and the CSV get one
 * column per name any of them has.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/bench.h>

/* Columns of a table: enough for several benchmarks of 8 names each;
 * names past it are left out of the console and CSV (never of the JSON). */
#define COLUMNS_MAX 64
#define CELL_MIN 10

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

/* The report's columns: every name of every result, first appearance first. */
typedef struct columns {
    const char *name[COLUMNS_MAX];
    unsigned flags[COLUMNS_MAX];
    int n;
} columns;

static void columns_of(const ompb__report *rep, columns *c)
{
    c->n = 0;
    for (size_t i = 0; i < rep->n; i++) {
        const ompb__ucounter_table *tab = &rep->results[i].rec.ucounters;
        for (int k = 0; k < tab->n && c->n < COLUMNS_MAX; k++) {
            int j = 0;
            while (j < c->n && strcmp(c->name[j], tab->name[k]) != 0)
                j++;
            if (j == c->n) {
                c->name[c->n] = tab->name[k];
                c->flags[c->n++] = tab->flags[k];
            }
        }
    }
}

static int cell_width(const char *name)
{
    int len = (int)strlen(name);
    return len > CELL_MIN ? len : CELL_MIN;
}

/* Four significant digits and an SI prefix, "/s" for a rate: "12.35M/s". */
static void format_value(double v, unsigned flags, char *buf, size_t len)
{
    static const char prefixes[] = " kMGTPE";
    if (!isfinite(v)) {
        snprintf(buf, len, "-");
        return;
    }
    size_t p = 0;
    while (fabs(v) >= 999.95 && p + 1 < sizeof prefixes - 1) {
        v /= 1000.0;
        p++;
    }
    const char *unit = flags & OMPB_COUNTER_RATE ? "/s" : "";
    if (p)
        snprintf(buf, len, "%.4g%c%s", v, prefixes[p], unit);
    else
        snprintf(buf, len, "%.4g%s", v, unit);
}

void ompb__console_ucounter_header(FILE *out, const ompb__report *rep)
{
    columns c;
    columns_of(rep, &c);
    for (int j = 0; j < c.n; j++)
        fprintf(out, " %*s", cell_width(c.name[j]), c.name[j]);
}

void ompb__console_ucounter_cells(FILE *out, const ompb__report *rep,
                                  const ompb__ucounter_table *tab, const double *user)
{
    columns c;
    columns_of(rep, &c);
    for (int j = 0; j < c.n; j++) {
        int k = tab ? ompb__ucounter_find(tab, c.name[j]) : -1;
        char cell[32];
        format_value(k >= 0 ? user[k] : NAN, c.flags[j], cell, sizeof cell);
        fprintf(out, " %*s", cell_width(c.name[j]), cell);
    }
}

void ompb__csv_ucounter_header(FILE *out, const ompb__report *rep)
{
    columns c;
    columns_of(rep, &c);
    for (int j = 0; j < c.n; j++)
        fprintf(out, ",%s", c.name[j]);
}

void ompb__csv_ucounter_fields(FILE *out, const ompb__report *rep, const ompb__result *res)
{
    columns c;
    columns_of(rep, &c);
    for (int j = 0; j < c.n; j++) {
        int k = ompb__ucounter_find(&res->rec.ucounters, c.name[j]);
        if (k >= 0 && isfinite(res->user[k]))
            fprintf(out, ",%.10g", res->user[k]);
        else
            fputc(',', out);
    }
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
        double v = ompb__ucounter_round(rec, r, k);
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

int ompb__json_ucounters(json_t *e, json_t *omp, const ompb__ucounter_table *tab,
                         const double *user, const ompb__result *res)
{
    int bad = 0;
    for (int k = 0; tab && k < tab->n; k++)
        if (isfinite(user[k]))
            bad |= set(e, tab->name[k], json_real(user[k]));
    if (!res || !omp || res->rec.ucounters.n == 0 || res->rec.failed)
        return bad ? -1 : 0;
    json_t *all = json_object();
    for (int k = 0; k < res->rec.ucounters.n; k++)
        bad |= set(all, res->rec.ucounters.name[k], per_round(res, k));
    bad |= set(omp, "user_counters", all);
    return bad ? -1 : 0;
}
