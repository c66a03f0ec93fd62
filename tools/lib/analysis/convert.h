/* SPDX-License-Identifier: MIT */
/*
 * `ompbench convert`: a result file's JSON (benchmarks, application
 * regions, MPI runs, --counters, user counters) re-rendered as JSON, CSV or
 * a console table, from the figures the file holds: nothing is measured or
 * recomputed, so a conversion shows what the run reported. JSON comes out
 * as the run writes it (same key order and number precision: converting a
 * run's JSON to JSON gives the same text); CSV has the run's CSV columns;
 * the console table has the run's columns, from the file's figures.
 */
#ifndef OMPB_ANALYSIS_CONVERT_H
#define OMPB_ANALYSIS_CONVERT_H

#include <stdio.h>

#include <jansson.h>

#include <ompbench/error.h>

/* Formats convert writes, for messages: "console, csv, json". */
#define OMPB__CONVERT_FORMATS "console, csv, json"

/* Whether format is one of OMPB__CONVERT_FORMATS. */
int ompb__convert_format_ok(const char *format);

/* Checks that root is a result file convert can render: an object with a
 * "benchmarks" array of objects, each with a string "name", and "context",
 * when present, an object. Returns 0 or OMPB_EINVAL with err "LABEL:
 * what is wrong". */
int ompb__convert_check(const json_t *root, const char *label, ompb_error *err);

/* Writes root (checked) to out in format. Returns 0 or OMPB_EIO. */
int ompb__convert_print(FILE *out, const json_t *root, const char *format);

#endif
