/* SPDX-License-Identifier: MIT */
/*
 * The repetitions this process measures (lib/run/run.h): its share of the
 * schedule, one slot (instance, repetition) at a time through the engine,
 * each into its result, with the warnings a slot leaves for the context,
 * the guard told which slot runs, and the CodSpeed window of an instance
 * closed after its last slot. Also the results' own helpers, which the
 * parent of --processes and the partial reports share.
 */
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine.h"
#include "hooks/hooks.h"
#include "model/model.h"

void ompb__run_progress(const ompb__run *r, size_t done, size_t total, const ompb__slot *slot)
{
    if (!isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\r\033[K");
    if (slot && r->cfg.child)
        fprintf(stderr, "process %u/%u: ", r->cfg.child_index + 1, r->processes);
    if (slot)
        fprintf(stderr, "[%zu/%zu] %s", done + 1, total, r->sel[slot->instance].name);
    if (slot && r->reps > 1)
        fprintf(stderr, " (repetition %u/%u)", slot->repetition + 1, r->reps);
    fflush(stderr);
}

ompb__result *ompb__run_result(const ompb__run *r, size_t instance, uint32_t repetition)
{
    return &r->results[instance * r->reps + repetition];
}

void ompb__run_fail_result(ompb__result *res, const ompb__instance *inst, uint32_t repetition,
                           uint32_t process, const char *why)
{
    ompb__record_free(&res->rec);
    res->rec.inst = inst;
    res->rec.threads = inst->threads;
    res->rec.sampling.repetition = repetition;
    res->process = process;
    res->rec.failed = true;
    snprintf(res->rec.error, sizeof res->rec.error, "%.100s: %.150s", inst->name, why);
    ompb__result_analyze(res);
}

bool ompb__run_analyze(const ompb__run *r, ompb__result *res)
{
    if (ompb__result_analyze(res) == 0 || res->rec.failed)
        return true;
    res->rec.failed = true;
    snprintf(res->rec.error, sizeof res->rec.error, "%.200s: out of memory computing statistics",
             res->rec.inst->name);
    fprintf(stderr, "%s: %s\n", r->argv0, res->rec.error);
    return false;
}

/* last[i]: the index of instance i's last slot in this process's order. */
static size_t *last_slots(const ompb__slot *slots, size_t n, size_t instances)
{
    size_t *last = calloc(instances ? instances : 1, sizeof *last);
    for (size_t j = 0; last && j < n; j++)
        last[slots[j].instance] = j;
    return last;
}

/* What a measured slot leaves for the context: its migrations, its
 * record's warnings, a signal handler the body installed. */
static void slot_warnings(const ompb__run *r, const ompb__instance *inst, const ompb__result *res)
{
    if (!res->rec.interrupted && !res->rec.failed && res->rec.migrations > 0)
        ompb__context_warn(r->ctx, "%s: %llu thread migrations observed between rounds",
                           inst->name, (unsigned long long)res->rec.migrations);
    for (size_t w = 0; w < res->rec.n_warnings; w++)
        ompb__context_warn(r->ctx, "%s", res->rec.warnings[w]);
    int replaced = ompb__body_guard_handler_replaced();
    if (replaced)
        ompb__context_warn(r->ctx, "%s: the benchmark installed its own %s handler: that signal "
                           "is the benchmark's until the run ends (it no longer stops the run)",
                           inst->name, ompb__signal_name(replaced));
}

/* Runs one repetition into its result; returns 1 when it failed. */
static int run_slot(ompb__run *r, const ompb__slot *slot, uint64_t *calibrated, bool keep_open,
                    uint32_t process)
{
    const ompb__instance *inst = &r->sel[slot->instance];
    ompb__result *res = ompb__run_result(r, slot->instance, slot->repetition);
    ompb__sampling sampling = ompb__sampling_resolve(&r->cfg, inst, r->simulate, slot->repetition);
    ompb__sampling_reuse_size(&sampling, *calibrated);
    sampling.window_keep_open = keep_open;
    bool calibrates = sampling.sample_size == 0;
    ompb__journal_slot(&r->journal, slot->instance, inst->name, slot->repetition);
    ompb__body_guard_slot_begin(slot->instance * r->reps + slot->repetition);
    ompb__engine_env env = ompb__engine_env_default();
    int rc = ompb__round_run(&env, inst, &sampling, r->plans[slot->instance], &res->rec);
    /* From here to slot_done no stop (lib/engine/body_guard.h) reads the result. */
    ompb__body_guard_slot_end();
    res->process = process;
    if (rc == OMPB_ENOMEM) {
        res->rec.failed = true;
        snprintf(res->rec.error, sizeof res->rec.error, "%.200s: out of memory for %llu rounds",
                 inst->name, (unsigned long long)sampling.rounds);
    }
    res->rec.inst = inst;
    /* An interrupted slot is said once, with what did not run, when the run stops. */
    if (!res->rec.interrupted && res->rec.failed)
        fprintf(stderr, "%s: %s\n", r->argv0, res->rec.error);
    else if (!res->rec.interrupted && calibrates)
        *calibrated = res->rec.sample_size;
    slot_warnings(r, inst, res);
    int failed = !ompb__run_analyze(r, res) || res->rec.failed;
    /* Before slot_done: a stop (exit(), --timeout) never meets a line half written. */
    if (!res->rec.interrupted && ompb__journal_add(&r->journal, &res->rec, slot->instance) != 0)
        fprintf(stderr, "%s: warning: %s: cannot add %s to the journal\n", r->argv0,
                r->journal.path, inst->name);
    ompb__body_guard_slot_done();
    return failed;
}

int ompb__run_share(ompb__run *r, uint32_t process)
{
    ompb__schedule_spec spec = {
        .instances = r->n_sel, .repetitions = r->reps, .processes = r->processes,
        .process = process, .seed = ompb__seed_for_process(r->seed, process),
        .interleave = r->interleave,
    };
    ompb__slot *slots = NULL;
    size_t n, *last = NULL;
    uint64_t *calibrated = calloc(r->n_sel, sizeof *calibrated);
    if (!calibrated || ompb__schedule_make(&spec, &slots, &n) != 0 ||
        !(last = last_slots(slots, n, r->n_sel))) {
        free(calibrated);
        free(slots);
        return -1;
    }
    int failures = 0;
    for (size_t j = 0; j < n && !ompb__body_guard_signal(); j++) {
        bool is_last = last[slots[j].instance] == j;
        ompb__run_progress(r, j, n, &slots[j]);
        /* Back to back (one CodSpeed window per instance), the window stays
         * open until the instance's last repetition. */
        failures += run_slot(r, &slots[j], &calibrated[slots[j].instance],
                             !r->interleave && !is_last, process);
        /* Interrupted: the instance's window closes now, with what it has. */
        if (is_last || ompb__body_guard_signal())
            ompb__instrument_window_close(&r->sel[slots[j].instance]);
    }
    ompb__run_progress(r, 0, 0, NULL);
    free(last);
    free(slots);
    free(calibrated);
    return failures;
}
