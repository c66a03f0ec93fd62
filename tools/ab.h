/* SPDX-License-Identifier: MIT */
/*
 * `ompbench ab`, the command's side: tools/ab.c reads the options and
 * drives the pairs of runs; tools/ab_run.c starts and watches the runs
 * (one process each, in its own process group, bounded, every fault
 * classified); tools/ab_check.c refuses what cannot be run and says when
 * nothing was compared. The decisions (pooling, looks, verdicts, why the
 * runs end) and the report are the tools library's (analysis/ab.h), on
 * small values: the settings, the ledger of runs, the rows, the result.
 */
#ifndef OMPB_TOOLS_AB_H
#define OMPB_TOOLS_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

/* The budget of one run: a tenth of the defaults, as one process of
 * --processes 10 gets (docs/guide.md, "Comparing runs in CI"), and on a
 * busy machine more rounds (within that budget) until 5 were clean, so that
 * the run has a clean-round median; option and value pairs, each left out
 * when the benchmark options after `--` give it. */
#define OMPB__AB_RUN_BUDGET "--sample-count", "10", "--warmup-time", "10ms", "--max-time", \
    "500ms", "--min-clean-rounds", "5"
/* The wall-time budget of a comparison without --max-time: what one CI
 * job can give a benchmark comparison. */
#define OMPB__AB_DEFAULT_MAX_TIME_NS (600ull * 1000000000ull)
/* The longest --filter alternation a run gets; more open names go to the
 * benchmark in a file (--exact-file): Linux refuses one argument over
 * 128 KiB with "Argument list too long". */
#define OMPB__AB_FILTER_MAX (64 * 1024)

/* How the runs are made: what only the processes need. */
typedef struct ompb__ab_exec {
    char **bench_args;          /* after --, borrowed from argv */
    size_t n_bench_args;
    const char *timeout;        /* --timeout as given, passed through; NULL: none */
    uint64_t timeout_ns;
    const char *dir;            /* where the runs' files go */
    bool progress;              /* stderr is a terminal */
    uint64_t start_ns;
    double list_seconds;        /* the two --list runs took */
    /* Why a run's file could not give --metric (the comparison then
     * stops, exit status 2); "" while they do. */
    char metric_error[400];
} ompb__ab_exec;

/* ---- tools/ab_run.c ---- */

/* SIGINT, SIGTERM and SIGHUP set a flag and are passed on to the run in
 * progress; the signal caught, or 0. */
void ompb__ab_catch_signals(void);
int ompb__ab_stop_signal(void);

/* Runs side's command with --list and the benchmark options: 0 with the
 * names (malloc'd array of malloc'd strings, in order, no duplicates), or
 * 2 after printing why it cannot run. rows: for the progress line. */
int ompb__ab_list(const ompb__ab_exec *x, const ompb__ab_settings *set,
                  const ompb__ab_rows *rows, int side, char ***names, size_t *n);

/* One run of side over the open rows (all of them when all is set; only
 * the instance named only, when not NULL): appended to the ledger, its
 * file pooled there when it is usable. Returns 0, or OMPB_ENOMEM.
 * deadline_ns (0: none) stops it. */
int ompb__ab_run_side(ompb__ab_exec *x, const ompb__ab_settings *set, ompb__ab_ledger *l,
                      const ompb__ab_rows *rows, int side, bool all, const char *only,
                      uint64_t deadline_ns);

/* The progress line on a terminal (nothing otherwise); done clears it. */
void ompb__ab_progress(const ompb__ab_exec *x, const ompb__ab_settings *set,
                       const ompb__ab_ledger *l, const ompb__ab_rows *rows, bool done);

/* ---- tools/ab_check.c ---- */

/* Before the first run: the report paths (opts[k] names paths[k], NULL:
 * not given) against the inputs, each other and --keep's files; the
 * benchmark options after --. 0, or 2 after one line. */
int ompb__ab_check_outputs(const ompb__ab_settings *set, const ompb__ab_exec *x,
                           const char *keep, const char *const *opts, const char *const *paths,
                           size_t n_out);
int ompb__ab_check_bench_args(const ompb__ab_exec *x);

/* After the runs: 2 after one line when a side has no usable run, never
 * ran within --max-time, or stopped the runs by failing 3 in a row; else 0. */
int ompb__ab_check_compared(const ompb__ab_settings *set, const ompb__ab_exec *x,
                            const ompb__ab_ledger *l, const ompb__ab_result *res);
/* Warnings on stderr: runs that faulted, times of 0. */
void ompb__ab_warn(const ompb__ab_settings *set, const ompb__ab_ledger *l,
                   const ompb__ab_rows *rows);

#endif
