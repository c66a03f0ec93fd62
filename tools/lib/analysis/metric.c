/* SPDX-License-Identifier: MIT */
/*
 * Counter metrics for compare and scaling: the per-iteration team sums of
 * one counter, per measured round, from a result file's "ompbench.counters"
 * (docs/json.md), or a user counter's per-round figures
 * ("ompbench.user_counters", ompb_counter), reduced to one value per repetition (the median over its
 * rounds) in place of its time, checked as they are read so a malformed or
 * foreign file gets one message naming where, never a verdict on made-up
 * numbers.
 */
#include "analysis/metric.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/units.h"
#include "counters/counters.h"
#include "core/core.h"

/* 2^64: counts are whole numbers below it (as in resultfile.c). */
#define U64_LIMIT 18446744073709551616.0

typedef struct where {
    const char *label;
    char at[160];
} where;

static int failf(ompb_error *err, const where *w, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int failf(ompb_error *err, const where *w, const char *fmt, ...)
{
    char what[OMPB_ERROR_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ompb__error_set(err, OMPB_EINVAL, "%s: %s: %s", w->label, w->at, what);
}

bool ompb__metric_is_time(const char *metric)
{
    return !metric || strcmp(metric, "time") == 0;
}

static bool is_count(const json_t *v)
{
    double d = json_number_value(v);
    return json_is_number(v) && d >= 0.0 && d < U64_LIMIT && d == floor(d);
}

/* "a, b, c" of a JSON array of strings, for messages. */
static void names_of(const json_t *events, char *buf, size_t cap)
{
    size_t i, at = 0;
    const json_t *v;
    buf[0] = '\0';
    json_array_foreach(events, i, v) {
        int w = snprintf(buf + at, cap - at, "%s%s", i ? ", " : "",
                         json_is_string(v) ? json_string_value(v) : "?");
        if (w < 0 || (size_t)w >= cap - at)
            break;
        at += (size_t)w;
    }
}

/* What the metric reads of an entry's "ompbench" and its "counters"
 * (docs/json.md), taken with one json_unpack per object; each NULL when
 * absent, its type checked where it is read (the messages name the key). */
typedef struct parts {
    json_t *counters, *size, *region, *user;                       /* ompbench */
    json_t *events, *units, *values, *enabled, *running, *per_iter; /* counters */
} parts;

/* "{s?o}" never fails on an object: presence and type are the readers'. */
static void unpack_parts(const json_t *omp, parts *p)
{
    memset(p, 0, sizeof *p);
    if (json_is_object(omp))
        (void)json_unpack((json_t *)omp, "{s?o, s?o, s?o, s?o}", "counters", &p->counters,
                          "sample_size", &p->size, "region", &p->region, "user_counters",
                          &p->user);
    if (json_is_object(p->counters))
        (void)json_unpack(p->counters, "{s?o, s?o, s?o, s?o, s?o, s?o}", "events", &p->events,
                          "units", &p->units, "values", &p->values, "time_enabled_ns",
                          &p->enabled, "time_running_ns", &p->running, "per_iteration",
                          &p->per_iter);
}

static int event_index(const parts *p, const char *metric, const where *w,
                       ompb__metric_unit *unit, ompb_error *err)
{
    const json_t *events = p->events, *units = p->units;
    if (!json_is_array(events) || !json_is_array(units) ||
        json_array_size(units) != json_array_size(events))
        return failf(err, w, "\"ompbench.counters\" has no \"events\" and \"units\" arrays of "
                     "one length");
    size_t i;
    const json_t *v;
    /* By canonical name: a file written before aliases were canonical may
     * say cpu-cycles where a newer one says cycles (lib/counters/counters.h). */
    json_array_foreach(events, i, v) {
        if (!json_is_string(v) || strcmp(ompb__counter_canonical(json_string_value(v)),
                                         ompb__counter_canonical(metric)) != 0)
            continue;
        const char *u = json_string_value(json_array_get(units, i));
        if (!u || (strcmp(u, "ns") != 0 && strcmp(u, "count") != 0))
            return failf(err, w, "counter '%s' has unit %s%s%s (accepted: ns, count)", metric,
                         u ? "\"" : "", u ? u : "missing", u ? "\"" : "");
        *unit = strcmp(u, "ns") == 0 ? OMPB__METRIC_NS : OMPB__METRIC_COUNT;
        return (int)i;
    }
    char counted[256];
    names_of(events, counted, sizeof counted);
    return failf(err, w, "counter '%s' was not counted (counted: %s; run with --counters %s)",
                 metric, counted, metric);
}

/* One cell [round][thread] of time_enabled_ns or time_running_ns. */
static const json_t *cell(const json_t *rounds, size_t r, size_t t)
{
    return json_array_get(json_array_get(rounds, r), t);
}

/* Round r's count of event e per iteration, summed over the threads and
 * scaled by enabled/running; NAN when a thread's group was not on the PMU. */
static int round_value(const parts *p, size_t r, size_t e, double size, const where *w,
                       double *out, ompb_error *err)
{
    const json_t *row = json_array_get(p->values, r), *en = p->enabled, *run = p->running;
    if (!json_is_array(row) || json_array_size(row) == 0)
        return failf(err, w, "ompbench.counters.values[%zu] is not an array of threads", r);
    double sum = 0;
    for (size_t t = 0; t < json_array_size(row); t++) {
        const json_t *v = json_array_get(json_array_get(row, t), e);
        const json_t *a = cell(en, r, t), *b = cell(run, r, t);
        if (!is_count(v) || !is_count(a) || !is_count(b))
            return failf(err, w, "ompbench.counters round %zu thread %zu: the value, "
                         "time_enabled_ns or time_running_ns is not a whole number below 2^64",
                         r, t);
        double enabled = json_number_value(a), running = json_number_value(b);
        double x = json_number_value(v);
        if (running < enabled)
            x = running > 0 ? x * (enabled / running) : NAN;
        sum += x;
    }
    *out = sum / size;
    return 0;
}

/* The values read for one instance, in file order of its entries. */
typedef struct gathered {
    double *rounds;         /* every counted round of every repetition */
    size_t n_rounds, cap_rounds;
    size_t reps;            /* entries read so far */
} gathered;

static int push_round(gathered *g, double v)
{
    if (!ompb__grow((void **)&g->rounds, &g->cap_rounds, g->n_rounds + 1, sizeof *g->rounds, 64))
        return OMPB_ENOMEM;
    g->rounds[g->n_rounds++] = v;
    return 0;
}

static double median_of(const double *v, size_t n)
{
    ompb__stats st;
    return n && ompb__stats_compute(v, n, &st) == 0 ? st.median : NAN;
}

/* One ompbench repetition: its value is the median over its measured rounds
 * of the per-iteration team sums (the figure its own report prints), its
 * rounds join the instance's samples. */
/* Whether metric is one of the entry's --counters events. */
static bool names_event(const parts *p, const char *metric)
{
    const json_t *v;
    size_t i;
    /* As event_index matches: by canonical name (a user counter "cs" is
     * the event context-switches too). */
    json_array_foreach(p->events, i, v) {
        if (json_is_string(v) && strcmp(ompb__counter_canonical(json_string_value(v)),
                                        ompb__counter_canonical(metric)) == 0)
            return true;
    }
    return false;
}

static int from_ompbench(const parts *p, const char *metric, gathered *g, const where *w,
                         double *value, ompb__metric_unit *unit, ompb_error *err)
{
    const json_t *c = p->counters, *size = p->size;
    if (!json_is_object(c) && p->region)
        return failf(err, w, "an application region that counted nothing (run it with "
                     "OMPB_REGIONS_COUNTERS=%s, or compare by time)", metric);
    if (!json_is_object(c))
        return failf(err, w, "'%s' is neither a user counter of this entry (ompb_counter: run "
                     "only the benchmarks that have it, --filter) nor counted (no "
                     "\"ompbench.counters\": run it with --counters %s)", metric, metric);
    if (!json_is_integer(size) || json_integer_value(size) <= 0)
        return failf(err, w, "\"ompbench.sample_size\" is missing or not a positive integer");
    int e = event_index(p, metric, w, unit, err);
    if (e < 0)
        return e;
    if (p->region) {
        /* Regions keep sums, not rounds: the figure per instance alone. */
        const char *name = json_string_value(json_array_get(p->events, (size_t)e));
        const json_t *v = json_object_get(p->per_iter, name);
        if (!json_is_number(v) || !isfinite(json_number_value(v)))
            return failf(err, w, "region counter '%s' has no figure per instance", metric);
        *value = json_number_value(v);
        return 0;
    }
    const json_t *values = p->values;
    size_t rounds = json_array_size(values);
    if (!json_is_array(values) || rounds == 0)
        return failf(err, w, "\"ompbench.counters.values\" is missing or empty");
    size_t first = g->n_rounds;
    for (size_t r = 0; r < rounds; r++) {
        double x = NAN;
        int rc = round_value(p, r, (size_t)e, (double)json_integer_value(size), w, &x, err);
        if (!rc && !isnan(x))
            rc = push_round(g, x);
        if (rc)
            return rc;
    }
    if (g->n_rounds == first)
        return failf(err, w, "counter '%s' was on the PMU in none of the %zu rounds of this "
                     "repetition (multiplexed out: count fewer events): it has no value",
                     metric, rounds);
    *value = median_of(g->rounds + first, g->n_rounds - first);
    return 0;
}

/* A user counter (ompb_counter): the repetition's figure is the flat key of
 * its name, its rounds' figures are in "ompbench.user_counters.NAME.rounds"
 * (docs/json.md); rounds without a figure (null) are left out. */
static int from_user(const json_t *e, const json_t *uc, const char *metric, gathered *g,
                     const where *w, double *value, ompb__metric_unit *unit, ompb_error *err)
{
    json_t *rounds = NULL;
    const json_t *x = json_object_get(e, metric); /* a key the user named */
    if (json_unpack((json_t *)uc, "{s:o}", "rounds", &rounds) != 0 || !json_is_array(rounds))
        return failf(err, w, "\"ompbench.user_counters.%s.rounds\" is not an array", metric);
    if (!json_is_number(x) || !isfinite(json_number_value(x)))
        return failf(err, w, "user counter '%s' has no figure in this repetition", metric);
    size_t i;
    const json_t *v;
    json_array_foreach(rounds, i, v) {
        if (json_is_null(v))
            continue;
        if (!json_is_number(v) || !isfinite(json_number_value(v)))
            return failf(err, w, "\"ompbench.user_counters.%s.rounds[%zu]\" is not a number",
                         metric, i);
        int rc = push_round(g, json_number_value(v));
        if (rc)
            return rc;
    }
    *value = json_number_value(x);
    *unit = OMPB__METRIC_USER;
    return 0;
}

/* A Google Benchmark repetition: the flat key of that name. */
static int from_flat(const json_t *e, const char *metric, const where *w, double *value,
                     ompb__metric_unit *unit, ompb_error *err)
{
    const json_t *x = json_object_get(e, metric);
    if (!json_is_number(x) || !isfinite(json_number_value(x)))
        return failf(err, w, "no number \"%s\" in this Google Benchmark entry (its counters "
                     "are flat keys; ompbench's are in ompbench.counters)", metric);
    *value = json_number_value(x);
    *unit = OMPB__METRIC_COUNT;
    return 0;
}

/* An entry's run_type (NULL when absent) says it is an iteration entry. */
static bool is_iteration(const json_t *rt)
{
    return !json_is_string(rt) || strcmp(json_string_value(rt), "iteration") == 0;
}

/* The instance's value is the median of its repetitions' (as for times);
 * the samples are the counted rounds, or for Google Benchmark entries the
 * repetitions' values when there are two or more. */
static int settle(ompb__rf_instance *in, gathered *g)
{
    double *v = malloc((in->n_reps ? in->n_reps : 1) * sizeof *v);
    if (!v)
        return OMPB_ENOMEM;
    for (size_t i = 0; i < in->n_reps; i++)
        v[i] = in->reps[i].value_ns;
    in->value_ns = median_of(v, in->n_reps);
    free(in->samples_ns);
    in->samples_ns = NULL;
    in->n_samples = in->cap_samples = 0;
    if (in->rounds) {
        free(v);
        in->samples_ns = g->rounds;
        in->n_samples = g->n_rounds;
        in->cap_samples = g->cap_rounds;
        g->rounds = NULL;
    } else if (in->n_reps >= 2) {
        in->samples_ns = v;
        in->n_samples = in->cap_samples = in->n_reps;
    } else {
        free(v);
    }
    return 0;
}

typedef struct applying {
    const char *label, *metric;
    ompb__resultfile *rf;
    gathered *g;            /* [rf->n] */
    bool have_unit;
    ompb__metric_unit *unit;
    ompb_error *err;
} applying;

/* Entry idx of the file: the next repetition of its instance. */
static int apply_entry(applying *ap, const json_t *e, size_t idx)
{
    json_t *name = NULL, *omp = NULL, *rt = NULL;
    if (json_unpack((json_t *)e, "{s:o, s?o, s?o}", "name", &name, "ompbench", &omp,
                    "run_type", &rt) != 0 || !json_is_string(name) || !is_iteration(rt))
        return 0;
    const ompb__rf_instance *found = ompb__resultfile_find(ap->rf, json_string_value(name));
    if (!found || found->failed)
        return 0;
    size_t k = (size_t)(found - ap->rf->inst);
    ompb__rf_instance *in = &ap->rf->inst[k];
    gathered *g = &ap->g[k];
    where w = {ap->label, ""};
    snprintf(w.at, sizeof w.at, "benchmarks[%zu] \"%.100s\"", idx, in->name);
    for (char *p = w.at; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (g->reps >= in->n_reps)
        return failf(ap->err, &w, "more repetitions than when the file was read (did it "
                     "change?)");
    ompb__metric_unit u = OMPB__METRIC_COUNT;
    double value = NAN;
    parts p;
    unpack_parts(omp, &p);
    const json_t *user = json_object_get(p.user, ap->metric); /* a name the user gave */
    if (user && names_event(&p, ap->metric))
        return failf(ap->err, &w, "'%s' is both a user counter (ompb_counter) and a --counters "
                     "event here: the metric is ambiguous (accepted: a file where the names "
                     "differ; this ompbench refuses such a user counter)", ap->metric);
    int rc = user ? from_user(e, user, ap->metric, g, &w, &value, &u, ap->err)
             : json_is_object(omp) ? from_ompbench(&p, ap->metric, g, &w, &value, &u, ap->err)
                                   : from_flat(e, ap->metric, &w, &value, &u, ap->err);
    if (rc)
        return rc;
    if (ap->have_unit && u != *ap->unit)
        return failf(ap->err, &w, "counter '%s' has another unit here than in the entries "
                     "before", ap->metric);
    *ap->unit = u;
    ap->have_unit = true;
    /* A count does not grow when a thread is preempted the way a time
     * does: a metric is judged on all rounds (the clean rounds' medians are
     * of time). */
    ompb__rf_rep *rep = &in->reps[g->reps++];
    rep->value_ns = value;
    rep->accounted = false;
    rep->clean_ns = NAN;
    return 0;
}

/* Every successful instance must have got all its repetitions, and none
 * may be known by an aggregate only. */
static int check_complete(const applying *ap)
{
    for (size_t k = 0; k < ap->rf->n; k++) {
        const ompb__rf_instance *in = &ap->rf->inst[k];
        where w = {ap->label, ""};
        snprintf(w.at, sizeof w.at, "\"%.100s\"", in->name);
        for (char *p = w.at; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        if (in->failed)
            continue;
        if (in->aggregate)
            return failf(ap->err, &w, "known by its %s aggregate only: --metric needs the "
                         "iteration entries", in->aggregate);
        if (ap->g[k].reps != in->n_reps)
            return failf(ap->err, &w, "%zu of its %zu repetitions found again (did the file "
                         "change?)", ap->g[k].reps, in->n_reps);
    }
    return 0;
}

int ompb__metric_apply_json(const json_t *root, const char *label, const char *metric,
                            ompb__resultfile *rf, ompb__metric_unit *unit, ompb_error *err)
{
    json_t *benchmarks = NULL; /* stays NULL, no entry, when root is no object */
    (void)json_unpack((json_t *)root, "{s?o}", "benchmarks", &benchmarks);
    *unit = OMPB__METRIC_NS;
    applying ap = {label, metric, rf, calloc(rf->n ? rf->n : 1, sizeof *ap.g), false, unit, err};
    if (!ap.g)
        return ompb__error_set(err, OMPB_ENOMEM, "%s: out of memory", label);
    size_t i;
    const json_t *e;
    int rc = 0;
    json_array_foreach(benchmarks, i, e) {
        if ((rc = apply_entry(&ap, e, i)))
            break;
    }
    rc = rc ? rc : check_complete(&ap);
    for (size_t k = 0; k < rf->n && !rc; k++)
        if (!rf->inst[k].failed)
            rc = settle(&rf->inst[k], &ap.g[k]);
    for (size_t k = 0; k < rf->n; k++)
        free(ap.g[k].rounds);
    free(ap.g);
    if (rc == OMPB_ENOMEM)
        ompb__error_set(err, rc, "%s: out of memory", label);
    return rc;
}

int ompb__metric_apply(const char *path, const char *metric, ompb__resultfile *rf,
                       ompb__metric_unit *unit, ompb_error *err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return ompb__error_set(err, OMPB_EIO, "%s: cannot read it again: %s", path, jerr.text);
    int rc = ompb__metric_apply_json(root, path, metric, rf, unit, err);
    json_decref(root);
    return rc;
}

static char *format_count(char *buf, size_t cap, double v, bool shortest)
{
    static const char *prefixes[] = {"", " k", " M", " G", " T", " P", " E"};
    size_t p = 0;
    if (isnan(v)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    double a = fabs(v);
    while (a >= 999.95 && p + 1 < sizeof prefixes / sizeof prefixes[0]) {
        a /= 1000.0;
        v /= 1000.0;
        p++;
    }
    if (shortest)
        snprintf(buf, cap, "%g%s", v, prefixes[p]);
    else if (p == 0 && a < 1.0)
        snprintf(buf, cap, "%.4g", v);
    else
        snprintf(buf, cap, "%.4g%s", v, prefixes[p]);
    return buf;
}

char *ompb__format_metric(char *buf, size_t cap, double v, ompb__metric_unit unit)
{
    return unit == OMPB__METRIC_NS ? ompb__format_ns(buf, cap, v) : format_count(buf, cap, v, false);
}

char *ompb__format_metric_short(char *buf, size_t cap, double v, ompb__metric_unit unit)
{
    return unit == OMPB__METRIC_NS ? ompb__format_ns_short(buf, cap, v)
                                   : format_count(buf, cap, v, true);
}
