/* SPDX-License-Identifier: MIT */
/*
 * Reading a result file back into the model lib/report/json.c writes it
 * from (docs/json.md): each iteration entry becomes an ompb__result whose
 * record holds what the file keeps of the run (rounds, per-thread bounds,
 * counters, accounting, ranks, the region) and whose figures are the
 * file's, never recomputed, so that the reporters render a read file as
 * the run rendered itself. One json_unpack format per object of the
 * schema checks types and presence at once; keys added after the first
 * files are optional, so older files read too. Aggregate entries are not
 * read: ompb__report_init_read makes them again from the repetitions.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/bench.h>
#include <ompbench/error.h>

#include "report/marks.h"

/* The most cells (rounds x threads) one record read from a file may have:
 * a 4096-thread team over 4096 rounds. */
#define READ_CELLS_MAX ((size_t)1 << 24)

/* What one read result owns beyond its record's arrays. */
typedef struct ompb__result_owned {
    ompb__instance inst;
    ompb_benchmark bench;
    ompb__record_region region;
    char *region_name;
    uint64_t *kept_index;
    double *mean_busy_ns;
    double *user_rounds;
} owned_t;

/* Where the reader is, for messages: "FILE: benchmarks[3].ompbench.stats". */
typedef struct where {
    const char *label;
    size_t index;
    ompb_error *err;
} where;

static int fail(const where *w, const char *part, const char *what)
{
    return ompb__error_set(w->err, OMPB_EINVAL, "%s: benchmarks[%zu]%s%s: %s (accepted: the "
                           "JSON of an ompbench or Google Benchmark run, docs/json.md)",
                           w->label, w->index, part[0] ? "." : "", part, what);
}

static int unpack_fail(const where *w, const char *part, const json_error_t *je)
{
    return fail(w, part, je->text);
}

/* A number that may be null: NAN for null or absent. */
static int nullable(const json_t *v, double *out)
{
    if (!v || json_is_null(v)) {
        *out = NAN;
        return 0;
    }
    if (!json_is_number(v))
        return -1;
    *out = json_number_value(v);
    return 0;
}

/* rows x cols non-negative integers ([rows] when cols is 0) into out
 * (row-major); null cells become `null_as`. */
static int u64_table(const json_t *a, size_t rows, size_t cols, uint64_t *out, uint64_t null_as)
{
    if (!json_is_array(a) || json_array_size(a) != rows)
        return -1;
    for (size_t r = 0; r < rows; r++) {
        const json_t *row = json_array_get(a, r);
        size_t n = cols ? cols : 1;
        if (cols && (!json_is_array(row) || json_array_size(row) != cols))
            return -1;
        for (size_t c = 0; c < n; c++) {
            const json_t *v = cols ? json_array_get(row, c) : row;
            if (json_is_null(v) && null_as)
                out[r * n + c] = null_as;
            else if (json_is_integer(v) && json_integer_value(v) >= 0)
                out[r * n + c] = (uint64_t)json_integer_value(v);
            else
                return -1;
        }
    }
    return 0;
}

static int read_stats(const where *w, const json_t *o, ompb__result *res)
{
    json_t *v[12] = {NULL};
    json_int_t iqr = 0, sdo = 0;
    json_error_t je;
    if (json_unpack_ex((json_t *)o, &je, 0,
                       "{s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?I, s?I}",
                       "min_ns", &v[0], "max_ns", &v[1], "mean_ns", &v[2], "stdev_ns", &v[3],
                       "q1_ns", &v[4], "median_ns", &v[5], "q3_ns", &v[6], "ci95_low_ns", &v[7],
                       "ci95_high_ns", &v[8], "total_time_s", &v[9], "mean_skew_ns", &v[10],
                       "mean_imbalance", &v[11], "iqr_outlier_rounds", &iqr,
                       "stdev_outlier_rounds", &sdo) != 0)
        return unpack_fail(w, "ompbench.stats", &je);
    ompb__stats *st = &res->stats;
    double *dst[12] = {&st->min, &st->max, &st->mean, &st->stdev, &st->q1, &st->median,
                       &st->q3, &st->ci_low, &st->ci_high, &res->total_time_s,
                       &res->mean_skew_ns, &res->mean_imbalance};
    for (size_t i = 0; i < 12; i++)
        if (nullable(v[i], dst[i]) != 0)
            return fail(w, "ompbench.stats", "a figure is not a number or null");
    st->n = res->rec.rounds;
    st->iqr_outliers = (size_t)iqr;
    st->stdev_outliers = (size_t)sdo;
    return 0;
}

