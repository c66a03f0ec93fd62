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

#include "counters/counters.h"
#include "model/registry.h"
#include "model/sampling.h"
#include "model/ucounter.h"

/*
 * What an application region's record adds (lib/regions/region_report.c, which
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
    /* A phase region: one thread (t=1 in the record) whose instances
     * contained teams, named by their width (docs/regions.md). phase_width
     * 0: not one. */
    int phase_width;
    uint64_t phase_instances;    /* instances that contained a marked team */
    unsigned phase_lo, phase_hi; /* widths of those teams */
    unsigned phase_asked_lo, phase_asked_hi; /* the runtime's answer at their begins */
    bool phase_mixed;            /* those widths were not all one */
} ompb__record_region;

/*
 * Everything the engine did and measured for one instance: the sampling it
 * was asked for, the settings it actually used, and every round. Reporters,
 * the instrument and the CodSpeed results file read only this (and the run
 * context). Arrays are malloc'd and owned by the record; ompb__record_free
 * releases them. Per-thread arrays are row-major: [round * threads + thread].
 */
/* One calibration round: its sample size and the slowest thread's busy time. */
#define OMPB__CALIB_STEPS_MAX 24
typedef struct ompb__calib_step {
    uint64_t sample_size;
    uint64_t busy_ns;
} ompb__calib_step;

/* Warnings the engine raises for one instance (the run forwards them to the
 * run context: stderr and the JSON context warnings). */
#define OMPB__RECORD_WARNINGS 4
#define OMPB__RECORD_WARNING_MAX 320

