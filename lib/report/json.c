/* SPDX-License-Identifier: MIT */
/*
 * JSON report in the Google Benchmark schema (docs/json.md), so tools that
 * read Google Benchmark JSON read ours, with our statistics and the raw
 * rounds in an "ompbench" object per benchmark. Built with jansson.
 */
#include "report.h"

#include <string.h>

#include <jansson.h>

#include "ompbench/error.h"

/* jansson's json_object_set_new fails only on ENOMEM or a bad key; the whole
 * document is checked at dump time, so per-call results are not tested. */
static void set(json_t *obj, const char *key, json_t *value)
{
    json_object_set_new(obj, key, value);
}

static json_t *u64_array(const uint64_t *v, size_t n, size_t stride)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)v[i * stride]));
    return a;
}

static json_t *samples_json(const ompb__record *rec)
{
    size_t T = (size_t)rec->threads;
    json_t *makespan = json_array(), *skew = json_array(), *busy = json_array();
    for (size_t r = 0; r < rec->rounds; r++) {
        const uint64_t *st = rec->thread_start_ns + r * T;
        uint64_t smin = st[0], smax = st[0];
        for (size_t t = 1; t < T; t++) {
            smin = st[t] < smin ? st[t] : smin;
            smax = st[t] > smax ? st[t] : smax;
        }
        json_array_append_new(makespan, json_integer((json_int_t)ompb__record_makespan(rec, r)));
        json_array_append_new(skew, json_integer((json_int_t)(smax - smin)));
        json_array_append_new(busy, u64_array(rec->busy_ns + r * T, T, 1));
    }
    return json_pack("{s:o, s:o, s:o}", "makespan_ns", makespan, "start_skew_ns", skew,
                     "busy_ns", busy);
}

static json_t *stats_json(const ompb__result *res)
{
    const ompb__stats *st = &res->stats;
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:f, s:f, s:f}",
                     "min_ns", st->min, "max_ns", st->max, "mean_ns", st->mean,
                     "stdev_ns", st->stdev, "q1_ns", st->q1, "median_ns", st->median,
                     "q3_ns", st->q3, "ci95_low_ns", st->ci_low, "ci95_high_ns", st->ci_high,
                     "iqr_outlier_rounds", (json_int_t)st->iqr_outliers,
                     "stdev_outlier_rounds", (json_int_t)st->stdev_outliers,
                     "total_time_s", res->total_time_s, "mean_skew_ns", res->mean_skew_ns,
                     "mean_imbalance", res->mean_imbalance);
}

static json_t *ompbench_json(const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    json_t *o = json_object();
    set(o, "uri", json_string(rec->inst->uri));
    set(o, "threads", json_integer(rec->threads));
    set(o, "sample_size", json_integer((json_int_t)rec->sample_size));
    set(o, "rounds", json_integer((json_int_t)rec->rounds));
    set(o, "warmup_rounds", json_integer((json_int_t)rec->warmup_rounds));
    set(o, "warmup_iters", json_integer((json_int_t)rec->warmup_iters));
    set(o, "calibration_rounds", json_integer((json_int_t)rec->calibration_rounds));
    set(o, "migrations", json_integer((json_int_t)rec->migrations));
    json_t *pus = json_array();
    for (int t = 0; t < rec->threads; t++)
        json_array_append_new(pus, json_integer(rec->thread_pu ? rec->thread_pu[t] : -1));
    set(o, "pu_map", pus);
    if (!rec->failed) {
        set(o, "stats", stats_json(res));
        set(o, "samples", samples_json(rec));
    }
    return o;
}

/* The fields every Google Benchmark entry has; run_type and times by caller. */
static json_t *entry_base(const ompb__result *res, const char *name)
{
    const ompb__record *rec = &res->rec;
    return json_pack("{s:s, s:I, s:I, s:s, s:I, s:I, s:i, s:s}", "name", name,
                     "family_index", (json_int_t)rec->inst->family_index,
                     "per_family_instance_index", (json_int_t)rec->inst->family_instance,
                     "run_name", rec->inst->name, "repetitions", (json_int_t)1,
                     "repetition_index", (json_int_t)0, "threads", rec->threads,
                     "time_unit", "ns");
}

static json_t *iteration_entry(const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    json_t *e = entry_base(res, rec->inst->name);
    double iters = (double)rec->rounds * (double)rec->sample_size;
    set(e, "run_type", json_string("iteration"));
    set(e, "iterations", json_integer((json_int_t)(rec->rounds * rec->sample_size)));
    if (rec->failed) {
        set(e, "error_occurred", json_true());
        set(e, "error_message", json_string(rec->error));
        set(e, "real_time", json_real(0));
        set(e, "cpu_time", json_real(0));
    } else {
        set(e, "real_time", json_real(iters > 0 ? res->total_time_s * 1e9 / iters : 0));
        set(e, "cpu_time", json_real(iters > 0 ? (double)rec->cpu_ns / iters : 0));
        double secs_per_iter = res->stats.mean * 1e-9;
        if (rec->bytes_per_iter && secs_per_iter > 0)
            set(e, "bytes_per_second", json_real((double)rec->bytes_per_iter / secs_per_iter));
        if (rec->items_per_iter && secs_per_iter > 0)
            set(e, "items_per_second", json_real((double)rec->items_per_iter / secs_per_iter));
    }
    set(e, "ompbench", ompbench_json(res));
    return e;
}

static json_t *aggregate_entry(const ompb__result *res, const char *agg, double value)
{
    char name[OMPB__NAME_MAX + 16];
    snprintf(name, sizeof name, "%s_%s", res->rec.inst->name, agg);
    json_t *e = entry_base(res, name);
    set(e, "run_type", json_string("aggregate"));
    set(e, "aggregate_name", json_string(agg));
    set(e, "iterations", json_integer((json_int_t)res->rec.rounds));
    set(e, "real_time", json_real(value));
    set(e, "cpu_time", json_real(value));
    if (strcmp(agg, "cv") == 0)
        set(e, "aggregate_unit", json_string("percentage"));
    return e;
}

static void append_result(json_t *list, const ompb__result *res)
{
    const ompb__stats *st = &res->stats;
    json_array_append_new(list, iteration_entry(res));
    if (res->rec.failed || res->rec.rounds == 0)
        return;
    json_array_append_new(list, aggregate_entry(res, "mean", st->mean));
    json_array_append_new(list, aggregate_entry(res, "median", st->median));
    json_array_append_new(list, aggregate_entry(res, "stddev", st->stdev));
    json_array_append_new(list, aggregate_entry(res, "cv", st->mean > 0 ? st->stdev / st->mean : 0));
}

int ompb__report_json(FILE *out, const ompb__context *ctx, const ompb__result *res, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        append_result(list, &res[i]);
    json_t *root = json_object();
    set(root, "context", ctx ? ompb__context_to_json(ctx) : json_object());
    set(root, "benchmarks", list);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) == 0 ? 0 : OMPB_EIO;
    fputc('\n', out);
    json_decref(root);
    return rc == 0 && !ferror(out) ? 0 : OMPB_EIO;
}