/* Each thread's start from the team's first, so the record's bounds give
 * the file's skews again. */
static int read_samples(const where *w, const json_t *o, ompb__record *rec)
{
    json_t *span = NULL, *busy = NULL, *offset = NULL, *away = NULL, *pre = NULL,
           *ranks = NULL;
    json_error_t je;
    if (json_unpack_ex((json_t *)o, &je, 0, "{s:o, s?o, s?o, s?o, s?o, s?o}", "makespan_ns",
                       &span, "busy_ns", &busy, "start_offset_ns", &offset, "away_ns", &away,
                       "preemptions", &pre, "rank_makespan_ns", &ranks) != 0)
        return unpack_fail(w, "ompbench.samples", &je);
    size_t R = rec->rounds, T = (size_t)ompb__record_timed_threads(rec);
    if (u64_table(span, R, 0, rec->end_ns, 0) != 0)
        return fail(w, "ompbench.samples.makespan_ns", "not one integer per round");
    if ((busy && u64_table(busy, R, T, rec->busy_ns, 0) != 0) ||
        (offset && u64_table(offset, R, T, rec->thread_start_ns, 0) != 0))
        return fail(w, "ompbench.samples", "busy_ns or start_offset_ns is not one integer "
                    "per round and thread");
    if (away) {
        if (ompb__record_alloc_accounting(rec, R) != 0)
            return OMPB_ENOMEM;
        if (u64_table(away, R, (size_t)rec->threads, rec->away_ns, OMPB__AWAY_UNKNOWN) != 0 ||
            u64_table(pre, R, (size_t)rec->threads, rec->preemptions, 0) != 0)
            return fail(w, "ompbench.samples", "away_ns or preemptions is not one value per "
                        "round and thread");
    }
    if (ranks && rec->ranks > 0) {
        size_t K = (size_t)rec->ranks;
        if (R > READ_CELLS_MAX / K)
            return fail(w, "ompbench.ranks", "more rounds x ranks than ompbench reads");
        uint64_t *span_k = malloc((R ? R : 1) * K * sizeof *span_k);
        rec->rank_bounds = calloc((R ? R : 1) * K * 2, sizeof *rec->rank_bounds);
        if (!span_k || !rec->rank_bounds) {
            free(span_k);
            return OMPB_ENOMEM;
        }
        int rc = u64_table(ranks, R, K, span_k, 0);
        for (size_t r = 0; rc == 0 && r < R; r++)
            for (size_t k = 0; k < K; k++)
                rec->rank_bounds[(k * R + r) * 2 + 1] = (int64_t)span_k[r * K + k];
        free(span_k);
        if (rc != 0)
            return fail(w, "ompbench.samples.rank_makespan_ns", "not one integer per round "
                        "and rank");
    }
    return 0;
}

static int read_calibration(const where *w, const json_t *o, ompb__record *rec)
{
    json_int_t target = 0, recal = 0;
    json_t *barrier = NULL, *steps = NULL;
    int disturbed = 0;
    json_error_t je;
    if (json_unpack_ex((json_t *)o, &je, 0, "{s?I, s?o, s?I, s?b, s?o}", "round_target_ns",
                       &target, "barrier_cost_ns", &barrier, "recalibrations", &recal,
                       "disturbed", &disturbed, "steps", &steps) != 0)
        return unpack_fail(w, "ompbench.calibration", &je);
    rec->round_target_ns = (uint64_t)target;
    rec->recalibrations = (uint64_t)recal;
    rec->calibration_disturbed = disturbed;
    if (nullable(barrier, &rec->barrier_cost_ns) != 0)
        return fail(w, "ompbench.calibration.barrier_cost_ns", "not a number");
    for (size_t i = 0; i < json_array_size(steps) && i < OMPB__CALIB_STEPS_MAX; i++) {
        json_int_t size, busy;
        if (json_unpack_ex(json_array_get(steps, i), &je, 0, "{s:I, s:I}", "sample_size",
                           &size, "busy_ns", &busy) != 0)
            return unpack_fail(w, "ompbench.calibration.steps", &je);
        rec->calib_steps[i] = (ompb__calib_step){(uint64_t)size, (uint64_t)busy};
        rec->n_calib_steps = i + 1;
    }
    return 0;
}

