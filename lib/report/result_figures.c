/* SPDX-License-Identifier: MIT */
/*
 * The analysis' last step: every derived figure of a repetition and of an
 * instance as named figures (lib/report/figure.h), and the report's notes
 * on them. One producer per figure family, run in the table's order for
 * every row; the reporters print the lists and know no figure by name.
 * Adding a figure is a producer and a row in `producers` (CONTRIBUTING.md,
 * "Adding a figure").
 */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <ompbench/bench.h>

#include "report/fairness.h"
#include "report/marks.h"

/* Console widths: a counter's column is as wide as its name, at least
 * COUNTER_WIDTH; a user counter's at least USER_WIDTH. */
#define COUNTER_WIDTH 11
#define USER_WIDTH 10

/* Sections (ompb__figure.place) per format, in the order of the columns. */
enum { CON_SWITCHES = 1, CON_CLEAN, CON_COUNTERS, CON_IPC, CON_USER, CON_SHARE, CON_MARKS };
enum { CSV_SWITCHES = 1, CSV_COUNTERS, CSV_MULTIPLEXED, CSV_SWITCH_ROUNDS, CSV_RATIOS,
       CSV_MARKS, CSV_SHARE, CSV_CLEAN, CSV_USER, CSV_THREADS };

/* What the producers read of a row: a repetition's or an instance's. */
typedef struct row {
    const ompb__result *res;         /* a repetition's row: the repetition */
    const ompb__instance_result *ir; /* an instance's row: the instance */
    const ompb__counter_set *set;    /* the events counted; NULL: none */
    const ompb__counter_figures *counts;
    bool counted;                    /* the counter figures exist (have rounds) */
    bool failed;
    bool region;                     /* an application region's */
    const ompb__ucounter_table *ucounters; /* NULL: none */
    const double *user;
    unsigned marks;
    double cpu_share;
    /* Disturbance accounting: accounted, the clean rounds' share, and
     * their median per iteration with its interval (NAN: none). */
    bool accounted;
    double clean_share, clean_rounds, clean_median, clean_low, clean_high;
    bool thread_columns;             /* --thread-columns (a repetition's row) */
} row;

static ompb__figure figure(const char *key, const char *label, double value,
                           ompb__figure_style style, int width)
{
    ompb__figure f;
    memset(&f, 0, sizeof f);
    snprintf(f.key, sizeof f.key, "%s", key);
    snprintf(f.label, sizeof f.label, "%s", label);
    f.unit = "";
    f.value = value;
    f.style = style;
    f.width = width;
    return f;
}

static void place(ompb__figure *f, int console, int csv, int json)
{
    f->place[OMPB__FORMAT_CONSOLE] = (unsigned char)console;
    f->place[OMPB__FORMAT_CSV] = (unsigned char)csv;
    f->place[OMPB__FORMAT_JSON] = (unsigned char)json;
}

/* Involuntary context switches: every benchmark measures them (a console
 * column then), an application region does not (an empty CSV cell). */
static void switches(const row *r, ompb__figures *out)
{
    bool measured = r->counts->switches_measured;
    ompb__figure f = figure("involuntary_switches", "invcsw",
                            measured ? (double)r->counts->involuntary_switches : NAN,
                            OMPB__STYLE_INTEGER, 6);
    place(&f, measured ? CON_SWITCHES : 0, CSV_SWITCHES, 0);
    f.flags = OMPB__FIGURE_ALIGNS_RATE;
    ompb__figure_add(out, &f);
}

/* --counters, per iteration summed over the team; "*" when scaled. */
static void counters(const row *r, ompb__figures *out)
{
    for (int e = 0; r->set && e < r->set->n; e++) {
        const ompb__counter_event *ev = &r->set->ev[e];
        char key[OMPB__FIGURE_KEY_MAX];
        snprintf(key, sizeof key, "%s_per_iter", ev->name);
        int len = (int)strlen(ev->name);
        ompb__figure f = figure(key, ev->name, r->counted ? r->counts->per_iter[e] : NAN,
                                ev->unit == OMPB__COUNTER_NS ? OMPB__STYLE_DURATION
                                                             : OMPB__STYLE_COUNT,
                                len > COUNTER_WIDTH ? len : COUNTER_WIDTH);
        place(&f, CON_COUNTERS, CSV_COUNTERS, r->failed ? 0 : OMPB__JSON_PER_ITERATION);
        f.flags = OMPB__FIGURE_ALIGNS_RATE | (r->counts->multiplexed ? OMPB__FIGURE_STARRED : 0);
        ompb__figure_add(out, &f);
    }
}

