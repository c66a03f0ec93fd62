/* SPDX-License-Identifier: MIT */
/*
 * The run context as JSON: the Google Benchmark "context" object (date,
 * host_name, executable, num_cpus, mhz_per_cpu, cpu_scaling_enabled, caches,
 * load_avg, library_build_type, json_schema_version) plus an "ompbench"
 * object with our extras. Rendered from the plain context alone.
 */
#include "context/context.h"

#include <inttypes.h>

#include <jansson.h>

#include "core/core.h"

/* jansson refuses invalid UTF-8; an odd environment value must not drop the context. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s ? s : "");
    return j ? j : json_string("(not UTF-8)");
}

/* [pu0, pu1, ...] with null for "not bound by us". */
static json_t *int_map(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, v[i] >= 0 ? json_integer(v[i]) : json_null());
    return a;
}

static json_t *caches_json(const ompb__context *ctx)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < ctx->n_caches; i++) {
        const ompb__cache_info *c = &ctx->caches[i];
        json_array_append_new(a, json_pack("{s:s, s:i, s:I, s:i}", "type", c->type, "level",
                                           c->level, "size", (json_int_t)c->size,
                                           "num_sharing", c->num_sharing));
    }
    return a;
}

static json_t *load_json(const ompb__context *ctx)
{
    json_t *a = json_array();
    for (int i = 0; a && ctx->have_load && i < 3; i++)
        json_array_append_new(a, json_real(ctx->load[i]));
    return a;
}

/* Counts are null until a topology is set. */
static json_t *topology_json(const ompb__context *ctx)
{
    const ompb__topology_summary *s = &ctx->topo;
    if (!ctx->have_topo)
        return json_pack("{s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n}", "packages", "numa_nodes",
                         "cores", "pus", "usable_cores", "usable_pus", "usable_cpuset",
                         "this_system");
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:b}", "packages", s->packages,
                     "numa_nodes", s->numa_nodes, "cores", s->cores, "pus", s->pus,
                     "usable_cores", s->usable_cores, "usable_pus", s->usable_pus,
                     "usable_cpuset", s->usable_cpuset, "this_system", s->this_system);
}

static json_t *openmp_json(const ompb__context *ctx)
{
    return json_pack("{s:i, s:s, s:s, s:o, s:i, s:s, s:i, s:o}", "_OPENMP", ctx->openmp_date,
                     "version", ctx->openmp_version, "vendor", ctx->omp_vendor,
                     "library", jstr(ctx->omp_library), "max_threads", ctx->omp_max_threads,
                     "proc_bind", ompb__proc_bind_name(ctx->omp_proc_bind), "num_places",
                     ctx->omp_num_places, "fork_guard", jstr(ctx->fork_guard));
}

/* Sorted by name at collection, so two runs' contexts diff cleanly. */
static json_t *env_json(const ompb__context *ctx)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < ctx->n_env; i++)
        json_object_set_new(o, ctx->env[i].name, jstr(ctx->env[i].value));
    return o;
}

static json_t *plans_json(const ompb__context *ctx)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < ctx->n_plans; i++) {
        const ompb__plan_summary *p = &ctx->plans[i];
        json_t *o = json_pack("{s:i, s:o, s:o, s:o, s:b}", "threads", p->threads,
                              "policy", jstr(p->policy), "pu", int_map(p->pu, p->threads),
                              "core", int_map(p->core, p->threads), "oversubscribed",
                              p->oversubscribed);
        if (o && p->rank_pu) {
            json_t *ranks = json_array();
            for (int k = 0; ranks && k < ctx->ranks; k++)
                json_array_append_new(ranks, int_map(p->rank_pu + (size_t)k * (size_t)p->threads,
                                                     p->threads));
            json_object_set_new(o, "rank_pu", ranks);
        }
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *pin_json(const ompb__context *ctx)
{
    return json_pack("{s:o, s:b, s:s, s:o, s:o}", "policy", jstr(ctx->pin_policy), "given",
                     ctx->pin_given, "binder", ompb__binder_name(ctx->binder), "description",
                     jstr(ctx->placement), "plans", plans_json(ctx));
}

static json_t *warnings_json(const ompb__context *ctx)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < ctx->n_warnings; i++)
        json_array_append_new(a, jstr(ctx->warnings[i]));
    return a;
}

/* The seed as a decimal string: a JSON number above 2^53 loses digits in
 * many readers, and the seed must replay exactly. */
static json_t *repetitions_json(const ompb__context *ctx)
{
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, ctx->seed);
    return json_pack("{s:I, s:I, s:b, s:s}", "repetitions", (json_int_t)ctx->repetitions,
                     "processes", (json_int_t)ctx->processes, "interleaved", ctx->interleaved,
                     "seed", seed);
}

