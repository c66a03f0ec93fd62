/* SPDX-License-Identifier: MIT */
/*
 * Each thread's own state for regions: made at its first region call, in
 * the list of live threads (misuse messages name threads by it), and
 * destroyed at its exit, which fails the regions it left open and hands
 * its groups outside OpenMP to the next thread. The groups of a region
 * are found or made here, under the global lock, for the hot path's
 * per-thread cache (lib/regions/region.c).
 */
#include "regions/region_thread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ompb__region_thread *threads_head;
static _Atomic uint64_t next_serial = 1;
static pthread_key_t thread_key;
static bool key_made;

__thread ompb__region_thread *ompb__region_self;

/* ---- messages ------------------------------------------------------------- */

void ompb__region_describe_thread(const ompb__region_thread *ts, int level, int tid,
                                  int threads, char *buf, size_t len)
{
    int os = ts ? ts->os_tid : 0;
    if (level == 0)
        snprintf(buf, len, "OS thread %d (outside any OpenMP team)", os);
    else
        snprintf(buf, len, "thread %d of a team of %d (OpenMP level %d, OS thread %d)", tid,
                 threads, level, os);
}

void ompb__region_describe_frame(const ompb__region_thread *ts, const ompb__region_frame *f,
                                 char *buf, size_t len)
{
    const ompb__region_group *g = f->group;
    int tid = f->lane ? (int)(f->lane - g->lanes) : 0;
    if (!f->lane && g->level > 0)
        tid = omp_get_thread_num();
    ompb__region_describe_thread(ts, g->level, tid, g->threads, buf, len);
}

/* ---- threads -------------------------------------------------------------- */

static void thread_exit(void *arg);

void ompb__region_threads_init(void)
{
    key_made = pthread_key_create(&thread_key, thread_exit) == 0;
}

ompb__region_thread *ompb__region_thread_new(void)
{
    ompb__region_thread *ts = ompb__calloc_lines(sizeof *ts);
    if (!ts)
        return NULL;
    ts->serial = atomic_fetch_add(&next_serial, 1);
    ts->solo_key = ompb__region_mix(ts->serial, 0);
    ts->os_tid = gettid();
    ompb__regions_lock();
    ts->next = threads_head;
    if (threads_head)
        threads_head->prev = ts;
    threads_head = ts;
    ompb__regions_unlock();
    if (key_made)
        pthread_setspecific(thread_key, ts);
    ompb__region_self = ts;
    return ts;
}

/* Folds what the exiting thread's own groups hold and leaves them to the
 * next thread outside OpenMP. */
static void vacate_groups(ompb__region_thread *ts)
{
    for (size_t i = 0; i < ts->n_groups; i++) {
        ompb__region_group *g = ts->groups[i].group;
        if (!g || g->level != 0 || atomic_load(&g->serial) != ts->serial)
            continue;
        ompb__region_group_reduce_all(g);
        atomic_store(&g->vacant, true);
    }
}

/* A thread that ends inside regions began them without ending them. */
static void thread_exit(void *arg)
{
    ompb__region_thread *ts = arg;
    ompb__region_close_frames(ts, "its thread exited");
    ompb__regions_lock();
    vacate_groups(ts);
    if (ts->prev)
        ts->prev->next = ts->next;
    else
        threads_head = ts->next;
    if (ts->next)
        ts->next->prev = ts->prev;
    ompb__regions_unlock();
    if (ompb__region_self == ts)
        ompb__region_self = NULL;
    free(ts->groups);
    free(ts);
}

int ompb__region_thread_os_tid(uint64_t serial)
{
    int os = 0;
    ompb__regions_lock();
    for (const ompb__region_thread *o = threads_head; o && serial; o = o->next)
        if (o->serial == serial)
            os = o->os_tid;
    ompb__regions_unlock();
    return os;
}

/* Lane 0 of a team at OpenMP level >= 1 is the thread that started the
 * team. OpenMP tells a worker thread its level, team size and ancestors'
 * thread numbers, not which team it is in: two pthreads that each start a
 * team of one shape share its lanes, and their instances would pair across
 * teams without a single overlapping begin. So a new thread on lane 0 is a
 * team switch; it is one only if the previous thread there is gone or has
 * since begun a region outside that team. A previous thread still alive
 * whose last begin was in a team of this shape may still be in its team:
 * the pairing cannot be trusted and the entry fails. (One pthread's teams
 * after another's, with the first still alive and not having begun any
 * region since, are refused the same way: the library cannot tell them
 * apart from concurrent teams.) Global lock: the thread list. */
bool ompb__region_team_switch_ok(const ompb__region_thread *ts, int prev_tid, uint64_t key,
                                 int *other)
{
    bool ok = true;
    ompb__regions_lock();
    for (const ompb__region_thread *o = threads_head; o; o = o->next)
        if (o != ts && o->os_tid == prev_tid
            && atomic_load_explicit(&o->last_key, memory_order_relaxed) == key) {
            ok = false;
            *other = o->os_tid;
        }
    ompb__regions_unlock();
    return ok;
}

/* ---- frames --------------------------------------------------------------- */

void ompb__region_push_ignored(ompb__region_thread *ts, ompb__region *r, const char *name,
                               ompb__region_group *g, const char *file, int line)
{
    ompb__region_frame *f = &ts->stack[ts->depth++];
    *f = (ompb__region_frame){.region = r, .name = name, .group = g, .file = file, .line = line,
                              .pu = -1, .level = -1};
}
void ompb__region_frame_drop(ompb__region_frame *f)
{
    if (f->lane)
        atomic_store_explicit(&f->lane->occupant, 0, memory_order_release);
    f->lane = NULL;
}

