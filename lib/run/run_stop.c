/* SPDX-License-Identifier: MIT */
/*
 * Partial reports (lib/run/run.h): a run stopped early, by the guard (an
 * exit() in a body, --timeout, a master that did not answer a signal) or
 * by a signal the master took between rounds, hands on every completed
 * repetition, marked partial with what stopped it and the instances left
 * without a result, in one line on stderr. Other ranks of a distributed
 * run only say so: rank 0 alone reports. Once a report is out (or the
 * process that reached it said why not), the journal is closed and removed.
 */
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/run.h>

#include "engine/engine.h"
#include "model/model.h"

/* The results that go in a partial report: the completed ones, with
 * `failed` in place of slot `at` (none: SIZE_MAX); *missing gets the
 * instances left without any. Returns how many. */
static size_t completed(const ompb__run *r, size_t at, const ompb__result *failed,
                      ompb__result *res, const char **missing, size_t *n_missing)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_sel; i++) {
        size_t before = n;
        for (uint32_t rep = 0; rep < r->reps; rep++) {
            size_t k = i * r->reps + rep;
            if (k == at && failed)
                res[n++] = *failed;
            else if (k != at && r->results[k].rec.inst && !r->results[k].rec.interrupted)
                res[n++] = r->results[k];
        }
        if (n == before)
            missing[(*n_missing)++] = r->sel[i].name;
    }
    return n;
}

/* Hands on the completed repetitions (`by`: what stopped the run, for the
 * context) after one line: what happened (said), and what has no result. */
static int hand_on_partial(ompb__run *r, const char *by, size_t at, const ompb__result *failed,
                           const char *said, ompb_error *err)
{
    size_t total = r->n_sel * r->reps, n = 0, n_missing = 0;
    ompb__result *res = malloc((total ? total : 1) * sizeof *res);
    const char **missing = malloc((r->n_sel ? r->n_sel : 1) * sizeof *missing);
    int status = OMPB_EXIT_FAILED;
    if (res && missing)
        n = completed(r, at, failed, res, missing, &n_missing);
    fprintf(stderr, "%s", said);
    for (size_t i = 0; res && missing && !r->cfg.child && i < n_missing; i++)
        fprintf(stderr, "%s%s", i ? ", " : "; not run: ", missing[i]);
    fputc('\n', stderr);
    if (res && missing) {
        ompb__context_set_partial(r->ctx, by, missing, n_missing);
        status = ompb__run_hand_on(r, res, n, OMPB_EXIT_FAILED, err);
        ompb__context_set_partial(r->ctx, NULL, NULL, 0);
    } else {
        fprintf(stderr, "%s: out of memory\n", r->argv0);
    }
    free(missing);
    free(res);
    return status;
}

/* Slot `at` as the engine's failed records are shaped (the parent of
 * --processes checks the shape): what it was asked, no rounds. */
static void failed_slot(const ompb__run *r, size_t at, const char *why, ompb__result *failed)
{
    const ompb__instance *inst = &r->sel[at / r->reps];
    uint32_t rep = (uint32_t)(at % r->reps);
    ompb__run_fail_result(failed, inst, rep, r->cfg.child ? r->cfg.child_index : 0, why);
    ompb__record *rec = &failed->rec;
    rec->sampling = ompb__sampling_resolve(&r->cfg, inst, r->simulate, rep);
    rec->caller_team = inst->bench->team == OMPB_TEAM_CALLER;
    if (rec->sampling.counters)
        rec->counters = *rec->sampling.counters;
    if (ompb__record_alloc(rec, 1, inst->threads) == 0)
        for (int t = 0; t < inst->threads; t++)
            rec->thread_pu[t] = -1;
}

/* On the thread that called exit() or on the guard's own (a timeout, a
 * signal the master did not answer): the slot being measured fails with
 * why (cut short by a signal, it is left out); the completed ones are
 * handed on. */
void ompb__run_stop(void *arg, const char *by, const char *why)
{
    ompb__run *r = arg;
    size_t at = ompb__body_guard_slot();
    ompb__run_progress(r, 0, 0, NULL); /* the line of the slot that stopped */
    ompb__result failed;
    memset(&failed, 0, sizeof failed);
    if (at != SIZE_MAX)
        failed_slot(r, at, why, &failed);
    /* A signal's slot did not fail: it was cut short, and is left out. */
    bool fails = at != SIZE_MAX && strncmp(by, "SIG", 3) != 0;
    char said[OMPB_ERROR_TEXT_MAX + 1024];
    char rank[32] = "";
    if (ompb__dist_rank() != 0)
        snprintf(rank, sizeof rank, "rank %d: ", ompb__dist_rank());
    snprintf(said, sizeof said, "%s: %s%s%s%s; %s", r->argv0, rank,
             at != SIZE_MAX ? r->sel[at / r->reps].name : "", at != SIZE_MAX ? ": " : "", why,
             ompb__dist_rank() != 0 ? "this rank ends, and the launcher ends the job with it "
                                      "(only rank 0 writes the report: none this time)"
             : r->cfg.child ? "the completed repetitions go to the parent"
                            : "the completed instances are written, marked partial");
    ompb_error err = {0};
    ompb__outfile_c_locale(); /* this thread's: bodies may have called setlocale() */
    if (ompb__dist_rank() != 0)
        fprintf(stderr, "%s\n", said);
    else
        (void)hand_on_partial(r, by, at, fails ? &failed : NULL, said, &err);
    ompb__run_journal_end(r);
    ompb__record_free(&failed.rec);
}

void ompb__run_report_signal(ompb__run *r, int sig)
{
    const char *name = ompb__signal_name(sig);
    char said[256];
    snprintf(said, sizeof said, "%s: interrupted by %s; %s", r->argv0, name,
             r->cfg.child ? "the completed repetitions go to the parent"
                          : "the completed instances are written, marked partial");
    ompb_error err = {0};
    ompb__signal_ignore_repeats(sig);
    if (ompb__dist_rank() == 0)
        (void)hand_on_partial(r, name, SIZE_MAX, NULL, said, &err);
    ompb__run_journal_end(r);
}

void ompb__run_journal_end(ompb__run *r)
{
    ompb__crash_restore();
    ompb__journal_close(&r->journal, false);
    free(r->crash_argv);
    free(r->crash_opt);
    r->crash_argv = NULL;
    r->crash_opt = NULL;
}

int ompb__run_report_journal(ompb__run *r, const char *by, size_t at, const char *why,
                             const char *said, ompb_error *err)
{
    ompb__result failed;
    memset(&failed, 0, sizeof failed);
    if (at != SIZE_MAX)
        failed_slot(r, at, why, &failed);
    int status = hand_on_partial(r, by, at, at != SIZE_MAX ? &failed : NULL, said, err);
    ompb__record_free(&failed.rec);
    return status;
}
