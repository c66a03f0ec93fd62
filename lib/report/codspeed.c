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

#include "placement/placement.h"
#include "core/core.h"

#define PROFILE_ENV "CODSPEED_PROFILE_FOLDER"
#define MODE_ENV "CODSPEED_RUNNER_MODE"

/* Results are for the runner in walltime mode: said by its environment or
 * by its answer to GetIntegrationMode. */
static const char *profile_folder(const ompb__report_runner *runner)
{
    const char *dir = getenv(PROFILE_ENV), *mode = getenv(MODE_ENV);
    if (!dir || !*dir || runner->taken || runner->off)
        return NULL;
    if ((mode && strcmp(mode, "walltime") == 0) || runner->walltime)
        return dir;
    return NULL;
}

/* The environment file is for the runner in any mode it talks to us in:
 * walltime, or CPU simulation (valgrind) with its profile folder set. */
static const char *environment_folder(const ompb__report_runner *runner)
{
    const char *dir = getenv(PROFILE_ENV);
    if (!dir || !*dir || runner->off)
        return NULL;
    if (profile_folder(runner) || runner->simulation)
        return dir;
    return NULL;
}

/* What the engine was asked to do for this instance, from its first
 * record: the round target calibration used, else (a fixed sample size,
 * --test) the minimum round time it was given; warm-up, budget and rounds
 * for the whole instance, all repetitions together. */
static json_t *config_json(const ompb__instance_result *ir)
{
    const ompb__record *rec = &ir->reps[0].rec;
    const ompb__sampling *sp = &rec->sampling;
    double n = (double)ir->n_reps;
    uint64_t target = rec->round_target_ns ? rec->round_target_ns : sp->min_round_ns;
    return json_pack("{s:f, s:f, s:f, s:I}",
                     "warmup_time_ns", (double)sp->warmup_ns * n,
                     "min_round_time_ns", (double)target,
                     "max_time_ns", (double)sp->budget_ns * n,
                     "max_rounds", (json_int_t)(sp->rounds * ir->n_reps));
}

/* Over every round the runner got markers for: with repetitions, all of
 * them, since they share the instance's window. */
static json_t *stats_json(const ompb__instance_result *ir)
{
    const ompb__stats *st = &ir->pooled;
    uint64_t warmup_iters = 0;
    for (size_t i = 0; i < ir->n_reps; i++)
        warmup_iters += ir->reps[i].rec.warmup_iters;
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:f, s:I, s:I, s:I, s:I}",
                     "min_ns", st->min, "max_ns", st->max, "mean_ns", st->mean,
                     "stdev_ns", st->stdev, "q1_ns", st->q1, "median_ns", st->median,
                     "q3_ns", st->q3, "rounds", (json_int_t)ir->rounds,
                     "total_time", ir->total_time_s,
                     "iqr_outlier_rounds", (json_int_t)st->iqr_outliers,
                     "stdev_outlier_rounds", (json_int_t)st->stdev_outliers,
                     "iter_per_round", (json_int_t)ir->reps[0].rec.sample_size,
                     "warmup_iters", (json_int_t)warmup_iters);
}

/* Instances with a result: measured, no repetition failed. */
static bool has_result(const ompb__instance_result *ir)
{
    return !ir->failure && ir->rounds > 0;
}

static size_t count_results(const ompb__report *rep)
{
    size_t k = 0;
    for (size_t i = 0; i < rep->n_instances; i++)
        k += has_result(&rep->instances[i]);
    return k;
}

