/* SPDX-License-Identifier: MIT */
/*
 * Pairing application regions' instances and folding them into the
 * entries' statistics. Each thread appends its begin/end pairs to its
 * lane's ring and publishes a count; the k-th pair of every lane of a
 * group is instance k. Folding instances into the entry's accumulator
 * (lib/regions/region_stats.h) happens in batches, by thread 0 of the team
 * when it gets the group's reducing flag and the entry's mutex without
 * waiting (try-lock): the statistics stay in one core's cache, and nobody
 * waits; only a full ring, a thread's exit and reports wait. In an entry's
 * steady state the fold keeps the accumulator's sums in locals for a
 * batch, reading the rings straight (fold_steady).
 *
 * In the regions' one-way chain after the settings and the statistics,
 * and calling no later region module: the objects' lifecycle and the
 * failure of an entry live here, and the fold fills the CodSpeed runner's
 * window buffer here (the runner opens the window and empties the buffer).
 */
#include "regions/region_entry.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define PU_UNKNOWN OMPB__REGION_PU_UNKNOWN

/* ---- entries -------------------------------------------------------------- */

void ompb__region_entry_fail(ompb__region_entry *e, const char *fmt, ...)
{
    char raw[OMPB__REGION_ERROR_MAX], text[OMPB__REGION_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* Call sites are the caller's __FILE__: whatever bytes, the message
     * ends up in JSON and on one line of standard error. */
    ompb__utf8_escape_controls(raw, text, sizeof text);
    pthread_mutex_lock(&e->lock);
    bool first = !e->failed;
    e->misuse++;
    if (first) {
        e->failed = true;
        snprintf(e->error, sizeof e->error, "%s", text);
    }
    pthread_mutex_unlock(&e->lock);
    if (first)
        fprintf(stderr, "ompbench: region:%s[t=%d]: %s\n", e->region->display,
                ompb__region_entry_phase(e).width, text);
}

/* Relaxed min/max of a width that is 0 until set. */
static void width_min(_Atomic uint32_t *w, unsigned v)
{
    uint32_t cur = atomic_load_explicit(w, memory_order_relaxed);
    while ((cur == 0 || v < cur)
           && !atomic_compare_exchange_weak_explicit(w, &cur, v, memory_order_relaxed,
                                                     memory_order_relaxed))
        ;
}

static void width_max(_Atomic uint32_t *w, unsigned v)
{
    uint32_t cur = atomic_load_explicit(w, memory_order_relaxed);
    while (v > cur
           && !atomic_compare_exchange_weak_explicit(w, &cur, v, memory_order_relaxed,
                                                     memory_order_relaxed))
        ;
}

void ompb__region_entry_note_phase(ompb__region_entry *e, unsigned asked, unsigned lo,
                                   unsigned hi)
{
    ompb__region_phase *p = &e->phase;
    width_min(&p->lo, lo);
    width_max(&p->hi, hi);
    width_min(&p->asked_lo, asked);
    width_max(&p->asked_hi, asked);
    atomic_fetch_add_explicit(&p->instances, 1, memory_order_relaxed);
}

/* Another entry of e's region already carries width w in its name. */
static bool width_taken(const ompb__region_entry *e, int w)
{
    for (const ompb__region_entry *o = atomic_load(&e->region->entries); o; o = o->next)
        if (o != e && o->threads == w)
            return true;
    return false;
}

ompb__region_phase_info ompb__region_entry_phase(const ompb__region_entry *e)
{
    const ompb__region_phase *p = &e->phase;
    ompb__region_phase_info i = {.width = e->threads};
    i.instances = atomic_load_explicit(&p->instances, memory_order_relaxed);
    if (e->threads != 1 || i.instances == 0)
        return i;
    i.lo = atomic_load_explicit(&p->lo, memory_order_relaxed);
    i.hi = atomic_load_explicit(&p->hi, memory_order_relaxed);
    i.asked_lo = atomic_load_explicit(&p->asked_lo, memory_order_relaxed);
    i.asked_hi = atomic_load_explicit(&p->asked_hi, memory_order_relaxed);
    i.mixed = i.lo != i.hi || i.asked_lo != i.asked_hi || i.lo != i.asked_lo;
    /* What ran, when it was one width; else what the runtime answered,
     * when that was one. */
    unsigned w = i.lo == i.hi ? i.lo : i.asked_lo == i.asked_hi ? i.asked_lo : i.hi;
    if (w >= 1 && w <= INT32_MAX && !width_taken(e, (int)w))
        i.width = (int)w;
    return i;
}

void ompb__region_entry_names(const ompb__region_entry *e, char *name, size_t name_len,
                              char *uri, size_t uri_len)
{
    snprintf(name, name_len, "region:%s[t=%d]", e->region->display,
             ompb__region_entry_phase(e).width);
    snprintf(uri, uri_len, "%s::%s", e->region->file, name);
}

ompb__region_entry *ompb__region_entry_new(ompb__region *r, int threads, uint32_t order)
{
    ompb__region_entry *e = ompb__calloc_lines(sizeof *e);
    if (!e)
        return NULL;
    e->region = r;
    e->threads = threads;
    e->order = order;
    if (ompb__region_acc_init(&e->acc, threads, 0x5EED0000ull + order) != 0) {
        free(e);
        return NULL;
    }
    e->os_tid = ompb__calloc_lines((size_t)threads * sizeof *e->os_tid);
    if (!e->os_tid || pthread_mutex_init(&e->lock, NULL) != 0) {
        ompb__region_acc_release(&e->acc);
        free(e->os_tid);
        free(e);
        return NULL;
    }
    return e;
}

void ompb__region_entry_free(ompb__region_entry *e)
{
    if (!e)
        return;
    pthread_mutex_destroy(&e->lock);
    ompb__region_acc_release(&e->acc);
    free(e->os_tid);
    free(e->pairs.start_ns);
    free(e->pairs.end_ns);
    free(e);
}

/* A failed allocation of the accumulator's, taken while e->lock was held:
 * the entry fails once the lock is dropped (ompb__region_entry_fail takes
 * it). */
static const char *take_failure(ompb__region_entry *e)
{
    const char *what = e->acc.failure;
    if (unlikely(what != NULL))
        e->acc.failure = NULL;
    return what;
}

/* ---- groups and lanes ----------------------------------------------------- */

ompb__region_group *ompb__region_group_new(ompb__region_entry *e, int threads)
{
    size_t bytes = sizeof(ompb__region_group) + (size_t)threads * sizeof(ompb__region_lane);
    ompb__region_group *g = ompb__calloc_lines(bytes);
    if (!g)
        return NULL;
    g->scratch = ompb__calloc_lines((size_t)threads * sizeof *g->scratch);
    if (!g->scratch) {
        free(g);
        return NULL;
    }
    g->entry = e;
    g->threads = threads;
    atomic_flag_clear(&g->reducing);
    /* Thread 0 of the team folds; the others only when their ring fills. */
    for (int t = 0; t < threads; t++)
        g->lanes[t].next_try = t == 0 ? OMPB__REGION_RING_FIRST / 4 : UINT64_MAX;
    return g;
}

void ompb__region_group_free(ompb__region_group *g)
{
    if (!g)
        return;
    for (int t = 0; t < g->threads; t++)
        free(g->lanes[t].ring);
    free(g->scratch);
    free(g);
}

/* Waits for the reducing flag: spins a while (a batch is folded in about a
 * microsecond), then yields. Only for a full ring and for reports. */
static void take_flag(ompb__region_group *g)
{
    for (unsigned spins = 0;
         atomic_flag_test_and_set_explicit(&g->reducing, memory_order_acquire); spins++) {
        if (spins < 20000)
            ompb__region_cpu_relax();
        else
            sched_yield();
    }
}

static void drop_flag(ompb__region_group *g)
{
    atomic_flag_clear_explicit(&g->reducing, memory_order_release);
}

static void fold(ompb__region_entry *e, ompb__region_group *g, uint64_t lo, uint64_t hi);

/* Instances [reduced, min published) into the entry; reducing flag held.
 * wait: false on the hot path, where an entry another team is folding
 * into right now (concurrent teams of one region) is left for later rather
 * than waited for. */
static void reduce_locked(ompb__region_group *g, bool wait)
{
    uint64_t lo = atomic_load_explicit(&g->reduced, memory_order_relaxed), hi = UINT64_MAX;
    for (int t = 0; t < g->threads; t++) {
        uint64_t p = atomic_load_explicit(&g->lanes[t].published, memory_order_acquire);
        hi = p < hi ? p : hi;
    }
    if (hi <= lo)
        return;
    ompb__region_entry *e = g->entry;
    if (wait)
        pthread_mutex_lock(&e->lock);
    else if (pthread_mutex_trylock(&e->lock) != 0)
        return;
    /* The other threads' slots were written on other cores: ask for all
     * their lines at once rather than wait for each in turn (4 slots a
     * line). */
    for (int t = 1; t < g->threads; t++)
        for (uint64_t k = lo; k < hi; k += 4)
            __builtin_prefetch(&g->lanes[t].ring[k & g->lanes[t].mask], 0);
    fold(e, g, lo, hi);
    for (int t = 0; t < g->threads; t++) {
        int os = atomic_load_explicit(&g->lanes[t].os_tid, memory_order_relaxed);
        if (os)
            e->os_tid[t] = os;
    }
    const char *oom = take_failure(e);
    pthread_mutex_unlock(&e->lock);
    atomic_store_explicit(&g->reduced, hi, memory_order_release);
    if (unlikely(oom != NULL))
        ompb__region_entry_fail(e, "%s", oom);
}

void ompb__region_group_try_reduce(ompb__region_group *g, ompb__region_lane *self)
{
    self->next_try = self == &g->lanes[0] ? self->count + ompb__region_batch(self) : UINT64_MAX;
    if (atomic_flag_test_and_set_explicit(&g->reducing, memory_order_acquire))
        return;
    reduce_locked(g, false);
    drop_flag(g);
    self->reduced_seen = atomic_load_explicit(&g->reduced, memory_order_acquire);
}

void ompb__region_group_reduce_all(ompb__region_group *g)
{
    take_flag(g);
    reduce_locked(g, true);
    drop_flag(g);
}

/* Gives the group up: a lane is so far ahead of another that the team did
 * not enter the region together (a thread skipped instances). */
static void give_up(ompb__region_group *g, const ompb__region_lane *ln)
{
    int ahead = (int)(ln - g->lanes), behind = 0;
    uint64_t least = UINT64_MAX;
    for (int t = 0; t < g->threads; t++) {
        uint64_t p = atomic_load_explicit(&g->lanes[t].published, memory_order_relaxed);
        if (p < least) {
            least = p;
            behind = t;
        }
    }
    atomic_store(&g->dead, true);
    ompb__region_entry_fail(g->entry, "thread %d of a team of %d ended it %llu times while "
                            "thread %d ended it %llu times: instances pair the k-th begin/end "
                            "of every thread of the team, which needs each thread to take part "
                            "in every instance and to stay within %u instances of the others "
                            "(any barrier in or between instances does); nothing more is "
                            "recorded for this team", ahead, g->threads,
                            (unsigned long long)ln->count, behind, (unsigned long long)least,
                            OMPB__REGION_RING_MAX);
}

/* Replaces the lane's ring by one of cap slots (0: twice as large, or the
 * first), keeping the pairs not yet folded at the same instance numbers;
 * reducing flag held. */
static bool grow_ring(ompb__region_lane *ln, uint64_t from, uint32_t cap)
{
    if (!cap)
        cap = ln->ring ? (ln->mask + 1) * 2 : OMPB__REGION_RING_FIRST;
    if (cap > OMPB__REGION_RING_MAX)
        return false;
    ompb__region_slot *ring = ompb__calloc_lines((size_t)cap * sizeof *ring);
    if (!ring)
        return false;
    for (uint64_t k = from; ln->ring && k < ln->count; k++)
        ring[k & (cap - 1)] = ln->ring[k & ln->mask];
    free(ln->ring);
    ln->ring = ring;
    ln->mask = cap - 1;
    return true;
}

bool ompb__region_lane_make_room(ompb__region_group *g, ompb__region_lane *ln)
{
    take_flag(g);
    reduce_locked(g, true);
    uint64_t reduced = atomic_load_explicit(&g->reduced, memory_order_relaxed);
    bool ok = ln->ring && ln->count - reduced <= ln->mask;
    if (!ok)
        ok = grow_ring(ln, reduced, 0);
    drop_flag(g);
    ln->reduced_seen = reduced;
    if (!ok && ln->ring)
        give_up(g, ln);
    else if (!ok)
        ompb__region_entry_fail(g->entry, "out of memory for a thread's ring");
    return ok;
}

void ompb__region_lane_heat(ompb__region_group *g, ompb__region_lane *ln)
{
    take_flag(g);
    if (ln->mask + 1 < OMPB__REGION_RING_HOT)
        grow_ring(ln, atomic_load_explicit(&g->reduced, memory_order_relaxed),
                  OMPB__REGION_RING_HOT);
    drop_flag(g);
    if (ln == &g->lanes[0])
        ln->next_try = ln->count + ompb__region_batch(ln);
}
/* ---- the fold ------------------------------------------------------------- */

/* Adds one instance to e's accumulator (T: e->threads; a constant where
 * the fold inlines it for one team size) and, with the runner's window
 * open, its pair to the window's buffer. */
static inline __attribute__((always_inline)) void add_instance(ompb__region_entry *e,
                                                               const ompb__region_slot *m,
                                                               const int T)
{
    ompb__region_span span = ompb__region_acc_add(&e->acc, m, T);
    if (unlikely(e->window_active))
        ompb__region_window_record(e, span.start_ns, span.end_ns);
}

void ompb__region_entry_add(ompb__region_entry *e, const ompb__region_slot *m)
{
    add_instance(e, m, e->threads);
    const char *oom = take_failure(e);
    if (unlikely(oom != NULL))
        ompb__region_entry_fail(e, "%s", oom);
}

/* True in an entry's steady state: past the kept maximum, with a histogram
 * that holds every instance (so its count and extremes are the entry's),
 * and no runner window open. */
static bool steady(const ompb__region_entry *e)
{
    return ompb__region_acc_steady(&e->acc) && !e->window_active;
}

/* Instances [lo, hi) of a team of T (1 or 2, a constant) in the steady
 * state: ompb__region_acc_add's arithmetic in the same order, but the sums
 * live in locals for the batch and are written back at its end (through a
 * they would be reloaded after every store: a's fields and the per-thread
 * arrays may alias for the compiler), the rings are read in runs without a wrap,
 * a PU change, a shared PU and the kept sample's next instance share one
 * rarely taken branch, and the histogram's count and extremes are the
 * entry's, set once. The calls out of that branch read none of the
 * locals. Identical results to adding one by one:
 * unit.region/fold_matches_add. */
static inline __attribute__((always_inline)) void fold_steady(ompb__region_acc *a,
                                                              const ompb__region_group *g,
                                                              uint64_t lo, uint64_t hi,
                                                              const int T)
{
    const ompb__region_slot *ra = g->lanes[0].ring, *rb = g->lanes[T - 1].ring;
    const uint64_t ma = g->lanes[0].mask, mb = g->lanes[T - 1].mask;
    /* Instance number k + off; the kept sample's next one at k == knext. */
    const uint64_t off = a->n - lo;
    uint64_t knext = a->reservoir_next - off;
    ompb__region_sums sum = ompb__region_sums_load(a);
    uint64_t b0 = a->busy_sum[0], b1 = a->busy_sum[T - 1];
    /* The last PUs as 16-bit codes (PU_UNKNOWN: none). A thread's PU
     * rarely changes: one test for both lanes and for the kept sample's
     * next instance, the rest out of the way. */
    uint64_t lp0 = a->last_pu[0] < 0 ? PU_UNKNOWN : (uint64_t)a->last_pu[0];
    uint64_t lp1 = T == 2 && a->last_pu[1] >= 0 ? (uint64_t)a->last_pu[1] : PU_UNKNOWN;
    bool shared = T == 2 && lp0 != PU_UNKNOWN && lp0 == lp1;
    uint64_t *counts = a->hist->counts;
    for (uint64_t k = lo; k < hi;) {
        /* A run of instances in which neither ring wraps. */
        uint64_t ia = k & ma, ib = k & mb, run = hi - k;
        run = ma + 1 - ia < run ? ma + 1 - ia : run;
        run = mb + 1 - ib < run ? mb + 1 - ib : run;
        const ompb__region_slot *x = &ra[ia], *y = &rb[ib];
        uint64_t jnext = knext - k;
        for (uint64_t j = 0; j < run; j++) {
            uint64_t s0 = x[j].start_ns, w0 = x[j].busy_pu, u0 = w0 >> 16;
            uint64_t p0 = w0 & PU_UNKNOWN, p1 = PU_UNKNOWN;
            uint64_t start = s0, smax = s0, end = s0 + u0, bsum = u0, bmax = u0;
            b0 += u0;
            if (T == 2) {
                uint64_t s1 = y[j].start_ns, w1 = y[j].busy_pu, u1 = w1 >> 16;
                p1 = w1 & PU_UNKNOWN;
                start = s1 < start ? s1 : start;
                smax = s1 > smax ? s1 : smax;
                end = s1 + u1 > end ? s1 + u1 : end;
                b1 += u1;
                bsum += u1;
                bmax = u1 > bmax ? u1 : bmax;
            }
            uint64_t makespan = end - start;
            ompb__region_sums_add(&sum, makespan, smax - start, bsum, bmax, T);
            if (unlikely(((p0 ^ lp0) | (p1 ^ lp1)) != 0 || shared || j == jnext)) {
                sum.mig += (p0 != lp0) & (p0 != PU_UNKNOWN) & (lp0 != PU_UNKNOWN);
                sum.mig += (p1 != lp1) & (p1 != PU_UNKNOWN) & (lp1 != PU_UNKNOWN);
                lp0 = p0;
                lp1 = p1;
                shared = T == 2 && p0 != PU_UNKNOWN && p1 == p0;
                ompb__region_slot m[2] = {x[j], y[j]};
                if (shared)
                    ompb__region_acc_shared_pu(a, m);
                if (j == jnext) {
                    ompb__region_acc_keep(a, k + j + off, m, start, end);
                    knext = a->reservoir_next - off;
                    jnext = knext - k;
                }
            }
            counts[ompb__histogram_bucket(makespan)]++;
        }
        k += run;
    }
    ompb__region_sums_store(a, &sum, hi + off);
    a->busy_sum[0] = b0;
    a->last_pu[0] = lp0 == PU_UNKNOWN ? -1 : (int)lp0;
    if (T == 2) {
        a->busy_sum[1] = b1;
        a->last_pu[1] = lp1 == PU_UNKNOWN ? -1 : (int)lp1;
    }
}

/* fold_steady for a team of any size: the per-thread sums stay in the
 * accumulator's arrays, the scalar ones in locals; an instance whose threads
 * are on the PUs of the one before is checked for shared PUs only if that
 * one had them (ompb__region_acc_add compares every pair of threads of every
 * instance: O(T^2) for the thread that folds). The first instance of the
 * batch is checked as if changed. Identical results to adding one by
 * one: unit.region/fold_matches_add. */
static void fold_steady_any(ompb__region_acc *a, ompb__region_group *g, uint64_t lo,
                            uint64_t hi)
{
    const int T = g->threads;
    const ompb__region_lane *lanes = g->lanes;
    ompb__region_slot *m = g->scratch;
    uint64_t *busy_sum = a->busy_sum;
    int *last_pu = a->last_pu;
    const uint64_t off = a->n - lo;
    uint64_t next = a->reservoir_next;
    ompb__region_sums sum = ompb__region_sums_load(a);
    uint64_t *counts = a->hist->counts;
    bool shared = true;
    for (uint64_t k = lo; k < hi; k++) {
        const ompb__region_slot *x0 = &lanes[0].ring[k & lanes[0].mask];
        uint64_t start = x0->start_ns, smax = 0, end = 0, bsum = 0, bmax = 0;
        bool changed = false;
        for (int t = 0; t < T; t++) {
            const ompb__region_slot *x = &lanes[t].ring[k & lanes[t].mask];
            uint64_t sv = x->start_ns, u = x->busy_pu >> 16;
            int p = (int)(x->busy_pu & PU_UNKNOWN);
            start = sv < start ? sv : start;
            smax = sv > smax ? sv : smax;
            end = sv + u > end ? sv + u : end;
            busy_sum[t] += u;
            bsum += u;
            bmax = u > bmax ? u : bmax;
            changed |= (p == PU_UNKNOWN ? -1 : p) != last_pu[t];
        }
        uint64_t makespan = end - start, i = k + off;
        ompb__region_sums_add(&sum, makespan, smax - start, bsum, bmax, T);
        if (unlikely(changed || shared || i == next)) {
            for (int t = 0; t < T; t++) {
                m[t] = lanes[t].ring[k & lanes[t].mask];
                int p = (int)(m[t].busy_pu & PU_UNKNOWN);
                if (p != PU_UNKNOWN && last_pu[t] >= 0 && p != last_pu[t])
                    sum.mig++;
                last_pu[t] = p == PU_UNKNOWN ? -1 : p;
            }
            shared = ompb__region_acc_shared_pu(a, m);
            if (i == next) {
                ompb__region_acc_keep(a, i, m, start, end);
                next = a->reservoir_next;
            }
        }
        counts[ompb__histogram_bucket(makespan)]++;
    }
    ompb__region_sums_store(a, &sum, hi + off);
}

/* Instances [lo, hi) of g's lanes into e (e->lock held): in the steady
 * state by fold_steady (teams of one and two) or fold_steady_any; before
 * it, one by one, inlined for teams of one and two, whose slots are read
 * straight from the rings. */
static void fold(ompb__region_entry *e, ompb__region_group *g, uint64_t lo, uint64_t hi)
{
    const int T = g->threads;
    if (T == e->threads && steady(e)) {
        if (T == 1)
            fold_steady(&e->acc, g, lo, hi, 1);
        else if (T == 2)
            fold_steady(&e->acc, g, lo, hi, 2);
        else
            fold_steady_any(&e->acc, g, lo, hi);
        return;
    }
    const ompb__region_lane *a = &g->lanes[0], *b = &g->lanes[T - 1];
    if (T == 1 && e->threads == 1) {
        for (uint64_t k = lo; k < hi; k++)
            add_instance(e, &a->ring[k & a->mask], 1);
        return;
    }
    if (T == 2 && e->threads == 2) {
        for (uint64_t k = lo; k < hi; k++) {
            ompb__region_slot m[2] = {a->ring[k & a->mask], b->ring[k & b->mask]};
            add_instance(e, m, 2);
        }
        return;
    }
    for (uint64_t k = lo; k < hi; k++) {
        for (int t = 0; t < T; t++) {
            const ompb__region_lane *ln = &g->lanes[t];
            g->scratch[t] = ln->ring[k & ln->mask];
        }
        add_instance(e, g->scratch, T);
    }
}

void ompb__region_window_record(ompb__region_entry *e, uint64_t start_ns, uint64_t end_ns)
{
    ompb__region_pairs *p = &e->pairs;
    if (start_ns < e->window_open_ns)
        return; /* begun before the window: the runner cannot take it */
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        uint64_t *s = cap <= OMPB__REGION_PAIRS_MAX ? realloc(p->start_ns, cap * sizeof *s) : NULL;
        if (s)
            p->start_ns = s;
        uint64_t *en = s ? realloc(p->end_ns, cap * sizeof *en) : NULL;
        if (en)
            p->end_ns = en;
        if (!s || !en) {
            p->dropped++;
            return;
        }
        p->cap = cap;
    }
    p->start_ns[p->n] = start_ns;
    p->end_ns[p->n++] = end_ns;
}
