/* SPDX-License-Identifier: MIT */
/*
 * The decisions and the report of `ompbench ab`, without processes: what
 * the command (tools/ab*.c) hands in are small values, each owned by one
 * side of the work:
 *   ompb__ab_settings  fixed before the first run (options, the plan of
 *                      looks); read only here;
 *   ompb__ab_ledger    the runs so far: per side its runs, the pooled files
 *                      and the pair each belongs to, faults in a row; the
 *                      command appends, the judge reads;
 *   ompb__ab_rows      the instances with their looks and verdicts, and the
 *                      latest pooling (compare's, whose rows they borrow);
 *   ompb__ab_result    the outcome: verdict counts, why the runs ended,
 *                      whether the report is partial.
 * ab_judge.c pools the ledger's files as `ompbench compare --base/--head`
 * does and takes the sequential looks (analysis/sequential.h) on the pairs
 * of runs, then Benjamini-Hochberg across the rows; ab_gate.c turns the
 * verdicts into the CI gate's exit status; ab_report.c renders the four
 * values in console, markdown or JSON.
 */
#ifndef OMPB_ANALYSIS_AB_H
#define OMPB_ANALYSIS_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/compare.h"
#include "analysis/metric.h"
#include "analysis/nameindex.h"
#include "analysis/resultfile.h"
#include "analysis/sequential.h"
#include "analysis/units.h"

#define OMPB__AB_TOOL "ompbench ab"
#define OMPB__AB_BASE 0
#define OMPB__AB_HEAD 1
/* A side whose runs fail this many times in a row is not run again. */
#define OMPB__AB_MAX_FAULTS_IN_A_ROW 3
/* The fixed recipe the report measures itself against: runs per side. */
#define OMPB__AB_RECIPE_RUNS 10

typedef enum ompb__ab_outcome {
    OMPB__AB_RUN_OK,            /* exit status 0, its file read */
    OMPB__AB_RUN_FAILED,        /* exit status 1 (a benchmark failed or
                                   outlived --timeout), its file read: pooled,
                                   the failed instances show as failed */
    OMPB__AB_RUN_CRASHED,       /* ended by a signal */
    OMPB__AB_RUN_EXIT,          /* another exit status */
    OMPB__AB_RUN_KILLED,        /* still running at its deadline: stopped */
    OMPB__AB_RUN_BAD_FILE,      /* exited, but its file is missing or unreadable */
    OMPB__AB_RUN_INTERRUPTED    /* Ctrl-C (or SIGTERM, SIGHUP) during the run */
} ompb__ab_outcome;

/* --pair-by. The first pair is always a BASE and a HEAD run of every
 * instance. After it, INSTANCE makes each pair one open instance's BASE
 * and HEAD runs back to back (--exact), each open instance once per round,
 * so that both runs of a pair see the machine alike; RUN makes each pair
 * two runs of every open instance, a whole suite run apart. AUTO (the
 * default) pairs by instance while that costs at most
 * OMPB__AB_AUTO_ROUND_RATIO times the first pair per round: a round of
 * instance pairs that has taken longer is cut there, and the pairs are by
 * run from then on (a suite of many short instances, whose process starts
 * would dominate). */
typedef enum ompb__ab_pairing {
    OMPB__AB_PAIR_AUTO,
    OMPB__AB_PAIR_RUN,
    OMPB__AB_PAIR_INSTANCE
} ompb__ab_pairing;
#define OMPB__AB_AUTO_ROUND_RATIO 2.0

/* What a comparison is, fixed before the first run. */
typedef struct ompb__ab_settings {
    const char *cmd[2];         /* the binaries, or the --base-cmd/--head-cmd */
    bool shell[2];              /* cmd is a shell command (run by /bin/sh) */
    ompb__seq_plan plan;
    ompb__compare_opts opts;
    /* --metric: NULL for time, else the counter whose values every run's
     * file gives in place of its times (analysis/metric.h). */
    const char *metric;
    size_t min_runs, max_runs;
    uint64_t time_ns;           /* --time, 0: none */
    const char *time_text;      /* --max-time/--time as given; NULL: the default */
    const char *time_opt;       /* the name it was given by: --max-time or --time */
    uint64_t seed;
    bool keep;                  /* the runs' files are kept (--keep) */
    ompb__ab_pairing pair_by;   /* --pair-by */
} ompb__ab_settings;