static json_t *results_json(const ompb__report *rep)
{
    json_t *benchmarks = json_array();
    for (size_t i = 0; benchmarks && i < rep->n_instances; i++) {
        const ompb__instance_result *ir = &rep->instances[i];
        if (!has_result(ir))
            continue;
        json_t *b = json_pack("{s:s, s:s, s:o, s:o}", "name", ir->inst->name,
                              "uri", ir->inst->uri, "config", config_json(ir),
                              "stats", stats_json(ir));
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

/* Adds key: value to the flat string map, escaping what is not UTF-8. */
static int put(json_t *map, const char *key, const char *value)
{
    char text[4096];
    ompb__utf8_escape(value ? value : "", text, sizeof text);
    return json_object_set_new(map, key, json_string(text));
}

static int put_int(json_t *map, const char *key, long long value)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", value);
    return put(map, key, text);
}

/* A string escaped as put() does, as a JSON value. */
static json_t *text_json(const char *value)
{
    char text[4096];
    ompb__utf8_escape(value ? value : "", text, sizeof text);
    return json_string(text);
}

/* One loaded library: name: {"path", "build_id" or null}; the first object
 * of a name wins (the one the loader resolves symbols from). */
static int put_library(const ompb__linked_library *lib, void *arg)
{
    json_t *libs = arg;
    char name[512];
    ompb__utf8_escape(lib->name, name, sizeof name);
    if (json_object_get(libs, name))
        return 0;
    json_t *o = json_pack("{s:o,s:o}", "path", text_json(lib->path), "build_id",
                          lib->build_id ? json_string(lib->build_id) : json_null());
    return o ? json_object_set_new(libs, name, o) : -1;
}

/* The run's warnings, a list: a JSON array of strings. */
static json_t *warnings_json(const ompb__context *ctx)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < ctx->n_warnings; i++)
        if (json_array_append_new(a, text_json(ctx->warnings[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* The run context as the official hooks' environment file holds an
 * integration's, with the loaded libraries beside it:
 * {"integration_environment": {"ompbench": {key: string or [string]}},
 *  "linked_libraries": {name: {"path": string, "build_id": string or null}}}. */
static json_t *environment_json(const ompb__context *ctx)
{
    json_t *map = json_object();
    if (!map)
        return NULL;
    int bad = put(map, "version", ctx->version);
    bad |= put(map, "compiler", ctx->compiler);
    bad |= put(map, "compiler_flags", ctx->compiler_flags);
    bad |= put(map, "build_type", ctx->build_type);
    bad |= put(map, "openmp_runtime", ctx->omp_vendor);
    bad |= put(map, "openmp_library", ctx->omp_library);
    bad |= put(map, "openmp_version", ctx->openmp_version);
    bad |= put_int(map, "omp_max_threads", ctx->omp_max_threads);
    bad |= put_int(map, "default_threads", ctx->default_threads);
    bad |= put(map, "omp_places", ctx->omp_places);
    bad |= put(map, "pin_policy", ctx->pin_policy);
    bad |= put(map, "binder", ompb__binder_name(ctx->binder));
    bad |= put(map, "host", ctx->host);
    bad |= put(map, "cpu_model", ctx->cpu_model);
    if (ctx->have_topo) {
        char topo[160];
        snprintf(topo, sizeof topo, "%d packages, %d NUMA nodes, %d cores, %d PUs",
                 ctx->topo.packages, ctx->topo.numa_nodes, ctx->topo.cores, ctx->topo.pus);
        bad |= put(map, "topology", topo);
        bad |= put(map, "usable_cpuset", ctx->topo.usable_cpuset);
    }
    for (size_t i = 0; i < ctx->n_env; i++) {
        char key[256];
        snprintf(key, sizeof key, "env.%s", ctx->env[i].name);
        bad |= put(map, key, ctx->env[i].value);
    }
    if (ctx->n_warnings) {
        json_t *w = warnings_json(ctx);
        bad |= !w || json_object_set_new(map, "warnings", w) != 0;
    }
    json_t *libs = json_object();
    bad |= !libs || ompb__linked_libraries(put_library, libs) != 0;
    json_t *root = json_pack("{s:{s:o},s:o}", "integration_environment", "ompbench", map,
                             "linked_libraries", libs);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static int write_results(const ompb__report *rep, const char *dir, ompb_error *err)
{
    char results[4096], path[4200];
    snprintf(results, sizeof results, "%s/results", dir);
    snprintf(path, sizeof path, "%s/%ld.json", results, (long)getpid());
    int rc = make_dir(dir, err);
    if (rc == 0)
        rc = make_dir(results, err);
    if (rc)
        return rc;
    json_t *root = results_json(rep);
    if (!root)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    rc = write_json(root, path, err);
    json_decref(root);
    return rc;
}

static int write_environment(const ompb__context *ctx, const char *dir, ompb_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/environment-%ld.json", dir, (long)getpid());
    int rc = make_dir(dir, err);
    if (rc)
        return rc;
    json_t *root = environment_json(ctx);
    if (!root)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    rc = write_json(root, path, err);
    json_decref(root);
    return rc;
}

/* runner: the given report's (a view made from its results has none). */
static int write_codspeed(const ompb__report *rep, const ompb__report_runner *runner,
                          ompb_error *err)
{
    const char *dir = environment_folder(runner);
    if (dir && rep->ctx) {
        int rc = write_environment(rep->ctx, dir, err);
        if (rc)
            return rc;
    }
    /* No instance succeeded: the runner fails the whole upload on a results
     * file without benchmarks, and exit status 1 already says the run
     * failed, so write none. */
    dir = profile_folder(runner);
    if (!dir || count_results(rep) == 0)
        return 0;
    return write_results(rep, dir, err);
}

int ompb__report_codspeed(const ompb__report *given, ompb_error *err)
{
    ompb__report tmp;
    const ompb__report *rep = ompb__report_view(given, &tmp);
    if (!rep)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    int rc = write_codspeed(rep, &given->runner, err);
    ompb__report_view_release(rep, &tmp);
    return rc;
}
