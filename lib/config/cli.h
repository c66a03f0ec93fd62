/* SPDX-License-Identifier: MIT */
/*
 * Command line + environment -> run configuration, with validation. Every
 * rejected value produces one line naming the value and what is accepted.
 */
#ifndef OMPB_CLI_H
#define OMPB_CLI_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/error.h>

#include "counters/counters.h"
#include "placement/placement.h"
#include "config/names_file.h"
#include "config/sampling_resolve.h"

struct ompb__reporter;

#define OMPB__MAX_THREAD_LIST 64

/* Documented defaults (docs/guide.md, --help). */
#define OMPB__DEFAULT_SAMPLE_COUNT 100
#define OMPB__DEFAULT_WARMUP_NS 100000000ull   /* 100 ms */
#define OMPB__DEFAULT_MIN_TIME_NS 1000000ull   /* 1 ms per round */
#define OMPB__DEFAULT_MAX_TIME_NS 5000000000ull /* 5 s per instance */
#define OMPB__CHILD_OPTION "--ompb-child"
#define OMPB__JOURNAL_OPTION "--ompb-journal"
#define OMPB__JOURNAL_JSON_OPTION "--ompb-journal-json"
#define OMPB__MAX_SELECTIONS 8               /* --filter or --exact options */

typedef struct ompb__config {
    /* selection: --filter and --exact accumulate, and an instance runs
     * when it satisfies every one given (each narrows the selection) */
    bool list;
    size_t n_filters;
    regex_t filter[OMPB__MAX_SELECTIONS];
    const char *filter_text[OMPB__MAX_SELECTIONS];
    size_t n_exact;
    const char *exact[OMPB__MAX_SELECTIONS];
    ompb__names_file exact_file;    /* --exact-file: path NULL when not given */
    /* round width */
    int threads[OMPB__MAX_THREAD_LIST];
    size_t n_threads;           /* 0: no --threads given */
    int default_threads;        /* OMP_NUM_THREADS, else omp_get_max_threads() */
    /* sampling */
    uint64_t sample_count;      /* measured rounds per instance */
    uint64_t min_clean_rounds;  /* --min-clean-rounds: 0, or keep measuring until
                                   this many rounds were clean */
    uint64_t sample_size;       /* 0 = calibrate */
    uint64_t warmup_ns;
    uint64_t min_time_ns;       /* minimum round time when calibrating */
    uint64_t max_time_ns;       /* budget per instance, warm-up included */
    uint64_t timeout_ns;        /* --timeout: a repetition running longer ends
                                   the run (lib/engine/body_guard.c); 0 = none */
    bool test;                  /* one short round per instance */
    /* repetitions (lib/schedule, lib/children): the sampling budget above is
     * per instance and split across its repetitions (lib/sampling) */
    uint32_t repetitions;       /* --repetitions N, 1 by default */
    uint32_t processes;         /* --processes P: the repetitions run in P
                                   fresh processes; 1 = this one */
    uint64_t seed;              /* --seed S: order of the interleaved repetitions */
    bool seed_given;
    /* the hidden --ompb-child=K,SEED,PATH of a process-level repetition:
     * run process K's share of the repetitions with seed SEED and write the
     * records to PATH (lib/run/children.c) */
    bool child;
    uint32_t child_index;
    const char *child_path;
    /* the hidden --ompb-journal=PATH (the process a crash starts) and
     * --ompb-journal-json=PATH (ompbench convert): measure nothing, report
     * the journal PATH (lib/run/journal.h) instead; the second as JSON on
     * standard output, whatever the output options say */
    const char *journal_in;
    bool journal_json;
    /* placement (lib/pin, lib/pin_plan, lib/topology) */
    ompb__pin_spec pin;         /* --pin, parsed once; zeroed when not given */
    bool show_plan;
    const char *topology_xml;
    /* performance counters (lib/counters) */
    ompb__counter_set counters; /* --counters, parsed once; n = 0: none */
    bool list_counters;
    /* output */
    const struct ompb__reporter *reporter; /* --format, a row of lib/report/reporters.c */
    const char *output;         /* NULL: stdout */
    /* --output-format: the file's format, while standard output gets
     * --format's (one run, console and file); NULL: --output gets --format
     * and standard output nothing. */
    const struct ompb__reporter *output_reporter;
    bool thread_columns;        /* --thread-columns: per-thread busy columns in the CSV */
    bool help, version;
} ompb__config;

/*
 * Fills cfg from argv and the environment. Returns 0; OMPB_EINVAL with
 * err->text set for bad input. On success the caller calls
 * ompb__config_release(cfg) when done (it frees the filter and the --pin value).
 */
int ompb__config_parse(ompb__config *cfg, int argc, char **argv, ompb_error *err);
void ompb__config_release(ompb__config *cfg);

/* Parses a thread list: "4", "1,2,4", "1..8" (powers of two plus the ends),
 * "max" (max_threads). Writes at most cap counts. Returns 0 or OMPB_EINVAL. */
int ompb__parse_thread_list(const char *text, int max_threads, int *out, size_t cap,
                            size_t *n, ompb_error *err);

/* The default team width (lib/config/cli_threads.c): OMP_NUM_THREADS's first
 * level, else SLURM_CPUS_PER_TASK in a Slurm job, else the OpenMP default.
 * Returns 0, or OMPB_EINVAL with err naming a value libgomp would refuse. */
int ompb__default_threads(int *out, ompb_error *err);

/* The --help text. */
void ompb__config_usage(const char *argv0, void *stream /* FILE* */);

#endif
