/* SPDX-License-Identifier: MIT */
/*
 * What the dump's writer (dump.c) and reader (dump_read.c) must agree on:
 * the format's version and the longest escaped name. Private to lib/run/.
 */
#ifndef OMPB_RUN_DUMP_INTERNAL_H
#define OMPB_RUN_DUMP_INTERNAL_H

#include "model/model.h"

/* 2: caller_team, nested_regions, involuntary_switches and --counters.
 * 3: the calibration (steps, barrier estimate, retries, disturbed), the
 * short-round reason, the measuring wall time and caller-team widths. */
#define OMPB__DUMP_VERSION 3
#define OMPB__DUMP_ESCAPED_MAX (4 * OMPB__NAME_MAX + 1)

#endif
