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

/* The run an aggregate entry summarizes when it is the wanted kind
 * ("median", "mean") and nothing else stands for that run yet; else NULL. */
static const char *aggregate_run(const json_t *e, const char *kind,
                                 const ompb__resultfile *rf)
{
    const json_t *rt = json_object_get(e, "run_type");
    const json_t *agg = json_object_get(e, "aggregate_name");
    const json_t *run = json_object_get(e, "run_name");
    if (!json_is_string(rt) || strcmp(json_string_value(rt), "aggregate") != 0 ||
        !json_is_string(agg) || strcmp(json_string_value(agg), kind) != 0 ||
        !json_is_string(run) || !json_string_value(run)[0])
        return NULL;
    return ompb__resultfile_find(rf, json_string_value(run)) ? NULL
                                                              : json_string_value(run);
}

static int read_aggregate(const json_t *e, const entry_ref *ref, const char *run,
                          const char *kind, ompb__resultfile *rf, ompb_error *err)
{
    ompb__rf_instance *in;
    int rc = ompb__rf_new_instance(rf, run, &in);
    if (rc || (rc = ompb__rf_read_threads(e, NULL, ref, &in->threads, err)))
        return rc;
    in->aggregate = kind;
    if (json_is_true(json_object_get(e, "error_occurred")))
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
        const json_t *agg = json_object_get(e, "aggregate_name");
        const json_t *rn = json_object_get(e, "run_name");
        const json_t *rt = json_object_get(e, "run_type");
        if (!json_is_string(agg) || !json_is_string(rn) || !json_is_string(rt) ||
            strcmp(json_string_value(rt), "aggregate") != 0)
            continue;
        for (size_t k = 0; k < 2; k++)
            if (strcmp(json_string_value(agg), spread_kinds[k]) == 0 &&
                ompb__name_index_put(&ix->by_kind[k], json_string_value(rn), i) != 0)
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
    ompb__rf_set_where(&ref, i, json_string_value(json_object_get(e, "name")));
    *reps = ompb__rf_positive_int(e, "repetitions");
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
            const char *run = aggregate_run(e, kinds[k], rf);
            entry_ref ref = {label, ""};
            if (!run)
                continue;
            ompb__rf_set_where(&ref, i, json_string_value(json_object_get(e, "name")));
            int rc = read_aggregate(e, &ref, run, kinds[k], rf, err);
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

