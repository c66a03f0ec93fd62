/* SPDX-License-Identifier: MIT */
/*
 * The region markers' timestamp source (lib/core/tsc.c): when the TSC is
 * trusted (fake /proc and /sys trees), the segment arithmetic, the
 * calibrations on a simulated counter, the rejection of samples, and the live map against
 * clock_gettime with a bound in units of the clock's own spread.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite.h"

#include "regions/region.h"
#include "core/tsc.h"
#include "core/pu.h"

/* A fake root with cpuinfo flags and a clocksource (NULL: no file). */
static void make_root(char *root, const char *flags, const char *source)
{
    char path[512];
    strcpy(root, "/tmp/ompb_tsc_XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
    snprintf(path, sizeof path, "%s/proc", root);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "processor\t: 0\nflags\t\t: fpu %s sse2\n\nprocessor\t: 1\n", flags);
    fclose(f);
    const char *dirs[] = {"sys", "sys/devices", "sys/devices/system",
                          "sys/devices/system/clocksource",
                          "sys/devices/system/clocksource/clocksource0"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        mkdir(path, 0700);
    }
    if (!source)
        return;
    snprintf(path, sizeof path, "%s/sys/devices/system/clocksource/clocksource0/"
             "current_clocksource", root);
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "%s\n", source);
    fclose(f);
}