typedef struct ompb__ab_run {
    int side;                   /* OMPB__AB_BASE or OMPB__AB_HEAD */
    size_t index;               /* 1, 2, ... per side */
    char *path, *log;           /* its JSON file and its stdout+stderr */
    char *names;                /* its --exact-file, when it needed one */
    size_t instances;           /* selected for it */
    bool cut_by_time;           /* its deadline was the end of --time */
    ompb__ab_outcome outcome;
    char detail[200];           /* what went wrong, one line; "" when OK */
    double seconds;
} ompb__ab_run;

/* The runs so far. Owns the runs' strings and the pooled files. */
typedef struct ompb__ab_ledger {
    ompb__ab_run *runs;
    size_t n_runs, cap_runs;
    size_t side_runs[2], pooled[2], faults_in_a_row[2];
    ompb__resultfile *files[2]; /* pooled files per side */
    size_t n_files[2], cap_files[2];
    size_t *file_pair[2];       /* [n_files[side]]: the pair (1, 2, ...) each
                                   file's run belongs to */
    size_t cap_pairs[2];
    /* --metric's unit, from the first file that gave it. */
    ompb__metric_unit unit;
    bool unit_known;
} ompb__ab_ledger;

/* One instance: compare's figures of the pooled runs and the looks. */
typedef struct ompb__ab_row {
    char *name;
    ompb__compare_row cmp;      /* from the latest pooling; its pointers
                                   borrow from the ledger's files */
    bool listed[2];             /* in each side's --list */
    ompb__seq_state seq;
    ompb__verdict verdict;
    double q;                   /* Benjamini-Hochberg of seq.p; NAN if no look */
    size_t runs_needed;         /* open rows: runs per side that would likely
                                   decide (0: not within OMPB__SEQ_MAX_RUNS) */
    bool decided;               /* no further run needed */
    /* A row flagged regressed or improved at the end: whether the body's
     * machine code is the same in both builds (ompb__compare_code). */
    bool code_checked;
    ompb__code_result code;
} ompb__ab_row;

/* The instances, in the order the lists (then the files) named them. */
typedef struct ompb__ab_rows {
    ompb__ab_row *v;
    size_t n, cap;
    ompb__name_index index;     /* row name -> index in v */
    ompb__comparison cmp;       /* the latest pooling */
    bool have_cmp;
} ompb__ab_rows;

/* How the comparison came out. */
typedef struct ompb__ab_result {
    size_t counts[OMPB__VERDICT_COUNT];
    size_t judged, open;        /* rows with a look; rows still to be run */
    double seconds;
    bool partial;               /* interrupted: what was run so far */
    int fault_stop;             /* 1 + the side whose faults in a row stopped
                                   the runs; 0: they did not */
    char stop_reason[200];      /* why the runs ended */
    /* The pairs after the first were by run from pair by_run_from on
     * (numbered from 1, the first pair's; 2 for --pair-by run; 0: none
     * was), and, when --pair-by auto turned to them, why (pairing_note,
     * "" otherwise). */
    size_t by_run_from;
    char pairing_note[240];
} ompb__ab_result;

/* ---- the ledger (ab_judge.c) ---- */

/* Appends a run of side, numbered 1, 2, ... per side, with no outcome yet
 * and no paths (the caller sets them; ompb__ab_ledger_free frees them).
 * Returns the run, or NULL out of memory. The pointer is valid until the
 * next append. */
ompb__ab_run *ompb__ab_ledger_add_run(ompb__ab_ledger *l, int side);

