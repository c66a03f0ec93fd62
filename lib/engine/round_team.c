/* SPDX-License-Identifier: MIT */
/*
 * The team core of the round engine, shared by both drivers (the harness
 * team, lib/engine/round_harness.c; the caller team, lib/engine/round_caller.c): what the
 * master does after each round's bounds are known (check the round, record
 * it, agree with the other ranks, decide the next phase), the calibration
 * and its check, the per-thread bookkeeping both drivers do (PU, context
 * switches, counter groups, the caller's mask) and the instance's end
 * (counters, ranks, clock error). Every collaborator comes from the team's
 * environment (lib/engine/engine_env.h): the distribution, the marker sink, the
 * body guard's stop signal. It calls neither driver.
 */
#include "engine/round_team.h"

#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine/body_guard.h"
#include "core/core.h"
#include "engine/dist.h"
#include "engine/round_calibrate.h"


typedef ompb__team team;

#define PHASE_CALIBRATE OMPB__PHASE_CALIBRATE
#define PHASE_WARMUP OMPB__PHASE_WARMUP
#define PHASE_MEASURE OMPB__PHASE_MEASURE
#define PHASE_DONE OMPB__PHASE_DONE

void ompb__team_fail(team *tm, const char *fmt, ...)
{
    ompb__record *rec = tm->rec;
    if (rec->failed)
        return;
    rec->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rec->error, sizeof rec->error, fmt, ap);
    va_end(ap);
}


/* Who ran slot t's body, for messages: a caller team has one body. */
static const char *body_of(const team *tm, int t, char *buf, size_t len)
{
    if (tm->rec->caller_team)
        return "the body";
    snprintf(buf, len, "thread %d", t);
    return buf;
}

/* Checks that every timed thread ran its loop to the end; records a
 * failure if not. Runs every round: nothing is formatted unless one failed. */
static bool round_complete(team *tm)
{
    char who[32];
    for (int t = 0; t < tm->timed; t++) {
        const ompb_state *s = &tm->states[t];
        if (s->began && s->ended && !s->reentered)
            continue;
        const char *w = body_of(tm, t, who, sizeof who);
        if (!s->began)
            ompb__team_fail(tm, "%s: %s never entered its OMPB_ITER loop", tm->inst->name, w);
        else if (!s->ended)
            ompb__team_fail(tm, "%s: %s left its OMPB_ITER loop early (break/return/goto)",
                            tm->inst->name, w);
        else
            ompb__team_fail(tm, "%s: %s entered OMPB_ITER more than once in a round "
                            "(one timed loop per body)", tm->inst->name, w);
    }
    return !tm->rec->failed;
}

/* Every thread's counts of round r, as its group's last delta. */
static void record_counters(team *tm, size_t r)
{
    ompb__record *rec = tm->rec;
    int n = rec->counters.n;
    for (int t = 0; t < tm->threads; t++) {
        const ompb__counter_group *g = &tm->groups[t];
        size_t cell = r * (size_t)tm->threads + (size_t)t;
        rec->counter_enabled_ns[cell] = g->delta.enabled_ns;
        rec->counter_running_ns[cell] = g->delta.running_ns;
        memcpy(&rec->counter_values[cell * (size_t)n], g->delta.value, (size_t)n * sizeof g->delta.value[0]);
    }
}

/* A group that could not be read fails the instance: its round would be
 * a zero that was never counted. */
static bool counters_read(team *tm)
{
    for (int t = 0; tm->groups && t < tm->threads; t++)
        if (tm->groups[t].read_errno) {
            ompb__team_fail(tm, "%s: the counters of thread %d could not be read: %s",
                            tm->inst->name, t, strerror(tm->groups[t].read_errno));
            return false;
        }
    return true;
}

/* Each thread's time away in the round just recorded (r), from its watch's
 * records since the master's last look. */
static void account_round(team *tm, size_t r, uint64_t start, uint64_t end)
{
    ompb__record *rec = tm->rec;
    for (int t = 0; t < tm->threads; t++) {
        ompb__preempt_watch *w = &tm->watches[t];
        size_t cell = r * (size_t)tm->threads + (size_t)t;
        /* The common case inline: the thread did not switch (the arrays
         * are zeroed). */
        if (w->fd >= 0 && !w->out_ns && ompb__preempt_head(w) == w->mark)
            continue;
        ompb__preempt_tally tally;
        ompb__preempt_take(w, start, end, &tally);
        rec->away_ns[cell] = tally.away_ns;
        rec->preemptions[cell] = tally.preemptions;
    }
}

