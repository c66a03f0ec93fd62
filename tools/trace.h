/* SPDX-License-Identifier: MIT */
/* `ompbench trace` (tools/trace.c): what its parts share. */
#ifndef OMPB_TOOL_TRACE_H
#define OMPB_TOOL_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#define OMPB__TRACE_TOOL "ompbench trace"

/* The OpenMP runtimes a program loads (its dynamic dependencies). */
typedef struct ompb__trace_runtimes {
    char gomp[256], omp[256];   /* the library names found, "" when absent */
} ompb__trace_runtimes;

/* Finds program as execvp would (PATH when it has no '/') into path and
 * checks that it can be traced: it exists, is executable, is a
 * dynamically linked ELF program, and loads exactly one OpenMP runtime:
 * libgomp, or libomp (libiomp5) with OMPT not disabled. 0, or 2 after one line naming program and
 * what is accepted. */
int ompb__trace_check_program(const char *program, char *path, size_t path_size,
                              ompb__trace_runtimes *rt);

#endif
