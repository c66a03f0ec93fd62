/* SPDX-License-Identifier: MIT */
/*
 * Reporters: the console table, Google-Benchmark-compatible JSON, CSV, one
 * file each behind one interface. Every reporter reads the same results and
 * run context; none of them measures or computes a statistic of its own
 * (lib/report/result.c computes them once, and lib/report/result_figures.c
 * names every figure beyond the statistics, which the reporters print by
 * iterating). Adding a format is one file defining an ompb__reporter plus
 * one row in lib/report/reporters.c.
 */
#ifndef OMPB_REPORT_H
#define OMPB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <ompbench/error.h>

#include "context/context.h"
#include "model/model.h"
#include "report/figure.h"
#include "report/marks.h"
#include "report/reporters.h"
#include "core/core.h"
#include "report/plan.h"

/*
 * What the reports show of the counters (lib/report/counters.c), for one
 * repetition (its measured rounds) or one instance over its repetitions.
 */
typedef struct ompb__counter_figures {
    /* Involuntary context switches of the team over the measured rounds
     * (an instance: summed over its repetitions). */
    uint64_t involuntary_switches;
    bool switches_measured;     /* false: not measured (an application region) */
    /* --counters, per iteration summed over the team. A repetition: the
     * median over its measured rounds of (sum over threads of the
     * multiplex-scaled count) / sample_size; a round in which a thread's
     * group was not on the PMU at all is left out; NAN when none is left.
     * An instance: the median over its repetitions of their figures. */
    double per_iter[OMPB__MAX_COUNTERS];
    bool multiplexed;           /* some value was scaled (time_running < time_enabled) */
    /* Measured rounds in which the team's context-switches count was above
     * 0 (they explain outliers); only when context-switches was counted
     * (an instance: summed over its repetitions). */
    size_t rounds_with_switches;
    /* Ratios of the per-iteration figures where both parts were counted,
     * else NAN: instructions / cycles, cache-misses / cache-references,
     * branch-misses / branches. */
    double ipc, cache_miss_ratio, branch_miss_ratio;
} ompb__counter_figures;

/*
 * A distributed repetition (rec.ranks > 0, on rank 0): each rank's own
 * figures, from the bounds it measured relative to its own barrier exit.
 * rank_imbalance of a round is the slowest rank's makespan over the mean
 * of the ranks' makespans (1: balanced); the global makespan is the
 * record's. Arrays malloc'd, freed by ompb__rank_figures_release.
 */
typedef struct ompb__rank_figures {
    int ranks;
    size_t rounds;
    double *median_ns, *mean_ns;  /* [ranks] per iteration, over the rank's own makespans */
    double *imbalance;            /* [rounds] */
    double mean_imbalance;
} ompb__rank_figures;

/* Returns 0 (f->ranks = 0 when rec is not distributed) or OMPB_ENOMEM. */
int ompb__rank_figures_make(const ompb__record *rec, ompb__rank_figures *f);
void ompb__rank_figures_release(ompb__rank_figures *f);

/* One repetition of one instance: its record and every figure derived
 * from it. With one repetition (the default) that is the whole instance. */
