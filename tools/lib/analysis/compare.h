/* SPDX-License-Identifier: MIT */
/*
 * Comparing runs (`ompbench compare`): instances are matched by name across
 * a BASE side and a HEAD side, each one or more result files whose runs are
 * pooled. The unit of evidence is a run, a process, never a round or an
 * in-process repetition (those share the process's layout, placement and
 * machine state, so they say little about the next run;
 * docs/methodology.md). Per instance, Yuen's trimmed Welch t on the
 * logarithms of the runs' medians gives a confidence interval of
 * HEAD / BASE; a change
 * counts when that interval lies entirely beyond the threshold and the
 * test of "the change is within the threshold" survives Benjamini-Hochberg
 * across the instances judged; an interval entirely within the threshold is
 * "untouched"; anything else is "noisy": the run-to-run spread is too large
 * to tell at this threshold. With one run on a side the spread is unknown
 * and nothing is claimed; with a time of 0 (or one not positive and finite)
 * on a side there is no ratio, and nothing is claimed either ("no ratio").
 */
#ifndef OMPB_ANALYSIS_COMPARE_H
#define OMPB_ANALYSIS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include <ompbench/error.h>

#include "analysis/codeid.h"
#include "analysis/metric.h"
#include "analysis/resultfile.h"
#include "analysis/units.h"
#include "analysis/welch.h"

#define OMPB__COMPARE_DEFAULT_THRESHOLD 0.05
#define OMPB__COMPARE_DEFAULT_ALPHA 0.05
/* Share of the runs cut from each end of a side before the test (Yuen's
 * trimmed means, the customary 20%): one of 5 to 9 runs, two of 10 to 14. */
#define OMPB__COMPARE_TRIM 0.2
/* Most runs per side a "noisy" note will ask for; beyond: "more than". */
#define OMPB__COMPARE_MAX_RUNS 1000
/* What the reports suggest for runs without a known spread: the recipe
 * docs/guide.md recommends for CI ("Comparing runs in CI"), the one that
 * passed the A/A bar (docs/performance.md); sequential sides of
 * --processes 10 did not, so that is only the fallback for a side that
 * cannot be rerun. */
#define OMPB__COMPARE_RECOMMENDED                                                         \
    "10 runs a side, BASE and HEAD alternating, pooled with --base/--head"
#define OMPB__COMPARE_ONE_SIDE "--processes 10"
/* A side is judged on its clean values (ompb__rf_rep_clean, with
 * OMPB__CLEAN_MIN_ROUNDS) when two or more of its runs have them. */

/* In the order regressions-first reports list them (and JSON counts them);
 * each has one row in compare.c's table (ompb__verdict_row). */
typedef enum ompb__verdict {
    OMPB__VERDICT_REGRESSED,
    OMPB__VERDICT_FAILED,       /* failed in HEAD (whatever BASE did) */
    OMPB__VERDICT_IMPROVED,
    OMPB__VERDICT_NOISY,        /* the interval straddles the threshold */
    OMPB__VERDICT_DISTURBED,    /* the rounds were accounted and too few were
                                   clean: the team did not have its CPUs */
    OMPB__VERDICT_UNKNOWN,      /* one run on a side: noise unknown */
    OMPB__VERDICT_NO_RATIO,     /* a time (or --metric value) of 0, negative
                                   or not finite on a side: no ratio exists */
    OMPB__VERDICT_UNTOUCHED,
    OMPB__VERDICT_NEW,          /* only in HEAD, or failed in BASE only */
    OMPB__VERDICT_MISSING,      /* only in BASE (failed there or not) */
    OMPB__VERDICT_COUNT
} ompb__verdict;

/* What a verdict is and how the reports show it: one row per verdict
 * (compare_verdicts.c), read by compare's and ab's reports and gates. */