/* After a run's outcome is known: its side's faults in a row (a run that
 * ended with OK or FAILED clears them). */
void ompb__ab_ledger_end_run(ompb__ab_ledger *l, const ompb__ab_run *run);

/* Pools rf (taken over, also on failure) as the file of run: numbered by
 * its pair. Returns 0 or OMPB_ENOMEM. */
int ompb__ab_ledger_pool(ompb__ab_ledger *l, const ompb__ab_run *run, ompb__resultfile *rf);

/* Whether run faulted for the report (any outcome but OK), and for the
 * gate and the warnings (crashed, hung, bad file: not FAILED or
 * INTERRUPTED). */
bool ompb__ab_run_is_fault(const ompb__ab_run *run);
bool ompb__ab_run_is_hard_fault(const ompb__ab_run *run);

void ompb__ab_ledger_free(ompb__ab_ledger *l);

/* ---- the rows and the judge (ab_judge.c) ---- */

/* Adds the rows of side's --list (in order). Returns 0 or OMPB_ENOMEM. */
int ompb__ab_rows_add_listed(ompb__ab_rows *rows, int side, char *const *names, size_t n);

/* Whether the row runs again: open, and listed by both sides. */
bool ompb__ab_row_runs_again(const ompb__ab_row *r);

/* Pools every file of the ledger and takes the looks that are due; then
 * the verdicts after Benjamini-Hochberg, and res's counts. Returns 0 or
 * OMPB_ENOMEM. */
int ompb__ab_judge(const ompb__ab_settings *set, const ompb__ab_ledger *l, ompb__ab_rows *rows,
                   ompb__ab_result *res);

/* After the last pooling: the code check of every row flagged regressed
 * or improved. */
void ompb__ab_check_code(ompb__ab_rows *rows);

void ompb__ab_rows_free(ompb__ab_rows *rows);

/* Before pair `pair` (0, 1, ...): why no further pair starts, into res
 * (stop_reason, partial, fault_stop), or false to go on. elapsed_s: the
 * comparison so far; last_pair_s: what the last pair took; stop_signal:
 * the signal that interrupted it, or 0. */
bool ompb__ab_should_stop(const ompb__ab_settings *set, const ompb__ab_ledger *l, size_t pair,
                          double elapsed_s, double last_pair_s, int stop_signal,
                          ompb__ab_result *res);

/* ---- the gate (ab_gate.c) ---- */

/* The CI gate's options. */
typedef struct ompb__ab_gate_opts {
    bool fail_on_regression;    /* a regression, a failure in HEAD, a HEAD run
                                   that crashed, hung or wrote a bad file, or
                                   (unless allow_undecided) an undecided row */
    bool fail_on_undecided;     /* an undecided row (or a time of 0) */
    bool allow_undecided;
    bool allow_layout;          /* a regression whose machine code is the
                                   same in both builds does not gate */
} ompb__ab_gate_opts;

/* Whether a HEAD run crashed, hung or wrote a bad file. */
bool ompb__ab_head_faulted(const ompb__ab_ledger *l);

/* The exit status of a comparison that ran to its end: 1 when the gate
 * fails, with one line on err that says why, else 0; a warning on err
 * when regressed rows have the same machine code in both builds. */
int ompb__ab_gate(const ompb__ab_gate_opts *g, const ompb__ab_ledger *l,
                  const ompb__ab_rows *rows, const ompb__ab_result *res, FILE *err);

/* ---- the report (ab_report.c) ---- */

/* Writes the report in fmt. Returns 0, OMPB_ENOMEM or OMPB_EIO. */
int ompb__ab_print(FILE *out, const ompb__ab_settings *set, const ompb__ab_ledger *l,
                   const ompb__ab_rows *rows, const ompb__ab_result *res,
                   ompb__report_format fmt);

/* "crashed", "killed", ... */
const char *ompb__ab_outcome_name(ompb__ab_outcome o);

#endif