static int event_index(const ompb__counter_set *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->ev[i].name, name) == 0)
            return i;
    return -1;
}

/* What comes with the counters: whether they were scaled, the ratios, and
 * the rounds with context switches (counted only with context-switches). */
static void counter_companions(const row *r, ompb__figures *out)
{
    if (!r->set)
        return;
    const ompb__counter_figures *c = r->counts;
    int json = r->failed ? 0 : OMPB__JSON_COUNTERS;
    ompb__figure f = figure("counters_multiplexed", "", r->counted && c->multiplexed,
                            OMPB__STYLE_FLAG, 0);
    place(&f, 0, CSV_MULTIPLEXED, json);
    f.json_key = "multiplexed";
    f.flags = OMPB__FIGURE_CSV_ZERO;
    ompb__figure_add(out, &f);
    const struct { const char *key; double v; } ratios[] = {
        {"ipc", c->ipc}, {"cache_miss_ratio", c->cache_miss_ratio},
        {"branch_miss_ratio", c->branch_miss_ratio}};
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
        double v = r->counted ? ratios[i].v : NAN;
        f = figure(ratios[i].key, i == 0 ? "IPC" : "", v, OMPB__STYLE_RATIO, 5);
        place(&f, i == 0 && !isnan(v) ? CON_IPC : 0, CSV_RATIOS, json);
        f.flags = OMPB__FIGURE_ALIGNS_RATE;
        ompb__figure_add(out, &f);
    }
    bool switch_event = event_index(r->set, "context-switches") >= 0 ||
                        event_index(r->set, "cs") >= 0;
    f = figure("rounds_with_switches", "", r->counted ? (double)c->rounds_with_switches : 0,
               OMPB__STYLE_INTEGER, 0);
    /* A region keeps sums per thread, no rounds of counts. */
    place(&f, 0, CSV_SWITCH_ROUNDS, switch_event && !r->region ? json : 0);
    f.flags = OMPB__FIGURE_CSV_ZERO;
    ompb__figure_add(out, &f);
}

/* The marks and the CPU share: console columns only where something is
 * marked (the share where a row lacked its CPUs). */
static void marks(const row *r, ompb__figures *out)
{
    ompb__figure f = figure("marks", "marks", (double)r->marks, OMPB__STYLE_MARKS, 0);
    place(&f, r->marks ? CON_MARKS : 0, CSV_MARKS, OMPB__JSON_OMPBENCH);
    f.flags = OMPB__FIGURE_ALIGNS_RATE;
    ompb__figure_add(out, &f);
    f = figure("cpu_share", "CPU share", r->cpu_share, OMPB__STYLE_SHARE, 9);
    place(&f, r->marks & OMPB__MARK_CPU_SHARE ? CON_SHARE : 0, CSV_SHARE, OMPB__JSON_OMPBENCH);
    f.flags = OMPB__FIGURE_ALIGNS_RATE;
    ompb__figure_add(out, &f);
}

/* Disturbance accounting: the share of measured rounds in which every
 * thread had its CPU (a console column), their count and their median per
 * iteration with its interval (files only); nothing when not accounted. */
static void clean(const row *r, ompb__figures *out)
{
    if (!r->accounted || r->failed)
        return;
    ompb__figure f = figure("clean_share", "clean", r->clean_share, OMPB__STYLE_SHARE, 5);
    place(&f, CON_CLEAN, CSV_CLEAN, OMPB__JSON_OMPBENCH);
    f.flags = OMPB__FIGURE_ALIGNS_RATE;
    ompb__figure_add(out, &f);
    const struct { const char *key; double v; ompb__figure_style style; } files[] = {
        {"clean_rounds", r->clean_rounds, OMPB__STYLE_INTEGER},
        {"clean_median_ns", r->clean_median, OMPB__STYLE_DURATION},
        {"clean_ci95_low_ns", r->clean_low, OMPB__STYLE_DURATION},
        {"clean_ci95_high_ns", r->clean_high, OMPB__STYLE_DURATION},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        f = figure(files[i].key, "", files[i].v, files[i].style, 0);
        place(&f, 0, CSV_CLEAN, OMPB__JSON_OMPBENCH);
        ompb__figure_add(out, &f);
    }
}

