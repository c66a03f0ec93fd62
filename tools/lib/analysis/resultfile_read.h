/* SPDX-License-Identifier: MIT */
/*
 * What the two halves of the result-file reader share: resultfile.c reads
 * the entries of a run (ompbench's and Google Benchmark's iteration
 * entries), resultfile_aggregates.c the runs reported by aggregates only
 * (--benchmark_report_aggregates_only). Private to this folder: the rest
 * reads result files through analysis/resultfile.h.
 */
#ifndef OMPB_ANALYSIS_RESULTFILE_READ_H
#define OMPB_ANALYSIS_RESULTFILE_READ_H

#include <jansson.h>

#include <ompbench/error.h>

#include "analysis/resultfile.h"

#define OMPB__WHERE_MAX 160

/* Where in the file an entry is, for messages: benchmarks[3] "triad[t=2]". */
typedef struct entry_ref {
    const char *label;
    char where[OMPB__WHERE_MAX];
} entry_ref;

/* Sets err to "LABEL: what" (one line: control characters become '?') and
 * returns code. */
int ompb__rf_failf(ompb_error *err, int code, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ref's where: benchmarks[idx] "name", the name's control characters '?'. */
void ompb__rf_set_where(entry_ref *ref, size_t idx, const char *name);

/* A new instance of that name at the end of rf, into *out. 0 or OMPB_ENOMEM. */
int ompb__rf_new_instance(ompb__resultfile *rf, const char *name, ompb__rf_instance **out);

/* The entry's real_time in nanoseconds (its time_unit applied) into *ns. */
int ompb__rf_read_real_time(const json_t *e, const entry_ref *ref, double *ns, ompb_error *err);

/* The entry's thread count (omp's "threads" first, then "threads"). */
int ompb__rf_read_threads(const json_t *e, const json_t *omp, const entry_ref *ref,
                          int *threads, ompb_error *err);

/* An entry with error_occurred: the instance fails with its message. */
int ompb__rf_read_failure(const json_t *e, ompb__rf_instance *in);

/* Frees in's round samples (a failed repetition keeps none). */
void ompb__rf_drop_samples(ompb__rf_instance *in);

/* v (a value taken from its object) as a positive integer; 0 when NULL
 * (absent), -1 when not one. */
long long ompb__rf_positive(const json_t *v);

/* Runs reported only by aggregates, appended to rf after its other runs. */
int ompb__rf_read_aggregates(const json_t *benchmarks, const char *label,
                             ompb__resultfile *rf, ompb_error *err);

#endif
