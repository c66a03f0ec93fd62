/* SPDX-License-Identifier: MIT */
/*
 * The run log of the context (lib/context/context.h): what the run adds to
 * the collected environment as it goes. Warnings, printed to stderr when
 * raised and recorded once each; how the run repeats its instances; each
 * thread count's pin plan, with the oversubscription and unpinned-thread
 * warnings it raises; a distributed run's ranks and their PU maps; a run
 * that stopped early. Collecting the environment is lib/context/context.c,
 * which raises its warnings here; nothing here reads the environment.
 */
#include "context/context.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "engine/engine.h"
#include "core/core.h"
#include "placement/placement.h"

#define WARNING_MAX 512

/* Records text once; false when it was recorded already. */
static bool record_warning(ompb__context *ctx, const char *text)
{
    for (size_t i = 0; i < ctx->n_warnings; i++)
        if (strcmp(ctx->warnings[i], text) == 0)
            return false;
    char *copy = strdup(text);
    if (copy && ompb__grow((void **)&ctx->warnings, &ctx->cap_warnings, ctx->n_warnings + 1,
                           sizeof *ctx->warnings, 8))
        ctx->warnings[ctx->n_warnings++] = copy;
    else
        free(copy);
    return true;
}

void ompb__context_warn(ompb__context *ctx, const char *fmt, ...)
{
    char raw[WARNING_MAX], text[WARNING_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    ompb__utf8_escape_controls(raw, text, sizeof text);
    if (ctx && (!record_warning(ctx, text) || ctx->quiet))
        return;
    fprintf(stderr, "ompbench: warning: %s\n", text);
}

void ompb__context_set_repetitions(ompb__context *ctx, uint32_t repetitions,
                                   uint32_t processes, bool interleaved, uint64_t seed)
{
    ctx->repetitions = repetitions;
    ctx->processes = processes;
    ctx->interleaved = interleaved;
    ctx->seed = seed;
}

void ompb__context_set_partial(ompb__context *ctx, const char *by,
                               const char *const *not_run, size_t n_not_run)
{
    ctx->interrupted_by = by;
    ctx->not_run = not_run;
    ctx->n_not_run = n_not_run;
}

/* Threads nobody pins: --pin none or OMP_PROC_BIND=false without a binding
 * runtime; or a runtime we leave binding to that reported proc_bind false
 * at start-up (a variable it does not read, e.g. KMP_AFFINITY for libgomp). */
static void unpinned_warning(ompb__context *ctx, const ompb__pin_plan *plan)
{
    if (plan->binder == OMPB__BINDER_NONE && plan->pin_given)
        ompb__context_warn(ctx, "threads are not pinned (--pin none): the OS may move them "
                           "between PUs during a round");
    else if (plan->binder == OMPB__BINDER_NONE)
        ompb__context_warn(ctx, "threads are not pinned (OMP_PROC_BIND=false, no --pin): the "
                           "OpenMP runtime binds nothing and neither does ompbench; the OS "
                           "may move them between PUs during a round");
    else if (plan->binder == OMPB__BINDER_RUNTIME && ctx->omp_proc_bind == omp_proc_bind_false)
        ompb__context_warn(ctx, "threads may not be pinned: ompbench leaves binding to the "
                           "OpenMP runtime, which reports proc_bind false (a variable it does "
                           "not read, or an invalid value); use --pin to let ompbench bind");
    else
        return;
    ctx->warned_unpinned = true;
}

static void plan_warnings(ompb__context *ctx, const ompb__pin_plan *plan)
{
    if (plan->oversubscribed && !ctx->warned_oversub) {
        ctx->warned_oversub = true;
        int pus = ompb__pin_plan_pus(plan);
        ompb__context_warn(ctx, "oversubscribed: %d threads on %d PU%s; threads share PUs "
                           "round-robin and rounds include time slicing", plan->threads, pus,
                           ompb__plural(pus));
    }
    if (!ctx->warned_unpinned)
        unpinned_warning(ctx, plan);
}

/* Copies plan into a summary with its own arrays. Returns 0 or -1. */
static int summarize_plan(ompb__plan_summary *s, const ompb__pin_plan *plan)
{
    size_t bytes = (size_t)plan->threads * sizeof(int);
    *s = (ompb__plan_summary){.threads = plan->threads, .binder = plan->binder,
                              .oversubscribed = plan->oversubscribed};
    s->policy = strdup(plan->policy);
    s->pu = malloc(bytes);
    s->core = malloc(bytes);
    if (!s->policy || !s->pu || !s->core) {
        free(s->policy);
        free(s->pu);
        free(s->core);
        return -1;
    }
    memcpy(s->pu, plan->pu, bytes);
    memcpy(s->core, plan->core, bytes);
    return 0;
}

void ompb__context_add_plan(ompb__context *ctx, const ompb__pin_plan *plan)
{
    if (!ctx || !plan)
        return;
    ctx->binder = plan->binder;
    plan_warnings(ctx, plan);
    for (size_t i = 0; i < ctx->n_plans; i++)
        if (ctx->plans[i].threads == plan->threads)
            return;
    if (ompb__grow((void **)&ctx->plans, &ctx->cap_plans, ctx->n_plans + 1, sizeof *ctx->plans, 8)
        && summarize_plan(&ctx->plans[ctx->n_plans], plan) == 0)
        ctx->n_plans++;
}

void ompb__context_set_distribution(ompb__context *ctx, const ompb_distribution *dist)
{
    ctx->dist = dist;
    ctx->ranks = dist ? dist->size : 0;
    ctx->dist_skew_error_ns = ompb__dist_skew_error_ns(dist);
    if (dist && dist->warning)
        ompb__context_warn(ctx, "%s", dist->warning);
}

void ompb__context_set_rank_pus(ompb__context *ctx, int threads, const int64_t *pus, int ranks)
{
    for (size_t i = 0; i < ctx->n_plans; i++) {
        ompb__plan_summary *p = &ctx->plans[i];
        if (p->threads != threads || p->rank_pu)
            continue;
        size_t n = (size_t)ranks * (size_t)threads;
        p->rank_pu = malloc(n * sizeof *p->rank_pu);
        for (size_t k = 0; p->rank_pu && k < n; k++)
            p->rank_pu[k] = (int)pus[k];
        return;
    }
}
