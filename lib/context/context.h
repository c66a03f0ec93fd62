/* SPDX-License-Identifier: MIT */
/*
 * The run environment as plain data: host, CPU, topology summary, OpenMP
 * runtime and settings, libompbench's build, load, the pin policy with its
 * per-thread-count PU maps, and the warnings that make numbers suspect.
 * Two writers fill it: the collection, once per run, of what the
 * environment says (lib/context/context.c), and the run log, of what the
 * run adds as it goes: warnings, repetitions, plans, ranks, a stop
 * (lib/context/context_log.c). The reporters render it, as the JSON
 * "context" object (lib/report/context_json.c) and as the console run
 * header (lib/report/header.c).
 */
#ifndef OMPB_CONTEXT_H
#define OMPB_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ompbench/distribution.h>

#include "core/core.h"
#include "placement/placement.h"

/* Most cache levels recorded. */
#define OMPB__CONTEXT_MAX_CACHES 16

/* One OMP_*, GOMP_* or KMP_* variable of the environment. */
typedef struct ompb__env_var {
    char *name;
    char *value;                /* as set: need not be UTF-8 */
} ompb__env_var;

/* A pin plan as the context records it, once per thread count. */
typedef struct ompb__plan_summary {
    int threads;
    char *policy;               /* "compact", "spread", "cpus:...", "none" or "runtime" */
    ompb__binder binder;
    int *pu;                    /* [threads] OS index of thread t's PU, -1 not bound by us */
    int *core;                  /* [threads] core logical index, -1 unknown */
    bool oversubscribed;
    int *rank_pu;               /* distributed runs: [ranks * threads] each rank's pu map
                                   (rank-major), NULL otherwise */
} ompb__plan_summary;

/*
 * Every pointer member is owned by the context and freed by
 * ompb__context_free (the static strings excepted, as marked). A context
 * filled by hand (tests) is rendered the same way; it needs no /proc.
 */
/* Room for the header's slurm line. */
#define OMPB__CONTEXT_SLURM_MAX 512

typedef struct ompb__context {
    /* the run */
    char date[40];              /* ISO 8601 with offset: 2026-11-29T17:30:00+01:00 */
    char host[256];             /* need not be UTF-8, as the next two */
    char *executable;           /* argv[0] */
    const char *version;        /* libompbench's, OMPB_VERSION_STRING (static) */
    char build_id[2 * OMPB__BUILD_ID_MAX + 1]; /* GNU build ID of the benchmark
                                   binary in hex, "" unknown: tells two
                                   builds apart when files are pooled */
    /* repetitions (the run log: ompb__context_set_repetitions) */
    uint32_t repetitions, processes;
    uint64_t seed;
    bool interleaved;
    bool thread_columns;        /* --thread-columns: the CSV gets per-thread
                                   busy columns (report/fairness.h) */
    int default_threads;        /* OMP_NUM_THREADS, else the OpenMP default */
    /* the machine */
    int num_cpus;               /* online CPUs */
    long mhz;                   /* maximum, else current; 0 unknown */
    char cpu_model[256];        /* "unknown" when unreadable */
    char governor[64];          /* first one not "performance"; "" not readable */
    bool scaling_enabled;       /* some governor is not "performance" */
    bool have_load;
    double load[3];             /* 1, 5, 15 minutes; only with have_load */
    bool have_topo;             /* ompb__context_set_topology was called */
    ompb__topology_summary topo;
    ompb__cache_info caches[OMPB__CONTEXT_MAX_CACHES];
    size_t n_caches;
    /* OpenMP */
    int openmp_date;            /* _OPENMP libompbench was built with, 0 none */
    const char *openmp_version; /* its spec version, "4.5"; "unknown" (static) */
    char omp_vendor[32];        /* "GNU libgomp", ...; "unknown (linked statically?)" */
    char omp_library[4096];     /* path of the runtime loaded, "" unknown */
    int omp_max_threads, omp_num_places;
    int omp_proc_bind;          /* omp_proc_bind_t at start-up (ompb__proc_bind_name) */
    char omp_places[OMPB__PLACES_TEXT_MAX]; /* "{0},{1}" or "none" */
    char region_clock[256];     /* the region markers' timestamp source (lib/core/tsc.h),
                                   "" when no region was used before the context */
    const char *fork_guard;     /* which parallel regions the nested-region guard sees:
                                   ompb__fork_coverage_name, "all", ... (static) */
    ompb__env_var *env;         /* [n_env], sorted by name */
    size_t n_env;
    /* libompbench's build (static strings) */
    const char *compiler, *compiler_flags, *build_type;
    bool optimized;             /* built with -O */
    bool debug_build;           /* build type Debug, or not optimized */
    /* placement */
    char *pin_policy;           /* ompb__binder_policy_name of the --pin value */
    bool pin_given;
    ompb__binder binder;        /* who binds (the last plan's binder once plans exist) */
    char placement[OMPB__PLACEMENT_TEXT_MAX]; /* who binds and why */
    char slurm[OMPB__CONTEXT_SLURM_MAX]; /* the Slurm job step (ompb__slurm_describe), "" outside */
    /* the rest is the run log's (and repetitions above, and binder once plans exist) */
    ompb__plan_summary *plans;  /* [n_plans], in the order first seen */
    size_t n_plans, cap_plans;
    /* a distributed run (lib/engine/dist.h): ranks = 0 alone; dist is borrowed
     * and valid while ompb_main runs (hosts, cpusets, clock estimates) */
    double dist_skew_error_ns;  /* the error bound of dist's barrier exit skew
                                   (ompb__dist_skew_error_ns), 0 unknown */
    int ranks;
    const ompb_distribution *dist;
    /* a run that stopped early (lib/engine/body_guard.c): what stopped it ("exit",
     * "SIGINT", "SIGTERM", "timeout"; NULL: the run is complete) and the
     * instances that have no result in the report; both borrowed */
    const char *interrupted_by;
    const char *const *not_run; /* [n_not_run] instance names */
    size_t n_not_run;
    /* warnings, in the order raised, each once */
    char **warnings;            /* [n_warnings] */
    size_t n_warnings, cap_warnings;
    bool warned_oversub, warned_unpinned; /* each of these is raised once per run */
    bool quiet;                 /* warnings are recorded, not printed (ompb__context_env) */
} ompb__context;