static int read_region(const where *w, const json_t *o, ompb__result *res, owned_t *own)
{
    ompb__record_region *rg = &own->region;
    const char *name, *how = "all", *quantiles = "exact";
    json_t *kept = NULL, *busy = NULL, *first = NULL, *phase = NULL;
    json_int_t instances, shared = 0, misuse = 0;
    double qerr = 0;
    json_error_t je;
    if (json_unpack_ex((json_t *)o, &je, 0,
                       "{s:s, s:I, s?s, s?o, s?s, s?F, s?o, s?I, s?o, s?I, s?o}", "name", &name,
                       "instances", &instances, "kept_how", &how, "kept_instances", &kept,
                       "quantiles", &quantiles, "quantile_max_relative_error", &qerr,
                       "mean_busy_ns", &busy, "shared_pu_instances", &shared, "shared_pu_first",
                       &first, "misuse_events", &misuse, "phase", &phase) != 0)
        return unpack_fail(w, "ompbench.region", &je);
    json_int_t phase_instances = 0;
    int mixed = 0, widths[4] = {0};
    if (phase && json_unpack_ex(phase, &je, 0, "{s:i, s:I, s:[ii], s:[ii], s:b}", "width",
                                &rg->phase_width, "instances", &phase_instances, "team_widths",
                                &widths[0], &widths[1], "runtime_widths", &widths[2],
                                &widths[3], "mixed", &mixed) != 0)
        return unpack_fail(w, "ompbench.region.phase", &je);
    rg->phase_instances = (uint64_t)phase_instances;
    rg->phase_lo = (unsigned)widths[0];
    rg->phase_hi = (unsigned)widths[1];
    rg->phase_asked_lo = (unsigned)widths[2];
    rg->phase_asked_hi = (unsigned)widths[3];
    rg->phase_mixed = mixed;
    if (first && json_unpack_ex(first, &je, 0, "{s:[ii], s:i}", "threads",
                                &rg->shared_pu_first[0], &rg->shared_pu_first[1], "pu",
                                &rg->shared_pu_first[2]) != 0)
        return unpack_fail(w, "ompbench.region.shared_pu_first", &je);
    size_t R = res->rec.rounds, T = (size_t)res->rec.threads;
    own->region_name = strdup(name);
    own->kept_index = calloc(R ? R : 1, sizeof *own->kept_index);
    own->mean_busy_ns = calloc(T ? T : 1, sizeof *own->mean_busy_ns);
    if (!own->region_name || !own->kept_index || !own->mean_busy_ns)
        return OMPB_ENOMEM;
    rg->sampled = strcmp(how, "uniform sample") == 0;
    if (rg->sampled && u64_table(kept, R, 0, own->kept_index, 0) != 0)
        return fail(w, "ompbench.region.kept_instances", "not one integer per kept instance");
    for (size_t t = 0; t < T; t++)
        if (nullable(json_array_get(busy, t), &own->mean_busy_ns[t]) != 0)
            return fail(w, "ompbench.region.mean_busy_ns", "not a number per thread");
    rg->name = own->region_name;
    rg->instances = (uint64_t)instances;
    rg->kept_index = own->kept_index;
    rg->quantile_error = qerr;
    rg->mean_busy_ns = own->mean_busy_ns;
    rg->shared_pu = (uint64_t)shared;
    rg->misuse = (uint64_t)misuse;
    res->rec.region = rg;
    (void)quantiles; /* said by quantile_error */
    return 0;
}

/* "ompbench.counters": the events, their figures as the file has them,
 * and the raw values of each round. */
