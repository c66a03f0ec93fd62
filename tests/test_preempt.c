/* SPDX-License-Identifier: MIT */
/*
 * Disturbance accounting (lib/counters/preempt.c): the parser on crafted
 * rings (clipping, voluntary switches, a switch-out pending across two
 * ranges, wrapping, lost and malformed records), a live watch on a thread
 * that shares its PU with a spinner, and the engine's rounds: accounted in
 * a measuring run, clean or not by the rule of ompb__record_round_clean,
 * and not accounted in a smoke test.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/CUnit.h>

#include "core/clock.h"
#include "counters/counters.h"
#include "engine/round.h"
#include "fixtures.h"
#include "model/model.h"
#include "suite.h"
#include "test_env.h"

#define RING 256

typedef struct ring {
    unsigned char data[RING];
    uint64_t head;
} ring;

/* Appends a PERF_RECORD_SWITCH at time ns (out: a switch-out, preempt:
 * while runnable), as the kernel lays it out with sample_id_all and
 * PERF_SAMPLE_TIME. */
static void put_switch(ring *r, bool out, bool preempt, uint64_t ns)
{
    struct perf_event_header h = {
        .type = PERF_RECORD_SWITCH,
        .misc = (uint16_t)((out ? PERF_RECORD_MISC_SWITCH_OUT : 0)
                           | (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0)),
        .size = 16};
    unsigned char rec[16];
    memcpy(rec, &h, sizeof h);
    memcpy(rec + 8, &ns, sizeof ns);
    for (int i = 0; i < 16; i++)
        r->data[(r->head + (uint64_t)i) % RING] = rec[i];
    r->head += 16;
}

static ompb__preempt_tally parse(const ring *r, uint64_t from, uint64_t start, uint64_t end,
                                 uint64_t *out_ns, bool *out_preempt)
{
    ompb__preempt_tally t = {0};
    ompb__preempt_parse(r->data, RING, from, r->head, start, end, out_ns, out_preempt, &t);
    return t;
}

static void test_parse_clips_to_window(void)
{
    ring r = {{0}, 0};
    put_switch(&r, true, true, 100);  /* preempted before the window ... */
    put_switch(&r, false, false, 300); /* ... back inside it: 150 ns count */
    put_switch(&r, true, false, 400); /* blocked (voluntary): never counts */
    put_switch(&r, false, false, 900);
    put_switch(&r, true, true, 1000); /* preempted, back after the window: 50 */
    put_switch(&r, false, false, 1100);
    uint64_t out = 0;
    bool pre = false;
    ompb__preempt_tally t = parse(&r, 0, 150, 1050, &out, &pre);
    CU_ASSERT_EQUAL(t.away_ns, 200);
    CU_ASSERT_EQUAL(t.preemptions, 1); /* the one at 100 lies before the window */
    CU_ASSERT_EQUAL(out, 0);
}

static void test_parse_pending_across_ranges(void)
{
    ring r = {{0}, 0};
    put_switch(&r, true, true, 500);
    uint64_t out = 0;
    bool pre = false;
    ompb__preempt_tally t = parse(&r, 0, 0, 600, &out, &pre);
    CU_ASSERT_EQUAL(t.away_ns, 100); /* out until the window's end */
    CU_ASSERT_EQUAL(t.preemptions, 1);
    CU_ASSERT_EQUAL(out, 500);
    CU_ASSERT_TRUE(pre);
    uint64_t from = r.head;
    put_switch(&r, false, false, 700);
    t = parse(&r, from, 650, 800, &out, &pre);
    CU_ASSERT_EQUAL(t.away_ns, 50); /* came back 50 ns into this window */
    CU_ASSERT_EQUAL(t.preemptions, 0);
    CU_ASSERT_EQUAL(out, 0);
}

static void test_parse_wraps(void)
{
    ring r = {{0}, RING - 8}; /* the first record straddles the ring's end */
    uint64_t from = r.head;
    put_switch(&r, true, true, 1000);
    put_switch(&r, false, false, 1400);
    uint64_t out = 0;
    bool pre = false;
    ompb__preempt_tally t = parse(&r, from, 0, 5000, &out, &pre);
    CU_ASSERT_EQUAL(t.away_ns, 400);
    CU_ASSERT_EQUAL(t.preemptions, 1);
}

