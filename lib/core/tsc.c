/* SPDX-License-Identifier: MIT */
/*
 * The region markers' timestamp source (lib/core/tsc.h): whether the TSC can be
 * trusted, its calibrations against CLOCK_MONOTONIC and the segments they
 * publish. Calibrations are rare (ten in the first second, then one a
 * second) and done by one thread at a time; readers never wait for them
 * beyond a retry of their own read.
 */
#include "core/tsc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ompbench/error.h>

#if OMPB__TSC_SUPPORTED
#include <cpuid.h>
#endif

/* Bracketing reads per calibration; the narrowest one is kept. */
#define SAMPLE_TRIES 32
/* The first calibration: pairs of samples this far apart (ns). */
#define FIRST_SPAN_NS 1000000u
/* Calibrations double their spacing from FIRST_SPAN_NS up to this. */
#define PERIOD_MAX_NS 1000000000u
/* A sample whose bracket is this many times the narrowest seen at start
 * was interrupted: that calibration is tried again soon instead. */
#define WIDTH_SLACK 2
/* Clock spreads kept by ompb__tsc_measure for its median. */
#define CHECK_KEEP ((size_t)1 << 20)

ompb__tsc_shared ompb__tsc;
bool ompb__tsc_on;

/* The calibrating thread's own record (only under `busy`). */
static atomic_flag busy = ATOMIC_FLAG_INIT;
static bool prepared, trusted, started;
static uint64_t t0, m0;          /* the first calibration's first sample */
static uint64_t w0;              /* its bracket (ticks) */
static bool first_pending;       /* the first segment waits for FIRST_SPAN_NS */
static uint64_t last_tc, last_mc; /* the last accepted calibration */
static uint64_t retry_tsc;       /* no sample before this (after a wide one) */
static _Atomic uint64_t rejected, restarts;
static uint64_t period_ns;       /* spacing of the next calibration */
static uint64_t width_limit;     /* ticks */
static _Atomic uint64_t calibrations, max_err_ns;
static double mhz;
static char reason[160];         /* why not the TSC, "" when it is used */

void ompb__tsc_next_segment(const ompb__tsc_segment *cur, uint64_t first_tsc, uint64_t first_ns,
                            uint64_t tc, uint64_t mc, uint64_t end_tsc,
                            ompb__tsc_segment *next, int64_t *err_ns)
{
    int64_t err = (int64_t)(ompb__tsc_convert(cur, tc) - mc);
    /* The miss grows along the segment from its start: what it was at the
     * end, where readers left it for the clock. */
    if (end_tsc > cur->base_tsc && tc > end_tsc)
        err = (int64_t)((ompb__i128)err * (ompb__i128)(end_tsc - cur->base_tsc)
                        / (ompb__i128)(tc - cur->base_tsc));
    *err_ns = err;
    uint64_t f = tc > first_tsc
                     ? (uint64_t)((((ompb__u128)(mc - first_ns)) << 32) / (tc - first_tsc))
                     : cur->mult;
    *next = (ompb__tsc_segment){tc, mc, f};
}

ompb__tsc_verdict ompb__tsc_judge(uint64_t width, uint64_t limit, uint64_t tc, uint64_t mc,
                                  uint64_t prev_tc, uint64_t prev_mc, uint64_t mult)
{
    if (tc <= prev_tc || mc <= prev_mc)
        return OMPB__TSC_JUMP;
    /* Elapsed time by the map's rate against the clock's, to 0.1%. */
    ompb__u128 by_ticks = ((ompb__u128)(tc - prev_tc) * mult) >> 32;
    ompb__u128 by_clock = mc - prev_mc;
    ompb__u128 diff = by_ticks > by_clock ? by_ticks - by_clock : by_clock - by_ticks;
    if (diff * 1000 > by_clock)
        return OMPB__TSC_JUMP;
    return width > limit ? OMPB__TSC_WIDE : OMPB__TSC_ACCEPT;
}

/* ---- trust ---------------------------------------------------------------- */

bool ompb__tsc_cpuid_invariant(void)
{
#if OMPB__TSC_SUPPORTED
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return false;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1u;
#else
    return false;
#endif
}

static FILE *open_under(const char *root, const char *path)
{
    char full[4096];
    snprintf(full, sizeof full, "%s%s", root && strcmp(root, "/") != 0 ? root : "", path);
    return fopen(full, "r");
}

/* Whether the first "flags" line of cpuinfo lists both flags. */
static bool cpuinfo_has(const char *root, const char *a, const char *b)
{
    FILE *f = open_under(root, "/proc/cpuinfo");
    char line[8192];
    bool has_a = false, has_b = false;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        for (char *save = NULL, *w = strtok_r(strchr(line, ':'), ": \t\n", &save); w;
             w = strtok_r(NULL, " \t\n", &save)) {
            has_a |= strcmp(w, a) == 0;
            has_b |= strcmp(w, b) == 0;
        }
        break;
    }
    if (f)
        fclose(f);
    return has_a && has_b;
}