enum {
    OMPB__VERDICT_JUDGED = 1u << 0,   /* rests on a spread on both sides: summed under
                                         "Judged N of M instances" */
    OMPB__VERDICT_GATES = 1u << 1,    /* fails --fail-on-regression */
    OMPB__VERDICT_EMPHASIS = 1u << 2, /* stands out (bold) in markdown and summaries */
    OMPB__VERDICT_CHANGE = 1u << 3,   /* claims a change beyond the threshold: q value,
                                         and ab's interval of the deciding look */
    OMPB__VERDICT_RARE = 1u << 4,     /* compare's summary names it only when it
                                         occurs, with its cause */
    OMPB__VERDICT_UNDECIDED = 1u << 5, /* neither a change nor none: fails ab's
                                         --fail-on-undecided */
    OMPB__VERDICT_WHEN_SEEN = 1u << 6 /* summaries name it only when it occurs */
};

/* Within a verdict, the reports' tables list rows by: */
typedef enum ompb__verdict_sort {
    OMPB__SORT_FILE,            /* file order */
    OMPB__SORT_CHANGE_DESC,     /* change, largest first */
    OMPB__SORT_CHANGE_ASC,      /* change, largest speed-up first */
    OMPB__SORT_SIZE_DESC        /* |change|, largest first */
} ompb__verdict_sort;

typedef struct ompb__verdict_row {
    const char *name;           /* as reports print it: "noise unknown" */
    const char *key;            /* JSON key and HTML class: "noise_unknown" */
    unsigned flags;             /* OMPB__VERDICT_JUDGED, ... */
    ompb__verdict_sort sort;
    int summary;                /* position in the summary lines (ties: enum order) */
} ompb__verdict_row;

/* What the runs of a pair are, which decides what may be claimed. */
typedef enum ompb__basis {
    OMPB__BASIS_NONE,           /* presence alone: new, missing, failed, or no
                                   ratio (a time of 0 on a side) */
    OMPB__BASIS_PROCESSES,      /* 2+ processes per side: judged */
    /* One process on a side: noise unknown, with the in-process spread of */
    OMPB__BASIS_REPETITIONS,    /* its 2+ repetitions per side, or */
    OMPB__BASIS_AGGREGATES,     /* Google Benchmark's aggregates (mean and
                                   stddev of its repetitions) */
    OMPB__BASIS_SINGLE          /* one run on a side, one repetition: noise
                                   unknown, no spread at all */
} ompb__basis;

typedef struct ompb__compare_opts {
    double threshold;           /* fraction: 0.05 is 5% */
    double alpha;               /* interval level 1 - alpha and FDR level, in (0, 1) */
} ompb__compare_opts;

/* One side: result files whose runs are pooled (borrowed). */
typedef struct ompb__compare_side {
    const ompb__resultfile *files;
    size_t n;
} ompb__compare_side;

typedef struct ompb__compare_row {
    const char *name;                       /* borrowed from a result file */
    /* The instance in the first file of each side that has it (thread
     * counts, failure messages); either may be NULL. */
    const ompb__rf_instance *base, *head;
    size_t base_runs, head_runs;            /* runs (processes) per side */
    size_t base_reps, head_reps;            /* repetitions read per side */
    double base_ns, head_ns;    /* geometric (trimmed) mean of the runs'
                                   medians (of time, or of the --metric's
                                   values); NAN when absent */
    double base_spread, head_spread; /* (winsorized) standard deviation of
                                   log(run median): the run-to-run spread
                                   (0.05 is ~5%); for REPETITIONS and
                                   AGGREGATES the in-process spread of the
                                   repetitions; NAN for SINGLE and NONE */
    double change;              /* head / base - 1; NAN unless both present
                                   and base_ns > 0 */
    double ci_low, ci_high;     /* (1 - alpha) interval of the change; NAN
                                   without a spread on both sides */
    double p;                   /* p-value of |change| <= threshold; NAN when
                                   not tested */
    double q;                   /* its Benjamini-Hochberg adjustment */
    size_t runs_needed;         /* noisy with an interval across a threshold
                                   bound: runs per side that would decide at
                                   this spread, always more than either side
                                   had (MAX_RUNS + 1: more); else 0 */
    /* Noisy although the (1 - alpha) interval clears the threshold: the
     * interval at the level Benjamini-Hochberg decided at, 1 - alpha p / q
     * (it reaches the threshold, or the row would have counted); NAN
     * otherwise. */
    double bh_level, bh_low, bh_high;
    ompb__welch_result welch;   /* the test's figures (se NAN when untested) */
    /* The marks of each side (report/marks.h): the union over its files'
     * repetitions, and how many of its repetitions carry any. A marked side
     * is suspect: the verdict stands (and gates --fail-on-regression) but
     * every report says so in the row. */
    unsigned base_marks, head_marks;
    size_t base_marked, head_marked;
    ompb__verdict verdict;
    ompb__basis basis;
    /* Disturbance accounting: every repetition of both sides was accounted,
     * and so the pair was decided on its clean rounds (clean) or, with too
     * few, is disturbed; the runs with a clean value and the share of the
     * rounds that were clean, per side (NAN when not accounted). */
    bool accounted;
    size_t base_clean_runs, head_clean_runs;
    double base_clean_share, head_clean_share;
    /* A row that claims a change: whether the body's machine code and its
     * callees are the same in both builds (ompb__compare_code); checked
     * false for every other row. */
    bool code_checked;
    ompb__code_result code;
} ompb__compare_row;

