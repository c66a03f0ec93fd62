/* SPDX-License-Identifier: MIT */
/*
 * Reporters: the console table, Google-Benchmark-compatible JSON, CSV, one
 * file each behind one interface. Every reporter reads the same results and
 * run context; none of them measures or computes a statistic of its own
 * (lib/report/result.c computes them once). Adding a format is one file
 * defining an ompb__reporter plus one row in lib/report/reporters.c.
 */
#ifndef OMPB_REPORT_H
#define OMPB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <ompbench/error.h>

#include "context.h"
#include "record.h"
#include "stats.h"

/* One instance's record and every figure derived from it. */
typedef struct ompb__result {
    ompb__record rec;
    ompb__stats stats;        /* over per-iteration times (ns) of measured rounds */
    /* Mean over rounds of max s_t - min s_t, and of max busy / mean busy;
     * NaN for a caller team, whose threads the harness does not time. */
    double mean_skew_ns;
    double mean_imbalance;
    double total_time_s;      /* sum of measured makespans */
    /* Team throughput at the median per-iteration time (the one definition
     * of a rate, used by every reporter); 0 when the body set none. */
    double bytes_per_second, items_per_second;
    /* Involuntary context switches of the team over the measured rounds. */
    uint64_t involuntary_switches;
    /* --counters (rec.counters.n events), per iteration summed over the
     * team: the median over measured rounds of (sum over threads of the
     * multiplex-scaled count) / sample_size; a round in which a thread's
     * group was not on the PMU at all is left out; NAN when none is left. */
    double counter_per_iter[OMPB__MAX_COUNTERS];
    bool counters_multiplexed;    /* some value was scaled (time_running < time_enabled) */
    /* Measured rounds in which the team's context-switches count was above
     * 0 (they explain outliers); only when context-switches was counted. */
    size_t rounds_with_switches;
    /* Ratios of the per-iteration figures where both parts were counted,
     * else NAN: instructions / cycles, cache-misses / cache-references,
     * branch-misses / branches. */
    double ipc, cache_miss_ratio, branch_miss_ratio;
} ompb__result;

/* Measured round r's count of event e per iteration, summed over the team
 * and scaled for multiplexing; NAN when a thread's group was not on the
 * PMU at all in that round. */
double ompb__result_counter_round(const ompb__record *rec, size_t r, int e);


/* Fills every derived figure of res from res->rec. Returns 0 or OMPB_ENOMEM. */
int ompb__result_analyze(ompb__result *res);

/* What a reporter renders: the run context (may be NULL, e.g. in tests)
 * and the results in run order. */
typedef struct ompb__report {
    const ompb__context *ctx;
    const ompb__result *results;
    size_t n;
} ompb__report;

typedef struct ompb__reporter {
    const char *name;         /* the --format value */
    /* Writes the whole report to out; 0, or OMPB_EIO when out failed (or
     * OMPB_ENOMEM). Never leaves out half-written on purpose: callers
     * writing a file discard it on failure. */
    int (*write)(FILE *out, const ompb__report *report);
} ompb__reporter;

/* The built-in rows, for callers that name one (tests); the table itself is
 * lib/report/reporters.c. */
extern const ompb__reporter ompb__reporter_console;
extern const ompb__reporter ompb__reporter_json;
extern const ompb__reporter ompb__reporter_csv;

/* The reporter named name, or NULL. */
const ompb__reporter *ompb__reporter_find(const char *name);
/* The table's names, comma-separated in table order ("console, json, csv"),
 * for --help and error messages. Static string. */
const char *ompb__reporter_names(void);
/* The default reporter (the table's first row). */
const ompb__reporter *ompb__reporter_default(void);

/* Under the CodSpeed runner (lib/report/codspeed.c), atomically:
 * - in walltime mode, $CODSPEED_PROFILE_FOLDER/results/<pid>.json in the
 *   runner's schema, from the records alone; none when no instance
 *   succeeded (the runner fails the upload on an empty one);
 * - in walltime or simulation mode, with a context, the environment file the
 *   official hooks write, $CODSPEED_PROFILE_FOLDER/environment-<pid>.json:
 *   {"integration_environment": {"ompbench": {key: string, ...}}}.
 * Returns 0 (also when there is nothing to write) or OMPB_EIO / OMPB_ENOMEM
 * with err set. */
int ompb__report_codspeed(const ompb__report *rep, ompb_error *err);

/* The counter parts of the reports, one function per reporter
 * (lib/report/counters.c): the console's extra header and row cells and
 * its footnote, the CSV's extra fields (each starting with ','; the
 * columns follow the first result's events: one run counts one set), and
 * the JSON's "ompbench.counters" object (NULL on ENOMEM; json_t *). */
struct json_t;
void ompb__console_counter_header(FILE *out, const ompb__report *rep);
void ompb__console_counter_cells(FILE *out, const ompb__report *rep, const ompb__result *res);
void ompb__console_counter_notes(FILE *out, const ompb__report *rep);
void ompb__csv_counter_header(FILE *out, const ompb__report *rep);
void ompb__csv_counter_fields(FILE *out, const ompb__report *rep, const ompb__result *res);
struct json_t *ompb__json_counters(const ompb__result *res);
/* Fills res's counter figures and involuntary switches from res->rec
 * (called by ompb__result_analyze). Returns 0 or OMPB_ENOMEM. */
int ompb__result_counters(ompb__result *res);

#endif
