/* SPDX-License-Identifier: MIT */
/*
 * The record: what the round engine hands on. Written by the engine's master
 * thread only, read afterwards by the statistics, the reporters, the
 * instrument (markers) and the CodSpeed results file; none of them needs
 * the engine itself.
 */
#ifndef OMPB_RECORD_H
#define OMPB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "sampling.h"

/*
 * What an application region's record adds (lib/region_report.c, which
 * owns it); the record's arrays then hold `rounds` of its instances, one
 * "round" of one iteration each: every instance, or a uniform sample.
 */
typedef struct ompb__record_region {
    const char *name;            /* the region's name, valid UTF-8 */
    uint64_t instances;          /* every instance recorded; the statistics are over these */
    bool sampled;                /* the arrays keep a uniform sample, not every instance */
    const uint64_t *kept_index;  /* [rounds] instance number of each kept one */
    double quantile_error;       /* largest relative error of the quantiles, 0: exact */
    const double *mean_busy_ns;  /* [threads] mean busy time of each thread */
    uint64_t shared_pu;          /* instances in which two threads began on one PU */
    int shared_pu_first[3];      /* the first such: thread a, thread b, their PU */
    uint64_t misuse;             /* misuse events seen (the first one is `error`) */
} ompb__record_region;

/*
 * Everything the engine did and measured for one instance: the sampling it
 * was asked for, the settings it actually used, and every round. Reporters,
 * the instrument and the CodSpeed results file read only this (and the run
 * context). Arrays are malloc'd and owned by the record; ompb__record_free
 * releases them. Per-thread arrays are row-major: [round * threads + thread].
 */
typedef struct ompb__record {
    const ompb__instance *inst;
    ompb__sampling sampling;   /* what was asked */
    /* What was done. threads is the width that ran: the instance's T, or 1
     * in simulation (the name keeps T, so URIs match across modes). */
    int threads;
    uint64_t sample_size;      /* iterations per round per thread */
    uint64_t round_target_ns;  /* calibration target used; 0 when the sample
                                  size was fixed (--sample-size, .sample_size,
                                  test and simulation modes) */
    size_t rounds;             /* measured rounds */
    uint64_t *start_ns;        /* [rounds] min s_t */
    uint64_t *end_ns;          /* [rounds] max e_t */
    uint64_t *thread_start_ns; /* [rounds*threads] s_t */
    uint64_t *busy_ns;         /* [rounds*threads] e_t - s_t */
    uint64_t *thread_iters;    /* [rounds*threads] iterations each thread ran */
    int *os_tid;               /* [threads] kernel thread id that ran slot t */
    uint64_t warmup_rounds, warmup_iters, warmup_ns;
    uint64_t calibration_rounds;
    uint64_t bytes_per_iter;   /* team sum of ompb_set_bytes, 0 if unset */
    uint64_t items_per_iter;
    uint64_t cpu_ns;           /* process CPU time over the measured rounds */
    uint64_t migrations;       /* PU changes seen at round boundaries (lib/topology) */
    int *thread_pu;            /* [threads] PU each thread ran on at the end, -1 unknown */
    bool failed;
    char error[512];           /* why the instance failed */
    const ompb__record_region *region; /* an application region; NULL for a benchmark */
} ompb__record;

/* Allocates the arrays for `rounds` measured rounds of `threads` threads
 * (zeroed) and sets rec->threads. Returns 0 or OMPB_ENOMEM (then
 * ompb__record_free releases what was allocated). */
int ompb__record_alloc(ompb__record *rec, size_t rounds, int threads);
/* Frees the arrays and zeroes *rec. */
void ompb__record_free(ompb__record *rec);

/* Measurements the statistics are over: the measured rounds, or every
 * instance of an application region (its arrays keep a sample). */
static inline uint64_t ompb__record_measurements(const ompb__record *rec)
{
    return rec->region ? rec->region->instances : rec->rounds;
}

/* Makespan of round r in ns: end_ns[r] - start_ns[r]. */
static inline uint64_t ompb__record_makespan(const ompb__record *rec, size_t r)
{
    return rec->end_ns[r] - rec->start_ns[r];
}

/* Start skew of round r: max s_t - min s_t, how late the last thread started. */
static inline uint64_t ompb__record_start_skew(const ompb__record *rec, size_t r)
{
    const uint64_t *st = rec->thread_start_ns + r * (size_t)rec->threads;
    uint64_t smin = st[0], smax = st[0];
    for (int t = 1; t < rec->threads; t++) {
        smin = st[t] < smin ? st[t] : smin;
        smax = st[t] > smax ? st[t] : smax;
    }
    return smax - smin;
}

#endif
