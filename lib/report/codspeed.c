/* SPDX-License-Identifier: MIT */
/*
 * The CodSpeed walltime results file, $CODSPEED_PROFILE_FOLDER/results/
 * <pid>.json, in the runner's schema (docs/protocol.md). Its statistics come
 * from the very rounds whose aggregates went out as markers, so what the
 * runner plots and what it saw on the pipe agree. Written atomically: the
 * runner never reads half a file.
 */
#include "report/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <ompbench/version.h>

#include "error.h"
#include "hooks/instrument.h"
#include "outfile.h"

#define PROFILE_ENV "CODSPEED_PROFILE_FOLDER"
#define MODE_ENV "CODSPEED_RUNNER_MODE"

/* Results are for the runner in walltime mode: said by its environment or
 * by its answer to GetIntegrationMode. */
static const char *profile_folder(void)
{
    const char *dir = getenv(PROFILE_ENV), *mode = getenv(MODE_ENV);
    if (!dir || !*dir)
        return NULL;
    if ((mode && strcmp(mode, "walltime") == 0) || ompb__instrument_runner_walltime())
        return dir;
    return NULL;
}

/* What the engine was asked to do for this instance, from its record: the
 * round target calibration used, else (a fixed sample size, --test) the
 * minimum round time it was given. */
static json_t *config_json(const ompb__record *rec)
{
    const ompb__sampling *sp = &rec->sampling;
    uint64_t target = rec->round_target_ns ? rec->round_target_ns : sp->min_round_ns;
    return json_pack("{s:f, s:f, s:f, s:I}",
                     "warmup_time_ns", (double)sp->warmup_ns,
                     "min_round_time_ns", (double)target,
                     "max_time_ns", (double)sp->budget_ns,
                     "max_rounds", (json_int_t)sp->rounds);
}

static json_t *stats_json(const ompb__result *res)
{
    const ompb__stats *st = &res->stats;
    const ompb__record *rec = &res->rec;
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:f, s:I, s:I, s:I, s:I}",
                     "min_ns", st->min, "max_ns", st->max, "mean_ns", st->mean,
                     "stdev_ns", st->stdev, "q1_ns", st->q1, "median_ns", st->median,
                     "q3_ns", st->q3, "rounds", (json_int_t)rec->rounds,
                     "total_time", res->total_time_s,
                     "iqr_outlier_rounds", (json_int_t)st->iqr_outliers,
                     "stdev_outlier_rounds", (json_int_t)st->stdev_outliers,
                     "iter_per_round", (json_int_t)rec->sample_size,
                     "warmup_iters", (json_int_t)rec->warmup_iters);
}

/* Instances with a result: measured, not failed. */
static size_t count_results(const ompb__result *res, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += !res[i].rec.failed && res[i].rec.rounds > 0;
    return k;
}

static json_t *results_json(const ompb__result *res, size_t n)
{
    json_t *benchmarks = json_array();
    for (size_t i = 0; benchmarks && i < n; i++) {
        const ompb__record *rec = &res[i].rec;
        if (rec->failed || rec->rounds == 0)
            continue;
        json_t *b = json_pack("{s:s, s:s, s:o, s:o}", "name", rec->inst->name,
                              "uri", rec->inst->uri, "config", config_json(rec),
                              "stats", stats_json(&res[i]));
        if (!b || json_array_append_new(benchmarks, b) != 0) {
            json_decref(benchmarks);
            return NULL;
        }
    }
    return json_pack("{s:{s:s, s:s, s:I}, s:{s:s}, s:o}",
                     "creator", "name", "ompbench", "version", OMPB_VERSION_STRING,
                     "pid", (json_int_t)getpid(), "instrument", "type", "walltime",
                     "benchmarks", benchmarks);
}

static int make_dir(const char *path, ompb_error *err)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    return ompb__error_set(err, OMPB_EIO, "cannot create '%s' for the CodSpeed results: %s",
                           path, strerror(errno));
}

static int write_json(json_t *root, const char *path, ompb_error *err)
{
    ompb__outfile of;
    int rc = ompb__outfile_open(&of, path, err);
    if (rc)
        return rc;
    if (json_dumpf(root, of.fp, JSON_INDENT(2)) != 0 || fputc('\n', of.fp) == EOF) {
        ompb__outfile_abort(&of);
        return ompb__error_set(err, OMPB_EIO, "cannot write '%s'", path);
    }
    return ompb__outfile_commit(&of, err);
}

int ompb__report_codspeed(const ompb__result *res, size_t n, ompb_error *err)
{
    const char *dir = profile_folder();
    /* No instance succeeded: the runner fails the whole upload on a results
     * file without benchmarks, and exit status 1 already says the run
     * failed, so write none. */
    if (!dir || count_results(res, n) == 0)
        return 0;
    char results[4096], path[4200];
    snprintf(results, sizeof results, "%s/results", dir);
    snprintf(path, sizeof path, "%s/%ld.json", results, (long)getpid());
    int rc = make_dir(dir, err);
    if (rc == 0)
        rc = make_dir(results, err);
    if (rc)
        return rc;
    json_t *root = results_json(res, n);
    if (!root)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    rc = write_json(root, path, err);
    json_decref(root);
    return rc;
}