static int read_counters(const where *w, const json_t *o, ompb__result *res)
{
    ompb__record *rec = &res->rec;
    json_t *events, *units = NULL, *per = NULL, *values = NULL, *en = NULL, *run = NULL;
    int mux = 0;
    json_int_t switch_rounds = 0;
    json_error_t je;
    if (json_unpack_ex((json_t *)o, &je, 0, "{s:o, s?o, s?o, s?b, s?I, s?o, s?o, s?o}", "events",
                       &events, "units", &units, "per_iteration", &per, "multiplexed", &mux,
                       "rounds_with_switches", &switch_rounds, "values", &values,
                       "time_enabled_ns", &en, "time_running_ns", &run) != 0)
        return unpack_fail(w, "ompbench.counters", &je);
    size_t n = json_array_size(events);
    if (n > OMPB__MAX_COUNTERS)
        return fail(w, "ompbench.counters.events", "more events than ompbench counts");
    double figures[OMPB__MAX_COUNTERS];
    ompb__counter_set *set = &rec->counters;
    for (size_t e = 0; e < n; e++) {
        const char *name = json_string_value(json_array_get(events, e));
        const char *unit = json_string_value(json_array_get(units, e));
        if (!name || strlen(name) >= sizeof set->ev[0].name)
            return fail(w, "ompbench.counters.events", "not an array of event names");
        snprintf(set->ev[e].name, sizeof set->ev[e].name, "%s", name);
        set->ev[e].unit = unit && strcmp(unit, "ns") == 0 ? OMPB__COUNTER_NS
                                                          : OMPB__COUNTER_COUNT;
        if (nullable(json_object_get(per, name), &figures[e]) != 0)
            return fail(w, "ompbench.counters.per_iteration", "not a number or null");
    }
    set->n = (int)n;
    ompb__counter_figures_set(&res->counts, set, figures, mux);
    res->counts.rounds_with_switches = (size_t)switch_rounds;
    if (rec->region)
        return 0;
    size_t cells = rec->rounds * (size_t)rec->threads;
    rec->counter_values = calloc(cells * n + 1, sizeof *rec->counter_values);
    rec->counter_enabled_ns = calloc(cells + 1, sizeof *rec->counter_enabled_ns);
    rec->counter_running_ns = calloc(cells + 1, sizeof *rec->counter_running_ns);
    if (!rec->counter_values || !rec->counter_enabled_ns || !rec->counter_running_ns)
        return OMPB_ENOMEM;
    if (!values) /* an older file: no raw values (the writer puts zeros) */
        return 0;
    for (size_t r = 0; r < rec->rounds; r++)
        if (u64_table(json_array_get(values, r), (size_t)rec->threads, n,
                      rec->counter_values + r * (size_t)rec->threads * n, 0) != 0)
            return fail(w, "ompbench.counters.values", "not a count per round, thread and "
                        "event");
    if (u64_table(en, rec->rounds, (size_t)rec->threads, rec->counter_enabled_ns, 0) != 0 ||
        u64_table(run, rec->rounds, (size_t)rec->threads, rec->counter_running_ns, 0) != 0)
        return fail(w, "ompbench.counters", "time_enabled_ns or time_running_ns is not one "
                    "integer per round and thread");
    return 0;
}

/* "ompbench.user_counters" ({name: {flags, rounds}}) and the figures the
 * entry has under each name. */
static int read_user(const where *w, const json_t *o, const json_t *entry, ompb__result *res,
                     owned_t *own)
{
    ompb__record *rec = &res->rec;
    ompb__ucounter_table *tab = &rec->ucounters;
    size_t R = rec->rounds;
    if (R > READ_CELLS_MAX / OMPB__UCOUNTERS_MAX)
        return fail(w, "ompbench.user_counters", "more rounds than ompbench reads");
    own->user_rounds = calloc((R ? R : 1) * OMPB__UCOUNTERS_MAX, sizeof *own->user_rounds);
    if (!own->user_rounds)
        return OMPB_ENOMEM;
    const char *name;
    json_t *u;
    json_object_foreach((json_t *)o, name, u) {
        json_t *flags, *rounds;
        json_error_t je;
        if (tab->n >= OMPB__UCOUNTERS_MAX || strlen(name) >= OMPB__UCOUNTER_NAME_MAX)
            return fail(w, "ompbench.user_counters", "too many names, or one too long");
        if (json_unpack_ex(u, &je, 0, "{s:o, s:o}", "flags", &flags, "rounds", &rounds) != 0)
            return unpack_fail(w, "ompbench.user_counters", &je);
        int k = tab->n++;
        snprintf(tab->name[k], OMPB__UCOUNTER_NAME_MAX, "%s", name);
        for (size_t i = 0; i < json_array_size(flags); i++) {
            unsigned bit;
            const char *word = json_string_value(json_array_get(flags, i));
            if (!word || !ompb__ucounter_flag_of_word(word, &bit))
                return fail(w, "ompbench.user_counters", "a flag is not one ompbench writes");
            tab->flags[k] |= bit;
        }
        for (size_t r = 0; r < R && !rec->region; r++)
            if (nullable(json_array_get(rounds, r), &own->user_rounds[r * OMPB__UCOUNTERS_MAX + k]))
                return fail(w, "ompbench.user_counters", "a round's figure is not a number");
        if (nullable(json_object_get(entry, name), &res->user[k]) != 0)
            return fail(w, name, "a user counter's figure is not a number");
    }
    res->user_rounds = own->user_rounds;
    return 0;
}

