/* SPDX-License-Identifier: MIT */
/*
 * What the reports show of --counters and of the involuntary context
 * switches: the per-iteration team figures (computed once, here, from the
 * record), the console's and the CSV's extra columns, and the JSON's
 * "ompbench.counters" object with every raw value. One function per
 * reporter, so each reporter adds its counter part with one call.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/error.h>

#include "clock.h"

#define CELL_WIDTH 11

/* A counter column is as wide as its name, at least CELL_WIDTH. */
static int cell_width(const ompb__counter_event *ev)
{
    int len = (int)strlen(ev->name);
    return len > CELL_WIDTH ? len : CELL_WIDTH;
}

/* ---- figures ---------------------------------------------------------------- */

double ompb__result_counter_round(const ompb__record *rec, size_t r, int e)
{
    double sum = 0;
    for (int t = 0; t < rec->threads; t++)
        sum += ompb__record_counter_scaled(rec, r, t, e); /* NAN propagates */
    return sum / (double)rec->sample_size;
}

static int index_of(const ompb__counter_set *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->ev[i].name, name) == 0)
            return i;
    return -1;
}

/* The per-iteration figure of the first of two names that was counted. */
static double per_iter(const ompb__result *res, const char *a, const char *b)
{
    int i = index_of(&res->rec.counters, a);
    if (i < 0 && b)
        i = index_of(&res->rec.counters, b);
    return i < 0 ? NAN : res->counter_per_iter[i];
}

static double ratio(double num, double den)
{
    return isnan(num) || isnan(den) || den <= 0 ? NAN : num / den;
}

static void derive(ompb__result *res)
{
    res->ipc = ratio(per_iter(res, "instructions", NULL), per_iter(res, "cycles", "cpu-cycles"));
    res->cache_miss_ratio = ratio(per_iter(res, "cache-misses", NULL),
                                  per_iter(res, "cache-references", NULL));
    res->branch_miss_ratio = ratio(per_iter(res, "branch-misses", NULL),
                                   per_iter(res, "branches", "branch-instructions"));
}

static void count_switch_rounds(ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    int e = index_of(&rec->counters, "context-switches");
    if (e < 0)
        e = index_of(&rec->counters, "cs");
    res->rounds_with_switches = 0;
    for (size_t r = 0; e >= 0 && r < rec->rounds; r++)
        res->rounds_with_switches += ompb__result_counter_round(rec, r, e) > 0;
}

int ompb__result_counters(ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    res->involuntary_switches = 0;
    for (int t = 0; rec->involuntary_switches && t < rec->threads; t++)
        res->involuntary_switches += rec->involuntary_switches[t];
    res->counters_multiplexed = false;
    res->ipc = res->cache_miss_ratio = res->branch_miss_ratio = NAN;
    if (rec->counters.n == 0)
        return 0;
    double *v = malloc(rec->rounds * sizeof *v);
    if (!v)
        return OMPB_ENOMEM;
    for (size_t c = 0; c < rec->rounds * (size_t)rec->threads; c++)
        res->counters_multiplexed |= rec->counter_running_ns[c] < rec->counter_enabled_ns[c];
    for (int e = 0; e < rec->counters.n; e++) {
        size_t k = 0;
        for (size_t r = 0; r < rec->rounds; r++) {
            double x = ompb__result_counter_round(rec, r, e);
            if (!isnan(x))
                v[k++] = x;
        }
        ompb__stats st;
        res->counter_per_iter[e] = k && ompb__stats_compute(v, k, &st) == 0 ? st.median : NAN;
    }
    free(v);
    derive(res);
    count_switch_rounds(res);
    return 0;
}

/* ---- console ---------------------------------------------------------------- */

/* "1.234k", "56.7M": counts in four significant digits with an SI prefix;
 * nanoseconds as durations; "-" for a figure that does not exist. */