/* Rounds that are not measured: their records are dropped, so that the
 * next measured round reads only its own. */
static void skip_watches(team *tm)
{
    for (int t = 0; tm->watches && t < tm->threads; t++)
        ompb__preempt_skip(&tm->watches[t]);
}

static void record_measured(team *tm, uint64_t start, uint64_t end)
{
    ompb__record *rec = tm->rec;
    size_t r = tm->round++, T = (size_t)tm->timed;
    rec->start_ns[r] = start;
    rec->end_ns[r] = end;
    for (size_t t = 0; t < T; t++) {
        const ompb_state *s = &tm->states[t];
        rec->thread_start_ns[r * T + t] = s->start_ns;
        rec->busy_ns[r * T + t] = s->end_ns - s->start_ns;
        rec->thread_iters[r * T + t] = s->iters;
    }
    if (tm->groups)
        record_counters(tm, r);
    if (tm->watches && rec->away_ns) {
        account_round(tm, r, start, end);
        tm->clean += ompb__record_round_clean(rec, r);
    }
    rec->rounds = tm->round;
}

static uint64_t slowest_busy(const team *tm)
{
    uint64_t worst = 0;
    for (int t = 0; t < tm->timed; t++) {
        uint64_t busy = tm->states[t].end_ns - tm->states[t].start_ns;
        if (busy > worst)
            worst = busy;
    }
    return worst;
}

static void begin_measuring(team *tm)
{
    uint64_t bytes = 0, items = 0;
    for (int t = 0; t < tm->timed; t++) {
        bool wrapped = __builtin_add_overflow(bytes, tm->states[t].bytes, &bytes);
        if (__builtin_add_overflow(items, tm->states[t].items, &items) || wrapped)
            ompb__team_fail(tm, "%s: the team's ompb_set_bytes/ompb_set_items per iteration "
                            "add up to more than 2^64 - 1", tm->inst->name);
    }
    tm->rec->bytes_per_iter = bytes;
    tm->rec->items_per_iter = items;
    tm->rec->sample_size = tm->sample_size;
    tm->phase = PHASE_MEASURE;
    /* StartBenchmark waits for the runner's ack: that wait is the runner's
     * time, not the instance's, and must not cut the measured rounds short.
     * A recalibrated instance measures again in the window it opened. */
    uint64_t t0 = ompb__now_ns();
    if (!tm->instrumented)
        tm->env->markers.instance_begin(tm->env->markers.ctx, tm->inst);
    tm->instrumented = true;
    tm->t_measure = ompb__now_ns();
    tm->runner_ns += tm->t_measure - t0;
    tm->cpu_begin = ompb__process_cpu_ns();
}


static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void ompb__team_round_begin(team *tm)
{
    const ompb_distribution *d = tm->env->dist;
    if (!d)
        return;
    int64_t done = tm->phase == PHASE_DONE;
    ompb__dist_max_on(d, &done, 1, 0);
    tm->dist_exit = ompb__now_ns();
    if (done && tm->phase != PHASE_DONE) {
        ompb__team_fail(tm, "%s: another rank stopped this instance (its message says why)",
                        tm->inst->name);
        tm->phase = PHASE_DONE;
    }
}

/* A distributed round: every rank agrees on the global bounds (on this
 * rank's clock: its barrier exit plus the earliest start and latest end
 * over the ranks, each relative to its own barrier exit, so no two clocks
 * are ever subtracted), on the slowest thread, on failure, and takes rank
 * 0's elapsed time for the decisions. Returns false when a rank failed. */
static bool agree_round(team *tm, bool ok, uint64_t *start, uint64_t *end, uint64_t *busy,
                        uint64_t *now)
{
    ompb__dist_round r = {
        .start_rel = (int64_t)(*start - tm->dist_exit), .end_rel = (int64_t)(*end - tm->dist_exit),
        .busy_ns = *busy, .failed = !ok, .elapsed_ns = ompb__team_spent_ns(tm, *now),
    };
    if (tm->phase == PHASE_MEASURE && tm->own_bounds) {
        tm->own_bounds[tm->round * 2] = r.start_rel;
        tm->own_bounds[tm->round * 2 + 1] = r.end_rel;
    }
    ompb__dist_round_end(tm->env->dist, &r, *end - *start);
    if (r.failed && ok)
        ompb__team_fail(tm, "%s: another rank failed in this round (its message says why)",
                        tm->inst->name);
    *start = tm->dist_exit + (uint64_t)r.start_rel;
    *end = tm->dist_exit + (uint64_t)r.end_rel;
    *busy = r.busy_ns;
    *now = tm->t_instance + tm->runner_ns + r.elapsed_ns;
    return !r.failed;
}

