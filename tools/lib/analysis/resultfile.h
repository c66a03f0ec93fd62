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

#include "report/report.h"
#include "analysis/nameindex.h"

/* One repetition of an instance: one "run_type": "iteration" entry. */
typedef struct ompb__rf_rep {
    double value_ns;        /* median per-iteration time of its rounds
                               (ompbench), else its real_time (a mean);
                               NAN when it failed */
    double imbalance;       /* its mean imbalance, NAN when unknown */
    long long process;      /* "ompbench.process": which process of the run
                               measured it; 0 when the file does not say */
    long long index;        /* "repetition_index", else its position */
    unsigned marks;         /* "ompbench.marks" as OMPB__MARK_* bits
                               (report/marks.h); 0 when absent */
    /* Disturbance accounting ("ompbench.samples.clean"): whether the rounds
     * were accounted, how many there were and how many were clean, and the
     * median per-iteration time of the clean ones (NAN: none, or not
     * accounted). */
    bool accounted;
    size_t rounds, clean_rounds;
    double clean_ns;
} ompb__rf_rep;

/* A repetition's clean rounds make its value when at least this many of
 * its rounds (or all of them) were clean (docs/methodology.md, "Clean
 * rounds"): compare, ab and scaling read them then. */
#define OMPB__CLEAN_MIN_ROUNDS 3
/* Whether rep has such a clean value (clean_ns, positive and finite). */
bool ompb__rf_rep_clean(const ompb__rf_rep *rep);

/* "ompbench.scaling": declared by the benchmark (.scaling), else unknown. */
typedef enum ompb__rf_scaling {
    OMPB__RF_SCALING_UNKNOWN = 0,
    OMPB__RF_SCALING_STRONG,
    OMPB__RF_SCALING_WEAK
} ompb__rf_scaling;

/* One instance: its "run_type": "iteration" entries, one per repetition;
 * for a run that has none (--benchmark_report_aggregates_only) its
 * "_median" aggregate, else its "_mean" one, named by its "run_name". */
typedef struct ompb__rf_instance {
    char *name;
    int threads;            /* 0 when the file does not say */
    double value_ns;        /* median of the repetitions' values (the one
                               value with one repetition); for aggregates
                               only, the median or mean aggregate */
    ompb__rf_rep *reps;     /* [n_reps] in file order; none for aggregates */
    size_t n_reps, cap_reps;
    long long repetitions;  /* the entries' "repetitions", 0 when absent */
    double *samples_ns;     /* per-iteration times: every round of every
                               repetition (makespan_ns[r] / sample_size) for
                               ompbench entries, one real_time per
                               repetition for Google Benchmark ones; NULL (and
                               n_samples 0) for a single Google Benchmark run */
    size_t n_samples, cap_samples;
    bool rounds;            /* samples_ns are ompbench round times */
    double imbalance;       /* mean over rounds of max busy / mean busy; NAN
                               when the file does not say */
    const char *aggregate;  /* "median" or "mean" when value_ns is that
                               aggregate (no repetitions then); else NULL */
    double agg_mean_ns, agg_stddev_ns; /* aggregates only: "_mean" and
                               "_stddev" over the run's repetitions */
    unsigned marks;         /* union of the repetitions' marks */
    size_t marked_reps;     /* repetitions with any mark */
    ompb__rf_scaling scaling; /* "ompbench.scaling" of the first repetition */
    double items_per_second, bytes_per_second; /* of the first repetition
                               that has them (team rates at its median);
                               NAN when absent: times them the value_ns is
                               the declared work per iteration */
    /* "ompbench.code" of the first repetition that has it: the object
     * holding the body's machine code and its address there (NULL: none). */
    char *code_object;
    unsigned long long code_address;
    bool failed;            /* "error_occurred" in some repetition: no value */
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
 * result file, or holds no instance at all, when the repetitions of an
 * instance disagree on their count, repeat a repetition_index or fall short
 * of their count, when "ompbench.marks" is not an array of strings, or
 * when a run reported by aggregates only lacks its "_mean" or "_stddev"
 * (err->text: "PATH: what is wrong"), OMPB_ENOMEM. Times must be finite in
 * nanoseconds, and the raw
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