/* A growing list of malloc'd lines. */
typedef struct ompb__lines {
    char **v;
    size_t n, cap;
} ompb__lines;

typedef struct ompb__comparison {
    ompb__compare_side base_side, head_side; /* borrowed */
    ompb__compare_opts opts;
    ompb__compare_row *rows;    /* first BASE file's order, then the other
                                   instances in the order first seen */
    size_t n;
    size_t counts[OMPB__VERDICT_COUNT];
    size_t judged;              /* rows with a run-to-run spread on both
                                   sides: regressed, improved, noisy, untouched
                                   (the BH family) */
    size_t in_process;          /* noise unknown, with in-process repetitions */
    size_t marked;              /* rows with a marked side */
    size_t marked_gating;       /* regressed or failed rows with a marked side */
    size_t accounted;           /* rows decided on clean rounds (or disturbed) */
    size_t layout_same;         /* regressed or improved rows whose code is the same */
    size_t layout_gating;       /* of them the gating ones (regressed): what
                                   --allow-layout-effects lets through */
    unsigned marks;             /* union of every row's marks, for the legend */
    double geomean_change;      /* exp(mean log(head/base)) - 1 over the pairs
                                   with both times > 0; NAN if there is none */
    size_t geomean_excluded;    /* pairs left out of it for a time of 0 */
    ompb__lines env_diffs;      /* "host_name: \"a\" vs \"b\"", one per difference */
    /* --metric: NULL for time, else the counter whose values the result
     * files hold (analysis/metric.h); unit formats the values. Set by the
     * caller after ompb__compare_runs (zero: time in ns). */
    const char *metric;
    ompb__metric_unit unit;
} ompb__comparison;

/*
 * Checks that the files of one side can be pooled: not the same file
 * twice, and all from the same benchmark binary (same executable name and,
 * when both record one, the same GNU build ID). side_name ("BASE") is for
 * the message. Returns 0, or OMPB_EINVAL with err: "FILE: what is wrong".
 */
int ompb__compare_check_side(const ompb__compare_side *side, const char *side_name,
                             ompb_error *err);

/*
 * Compares the head side against the base side into *out. The comparison
 * borrows from the result files, which must outlive it; release it with
 * ompb__comparison_free. Returns 0 or OMPB_ENOMEM.
 */
int ompb__compare_runs(const ompb__compare_side *base, const ompb__compare_side *head,
                       const ompb__compare_opts *opts, ompb__comparison *out);
void ompb__comparison_free(ompb__comparison *cmp);