static void test_parse_lost_or_malformed_is_unknown(void)
{
    ring r = {{0}, 0};
    struct perf_event_header lost = {.type = PERF_RECORD_LOST, .misc = 0, .size = 32};
    memcpy(r.data, &lost, sizeof lost);
    r.head = 32;
    uint64_t out = 0;
    bool pre = false;
    CU_ASSERT_EQUAL(parse(&r, 0, 0, 100, &out, &pre).away_ns, OMPB__AWAY_UNKNOWN);
    ring z = {{0}, 16}; /* a record of size 0 */
    CU_ASSERT_EQUAL(parse(&z, 0, 0, 100, &out, &pre).away_ns, OMPB__AWAY_UNKNOWN);
    ring cut = {{0}, 0};
    put_switch(&cut, true, true, 10);
    cut.head = 12; /* the range ends inside the record */
    CU_ASSERT_EQUAL(parse(&cut, 0, 0, 100, &out, &pre).away_ns, OMPB__AWAY_UNKNOWN);
}

/* ---- live --------------------------------------------------------------- */

static atomic_bool spin_on;

static void pin_self(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)sched_setaffinity(0, sizeof set, &set);
}

static int own_cpu(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c;
    return 0;
}

static void *spinner(void *arg)
{
    pin_self(*(const int *)arg);
    while (atomic_load_explicit(&spin_on, memory_order_relaxed))
        ;
    return NULL;
}

static void spin_ns(uint64_t ns)
{
    uint64_t end = ompb__now_ns() + ns;
    while (ompb__now_ns() < end)
        ;
}

/* Two busy threads on one PU for 200 ms must take turns: the watched one
 * is preempted, and its time away is part of the window, not more. */
static void test_live_competitor_is_seen(void)
{
    cpu_set_t saved;
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof saved, &saved), 0);
    int cpu = own_cpu();
    pin_self(cpu);
    ompb__preempt_watch w;
    ompb_error err = {0};
    if (ompb__preempt_open(&w, &err) != 0) {
        printf("\n  skipped: %s\n", err.text);
        (void)sched_setaffinity(0, sizeof saved, &saved);
        return;
    }
    atomic_store(&spin_on, true);
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, spinner, &cpu), 0);
    uint64_t start = ompb__now_ns();
    spin_ns(200000000ull * (uint64_t)ompb_test_timeout_multiplier());
    uint64_t end = ompb__now_ns();
    atomic_store(&spin_on, false);
    pthread_join(th, NULL);
    ompb__preempt_tally t;
    ompb__preempt_take(&w, start, end, &t);
    CU_ASSERT_NOT_EQUAL(t.away_ns, OMPB__AWAY_UNKNOWN);
    CU_ASSERT_TRUE(t.preemptions >= 1);
    CU_ASSERT_TRUE(t.away_ns > 0);
    CU_ASSERT_TRUE(t.away_ns <= end - start);
    /* The next range starts after the records just read. */
    ompb__preempt_tally again;
    ompb__preempt_take(&w, end + 1, end + 2, &again);
    CU_ASSERT_EQUAL(again.preemptions, 0);
    ompb__preempt_close(&w);
    CU_ASSERT_EQUAL(w.fd, -1);
    (void)sched_setaffinity(0, sizeof saved, &saved);
}

/* ---- the engine's rounds ----------------------------------------------- */

static ompb_test_env tenv;

static const ompb__engine_env *test_env(void)
{
    return ompb_test_env_init(&tenv);
}

static void busy_body(ompb_state *s)
{
    OMPB_ITER(s) {
        spin_ns(2000000);
    }
}

static ompb__sampling sampling(ompb__sampling_mode mode)
{
    return (ompb__sampling){.mode = mode, .threads = 1, .rounds = 30, .sample_size = 1,
                            .warmup_ns = 0, .min_round_ns = 1000,
                            .budget_ns = 3600000000000ull};
}

