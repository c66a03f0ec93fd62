/* SPDX-License-Identifier: MIT */
/*
 * Region markers: the public calls and their hot path. A thread's first
 * call allocates its state (lib/regions/region_thread.c); its first use of a name
 * finds the region in a table that is read without a lock (inserts take
 * the global lock, lib/regions/region_table.c); its first use of a region in a
 * team shape finds the group the same way. After that a begin is: a branch, a
 * thread-local pointer, a pointer-keyed cache hit checked by content (not
 * for the main program's string literals, which cannot change), three
 * OpenMP queries for the team, a stack push, the PU, the clock; an end is
 * the clock, a stack pop checked by name, one store into the thread's own
 * ring and one release store of its count. Misuse leaves the hot path for
 * the slow functions of lib/regions/region_misuse.c, which name the region, the
 * thread and the call site once per entry.
 *
 * The top of the regions' one-way chain (docs/architecture.md, "regions"):
 * it calls every other region module and none calls it. Settings come from
 * the environment when the library is loaded (its constructor, here); a
 * bad value turns regions off with a warning, and a benchmark binary
 * refuses it (exit 2).
 */
#include "regions/region.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

#if defined(__GNUC__) || defined(__clang__)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#else
#define likely(x) (x)
#define unlikely(x) (x)
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* ---- first use and load time ---------------------------------------------- */

/* The first region call of the process: the threads' key, the markers'
 * clock (its first calibration ends here, begun at load), the CodSpeed
 * runner (if asked for and one listens) and the signal watcher. */
static void first_use(void)
{
    ompb__region_threads_init();
    ompb__tsc_start(ompb__regions_tsc_allowed());
    ompb__pu_start();
    ompb__region_runner_init();
    ompb__regions_signals_init();
}

static ompb__region_thread *thread_first_use(void)
{
    pthread_once(&once, first_use);
    return ompb__region_thread_new();
}

/* At load, what the first region call would otherwise do on the
 * application's thread, inside its first timed phase: the TSC's trust
 * checks and its first calibration sample (the second one, at the first
 * call, is then usually a millisecond later already: no wait), and the PU
 * source's probe. About 0.1-0.2 ms (reading /proc/cpuinfo, mostly), no
 * thread, no runner. */
__attribute__((constructor)) static void regions_load(void)
{
    if (!ompb__regions_settings_load())
        return;
    atexit(ompb__regions_at_exit);
    ompb__tsc_prepare(ompb__regions_tsc_allowed());
    ompb__pu_start();
}

/* ---- lookups through the thread's caches ----------------------------------- */

