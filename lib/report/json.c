/* SPDX-License-Identifier: MIT */
/*
 * JSON report in the Google Benchmark schema (docs/json.md), so tools that
 * read Google Benchmark JSON read ours, with our statistics and the raw
 * rounds in an "ompbench" object per benchmark. The named figures go where
 * their JSON place says (lib/report/figure.h): flat keys of the entry, keys
 * of "ompbench", of "ompbench.counters" or its "per_iteration". Built with
 * jansson.
 */
#include "report/report.h"

#include <math.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/error.h>

#include "report/fairness.h"
#include "report/marks.h"

/* Every builder below returns NULL when any part of its value could not be
 * made (out of memory, invalid UTF-8); set() propagates that by failing, so
 * an incomplete report is an error, never a silently shorter file. */
static int set(json_t *obj, const char *key, json_t *value)
{
    return obj && value ? json_object_set_new(obj, key, value) : (json_decref(value), -1);
}

/* jansson refuses NaN and infinities; they become null. */
static json_t *real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* real_time and cpu_time: Google Benchmark's readers (compare.py) do
 * arithmetic on them, so they are numbers in every entry; a time that was
 * not measured (a region's CPU time) or has no value is 0 (docs/json.md). */
static json_t *gbench_time(double v)
{
    return json_real(isfinite(v) ? v : 0.0);
}

static json_t *checked(json_t *obj, int bad)
{
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static json_t *u64_array(const uint64_t *v, size_t n, size_t stride)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; i < n && !bad; i++)
        bad |= json_array_append_new(a, json_integer((json_int_t)v[i * stride]));
    return checked(a, bad);
}

/* Thread t's start in round r after the team's first (s_t - min s_t), so a
 * reader can draw the round thread by thread (ompbench report). */
static json_t *start_offsets(const ompb__record *rec, size_t r)
{
    size_t T = (size_t)rec->threads;
    json_t *a = json_array();
    int bad = !a;
    for (size_t t = 0; t < T && !bad; t++) {
        uint64_t s = rec->thread_start_ns[r * T + t], first = rec->start_ns[r];
        /* A distributed round's first start may be another rank's clock. */
        bad |= json_array_append_new(a, json_integer(s > first ? (json_int_t)(s - first) : 0));
    }
    return checked(a, bad);
}

/* A caller team's rounds have no per-thread figures: the harness times the
 * caller only, so start_skew_ns and busy_ns are left out rather than faked. */
/* Disturbance accounting, per round: clean or not, and each thread's time
 * away (null: unknown, the kernel dropped its records) and preemptions. */
static int accounting_samples(json_t *o, const ompb__record *rec)
{
    size_t T = (size_t)rec->threads;
    json_t *clean = json_array(), *away = json_array(), *pre = json_array();
    int bad = !clean || !away || !pre;
    for (size_t r = 0; r < rec->rounds && !bad; r++) {
        bad |= json_array_append_new(clean, json_boolean(ompb__record_round_clean(rec, r)));
        json_t *a = json_array();
        bad |= !a;
        for (size_t t = 0; t < T && !bad; t++) {
            uint64_t v = rec->away_ns[r * T + t];
            bad |= json_array_append_new(a, v == OMPB__AWAY_UNKNOWN ? json_null()
                                                                    : json_integer((json_int_t)v));
        }
        bad |= json_array_append_new(away, a);
        bad |= json_array_append_new(pre, u64_array(rec->preemptions + r * T, T, 1));
    }
    bad |= set(o, "clean", clean);
    bad |= set(o, "away_ns", away);
    bad |= set(o, "preemptions", pre);
    return bad;
}

static json_t *samples_json(const ompb__record *rec)
{
    size_t T = (size_t)rec->threads;
    bool per_thread = !rec->caller_team;
    json_t *makespan = json_array(), *skew = json_array(), *busy = json_array();
    json_t *offset = json_array();
    int bad = !makespan || !skew || !busy || !offset;
    for (size_t r = 0; r < rec->rounds && !bad; r++) {
        bad |= json_array_append_new(makespan, json_integer((json_int_t)ompb__record_makespan(rec, r)));
        if (!per_thread)
            continue;
        bad |= json_array_append_new(skew, json_integer((json_int_t)ompb__record_start_skew(rec, r)));
        bad |= json_array_append_new(busy, u64_array(rec->busy_ns + r * T, T, 1));
        bad |= json_array_append_new(offset, start_offsets(rec, r));
    }
    json_t *o = json_object();
    bad |= set(o, "makespan_ns", makespan);
    if (rec->away_ns && !bad)
        bad |= accounting_samples(o, rec);
    if (per_thread) {
        bad |= set(o, "start_skew_ns", skew);
        bad |= set(o, "busy_ns", busy);
        bad |= set(o, "start_offset_ns", offset);
    } else {
        json_decref(skew);
        json_decref(busy);
        json_decref(offset);
    }
    return checked(o, bad);
}

