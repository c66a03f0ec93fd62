/* SPDX-License-Identifier: MIT */
/*
 * Runs reported only by aggregates (--benchmark_report_aggregates_only),
 * the second half of the result-file reader (resultfile.c reads the
 * iteration entries first; analysis/resultfile_read.h holds what both
 * share): the median stands for a run, else the mean, and the mean and
 * standard deviation over its repetitions give its spread.
 */
#include "analysis/resultfile_read.h"

#include <stdbool.h>
#include <string.h>

#include "analysis/nameindex.h"

/* The keys of an aggregate entry that this file reads (docs/json.md);
 * the others (real_time, time_unit, threads, error_message) are read by
 * the helpers of resultfile_read.c. */
typedef struct aggregate {
    const char *agg, *run;            /* "aggregate_name", "run_name" */
    json_t *name, *error, *reps;      /* NULL when absent */
} aggregate;

/* False when e is not an entry of run_type "aggregate" with string
 * aggregate_name and run_name; then a's fields may be set or not. */
static bool unpack_aggregate(const json_t *e, aggregate *a)
{
    const char *rt = NULL;
    memset(a, 0, sizeof *a);
    return json_unpack((json_t *)e, "{s:s, s:s, s:s, s?o, s?o, s?o}", "run_type", &rt,
                       "aggregate_name", &a->agg, "run_name", &a->run, "name", &a->name,
                       "error_occurred", &a->error, "repetitions", &a->reps) == 0 &&
           strcmp(rt, "aggregate") == 0;
}

/* Whether the entry is of the wanted kind ("median", "mean") and nothing
 * else stands for its run yet. */
static bool stands_for_run(const json_t *e, const char *kind, const ompb__resultfile *rf,
                           aggregate *a)
{
    return unpack_aggregate(e, a) && strcmp(a->agg, kind) == 0 && a->run[0] &&
           !ompb__resultfile_find(rf, a->run);
}

static int read_aggregate(const json_t *e, const entry_ref *ref, const aggregate *a,
                          const char *kind, ompb__resultfile *rf, ompb_error *err)
{
    ompb__rf_instance *in;
    int rc = ompb__rf_new_instance(rf, a->run, &in);
    if (rc || (rc = ompb__rf_read_threads(e, NULL, ref, &in->threads, err)))
        return rc;
    in->aggregate = kind;
    if (json_is_true(a->error))
        return ompb__rf_read_failure(e, in);
    return ompb__rf_read_real_time(e, ref, &in->value_ns, err);
}

/* The "mean" and "stddev" aggregate entries of a file by run name (the
 * first of each), so that finding a run's spread is one lookup, not a scan
 * of every entry per run (100,000 runs took hours). Keys borrowed from the
 * file's JSON, which outlives the index. */
typedef struct spread_index {
    const json_t *benchmarks;
    const char *label;
    ompb__name_index by_kind[2];    /* mean, stddev */
} spread_index;

static const char *const spread_kinds[] = {"mean", "stddev"};

static int index_spreads(spread_index *ix)
{
    size_t i;
    const json_t *e;
    json_array_foreach(ix->benchmarks, i, e) {
        aggregate a;
        if (!unpack_aggregate(e, &a))
            continue;
        for (size_t k = 0; k < 2; k++)
            if (strcmp(a.agg, spread_kinds[k]) == 0 &&
                ompb__name_index_put(&ix->by_kind[k], a.run, i) != 0)
                return OMPB_ENOMEM;
    }
    return 0;
}

/* The real_time of run's aggregate kind k into *ns; false when absent. */
static int find_aggregate(const spread_index *ix, const char *run, size_t k, double *ns,
                          long long *reps, bool *found, ompb_error *err)
{
    size_t i;
    *found = ompb__name_index_get(&ix->by_kind[k], run, &i);
    if (!*found)
        return 0;
    const json_t *e = json_array_get(ix->benchmarks, i);
    entry_ref ref = {ix->label, ""};
    aggregate a;
    (void)unpack_aggregate(e, &a); /* true: index_spreads indexed only such entries */
    ompb__rf_set_where(&ref, i, json_string_value(a.name));
    *reps = ompb__rf_positive(a.reps);
    return ompb__rf_read_real_time(e, &ref, ns, err);
}

/* An aggregates-only run is judged from its mean and standard deviation
 * over its repetitions (docs/guide.md): both must be there. */
static int read_spread(const spread_index *ix, ompb__rf_instance *in, ompb_error *err)
{
    const char *label = ix->label;
    double *dst[] = {&in->agg_mean_ns, &in->agg_stddev_ns};
    for (size_t k = 0; k < 2; k++) {
        bool found;
        long long reps = 0;
        int rc = find_aggregate(ix, in->name, k, dst[k], &reps, &found, err);
        if (rc)
            return rc;
        if (!found)
            return ompb__rf_failf(err, OMPB_EINVAL, label,
                         "\"%.100s\" is reported by aggregates only but has no \"_%s\" "
                         "aggregate (accepted: _mean and _stddev, as --benchmark_report_"
                         "aggregates_only writes them)", in->name, spread_kinds[k]);
        if (reps < 0)
            return ompb__rf_failf(err, OMPB_EINVAL, label, "\"%.100s_%s\": \"repetitions\" is not a "
                         "positive integer", in->name, spread_kinds[k]);
        if (k > 0 && reps != in->repetitions)
            return ompb__rf_failf(err, OMPB_EINVAL, label, "\"%.100s\": mixed repetition counts in its "
                         "aggregates (%lld and %lld)", in->name, in->repetitions, reps);
        in->repetitions = reps;
    }
    return 0;
}

/*
 * Runs reported only by aggregates (--benchmark_report_aggregates_only): the
 * median stands for the run, else the mean; the mean and standard
 * deviation over the repetitions give the run-to-run spread. Runs that have
 * iteration entries (every ompbench instance) keep those.
 */
int ompb__rf_read_aggregates(const json_t *benchmarks, const char *label, ompb__resultfile *rf,
                           ompb_error *err)
{
    static const char *const kinds[] = {"median", "mean"};
    size_t first = rf->n;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t i;
        const json_t *e;
        json_array_foreach(benchmarks, i, e) {
            aggregate a;
            entry_ref ref = {label, ""};
            if (!stands_for_run(e, kinds[k], rf, &a))
                continue;
            ompb__rf_set_where(&ref, i, json_string_value(a.name));
            int rc = read_aggregate(e, &ref, &a, kinds[k], rf, err);
            if (rc)
                return rc;
        }
    }
    if (first == rf->n)
        return 0;
    spread_index ix = {benchmarks, label, {{0}, {0}}};
    int rc = index_spreads(&ix);
    for (size_t i = first; !rc && i < rf->n; i++)
        rc = rf->inst[i].failed ? 0 : read_spread(&ix, &rf->inst[i], err);
    ompb__name_index_free(&ix.by_kind[0]);
    ompb__name_index_free(&ix.by_kind[1]);
    return rc;
}

