/* SPDX-License-Identifier: MIT */
/*
 * Pairing and streaming statistics of application regions. Each thread
 * appends its begin/end pairs to its lane's ring and publishes a count; the
 * k-th pair of every lane of a group is instance k. Folding instances into
 * the entry happens in batches, by thread 0 of the team when it gets the
 * group's reducing flag and the entry's mutex without waiting (try-lock):
 * the statistics stay in one core's cache, and nobody waits; only a full
 * ring, a thread's exit and reports wait.
 *
 * Per entry, exact over every instance: count, min, max, total, mean and
 * variance (shifted sums), mean start skew, mean imbalance, per-thread mean busy
 * time, instances with two threads on one PU, PU changes. Kept raw: every
 * instance up to keep_max, then a uniform sample of keep_max (reservoir
 * sampling, Li's algorithm L, with a per-entry deterministic generator).
 * Once there are more instances than that, every makespan also goes into a
 * log-linear histogram (lib/core/histogram.h), from which quantiles come.
 *
 * Second in the regions' one-way chain, after the settings, and calling no
 * other region module: the objects' allocator and the failure of an entry
 * live here, and the fold fills the CodSpeed runner's window buffer here
 * (the runner opens the window and empties the buffer).
 */
#include "regions/region_entry.h"

#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* splitmix64: fast, good enough to choose reservoir slots, reproducible. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- entries -------------------------------------------------------------- */

void *ompb__region_calloc(size_t size)
{
    size = (size + 63) / 64 * 64;
    void *p = aligned_alloc(64, size ? size : 64);
    if (p)
        memset(p, 0, size);
    return p;
}

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
        fprintf(stderr, "ompbench: region:%s[t=%d]: %s\n", e->region->display, e->threads, text);
}

void ompb__region_entry_names(const ompb__region_entry *e, char *name, size_t name_len,
                              char *uri, size_t uri_len)
{
    snprintf(name, name_len, "region:%s[t=%d]", e->region->display, e->threads);
    snprintf(uri, uri_len, "%s::%s", e->region->file, name);
}

static size_t keep_max_for(int threads)
{
    size_t per = 3 * sizeof(uint64_t) + 2 * sizeof(uint64_t) * (size_t)threads;
    size_t k = OMPB__REGION_KEPT_BYTES / per;
    k = k < OMPB__REGION_KEPT_MIN ? OMPB__REGION_KEPT_MIN : k;
    return k > OMPB__REGION_KEPT_MAX ? OMPB__REGION_KEPT_MAX : k;
}

ompb__region_entry *ompb__region_entry_new(ompb__region *r, int threads, uint32_t order)
{
    ompb__region_entry *e = ompb__region_calloc(sizeof *e);
    if (!e)
        return NULL;
    e->region = r;
    e->threads = threads;
    e->order = order;
    e->keep_max = keep_max_for(threads);
    e->rng = 0x5EED0000ull + order;
    e->busy_sum = ompb__region_calloc((size_t)threads * sizeof *e->busy_sum);
    e->last_pu = ompb__region_calloc((size_t)threads * sizeof *e->last_pu);
    e->os_tid = ompb__region_calloc((size_t)threads * sizeof *e->os_tid);
    if (!e->busy_sum || !e->last_pu || !e->os_tid || pthread_mutex_init(&e->lock, NULL) != 0) {
        free(e->busy_sum);
        free(e->last_pu);
        free(e->os_tid);
        free(e);
        return NULL;
    }
    for (int t = 0; t < threads; t++)
        e->last_pu[t] = -1;
    return e;
}

void ompb__region_entry_free(ompb__region_entry *e)
{
    if (!e)
        return;
    pthread_mutex_destroy(&e->lock);
    free(e->busy_sum);
    free(e->last_pu);
    free(e->os_tid);
    free(e->kept_index); /* the block of every kept_* array */
    free(e->hist);
    free(e->pairs.start_ns);
    free(e->pairs.end_ns);
    free(e);
}

/* ---- groups and lanes ----------------------------------------------------- */