static void remove_root(const char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Trusted only when every check passes; the first failing one is named. */
static void test_trust(void)
{
    static const struct {
        const char *flags, *source;
        bool cpuid, want;
        const char *why;
    } cases[] = {
        {"constant_tsc nonstop_tsc", "tsc", true, true, ""},
        {"constant_tsc nonstop_tsc", "tsc", false, false, "invariant TSC (CPUID 0x80000007)"},
        {"constant_tsc", "tsc", true, false, "constant_tsc and nonstop_tsc"},
        {"nonstop_tsc constant_tsc_x", "tsc", true, false, "constant_tsc and nonstop_tsc"},
        {"constant_tsc nonstop_tsc", "kvm-clock", true, false, "clocksource is kvm-clock, not tsc"},
        {"constant_tsc nonstop_tsc", NULL, true, false, "clocksource is unknown, not tsc"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char root[64], why[160] = "";
        make_root(root, cases[i].flags, cases[i].source);
        CU_ASSERT_EQUAL(ompb__tsc_trust(root, cases[i].cpuid, why, sizeof why), cases[i].want);
        if (!strstr(why, cases[i].why)) {
            fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, why, cases[i].why);
            CU_FAIL("reason");
        }
        remove_root(root);
    }
}

/* ns = base_ns + (ticks - base_tsc) * mult / 2^32, in 128 bits: a delta
 * whose product overflows 64 bits, and ticks a little behind the base. */
static void test_convert(void)
{
    ompb__tsc_segment s = {5000, 1000, UINT64_C(1) << 31}; /* 0.5 ns per tick */
    CU_ASSERT_EQUAL(ompb__tsc_convert(&s, 7000), 2000);
    CU_ASSERT_EQUAL(ompb__tsc_convert(&s, 4000), 500);
    s.mult = UINT64_C(1654403072); /* about 0.3852 ns per tick (2.596 GHz) */
    uint64_t hour = UINT64_C(9345600000000); /* ticks */
    uint64_t want = 1000 + (uint64_t)((ompb__u128)hour * s.mult >> 32);
    CU_ASSERT_EQUAL(ompb__tsc_convert(&s, 5000 + hour), want);
    CU_ASSERT_TRUE(want > UINT64_C(3590000000000) && want < UINT64_C(3610000000000));
}

/* A simulated counter at 2.596 GHz whose clock runs 50 ppm fast from the
 * 5th second (an NTP slew); the first segment's frequency 10 ppm off. Each
 * calibration on time starts the next segment on the clock, and its error
 * there shrinks to a few us once the baseline is long; a calibration three
 * segment lengths late reports the miss at the segment's end, where the
 * readers left it for the clock, not the extrapolated one. */
static void test_slew(void)
{
    const double ns_per_tick = 1.0 / 2.596;
    uint64_t t0 = 1000000, m0 = 5000000000u;
    double slew_from = 5e9;
    ompb__tsc_segment cur = {t0, m0, (uint64_t)(ns_per_tick * (1 + 1e-5) * 4294967296.0)};
    uint64_t tc = t0;
    int64_t last_err = 0;
    for (uint64_t period_ns = 2000000; tc - t0 < (uint64_t)(60e9 / ns_per_tick);) {
        uint64_t ticks = (uint64_t)(period_ns / ns_per_tick);
        tc += ticks;
        double el = (double)(tc - t0) * ns_per_tick;
        double mono = el + (el > slew_from ? (el - slew_from) * 50e-6 : 0);
        uint64_t mc = m0 + (uint64_t)mono;
        ompb__tsc_segment next;
        int64_t err;
        period_ns = period_ns * 2 > 1000000000u ? 1000000000u : period_ns * 2;
        ompb__tsc_next_segment(&cur, t0, m0, tc, mc, tc, &next, &err);
        CU_ASSERT_EQUAL(next.base_ns, mc); /* on the clock */
        CU_ASSERT_EQUAL(next.base_tsc, tc);
        CU_ASSERT_TRUE(next.mult > cur.mult / 2 && next.mult < cur.mult * 2);
        cur = next;
        last_err = err;
        /* 50 ppm of a 1 s period is the most one segment can miss. */
        CU_ASSERT_TRUE(llabs(err) <= 51000);
    }
    /* A steady slew is learned: after a minute the miss is far below it. */
    CU_ASSERT_TRUE(llabs(last_err) < 5000);
    /* Late: read at 4x the segment's span past its start, its end at 1x. */
    ompb__tsc_segment next;
    int64_t err;
    uint64_t span = 1000000;
    ompb__tsc_next_segment(&cur, t0, m0, cur.base_tsc + 4 * span,
                           ompb__tsc_convert(&cur, cur.base_tsc + 4 * span) - 4000, cur.base_tsc + span,
                           &next, &err);
    CU_ASSERT_EQUAL(err, 1000);
    CU_ASSERT_EQUAL(next.base_tsc, cur.base_tsc + 4 * span);
}

/* The rejection logic on synthetic samples (no timing): at 0.5 ns per
 * tick, a sample 2 ms after the last one is accepted when its bracket is
 * within the limit, retried when wider (interrupted), and starts the run
 * over when either clock went backwards or they disagree on the elapsed
 * time by more than 0.1% (a jump), not by 0.05% (NTP's largest slew). */
static void test_judge(void)
{
    const uint64_t mult = UINT64_C(1) << 31, lt = 1000000, lm = 7000000;
    const uint64_t dt = 4000000, dm = 2000000; /* 2 ms both ways */
    CU_ASSERT_EQUAL(ompb__tsc_judge(40, 60, lt + dt, lm + dm, lt, lm, mult), OMPB__TSC_ACCEPT);
    CU_ASSERT_EQUAL(ompb__tsc_judge(60, 60, lt + dt, lm + dm, lt, lm, mult), OMPB__TSC_ACCEPT);
    CU_ASSERT_EQUAL(ompb__tsc_judge(61, 60, lt + dt, lm + dm, lt, lm, mult), OMPB__TSC_WIDE);
    CU_ASSERT_EQUAL(ompb__tsc_judge(5000, 60, lt + dt, lm + dm, lt, lm, mult), OMPB__TSC_WIDE);
    CU_ASSERT_EQUAL(ompb__tsc_judge(40, 60, lt + dt, lm + dm + 1000, lt, lm, mult),
                    OMPB__TSC_ACCEPT); /* 500 ppm */
    CU_ASSERT_EQUAL(ompb__tsc_judge(40, 60, lt + dt, lm + dm + 2100, lt, lm, mult),
                    OMPB__TSC_JUMP); /* 1050 ppm: the clock stepped */
    CU_ASSERT_EQUAL(ompb__tsc_judge(40, 60, lt + dt, lm + dm / 2, lt, lm, mult), OMPB__TSC_JUMP);
    CU_ASSERT_EQUAL(ompb__tsc_judge(40, 60, lt - 1, lm + dm, lt, lm, mult), OMPB__TSC_JUMP);
    CU_ASSERT_EQUAL(ompb__tsc_judge(40, 60, lt + dt, lm, lt, lm, mult), OMPB__TSC_JUMP);
    /* A jump wins over a wide bracket: the run starts over either way. */
    CU_ASSERT_EQUAL(ompb__tsc_judge(5000, 60, lt + dt, lm + 10 * dm, lt, lm, mult), OMPB__TSC_JUMP);
}

/* The live map: every stamp within a few of the clock's own spreads of the
 * two clock reads around it (0 with the clock_gettime fallback). A
 * calibration's ends are each known to half an accepted bracket (at most
 * two of the narrowest), and the first segment extrapolates its slope over
 * twice its span: up to about six spreads early on; the long runs stay
 * within one (docs/performance.md). */
static void test_live_error(void)
{
    ompb__tsc_start(true);
    ompb__tsc_check c;
    uint64_t span = 300000000ull * (uint64_t)ompb_test_timeout_multiplier();
    CU_ASSERT_EQUAL_FATAL(ompb__tsc_measure(span, 0, &c), 0);
    CU_ASSERT_TRUE(c.samples > 1000);
    if (c.max_outside_ns > 8 * c.median_bracket_ns + 1) {
        fprintf(stderr, "stamp outside by %llu ns, clock spread %llu ns\n",
                (unsigned long long)c.max_outside_ns, (unsigned long long)c.median_bracket_ns);
        CU_FAIL("map error beyond 8 clock spreads");
    }
    if (!ompb__tsc_on)
        CU_ASSERT_EQUAL(c.max_outside_ns, 0);
}

#if OMPB__TSC_SUPPORTED
/* Rewrites the published segment as a calibration would. */
static void put_segment(const ompb__tsc_segment *s, uint64_t end)
{
    unsigned seq = atomic_load(&ompb__tsc.seq);
    atomic_store(&ompb__tsc.seq, seq + 1);
    atomic_store(&ompb__tsc.base_tsc, s->base_tsc);
    atomic_store(&ompb__tsc.base_ns, s->base_ns);
    atomic_store(&ompb__tsc.mult, s->mult);
    atomic_store(&ompb__tsc.next_tsc, end);
    atomic_store(&ompb__tsc.seq, seq + 2);
}
#endif

/* A reading past the published segment's end is the clock's, never the
 * segment extrapolated: a segment 10% fast that began 1 ms ago is 100 us
 * off while it lasts (the check can see it), and not at all once its end
 * has passed. */
static void test_past_end_is_clock(void)
{
#if OMPB__TSC_SUPPORTED
    ompb__tsc_start(true);
    if (!ompb__tsc_on)
        return;
    ompb__tsc_segment saved = {atomic_load(&ompb__tsc.base_tsc),
                               atomic_load(&ompb__tsc.base_ns), atomic_load(&ompb__tsc.mult)};
    uint64_t saved_end = atomic_load(&ompb__tsc.next_tsc);
    uint64_t ticks_ms = (uint64_t)(((ompb__u128)1000000 << 32) / saved.mult);
    uint64_t now_tsc = __rdtsc();
    ompb__tsc_segment fast = {now_tsc - ticks_ms, ompb__now_ns() - 1000000,
                              saved.mult + saved.mult / 10};
    put_segment(&fast, UINT64_MAX);
    uint64_t in = ompb__stamp_ns(), b = ompb__now_ns();
    put_segment(&fast, now_tsc);
    uint64_t c = ompb__now_ns(), past = ompb__stamp_ns(), d = ompb__now_ns();
    put_segment(&saved, saved_end);
    CU_ASSERT_TRUE(in > b + 50000);
    CU_ASSERT_TRUE(past >= c && past <= d);
#endif
}

/* A thread's end read on another core may trail its start by a tick: an
 * empty instance, not a saturated 78 hours. */
static void test_pack_trailing_end(void)
{
    ompb__region_slot s = ompb__region_pack(1000, 997, 3);
    CU_ASSERT_EQUAL(s.busy_pu >> 16, 0);
    CU_ASSERT_EQUAL(s.busy_pu & 0xffff, 3);
    s = ompb__region_pack(1000, 1250, 3);
    CU_ASSERT_EQUAL(s.busy_pu >> 16, 250);
}

/* RDPID stands in for sched_getcpu only when the CPU has it, the CPU
 * numbers fit its 12 bits and every sample that stayed on one CPU agrees;
 * the first failing check is named. */
static void test_pu_trust(void)
{
    const unsigned aux_ok[3] = {1, 0x1001, 1}, aux_bad[3] = {1, 3, 1};
    const int before[3] = {1, 1, 0}, after[3] = {1, 1, 1}, moved[3] = {0, 0, 0};
    const int moved_after[3] = {1, 1, 1}, none[3] = {-1, -1, -1};
    char why[160];
    CU_ASSERT_TRUE(ompb__pu_trust(true, 2, aux_ok, before, after, 3, why, sizeof why));
    CU_ASSERT_FALSE(ompb__pu_trust(false, 2, aux_ok, before, after, 3, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "no RDPID"));
    CU_ASSERT_FALSE(ompb__pu_trust(true, 4096, aux_ok, before, after, 3, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "4096 CPUs"));
    CU_ASSERT_FALSE(ompb__pu_trust(true, 2, aux_bad, before, after, 3, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "reads 3 on CPU 1"));
    /* The third sample moved between its readings: not held against it. */
    const unsigned aux_third_off[3] = {1, 1, 7};
    CU_ASSERT_TRUE(ompb__pu_trust(true, 2, aux_third_off, before, after, 3, why, sizeof why));
    CU_ASSERT_FALSE(ompb__pu_trust(true, 2, aux_ok, moved, moved_after, 3, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "no sample"));
    CU_ASSERT_FALSE(ompb__pu_trust(true, 2, aux_ok, none, none, 3, why, sizeof why));
}

/* On this machine, pinned to each PU it may use in turn, the PU read (by
 * RDPID where trusted) is that PU. */
static void test_pu_now(void)
{
    ompb__pu_start();
    char how[200];
    ompb__pu_describe(how, sizeof how);
    CU_ASSERT_TRUE(strcmp(how, "RDPID") == 0 || strncmp(how, "sched_getcpu", 12) == 0);
    cpu_set_t old;
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof old, &old), 0);
    int checked = 0;
    for (int c = 0; c < CPU_SETSIZE && checked < 8; c++) {
        if (!CPU_ISSET(c, &old))
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        CU_ASSERT_EQUAL_FATAL(sched_setaffinity(0, sizeof one, &one), 0);
        CU_ASSERT_EQUAL(sched_getcpu(), c);
        CU_ASSERT_EQUAL(ompb__pu_now(), c);
        checked++;
    }
    CU_ASSERT_EQUAL(sched_setaffinity(0, sizeof old, &old), 0);
    CU_ASSERT_TRUE(checked > 0);
}

static const ompb_test_case cases[] = {
    {"trust", test_trust},
    {"convert", test_convert},
    {"slew", test_slew},
    {"judge", test_judge},
    {"past_end_is_clock", test_past_end_is_clock},
    {"live_error", test_live_error},
    {"pack_trailing_end", test_pack_trailing_end},
    {"pu_trust", test_pu_trust},
    {"pu_now", test_pu_now},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_tsc = {"tsc", NULL, NULL, cases};