static int read_mode(const char *word, ompb__sampling_mode *mode)
{
    static const ompb__sampling_mode modes[] = {OMPB__SAMPLING_MEASURE, OMPB__SAMPLING_TEST,
                                                OMPB__SAMPLING_SIMULATE, OMPB__SAMPLING_REGION};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(word, ompb__sampling_mode_name(modes[i])) == 0) {
            *mode = modes[i];
            return 0;
        }
    return -1;
}

/* The clean rounds' figures of an accounted repetition. */
static int read_clean(const where *w, const json_t *omp, ompb__result *res)
{
    json_t *share = NULL, *median = NULL, *low = NULL, *high = NULL;
    json_int_t rounds = 0;
    json_error_t je;
    if (json_unpack_ex((json_t *)omp, &je, 0, "{s?o, s?I, s?o, s?o, s?o}", "clean_share",
                       &share, "clean_rounds", &rounds, "clean_median_ns", &median,
                       "clean_ci95_low_ns", &low, "clean_ci95_high_ns", &high) != 0)
        return unpack_fail(w, "ompbench", &je);
    res->accounted = share != NULL;
    res->clean_rounds = (size_t)rounds;
    res->clean_stats.n = (size_t)rounds;
    if (nullable(median, &res->clean_stats.median) || nullable(low, &res->clean_stats.ci_low) ||
        nullable(high, &res->clean_stats.ci_high))
        return fail(w, "ompbench", "a clean figure is not a number or null");
    return 0;
}

/* The record's arrays, then "ompbench"'s objects in the order of its keys. */
static int read_parts(const where *w, const json_t *omp, const json_t *entry, ompb__result *res,
                      owned_t *own, json_t *const parts[7], json_t *pus, json_t *switches)
{
    ompb__record *rec = &res->rec;
    json_t *calibration = parts[0], *region = parts[1], *stats = parts[2], *samples = parts[3],
           *counters = parts[4], *user = parts[5], *code = parts[6], *span = NULL;
    /* Sized before anything is allocated: the arrays a file makes us hold
     * are as many as it has values, within what a run can record. */
    if (samples)
        (void)json_unpack(samples, "{s?o}", "makespan_ns", &span);
    if (span && json_array_size(span) != rec->rounds)
        return fail(w, "ompbench.rounds", "not the number of samples.makespan_ns values");
    if (rec->rounds > READ_CELLS_MAX / (size_t)rec->threads)
        return fail(w, "ompbench.rounds", "more rounds x threads than ompbench reads");
    if (ompb__record_alloc(rec, rec->rounds, rec->threads) != 0)
        return OMPB_ENOMEM;
    free(rec->ucounter_values);
    rec->ucounter_values = NULL;
    if (!switches) {
        free(rec->involuntary_switches);
        rec->involuntary_switches = NULL;
    } else if (u64_table(switches, (size_t)rec->threads, 0, rec->involuntary_switches, 0) != 0)
        return fail(w, "ompbench.involuntary_switches", "not one integer per thread");
    for (int t = 0; t < rec->threads; t++) {
        const json_t *pu = json_array_get(pus, (size_t)t);
        rec->thread_pu[t] = json_is_integer(pu) ? (int)json_integer_value(pu) : -1;
    }
    int rc = 0;
    if (calibration)
        rc = read_calibration(w, calibration, rec);
    if (!rc && region)
        rc = read_region(w, region, res, own);
    if (!rc && stats)
        rc = read_stats(w, stats, res);
    if (!rc && samples)
        rc = read_samples(w, samples, rec);
    if (!rc && counters)
        rc = read_counters(w, counters, res);
    if (!rc && user)
        rc = read_user(w, user, entry, res, own);
    if (!rc && code) {
        const char *object;
        json_int_t address;
        json_error_t je;
        if (json_unpack_ex(code, &je, 0, "{s:s, s:I}", "object", &object, "address", &address))
            return unpack_fail(w, "ompbench.code", &je);
        if (!(rec->code_object = strdup(object)))
            return OMPB_ENOMEM;
        rec->code_address = (uint64_t)address;
    }
    if (!rc)
        rc = read_clean(w, omp, res);
    if (!rc && ompb__marks_of_json(json_object_get(omp, "marks"), &res->marks) != 0)
        return fail(w, "ompbench.marks", "not an array of mark codes");
    if (!rc && nullable(json_object_get(omp, "cpu_share"), &res->cpu_share) != 0)
        return fail(w, "ompbench.cpu_share", "not a number or null");
    return rc;
}