static json_t *real_array(const double *v, size_t n)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; i < n && !bad; i++)
        bad |= json_array_append_new(a, real(v[i]));
    return checked(a, bad);
}

/* A distributed repetition: samples.rank_makespan_ns (per round, each
 * rank's own makespan), samples.rank_imbalance, and per-rank statistics
 * (res->ranks, from the analysis). */
static int add_ranks_json(json_t *o, const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    const ompb__rank_figures *f = &res->ranks;
    if (f->ranks == 0)
        return 0;
    json_t *samples = json_object_get(o, "samples"), *per_round = json_array(),
           *stats = json_array();
    int bad = !samples || !per_round || !stats;
    for (size_t r = 0; r < f->rounds && !bad; r++) {
        json_t *row = json_array();
        bad |= !row;
        for (int k = 0; k < f->ranks && !bad; k++)
            bad |= json_array_append_new(row, json_integer((json_int_t)ompb__record_rank_makespan(rec, k, r)));
        bad |= json_array_append_new(per_round, row);
    }
    for (int k = 0; k < f->ranks && !bad; k++)
        bad |= json_array_append_new(stats, json_pack("{s:i, s:o, s:o}", "rank", k, "median_ns",
                                                      real(f->median_ns[k]), "mean_ns",
                                                      real(f->mean_ns[k])));
    bad |= set(samples, "rank_makespan_ns", per_round);
    bad |= set(samples, "rank_imbalance", real_array(f->imbalance, f->rounds));
    bad |= set(o, "rank_stats", stats);
    bad |= set(json_object_get(o, "stats"), "mean_rank_imbalance", real(f->mean_imbalance));
    return bad;
}

static json_t *stats_json(const ompb__result *res)
{
    ompb__stats shown;
    const ompb__stats *st = ompb__result_shown_stats(res, &shown);
    const struct { const char *key; double v; } reals[] = {
        {"min_ns", st->min}, {"max_ns", st->max}, {"mean_ns", st->mean},
        {"stdev_ns", st->stdev}, {"q1_ns", st->q1}, {"median_ns", st->median},
        {"q3_ns", st->q3}, {"ci95_low_ns", st->ci_low}, {"ci95_high_ns", st->ci_high},
        {"total_time_s", res->total_time_s}, {"mean_skew_ns", res->mean_skew_ns},
        {"mean_imbalance", res->mean_imbalance},
    };
    json_t *o = json_object();
    int bad = 0;
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        bad |= set(o, reals[i].key, real(reals[i].v));
    bad |= set(o, "iqr_outlier_rounds", json_integer((json_int_t)st->iqr_outliers));
    bad |= set(o, "stdev_outlier_rounds", json_integer((json_int_t)st->stdev_outliers));
    return checked(o, bad);
}

