/* SPDX-License-Identifier: MIT */
/*
 * The region markers' timestamp source: the time-stamp counter (TSC) read
 * on the hot path and converted to CLOCK_MONOTONIC nanoseconds, so the
 * markers and the reports keep the clock of the runner and of perf, or
 * clock_gettime(CLOCK_MONOTONIC) itself where the TSC cannot be trusted.
 *
 * The conversion is piecewise linear. The first calibration takes one
 * sample at load (ompb__tsc_prepare, from the regions' constructor) and one
 * at least a millisecond later: at the first region call when that much
 * time has passed, else at the first end call after it (readings before
 * come from clock_gettime). Each later calibration (after 2, 4, 8 ms ...
 * then every second, done by an end call right after its own reading, so
 * outside the instance it times) measures the frequency over the whole run
 * so far and starts a segment on the clock. A reading past its segment's
 * end (the calibration is due: late, or its sample was rejected as
 * interrupted) is taken from clock_gettime instead, so a segment is never
 * extrapolated: the error is what one segment's slope misses over its own
 * period (tens of ns; docs/performance.md, and ompb__tsc_describe says the
 * largest seen), and where a segment hands over to the clock a stamp may
 * step back by as much.
 */
#ifndef OMPB_TSC_H
#define OMPB_TSC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define OMPB__TSC_SUPPORTED 1
#else
#define OMPB__TSC_SUPPORTED 0
#endif

/* 128-bit products: a tick count times 32.32 ns per tick. */
__extension__ typedef __int128 ompb__i128;
__extension__ typedef unsigned __int128 ompb__u128;

/* One linear piece: ns = base_ns + (ticks - base_tsc) * mult / 2^32. */
typedef struct ompb__tsc_segment {
    uint64_t base_tsc, base_ns;
    uint64_t mult;              /* ns per tick, 32.32 fixed point */
} ompb__tsc_segment;

/* The published segment, read by every thread without a lock (a sequence
 * count: odd while the one calibrating thread rewrites it). */
typedef struct ompb__tsc_shared {
    _Alignas(64) _Atomic unsigned seq;
    _Atomic uint64_t base_tsc, base_ns, mult;
    _Atomic uint64_t next_tsc;  /* when the next calibration is due */
} ompb__tsc_shared;

extern ompb__tsc_shared ompb__tsc;
/* True once ompb__tsc_start found the TSC trustworthy and calibrated it. */
extern bool ompb__tsc_on;

static inline uint64_t ompb__tsc_convert(const ompb__tsc_segment *s, uint64_t ticks)
{
    /* Signed: another core's counter may read a few ticks behind the
     * segment's start. */
    ompb__i128 d = (ompb__i128)(int64_t)(ticks - s->base_tsc) * (ompb__i128)s->mult;
    return s->base_ns + (uint64_t)(int64_t)(d >> 32);
}

/* The next segment, from a calibration (tc ticks read at mc ns) and the
 * run's first one (t0, m0): it starts on the clock at (tc, mc), with the
 * frequency measured over the whole run (the longest baseline, so the two
 * ends' jitter weighs least). Readers switched to clock_gettime at the
 * current segment's end (end_tsc, <= tc), so starting on the clock is
 * continuous with what they saw. *err_ns: cur's error at its end (cur
 * minus clock, scaled back from tc to end_tsc along the segment: past its
 * end no reader used it). Pure (unit-tested). */
void ompb__tsc_next_segment(const ompb__tsc_segment *cur, uint64_t t0, uint64_t m0,
                            uint64_t tc, uint64_t mc, uint64_t end_tsc,
                            ompb__tsc_segment *next, int64_t *err_ns);

/* What a calibration sample is worth (ompb__tsc_judge). */
typedef enum {
    OMPB__TSC_ACCEPT,   /* a new segment from it */
    OMPB__TSC_WIDE,     /* its bracket is wider than the limit: interrupted (a
                           preemption between the reads), tried again later */
    OMPB__TSC_JUMP      /* the clock or the counter jumped since the last one (a
                           suspended machine, a step): the run starts over */
} ompb__tsc_verdict;

/* Judges a sample (tc ticks read at mc ns, its bracket width ticks) against
 * the width limit and the last accepted one (last_tc, last_mc), at the
 * map's rate mult (ns per tick, 32.32): narrow enough, and both clocks
 * moved forward at rates within 0.1% of each other (NTP slews at most
 * 0.05%). Pure (unit-tested on synthetic samples). */
ompb__tsc_verdict ompb__tsc_judge(uint64_t width, uint64_t width_limit, uint64_t tc, uint64_t mc,
                                  uint64_t last_tc, uint64_t last_mc, uint64_t mult);

/* Whether the TSC can stand in for CLOCK_MONOTONIC here: cpuid_invariant
 * (CPUID 0x80000007 EDX bit 8), the kernel's constant_tsc and nonstop_tsc
 * flags in ROOT/proc/cpuinfo, and ROOT/sys/devices/system/clocksource/
 * clocksource0/current_clocksource being "tsc" (root "" or "/": this
 * machine). False with the first reason that fails in why. */
bool ompb__tsc_trust(const char *root, bool cpuid_invariant, char *why, size_t len);

/* CPUID's invariant TSC bit on this CPU (false off x86-64). */
bool ompb__tsc_cpuid_invariant(void);