/* The "ompbench" object of an iteration entry. */
static int read_ompbench(const where *w, const json_t *omp, const json_t *entry,
                         ompb__result *res, owned_t *own)
{
    ompb__record *rec = &res->rec;
    const char *uri = "", *team = "harness", *mode = "measure", *scaling = NULL;
    const char *reason = "", *acc_off = "";
    json_int_t threads = 1, ranks = 0, process = 0, size = 0, rounds = 0, asked = -1,
               wr = 0, wi = 0, cr = 0, migrations = 0, nested = 0;
    json_t *parts[7] = {NULL}, *pus = NULL, *switches = NULL;
    json_error_t je;
    if (json_unpack_ex((json_t *)omp, &je, 0,
                       "{s?s, s?I, s?I, s?s, s?s, s?s, s?I, s?I, s?I, s?I, s?I, s?I, s?I, s?s, "
                       "s?s, s?I, s?I, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o}",
                       "uri", &uri, "threads", &threads, "ranks", &ranks, "team", &team,
                       "scaling", &scaling, "mode", &mode, "process", &process, "sample_size",
                       &size, "rounds", &rounds, "rounds_asked", &asked, "warmup_rounds", &wr,
                       "warmup_iters", &wi, "calibration_rounds", &cr, "short_reason", &reason,
                       "accounting_off", &acc_off, "migrations", &migrations, "nested_regions",
                       &nested, "pu_map", &pus, "involuntary_switches", &switches,
                       "calibration", &parts[0], "region", &parts[1], "stats", &parts[2],
                       "samples", &parts[3], "counters", &parts[4], "user_counters", &parts[5],
                       "code", &parts[6]) != 0)
        return unpack_fail(w, "ompbench", &je);
    if (threads < 1 || threads > OMPB__MAX_THREADS || ranks < 0 || rounds < 0 || size < 0)
        return fail(w, "ompbench", "threads, ranks, rounds or sample_size out of range");
    if (read_mode(mode, &rec->sampling.mode) != 0)
        return fail(w, "ompbench.mode", "not measure, test, simulate or region");
    snprintf(own->inst.uri, sizeof own->inst.uri, "%s", uri);
    own->bench.scaling = !scaling                       ? OMPB_SCALING_AUTO
                         : strcmp(scaling, "weak") == 0 ? OMPB_SCALING_WEAK
                                                        : OMPB_SCALING_STRONG;
    rec->threads = (int)threads;
    rec->ranks = (int)ranks;
    rec->caller_team = strcmp(team, "caller") == 0;
    res->process = (uint32_t)process;
    rec->sample_size = (uint64_t)size;
    rec->rounds = (size_t)rounds;
    rec->sampling.rounds = asked >= 0 ? (uint64_t)asked : (uint64_t)rounds;
    rec->warmup_rounds = (uint64_t)wr;
    rec->warmup_iters = (uint64_t)wi;
    rec->calibration_rounds = (uint64_t)cr;
    snprintf(rec->short_reason, sizeof rec->short_reason, "%s", reason);
    snprintf(rec->accounting_off, sizeof rec->accounting_off, "%s", acc_off);
    rec->migrations = (uint64_t)migrations;
    rec->nested_regions = (uint64_t)nested;
    return read_parts(w, omp, entry, res, own, parts, pus, switches);
}

