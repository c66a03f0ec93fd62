/* SPDX-License-Identifier: MIT */
/*
 * A metric other than time for `ompbench compare --metric` and `ompbench
 * scaling --metric`: a counter of --counters (instructions per iteration is
 * the figure that does not move with the machine's load). The result file is
 * loaded as usual; the metric then replaces each repetition's value by the
 * counter's: the median over its measured rounds of the per-iteration team
 * sums read from "ompbench.counters" (multiplexed counts scaled as the run's
 * own reports scale them; the figure its console and CSV print), or for
 * plain Google Benchmark JSON the entry's flat key of that name. Everything
 * downstream then works on those values exactly as on times: compare's runs
 * (the repetitions of one process pooled, each process one run), Welch's
 * interval and Benjamini-Hochberg; scaling's median of the repetitions.
 */
#ifndef OMPB_ANALYSIS_METRIC_H
#define OMPB_ANALYSIS_METRIC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <ompbench/error.h>

#include "analysis/resultfile.h"

/* What a metric's values are. */
typedef enum ompb__metric_unit {
    OMPB__METRIC_NS,        /* time per iteration (the default metric, task-clock) */
    OMPB__METRIC_COUNT,     /* events per iteration */
    OMPB__METRIC_USER       /* a user counter's figure (ompb_counter, its own flags) */
} ompb__metric_unit;

/* True for NULL and "time": the per-iteration round times the file holds. */
bool ompb__metric_is_time(const char *metric);

/*
 * Replaces the repetitions' values (reps[].value_ns), the value and the
 * samples of every successful instance of rf by metric's, read from root
 * (the file rf was loaded from) and labelled label; the processes of the
 * repetitions stay. *unit gets the metric's unit. Returns 0; OMPB_EINVAL
 * with err "LABEL: where: what is wrong" when an entry lacks the counter
 * (naming what was counted and the --counters to run; an application
 * region counts none), the counters are malformed, the counter was on the
 * PMU in no round of a repetition, an instance is known by its aggregates
 * only, or root does not hold rf's repetitions; OMPB_ENOMEM. On failure rf
 * is partly changed: free it.
 */
int ompb__metric_apply_json(const json_t *root, const char *label, const char *metric,
                            ompb__resultfile *rf, ompb__metric_unit *unit, ompb_error *err);
/* The same, reading root from path. OMPB_EIO when it cannot be read. */
int ompb__metric_apply(const char *path, const char *metric, ompb__resultfile *rf,
                       ompb__metric_unit *unit, ompb_error *err);

/* A value in the metric's unit: ompb__format_ns for ns; counts with four
 * significant digits and an SI prefix ("1.235 k", "12.00 M", "0.5000");
 * "-" for NAN. Returns buf (OMPB__UNIT_TEXT_MAX is enough). */
char *ompb__format_metric(char *buf, size_t cap, double v, ompb__metric_unit unit);
/* The shortest form, for axis ticks ("10 k", "2 M", "500"). */
char *ompb__format_metric_short(char *buf, size_t cap, double v, ompb__metric_unit unit);

#endif