/* ompb_counter: one figure per name, by its flags (a rate reads "/s"). */
static void user_counters(const row *r, ompb__figures *out)
{
    for (int k = 0; r->ucounters && k < r->ucounters->n; k++) {
        const char *name = r->ucounters->name[k];
        int len = (int)strlen(name);
        ompb__figure f = figure(name, name, r->user[k], OMPB__STYLE_SI,
                                len > USER_WIDTH ? len : USER_WIDTH);
        f.unit = r->ucounters->flags[k] & OMPB_COUNTER_RATE ? "/s" : "";
        place(&f, CON_USER, CSV_USER, r->failed ? 0 : OMPB__JSON_ENTRY);
        ompb__figure_add(out, &f);
    }
}

/* --thread-columns: per thread (the first OMPB__FAIRNESS_CSV_THREADS), its
 * busy time's mean, median and CV over the rounds and its share of the
 * rounds as the slowest thread (report/fairness.h); CSV only, the JSON has
 * every thread in "ompbench.fairness". */
static void thread_columns(const row *r, ompb__figures *out)
{
    ompb__fairness fair;
    if (!r->thread_columns || !r->res || ompb__fairness_of(&r->res->rec, &fair) != 0)
        return;
    for (size_t t = 0; t < fair.threads && t < OMPB__FAIRNESS_CSV_THREADS; t++) {
        const struct { const char *key; double v; ompb__figure_style style; } cols[] = {
            {"busy_mean_ns", fair.mean_ns[t], OMPB__STYLE_DURATION},
            {"busy_median_ns", fair.median_ns[t], OMPB__STYLE_DURATION},
            {"busy_cv", fair.cv[t], OMPB__STYLE_RATIO},
            {"slowest_share", fair.slowest_share[t], OMPB__STYLE_SHARE},
        };
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            char key[OMPB__FIGURE_KEY_MAX];
            snprintf(key, sizeof key, "t%zu_%s", t, cols[c].key);
            ompb__figure f = figure(key, "", cols[c].v, cols[c].style, 0);
            place(&f, 0, CSV_THREADS, 0);
            ompb__figure_add(out, &f);
        }
    }
    ompb__fairness_free(&fair);
}

/* Every figure family, in the order a row lists them (the JSON keeps it). */
static void (*const producers[])(const row *, ompb__figures *) = {
    switches, clean, counters, counter_companions, marks, user_counters,
    thread_columns,
};

static void produce(const row *r, ompb__figures *out)
{
    out->n = 0;
    for (size_t i = 0; i < sizeof producers / sizeof producers[0]; i++)
        producers[i](r, out);
}

void ompb__result_figures(ompb__result *res, bool thread_cols)
{
    const ompb__record *rec = &res->rec;
    row r = {
        .res = res, .set = rec->counters.n > 0 ? &rec->counters : NULL, .counts = &res->counts,
        .counted = rec->counters.n > 0 && !rec->failed && rec->rounds > 0,
        .failed = rec->failed, .region = rec->region != NULL,
        .ucounters = &rec->ucounters, .user = res->user, .marks = res->marks,
        .cpu_share = res->cpu_share, .accounted = res->accounted && rec->rounds > 0,
        .clean_share = rec->rounds ? (double)res->clean_rounds / (double)rec->rounds : NAN,
        .clean_rounds = (double)res->clean_rounds,
        .clean_median = res->clean_rounds ? res->clean_stats.median : NAN,
        .clean_low = res->clean_rounds ? res->clean_stats.ci_low : NAN,
        .clean_high = res->clean_rounds ? res->clean_stats.ci_high : NAN,
        .thread_columns = thread_cols,
    };
    produce(&r, &res->figs);
}