/* A rate the entry has, 0 when it has none (as the run leaves it). */
static int rate(const json_t *v, double *out)
{
    if (nullable(v, out) != 0)
        return -1;
    *out = v ? *out : 0;
    return 0;
}

/* Google Benchmark's entry: one round of its iterations, whose mean time
 * per iteration (real_time, in its time_unit) is every statistic it has. */
static int read_gbench(const json_t *e, ompb__result *res)
{
    static const struct { const char *unit; double ns; } units[] = {
        {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    ompb__record *rec = &res->rec;
    const char *unit = json_string_value(json_object_get(e, "time_unit"));
    double scale = 1, real = res->real_time_ns;
    for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].unit) == 0)
            scale = units[i].ns;
    const json_t *threads = json_object_get(e, "threads"), *iters = json_object_get(e, "iterations");
    json_int_t T = json_is_integer(threads) ? json_integer_value(threads) : 1;
    json_int_t n = json_is_integer(iters) ? json_integer_value(iters) : 1;
    rec->threads = T > 0 && T <= OMPB__MAX_THREADS ? (int)T : 1;
    rec->sample_size = n > 0 ? (uint64_t)n : 1;
    rec->rounds = rec->failed ? 0 : 1;
    res->real_time_ns = real * scale;
    res->cpu_time_ns *= scale;
    if (ompb__record_alloc(rec, rec->rounds, rec->threads) != 0)
        return OMPB_ENOMEM;
    free(rec->involuntary_switches);
    rec->involuntary_switches = NULL;
    if (rec->rounds)
        rec->end_ns[0] = (uint64_t)llround(res->real_time_ns * (double)rec->sample_size);
    if (ompb__stats_compute(&res->real_time_ns, rec->rounds, &res->stats) != 0)
        return OMPB_ENOMEM;
    res->stats.stdev = NAN;
    res->total_time_s = res->real_time_ns * (double)rec->sample_size * 1e-9;
    res->mean_skew_ns = res->mean_imbalance = NAN;
    return 0;
}

/* One iteration entry. Its instance is the previous entry's when it is the
 * next repetition of the same name. */
static int read_entry(const where *w, const json_t *e, ompb__result *res, owned_t *own,
                      const ompb__instance *prev)
{
    const char *name, *run_type = "iteration", *msg = "";
    json_int_t fam = 0, fi = 0, reps = 1, index = 0, threads = 1;
    int failed = 0;
    double real = 0, cpu = 0;
    json_t *bps = NULL, *ips = NULL, *omp = NULL;
    json_error_t je;
    if (json_unpack_ex((json_t *)e, &je, 0,
                       "{s:s, s?s, s?I, s?I, s?I, s?I, s?I, s?b, s?s, s?F, s?F, s?o, s?o, s?o}",
                       "name", &name, "run_type", &run_type, "family_index", &fam,
                       "per_family_instance_index", &fi, "repetitions", &reps,
                       "repetition_index", &index, "threads", &threads, "error_occurred", &failed,
                       "error_message", &msg, "real_time", &real, "cpu_time", &cpu,
                       "bytes_per_second", &bps, "items_per_second", &ips, "ompbench", &omp) != 0)
        return unpack_fail(w, "", &je);
    memset(res, 0, sizeof *res);
    ompb__record *rec = &res->rec;
    snprintf(own->inst.name, sizeof own->inst.name, "%s", name);
    own->inst.family_index = (size_t)fam;
    own->inst.family_instance = (size_t)fi;
    own->inst.bench = &own->bench;
    own->bench.name = own->inst.name;
    rec->failed = failed;
    snprintf(rec->error, sizeof rec->error, "%s", msg);
    rec->sampling.repetitions = reps > 0 ? (uint32_t)reps : 1;
    rec->sampling.repetition = index >= 0 ? (uint32_t)index : 0;
    res->real_time_ns = real;
    res->cpu_time_ns = cpu;
    res->cpu_share = NAN;
    for (int k = 0; k < OMPB__MAX_COUNTERS; k++)
        res->counts.per_iter[k] = NAN;
    res->counts.ipc = res->counts.cache_miss_ratio = res->counts.branch_miss_ratio = NAN;
    if (rate(bps, &res->bytes_per_second) != 0 || rate(ips, &res->items_per_second) != 0)
        return fail(w, "", "bytes_per_second or items_per_second is not a number");
    int rc;
    if (omp) {
        rc = read_ompbench(w, omp, e, res, own);
    } else {
        rc = read_gbench(e, res);
    }
    if (rc)
        return rc;
    own->inst.threads = rec->threads;
    rec->inst = &own->inst;
    if (prev && index > 0 && strcmp(prev->name, own->inst.name) == 0 &&
        strcmp(prev->uri, own->inst.uri) == 0)
        rec->inst = prev;
    /* The rates' work per iteration: the rates are at the median. */
    if (res->stats.median > 0) {
        rec->bytes_per_iter = (uint64_t)llround(res->bytes_per_second * res->stats.median / 1e9);
        rec->items_per_iter = (uint64_t)llround(res->items_per_second * res->stats.median / 1e9);
    }
    res->counts.switches_measured = rec->involuntary_switches && !rec->failed && rec->rounds;
    for (int t = 0; res->counts.switches_measured && t < rec->threads; t++)
        res->counts.involuntary_switches += rec->involuntary_switches[t];
    return 0;
}