uint64_t ompb__team_spent_ns(const team *tm, uint64_t now)
{
    uint64_t gross = now - tm->t_instance;
    return gross > tm->runner_ns ? gross - tm->runner_ns : 0;
}

/* Every timed thread's ompb_counter values of this round into the record's
 * table, and for a measured round into its row (the next one recorded). A
 * bad call fails the instance with its message. */
static bool user_counters(team *tm)
{
    ompb__record *rec = tm->rec;
    double *row = NULL;
    if (tm->phase == PHASE_MEASURE) {
        row = rec->ucounter_values + tm->round * OMPB__UCOUNTERS_MAX;
        memset(row, 0, OMPB__UCOUNTERS_MAX * sizeof *row);
    }
    char why[320];
    for (int t = 0; t < tm->timed; t++)
        if (ompb__ucounters_collect(&rec->ucounters, &tm->states[t].user, row, why, sizeof why)) {
            ompb__team_fail(tm, "%s: thread %d: %s", tm->inst->name, t, why);
            return false;
        }
    return true;
}

/* The measured rounds are enough, or the budget is spent. Past the rounds
 * asked for, --min-clean-rounds goes on while too few were clean (not in a
 * distributed run: its ranks stop together, by rank 0's elapsed time). */
static bool measure_done(const team *tm, uint64_t spent)
{
    const ompb__sampling *sp = tm->sp;
    if (spent >= sp->budget_ns)
        return true;
    if (tm->round < sp->rounds)
        return false;
    if (!sp->min_clean_rounds || !tm->watches || !tm->rec->away_ns || tm->env->dist)
        return true;
    return tm->clean >= sp->min_clean_rounds || tm->round >= ompb__sampling_capacity(sp);
}

/* Master, after the reduction barrier: records the round and picks the next. */
void ompb__team_after_round(team *tm, uint64_t start, uint64_t end)
{
    const ompb__sampling *sp = tm->sp;
    ompb__record *rec = tm->rec;
    bool ok = round_complete(tm) && counters_read(tm) && user_counters(tm);
    uint64_t now = ompb__now_ns(), busy = slowest_busy(tm);
    if (tm->env->dist)
        ok = agree_round(tm, ok, &start, &end, &busy, &now);
    /* A signal (the body guard's; never caught in a distributed run, whose
     * ranks must stop alike) ends the instance here, between rounds: it
     * is no result, and the run stops after it. */
    int sig = tm->env->body.stop_signal(tm->env->body.ctx);
    if (ok && sig) {
        ompb__team_fail(tm, "%s: interrupted by %s", tm->inst->name,
                        ompb__signal_name(sig));
        rec->interrupted = true;
        ok = false;
    }
    if (!ok) {
        tm->phase = PHASE_DONE;
        return;
    }
    uint64_t spent = ompb__team_spent_ns(tm, now);
    if (tm->phase != PHASE_MEASURE)
        skip_watches(tm);
    switch (tm->phase) {
    case PHASE_CALIBRATE:
        if (!ompb__calibrate_step(tm, busy, spent, now))
            ompb__team_fail(tm, "%s: %" PRIu64 " iterations took only %" PRIu64 " ns: the "
                            "round time does not grow with the sample size (does the body "
                            "ignore ompb_iter_begin()'s count?)", tm->inst->name,
                            tm->sample_size, busy);
        if (rec->failed)
            tm->phase = PHASE_DONE;
        else if (tm->phase == PHASE_WARMUP && (sp->warmup_ns == 0 || tm->instrumented))
            begin_measuring(tm); /* no warm-up, or warm already: a recalibration */
        break;
    case PHASE_WARMUP:
        rec->warmup_rounds++;
        rec->warmup_iters += tm->sample_size;
        rec->warmup_ns = now - tm->t_warmup;
        if (rec->warmup_ns >= sp->warmup_ns || spent >= sp->budget_ns / 2)
            begin_measuring(tm);
        break;
    case PHASE_MEASURE:
        if (tm->target_ns && tm->round < OMPB__CALIB_CHECK_ROUNDS)
            tm->check_busy[tm->round] = busy;
        record_measured(tm, start, end);
        if (tm->target_ns && tm->round == OMPB__CALIB_CHECK_ROUNDS
            && sp->rounds > OMPB__CALIB_CHECK_ROUNDS
            && ompb__calibrate_recheck(tm, spent))
            break;
        if (measure_done(tm, spent)) {
            uint64_t t = ompb__now_ns();
            rec->cpu_ns = ompb__process_cpu_ns() - tm->cpu_begin;
            rec->measure_wall_ns = t - tm->t_measure;
            ompb__calibrate_check_measured(tm);
            ompb__calibrate_explain_short(tm, spent);
            tm->phase = PHASE_DONE;
        }
        break;
    case PHASE_DONE:
        break;
    }
}