/* An application region's own fields (lib/regions/region_report.c). */
static json_t *region_json(const ompb__record *rec)
{
    const ompb__record_region *rg = rec->region;
    json_t *o = json_object(), *busy = json_array();
    int bad = set(o, "name", json_string(rg->name));
    bad |= set(o, "instances", json_integer((json_int_t)rg->instances));
    bad |= set(o, "kept", json_integer((json_int_t)rec->rounds));
    bad |= set(o, "kept_how", json_string(rg->sampled ? "uniform sample" : "all"));
    if (rg->sampled)
        bad |= set(o, "kept_instances", u64_array(rg->kept_index, rec->rounds, 1));
    bad |= set(o, "quantiles", json_string(rg->quantile_error > 0 ? "histogram" : "exact"));
    bad |= set(o, "quantile_max_relative_error", json_real(rg->quantile_error));
    for (int t = 0; t < rec->threads && busy; t++)
        bad |= json_array_append_new(busy, real(rg->mean_busy_ns[t]));
    bad |= set(o, "mean_busy_ns", busy);
    bad |= set(o, "shared_pu_instances", json_integer((json_int_t)rg->shared_pu));
    if (rg->shared_pu)
        bad |= set(o, "shared_pu_first", json_pack("{s:[i, i], s:i}", "threads",
                                                   rg->shared_pu_first[0],
                                                   rg->shared_pu_first[1], "pu",
                                                   rg->shared_pu_first[2]));
    bad |= set(o, "misuse_events", json_integer((json_int_t)rg->misuse));
    if (rg->phase_width > 0)
        bad |= set(o, "phase",
                   json_pack("{s:i, s:I, s:[i, i], s:[i, i], s:b}", "width", rg->phase_width,
                             "instances", (json_int_t)rg->phase_instances, "team_widths",
                             (int)rg->phase_lo, (int)rg->phase_hi, "runtime_widths",
                             (int)rg->phase_asked_lo, (int)rg->phase_asked_hi, "mixed",
                             (int)rg->phase_mixed));
    return checked(o, bad);
}

/* The codes of the marks (docs/json.md), in the table's order; [] when
 * none. */
static json_t *marks_json(unsigned marks)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; i < ompb__n_mark_rows && !bad; i++)
        if (marks & ompb__mark_rows[i].bit)
            bad |= json_array_append_new(a, json_string(ompb__mark_rows[i].code));
    return checked(a, bad);
}

/* A figure's value by its style; a value that does not exist is null. */
static json_t *figure_value(const ompb__figure *f)
{
    if (f->style == OMPB__STYLE_MARKS)
        return marks_json(isfinite(f->value) ? (unsigned)f->value : 0);
    if (!isfinite(f->value))
        return json_null();
    if (f->style == OMPB__STYLE_FLAG)
        return json_boolean(f->value != 0);
    if (f->style == OMPB__STYLE_INTEGER)
        return json_integer((json_int_t)f->value);
    return json_real(f->value);
}

/* The figures of l placed at `where` (OMPB__JSON_*), in their order, as
 * keys of o; where the place says so, one that does not exist is left out
 * rather than null. */
static int add_figures(json_t *o, const ompb__figures *l, int where)
{
    bool skip_missing = where == OMPB__JSON_ENTRY || where == OMPB__JSON_COUNTERS;
    int bad = 0;
    for (int i = 0; i < l->n; i++) {
        const ompb__figure *f = &l->f[i];
        if (f->place[OMPB__FORMAT_JSON] != where || (skip_missing && !isfinite(f->value)))
            continue;
        const char *key = where == OMPB__JSON_PER_ITERATION ? f->label
                          : f->json_key                     ? f->json_key
                                                            : f->key;
        bad |= set(o, key, figure_value(f));
    }
    return bad;
}

/* [[per thread] per round] of one per-cell array. */
static json_t *cell_rounds(const ompb__record *rec, const uint64_t *cells)
{
    json_t *rounds = json_array();
    int bad = !rounds;
    for (size_t r = 0; r < rec->rounds && !bad; r++)
        bad |= json_array_append_new(rounds, u64_array(cells + r * (size_t)rec->threads,
                                                       (size_t)rec->threads, 1));
    return checked(rounds, bad);
}

/* [[[per event] per thread] per round]: raw counts. */
static json_t *value_rounds(const ompb__record *rec)
{
    json_t *rounds = json_array();
    int bad = !rounds;
    size_t n = (size_t)rec->counters.n;
    for (size_t r = 0; r < rec->rounds && !bad; r++) {
        json_t *row = json_array();
        bad |= !row;
        for (size_t t = 0; t < (size_t)rec->threads && !bad; t++)
            bad |= json_array_append_new(
                row, u64_array(rec->counter_values + (r * (size_t)rec->threads + t) * n, n, 1));
        bad |= json_array_append_new(rounds, row);
    }
    return checked(rounds, bad);
}

/* "ompbench.counters": the events and their units, the counter figures,
 * then every raw value of every round (a region keeps sums, no rounds). */