bool ompb__tsc_trust(const char *root, bool cpuid_invariant, char *why, size_t len)
{
    char source[64] = "";
    FILE *f = open_under(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource");
    if (f) {
        if (!fgets(source, sizeof source, f))
            source[0] = '\0';
        fclose(f);
        source[strcspn(source, "\n")] = '\0';
    }
    if (!cpuid_invariant)
        snprintf(why, len, "the CPU does not report an invariant TSC (CPUID 0x80000007)");
    else if (!cpuinfo_has(root, "constant_tsc", "nonstop_tsc"))
        snprintf(why, len, "the kernel does not list constant_tsc and nonstop_tsc");
    else if (strcmp(source, "tsc") != 0)
        snprintf(why, len, "the kernel's clocksource is %s, not tsc",
                 source[0] ? source : "unknown");
    else
        return true;
    return false;
}

/* ---- calibration ---------------------------------------------------------- */

#if OMPB__TSC_SUPPORTED
/* The narrowest of SAMPLE_TRIES brackets rdtscp, clock, rdtscp (ordered
 * reads: this is not the hot path); its middle tick in *tc. */
static uint64_t sample(uint64_t *tc, uint64_t *mc)
{
    uint64_t best = UINT64_MAX;
    unsigned aux;
    for (int i = 0; i < SAMPLE_TRIES; i++) {
        uint64_t a = __rdtscp(&aux), m = ompb__now_ns(), b = __rdtscp(&aux);
        if (b - a < best) {
            best = b - a;
            *tc = a + (b - a) / 2;
            *mc = m;
        }
    }
    return best;
}

static void publish(const ompb__tsc_segment *s, uint64_t next_tsc)
{
    unsigned seq = atomic_load_explicit(&ompb__tsc.seq, memory_order_relaxed);
    atomic_store_explicit(&ompb__tsc.seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&ompb__tsc.base_tsc, s->base_tsc, memory_order_relaxed);
    atomic_store_explicit(&ompb__tsc.base_ns, s->base_ns, memory_order_relaxed);
    atomic_store_explicit(&ompb__tsc.mult, s->mult, memory_order_relaxed);
    atomic_store_explicit(&ompb__tsc.next_tsc, next_tsc, memory_order_relaxed);
    atomic_store_explicit(&ompb__tsc.seq, seq + 2, memory_order_release);
}

static uint64_t ns_to_ticks(uint64_t ns, uint64_t mult)
{
    return (uint64_t)(((ompb__u128)ns << 32) / mult);
}

/* The first segment, from (t0, m0) to (tc, mc) at least FIRST_SPAN_NS
 * later; the narrowest bracket seen (w) sets what counts as interrupted
 * later. False when the counter did not advance. */
static bool first_segment(uint64_t tc, uint64_t mc, uint64_t w)
{
    if (tc <= t0)
        return false;
    uint64_t mult = (uint64_t)((((ompb__u128)(mc - m0)) << 32) / (tc - t0));
    width_limit = (w ? w : 1) * WIDTH_SLACK;
    period_ns = 2 * FIRST_SPAN_NS;
    mhz = 1e3 / ((double)mult / 4294967296.0);
    last_tc = tc;
    last_mc = mc;
    first_pending = false;
    publish(&(ompb__tsc_segment){tc, mc, mult}, tc + ns_to_ticks(period_ns, mult));
    return true;
}

static void record_error(int64_t err)
{
    uint64_t m = err < 0 ? (uint64_t)-err : (uint64_t)err;
    atomic_fetch_add(&calibrations, 1);
    uint64_t old = atomic_load(&max_err_ns);
    while (m > old && !atomic_compare_exchange_weak(&max_err_ns, &old, m))
        ;
}

/* A sample judged wide or a jump (ompb__tsc_judge): retried after an
 * eighth of the period, the map left past its end meanwhile (readers on
 * the clock); a jump starts the run over from the clock. Only under busy. */
static void judge_and_publish(uint64_t tc, uint64_t mc, uint64_t w)
{
    ompb__tsc_segment cur = {atomic_load(&ompb__tsc.base_tsc), atomic_load(&ompb__tsc.base_ns),
                             atomic_load(&ompb__tsc.mult)};
    uint64_t end = atomic_load(&ompb__tsc.next_tsc);
    if (tc < end)
        return; /* another thread did it between our check and the flag */
    switch (ompb__tsc_judge(w, width_limit, tc, mc, last_tc, last_mc, cur.mult)) {
    case OMPB__TSC_WIDE:
        retry_tsc = tc + ns_to_ticks(period_ns / 8, cur.mult);
        atomic_fetch_add(&rejected, 1);
        return;
    case OMPB__TSC_JUMP:
        t0 = last_tc = tc;
        m0 = last_mc = mc;
        period_ns = 2 * FIRST_SPAN_NS;
        atomic_fetch_add(&restarts, 1);
        publish(&(ompb__tsc_segment){tc, mc, cur.mult}, tc + ns_to_ticks(period_ns, cur.mult));
        return;
    case OMPB__TSC_ACCEPT:
        break;
    }
    uint64_t next_period = period_ns * 2 > PERIOD_MAX_NS ? PERIOD_MAX_NS : period_ns * 2;
    ompb__tsc_segment next;
    int64_t err;
    ompb__tsc_next_segment(&cur, t0, m0, tc, mc, end, &next, &err);
    period_ns = next_period;
    last_tc = tc;
    last_mc = mc;
    publish(&next, tc + ns_to_ticks(next_period, next.mult));
    record_error(err);
}
#endif

void ompb__tsc_recalibrate(void)
{
#if OMPB__TSC_SUPPORTED
    if (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        return;
    uint64_t tc = 0, mc = 0;
    if (__rdtsc() < retry_tsc) {
        /* A rejected sample's retry is not due yet. */
    } else if (first_pending) {
        if (ompb__now_ns() - m0 >= FIRST_SPAN_NS) {
            uint64_t w = sample(&tc, &mc);
            first_segment(tc, mc, w < w0 ? w : w0);
        }
    } else {
        uint64_t w = sample(&tc, &mc);
        judge_and_publish(tc, mc, w);
    }
    atomic_flag_clear_explicit(&busy, memory_order_release);
#endif
}

void ompb__tsc_prepare(bool allowed)
{
    if (prepared)
        return;
    prepared = true;
    if (!allowed) {
        snprintf(reason, sizeof reason, "OMPB_REGIONS_CLOCK=clock_gettime");
        return;
    }
    if (!OMPB__TSC_SUPPORTED) {
        snprintf(reason, sizeof reason, "not an x86-64 build");
        return;
    }
    if (!ompb__tsc_trust("/", ompb__tsc_cpuid_invariant(), reason, sizeof reason))
        return;
#if OMPB__TSC_SUPPORTED
    trusted = true;
    w0 = sample(&t0, &m0);
#endif
}

void ompb__tsc_start(bool allowed)
{
    if (started)
        return;
    ompb__tsc_prepare(allowed);
    started = true;
    if (!trusted)
        return;
#if OMPB__TSC_SUPPORTED
    uint64_t tc = 0, mc = 0, w = sample(&tc, &mc);
    w = w < w0 ? w : w0;
    if (mc - m0 < FIRST_SPAN_NS) {
        /* Too soon after load for a slope: no wait here (this is the first
         * region call, in the application's first timed phase). Every
         * reading is past the placeholder's end, so the clock's, until an
         * end call after FIRST_SPAN_NS makes the first segment. */
        w0 = w;
        first_pending = true;
        publish(&(ompb__tsc_segment){t0, m0, (uint64_t)1 << 32}, 0);
    } else if (!first_segment(tc, mc, w)) {
        snprintf(reason, sizeof reason, "the TSC did not advance during calibration");
        return;
    }
    reason[0] = '\0';
    ompb__tsc_on = true;
#endif
}

void ompb__tsc_describe(char *buf, size_t len)
{
    if (!started)
        snprintf(buf, len, "%s", "");
    else if (!ompb__tsc_on)
        snprintf(buf, len, "clock_gettime(CLOCK_MONOTONIC) (TSC not used: %s)", reason);
    else
        snprintf(buf, len, "invariant TSC (%.1f MHz) mapped to CLOCK_MONOTONIC, largest error "
                 "at %llu calibrations %llu ns (%llu samples rejected as interrupted, %llu "
                 "restarts; readings past a due calibration from clock_gettime)", mhz,
                 (unsigned long long)atomic_load(&calibrations),
                 (unsigned long long)atomic_load(&max_err_ns),
                 (unsigned long long)atomic_load(&rejected),
                 (unsigned long long)atomic_load(&restarts));
}

void ompb__tsc_errors(uint64_t *n, uint64_t *max_err)
{
    *n = atomic_load(&calibrations);
    *max_err = atomic_load(&max_err_ns);
}

/* ---- checking the map ----------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void pause_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

int ompb__tsc_measure(uint64_t duration_ns, uint64_t spacing_ns, ompb__tsc_check *out)
{
    memset(out, 0, sizeof *out);
    /* The median spread over the last CHECK_KEEP samples at most. */
    uint64_t want = duration_ns / (spacing_ns ? spacing_ns : 10) + 16, n = 0;
    size_t cap = want < CHECK_KEEP ? (size_t)want : CHECK_KEEP;
    uint64_t *brackets = malloc(cap * sizeof *brackets);
    if (!brackets)
        return OMPB_ENOMEM;
    for (uint64_t end = ompb__now_ns() + duration_ns;;) {
        uint64_t a = ompb__now_ns(), s = ompb__stamp_end_ns(), b = ompb__now_ns();
        uint64_t outside = s < a ? a - s : s > b ? s - b : 0;
        out->outside += outside > 0;
        out->max_outside_ns = outside > out->max_outside_ns ? outside : out->max_outside_ns;
        brackets[n++ % cap] = b - a;
        if (b >= end)
            break;
        if (spacing_ns)
            pause_ns(spacing_ns);
    }
    size_t kept = n < cap ? (size_t)n : cap;
    qsort(brackets, kept, sizeof *brackets, cmp_u64);
    out->samples = n;
    out->median_bracket_ns = brackets[kept / 2];
    free(brackets);
    ompb__tsc_errors(&out->calibrations, &out->max_calibration_err_ns);
    return 0;
}
