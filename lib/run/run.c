/* SPDX-License-Identifier: MIT */
/*
 * ompb_main: the command line every benchmark binary shares, as stages
 * (lib/run/run.h): prepare (validate everything, open nothing that a bad
 * option would leave behind), agree across ranks, decide how the run
 * repeats once the instrument is known, measure here or in child
 * processes, hand on the report; a signal that stopped the measuring ends
 * the process after the partial report.
 */
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ompbench/run.h>

#include "engine/engine.h"
#include "hooks/hooks.h"
#include "model/model.h"

static void run_free(ompb__run *r)
{
    ompb__run_journal_end(r);
    if (r->out.fp)
        ompb__outfile_abort(&r->out);
    for (size_t i = 0; r->results && i < r->n_sel * r->reps; i++)
        ompb__record_free(&r->results[i].rec);
    for (size_t i = 0; r->plans && i < r->n_sel; i++)
        ompb__pin_plan_free(r->plans[i]);
    free(r->results);
    free(r->plans);
    if (r->ctx)
        ompb__context_free(r->ctx);
    if (r->topo)
        ompb__topology_close(r->topo);
    free(r->sel);
    ompb__config_release(&r->cfg);
}

/* How this run repeats, once the instrument mode is known. Under the
 * CodSpeed runner each instance gets one benchmark window (windows cannot
 * interleave, and children would be processes the runner does not know), so
 * its repetitions run back to back in this process; CPU simulation counts
 * instructions, which do not vary, so once, and without --counters (the
 * sampling drops them: callgrind is the counter there). */
static void plan_repetitions(ompb__run *r)
{
    ompb__mode mode = ompb__instrument_mode();
    /* Every rank runs rank 0's shape: only rank 0 knows the instrument. */
    bool simulate = ompb__dist_from_rank0(mode == OMPB__MODE_SIMULATION) != 0;
    r->simulate = simulate;
    r->reps = ompb__sampling_repetitions(&r->cfg, simulate);
    r->processes = r->cfg.processes;
    r->interleave = mode == OMPB__MODE_NONE;
    r->seed = r->cfg.seed_given ? r->cfg.seed : ompb__seed_from_clock();
    if (simulate && r->cfg.repetitions > 1)
        ompb__context_warn(r->ctx, "CPU simulation: each instance runs once (instruction counts "
                           "do not vary between repetitions); --repetitions %u ignored",
                           r->cfg.repetitions);
    if (simulate && r->cfg.counters.n > 0)
        ompb__context_warn(r->ctx, "CPU simulation: callgrind counts the instructions, the "
                           "thread runs alone; --counters ignored");
    if (mode != OMPB__MODE_NONE && r->processes > 1 && !r->cfg.child)
        ompb__context_warn(r->ctx, "under the CodSpeed runner all repetitions run in this "
                           "process (one benchmark window per instance); --processes %u ignored",
                           r->processes);
    if (mode != OMPB__MODE_NONE)
        r->processes = 1;
    /* Every rank runs rank 0's schedule (rank 0 alone knows the CodSpeed
     * runner, and seeds from its clock). */
    if (ompb__dist()) {
        uint64_t hi = (uint64_t)ompb__dist_from_rank0((int64_t)(r->seed >> 32));
        uint64_t lo = (uint64_t)ompb__dist_from_rank0((int64_t)(r->seed & UINT32_MAX));
        r->seed = hi << 32 | lo;
        r->interleave = ompb__dist_from_rank0(r->interleave) != 0;
    }
    ompb__context_set_repetitions(r->ctx, r->reps, r->processes, r->interleave && r->reps > 1,
                                  r->seed);
    r->ctx->thread_columns = r->cfg.thread_columns;
}

/* Once per run, like Google Benchmark's warning about its own debug build,
 * but about the benchmark code: the library's build in the header says
 * nothing of how the file that holds OMPB_BENCH was compiled (a CMake
 * project without CMAKE_BUILD_TYPE builds it at -O0). */
static void unoptimized_warning(const ompb__run *r)
{
    size_t n = 0, first = 0;
    for (size_t i = 0; i < r->n_sel; i++)
        if (r->sel[i].unoptimized && n++ == 0)
            first = i;
    if (n == 0)
        return;
    const ompb_benchmark *b = r->sel[first].bench;
    ompb__context_warn(r->ctx, "benchmark code compiled without optimization (no -O where "
                       "OMPB_BENCH expands): %zu instance%s, the first %s in %s; its figures "
                       "are not an optimized build's (often several times slower): compile "
                       "the benchmark file with -O2 (CMake: -DCMAKE_BUILD_TYPE=Release); "
                       "marked unoptimized", n, ompb__plural((int)n), r->sel[first].name,
                       ompb__uri_file(b->file));
}

/* Bodies run in this process: an exit() in one must not pass for success,
 * a signal stops the run between rounds. The ranks of a distributed run
 * must stop alike: there mpirun handles signals. */
