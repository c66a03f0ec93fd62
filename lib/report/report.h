/* SPDX-License-Identifier: MIT */
/*
 * Reporters: console table, Google-Benchmark-compatible JSON, CSV. They all
 * read the same ompb__result array; none of them measures anything.
 */
#ifndef OMPB_REPORT_H
#define OMPB_REPORT_H

#include <stdio.h>

#include "context.h"
#include "round.h"
#include "stats.h"

typedef struct ompb__result {
    ompb__record rec;
    ompb__stats stats;        /* over per-iteration times (ns) of measured rounds */
    double mean_skew_ns;      /* mean over rounds of max s_t - min s_t */
    double mean_imbalance;    /* mean over rounds of max busy / mean busy */
    double total_time_s;      /* sum of measured makespans */
} ompb__result;

/* Fills stats, skew, imbalance and total time from res->rec. */
int ompb__result_analyze(ompb__result *res);

int ompb__report_console(FILE *out, const ompb__context *ctx,
                         const ompb__result *res, size_t n);
int ompb__report_json(FILE *out, const ompb__context *ctx,
                      const ompb__result *res, size_t n);
int ompb__report_csv(FILE *out, const ompb__result *res, size_t n);


/* Under the CodSpeed runner in walltime mode: writes
 * $CODSPEED_PROFILE_FOLDER/results/<pid>.json in the runner's schema,
 * atomically. Returns 0 (also when not in walltime mode: nothing to do) or
 * OMPB_EIO with err set. Implemented in lib/report/codspeed.c. */
int ompb__report_codspeed(const ompb__result *res, size_t n, const ompb__config *cfg,
                          ompb_error *err);
#endif