typedef struct ompb__result {
    ompb__record rec;
    uint32_t process;         /* which process of --processes ran it (0: this one) */
    ompb__stats stats;        /* over per-iteration times (ns) of measured rounds */
    /* Mean over rounds of max s_t - min s_t, and of max busy / mean busy;
     * NaN for a caller team, whose threads the harness does not time. */
    double mean_skew_ns;
    double mean_imbalance;
    double total_time_s;      /* sum of measured makespans */
    double real_time_ns;      /* Google Benchmark's real_time: total time /
                                 (rounds x sample size); 0 without rounds */
    double cpu_time_ns;       /* process CPU time over the rounds, per iteration */
    /* Team throughput at the median per-iteration time (the one definition
     * of a rate, used by every reporter); 0 when the body set none. */
    double bytes_per_second, items_per_second;
    ompb__counter_figures counts; /* --counters and involuntary switches */
    /* ompb_counter: figure k of rec.ucounters (the median over the measured
     * rounds of the round's figure, ompb__ucounter_round); NAN without rounds. */
    double user[OMPB__UCOUNTERS_MAX];
    /* Why the numbers are suspect (lib/report/marks.h: OMPB__MARK_* bits)
     * and the team's CPU share (NAN: not measured): set by
     * ompb__result_analyze without the run context, and in a report's
     * results by ompb__report_init with it. */
    unsigned marks;
    double cpu_share;
    /* Disturbance accounting: whether the rounds were accounted, how many
     * were clean (every thread had its CPU: ompb__record_round_clean), and
     * the statistics over the clean rounds alone (n 0 without any). */
    bool accounted;
    size_t clean_rounds;
    ompb__stats clean_stats;
    /* Every figure above that a report shows beyond the statistics, named
     * (lib/report/result_figures.c): set in a report's results by
     * ompb__report_init, which the reporters print by iterating. */
    ompb__figures figs;
    /* A distributed repetition's figures per rank (ranks = 0 otherwise):
     * set in a report's results by ompb__report_init, freed by
     * ompb__report_release. */
    ompb__rank_figures ranks;
    /* The user counters' figure of each measured round as a result file
     * holds it ([round * OMPB__UCOUNTERS_MAX + k]), which the JSON writes
     * again; NULL: computed from rec (ompb__ucounter_round). */
    const double *user_rounds;
} ompb__result;

/* Measured round r's count of event e per iteration, summed over the team
 * and scaled for multiplexing; NAN when a thread's group was not on the
 * PMU at all in that round. */
double ompb__result_counter_round(const ompb__record *rec, size_t r, int e);


/* Fills every derived figure of res from res->rec. Returns 0 or OMPB_ENOMEM. */
int ompb__result_analyze(ompb__result *res);

/* A region entry whose instance was seen once: one value, no spread. */
bool ompb__result_one_value(const ompb__result *res);

/*
 * The statistics a reporter shows for res: res->stats, except that one
 * value (ompb__result_one_value) has no standard deviation and no
 * confidence interval, so those are NAN (null in JSON, empty in CSV, "-"
 * on the console) rather than a 0 and a zero-width interval that would
 * read as a measured, perfectly tight spread. Returns buf, filled. The
 * CodSpeed results file keeps res->stats (its stdev_ns must be a number).
 */
const ompb__stats *ompb__result_shown_stats(const ompb__result *res, ompb__stats *buf);

/*
 * One instance over its repetitions: what the console prints on one line,
 * the JSON aggregates and the CodSpeed results entry. With one repetition
 * median_ns is that repetition's median and the spread is unknown (NAN).
 */
typedef struct ompb__instance_result {
    const ompb__instance *inst;
    const ompb__result *reps;  /* [n_reps], repetition order; borrowed */
    size_t n_reps;
    const ompb__result *failure; /* the first failed repetition, else NULL */
    size_t rounds;             /* measured rounds of all repetitions */
    ompb__stats pooled;        /* over the per-iteration times of all of them */
    double total_time_s;       /* sum of every measured makespan */
    double median_ns;          /* median of the repetitions' medians */
    double rep_cv;             /* run-to-run spread: stdev / mean of the
                                  repetitions' medians; NAN with one */
    /* Google Benchmark's aggregates: over the repetitions' real_time (a mean
     * per iteration each) when there are several, else over the rounds. */
    double agg_mean_ns, agg_median_ns, agg_stddev_ns, agg_cv;
    /* The same over the repetitions' cpu_time (several repetitions only;
     * with one, the aggregates' cpu_time repeats their real_time). */
    double agg_cpu_mean_ns, agg_cpu_median_ns, agg_cpu_stddev_ns, agg_cpu_cv;
    double mean_imbalance;     /* mean over the repetitions */
    double bytes_per_second, items_per_second; /* at median_ns */
    /* The events the repetitions counted (the first that counted; NULL:
     * none) and the counter figures over the repetitions. */
    const ompb__counter_set *counters;
    ompb__counter_figures counts;
    /* ompb_counter: the names of the first successful repetition, and per
     * name the median of the repetitions' figures (NAN: none has it). */
    const ompb__ucounter_table *ucounters;
    double user[OMPB__UCOUNTERS_MAX];
    /* The marks of any repetition (OR), and the lowest CPU share of the
     * repetitions that have one: one starved repetition is reason enough
     * to doubt the summary, and the figure then says how starved (NAN:
     * none measured). */
    unsigned marks;
    double cpu_share;
    /* Disturbance accounting over the repetitions: every one with rounds
     * was accounted, how many of their rounds were clean, and the median of
     * the clean medians of those that have clean rounds (NAN: none). */
    bool accounted;
    size_t clean_rounds;
    double clean_median_ns;
    ompb__figures figs;        /* the same as a result's, of the instance */
} ompb__instance_result;