static int measure_here(ompb__run *r)
{
    int widest = 1;
    for (size_t i = 0; i < r->n_sel; i++)
        widest = r->sel[i].threads > widest ? r->sel[i].threads : widest;
    /* A distributed run's ranks have no journal: the launcher ends them all. */
    ompb_error err = {0};
    if (!ompb__dist() && ompb__run_journal_begin(r, &err) != 0) {
        fprintf(stderr, "%s: %s\n", r->argv0, err.text);
        return OMPB_EIO;
    }
    ompb__body_guard_run_begin(ompb__run_stop, r, !ompb__dist(), r->cfg.timeout_ns, widest);
    int failures = ompb__run_share(r, r->cfg.child ? r->cfg.child_index : 0);
    int sig = ompb__body_guard_claim();
    ompb__body_guard_run_end();
    ompb__outfile_c_locale(); /* bodies may have called setlocale() */
    r->stopped_by = sig;
    return failures;
}

/* Measures (here, or in child processes), then reports. Returns the exit
 * status; a signal that stopped the measuring is left in r->stopped_by,
 * after its partial report. */
static int measure_and_report(ompb__run *r, ompb_error *err)
{
    r->results = calloc(r->n_sel * r->reps, sizeof *r->results);
    if (!r->results) {
        fprintf(stderr, "%s: out of memory\n", r->argv0);
        return OMPB_EXIT_FAILED;
    }
    for (size_t i = 0; i < r->n_sel; i++)
        ompb__context_add_plan(r->ctx, r->plans[i]);
    ompb__run_gather_pin_maps(r);
    unoptimized_warning(r);
    if (r->cfg.journal_in) {
        int status = ompb__run_from_journal(r, err);
        /* The process a crash started: the journal is in the report now. */
        if (!r->cfg.journal_json && status != OMPB_EXIT_USAGE)
            unlink(r->cfg.journal_in);
        return status;
    }
    bool parent = r->processes > 1 && !r->cfg.child;
    int failures = parent ? ompb__run_processes(r, err) : measure_here(r);
    if (failures == OMPB_EIO && !parent)
        return OMPB_EXIT_USAGE; /* no journal: said, nothing measured */
    if (r->stopped_by) {
        ompb__run_report_signal(r, r->stopped_by);
        return OMPB_EXIT_FAILED;
    }
    ompb__outfile_c_locale();
    if (failures < 0) {
        fprintf(stderr, "%s: %s\n", r->argv0, failures == OMPB_EIO ? err->text : "out of memory");
        return failures == OMPB_EIO ? OMPB_EXIT_USAGE : OMPB_EXIT_FAILED;
    }
    int status = failures ? OMPB_EXIT_FAILED : OMPB_EXIT_OK;
    if (ompb__dist_rank() != 0)
        return status; /* rank 0 reports for all */
    status = ompb__run_hand_on(r, r->results, r->n_sel * r->reps, status, err);
    ompb__run_journal_end(r);
    return status;
}

/* A run that stops before measuring: its status, after a check that what
 * it printed reached standard output. */
static int stop_before_measuring(ompb__run *r, int status, ompb_error *err)
{
    if (status == OMPB_EXIT_OK && ompb__outfile_flush_stdout(err) != 0) {
        status = ompb__run_usage_error(r, err);
        ompb__run_say_held(r); /* this rank's own stdout: its own message */
    }
    run_free(r);
    return status;
}

/* The run's context, warnings included; NULL when out of memory. */
static ompb__context *make_context(ompb__run *r)
{
    /* A child's warnings reach the user through its parent, once. */
    ompb__context_env env = {.quiet = r->cfg.child || ompb__dist_rank() != 0};
    ompb__context *ctx = ompb__context_new_in(&env, &r->cfg.pin, r->cfg.default_threads,
                                              r->argv0);
    if (!ctx)
        return NULL;
    /* The guard matters to rounds only: a region report's context (an
     * application, which has no guard) does not warn about it. */
    const char *guard = ompb__fork_guard_warning(ompb__fork_guard_coverage());
    if (guard)
        ompb__context_warn(ctx, "%s", guard);
    ompb__context_set_topology(ctx, r->topo);
    ompb__context_set_distribution(ctx, ompb__dist());
    return ctx;
}

int ompb_main(int argc, char **argv)
{
    ompb__run r;
    memset(&r, 0, sizeof r);
    r.journal.fd = -1;
    r.argc = argc;
    r.argv = argv;
    r.argv0 = argc > 0 ? argv[0] : "ompbench";
    ompb_error err = {0};
    int status = ompb__run_agree(&r, ompb__run_prepare(&r, argc, argv, &err));
    if (status >= 0)
        return stop_before_measuring(&r, status, &err);
    /* Only rank 0 talks to the CodSpeed runner and prints warnings. A child
     * of --processes never looks for one: its parent made children only
     * because it found none (plan_repetitions), and a runner that appeared
     * since would make the child re-decide its share of the repetitions
     * (all of them, back to back) and talk to a runner its parent does not. */
    if (ompb__dist_rank() == 0 && !r.cfg.child && !r.cfg.journal_in)
        ompb__instrument_init();
    r.ctx = make_context(&r);
    if (!r.ctx) {
        fprintf(stderr, "%s: out of memory\n", r.argv0);
        run_free(&r);
        return OMPB_EXIT_FAILED;
    }
    plan_repetitions(&r);
    status = measure_and_report(&r, &err);
    int sig = r.stopped_by;
    run_free(&r);
    if (sig)
        ompb__signal_die_of(sig);
    return status;
}