typedef struct ompb__record {
    const ompb__instance *inst;
    ompb__sampling sampling;   /* what was asked */
    /* What was done. threads is the width that ran: the instance's T, or 1
     * in simulation (the name keeps T, so URIs match across modes). For a
     * caller team it is the width of the code's own parallel regions. */
    int threads;
    /* The body ran on the caller (OMPB_TEAM_CALLER): the per-thread arrays
     * below then hold the caller's bounds only (one column), since the
     * threads of the code's regions are the code's, not the harness's;
     * ompb__record_timed_threads says how many columns there are. */
    bool caller_team;
    uint64_t sample_size;      /* iterations per round per thread */
    uint64_t round_target_ns;  /* calibration target used; 0 when the sample
                                  size was fixed (--sample-size, .sample_size,
                                  test and simulation modes) */
    size_t rounds;             /* measured rounds */
    uint64_t *start_ns;        /* [rounds] min s_t */
    uint64_t *end_ns;          /* [rounds] max e_t */
    /* [rounds * timed threads], see ompb__record_timed_threads */
    uint64_t *thread_start_ns; /* s_t */
    uint64_t *busy_ns;         /* e_t - s_t */
    uint64_t *thread_iters;    /* iterations each thread ran */
    int *os_tid;               /* [threads] kernel thread id that ran slot t (for a
                                  caller team: thread t of the runtime's team) */
    uint64_t warmup_rounds, warmup_iters, warmup_ns;
    uint64_t calibration_rounds;
    /* How the sample size was found (lib/engine/round.c; docs/methodology.md,
     * "Calibration"): every calibration round's sample size and the
     * slowest thread's busy time in it (the first OMPB__CALIB_STEPS_MAX
     * kept; calibration_rounds counts them all), the barrier cost
     * estimate the round floor came from (0: T = 1 or a caller team, which
     * run no barrier), how often the calibration was redone because the
     * first measured rounds disagreed with it, and whether it was still
     * disturbed after the last try (the instance is then marked). */
    ompb__calib_step calib_steps[OMPB__CALIB_STEPS_MAX];
    size_t n_calib_steps;
    double barrier_cost_ns;
    uint64_t recalibrations;
    bool calibration_disturbed;
    /* Why fewer measured rounds than sampling.rounds were measured, one
     * line ("budget: body 18 ms per iteration", ...); "" when every round
     * asked for was measured. */
    char short_reason[160];
    uint64_t bytes_per_iter;   /* team sum of ompb_set_bytes, 0 if unset */
    uint64_t items_per_iter;
    uint64_t cpu_ns;           /* process CPU time over the measured rounds */
    uint64_t measure_wall_ns;  /* wall time over which cpu_ns was taken: the
                                  team's CPU share is cpu_ns / (threads x this) */
    uint64_t migrations;       /* PU changes seen at round boundaries (lib/topology) */
    int *thread_pu;            /* [threads] PU each thread ran on at the end, -1 unknown */
    /* Involuntary context switches of each thread (getrusage RUSAGE_THREAD)
     * from the boundary before the first measured round to the end of the
     * last, counted whether or not --counters is given. [threads] */
    uint64_t *involuntary_switches;
    /* --counters: the events every thread counted (counters.n = 0: none).
     * Round r's counts are the difference between two readings of the
     * thread's group that bracket its timed window: one right before its
     * start time s_t, one right after its end time e_t (lib/engine/state.c); raw,
     * not scaled. For a caller team the columns are the threads of the
     * code's team (thread t of the runtime's pool, the caller being t = 0),
     * not the one timed column, each counted over the caller's window. */
    ompb__counter_set counters;
    uint64_t *counter_values;  /* [(round * threads + thread) * counters.n + event] */
    /* [round * threads + thread]: how long the group was enabled and how
     * long it was on the PMU in that round; they differ when the kernel
     * multiplexed it (scale with ompb__counter_scale). */
    uint64_t *counter_enabled_ns, *counter_running_ns;
    /* ompb_counter: the names the body used (in order of first use) and,
     * per measured round, the team's total of each (the sum of every timed
     * thread's values), before the flags apply:
     * [round * OMPB__UCOUNTERS_MAX + k]. */
    ompb__ucounter_table ucounters;
    double *ucounter_values;
    /* Disturbance accounting (lib/counters/preempt.h): how long thread t
     * of the team (of the code's team, for a caller team) was preempted
     * (runnable, its CPU taken by something else) within round r's window
     * [start_ns[r], end_ns[r]], and how many times;
     * OMPB__AWAY_UNKNOWN when the kernel dropped the thread's records.
     * [round * threads + thread]. NULL when the rounds were not accounted:
     * accounting_off then says why ("" when they were, or for a record
     * that is not a measured run: regions, failures, tests). */
    uint64_t *away_ns;
    uint64_t *preemptions;
    char accounting_off[360];
    /* Where the body's machine code is: the object that holds it (a
     * malloc'd absolute path; NULL when not located, as for regions and
     * records made by hand) and its ELF virtual address there, so that a
     * comparison can tell whether two builds' bodies are the same code
     * (tools/lib/analysis/codeid.h). */
    char *code_object;
    uint64_t code_address;
    /* Parallel regions the body opened inside harness-team rounds, all
     * rounds counted (each one is nested), as the fork guard saw them. */
    uint64_t nested_regions;
    /* Caller teams: the code's parallel regions that asked for another
     * width than T (each one is not a t=T figure). */
    uint64_t other_width_regions;
    char warnings[OMPB__RECORD_WARNINGS][OMPB__RECORD_WARNING_MAX];
    size_t n_warnings;
    bool failed;
    char error[512];           /* why the instance failed */
    bool interrupted;          /* failed because a signal stopped the run: not a
                                  result (left out of a partial report) */
    const ompb__record_region *region; /* an application region; NULL for a benchmark */
    /* Distributed runs (include/ompbench/distribution.h): the ranks that ran
     * every round together (0: one process). start_ns/end_ns then hold the
     * global round on this rank's clock: this rank's barrier exit plus the
     * earliest start and latest end, over all ranks, each taken relative to
     * its own barrier exit. On rank 0 only, rank_bounds holds each rank's
     * own bounds, relative to its barrier exit:
     * [(rank * rounds + round) * 2 + {0 start, 1 end}]; NULL elsewhere. */
    int ranks;
    int64_t *rank_bounds;
} ompb__record;

/* Rank k's own makespan in round r (rank 0, distributed records only). */
static inline uint64_t ompb__record_rank_makespan(const ompb__record *rec, int k, size_t r)
{
    const int64_t *b = rec->rank_bounds + ((size_t)k * rec->rounds + r) * 2;
    return (uint64_t)(b[1] - b[0]);
}

