/* SPDX-License-Identifier: MIT */
/*
 * The tracing library of `ompbench trace` (libompbench_trace.so, preloaded
 * into the traced program; docs/trace.md): its modules' shared names.
 * Internal to lib/trace: nothing outside includes it.
 *
 *   trace_gnu    the wrapper of libgomp's forks (lib/main/fork_wrap.h): one
 *                region instance per parallel-region instance, through the
 *                region markers (lib/regions), the settings, the snapshots
 *   trace_names  a region's name from the outlined function's address:
 *                file:line (libdw), else symbol+offset, else address@build-id
 */
#ifndef OMPB_TRACE_H
#define OMPB_TRACE_H

#include <stddef.h>

/* The environment `ompbench trace` hands the program (tools/trace.c). */
#define OMPB__TRACE_ENV_PID "OMPB_TRACE_PID"           /* the process traced */
#define OMPB__TRACE_ENV_OUTPUT "OMPB_TRACE_OUTPUT"     /* its region report (JSON) */
#define OMPB__TRACE_ENV_COUNTED "OMPB_TRACE_COUNTED"   /* the counted-only regions */
#define OMPB__TRACE_ENV_FILTER "OMPB_TRACE_FILTER"     /* an ERE on region names */
#define OMPB__TRACE_ENV_MIN_NS "OMPB_TRACE_MIN_NS"     /* --min-duration, ns */
#define OMPB__TRACE_ENV_NAMING "OMPB_TRACE_NAMING"     /* line (default), symbol, address */
/* The user's OMPB_REGIONS_OUTPUT and _FORMAT, put back for the program's
 * own region markers once the library has read its own ("-": unset). */
#define OMPB__TRACE_ENV_SAVED_OUTPUT "OMPB_TRACE_SAVED_REGIONS_OUTPUT"
#define OMPB__TRACE_ENV_SAVED_FORMAT "OMPB_TRACE_SAVED_REGIONS_FORMAT"

/* How far down the naming goes: file:line, symbol+offset, address. */
typedef enum ompb__trace_naming {
    OMPB__TRACE_NAME_LINE,
    OMPB__TRACE_NAME_SYMBOL,
    OMPB__TRACE_NAME_ADDRESS
} ompb__trace_naming;

/* A region's name (at most OMPB_REGION_NAME_MAX bytes, no bracket or
 * control character), its source file (for URIs; the object's path when
 * there is no line) and line (0 without one) for the code at addr, no
 * better than `best` allows. Never fails: the address alone is the last
 * resort. Takes a lock (libdw's handle is not thread-safe). */
void ompb__trace_name(const void *addr, ompb__trace_naming best, char *name, size_t name_size,
                      char *file, size_t file_size, int *line);

#endif