/*
 * Whether the machine code of an instance's body (and its callees) is the
 * same in BASE's and HEAD's builds, from the "ompbench.code" location
 * their result files give (tools/lib/analysis/codeid.h); UNKNOWN with the
 * reason when a side has none (a Google Benchmark file, an older file, a
 * region) or its object cannot be read.
 */
void ompb__compare_code(const ompb__rf_instance *base, const ompb__rf_instance *head,
                        ompb__code_result *out);

/* The note a row's code check adds: "code unchanged: likely a code-layout
 * or alignment effect (N functions compared)", "code changed (in F)" or
 * "code check: unknown (why)"; "" when it was not checked. */
void ompb__compare_code_note(bool checked, const ompb__code_result *code, char *buf, size_t cap);

/*
 * One run's value of an instance on the log scale, as compare pools it:
 * the mean log of its repetitions' medians, of their clean medians when
 * clean is set (each repetition with enough clean rounds: OMPB__CLEAN_MIN_ROUNDS,
 * or all of them clean). false when the run has no such value (failed, a
 * time of 0, too few clean rounds).
 */
bool ompb__compare_run_value(const ompb__rf_instance *in, bool clean, double *log_value);

/* The rows that claim a change (regressed, improved): is their body's code
 * the same in both builds? Sets each such row's code and the counts
 * layout_same and layout_gating. Reads the ELF objects the files name:
 * call it once on the final comparison. */
void ompb__compare_check_code(ompb__comparison *cmp);

/* The code check in JSON: {"state": "unchanged" | "changed" | "unknown",
 * "functions": n, "detail": why}, or null when not checked. */
json_t *ompb__code_json(bool checked, const ompb__code_result *code);


/*
 * Differences between two runtime environments that make timings hard to
 * compare: host, CPU and topology, OpenMP runtime, the OMP_, GOMP_ and KMP_
 * settings, pinning policy (from the "context" objects; a field only one side
 * has is unknown, not different, except in the "environment" object, which
 * lists every variable set, so a missing one is unset) and instances of the
 * same name measured at different thread counts (a benchmark added or
 * dropped at some thread count is not one). Appends malloc'd lines to
 * *diffs; the caller frees each line and diffs->v.
 * Returns 0 or OMPB_ENOMEM.
 */
int ompb__compare_environments(const ompb__resultfile *base, const ompb__resultfile *head,
                               ompb__lines *diffs);

/* The differences between the first file of a side and each of its other
 * files (ompb__compare_environments), prefixed "SIDE FIRST vs OTHER: ",
 * appended to *out (analysis/compare_env.c). Returns 0 or OMPB_ENOMEM. */
int ompb__compare_diff_within(const ompb__compare_side *side, const char *side_name,
                              ompb__lines *out);

/* Writes the report (analysis/compare_report.c): console and markdown list
 * regressions first, then improvements, each by size of the change; JSON
 * keeps the rows in comparison order. Returns 0 or OMPB_EIO. */
int ompb__compare_print(FILE *out, const ompb__comparison *cmp, ompb__report_format fmt);

/* The note every format gives row r (why it is undecided, what it rests
 * on, its marked sides): "" when there is nothing to say. */
void ompb__compare_row_note(const ompb__comparison *cmp, const ompb__compare_row *r, char *buf,
                            size_t cap);

/* "improved", "regressed", "noise unknown", ... and the JSON keys
 * ("noise_unknown"). Static strings. */
const char *ompb__verdict_name(ompb__verdict v);
const char *ompb__verdict_key(ompb__verdict v);

/* v's row (static storage); NULL for a value that is no verdict. */
const ompb__verdict_row *ompb__verdict_info(ompb__verdict v);

/* True when v's row carries every bit of flags. */
bool ompb__verdict_is(ompb__verdict v, unsigned flags);

/* The sum of counts[v] over the verdicts whose rows carry every bit of flags. */
size_t ompb__verdict_count(const size_t *counts, unsigned flags);

/* The verdicts in the summary lines' order: *n of them, written to order. */
void ompb__verdict_summary_order(ompb__verdict order[OMPB__VERDICT_COUNT], size_t *n);

#endif