static bool is_iteration(const json_t *e)
{
    const char *type = json_string_value(json_object_get(e, "run_type"));
    return !type || strcmp(type, "iteration") == 0;
}

int ompb__result_file_read(ompb__result_file *f, const json_t *root, const char *label,
                           ompb_error *err)
{
    memset(f, 0, sizeof *f);
    json_t *list = NULL, *ctx = NULL;
    json_error_t je;
    if (json_unpack_ex((json_t *)root, &je, 0, "{s:o, s?o}", "benchmarks", &list, "context",
                       &ctx) != 0 || !json_is_array(list) || (ctx && !json_is_object(ctx)))
        return ompb__error_set(err, OMPB_EINVAL, "%s: not a result file (accepted: the JSON "
                               "of an ompbench or Google Benchmark run, an object with a "
                               "\"benchmarks\" array and an optional \"context\" object)",
                               label);
    size_t n = json_array_size(list);
    f->results = calloc(n ? n : 1, sizeof *f->results);
    f->owned = calloc(n ? n : 1, sizeof *f->owned);
    if (!f->results || !f->owned)
        return ompb__result_file_release(f), OMPB_ENOMEM;
    f->context = json_incref(ctx);
    const ompb__instance *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(list, i);
        where w = {label, i, err};
        if (!json_is_object(e)) {
            ompb__result_file_release(f);
            return fail(&w, "", "not an object");
        }
        if (!is_iteration(e)) {
            prev = NULL;
            continue;
        }
        int rc = read_entry(&w, e, &f->results[f->n], &f->owned[f->n], prev);
        /* Counted even when it failed, so that release frees its arrays. */
        prev = f->results[f->n++].rec.inst;
        if (rc) {
            if (rc == OMPB_ENOMEM)
                ompb__error_set(err, rc, "%s: out of memory", label);
            ompb__result_file_release(f);
            return rc;
        }
    }
    return 0;
}

void ompb__result_file_release(ompb__result_file *f)
{
    for (size_t i = 0; f->results && i < f->n; i++) {
        ompb__record_free(&f->results[i].rec);
        free(f->owned[i].region_name);
        free(f->owned[i].kept_index);
        free(f->owned[i].mean_busy_ns);
        free(f->owned[i].user_rounds);
    }
    free(f->results);
    free(f->owned);
    json_decref(f->context);
    memset(f, 0, sizeof *f);
}

int ompb__result_file_report(const ompb__result_file *f, ompb__report *rep)
{
    int rc = ompb__report_init_read(rep, f->results, f->n);
    if (rc == 0)
        rep->context_json = f->context;
    return rc;
}