/* A T=1 team on one PU with a spinner on the same PU: its 2 ms rounds are
 * preempted now and then (some round is not clean, and what it lost is
 * recorded); in a smoke test nothing is accounted. */
static void test_rounds_accounted(void)
{
    cpu_set_t saved;
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof saved, &saved), 0);
    int cpu = own_cpu();
    pin_self(cpu);
    ompb_benchmark b = {.name = "busy", .fn = busy_body};
    ompb__instance inst = ompb_test_instance(&b, 1);
    ompb__sampling sp = sampling(OMPB__SAMPLING_MEASURE);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    atomic_store(&spin_on, true);
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, spinner, &cpu), 0);
    int rc = ompb__round_run(test_env(), &inst, &sp, NULL, &rec);
    atomic_store(&spin_on, false);
    pthread_join(th, NULL);
    (void)sched_setaffinity(0, sizeof saved, &saved);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    if (!rec.away_ns) {
        printf("\n  skipped: %s\n", rec.accounting_off);
        CU_ASSERT_NOT_EQUAL(rec.accounting_off[0], '\0');
        ompb__record_free(&rec);
        return;
    }
    size_t disturbed = 0;
    uint64_t preempted = 0;
    for (size_t r = 0; r < rec.rounds; r++) {
        disturbed += !ompb__record_round_clean(&rec, r);
        preempted += rec.preemptions[r];
        CU_ASSERT_TRUE(rec.away_ns[r] == OMPB__AWAY_UNKNOWN
                       || rec.away_ns[r] <= rec.end_ns[r] - rec.start_ns[r]);
    }
    CU_ASSERT_TRUE(disturbed >= 1);
    CU_ASSERT_TRUE(preempted >= 1);
    CU_ASSERT_EQUAL(ompb__record_clean_rounds(&rec) + disturbed, rec.rounds);
    ompb__record_free(&rec);

    sp = sampling(OMPB__SAMPLING_TEST);
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(test_env(), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_PTR_NULL(rec.away_ns);
    CU_ASSERT_EQUAL(ompb__record_clean_rounds(&rec), 0);
    ompb__record_free(&rec);
}

/* The rule itself, on a hand-made record: 1% of the makespan. */
static void test_clean_rule(void)
{
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__record_alloc(&rec, 3, 2), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__record_alloc_accounting(&rec, 3), 0);
    rec.rounds = 3;
    for (size_t r = 0; r < 3; r++) {
        rec.start_ns[r] = 1000000 * r;
        rec.end_ns[r] = 1000000 * r + 100000; /* 100 us */
    }
    rec.away_ns[1] = 1000;                  /* round 0: 1 us on thread 1: clean */
    rec.away_ns[2] = 1001;                  /* round 1: just over 1%: not clean */
    rec.away_ns[5] = OMPB__AWAY_UNKNOWN;    /* round 2: unknown: not clean */
    CU_ASSERT_TRUE(ompb__record_round_clean(&rec, 0));
    CU_ASSERT_FALSE(ompb__record_round_clean(&rec, 1));
    CU_ASSERT_FALSE(ompb__record_round_clean(&rec, 2));
    CU_ASSERT_EQUAL(ompb__record_clean_rounds(&rec), 1);
    ompb__record_unaccounted(&rec, "why");
    CU_ASSERT_FALSE(ompb__record_round_clean(&rec, 0));
    CU_ASSERT_STRING_EQUAL(rec.accounting_off, "why");
    ompb__record_free(&rec);
}

static const ompb_test_case cases[] = {
    {"parse_clips_to_window", test_parse_clips_to_window},
    {"parse_pending_across_ranges", test_parse_pending_across_ranges},
    {"parse_wraps", test_parse_wraps},
    {"parse_lost_or_malformed_is_unknown", test_parse_lost_or_malformed_is_unknown},
    {"live_competitor_is_seen", test_live_competitor_is_seen},
    {"rounds_accounted", test_rounds_accounted},
    {"clean_rule", test_clean_rule},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_preempt = {"preempt", NULL, NULL, cases};