/* What a reporter renders: the run context (may be NULL, e.g. in tests),
 * every repetition of every instance (instance after instance in run order
 * of the instances, each instance's repetitions consecutive in repetition
 * order) and the per-instance summaries over them. */
/* What the CodSpeed runner made of this process, as the run layer found it
 * (lib/hooks/instrument): the files of ompb__report_codspeed depend on it.
 * All false when no runner talks to the process. */
typedef struct ompb__report_runner {
    bool taken;        /* another process of the run holds the runner */
    bool walltime;     /* the runner answered that it measures walltime */
    bool simulation;   /* the runner measures by CPU simulation */
    bool off;          /* OMPB_RUNNER=off: no CodSpeed file at all */
} ompb__report_runner;

typedef struct ompb__report {
    const ompb__context *ctx;
    const ompb__result *results;
    ompb__result *own;         /* ompb__report_init's copy, which results then
                                  points to (NULL in a report filled by hand) */
    size_t n;
    ompb__instance_result *instances;
    size_t n_instances;
    /* Columns every CSV has, rows or none (their figures, without values). */
    ompb__figures base;
    /* Lines under the console table that say what its figure columns are
     * ("" when none). */
    char notes[1024];
    /* Set by whoever hands the report to ompb__report_codspeed (zero from
     * ompb__report_init). */
    ompb__report_runner runner;
    /* A result file's "context" as read (lib/report/json_read.c): the JSON
     * writes it again when ctx is NULL. Borrowed; NULL otherwise. */
    const struct json_t *context_json;
} ompb__report;

/* Fills rep from results[n]: consecutive results of the same instance are
 * its repetitions, summarized once here. rep->results is then the report's
 * own copy of them (shallow: the records' arrays stay the caller's) in
 * which each result's marks and CPU share are set from its record and ctx
 * (oversubscription is the run's plan, which ompb__result_analyze does not
 * know). Returns 0 or OMPB_ENOMEM; release with ompb__report_release
 * (results and ctx are borrowed). */
int ompb__report_init(ompb__report *rep, const ompb__context *ctx,
                      const ompb__result *results, size_t n);
void ompb__report_release(ompb__report *rep);

/* The same for results read from a file (ompb__result_file_read): their
 * figures, marks and CPU share are the file's and stay as they are; the
 * instances are summarized from them as ompb__report_init does. */
int ompb__report_init_read(ompb__report *rep, const ompb__result *results, size_t n);

/*
 * A result file read back (lib/report/json_read.c, the reverse of the JSON
 * reporter, docs/json.md): one result per iteration entry, in file order,
 * consecutive repetitions of an instance sharing its ompb__instance. Each
 * record holds what the file keeps of the run (rounds, per-thread bounds
 * relative to the round's start, counters, accounting, ranks, region);
 * statistics, rates, counter figures, user counters, marks and the CPU
 * share are the file's. Aggregate entries are left out (the report makes
 * them again). A Google Benchmark entry without "ompbench" reads as a
 * result without rounds whose statistics are its real_time. Everything is
 * owned by the file: release it with ompb__result_file_release.
 */
typedef struct ompb__result_file {
    ompb__result *results;
    size_t n;
    struct json_t *context;             /* the file's "context" (NULL: none) */
    struct ompb__result_owned *owned;   /* instances, regions, arrays */
} ompb__result_file;

/* Reads root (a parsed result file). Returns 0, OMPB_EINVAL with err
 * "LABEL: benchmarks[i].part: what is wrong (accepted: ...)", or
 * OMPB_ENOMEM; f is empty on failure. */
int ompb__result_file_read(ompb__result_file *f, const struct json_t *root, const char *label,
                           ompb_error *err);
