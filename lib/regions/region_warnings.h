/* SPDX-License-Identifier: MIT */
/*
 * The region reports' warnings (lib/regions/region_warnings.c). Above the table
 * (lib/regions/region_table.h, for the names it ignored) and the forks
 * (lib/regions/region_forks.h, for the note on unobserved forks) and below
 * the reports in the regions' one-way chain.
 */
#ifndef OMPB_REGION_WARNINGS_H
#define OMPB_REGION_WARNINGS_H

#include <stddef.h>

#include "context/context.h"
#include "regions/region_forks.h"
#include "regions/region_table.h"
#include "report/report.h"

/* Warnings about what the regions saw in results[n] (a report's entries,
 * rec.region set), into ctx (once each: a later report repeats a warning
 * only when it is new). */
void ompb__region_warnings(ompb__context *ctx, const ompb__result *results, size_t n);

/* Forgets which regions were warned of ending after a barrier (tests). */
void ompb__region_warnings_reset(void);

#endif
