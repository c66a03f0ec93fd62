/* SPDX-License-Identifier: MIT */
/*
 * The run behind ompb_main (include/ompbench/run.h), inside the library.
 * Eight files share its state, each calling only the ones listed after it:
 *
 * - lib/run/run.c: ompb_main, the order of the stages, how the run repeats
 *   once the instrument is known, the end of the process;
 * - lib/run/run_prepare.c: everything before measuring (options, selection,
 *   pin plans, output paths, counter probe; --help, --list, ... stop here);
 * - lib/run/run_processes.c: the parent of --processes, which takes the
 *   children's records into the results;
 * - lib/run/run_journal.c: the journal of the repetitions completed, the
 *   crash handler that finishes it, and the report made from a journal;
 * - lib/run/run_stop.c: partial reports (and the journal's end once a
 *   report is out): a stop by the guard (exit() in a
 *   body, --timeout) or a signal hands on the completed repetitions;
 * - lib/run/run_output.c: what the process hands on (the report and the
 *   CodSpeed files, or a child's dump);
 * - lib/run/run_slots.c: the repetitions this process measures, one slot at
 *   a time, and the results they fill;
 * - lib/run/run_ranks.c: a distributed run's agreement before running and the
 *   ranks' pin maps.
 */
#ifndef OMPB_RUN_H
#define OMPB_RUN_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/error.h>

#include "config/config.h"
#include "context/context.h"
#include "core/core.h"
#include "placement/placement.h"
#include "model/model.h"
#include "report/report.h"
#include "run/journal.h"

typedef struct ompb__run {
    ompb__config cfg;
    int argc;
    char **argv;
    const char *argv0;
    ompb__instance *sel;        /* the selected instances, in registration order */
    size_t n_sel;
    ompb__topology *topo;
    ompb__pin_plan **plans;     /* [n_sel] */
    ompb__context *ctx;
    uint32_t reps;              /* repetitions per instance in this run */
    uint32_t processes;         /* processes they run in (1: this one) */
    uint64_t seed;
    bool interleave;
    bool simulate;              /* CPU simulation (rank 0's mode in a distributed run) */
    ompb__result *results;      /* [n_sel * reps]: instance i, repetition r at i * reps + r */
    ompb__outfile out;
    int stopped_by;             /* the signal that stopped the measuring (0: none) */
    ompb__journal journal;      /* of this process's repetitions (fd -1: none) */
    char **crash_argv;          /* the process a crash starts (NULL: none) */
    char *crash_opt;
    cpu_set_t cpus;             /* the process's affinity before measuring */
    bool crash_handler;         /* OMPB_CRASH_HANDLER is not 0 */
    /* A distributed run's ranks usually reject the same input alike: the
     * other ranks keep their message until rank 0 has said whether it
     * printed one (ompb__run_agree), so the user reads it once. */
    char held_error[OMPB_ERROR_TEXT_MAX + 64];
} ompb__run;

/* ---- lib/run/run_prepare.c ------------------------------------------------------ */

/* Everything up to measuring: returns -1 to go on, else an exit status
 * (the message printed, or held: ompb__run_usage_error). */
int ompb__run_prepare(ompb__run *r, int argc, char **argv, ompb_error *err);

/* ---- lib/run/run_processes.c ---------------------------------------------------- */

/* Process-level repetitions: the children run, this process collects.
 * Returns the failed repetitions or a negative code (err set); a signal
 * that ended the children sets r->stopped_by and returns 0. */
int ompb__run_processes(ompb__run *r, ompb_error *err);

/* ---- lib/run/run_journal.c -------------------------------------------------------- */

/* Opens the journal of the repetitions this process measures and, unless
 * OMPB_CRASH_HANDLER=0 (r->crash_handler, read by ompb__run_prepare), the
 * crash handler that finishes it. Returns 0, or OMPB_EIO with err set
 * (nothing measured yet). */
int ompb__run_journal_begin(ompb__run *r, ompb_error *err);
/* --ompb-journal(-json)=PATH: the report of the journal PATH, marked
 * partial. Returns the exit status (2 for a malformed journal, one line). */
int ompb__run_from_journal(ompb__run *r, ompb_error *err);

/* ---- lib/run/run_stop.c ----------------------------------------------------------- */

/* The guard's stop (lib/engine/body_guard.h, ompb__body_guard_stop_fn; arg is the run). */
void ompb__run_stop(void *arg, const char *by, const char *why);
/* The master stopped measuring on sig: says so once and hands on the
 * completed repetitions. The caller frees the run and dies of sig. */
void ompb__run_report_signal(ompb__run *r, int sig);
/* Restores the crash signals, closes the journal and removes it: the process
 * that reaches its report (or dump), written or not, says what became of
 * it; the journal is for a process that cannot. */
void ompb__run_journal_end(ompb__run *r);
/* The report of a journal: the completed repetitions, marked partial (by:
 * what ended the run), with slot `at` failed with why (SIZE_MAX: none), after
 * the line said. Returns the exit status. */
int ompb__run_report_journal(ompb__run *r, const char *by, size_t at, const char *why,
                             const char *said, ompb_error *err);

/* ---- lib/run/run_output.c --------------------------------------------------------- */

/* What this process hands on: a child's records to its parent, else the
 * report and the CodSpeed results. Returns status, or the exit status of
 * the failure (message printed). */
int ompb__run_hand_on(ompb__run *r, const ompb__result *results, size_t n, int status,
                      ompb_error *err);

/* ---- lib/run/run_slots.c ---------------------------------------------------------- */

/* Runs this process's share of the repetitions in schedule order. Returns
 * the failed repetitions, or -1 when out of memory. */
int ompb__run_share(ompb__run *r, uint32_t process);
/* Instance i's repetition rep in r->results. */
ompb__result *ompb__run_result(const ompb__run *r, size_t instance, uint32_t repetition);
/* Marks res failed with a message, keeping the instance and repetition. */
void ompb__run_fail_result(ompb__result *res, const ompb__instance *inst, uint32_t repetition,
                           uint32_t process, const char *why);
/* Derived figures of a measured repetition; false when they cannot be had. */
bool ompb__run_analyze(const ompb__run *r, ompb__result *res);
/* A progress line on stderr, only when it is a terminal; slot NULL clears it. */
void ompb__run_progress(const ompb__run *r, size_t done, size_t total, const ompb__slot *slot);

/* ---- lib/run/run_ranks.c ---------------------------------------------------------- */

/* A rejected input: printed on rank 0, held on the others until the
 * agreement. Returns OMPB_EXIT_USAGE. */
int ompb__run_usage_error(ompb__run *r, const ompb_error *err);
/* Prints and forgets a held message (this rank's own failure after the
 * agreement). */
void ompb__run_say_held(ompb__run *r);
/* A distributed run goes on only when every rank would: status is this
 * rank's ompb__run_prepare result; returns -1 to go on, else the exit
 * status, the same on every rank. Without a distribution: status. */
int ompb__run_agree(ompb__run *r, int status);
/* Rank 0 records every rank's PU map of each plan width in the context. */
void ompb__run_gather_pin_maps(ompb__run *r);

#endif