ompb__region_group *ompb__region_group_new(ompb__region_entry *e, int threads)
{
    size_t bytes = sizeof(ompb__region_group) + (size_t)threads * sizeof(ompb__region_lane);
    ompb__region_group *g = ompb__region_calloc(bytes);
    if (!g)
        return NULL;
    g->scratch = ompb__region_calloc((size_t)threads * sizeof *g->scratch);
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
    pthread_mutex_unlock(&e->lock);
    atomic_store_explicit(&g->reduced, hi, memory_order_release);
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
    ompb__region_slot *ring = ompb__region_calloc((size_t)cap * sizeof *ring);
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

/* ---- statistics ----------------------------------------------------------- */

/* Room for one more kept instance. The five kept_* arrays share one block
 * (kept_index is its start), which grows four-fold from 16 to keep_max:
 * at most four allocations per entry, however many instances. */
static bool keep_room(ompb__region_entry *e)
{
    if (e->kept < e->cap_kept)
        return true;
    size_t cap = e->cap_kept ? e->cap_kept * 4 : 16, T = (size_t)e->threads, old = e->kept;
    cap = cap > e->keep_max ? e->keep_max : cap;
    uint64_t *block = ompb__region_calloc(cap * (3 + 2 * T) * sizeof *block);
    if (!block)
        return false;
    uint64_t *index = block, *start = index + cap, *end = start + cap;
    uint64_t *tstart = end + cap, *busy = tstart + cap * T;
    if (old) {
        memcpy(index, e->kept_index, old * sizeof *index);
        memcpy(start, e->kept_start, old * sizeof *start);
        memcpy(end, e->kept_end, old * sizeof *end);
        memcpy(tstart, e->kept_tstart, old * T * sizeof *tstart);
        memcpy(busy, e->kept_busy, old * T * sizeof *busy);
    }
    free(e->kept_index);
    e->kept_index = index;
    e->kept_start = start;
    e->kept_end = end;
    e->kept_tstart = tstart;
    e->kept_busy = busy;
    e->cap_kept = cap;
    return true;
}

static void keep_at(ompb__region_entry *e, size_t slot, uint64_t index,
                    const ompb__region_slot *m, uint64_t start, uint64_t end)
{
    size_t T = (size_t)e->threads;
    e->kept_index[slot] = index;
    e->kept_start[slot] = start;
    e->kept_end[slot] = end;
    for (size_t t = 0; t < T; t++) {
        e->kept_tstart[slot * T + t] = m[t].start_ns;
        e->kept_busy[slot * T + t] = m[t].busy_pu >> 16;
    }
}

/* Uniform in (0, 1]. */
static double next_unit(uint64_t *state)
{
    return (double)((next_random(state) >> 11) + 1) * 0x1.0p-53;
}

/* Algorithm L (Li, 1994): instead of a random number per instance (as
 * Algorithm R), draw how many instances to skip before the next one takes
 * a random slot; the kept ones stay a uniform sample of all so far, and an
 * instance costs one comparison. */
static void reservoir_skip(ompb__region_entry *e, uint64_t i)
{
    double u = next_unit(&e->rng);
    e->reservoir_next = i + 1 + (uint64_t)floor(log(u) / log1p(-e->reservoir_w));
}

static void keep(ompb__region_entry *e, uint64_t i, const ompb__region_slot *m,
                 uint64_t start, uint64_t end)
{
    if (i < e->keep_max) {
        if (!keep_room(e)) {
            ompb__region_entry_fail(e, "out of memory for the kept instances");
            return;
        }
        keep_at(e, e->kept++, i, m, start, end);
        if (e->kept == e->keep_max) {
            e->reservoir_w = exp(log(next_unit(&e->rng)) / (double)e->keep_max);
            reservoir_skip(e, i);
        }
        return;
    }
    if (i != e->reservoir_next)
        return;
    /* 53 random bits times keep_max (at most 2^10) fit in 64 bits. */
    size_t slot = (size_t)(((next_random(&e->rng) >> 11) * e->keep_max) >> 53);
    keep_at(e, slot, i, m, start, end);
    e->reservoir_w *= exp(log(next_unit(&e->rng)) / (double)e->keep_max);
    reservoir_skip(e, i);
}

static void histogram_add(ompb__region_entry *e, uint64_t makespan)
{
    if (!e->hist) {
        if (e->n <= e->keep_max)
            return;
        if (!(e->hist = ompb__region_calloc(sizeof *e->hist))) {
            ompb__region_entry_fail(e, "out of memory for the histogram");
            return;
        }
        ompb__histogram_clear(e->hist);
        /* The kept instances are every instance so far. */
        for (size_t s = 0; s < e->kept; s++)
            ompb__histogram_add(e->hist, e->kept_end[s] - e->kept_start[s]);
    }
    ompb__histogram_add(e->hist, makespan);
}

#define PU_UNKNOWN 0xffffu

/* Pairs of threads on one PU in this instance: counts it, remembers the
 * first pair, and says whether there was one. */
static bool check_shared_pu(ompb__region_entry *e, const ompb__region_slot *m)
{
    for (int a = 0; a < e->threads; a++) {
        unsigned pa = (unsigned)(m[a].busy_pu & PU_UNKNOWN);
        if (pa == PU_UNKNOWN)
            continue;
        for (int b = a + 1; b < e->threads; b++) {
            if ((m[b].busy_pu & PU_UNKNOWN) != pa)
                continue;
            if (e->shared_pu++ == 0) {
                e->shared_pu_example[0] = a;
                e->shared_pu_example[1] = b;
                e->shared_pu_example[2] = (int)pa;
            }
            return true;
        }
    }
    return false;
}

/* The entry's scalar sums, in locals: across a batch in the steady-state
 * folds (a local struct whose address never escapes: its fields stay in
 * registers where they fit), for one instance in add_instance. */
typedef struct fold_sums {
    uint64_t mn, mx, total, skew, mig;
    double shift, sd, sd2, imb;
} fold_sums;

static inline __attribute__((always_inline)) fold_sums sums_load(const ompb__region_entry *e)
{
    return (fold_sums){.mn = e->min_ns, .mx = e->max_ns, .total = e->total_ns,
                       .skew = e->skew_sum, .mig = e->migrations, .shift = e->shift,
                       .sd = e->sum_d, .sd2 = e->sum_d2, .imb = e->imbalance_sum};
}

/* One instance: add_instance's arithmetic, in its order. */
static inline __attribute__((always_inline)) void sums_add(fold_sums *s, uint64_t makespan,
                                                          uint64_t skew, uint64_t bsum,
                                                          uint64_t bmax, const int T)
{
    s->mn = makespan < s->mn ? makespan : s->mn;
    s->mx = makespan > s->mx ? makespan : s->mx;
    s->total += makespan;
    /* Through int64_t (every value here is below 2^63): one conversion
     * instruction instead of the unsigned one's branches. */
    double d = (double)(int64_t)makespan - s->shift;
    s->sd += d;
    s->sd2 += d * d;
    s->skew += skew;
    if (T == 1 || bsum == 0)
        s->imb += 1.0;
    else
        s->imb += (double)(int64_t)bmax * T / (double)(int64_t)bsum;
}

/* Back into the entry. */
static inline __attribute__((always_inline)) void sums_put(ompb__region_entry *e,
                                                          const fold_sums *s)
{
    e->min_ns = s->mn;
    e->max_ns = s->mx;
    e->total_ns = s->total;
    e->skew_sum = s->skew;
    e->migrations = s->mig;
    e->sum_d = s->sd;
    e->sum_d2 = s->sd2;
    e->imbalance_sum = s->imb;
}

/* The same at the end of a steady-state batch, n instances in all; the
 * histogram's count and extremes are the entry's (steady()). */
static inline __attribute__((always_inline)) void sums_store(ompb__region_entry *e,
                                                            const fold_sums *s, uint64_t n)
{
    sums_put(e, s);
    e->n = n;
    e->hist->n = n;
    e->hist->min = s->mn;
    e->hist->max = s->mx;
}

/* Adds one instance (T: e->threads; a constant where the fold inlines it
 * for one team size). Everything but the kept sample, the histogram's
 * creation and the runner's window stays inline: it runs once per
 * instance on the thread that folds. */
static inline __attribute__((always_inline)) void add_instance(ompb__region_entry *e,
                                                               const ompb__region_slot *m,
                                                               const int T)
{
    uint64_t start = m[0].start_ns, end = 0, smax = 0, busy_sum = 0, busy_max = 0;
    for (int t = 0; t < T; t++) {
        uint64_t s = m[t].start_ns, busy = m[t].busy_pu >> 16;
        int pu = (int)(m[t].busy_pu & PU_UNKNOWN);
        start = s < start ? s : start;
        smax = s > smax ? s : smax;
        end = s + busy > end ? s + busy : end;
        e->busy_sum[t] += busy;
        busy_sum += busy;
        busy_max = busy > busy_max ? busy : busy_max;
        if (pu != PU_UNKNOWN && e->last_pu[t] >= 0 && pu != e->last_pu[t])
            e->migrations++;
        e->last_pu[t] = pu == PU_UNKNOWN ? -1 : pu;
    }
    uint64_t makespan = end - start, i = e->n++;
    if (unlikely(i == 0)) {
        e->min_ns = makespan;
        e->shift = (double)(int64_t)makespan;
    }
    fold_sums sum = sums_load(e);
    sums_add(&sum, makespan, smax - start, busy_sum, busy_max, T);
    sums_put(e, &sum);
    if (T == 2) {
        unsigned pa = (unsigned)(m[0].busy_pu & PU_UNKNOWN);
        if (unlikely(pa != PU_UNKNOWN && (m[1].busy_pu & PU_UNKNOWN) == pa))
            check_shared_pu(e, m);
    } else if (T > 1) {
        check_shared_pu(e, m);
    }
    /* keep()'s own test, so that most instances make no call. */
    if (unlikely(i < e->keep_max || i == e->reservoir_next))
        keep(e, i, m, start, end);
    if (likely(e->hist))
        ompb__histogram_add(e->hist, makespan);
    else
        histogram_add(e, makespan);
    if (unlikely(e->window_active))
        ompb__region_window_record(e, start, end);
}

void ompb__region_entry_add(ompb__region_entry *e, const ompb__region_slot *m)
{
    add_instance(e, m, e->threads);
}

/* True in an entry's steady state: past the kept maximum, with a histogram
 * that holds every instance (so its count and extremes are the entry's),
 * and no runner window open. */
static bool steady(const ompb__region_entry *e)
{
    return e->hist && e->hist->n == e->n && e->n > e->keep_max && !e->window_active;
}

/* Instances [lo, hi) of a team of T (1 or 2, a constant) in the steady
 * state: add_instance's arithmetic in the same order, but the sums live in
 * locals for the batch and are written back at its end (through e they
 * would be reloaded after every store: e's fields and the per-thread arrays
 * may alias for the compiler), the rings are read in runs without a wrap,
 * a PU change, a shared PU and the kept sample's next instance share one
 * rarely taken branch, and the histogram's count and extremes are the
 * entry's, set once. The calls out of that branch read none of the
 * locals. Identical results to adding one by one:
 * unit.region/fold_matches_add. */
static inline __attribute__((always_inline)) void fold_steady(ompb__region_entry *e,
                                                              const ompb__region_group *g,
                                                              uint64_t lo, uint64_t hi,
                                                              const int T)
{
    const ompb__region_slot *ra = g->lanes[0].ring, *rb = g->lanes[T - 1].ring;
    const uint64_t ma = g->lanes[0].mask, mb = g->lanes[T - 1].mask;
    /* Instance number k + off; the kept sample's next one at k == knext. */
    const uint64_t off = e->n - lo;
    uint64_t knext = e->reservoir_next - off;
    fold_sums sum = sums_load(e);
    uint64_t b0 = e->busy_sum[0], b1 = e->busy_sum[T - 1];
    /* The last PUs as 16-bit codes (PU_UNKNOWN: none). A thread's PU
     * rarely changes: one test for both lanes and for the kept sample's
     * next instance, the rest out of the way. */
    uint64_t lp0 = e->last_pu[0] < 0 ? PU_UNKNOWN : (uint64_t)e->last_pu[0];
    uint64_t lp1 = T == 2 && e->last_pu[1] >= 0 ? (uint64_t)e->last_pu[1] : PU_UNKNOWN;
    bool shared = T == 2 && lp0 != PU_UNKNOWN && lp0 == lp1;
    uint64_t *counts = e->hist->counts;
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
            sums_add(&sum, makespan, smax - start, bsum, bmax, T);
            if (unlikely(((p0 ^ lp0) | (p1 ^ lp1)) != 0 || shared || j == jnext)) {
                sum.mig += (p0 != lp0) & (p0 != PU_UNKNOWN) & (lp0 != PU_UNKNOWN);
                sum.mig += (p1 != lp1) & (p1 != PU_UNKNOWN) & (lp1 != PU_UNKNOWN);
                lp0 = p0;
                lp1 = p1;
                shared = T == 2 && p0 != PU_UNKNOWN && p1 == p0;
                ompb__region_slot m[2] = {x[j], y[j]};
                if (shared)
                    check_shared_pu(e, m);
                if (j == jnext) {
                    keep(e, k + j + off, m, start, end);
                    knext = e->reservoir_next - off;
                    jnext = knext - k;
                }
            }
            counts[ompb__histogram_bucket(makespan)]++;
        }
        k += run;
    }
    sums_store(e, &sum, hi + off);
    e->busy_sum[0] = b0;
    e->last_pu[0] = lp0 == PU_UNKNOWN ? -1 : (int)lp0;
    if (T == 2) {
        e->busy_sum[1] = b1;
        e->last_pu[1] = lp1 == PU_UNKNOWN ? -1 : (int)lp1;
    }
}

