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

/* The column appears when some row of the report has an IPC: the rows of
 * one repetition are the results, the rows of several the instances. */
static bool any_ipc(const ompb__report *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        if (!isnan(rep->results[i].counts.ipc))
            return true;
    for (size_t i = 0; i < rep->n_instances; i++)
        if (!isnan(rep->instances[i].counts.ipc))
            return true;
    return false;
}

/* The invcsw column appears when some result measured the switches (every
 * benchmark does; application regions do not). */
static bool any_switches(const ompb__report *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        if (rep->results[i].counts.switches_measured)
            return true;
    return false;
}

bool ompb__console_counter_columns(const ompb__report *rep)
{
    return any_switches(rep) || run_counters(rep);
}

void ompb__console_counter_header(FILE *out, const ompb__report *rep)
{
    const ompb__counter_set *set = run_counters(rep);
    if (any_switches(rep))
        fprintf(out, " %6s", "invcsw");
    for (int e = 0; set && e < set->n; e++)
        fprintf(out, " %*s", cell_width(&set->ev[e]), set->ev[e].name);
    if (any_ipc(rep))
        fprintf(out, " %5s", "IPC");
}

void ompb__console_counter_cells(FILE *out, const ompb__report *rep,
                                 const ompb__counter_set *set, const ompb__counter_figures *f)
{
    const ompb__counter_set *cols = run_counters(rep);
    int n = set ? set->n : 0;
    if (f->switches_measured)
        fprintf(out, " %6" PRIu64, f->involuntary_switches);
    else if (any_switches(rep))
        fprintf(out, " %6s", "-");
    for (int e = 0; cols && e < cols->n; e++) {
        char cell[32];
        format_count(e < n ? f->per_iter[e] : NAN, cols->ev[e].unit, cell, sizeof cell - 1);
        if (f->multiplexed && strcmp(cell, "-") != 0)
            strcat(cell, "*");
        fprintf(out, " %*s", cell_width(&cols->ev[e]), cell);
    }
    if (any_ipc(rep)) {
        if (isnan(f->ipc))
            fprintf(out, " %5s", "-");
        else
            fprintf(out, " %5.2f", f->ipc);
    }
}

static bool repeated(const ompb__report *rep)
{
    for (size_t i = 0; i < rep->n_instances; i++)
        if (rep->instances[i].n_reps > 1)
            return true;
    return false;
}

void ompb__console_counter_notes(FILE *out, const ompb__report *rep)
{
    bool mux = false, reps = repeated(rep);
    size_t switched = 0;
    for (size_t i = 0; i < rep->n_instances; i++) {
        mux |= rep->instances[i].counts.multiplexed;
        switched += rep->instances[i].counts.rounds_with_switches > 0;
    }
    if (any_switches(rep))
        fprintf(out, "invcsw: involuntary context switches of the team over the measured "
                     "rounds%s\n", reps ? " (of all repetitions)" : "");
    bool regions = rep->n > 0 && rep->results[0].rec.region;
    if (run_counters(rep) && regions)
        fprintf(out, "counters: per region instance, summed over the team's threads (each "
                     "thread's mean over its instances; OMPB_REGIONS_COUNTERS)%s\n",
                mux ? "; * multiplexed: scaled from the time on the PMU" : "");
    else if (run_counters(rep))
        fprintf(out, "counters: per iteration, summed over the team's threads (median over "
                     "rounds%s)%s\n", reps ? "; with repetitions, the median of the repetitions' "
                                            "figures" : "",
                mux ? "; * multiplexed: scaled from the time on the PMU" : "");
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
    const ompb__counter_figures *f = &res->counts;
    if (f->switches_measured)
        fprintf(out, ",%" PRIu64, f->involuntary_switches);
    else
        fputc(',', out);
    if (!set)
        return;
    bool have = res->rec.counters.n > 0 && counted(res);
    for (int e = 0; e < set->n; e++)
        put_number(out, have && e < res->rec.counters.n ? f->per_iter[e] : NAN);
    fprintf(out, ",%d,%zu", have && f->multiplexed, have ? f->rounds_with_switches : 0);
    put_number(out, have ? f->ipc : NAN);
    put_number(out, have ? f->cache_miss_ratio : NAN);
    put_number(out, have ? f->branch_miss_ratio : NAN);
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
        bad |= set(*per, cs->ev[e].name, real_or_null(res->counts.per_iter[e]));
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
    const ompb__counter_figures *f = &res->counts;
    bad |= set(o, "multiplexed", json_boolean(f->multiplexed));
    if (!isnan(f->ipc))
        bad |= set(o, "ipc", json_real(f->ipc));
    if (!isnan(f->cache_miss_ratio))
        bad |= set(o, "cache_miss_ratio", json_real(f->cache_miss_ratio));
    if (!isnan(f->branch_miss_ratio))
        bad |= set(o, "branch_miss_ratio", json_real(f->branch_miss_ratio));
    if (rec->region) /* sums per thread, no rounds (lib/region_counters.c) */
        return checked(o, bad);
    if (switches_event(&rec->counters) >= 0)
        bad |= set(o, "rounds_with_switches", json_integer((json_int_t)f->rounds_with_switches));
    bad |= set(o, "values", value_rounds(rec));
    bad |= set(o, "time_enabled_ns", cell_rounds(rec, rec->counter_enabled_ns));
    bad |= set(o, "time_running_ns", cell_rounds(rec, rec->counter_running_ns));
    return checked(o, bad);
}