void ompb__team_check_pu(ompb_state *s, bool count)
{
    int cpu = sched_getcpu();
    int pu = cpu < 0 ? -1 : cpu;
    if (count && s->pu >= 0 && pu >= 0 && pu != s->pu)
        s->migrations++;
    s->pu = pu;
}

void ompb__team_open_counters(team *tm, int t)
{
    ompb_error err = {0};
    if (ompb__counter_group_open(&tm->groups[t], tm->env->counters, tm->sp->counters, 0, &err)
        == 0)
        return;
#pragma omp critical(ompb_round_fail)
    ompb__team_fail(tm, "%s: thread %d: %s", tm->inst->name, t, err.text);
}

void ompb__team_close_counters(team *tm)
{
    for (int t = 0; tm->groups && t < tm->threads; t++)
        ompb__counter_group_close(&tm->groups[t]);
    free(tm->groups);
    tm->groups = NULL;
}

void ompb__team_open_watch(team *tm, int t)
{
    if (!tm->watches)
        return;
    ompb_error err = {0};
    if (ompb__preempt_open(&tm->watches[t], &err) == 0)
        return;
#pragma omp critical(ompb_round_fail)
    if (!tm->watch_off[0])
        snprintf(tm->watch_off, sizeof tm->watch_off, "thread %d: %s", t, err.text);
}

void ompb__team_close_watches(team *tm)
{
    if (!tm->watches)
        return;
    for (int t = 0; t < tm->threads; t++)
        ompb__preempt_close(&tm->watches[t]);
    free(tm->watches);
    tm->watches = NULL;
    if (tm->watch_off[0])
        ompb__record_unaccounted(tm->rec, tm->watch_off);
}

static uint64_t involuntary_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_nivcsw : 0;
}

void ompb__team_mark_switches(ompb_state *s)
{
    s->switch_mark = involuntary_switches();
}

void ompb__team_count_switches(ompb_state *s)
{
    s->switches = involuntary_switches() - s->switch_mark;
}

/* CodSpeed's walltime flame graphs are cut at the first frame whose symbol
 * starts with __codspeed_root_frame__ (codspeed-cpp names its
 * BenchmarkInstance::__codspeed_root_frame__Run, codspeed-rust its
 * __codspeed_root_frame__iter*): what lies below it on a stack is the
 * benchmark. The body, and so its timed loop, runs inside this frame on
 * every thread that calls it. It must stay a frame of its own in Release
 * builds: noinline keeps it out of its caller, noclone keeps gcc from
 * renaming a specialized copy (clang has no such clones and no such
 * attribute), and the empty asm after the call keeps the call from becoming
 * a tail call, a jump that would replace this frame with the body's. */
#if defined(__clang__)
#define ROOT_FRAME __attribute__((noinline))
#else
#define ROOT_FRAME __attribute__((noinline, noclone))
#endif

static ROOT_FRAME void __codspeed_root_frame__ompb_body(void (*fn)(ompb_state *), ompb_state *s)
{
    fn(s);
    __asm__ volatile("" ::: "memory");
}

void ompb__team_call_body(const team *tm, ompb_state *s)
{
    __codspeed_root_frame__ompb_body(tm->inst->bench->fn, s);
}

void ompb__team_reset_state(const team *tm, ompb_state *s)
{
    ompb__ucounters_reset(&s->user);
    s->sample_size = tm->sample_size;
    s->simulate = tm->simulate && tm->phase == PHASE_MEASURE;
    s->began = s->ended = s->reentered = false;
    s->iters = 0;
}


/* The master is the caller's thread: binding it for the team must not
 * outlive the team. Returns the saved mask (NULL: nothing to restore). */
