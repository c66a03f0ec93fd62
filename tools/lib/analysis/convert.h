/* SPDX-License-Identifier: MIT */
/*
 * `ompbench convert`: a result file (benchmarks, application regions, MPI
 * runs, --counters, user counters) read back into the reporters' model
 * (ompb__result_file, lib/report/json_read.c) and rendered by the library's
 * own reporters: nothing is measured or recomputed, and there is no column
 * list here. JSON comes out as the run wrote it (converting a run's JSON to
 * JSON gives the same text); CSV is the run's CSV; the console table is the
 * run's table, under a line naming the run instead of its context header.
 */
#ifndef OMPB_ANALYSIS_CONVERT_H
#define OMPB_ANALYSIS_CONVERT_H

#include <stdio.h>

#include <jansson.h>

#include <ompbench/error.h>

#include "report/report.h"

/* Formats convert writes, for messages: "console, csv, json". */
#define OMPB__CONVERT_FORMATS "console, csv, json"

/* Whether format is one of OMPB__CONVERT_FORMATS. */
int ompb__convert_format_ok(const char *format);

/* Writes the file f (read with ompb__result_file_read) to out in format.
 * Returns 0, OMPB_EIO or OMPB_ENOMEM. */
int ompb__convert_print(FILE *out, const ompb__result_file *f, const char *format);

#endif
