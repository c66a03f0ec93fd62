/* SPDX-License-Identifier: MIT */
/*
 * The parent of --processes (lib/run/run.h): lib/run/children.c runs the children
 * and reads their dumps; this side takes each record handed over into its
 * result and fails, with the reason, every repetition a child did not hand
 * over (all of a child's when its records are unusable).
 */
#include "run/run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/children.h"
#include "core/core.h"

/* Takes a record read back from a child (lib/children) into its result. */
static int take_record(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    ompb__run *r = arg;
    ompb__result *res = ompb__run_result(r, instance, rec->sampling.repetition);
    if (res->rec.inst) {
        ompb__record_free(rec);
        return ompb__error_set(err, OMPB_EINVAL, "%s: repetition %u appears twice",
                               r->sel[instance].name, rec->sampling.repetition);
    }
    res->rec = *rec;
    res->process = rec->sampling.repetition % r->processes;
    ompb__run_analyze(r, res);
    return 0;
}

/* A child crashed in this repetition (its journal's crash line), or a
 * signal no handler sees ended it there (its last started line). */
static void crashed(void *arg, size_t instance, uint32_t repetition, int sig)
{
    ompb__run *r = arg;
    ompb__result *res = ompb__run_result(r, instance, repetition);
    if (res->rec.inst || repetition >= r->reps)
        return;
    char text[OMPB__CHILDREN_WHY_MAX + 64];
    uint32_t k = repetition % r->processes;
    snprintf(text, sizeof text, "process %u of %u %s %s (%s) while it measured this "
             "repetition", k + 1, r->processes, sig == SIGKILL ? "was killed by" : "crashed with",
             ompb__signal_name(sig), strsignal(sig));
    ompb__run_fail_result(res, &r->sel[instance], repetition, k, text);
}

/* The repetitions of process k that it did not hand over, or all of them
 * when its records are unusable (why set, not partial). */
static void mark_lost(ompb__run *r, uint32_t k, const char *why, bool partial)
{
    for (size_t i = 0; i < r->n_sel; i++)
        for (uint32_t rep = k; rep < r->reps; rep += r->processes) {
            ompb__result *res = ompb__run_result(r, i, rep);
            if ((why[0] && !partial) || !res->rec.inst) {
                char text[OMPB__CHILDREN_WHY_MAX + 64];
                snprintf(text, sizeof text, "process %u of %u %s", k + 1, r->processes,
                         why[0] ? why : "handed over no result for it");
                ompb__run_fail_result(res, &r->sel[i], rep, k, text);
            }
        }
}

int ompb__run_processes(ompb__run *r, ompb_error *err)
{
    char (*why)[OMPB__CHILDREN_WHY_MAX] = calloc(r->processes, sizeof *why);
    bool *partial = calloc(r->processes, sizeof *partial);
    if (!why || !partial) {
        free(why);
        free(partial);
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    }
    ompb__children sp = {
        .argc = r->argc, .argv = r->argv, .processes = r->processes, .repetitions = r->reps,
        .seed = r->seed, .sel = r->sel, .n_sel = r->n_sel, .ctx = r->ctx, .take = take_record,
        .crashed = crashed, .arg = r, .why = why, .partial = partial,
    };
    int rc = ompb__children_run(&sp, err);
    int failures = 0;
    /* Stopped by a signal: the caller hands on what the children handed over. */
    if (rc == 0 && sp.interrupted)
        r->stopped_by = sp.interrupted;
    for (uint32_t k = 0; rc == 0 && !r->stopped_by && k < r->processes; k++)
        mark_lost(r, k, why[k], partial[k]);
    for (size_t i = 0; rc == 0 && !r->stopped_by && i < r->n_sel * r->reps; i++)
        failures += r->results[i].rec.failed;
    free(why);
    free(partial);
    return rc ? rc : failures;
}