/* What can be done before the first marker, at load (a constructor; later
 * calls do nothing): whether the TSC is allowed (OMPB_REGIONS_CLOCK is not
 * clock_gettime) and trusted, and the first calibration's first sample
 * (about 0.1 ms, most of it reading /proc/cpuinfo). */
void ompb__tsc_prepare(bool allowed);

/* Chooses the source once per process (later calls do nothing): prepares
 * if that was not done, then the first calibration's second sample, at
 * least a millisecond after the first: no wait when that much time has
 * passed since ompb__tsc_prepare (at load, usually), else the rest of it. */
void ompb__tsc_start(bool allowed);

/* Which source is in use and why, with the conversion's largest error at
 * a calibration so far: one line for the report header; "" before
 * ompb__tsc_start. */
void ompb__tsc_describe(char *buf, size_t len);

/* Calibration record, for the bench and the tests: calibrations done and
 * the largest |error| found at one (ns). */
void ompb__tsc_errors(uint64_t *calibrations, uint64_t *max_err_ns);

/* The map against the clock itself, for the bench and the tests. */
typedef struct ompb__tsc_check {
    uint64_t samples;
    /* How far a stamp fell outside the clock reads just before and after
     * it (0 inside): the conversion's error, whatever the load. */
    uint64_t max_outside_ns;
    uint64_t outside;           /* samples with a stamp outside */
    uint64_t median_bracket_ns; /* the clock's own spread: two reads apart */
    uint64_t calibrations, max_calibration_err_ns; /* ompb__tsc_errors at the end */
} ompb__tsc_check;

/* Samples clock, stamp (ompb__stamp_end_ns: calibrations included), clock
 * for duration_ns, sleeping spacing_ns between samples. Returns 0, or
 * OMPB_ENOMEM. */
int ompb__tsc_measure(uint64_t duration_ns, uint64_t spacing_ns, ompb__tsc_check *out);

/* Calibrates now if one is due (one thread at a time; the others go on). */
void ompb__tsc_recalibrate(void);

#if OMPB__TSC_SUPPORTED
/* The TSC's time through the published segment into *ns (retried while a
 * calibration rewrites it); false when the reading lies at or past the
 * segment's end, where a calibration is due and the map is no longer
 * trusted: a late calibration (a thread preempted, stamps far apart, a
 * sample rejected as interrupted) must not extrapolate a segment's slope
 * for long, and the caller reads clock_gettime instead. */
static inline bool ompb__tsc_map_now(uint64_t *ns)
{
    for (;;) {
        unsigned seq = atomic_load_explicit(&ompb__tsc.seq, memory_order_acquire);
        uint64_t ticks = __rdtsc();
        ompb__tsc_segment s = {
            atomic_load_explicit(&ompb__tsc.base_tsc, memory_order_relaxed),
            atomic_load_explicit(&ompb__tsc.base_ns, memory_order_relaxed),
            atomic_load_explicit(&ompb__tsc.mult, memory_order_relaxed),
        };
        uint64_t end = atomic_load_explicit(&ompb__tsc.next_tsc, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (__builtin_expect(!(seq & 1) && atomic_load_explicit(&ompb__tsc.seq,
                                                                memory_order_relaxed) == seq, 1)) {
            *ns = ompb__tsc_convert(&s, ticks);
            return ticks < end;
        }
    }
}
#endif

/* Now in CLOCK_MONOTONIC ns through the source in use: the TSC (about 10
 * ns here, against 25 for clock_gettime) and the published segment, or
 * clock_gettime past the segment's end. The read is not ordered with the
 * instructions around it, which may move it by what the CPU has in flight
 * (a few ns): below clock_gettime's own spread. */
static inline uint64_t ompb__stamp_ns(void)
{
#if OMPB__TSC_SUPPORTED
    uint64_t ns;
    if (__builtin_expect(ompb__tsc_on, 1) && __builtin_expect(ompb__tsc_map_now(&ns), 1))
        return ns;
#endif
    return ompb__now_ns();
}

/* When the TSC is in use: true, the map's reading in *now and in *due
 * whether a calibration is due (the reading is then past the segment's
 * end: the caller replaces it with clock_gettime's); else false, nothing
 * read. No call: for a hot path that leaves the other cases to a function
 * of its own. */
static inline bool ompb__stamp_tsc_due(uint64_t *now, bool *due)
{
#if OMPB__TSC_SUPPORTED
    if (__builtin_expect(ompb__tsc_on, 1)) {
        *due = !ompb__tsc_map_now(now);
        return true;
    }
#endif
    (void)now;
    (void)due;
    return false;
}

/* ompb__stamp_ns, and in *due whether a calibration is due: the caller
 * then calls ompb__tsc_recalibrate after its reading, so the calibration's
 * microsecond is not in the instance the reading ends. */
static inline uint64_t ompb__stamp_end_ns_due(bool *due)
{
    uint64_t now;
    if (ompb__stamp_tsc_due(&now, due))
        return *due ? ompb__now_ns() : now;
    *due = false;
    return ompb__now_ns();
}

/* ompb__stamp_ns, then a calibration if one is due: for the reading that
 * ends an instance. */
static inline uint64_t ompb__stamp_end_ns(void)
{
    bool due;
    uint64_t now = ompb__stamp_end_ns_due(&due);
    if (__builtin_expect(due, 0))
        ompb__tsc_recalibrate();
    return now;
}

#endif