static void format_count(double v, ompb__counter_unit unit, char *buf, size_t len)
{
    static const char *prefixes[] = {"", "k", "M", "G", "T", "P"};
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    if (unit == OMPB__COUNTER_NS) {
        ompb__format_duration(v, buf, len);
        return;
    }
    size_t p = 0;
    while (fabs(v) >= 1000 && p + 1 < sizeof prefixes / sizeof prefixes[0]) {
        v /= 1000;
        p++;
    }
    snprintf(buf, len, "%.4g%s", v, prefixes[p]);
}

/* The first result that counted: its events are the run's. */
static const ompb__counter_set *run_counters(const ompb__report *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        if (rep->results[i].rec.counters.n > 0)
            return &rep->results[i].rec.counters;
    return NULL;
}

static bool any_ipc(const ompb__report *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        if (!isnan(rep->results[i].ipc))
            return true;
    return false;
}

void ompb__console_counter_header(FILE *out, const ompb__report *rep)
{
    const ompb__counter_set *set = run_counters(rep);
    fprintf(out, " %6s", "invcsw");
    for (int e = 0; set && e < set->n; e++)
        fprintf(out, " %*s", cell_width(&set->ev[e]), set->ev[e].name);
    if (any_ipc(rep))
        fprintf(out, " %5s", "IPC");
}

void ompb__console_counter_cells(FILE *out, const ompb__report *rep, const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    const ompb__counter_set *set = run_counters(rep);
    fprintf(out, " %6" PRIu64, res->involuntary_switches);
    for (int e = 0; set && e < set->n; e++) {
        char cell[32];
        format_count(e < rec->counters.n ? res->counter_per_iter[e] : NAN, set->ev[e].unit,
                     cell, sizeof cell - 1);
        if (res->counters_multiplexed && strcmp(cell, "-") != 0)
            strcat(cell, "*");
        fprintf(out, " %*s", cell_width(&set->ev[e]), cell);
    }
    if (any_ipc(rep)) {
        if (isnan(res->ipc))
            fprintf(out, " %5s", "-");
        else
            fprintf(out, " %5.2f", res->ipc);
    }
}

void ompb__console_counter_notes(FILE *out, const ompb__report *rep)
{
    bool mux = false;
    size_t switched = 0;
    for (size_t i = 0; i < rep->n; i++) {
        mux |= rep->results[i].counters_multiplexed;
        switched += rep->results[i].rounds_with_switches > 0;
    }
    fprintf(out, "invcsw: involuntary context switches of the team over the measured rounds\n");
    if (run_counters(rep))
        fprintf(out, "counters: per iteration, summed over the team's threads (median over "
                     "rounds)%s\n", mux ? "; * multiplexed: scaled from the time on the PMU" : "");
    if (switched)
        fprintf(out, "%zu instance%s had rounds with context switches (ompbench.counters in "
                     "the JSON has them per round and thread)\n", switched,
                switched == 1 ? "" : "s");
}

/* ---- CSV ---------------------------------------------------------------------- */

static void put_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.10g", v);
    else
        fputc(',', out);
}

void ompb__csv_counter_header(FILE *out, const ompb__report *rep)
{
    const ompb__counter_set *set = run_counters(rep);
    fputs(",involuntary_switches", out);
    if (!set)
        return;
    for (int e = 0; e < set->n; e++)
        fprintf(out, ",%s_per_iter", set->ev[e].name);
    fputs(",counters_multiplexed,rounds_with_switches,ipc,cache_miss_ratio,branch_miss_ratio", out);
}

void ompb__csv_counter_fields(FILE *out, const ompb__report *rep, const ompb__result *res)
{
    const ompb__counter_set *set = run_counters(rep);
    fprintf(out, ",%" PRIu64, res->involuntary_switches);
    if (!set)
        return;
    bool have = res->rec.counters.n > 0 && !res->rec.failed && res->rec.rounds > 0;
    for (int e = 0; e < set->n; e++)
        put_number(out, have && e < res->rec.counters.n ? res->counter_per_iter[e] : NAN);
    fprintf(out, ",%d,%zu", have && res->counters_multiplexed, have ? res->rounds_with_switches : 0);
    put_number(out, have ? res->ipc : NAN);
    put_number(out, have ? res->cache_miss_ratio : NAN);
    put_number(out, have ? res->branch_miss_ratio : NAN);
}