/* Columns of the per-thread round arrays: threads, or 1 for a caller team. */
static inline int ompb__record_timed_threads(const ompb__record *rec)
{
    return rec->caller_team ? 1 : rec->threads;
}

/* A round is clean when no thread of the team lost more than this share
 * of the round's makespan to preemption (docs/methodology.md, "Clean
 * rounds": the measured distribution is bimodal, ~0 or most of the round,
 * so the bound is not critical; 1% keeps a round whose time moved by more
 * than a tenth of compare's default threshold out). */
#define OMPB__CLEAN_AWAY_SHARE 0.01

/* Whether round r was accounted and clean (see away_ns): false when not
 * accounted. */
static inline bool ompb__record_round_clean(const ompb__record *rec, size_t r)
{
    if (!rec->away_ns)
        return false;
    double bound = OMPB__CLEAN_AWAY_SHARE * (double)(rec->end_ns[r] - rec->start_ns[r]);
    const uint64_t *away = rec->away_ns + r * (size_t)rec->threads;
    for (int t = 0; t < rec->threads; t++)
        if (away[t] == OMPB__AWAY_UNKNOWN || (double)away[t] > bound)
            return false;
    return true;
}

/* Clean measured rounds (0 when not accounted). */
size_t ompb__record_clean_rounds(const ompb__record *rec);

/* Allocates the arrays for `rounds` measured rounds of `threads` threads
 * (zeroed) and sets rec->threads; set rec->caller_team and rec->counters
 * first, they decide the columns of the per-thread arrays and whether the
 * counter arrays exist. Returns 0 or OMPB_ENOMEM (then
 * ompb__record_free releases what was allocated). */
int ompb__record_alloc(ompb__record *rec, size_t rounds, int threads);
/* Allocates the disturbance arrays for `rounds` rounds of rec->threads
 * (after ompb__record_alloc): the rounds will be accounted. 0 or
 * OMPB_ENOMEM (then not accounted). */
int ompb__record_alloc_accounting(ompb__record *rec, size_t rounds);
/* Drops the disturbance arrays: the rounds are not accounted, for `why`
 * (one line; "" for a record that is no measured run). */
void ompb__record_unaccounted(ompb__record *rec, const char *why);
/* Frees the arrays and zeroes *rec. */
void ompb__record_free(ompb__record *rec);
/* Adds a warning (one line, formatted; the instance name is the caller's to
 * give); beyond OMPB__RECORD_WARNINGS they are dropped, and an identical one
 * is not added twice. */
void ompb__record_warn(ompb__record *rec, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Measurements the statistics are over: the measured rounds, or every
 * instance of an application region (its arrays keep a sample). */
static inline uint64_t ompb__record_measurements(const ompb__record *rec)
{
    return rec->region ? rec->region->instances : rec->rounds;
}

/* Counter event e of thread t in round r, raw. */
static inline uint64_t ompb__record_counter(const ompb__record *rec, size_t r, int t, int e)
{
    size_t cell = r * (size_t)rec->threads + (size_t)t;
    return rec->counter_values[cell * (size_t)rec->counters.n + (size_t)e];
}

/* The same scaled for multiplexing; NAN when the group was not on the PMU
 * at all in that round. */
double ompb__record_counter_scaled(const ompb__record *rec, size_t r, int t, int e);

/* Makespan of round r in ns: end_ns[r] - start_ns[r]. */
static inline uint64_t ompb__record_makespan(const ompb__record *rec, size_t r)
{
    return rec->end_ns[r] - rec->start_ns[r];
}

/* Start skew of round r: max s_t - min s_t, how late the last thread started
 * (0 for a caller team, whose threads the harness does not time). */
static inline uint64_t ompb__record_start_skew(const ompb__record *rec, size_t r)
{
    int T = ompb__record_timed_threads(rec);
    const uint64_t *st = rec->thread_start_ns + r * (size_t)T;
    uint64_t smin = st[0], smax = st[0];
    for (int t = 1; t < T; t++) {
        smin = st[t] < smin ? st[t] : smin;
        smax = st[t] > smax ? st[t] : smax;
    }
    return smax - smin;
}

#endif