static json_t *str_array(const char *const *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, v && v[i] ? jstr(v[i]) : json_null());
    return a;
}

/* The ranks of a distributed run: where each ran, and how the clocks of
 * the ranks relate (include/ompbench/distribution.h). */
static json_t *distribution_json(const ompb__context *ctx)
{
    const ompb_distribution *d = ctx->dist;
    json_t *offs = json_array(), *errs = json_array();
    for (int k = 0; offs && errs && k < d->size; k++) {
        json_array_append_new(offs, d->clock_offset_ns ? json_integer(d->clock_offset_ns[k])
                                                       : json_null());
        json_array_append_new(errs, d->clock_offset_error_ns
                                        ? json_integer((json_int_t)d->clock_offset_error_ns[k])
                                        : json_null());
    }
    return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:f, s:f, s:o}", "ranks", d->size,
                     "library", d->library ? jstr(d->library) : json_null(), "hosts",
                     str_array(d->hosts, d->size), "cpusets", str_array(d->cpusets, d->size),
                     "clock_offset_ns", offs, "clock_offset_error_ns", errs,
                     "barrier_exit_skew_ns", d->barrier_exit_skew_ns,
                     "barrier_exit_skew_error_ns", ctx->dist_skew_error_ns, "clock_method",
                     d->clock_method ? jstr(d->clock_method) : json_null());
}

static json_t *ompbench_json(const ompb__context *ctx)
{
    json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:b, s:s, s:o, s:i}",
                          "version", ctx->version, "cpu_model", jstr(ctx->cpu_model),
                          "topology", topology_json(ctx), "openmp", openmp_json(ctx),
                          "environment", env_json(ctx), "compiler", ctx->compiler,
                          "compiler_flags", ctx->compiler_flags, "optimized", ctx->optimized,
                          "build_type", ctx->build_type, "load_avg", load_json(ctx),
                          "default_threads", ctx->default_threads);
    if (o && (json_object_set_new(o, "cpu_governor", ctx->governor[0] ? jstr(ctx->governor)
                                                                      : json_null()) != 0
              || json_object_set_new(o, "pin", pin_json(ctx)) != 0
              || json_object_set_new(o, "region_clock", ctx->region_clock[0]
                                                            ? json_string(ctx->region_clock)
                                                            : json_null()) != 0
              || json_object_set_new(o, "build_id", ctx->build_id[0] ? json_string(ctx->build_id)
                                                                    : json_null()) != 0
              || json_object_set_new(o, "run", repetitions_json(ctx)) != 0
              || json_object_set_new(o, "warnings", warnings_json(ctx)) != 0
              || (ctx->dist && json_object_set_new(o, "distribution", distribution_json(ctx)) != 0))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int set_partial(json_t *o, const ompb__context *ctx)
{
    json_t *names = json_array();
    for (size_t i = 0; names && i < ctx->n_not_run; i++)
        json_array_append_new(names, jstr(ctx->not_run[i]));
    if (!names)
        return -1;
    return json_object_set_new(o, "partial", json_true()) != 0
           || json_object_set_new(o, "interrupted_by", json_string(ctx->interrupted_by)) != 0
           || json_object_set_new(o, "not_run", names) != 0 ? -1 : 0;
}

json_t *ompb__context_to_json(const ompb__context *ctx)
{
    int cpus = ctx->num_cpus > 0 ? ctx->num_cpus : 1;
    json_t *o = json_pack("{s:s, s:o, s:o, s:i, s:I, s:b, s:o, s:o, s:s, s:i, s:o}",
                     "date", ctx->date, "host_name", jstr(ctx->host), "executable",
                     jstr(ctx->executable), "num_cpus", cpus, "mhz_per_cpu", (json_int_t)ctx->mhz,
                     "cpu_scaling_enabled", ctx->scaling_enabled, "caches", caches_json(ctx),
                     "load_avg", load_json(ctx), "library_build_type",
                     ctx->debug_build ? "debug" : "release", "json_schema_version",
                     OMPB__JSON_SCHEMA_VERSION, "ompbench", ompbench_json(ctx));
    /* A run that stopped early says so at the top: readers that compare
     * files must not take a missing instance for a removed one. */
    if (o && ctx->interrupted_by && set_partial(o, ctx) != 0) {
        json_decref(o);
        return NULL;
    }
    /* A distributed run says its shape at the top, beside num_cpus. */
    if (o && ctx->ranks > 0
        && (json_object_set_new(o, "ranks", json_integer(ctx->ranks)) != 0
            || json_object_set_new(o, "threads_per_rank", json_integer(ctx->default_threads)) != 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}
