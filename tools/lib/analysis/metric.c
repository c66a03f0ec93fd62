/* SPDX-License-Identifier: MIT */
/*
 * Counter metrics for compare and scaling: the per-iteration team sums of
 * one counter, per measured round, from a result file's "ompbench.counters"
 * (docs/json.md), checked as they are read so a malformed or foreign file
 * gets one message naming where, never a verdict on made-up numbers.
 */
#include "analysis/metric.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/units.h"
#include "error.h"
#include "stats.h"

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

static int event_index(const json_t *counters, const char *metric, const where *w,
                       ompb__metric_unit *unit, ompb_error *err)
{
    const json_t *events = json_object_get(counters, "events");
    const json_t *units = json_object_get(counters, "units");
    if (!json_is_array(events) || !json_is_array(units) ||
        json_array_size(units) != json_array_size(events))
        return failf(err, w, "\"ompbench.counters\" has no \"events\" and \"units\" arrays of "
                     "one length");
    size_t i;
    const json_t *v;
    json_array_foreach(events, i, v) {
        if (!json_is_string(v) || strcmp(json_string_value(v), metric) != 0)
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
static int round_value(const json_t *c, size_t r, size_t e, double size, const where *w,
                       double *out, ompb_error *err)
{
    const json_t *row = json_array_get(json_object_get(c, "values"), r);
    const json_t *en = json_object_get(c, "time_enabled_ns");
    const json_t *run = json_object_get(c, "time_running_ns");
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

static int replace_samples(ompb__rf_instance *in, const double *v, size_t n)
{
    free(in->samples_ns);
    in->samples_ns = NULL;
    in->n_samples = in->cap_samples = 0;
    ompb__stats st;
    if (n == 0) {
        in->value_ns = NAN;
        return 0;
    }
    if (!(in->samples_ns = malloc(n * sizeof *v)))
        return OMPB_ENOMEM;
    memcpy(in->samples_ns, v, n * sizeof *v);
    in->n_samples = in->cap_samples = n;
    in->value_ns = ompb__stats_compute(v, n, &st) == 0 ? st.median : NAN;
    return 0;
}

/* An ompbench entry: one sample per measured round in which every thread
 * was counted. */
static int from_ompbench(const json_t *omp, const char *metric, ompb__rf_instance *in,
                         const where *w, ompb__metric_unit *unit, ompb_error *err)
{
    const json_t *c = json_object_get(omp, "counters");
    const json_t *size = json_object_get(omp, "sample_size");
    if (!json_is_object(c))
        return failf(err, w, "no \"ompbench.counters\": this run counted nothing (run it with "
                     "--counters %s)", metric);
    if (!json_is_integer(size) || json_integer_value(size) <= 0)
        return failf(err, w, "\"ompbench.sample_size\" is missing or not a positive integer");
    int e = event_index(c, metric, w, unit, err);
    if (e < 0)
        return e;
    const json_t *values = json_object_get(c, "values");
    size_t rounds = json_array_size(values);
    if (!json_is_array(values) || rounds == 0)
        return failf(err, w, "\"ompbench.counters.values\" is missing or empty");
    double *v = malloc(rounds * sizeof *v);
    size_t n = 0;
    int rc = v ? 0 : OMPB_ENOMEM;
    for (size_t r = 0; r < rounds && !rc; r++) {
        double x = NAN;
        rc = round_value(c, r, (size_t)e, (double)json_integer_value(size), w, &x, err);
        if (!rc && !isnan(x))
            v[n++] = x;
    }
    if (!rc)
        rc = replace_samples(in, v, n);
    free(v);
    return rc;
}

/* Google Benchmark entries: the flat key of that name, one per repetition. */
static int from_flat(const json_t *benchmarks, const char *metric, ompb__rf_instance *in,
                     const where *w, ompb__metric_unit *unit, ompb_error *err)
{
    double v[4096];
    size_t n = 0, i;
    const json_t *e;
    json_array_foreach(benchmarks, i, e) {
        const json_t *name = json_object_get(e, "name"), *rt = json_object_get(e, "run_type");
        if (!json_is_string(name) || strcmp(json_string_value(name), in->name) != 0 ||
            (json_is_string(rt) && strcmp(json_string_value(rt), "iteration") != 0))
            continue;
        const json_t *x = json_object_get(e, metric);
        if (!json_is_number(x) || !isfinite(json_number_value(x)))
            return failf(err, w, "no number \"%s\" in this Google Benchmark entry (its counters "
                         "are flat keys; ompbench's are in ompbench.counters)", metric);
        if (n == sizeof v / sizeof v[0])
            return failf(err, w, "more than %zu repetitions (accepted: at most %zu)",
                         sizeof v / sizeof v[0], sizeof v / sizeof v[0]);
        v[n++] = json_number_value(x);
    }
    *unit = OMPB__METRIC_COUNT;
    int rc = replace_samples(in, v, n);
    if (!rc && n < 2) { /* one run is a value, not a sample (as for times) */
        free(in->samples_ns);
        in->samples_ns = NULL;
        in->n_samples = in->cap_samples = 0;
    }
    return rc;
}

/* The iteration entry that named instance i of rf (first of that name). */
static const json_t *entry_of(const json_t *benchmarks, const char *name, size_t *idx)
{
    size_t i;
    const json_t *e;
    json_array_foreach(benchmarks, i, e) {
        const json_t *n = json_object_get(e, "name"), *rt = json_object_get(e, "run_type");
        if (json_is_string(n) && strcmp(json_string_value(n), name) == 0 &&
            (!json_is_string(rt) || strcmp(json_string_value(rt), "iteration") == 0)) {
            *idx = i;
            return e;
        }
    }
    return NULL;
}

int ompb__metric_apply_json(const json_t *root, const char *label, const char *metric,
                            ompb__resultfile *rf, ompb__metric_unit *unit, ompb_error *err)
{
    const json_t *benchmarks = json_object_get(root, "benchmarks");
    bool first = true;
    *unit = OMPB__METRIC_NS;
    for (size_t k = 0; k < rf->n; k++) {
        ompb__rf_instance *in = &rf->inst[k];
        if (in->failed)
            continue;
        where w = {label, ""};
        size_t idx = 0;
        const json_t *e = entry_of(benchmarks, in->name, &idx);
        snprintf(w.at, sizeof w.at, "benchmarks[%zu] \"%.100s\"", idx, in->name);
        for (char *p = w.at; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        if (!e || in->aggregate)
            return failf(err, &w, "known by its %s aggregate only: --metric needs the "
                         "iteration entries", in->aggregate ? in->aggregate : "?");
        ompb__metric_unit u = OMPB__METRIC_COUNT;
        const json_t *omp = json_object_get(e, "ompbench");
        int rc = json_is_object(omp) ? from_ompbench(omp, metric, in, &w, &u, err)
                                     : from_flat(benchmarks, metric, in, &w, &u, err);
        if (rc)
            return rc;
        if (!first && u != *unit)
            return failf(err, &w, "counter '%s' has another unit here than in the entries "
                         "before", metric);
        *unit = u;
        first = false;
    }
    return 0;
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