static json_t *counters_json(const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    const ompb__counter_set *cs = &rec->counters;
    json_t *o = json_object(), *names = json_array(), *units = json_array();
    json_t *per = json_object();
    int bad = !names || !units || !per;
    for (int e = 0; e < cs->n && !bad; e++) {
        bad |= json_array_append_new(names, json_string(cs->ev[e].name));
        bad |= json_array_append_new(units, json_string(ompb__counter_unit_name(cs->ev[e].unit)));
    }
    bad |= add_figures(per, &res->figs, OMPB__JSON_PER_ITERATION);
    bad |= set(o, "events", names);
    bad |= set(o, "units", units);
    bad |= set(o, "per_iteration", per);
    bad |= add_figures(o, &res->figs, OMPB__JSON_COUNTERS);
    if (rec->region)
        return checked(o, bad);
    bad |= set(o, "values", value_rounds(rec));
    bad |= set(o, "time_enabled_ns", cell_rounds(rec, rec->counter_enabled_ns));
    bad |= set(o, "time_running_ns", cell_rounds(rec, rec->counter_running_ns));
    return checked(o, bad);
}

/* How the engine found the sample size: the target, the barrier estimate
 * the round floor came from, its retries and every calibration round kept. */
static json_t *calibration_json(const ompb__record *rec)
{
    json_t *o = json_object(), *steps = json_array();
    int bad = set(o, "round_target_ns", json_integer((json_int_t)rec->round_target_ns));
    bad |= set(o, "barrier_cost_ns", real(rec->barrier_cost_ns));
    bad |= set(o, "recalibrations", json_integer((json_int_t)rec->recalibrations));
    bad |= set(o, "disturbed", json_boolean(rec->calibration_disturbed));
    size_t n = rec->n_calib_steps < OMPB__CALIB_STEPS_MAX ? rec->n_calib_steps
                                                          : OMPB__CALIB_STEPS_MAX;
    for (size_t i = 0; i < n && steps; i++)
        bad |= json_array_append_new(steps, json_pack("{s:I, s:I}", "sample_size",
                                                      (json_int_t)rec->calib_steps[i].sample_size,
                                                      "busy_ns",
                                                      (json_int_t)rec->calib_steps[i].busy_ns));
    bad |= set(o, "steps", steps);
    return checked(o, bad);
}

json_t *ompb__json_code_location(const ompb__record *rec)
{
    if (!rec->code_object)
        return NULL;
    return json_pack("{s:s, s:I}", "object", rec->code_object, "address",
                     (json_int_t)rec->code_address);
}

/* "fairness" (report/fairness.h): per thread over the rounds; nothing for
 * a record without per-thread rounds. Returns nonzero on failure. */
static int fairness_json(json_t *o, const ompb__record *rec)
{
    ompb__fairness f;
    if (ompb__fairness_of(rec, &f) != 0)
        return -1;
    if (f.threads == 0)
        return 0;
    json_t *fo = json_object();
    int bad = set(fo, "busy_mean_ns", real_array(f.mean_ns, f.threads));
    bad |= set(fo, "busy_median_ns", real_array(f.median_ns, f.threads));
    bad |= set(fo, "busy_cv", real_array(f.cv, f.threads));
    bad |= set(fo, "slowest_share", real_array(f.slowest_share, f.threads));
    ompb__fairness_free(&f);
    return set(o, "fairness", checked(fo, bad));
}