const char *ompb__region_site_file(const char *file, char *buf, size_t len)
{
    if (!file)
        return "?";
    const char *text = ompb__loaded_text(file, buf, len);
    return text ? text : "(unloaded library)";
}

void ompb__region_close_frames(ompb__region_thread *ts, const char *why)
{
    char who[160], site[OMPB__REGION_SITE_MAX];
    for (int i = ts->depth - 1; i >= 0; i--) {
        ompb__region_frame *f = &ts->stack[i];
        if (f->lane) {
            ompb__region_describe_frame(ts, f, who, sizeof who);
            ompb__region_entry_fail(f->group->entry, "began at %s:%d by %s and never ended "
                                    "(%s)", ompb__region_site_file(f->file, site, sizeof site),
                                    f->line, who, why);
        }
        ompb__region_frame_drop(f);
    }
    ts->depth = 0;
}

/* ---- groups --------------------------------------------------------------- */

static bool group_matches(const ompb__region_group *g, const ompb__region_team *t,
                          const ompb__region_thread *ts)
{
    if (atomic_load_explicit(&g->key, memory_order_relaxed) != t->key || g->level != t->level
        || g->threads != t->threads)
        return false;
    if (t->level == 0)
        return atomic_load_explicit(&g->serial, memory_order_relaxed) == ts->serial;
    int known = t->level - 1 < OMPB__REGION_LEVELS_MAX ? t->level - 1 : OMPB__REGION_LEVELS_MAX;
    return memcmp(g->ancestors, t->ancestors, (size_t)known * sizeof(int)) == 0;
}

static ompb__region_group *group_find(const ompb__region *r, const ompb__region_team *t,
                                      const ompb__region_thread *ts)
{
    for (ompb__region_group *g = atomic_load_explicit(&r->groups, memory_order_acquire); g;
         g = g->next)
        if (group_matches(g, t, ts))
            return g;
    return NULL;
}

/* A group of r that an exited thread outside OpenMP left (global lock held). */
static ompb__region_group *adopt_vacant(const ompb__region *r, const ompb__region_team *t,
                                        const ompb__region_thread *ts)
{
    if (t->level != 0)
        return NULL;
    for (ompb__region_group *g = atomic_load_explicit(&r->groups, memory_order_relaxed); g;
         g = g->next) {
        if (g->level == 0 && atomic_load_explicit(&g->vacant, memory_order_relaxed)) {
            atomic_store_explicit(&g->serial, ts->serial, memory_order_relaxed);
            atomic_store_explicit(&g->key, t->key, memory_order_relaxed);
            atomic_store_explicit(&g->vacant, false, memory_order_relaxed);
            return g;
        }
    }
    return NULL;
}

ompb__region_group *ompb__region_group_find(ompb__region *r, const ompb__region_team *t,
                                            const ompb__region_thread *ts, const char *file,
                                            int line)
{
    ompb__region_group *g = group_find(r, t, ts);
    if (g)
        return g;
    ompb__region_entry *e = ompb__regions_entry_get(r, t->threads, file, line);
    if (!e)
        return NULL;
    ompb__regions_lock();
    if (!(g = group_find(r, t, ts)) && !(g = adopt_vacant(r, t, ts))
        && (g = ompb__region_group_new(e, t->threads))) {
        atomic_store_explicit(&g->key, t->key, memory_order_relaxed);
        g->level = t->level;
        atomic_store_explicit(&g->serial, t->level == 0 ? ts->serial : 0, memory_order_relaxed);
        memcpy(g->ancestors, t->ancestors, sizeof g->ancestors);
        g->next = atomic_load_explicit(&r->groups, memory_order_relaxed);
        atomic_store_explicit(&r->groups, g, memory_order_release);
    }
    ompb__regions_unlock();
    return g;
}

/* The cache's lines are the
 * thread's own (not malloc's neighbours, which other threads may write). */
bool ompb__region_grow_slots(ompb__region_thread *ts, uint32_t id)
{
    size_t n = ts->n_groups ? ts->n_groups : 16;
    while (n <= id)
        n *= 2;
    ompb__region_group_slot *slots = ompb__calloc_lines(n * sizeof *slots);
    if (!slots)
        return false;
    if (ts->groups)
        memcpy(slots, ts->groups, ts->n_groups * sizeof *slots);
    free(ts->groups);
    ts->groups = slots;
    ts->n_groups = n;
    return true;
}

/* ---- queries and tests ---------------------------------------------------- */

ompb__region_entry *ompb__regions_open_entry(const char *name)
{
    ompb__region_thread *ts = ompb__region_self;
    for (int i = ts && name ? ts->depth - 1 : -1; i >= 0; i--)
        if (ts->stack[i].lane && ompb__region_name_equal(ts->stack[i].region, name))
            return ts->stack[i].group->entry;
    return NULL;
}

bool ompb__regions_open_here(char *buf, size_t len)
{
    const ompb__region_thread *ts = ompb__region_self;
    if (!ts || ts->depth == 0)
        return false;
    const ompb__region_frame *f = &ts->stack[ts->depth - 1];
    char site[OMPB__REGION_SITE_MAX];
    snprintf(buf, len, "'%s' (begun at %s:%d)", f->region->display,
             ompb__region_site_file(f->file, site, sizeof site), f->line);
    return true;
}

/* The calling thread's open regions at process exit. */
void ompb__regions_close_own_frames(void)
{
    if (ompb__region_self)
        ompb__region_close_frames(ompb__region_self, "still open at process exit");
}

void ompb__region_threads_reset(void)
{
    for (ompb__region_thread *ts = threads_head; ts; ts = ts->next) {
        ts->depth = 0;
        ts->overflow = 0;
        memset(ts->names, 0, sizeof ts->names);
        free(ts->groups);
        ts->groups = NULL;
        ts->n_groups = 0;
    }
}