static size_t name_slot(const char *name)
{
    return (size_t)(((uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 58)
           & (OMPB__REGION_NAME_CACHE - 1);
}

/* The name cannot change under its pointer: it lies in a read-only
 * segment of the main program (a string literal there), up to its NUL or
 * to the longest prefix names are compared on. */
static bool name_fixed(const char *name)
{
    size_t avail = ompb__main_program_readonly_bytes(name);
    size_t span = avail < OMPB_REGION_NAME_MAX + 1 ? avail : OMPB_REGION_NAME_MAX + 1;
    return avail && (span == OMPB_REGION_NAME_MAX + 1 || strnlen(name, span) < span);
}

/* The region of name through the thread's pointer cache, checked by
 * content unless the name is fixed: a buffer reused for another name must
 * not hit. */
static inline ompb__region *region_of(ompb__region_thread *ts, const char *name, const char *file)
{
    ompb__region_name_slot *ns = &ts->names[name_slot(name)];
    ompb__region *r = ns->region;
    if (likely(ns->ptr == name && r && (ns->fixed || ompb__region_name_equal(r, name))))
        return r;
    r = ompb__region_find(name, file);
    *ns = (ompb__region_name_slot){.ptr = name, .region = r, .fixed = r && name_fixed(name)};
    return r;
}

/* The group of (r, team) through the thread's cache, keyed by region id. */
static inline ompb__region_group *group_of(ompb__region_thread *ts, ompb__region *r,
                                           const ompb__region_team *t,
                                           const char *file, int line)
{
    if (likely(r->id < ts->n_groups)) {
        ompb__region_group_slot *s = &ts->groups[r->id];
        if (likely(s->key == t->key && s->shape == t->shape && s->group))
            return s->group;
    } else if (!ompb__region_grow_slots(ts, r->id)) {
        return NULL;
    }
    ompb__region_group *g = ompb__region_group_find(r, t, ts, file, line);
    if (g)
        ts->groups[r->id] = (ompb__region_group_slot){g, t->key, t->shape};
    /* The thread's first begin of r outside any team: its forks may name r
     * (lib/regions/region_forks.c). */
    if (g && t->level == 0)
        ompb__region_forks_level0(ts, r);
    return g;
}

/* ---- the hot path --------------------------------------------------------- */

void ompb_region_begin_at(const char *name, const char *file, int line)
{
    if (unlikely(!ompb__regions_on))
        return;
    ompb__region_thread *ts = ompb__region_self;
    if (unlikely(!ts) && !(ts = thread_first_use()))
        return;
    if (unlikely(!name))
        name = "";
    ompb__region_team t;
    ompb__region *r;
    ompb__region_group *g;
    int level = omp_get_level();
    if (likely(level <= 1)) {
        /* Outside nesting the team is its level, size and thread number:
         * a slot that holds this name's group for them needs no hashing. */
        t.level = level;
        t.threads = level ? omp_get_num_threads() : 1;
        t.tid = level ? omp_get_thread_num() : 0;
        t.shape = (uint64_t)(uint32_t)level << 32 | (uint32_t)t.threads;
        uint64_t code = ompb__region_flat_code(level, t.threads, t.tid);
        ompb__region_name_slot *ns = &ts->names[name_slot(name)];
        if (likely(ns->ptr == name && ns->team == code
                   && (ns->fixed || ompb__region_name_equal(ns->region, name)))) {
            r = ns->region;
            g = ns->group;
            t.key = ns->key;
        } else {
            t.key = ompb__region_flat_key(ts, level, t.threads);
            if (unlikely(!(r = region_of(ts, name, file))))
                return;
            if (unlikely(!(g = group_of(ts, r, &t, file, line))))
                return;
            if (ns->ptr == name && ns->region == r) {
                ns->team = code;
                ns->key = t.key;
                ns->group = g;
            }
        }
    } else {
        if (unlikely(!(r = region_of(ts, name, file))))
            return;
        ompb__region_team_now(ts, &t);
        if (unlikely(!(g = group_of(ts, r, &t, file, line))))
            return;
    }
    if (unlikely(ts->depth >= OMPB__REGION_DEPTH_MAX)) {
        ompb__region_begin_too_deep(ts, g, &t, file, line);
        return;
    }
    for (int i = 0; i < ts->depth; i++)
        if (unlikely(ts->stack[i].region == r)) {
            ompb__region_begin_recursive(ts, r, name, g, &t, file, line, &ts->stack[i]);
            return;
        }
    ompb__region_lane *ln = &g->lanes[t.tid];
    if (unlikely(atomic_load_explicit(&g->dead, memory_order_relaxed))) {
        ompb__region_push_ignored(ts, r, name, g, file, line);
        return;
    }
    /* Claimed by compare-and-swap: of two begins on one lane at once,
     * exactly one gets it and the other is told. */
    uint64_t none = 0;
    if (unlikely(!atomic_compare_exchange_strong_explicit(&ln->occupant, &none, ts->serial,
                                                          memory_order_acquire,
                                                          memory_order_relaxed))) {
        ompb__region_begin_conflict(ts, r, name, g, &t, file, line);
        return;
    }
    if (unlikely(!ln->ring) && !ompb__region_lane_make_room(g, ln)) {
        atomic_store_explicit(&ln->occupant, 0, memory_order_release);
        ompb__region_push_ignored(ts, r, name, g, file, line);
        return;
    }
    atomic_store_explicit(&ln->begin_file, file, memory_order_relaxed);
    atomic_store_explicit(&ln->begin_line, line, memory_order_relaxed);
    atomic_store_explicit(&ln->site_serial, ts->serial, memory_order_release);
    if (unlikely(atomic_load_explicit(&ln->os_tid, memory_order_relaxed) != ts->os_tid)
        && !ompb__region_lane_new_player(ts, r, name, g, ln, &t, file, line))
        return;
    if (unlikely(atomic_load_explicit(&ts->last_key, memory_order_relaxed) != t.key))
        atomic_store_explicit(&ts->last_key, t.key, memory_order_relaxed);
    /* A window opens only from a thread with no region open: the runner's
     * round trip must not land inside a timed instance of this thread. */
    if (unlikely(atomic_load_explicit(&ompb__region_runner_process.watch, memory_order_relaxed))
        && ts->depth == 0)
        ompb__region_runner_begin(&ompb__region_runner_process, g->entry);
    /* A begin in a team (level 1) inside this thread's open level-0
     * regions: they are phase regions of this team's width (only the
     * team's thread 0, the one that forked it, has such frames). */
    if (unlikely(t.level == 1 && ts->depth > 0))
        ompb__region_note_inner(ts, (unsigned)t.threads);
    ompb__region_frame *f = &ts->stack[ts->depth++];
    f->level = t.level;
    f->asked = t.level == 0 ? (uint32_t)omp_get_max_threads() : 0;
    f->inner_lo = f->inner_hi = 0;
    f->region = r;
    f->name = name;
    f->group = g;
    f->lane = ln;
    f->file = file;
    f->line = line;
    f->pu = ompb__pu_now();
    f->start_ns = ompb__stamp_ns();
    /* OMPB_REGIONS_COUNTERS (lib/regions/region_counters.c): after the timestamp. */
    if (unlikely(ompb__region_counters_on))
        ompb__region_counters_begin(ts->depth - 1);
}

/* Appends the frame's pair at instance k of its lane and publishes it. */
static inline __attribute__((always_inline)) void append(ompb__region_lane *ln,
                                                        const ompb__region_frame *f, uint64_t k,
                                                        uint64_t now)
{
    ln->ring[k & ln->mask] = ompb__region_pack(f->start_ns, now, f->pu);
    /* The line four pairs ahead was last read by the reducer, on another
     * core: ask for it now, for writing, rather than stall on it then. */
    __builtin_prefetch(&ln->ring[(k + 16) & ln->mask], 1);
    ln->count = k + 1;
    atomic_store_explicit(&ln->published, k + 1, memory_order_release);
}

/* Last: the lane is handed back only once this thread's writes to it
 * (count, ring, the ring's growth) are done, and released with them to
 * whoever claims it next (the claim's compare-and-swap acquires). */
static inline void hand_back(ompb__region_lane *ln)
{
    atomic_store_explicit(&ln->occupant, 0, memory_order_release);
}

/* Records the frame's pair: every case. */
static inline __attribute__((always_inline)) void record(const ompb__region_thread *ts,
                                                        ompb__region_frame *f, uint64_t now)
{
    ompb__region_lane *ln = f->lane;
    uint64_t k = ln->count;
    if (unlikely(atomic_load_explicit(&ln->occupant, memory_order_relaxed) != ts->serial)) {
        ompb__region_end_conflict(ts, f);
        return;
    }
    if (unlikely(k - ln->reduced_seen > ln->mask)) {
        /* Full as last seen: another thread may have folded since. */
        ln->reduced_seen = atomic_load_explicit(&f->group->reduced, memory_order_acquire);
        if (k - ln->reduced_seen > ln->mask && !ompb__region_lane_make_room(f->group, ln)) {
            ompb__region_frame_drop(f);
            return;
        }
    }
    append(ln, f, k, now);
    if (unlikely(f->inner_hi != 0))
        ompb__region_entry_note_phase(f->group->entry, f->asked, f->inner_lo, f->inner_hi);
    if (unlikely(k + 1 >= ln->next_try))
        ompb__region_group_try_reduce(f->group, ln);
    if (unlikely(k + 1 == OMPB__REGION_RING_HOT))
        ompb__region_lane_heat(f->group, ln);
    hand_back(ln);
}

/* An end from its timestamp on, every case (due: a calibration is due, done
 * here, after the reading). Out of line: the common case in
 * ompb_region_end_at then calls nothing (callgrind: 11 instructions fewer
 * per end). */
static __attribute__((noinline)) void end_rest(const char *name, const char *file, int line,
                                               uint64_t now, bool due)
{
    if (due) {
        /* The reading lies past its segment's end: the clock's instead. */
        now = ompb__now_ns();
        ompb__tsc_recalibrate();
    }
    ompb__region_thread *ts = ompb__region_self;
    if (unlikely(!ts) && !(ts = thread_first_use()))
        return;
    if (unlikely(!name))
        name = "";
    if (unlikely(ts->overflow)) {
        ts->overflow--;
        return;
    }
    ompb__region_frame *f = ts->depth ? &ts->stack[ts->depth - 1] : NULL;
    if (unlikely(!f || (f->name != name && !ompb__region_name_equal(f->region, name)))) {
        /* Out of order: the matching frame, if any, ends here, after the
         * ones begun inside it are failed. */
        if ((f = ompb__region_end_slow(ts, name, file, line))) {
            if (f->lane)
                record(ts, f, now);
            ts->depth--;
        }
        return;
    }
    if (likely(f->lane != NULL)) {
        record(ts, f, now);
        if (unlikely(ompb__region_counters_on))
            ompb__region_counters_add(f->group->entry, ts->depth - 1);
    }
    ts->depth--;
}

/* An end with region counters on (read before the timestamp) or without
 * the TSC (clock_gettime: a call). */
static __attribute__((noinline)) void end_other(const char *name, const char *file, int line)
{
    /* OMPB_REGIONS_COUNTERS: before the timestamp. */
    if (ompb__region_counters_on)
        ompb__region_counters_end();
    bool due;
    uint64_t now = ompb__stamp_end_ns_due(&due);
    end_rest(name, file, line, now, due);
}

void ompb_region_end_at(const char *name, const char *file, int line)
{
    if (unlikely(!ompb__regions_on))
        return;
    uint64_t now;
    bool due;
    if (unlikely(ompb__region_counters_on || !ompb__stamp_tsc_due(&now, &due))) {
        end_other(name, file, line);
        return;
    }
    ompb__region_thread *ts = ompb__region_self;
    /* The common case, with no call: the thread's innermost open region
     * ended by the pointer that began it, recorded into the lane it holds,
     * with room, and no fold, growth or calibration due. Everything else
     * is end_rest's (a tail call). */
    if (likely(ts && !due && ts->depth && !ts->overflow)) {
        ompb__region_frame *f = &ts->stack[ts->depth - 1];
        ompb__region_lane *ln = f->lane;
        if (likely(f->name == name && ln && !f->inner_hi)) {
            uint64_t k = ln->count;
            if (likely(atomic_load_explicit(&ln->occupant, memory_order_relaxed) == ts->serial
                       && k - ln->reduced_seen <= ln->mask && k + 1 < ln->next_try
                       && k + 1 != OMPB__REGION_RING_HOT)) {
                append(ln, f, k, now);
                hand_back(ln);
                ts->depth--;
                return;
            }
        }
    }
    end_rest(name, file, line, now, due);
}

/* ---- tests ---------------------------------------------------------------- */

void ompb__regions_reset(void)
{
    ompb__regions_report_reset();
    ompb__regions_forks_reset();
    ompb__regions_lock();
    ompb__region_threads_reset();
    ompb__regions_table_reset();
    ompb__regions_unlock();
}