static json_t *ompbench_json(const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    json_t *o = json_object();
    int bad = set(o, "uri", json_string(rec->inst->uri));
    bad |= set(o, "threads", json_integer(rec->threads));
    if (rec->ranks > 0) {
        bad |= set(o, "ranks", json_integer(rec->ranks));
        bad |= set(o, "threads_per_rank", json_integer(rec->threads));
    }
    bad |= set(o, "team", json_string(rec->caller_team ? "caller" : "harness"));
    /* Only a declared kind: readers infer the rest from the declared work. */
    if (rec->inst && rec->inst->bench && rec->inst->bench->scaling != OMPB_SCALING_AUTO)
        bad |= set(o, "scaling", json_string(rec->inst->bench->scaling == OMPB_SCALING_WEAK
                                             ? "weak" : "strong"));
    bad |= set(o, "mode", json_string(ompb__sampling_mode_name(rec->sampling.mode)));
    bad |= set(o, "process", json_integer((json_int_t)res->process));
    bad |= set(o, "sample_size", json_integer((json_int_t)rec->sample_size));
    bad |= set(o, "rounds", json_integer((json_int_t)rec->rounds));
    bad |= set(o, "warmup_rounds", json_integer((json_int_t)rec->warmup_rounds));
    bad |= set(o, "warmup_iters", json_integer((json_int_t)rec->warmup_iters));
    bad |= set(o, "calibration_rounds", json_integer((json_int_t)rec->calibration_rounds));
    if (!rec->region)
        bad |= set(o, "calibration", calibration_json(rec));
    bad |= add_figures(o, &res->figs, OMPB__JSON_OMPBENCH);
    if (rec->short_reason[0]) {
        bad |= set(o, "short_reason", json_string(rec->short_reason));
        /* What the short reason is short of (the console's legend says it). */
        bad |= set(o, "rounds_asked", json_integer((json_int_t)rec->sampling.rounds));
    }
    if (rec->accounting_off[0])
        bad |= set(o, "accounting_off", json_string(rec->accounting_off));
    /* Without one, comparisons say "code check: unknown". */
    json_t *code = ompb__json_code_location(rec);
    if (code)
        bad |= set(o, "code", code);
    bad |= set(o, "migrations", json_integer((json_int_t)rec->migrations));
    if (rec->involuntary_switches)
        bad |= set(o, "involuntary_switches",
                   u64_array(rec->involuntary_switches, (size_t)rec->threads, 1));
    if (!rec->caller_team)
        bad |= set(o, "nested_regions", json_integer((json_int_t)rec->nested_regions));
    json_t *pus = json_array();
    bad |= !pus;
    for (int t = 0; t < rec->threads && !bad; t++)
        bad |= json_array_append_new(pus, json_integer(rec->thread_pu ? rec->thread_pu[t] : -1));
    bad |= set(o, "pu_map", pus);
    if (rec->region)
        bad |= set(o, "region", region_json(rec));
    if (!rec->failed) {
        bad |= set(o, "stats", stats_json(res));
        bad |= set(o, "samples", samples_json(rec));
        if (!bad)
            bad |= fairness_json(o, rec);
        if (rec->counters.n > 0)
            bad |= set(o, "counters", counters_json(res));
        if (!bad)
            bad |= add_ranks_json(o, res);
    }
    return checked(o, bad);
}

/* The fields every Google Benchmark entry has, in its order; times by the
 * caller. index: the repetition of an iteration entry, or -1 for an
 * aggregate, for which Google Benchmark writes no repetition_index. */
static json_t *entry_base(const ompb__instance_result *ir, const char *name, long long index)
{
    const ompb__instance *inst = ir->inst;
    /* json_pack returns NULL on any failure, e.g. a name that is not UTF-8. */
    json_t *e = json_pack("{s:s, s:I, s:I, s:s, s:s, s:I}", "name", name, "family_index",
                          (json_int_t)inst->family_index, "per_family_instance_index",
                          (json_int_t)inst->family_instance, "run_name", inst->name, "run_type",
                          index < 0 ? "aggregate" : "iteration", "repetitions",
                          (json_int_t)ir->n_reps);
    int bad = index < 0 ? 0 : set(e, "repetition_index", json_integer((json_int_t)index));
    bad |= set(e, "threads", json_integer(ir->reps[0].rec.threads));
    bad |= set(e, "time_unit", json_string("ns"));
    return checked(e, bad);
}

/* One repetition, as Google Benchmark writes one: the same name for every
 * repetition, told apart by repetition_index. */
static json_t *iteration_entry(const ompb__instance_result *ir, size_t index)
{
    const ompb__result *res = &ir->reps[index];
    const ompb__record *rec = &res->rec;
    json_t *e = entry_base(ir, rec->inst->name, (long long)index);
    uint64_t measured = ompb__record_measurements(rec);
    int bad = set(e, "iterations", json_integer((json_int_t)(measured * rec->sample_size)));
    if (rec->failed) {
        bad |= set(e, "error_occurred", json_true());
        bad |= set(e, "error_message", json_string(rec->error));
        bad |= set(e, "real_time", json_real(0));
        bad |= set(e, "cpu_time", json_real(0));
    } else {
        /* real_time is Google Benchmark's: the mean over all iterations.
         * Rates are ours everywhere: at the median (lib/report/result.c). */
        bad |= set(e, "real_time", gbench_time(res->real_time_ns));
        bad |= set(e, "cpu_time", gbench_time(res->cpu_time_ns));
        if (res->bytes_per_second > 0)
            bad |= set(e, "bytes_per_second", real(res->bytes_per_second));
        if (res->items_per_second > 0)
            bad |= set(e, "items_per_second", real(res->items_per_second));
    }
    /* The figures placed on the entry (the user counters) as flat keys, as
     * Google Benchmark writes its counters: compare.py and other readers
     * see them there. */
    json_t *omp = ompbench_json(res);
    bad |= add_figures(e, &res->figs, OMPB__JSON_ENTRY);
    if (!rec->failed && omp)
        bad |= ompb__json_ucounter_rounds(omp, res);
    bad |= set(e, "ompbench", omp);
    return checked(e, bad);
}