void ompb__result_file_release(ompb__result_file *f);
/* A report over f's results for the reporters (context_json set from f).
 * Release it with ompb__report_release before f. Returns 0 or OMPB_ENOMEM. */
int ompb__result_file_report(const ompb__result_file *f, ompb__report *rep);

/* What a reporter renders from: rep itself when it has its summaries, else
 * *tmp made by ompb__report_init from rep's results (a report filled by
 * hand, with results and n only). NULL when out of memory. Release with
 * ompb__report_view_release(view, tmp). */
const ompb__report *ompb__report_view(const ompb__report *rep, ompb__report *tmp);
void ompb__report_view_release(const ompb__report *view, ompb__report *tmp);

/* CSV cells (lib/report/csv.c), shared with `ompbench convert`: a quoted
 * string (quotes doubled), and ",value" with "," alone for a value that
 * does not exist (not finite). */
void ompb__csv_put_quoted(FILE *out, const char *s);
void ompb__csv_put_number(FILE *out, double v);

/* Under the CodSpeed runner (lib/report/codspeed.c), atomically:
 * - in walltime mode, $CODSPEED_PROFILE_FOLDER/results/<pid>.json in the
 *   runner's schema, from the records alone; none when no instance
 *   succeeded (the runner fails the upload on an empty one);
 * - in walltime or simulation mode, with a context, the environment file the
 *   official hooks write, $CODSPEED_PROFILE_FOLDER/environment-<pid>.json:
 *   {"integration_environment": {"ompbench": {key: string, ...}}}.
 * Which runner and mode: rep->runner, with CODSPEED_RUNNER_MODE.
 * Returns 0 (also when there is nothing to write) or OMPB_EIO / OMPB_ENOMEM
 * with err set. */
int ompb__report_codspeed(const ompb__report *rep, ompb_error *err);

/* User counters (lib/report/ucounters.c). Round r's figure of counter k:
 * the team total, divided by the timed threads (AVG_THREADS), by the
 * team's iterations in the round (PER_ITERATION), by the makespan in
 * seconds (RATE). */
double ompb__ucounter_round(const ompb__record *rec, size_t r, int k);
/* Fills res->user (ompb__result_analyze); ir->ucounters and ir->user
 * (ompb__report_init). Return 0 or OMPB_ENOMEM. */
int ompb__result_ucounters(ompb__result *res);
int ompb__instance_ucounters(ompb__instance_result *ir);
/* Sets f's per-iteration figures of set from per[set->n] and derives the
 * ratios (application regions: lib/regions/region_report.c, per instance). */
void ompb__counter_figures_set(ompb__counter_figures *f, const ompb__counter_set *set,
                               const double *per, bool multiplexed);
/* Fills res->counts from res->rec (called by ompb__result_analyze).
 * Returns 0 or OMPB_ENOMEM. */
int ompb__result_counters(ompb__result *res);
/* Fills ir->counters and ir->counts from its repetitions' figures (called
 * by ompb__report_init). Returns 0 or OMPB_ENOMEM. */
int ompb__instance_counters(ompb__instance_result *ir);

/* The user counters' figure of each measured round, for the JSON's
 * "ompbench.user_counters" (compare and scaling --metric read them):
 * adds {name: {"flags": [...], "rounds": [...]}} of res to omp. Returns 0
 * or -1. */
struct json_t;
int ompb__json_ucounter_rounds(struct json_t *omp, const ompb__result *res);

/* Where rec's body's code is, as the JSON and the dumps write it:
 * {"object": path, "address": n}; NULL when the record has no location,
 * or its path is not UTF-8 (no JSON string: the key is left out then,
 * never the entry or the record). A new reference. */
struct json_t *ompb__json_code_location(const ompb__record *rec);

/* The analysis' figures (lib/report/result_figures.c): res->figs and
 * ir->figs from their fields, and a report's base columns and notes;
 * ompb__report_init calls ompb__report_figures once its results have
 * their marks. */
void ompb__result_figures(ompb__result *res, bool thread_columns);
void ompb__instance_figures(ompb__instance_result *ir);
void ompb__report_figures(ompb__report *rep);

#endif
