/* SPDX-License-Identifier: MIT */
/*
 * Result files read back for analysis: ompbench's JSON (docs/json.md, with the
 * raw per-round samples) and plain Google Benchmark JSON (one time per
 * instance, one per repetition, or only the aggregates of the repetitions).
 * Loading validates the file and reports what is wrong with it, naming the
 * file.
 */
#ifndef OMPB_ANALYSIS_RESULTFILE_H
#define OMPB_ANALYSIS_RESULTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <ompbench/error.h>

#include "analysis/nameindex.h"

/* One instance: a "run_type": "iteration" entry (or several, one per
 * repetition); for a run that has none (--benchmark_report_aggregates_only)
 * its "_median" aggregate, else its "_mean" one, named by its "run_name". */
typedef struct ompb__rf_instance {
    char *name;
    int threads;            /* 0 when the file does not say */
    double value_ns;        /* median of samples_ns; without samples the
                               entry's real_time (a mean) */
    double *samples_ns;     /* per-iteration times: makespan_ns[r] / sample_size
                               for ompbench entries, one real_time per
                               repetition for Google Benchmark ones; NULL (and
                               n_samples 0) for a single Google Benchmark run */
    size_t n_samples, cap_samples;
    bool rounds;            /* samples_ns are ompbench round times */
    double imbalance;       /* mean over rounds of max busy / mean busy; NAN
                               when the file does not say */
    const char *aggregate;  /* "median" or "mean" when value_ns is that
                               aggregate (no samples then); else NULL */
    bool failed;            /* "error_occurred": no value, no samples */
    char *error_message;    /* NULL unless failed */
} ompb__rf_instance;

typedef struct ompb__resultfile {
    char *path;
    json_t *context;        /* the "context" object (owned reference) or NULL */
    ompb__rf_instance *inst;/* in file order */
    size_t n, cap;
    ompb__name_index index; /* inst[i].name -> i, for ompb__resultfile_find */
} ompb__resultfile;

/*
 * Reads and validates path into *rf (overwritten). Returns 0; OMPB_EIO when
 * the file cannot be read, OMPB_EINVAL when it is not valid JSON, not a
 * result file, or holds no instance at all (err->text: "PATH: what is
 * wrong"), OMPB_ENOMEM. Times must be finite in nanoseconds, and the raw
 * makespan_ns and busy_ns values whole numbers below 2^64. On success the
 * caller releases rf with ompb__resultfile_free; on failure rf holds nothing.
 */
int ompb__resultfile_load(const char *path, ompb__resultfile *rf, ompb_error *err);

/* Same from a JSON text; label names the input in messages. */
int ompb__resultfile_parse(const char *text, const char *label, ompb__resultfile *rf,
                           ompb_error *err);

void ompb__resultfile_free(ompb__resultfile *rf);

/* The instance named name, or NULL; constant expected time for a loaded
 * file (a hand-assembled one without an index is searched linearly). */
const ompb__rf_instance *ompb__resultfile_find(const ompb__resultfile *rf,
                                               const char *name);

#endif