cpu_set_t *ompb__team_save_affinity(const ompb__pin_plan *plan, size_t *size)
{
    if (!plan || plan->binder != OMPB__BINDER_OURS)
        return NULL;
    int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
    cpu_set_t *set = CPU_ALLOC(ncpu > 0 ? ncpu : 1024);
    *size = CPU_ALLOC_SIZE(ncpu > 0 ? ncpu : 1024);
    if (set && sched_getaffinity(0, *size, set) != 0) {
        CPU_FREE(set);
        set = NULL;
    }
    return set;
}

void ompb__team_restore_affinity(cpu_set_t *set, size_t size)
{
    if (set) {
        (void)sched_setaffinity(0, size, set);
        CPU_FREE(set);
    }
}


/* Each thread's involuntary switches over the measured rounds, and
 * whether the counters were on the PMU: rounds in which a group was not
 * scheduled at all have no counts (reporters leave them out); an instance
 * in which it never was has no counter figure at all, and says why. */
void ompb__team_finish_counters(team *tm)
{
    ompb__record *rec = tm->rec;
    for (int t = 0; t < tm->threads; t++)
        rec->involuntary_switches[t] = tm->rec->rounds ? tm->states[t].switches : 0;
    size_t cells = rec->rounds * (size_t)rec->threads, missing = 0;
    for (size_t c = 0; c < cells && rec->counters.n; c++)
        missing += rec->counter_running_ns[c] == 0 && rec->counter_enabled_ns[c] > 0;
    if (rec->failed || missing == 0)
        return;
    if (missing == cells)
        ompb__team_fail(tm, "%s: --counters: the counter group was never on the PMU in a "
                        "measured round (another program holds its counters, or the events "
                        "are too many for it; fix: count fewer events)", tm->inst->name);
    else
        ompb__record_warn(rec, "%s: --counters: in %zu of %zu thread-rounds the counter group "
                          "was not on the PMU at all; those rounds have no counts (left out, "
                          "not zeros)", tm->inst->name, missing, cells);
}

/* Rank 0 collects every rank's own bounds of the measured rounds (which
 * every rank has the same number of: the decisions are common). */
void ompb__team_gather_ranks(team *tm)
{
    ompb__record *rec = tm->rec;
    const ompb_distribution *d = tm->env->dist;
    if (!d)
        return;
    rec->ranks = d->size;
    int64_t *all;
    ompb__dist_gather_on(d, tm->own_bounds, rec->rounds * 2, &all);
    rec->rank_bounds = all;
    free(tm->own_bounds);
    tm->own_bounds = NULL;
}

/* Rank 0 warns when the median global round is within a few times what
 * the ranks' exits from the round-start barrier may be apart: the global
 * bounds of such rounds say more about the clocks than about the code.
 * The text names no figure of this repetition, so it is raised once per
 * instance. */
void ompb__team_check_clock_error(team *tm)
{
    ompb__record *rec = tm->rec;
    const ompb_distribution *d = tm->env->dist;
    if (!d || d->rank != 0 || rec->failed || rec->rounds == 0
        || tm->sp->mode != OMPB__SAMPLING_MEASURE)
        return;
    double skew = d->barrier_exit_skew_ns, err = ompb__dist_skew_error_ns(d);
    double floor_ns = OMPB__DIST_CLOCK_ERROR_FACTOR * (skew + err);
    uint64_t *m = malloc(rec->rounds * sizeof *m);
    if (!m || floor_ns <= 0) {
        free(m);
        return;
    }
    for (size_t r = 0; r < rec->rounds; r++)
        m[r] = ompb__record_makespan(rec, r);
    qsort(m, rec->rounds, sizeof *m, cmp_u64);
    double median = rec->rounds % 2 ? (double)m[rec->rounds / 2]
                                    : ((double)m[rec->rounds / 2 - 1] + m[rec->rounds / 2]) / 2;
    free(m);
    if (median < floor_ns)
        ompb__record_warn(rec, "%s: its median global round is below %dx the barrier exit skew "
                          "plus its error (%.0f + %.0f ns): the global bounds of its rounds are "
                          "dominated by the clock error between the ranks (fix: longer rounds, "
                          "--min-time or a larger --sample-size)", tm->inst->name,
                          OMPB__DIST_CLOCK_ERROR_FACTOR, skew, err);
}


void ompb__team_watch_forks(const team *tm, ompb__fork_watch *w)
{
    if (tm->env->forks.watch)
        tm->env->forks.watch(w);
}
