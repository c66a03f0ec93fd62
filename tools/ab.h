/* SPDX-License-Identifier: MIT */
/*
 * `ompbench ab`: the state shared by its files. tools/ab.c reads the
 * options and drives the pairs of runs; tools/ab_run.c starts and watches
 * the runs (one process each, in its own process group, bounded, every
 * fault classified); tools/ab_judge.c pools the runs' files exactly as
 * `ompbench compare --base/--head` does and takes the sequential looks
 * (analysis/sequential.h); tools/ab_report.c renders the result.
 */
#ifndef OMPB_TOOLS_AB_H
#define OMPB_TOOLS_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

#define OMPB__AB_TOOL "ompbench ab"
#define OMPB__AB_BASE 0
#define OMPB__AB_HEAD 1
/* A side whose runs fail this many times in a row is not run again. */
#define OMPB__AB_MAX_FAULTS_IN_A_ROW 3
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

/* One instance: compare's figures of the pooled runs and the looks. */
typedef struct ompb__ab_row {
    char *name;
    ompb__compare_row cmp;      /* from the latest pooling; its pointers
                                   borrow from the loaded files */
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

typedef struct ompb__ab {
    /* Settings, fixed before the first run. */
    const char *cmd[2];         /* the binaries, or the --base-cmd/--head-cmd */
    bool shell[2];              /* cmd is a shell command (run by /bin/sh) */
    char **bench_args;          /* after --, borrowed from argv */
    size_t n_bench_args;
    ompb__seq_plan plan;
    ompb__compare_opts opts;
    /* --metric: NULL for time, else the counter whose values every run's
     * file gives in place of its times (analysis/metric.h), in unit (the
     * first file's); metric_error: why a file could not give it (the
     * comparison then stops, exit status 2). */
    const char *metric;
    ompb__metric_unit unit;
    bool unit_known;
    char metric_error[400];
    size_t min_runs, max_runs;
    uint64_t time_ns;           /* --time, 0: none */
    const char *time_text;      /* --max-time/--time as given; NULL: the default */
    double list_seconds;        /* the two --list runs took */
    const char *timeout;        /* --timeout as given, passed through; NULL: none */
    uint64_t timeout_ns;
    uint64_t seed;
    const char *dir;            /* where the runs' files go */
    bool keep;                  /* dir is --keep's, not a temporary one */
    bool progress;              /* stderr is a terminal */
    /* What happened. */
    ompb__ab_row *rows;
    size_t n_rows, cap_rows;
    ompb__name_index row_index; /* row name -> index in rows */
    ompb__ab_run *runs;
    size_t n_runs, cap_runs;
    size_t side_runs[2], pooled[2], faults_in_a_row[2];
    ompb__resultfile *files[2]; /* pooled files per side */
    size_t n_files[2], cap_files[2];
    size_t *file_pair[2];       /* [n_files[side]]: the pair (1, 2, ...) each
                                   file's run belongs to */
    size_t cap_pairs[2];
    ompb__comparison cmp;       /* the latest pooling */
    bool have_cmp;
    size_t counts[OMPB__VERDICT_COUNT];
    size_t judged, open;        /* rows with a look; rows still to be run */
    uint64_t start_ns;
    double seconds;
    bool partial;               /* interrupted: what was run so far */
    int fault_stop;             /* 1 + the side whose faults in a row stopped
                                   the runs; 0: they did not */
    char stop_reason[200];      /* why the runs ended */
} ompb__ab;

/* ---- tools/ab_run.c ---- */

/* SIGINT, SIGTERM and SIGHUP set a flag and are passed on to the run in
 * progress; the signal caught, or 0. */
void ompb__ab_catch_signals(void);
int ompb__ab_stop_signal(void);

/* Runs side's command with --list and the benchmark options: 0 with the
 * names (malloc'd array of malloc'd strings, in order, no duplicates), or
 * 2 after printing why it cannot run. */
int ompb__ab_list(ompb__ab *ab, int side, char ***names, size_t *n);

/* One run of side over the open instances (all of them when all is set):
 * appended to ab->runs, its file loaded into ab->files when it is usable.
 * Returns 0, or OMPB_ENOMEM. deadline_ns (0: none) stops it. */
int ompb__ab_run_side(ompb__ab *ab, int side, bool all, uint64_t deadline_ns);

/* The progress line on a terminal (nothing otherwise); done clears it. */
void ompb__ab_progress(const ompb__ab *ab, bool done);

/* ---- tools/ab_judge.c ---- */

/* Pools every usable file and takes the looks that are due; then the
 * verdicts after Benjamini-Hochberg. Returns 0 or OMPB_ENOMEM. */
int ompb__ab_judge(ompb__ab *ab);

/* After the last pooling: the code check of every row flagged regressed
 * or improved. */
void ompb__ab_check_code(ompb__ab *ab);

/* Adds the rows of side's --list (in order). Returns 0 or OMPB_ENOMEM. */
int ompb__ab_add_listed(ompb__ab *ab, int side, char **names, size_t n);

void ompb__ab_free(ompb__ab *ab);

/* ---- tools/ab_check.c ---- */

/* Before the first run: the report paths (opts[k] names paths[k], NULL:
 * not given) against the inputs, each other and --keep's files; the
 * benchmark options after --. 0, or 2 after one line. */
int ompb__ab_check_outputs(const ompb__ab *ab, const char *keep, const char *const *opts,
                           const char *const *paths, size_t n_out);
int ompb__ab_check_bench_args(const ompb__ab *ab);

/* After the runs: 2 after one line when a side has no usable run, never
 * ran within --max-time, or stopped the runs by failing 3 in a row; else 0. */
int ompb__ab_check_compared(const ompb__ab *ab);
/* Warnings on stderr: runs that faulted, times of 0. */
void ompb__ab_warn(const ompb__ab *ab);

/* ---- tools/ab_report.c ---- */

/* Writes the report in fmt. Returns 0 or OMPB_EIO. */
int ompb__ab_print(FILE *out, const ompb__ab *ab, ompb__report_format fmt);

/* "crashed", "killed", ... */
const char *ompb__ab_outcome_name(ompb__ab_outcome o);

#endif