/* ---- collection (lib/context/context.c) ----------------------------------- */

/* Collects the context for a run of argv0 with the --pin value pin (NULL:
 * not given) and default_threads (<= 0: the OpenMP default), and raises the
 * warnings that depend only on the environment: unoptimized build of
 * libompbench, OMP_WAIT_POLICY=passive, frequency governor not
 * "performance", a fork guard that sees no parallel region. pin is not
 * kept. NULL on ENOMEM.
 * Freed with ompb__context_free. */
ompb__context *ompb__context_new(const ompb__pin_spec *pin, int default_threads,
                                 const char *argv0);
void ompb__context_free(ompb__context *ctx);

/* Where collection reads the machine (a run reads its own, a test a
 * recorded tree: tests/data/context/sysroot-*), and whether the context
 * prints its warnings. */
typedef struct ompb__context_env {
    const char *sysroot; /* prefix of every /proc and /sys path read; NULL or "": "/" */
    /* Warnings are recorded but not printed: a child process of
     * --processes, whose parent prints them once when it reads them back,
     * or a rank other than 0. */
    bool quiet;
} ompb__context_env;

/* ompb__context_new, reading /proc and /sys below env->sysroot, quiet as
 * env says (env NULL: as ompb__context_new, which prints). */
ompb__context *ompb__context_new_in(const ompb__context_env *env, const ompb__pin_spec *pin,
                                    int default_threads, const char *argv0);

/* Records the topology summary (machine counts, usable cpuset, CPU model)
 * and the cache levels, and warns when the load average is above the usable
 * cores, or above the machine's PUs when this process may use only some of
 * them (the load counts the whole machine). Until it is called the context
 * knows nothing of the machine (JSON nulls, "topology unknown").
 * topo is not kept. */
void ompb__context_set_topology(ompb__context *ctx, const ompb__topology *topo);

/* ---- the run log (lib/context/context_log.c) ------------------------------ */

/* Adds a warning (one line, printed to stderr at once as
 * "ompbench: warning: ..." and recorded). A warning identical to one already
 * recorded is neither printed nor recorded again, nor is any warning of a
 * quiet context printed. ctx may be NULL (print only). */
void ompb__context_warn(ompb__context *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records how the run repeats its instances: N repetitions each, in P
 * processes, interleaved or not, and the seed of the order. Until called:
 * one repetition, one process. */
void ompb__context_set_repetitions(ompb__context *ctx, uint32_t repetitions,
                                   uint32_t processes, bool interleaved, uint64_t seed);

/* Records the policy, binder and thread -> PU map of a plan (once per thread
 * count) and warns, once per run, on oversubscription and on threads that
 * nobody pins (or that a runtime reporting proc_bind false was left to
 * pin). plan is not kept. */
void ompb__context_add_plan(ompb__context *ctx, const ompb__pin_plan *plan);

/* A distributed run: the distribution (borrowed; hosts, cpusets, clock
 * estimates), the error bound of its barrier exit skew and its placement
 * warning, if any. */
void ompb__context_set_distribution(ompb__context *ctx, const ompb_distribution *dist);
/* Every rank's pu map of the plan for `threads` (rank-major, [ranks *
 * threads], copied); no-op when no plan of that width was added. */
void ompb__context_set_rank_pus(ompb__context *ctx, int threads, const int64_t *pus, int ranks);

/* Marks the run partial: stopped by `by` (static text, see above) with
 * the instances not_run (borrowed, valid while the context is rendered)
 * left out of the report. */
void ompb__context_set_partial(ompb__context *ctx, const char *by,
                               const char *const *not_run, size_t n_not_run);

/* ---- rendering, by the reporters ------------------------------------------ */

struct json_t;

/* The Google Benchmark "context" object plus our "ompbench" extras
 * (lib/report/context_json.c). Strings that are not UTF-8 get a stand-in.
 * New reference; the caller json_decref()s it. NULL on ENOMEM. */
struct json_t *ompb__context_to_json(const ompb__context *ctx);

/* Console run header, a few lines (lib/report/header.c). */
void ompb__context_print_header(FILE *out, const ompb__context *ctx);

#endif
