/* SPDX-License-Identifier: MIT */
/*
 * The round engine. One OpenMP team of T threads serves all rounds of an
 * instance. Round r: team barrier; each thread t takes s_t, runs sample_size
 * iterations, takes e_t; the team reduces to start = min s_t, end = max e_t;
 * after the barrier exactly one thread (the master) records the round and,
 * for measured rounds, hands (start, end) to the instrument. Workers write
 * only their own slots.
 */
#ifndef OMPB_ROUND_H
#define OMPB_ROUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "registry.h"

/* Everything measured for one instance. Arrays are malloc'd and owned by the
 * record; ompb__record_free releases them. Per-thread arrays are row-major:
 * [round * threads + thread]. */
typedef struct ompb__record {
    const ompb__instance *inst;
    int threads;
    uint64_t sample_size;      /* iterations per round per thread */
    size_t rounds;             /* measured rounds */
    uint64_t *start_ns;        /* [rounds] min s_t */
    uint64_t *end_ns;          /* [rounds] max e_t */
    uint64_t *thread_start_ns; /* [rounds*threads] s_t */
    uint64_t *busy_ns;         /* [rounds*threads] e_t - s_t */
    uint64_t *thread_iters;    /* [rounds*threads] iterations each thread ran */
    int *os_tid;               /* [threads] kernel thread id that ran slot t */
    uint64_t warmup_rounds, warmup_iters, warmup_ns;
    uint64_t calibration_rounds;
    uint64_t round_target_ns;  /* calibration target (0: sample size was fixed) */
    uint64_t bytes_per_iter;   /* team sum of ompb_set_bytes, 0 if unset */
    uint64_t items_per_iter;
    uint64_t cpu_ns;           /* process CPU time over the measured rounds */
    uint64_t migrations;       /* PU changes seen at round boundaries (lib/topology) */
    int *thread_pu;            /* [threads] PU each thread ran on at the end, -1 unknown */
    bool failed;
    char error[256];           /* why the instance failed */
} ompb__record;

void ompb__record_free(ompb__record *rec);

/* Makespan of round r in ns, and per-iteration time in ns. */
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

/*
 * Runs one instance with the configuration's sampling settings and fills
 * *rec (zeroed by the caller). plan may be NULL (no binding by us).
 * Returns 0; OMPB_ENOMEM, or OMPB_ERUN with rec->failed and rec->error set
 * when the body or its setup misbehaved.
 */
struct ompb__pin_plan;
int ompb__round_run(const ompb__instance *inst, const ompb__config *cfg,
                    const struct ompb__pin_plan *plan, ompb__record *rec);

/* Cost of one team barrier at T threads (0 for T = 1, which runs none),
 * measured once per T and cached (ns). */
double ompb__barrier_cost_ns(int threads);

#endif