/* fold_steady for a team of any size: the per-thread sums stay in the
 * entry's arrays, the scalar ones in locals; an instance whose threads are
 * on the PUs of the one before is checked for shared PUs only if that one
 * had them (add_instance compares every pair of threads of every
 * instance: O(T^2) for the thread that folds). The first instance of the
 * batch is checked as if changed. Identical results to adding one by
 * one: unit.region/fold_matches_add. */
static void fold_steady_any(ompb__region_entry *e, ompb__region_group *g, uint64_t lo,
                            uint64_t hi)
{
    const int T = g->threads;
    const ompb__region_lane *lanes = g->lanes;
    ompb__region_slot *m = g->scratch;
    uint64_t *busy_sum = e->busy_sum;
    int *last_pu = e->last_pu;
    const uint64_t off = e->n - lo;
    uint64_t next = e->reservoir_next;
    fold_sums sum = sums_load(e);
    uint64_t *counts = e->hist->counts;
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
        sums_add(&sum, makespan, smax - start, bsum, bmax, T);
        if (unlikely(changed || shared || i == next)) {
            for (int t = 0; t < T; t++) {
                m[t] = lanes[t].ring[k & lanes[t].mask];
                int p = (int)(m[t].busy_pu & PU_UNKNOWN);
                if (p != PU_UNKNOWN && last_pu[t] >= 0 && p != last_pu[t])
                    sum.mig++;
                last_pu[t] = p == PU_UNKNOWN ? -1 : p;
            }
            shared = check_shared_pu(e, m);
            if (i == next) {
                keep(e, i, m, start, end);
                next = e->reservoir_next;
            }
        }
        counts[ompb__histogram_bucket(makespan)]++;
    }
    sums_store(e, &sum, hi + off);
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
            fold_steady(e, g, lo, hi, 1);
        else if (T == 2)
            fold_steady(e, g, lo, hi, 2);
        else
            fold_steady_any(e, g, lo, hi);
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