void ompb__instance_figures(ompb__instance_result *ir)
{
    row r = {
        .ir = ir, .set = ir->counters, .counts = &ir->counts, .counted = ir->counters != NULL,
        .failed = ir->failure != NULL, .region = ir->n_reps > 0 && ir->reps[0].rec.region,
        .ucounters = ir->ucounters, .user = ir->user, .marks = ir->marks,
        .cpu_share = ir->cpu_share, .accounted = ir->accounted && ir->rounds > 0,
        .clean_share = ir->rounds ? (double)ir->clean_rounds / (double)ir->rounds : NAN,
        .clean_rounds = (double)ir->clean_rounds, .clean_median = ir->clean_median_ns,
        .clean_low = NAN, .clean_high = NAN,
    };
    produce(&r, &ir->figs);
}

/* The CSV's columns that every report has, rows or none. */
static void base_columns(ompb__figures *out)
{
    row none = {.counts = &(ompb__counter_figures){0}, .cpu_share = NAN};
    ompb__figures all = {.n = 0};
    switches(&none, &all);
    marks(&none, &all);
    out->n = 0;
    for (int i = 0; i < all.n; i++) {
        ompb__figure f = all.f[i];
        place(&f, 0, f.place[OMPB__FORMAT_CSV], 0);
        ompb__figure_add(out, &f);
    }
}

static bool repeated(const ompb__report *rep)
{
    for (size_t i = 0; i < rep->n_instances; i++)
        if (rep->instances[i].n_reps > 1)
            return true;
    return false;
}

static bool any_counters(const ompb__report *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        if (rep->results[i].rec.counters.n > 0)
            return true;
    return false;
}

/* The lines under the console table that say what the counter columns are. */
static void counter_notes(const ompb__report *rep, char *buf, size_t len)
{
    bool mux = false, reps = repeated(rep), switches_shown = false;
    size_t switched = 0, at = 0;
    for (size_t i = 0; i < rep->n_instances; i++) {
        mux |= rep->instances[i].counts.multiplexed;
        switched += rep->instances[i].counts.rounds_with_switches > 0;
    }
    for (size_t i = 0; i < rep->n; i++)
        switches_shown |= rep->results[i].counts.switches_measured;
    const char *star = mux ? "; * multiplexed: scaled from the time on the PMU" : "";
    buf[0] = '\0';
#define NOTE(...) (at += (size_t)snprintf(buf + at, at < len ? len - at : 0, __VA_ARGS__))
    if (switches_shown)
        NOTE("invcsw: involuntary context switches of the team over the measured rounds%s\n",
             reps ? " (of all repetitions)" : "");
    bool regions = rep->n > 0 && rep->results[0].rec.region;
    if (any_counters(rep) && regions)
        NOTE("counters: per region instance, summed over the team's threads (each thread's "
             "mean over its instances; OMPB_REGIONS_COUNTERS)%s\n", star);
    else if (any_counters(rep))
        NOTE("counters: per iteration, summed over the team's threads (median over rounds%s)"
             "%s\n", reps ? "; with repetitions, the median of the repetitions' figures" : "",
             star);
    bool accounted = false;
    for (size_t i = 0; i < rep->n_instances; i++)
        accounted |= rep->instances[i].accounted && rep->instances[i].rounds > 0;
    if (accounted)
        NOTE("clean: share of the measured rounds in which no thread lost over 1%% of the "
             "round to preemption (compare and ab decide on those rounds)\n");
    if (switched)
        NOTE("%zu instance%s had rounds with context switches (ompbench.counters in the JSON "
             "has them per round and thread)\n", switched, switched == 1 ? "" : "s");
#undef NOTE
}

void ompb__report_figures(ompb__report *rep)
{
    for (size_t i = 0; i < rep->n; i++)
        ompb__result_figures(&rep->own[i], rep->ctx && rep->ctx->thread_columns);
    for (size_t i = 0; i < rep->n_instances; i++)
        ompb__instance_figures(&rep->instances[i]);
    base_columns(&rep->base);
    counter_notes(rep, rep->notes, sizeof rep->notes);
}
