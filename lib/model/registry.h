/* SPDX-License-Identifier: MIT */
/*
 * Benchmark registry: the descriptors registered by OMPB_BENCH, expanded into
 * instances (benchmark, argument, thread count) with stable names and URIs.
 */
#ifndef OMPB_REGISTRY_H
#define OMPB_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/bench.h>
#include <ompbench/error.h>

#define OMPB__NAME_MAX 256
#define OMPB__URI_MAX 512

typedef struct ompb__instance {
    const ompb_benchmark *bench;
    size_t family_index;        /* position of bench in registration order */
    size_t family_instance;     /* position of this instance within its family */
    int64_t argv[OMPB_MAX_ARITY];
    int arity;                  /* 0 when the benchmark takes no argument */
    int threads;                /* T */
    bool thread_variant;        /* T came from a list: name carries ", t=T" */
    bool unoptimized;           /* its OMPB_BENCH expanded in a translation unit
                                   compiled without optimization */
    bool no_openmp;             /* ... in one compiled without OpenMP */
    char name[OMPB__NAME_MAX];  /* count_set_bits[42, t=2] */
    char uri[OMPB__URI_MAX];    /* benches/examples.c::count_set_bits[42, t=2] */
} ompb__instance;

/* Number of registered benchmarks and the i-th one in registration order. */
size_t ompb__registry_count(void);
const ompb_benchmark *ompb__registry_get(size_t i);
/* Whether bench was registered from a translation unit compiled without
 * optimization (ompb_note_unoptimized). */
bool ompb__registry_unoptimized(const ompb_benchmark *bench);
/* Whether bench was registered from a translation unit compiled without
 * OpenMP (ompb_note_no_openmp). */
bool ompb__registry_no_openmp(const ompb_benchmark *bench);
/* Forget every registration (tests only). */
void ompb__registry_clear(void);
/* The first rejected registration ("benchmark 'x' (file): why"), or NULL. */
const char *ompb__registry_error(void);

/*
 * Expands every registered benchmark into instances. threads/n_threads is the
 * --threads list (n_threads = 0: none given); default_threads is the width for
 * benchmarks that list no thread counts when no --threads list is given;
 * ranks is the rank layout: the number of ranks of a distributed run, 0 for
 * one process (names then carry no rank count).
 * On success *out is a malloc'd array the caller frees, *n its length.
 * OMPB_EINVAL (err names it) when two instances would share a name.
 */
int ompb__instances_expand(const int *threads, size_t n_threads, int default_threads,
                           int ranks, ompb__instance **out, size_t *n, ompb_error *err);

/* Writes "name[arg, t=T]" for the given parts into buf, "name[arg, r=R,
 * t=T]" when ranks > 0 (a distributed run names the rank count, and then
 * always the threads per rank too); returns 0 or OMPB_EINVAL when it does
 * not fit. */
int ompb__instance_format_name(const ompb__instance *inst, int ranks, char *buf, size_t len);

/* The URI prefix: the benchmark file relative to the source tree, e.g.
 * "benches/examples.c" for an absolute __FILE__ ending in that path. */
const char *ompb__uri_file(const char *file);

#endif