int ompb__region_entry_stats(const ompb__region_entry *e, ompb__stats *out)
{
    memset(out, 0, sizeof *out);
    if (e->n == 0)
        return 0;
    if (!e->hist) {
        /* Every instance is kept: the benchmarks' exact statistics. */
        double *x = malloc(e->kept * sizeof *x);
        if (!x)
            return OMPB_ENOMEM;
        for (size_t s = 0; s < e->kept; s++)
            x[s] = (double)(e->kept_end[s] - e->kept_start[s]);
        int rc = ompb__stats_compute(x, e->kept, out);
        free(x);
        return rc;
    }
    const ompb__histogram *h = e->hist;
    out->n = (size_t)e->n;
    out->min = (double)e->min_ns;
    out->max = (double)e->max_ns;
    double n = (double)e->n, ss = fmax(e->sum_d2 - e->sum_d * e->sum_d / n, 0.0);
    out->mean = e->shift + e->sum_d / n;
    out->stdev = e->n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    out->q1 = ompb__histogram_quantile(h, 0.25);
    out->median = ompb__histogram_quantile(h, 0.5);
    out->q3 = ompb__histogram_quantile(h, 0.75);
    ompb__histogram_median_ci(h, &out->ci_low, &out->ci_high);
    double iqr = out->q3 - out->q1;
    out->iqr_outliers = (size_t)ompb__histogram_count_outside(
        h, out->q1 - OMPB__IQR_FENCE * iqr, out->q3 + OMPB__IQR_FENCE * iqr);
    if (out->stdev > 0)
        out->stdev_outliers = (size_t)ompb__histogram_count_outside(
            h, out->mean - OMPB__STDEV_FENCE * out->stdev,
            out->mean + OMPB__STDEV_FENCE * out->stdev);
    return 0;
}