/* iterations: the repetitions summarized, as Google Benchmark counts them;
 * with one repetition (aggregates over the rounds) the rounds. */
static json_t *aggregate_entry(const ompb__instance_result *ir, const char *agg, double value,
                               double cpu)
{
    char name[OMPB__NAME_MAX + 16];
    snprintf(name, sizeof name, "%s_%s", ir->inst->name, agg);
    json_t *e = entry_base(ir, name, -1);
    uint64_t count = ir->n_reps > 1 ? ir->n_reps : ompb__record_measurements(&ir->reps[0].rec);
    int bad = set(e, "aggregate_name", json_string(agg));
    /* As Google Benchmark 1.6+ writes it: the cv is a fraction, the others
     * times. */
    bad |= set(e, "aggregate_unit", json_string(strcmp(agg, "cv") == 0 ? "percentage" : "time"));
    bad |= set(e, "iterations", json_integer((json_int_t)count));
    bad |= set(e, "real_time", gbench_time(value));
    bad |= set(e, "cpu_time", gbench_time(cpu));
    /* The instance's marks: a reader of the aggregates alone sees them too. */
    json_t *o = json_object();
    bad |= add_figures(o, &ir->figs, OMPB__JSON_OMPBENCH);
    bad |= set(e, "ompbench", o);
    return checked(e, bad);
}

static int append_instance(json_t *list, const ompb__instance_result *ir)
{
    int bad = 0;
    for (size_t i = 0; i < ir->n_reps && !bad; i++)
        bad |= json_array_append_new(list, iteration_entry(ir, i));
    if (bad || ir->failure || ir->rounds == 0)
        return bad;
    bad |= json_array_append_new(list, aggregate_entry(ir, "mean", ir->agg_mean_ns, ir->agg_cpu_mean_ns));
    bad |= json_array_append_new(list, aggregate_entry(ir, "median", ir->agg_median_ns, ir->agg_cpu_median_ns));
    /* One value has no spread: no _stddev and _cv at all, rather than 0s
     * that read as a perfectly tight measurement. */
    if (ir->n_reps == 1 && ompb__result_one_value(&ir->reps[0]))
        return bad;
    bad |= json_array_append_new(list, aggregate_entry(ir, "stddev", ir->agg_stddev_ns, ir->agg_cpu_stddev_ns));
    bad |= json_array_append_new(list, aggregate_entry(ir, "cv", ir->agg_cv, ir->agg_cpu_cv));
    return bad;
}

static int render_json(FILE *out, const ompb__report *rep)
{
    const ompb__context *ctx = rep->ctx;
    json_t *list = json_array();
    int bad = !list;
    for (size_t i = 0; i < rep->n_instances && !bad; i++)
        bad |= append_instance(list, &rep->instances[i]);
    json_t *root = json_object();
    json_t *context = ctx                ? ompb__context_to_json(ctx)
                      : rep->context_json ? json_deep_copy(rep->context_json)
                                          : json_object();
    bad |= set(root, "context", context);
    bad |= set(root, "benchmarks", list);
    if (!bad)
        bad = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 || fputc('\n', out) == EOF;
    json_decref(root);
    return bad || ferror(out) ? OMPB_EIO : 0;
}

static int write_json(FILE *out, const ompb__report *given)
{
    ompb__report tmp;
    const ompb__report *rep = ompb__report_view(given, &tmp);
    int rc = rep ? render_json(out, rep) : OMPB_ENOMEM;
    if (rep)
        ompb__report_view_release(rep, &tmp);
    return rc;
}

const ompb__reporter ompb__reporter_json = {"json", write_json};
