/* SPDX-License-Identifier: MIT */
/*
 * The console run header: a few lines on the machine, the OpenMP runtime,
 * libompbench's build, the load, the OMP_* environment and the placement,
 * rendered from the plain context alone.
 */
#include "context/context.h"

#include <inttypes.h>
#include <string.h>

#include "core/core.h"

static void print_machine(FILE *out, const ompb__context *ctx)
{
    const ompb__topology_summary *s = &ctx->topo;
    fprintf(out, "ompbench %s on %s, %s\n", ctx->version, ctx->host, ctx->date);
    fprintf(out, "cpu:        %s", ctx->cpu_model);
    if (!ctx->have_topo) {
        fprintf(out, "; topology unknown\n");
        return;
    }
    fprintf(out, "; %d package%s, %d NUMA node%s, %d core%s, %d PU%s", s->packages,
            ompb__plural(s->packages), s->numa_nodes, ompb__plural(s->numa_nodes), s->cores,
            ompb__plural(s->cores), s->pus, ompb__plural(s->pus));
    fprintf(out, "; usable %d core%s, %d PU%s (%s)%s\n", s->usable_cores,
            ompb__plural(s->usable_cores), s->usable_pus, ompb__plural(s->usable_pus),
            s->usable_cpuset, s->this_system ? "" : " [not this machine]");
}

/* Values that are not UTF-8 get the JSON's stand-in, so both forms agree. */
static void print_env(FILE *out, const ompb__context *ctx)
{
    fprintf(out, "env:       ");
    for (size_t i = 0; i < ctx->n_env; i++) {
        const char *v = ctx->env[i].value;
        fprintf(out, " %s=%s", ctx->env[i].name,
                ompb__utf8_valid(v, strlen(v)) ? v : "(not UTF-8)");
    }
    fprintf(out, "%s\n", ctx->n_env ? "" : " no OMP_*, GOMP_* or KMP_* set");
}

static void print_software(FILE *out, const ompb__context *ctx)
{
    fprintf(out, "openmp:     %s, OpenMP %s (_OPENMP %d), max threads %d, proc_bind %s\n",
            ctx->omp_vendor, ctx->openmp_version, ctx->openmp_date, ctx->omp_max_threads,
            ompb__proc_bind_name(ctx->omp_proc_bind));
    if (ctx->region_clock[0])
        fprintf(out, "regions:    clock: %s\n", ctx->region_clock);
    fprintf(out, "build:      libompbench: %s %s, %s%s\n", ctx->compiler, ctx->compiler_flags,
            ctx->build_type, ctx->optimized ? "" : " (unoptimized)");
    if (ctx->have_load)
        fprintf(out, "system:     load %.2f %.2f %.2f", ctx->load[0], ctx->load[1], ctx->load[2]);
    else
        fprintf(out, "system:     load unknown");
    fprintf(out, ", governor %s\n", ctx->governor[0] ? ctx->governor : "not readable");
    print_env(out, ctx);
}

/* "T=1: 0; T=2: 0 1" for the plans we bind; the runtime's map is observed per instance. */
static void print_maps(FILE *out, const ompb__context *ctx)
{
    if (ctx->binder != OMPB__BINDER_OURS || ctx->n_plans == 0)
        return;
    fprintf(out, "pu map:    ");
    for (size_t i = 0; i < ctx->n_plans; i++) {
        fprintf(out, "%s T=%d:", i ? ";" : "", ctx->plans[i].threads);
        for (int t = 0; t < ctx->plans[i].threads; t++)
            fprintf(out, " %d", ctx->plans[i].pu[t]);
    }
    fputc('\n', out);
}

static void print_placement(FILE *out, const ompb__context *ctx)
{
    fprintf(out, "placement:  %s\n", ctx->placement);
    if (ctx->binder == OMPB__BINDER_RUNTIME)
        fprintf(out, "places:     %s (proc_bind %s)\n", ctx->omp_places,
                ompb__proc_bind_name(ctx->omp_proc_bind));
    print_maps(out, ctx);
    if (ctx->slurm[0])
        fprintf(out, "slurm:      %s\n", ctx->slurm);
}

/* Only for repeated runs: a single run's header stays as it was. */
static void print_repetitions(FILE *out, const ompb__context *ctx)
{
    if (ctx->repetitions <= 1)
        return;
    fprintf(out, "repeats:    %" PRIu32 " repetitions per instance", ctx->repetitions);
    if (ctx->processes > 1)
        fprintf(out, " in %" PRIu32 " processes", ctx->processes);
    if (ctx->interleaved)
        fprintf(out, ", interleaved, seed %" PRIu64 " (replay: --seed %" PRIu64 ")\n", ctx->seed,
                ctx->seed);
    else
        fprintf(out, ", back to back (one CodSpeed window per instance)\n");
}

/* A distributed run: how many ranks, on which hosts, and how far apart
 * they leave the round-start barrier (the global bounds' uncertainty). */
static void print_ranks(FILE *out, const ompb__context *ctx)
{
    const ompb_distribution *d = ctx->dist;
    if (!d)
        return;
    fprintf(out, "ranks:      %d x %d threads (%s); barrier exit skew %.0f ns +- %.0f ns "
            "(clock offset error); hosts:", d->size, ctx->default_threads,
            d->library ? d->library : "MPI", d->barrier_exit_skew_ns, ctx->dist_skew_error_ns);
    for (int k = 0; k < d->size; k++)
        fprintf(out, " %d=%s", k, d->hosts && d->hosts[k] ? d->hosts[k] : "?");
    fputc('\n', out);
}

/* A run that stopped early: what stopped it and what is missing. */
static void print_partial(FILE *out, const ompb__context *ctx)
{
    if (!ctx->interrupted_by)
        return;
    fprintf(out, "partial:    the run was stopped early (%s); ", ctx->interrupted_by);
    if (ctx->n_not_run == 0)
        fprintf(out, "every instance has a result\n");
    for (size_t i = 0; i < ctx->n_not_run; i++) {
        char name[1024];
        ompb__utf8_escape_controls(ctx->not_run[i], name, sizeof name);
        fprintf(out, "%s%s", i ? ", " : "not run: ", name);
    }
    if (ctx->n_not_run)
        fputc('\n', out);
}

void ompb__context_print_header(FILE *out, const ompb__context *ctx)
{
    print_machine(out, ctx);
    print_software(out, ctx);
    print_placement(out, ctx);
    print_ranks(out, ctx);
    print_repetitions(out, ctx);
    print_partial(out, ctx);
}
