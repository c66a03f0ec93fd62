/* SPDX-License-Identifier: MIT */
/*
 * The tracing library of `ompbench trace` (libompbench_trace.so, preloaded
 * into the traced program; docs/trace.md): its modules' shared names.
 * Internal to lib/trace: nothing outside includes it.
 *
 *   trace_names  a region's name from a code address: file:line (libdw),
 *                else symbol+offset, else address@build-id
 *   trace_sites  the settings, the regions traced (one site per construct),
 *                --min-duration, barrier waits, snapshots, the facts file
 *   trace_gnu    the wrapper of libgomp's forks (lib/main/fork_wrap.h): one
 *                region instance per parallel-region instance, through the
 *                region markers (lib/regions)
 *   trace_omp    the same from libomp's OMPT events (lib/main/fork_wrap.h)
 *   trace_load   the constructor (settings, overhead probe), _exit
 */
#ifndef OMPB_TRACE_H
#define OMPB_TRACE_H

#include <regex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ompbench/region.h>

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

/* The settings, read once by the constructor (trace_load.c) before any
 * region runs. */
typedef struct ompb__trace_settings {
    bool active;                  /* this process is the one traced */
    pid_t pid;
    bool have_filter;
    regex_t filter;
    uint64_t min_ns;              /* --min-duration; 0: trace every instance */
    ompb__trace_naming naming;
    const char *counted_path;     /* the facts file (OMPB_TRACE_COUNTED) */
    bool snapshots;               /* rewrite the report while instances complete */
    double overhead_ns;           /* a begin/end pair, measured at load; <0: not */
} ompb__trace_settings;

extern ompb__trace_settings ompb__trace_config;

/* One parallel construct traced: found by its key (the outlined function
 * for libgomp, the codeptr_ra for libomp), named at first use. */
typedef struct ompb__trace_site {
    const void *_Atomic key;          /* NULL: a free slot */
    _Atomic int ready;                /* name known */
    bool skip;                        /* filtered out */
    _Atomic bool traced_next;         /* --min-duration: trace the next one */
    _Atomic uint64_t counted, counted_ns;
    _Atomic uint64_t traced, barrier_ns;  /* instances traced; their barrier waits */
    int line;
    char name[OMPB_REGION_NAME_MAX + 1];
    char file[1024];
} ompb__trace_site;

/* The site of key, named from the code at addr at its first use; NULL when
 * the table is full or the region is filtered out (it runs untouched). */
ompb__trace_site *ompb__trace_site_of(const void *key, const void *addr);

/* Before an instance, on the encountering thread: whether it is traced
 * (else only counted); *t0 the start for --min-duration. */
bool ompb__trace_enter(ompb__trace_site *s, uint64_t *t0);

/* After it, on the same thread. */
void ompb__trace_leave(ompb__trace_site *s, bool traced, uint64_t t0);

/* What the report does not hold, to OMPB_TRACE_COUNTED (tools/trace.c
 * reads it): the overhead, the counted-only regions, the barrier waits. */
void ompb__trace_write_facts(void);

/* The two ways of seeing a region, installed by the constructor. */
void ompb__trace_gnu_install(void);
void ompb__trace_omp_install(void);

#endif