/* ---- JSON --------------------------------------------------------------------- */

static json_t *checked(json_t *v, int bad)
{
    if (bad) {
        json_decref(v);
        return NULL;
    }
    return v;
}

static int set(json_t *obj, const char *key, json_t *value)
{
    return obj && value ? json_object_set_new(obj, key, value) : (json_decref(value), -1);
}

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* [[per thread] per round] of one per-cell array. */
static json_t *cell_rounds(const ompb__record *rec, const uint64_t *cells)
{
    json_t *rounds = json_array();
    int bad = !rounds;
    for (size_t r = 0; r < rec->rounds && !bad; r++) {
        json_t *row = json_array();
        bad |= !row;
        for (int t = 0; t < rec->threads && !bad; t++)
            bad |= json_array_append_new(
                row, json_integer((json_int_t)cells[r * (size_t)rec->threads + (size_t)t]));
        bad |= json_array_append_new(rounds, row);
    }
    return checked(rounds, bad);
}

/* [[[per event] per thread] per round]: raw counts. */
static json_t *value_rounds(const ompb__record *rec)
{
    json_t *rounds = json_array();
    int bad = !rounds;
    for (size_t r = 0; r < rec->rounds && !bad; r++) {
        json_t *row = json_array();
        bad |= !row;
        for (int t = 0; t < rec->threads && !bad; t++) {
            json_t *cell = json_array();
            bad |= !cell;
            for (int e = 0; e < rec->counters.n && !bad; e++)
                bad |= json_array_append_new(
                    cell, json_integer((json_int_t)ompb__record_counter(rec, r, t, e)));
            bad |= json_array_append_new(row, cell);
        }
        bad |= json_array_append_new(rounds, row);
    }
    return checked(rounds, bad);
}

static json_t *events_json(const ompb__result *res, json_t **units, json_t **per)
{
    const ompb__counter_set *cs = &res->rec.counters;
    json_t *names = json_array();
    *units = json_array();
    *per = json_object();
    int bad = !names || !*units || !*per;
    for (int e = 0; e < cs->n && !bad; e++) {
        bad |= json_array_append_new(names, json_string(cs->ev[e].name));
        bad |= json_array_append_new(*units, json_string(ompb__counter_unit_name(cs->ev[e].unit)));
        bad |= set(*per, cs->ev[e].name, real_or_null(res->counter_per_iter[e]));
    }
    return checked(names, bad);
}

json_t *ompb__json_counters(const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    json_t *o = json_object(), *units = NULL, *per = NULL;
    int bad = set(o, "events", events_json(res, &units, &per));
    bad |= set(o, "units", units);
    bad |= set(o, "per_iteration", per);
    bad |= set(o, "multiplexed", json_boolean(res->counters_multiplexed));
    if (!isnan(res->ipc))
        bad |= set(o, "ipc", json_real(res->ipc));
    if (!isnan(res->cache_miss_ratio))
        bad |= set(o, "cache_miss_ratio", json_real(res->cache_miss_ratio));
    if (!isnan(res->branch_miss_ratio))
        bad |= set(o, "branch_miss_ratio", json_real(res->branch_miss_ratio));
    if (index_of(&rec->counters, "context-switches") >= 0 || index_of(&rec->counters, "cs") >= 0)
        bad |= set(o, "rounds_with_switches", json_integer((json_int_t)res->rounds_with_switches));
    bad |= set(o, "values", value_rounds(rec));
    bad |= set(o, "time_enabled_ns", cell_rounds(rec, rec->counter_enabled_ns));
    bad |= set(o, "time_running_ns", cell_rounds(rec, rec->counter_running_ns));
    return checked(o, bad);
}
