/* SPDX-License-Identifier: MIT */
/*
 * Misuse of region markers, the hot path's slow branches: recursion into
 * an open region, two teams on one lane, a team switch that cannot be
 * told from concurrent teams, too many open regions, an end without its
 * begin or out of order. Each fails the entry once with a message that
 * names the region, the thread and the call site (never a placeholder),
 * and leaves the thread's stack so that later calls pair correctly.
 */
#include "regions/region_misuse.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

/* sched_yield() rounds a conflicting begin waits, at most, for the
 * occupant's call site (written right after it claims the lane). */
#define SITE_WAIT_TRIES 1000

void ompb__region_begin_recursive(ompb__region_thread *ts, ompb__region *r, const char *name,
                                  ompb__region_group *g, const ompb__region_team *t,
                                  const char *file, int line, const ompb__region_frame *open)
{
    char who[160], site[OMPB__REGION_SITE_MAX];
    ompb__region_describe_thread(ts, t->level, t->tid, t->threads, who, sizeof who);
    ompb__region_entry_fail(g->entry, "began again at %s:%d by %s while already open since "
                            "%s:%d (recursion into an open region); the inner begin/end is "
                            "not recorded", file, line, who,
                            ompb__region_site_file(open->file, site, sizeof site), open->line);
    ompb__region_push_ignored(ts, r, name, g, file, line);
}

/* The call site of occupant's begin on ln into *file and *line, once that
 * begin has written it: it claims the lane first and writes its site just
 * after, so a conflicting begin may come in between. It waits for that a
 * little (a misuse path: the hot path never comes here). False when the
 * site is still not there, or the occupant has left. */
static bool occupant_site(const ompb__region_lane *ln, uint64_t occupant, const char **file,
                          int *line)
{
    for (int tries = 0; tries < SITE_WAIT_TRIES; tries++) {
        if (atomic_load_explicit(&ln->occupant, memory_order_relaxed) != occupant)
            return false;
        if (atomic_load_explicit(&ln->site_serial, memory_order_acquire) == occupant) {
            *file = atomic_load_explicit(&ln->begin_file, memory_order_relaxed);
            *line = atomic_load_explicit(&ln->begin_line, memory_order_relaxed);
            return *file != NULL;
        }
        sched_yield();
    }
    return false;
}

/* "OS thread 4242 is inside it ... (begun at a.c:12)", or what of that is
 * not known, said as such: never a placeholder thread 0 or "?:0". */
static void describe_occupant(const ompb__region_lane *ln, char *buf, size_t len)
{
    static const char shape[] = "as the same thread of a team of the same shape";
    uint64_t occupant = atomic_load_explicit(&ln->occupant, memory_order_acquire);
    int os = ompb__region_thread_os_tid(occupant);
    const char *file = NULL;
    int line = 0;
    bool site = occupant && occupant_site(ln, occupant, &file, &line);
    char who[64];
    if (!occupant) {
        snprintf(buf, len, "another thread was inside it %s, and has left it since (its OS "
                 "thread and call site are no longer known)", shape);
        return;
    }
    if (os)
        snprintf(who, sizeof who, "OS thread %d is", os);
    else
        snprintf(who, sizeof who, "a thread that has ended since (OS id unknown) was");
    char text[OMPB__REGION_SITE_MAX];
    if (site)
        snprintf(buf, len, "%s inside it %s (begun at %s:%d)", who, shape,
                 ompb__region_site_file(file, text, sizeof text), line);
    else
        snprintf(buf, len, "%s inside it %s (its call site unknown: that begin had not "
                 "recorded it yet, or the thread has left the region since)", who, shape);
}

void ompb__region_begin_conflict(ompb__region_thread *ts, ompb__region *r, const char *name,
                                 ompb__region_group *g, const ompb__region_team *t,
                                 const char *file, int line)
{
    char who[160], other[OMPB__REGION_ERROR_MAX / 2];
    ompb__region_describe_thread(ts, t->level, t->tid, t->threads, who, sizeof who);
    describe_occupant(&g->lanes[t->tid], other, sizeof other);
    ompb__region_entry_fail(g->entry, "began at %s:%d by %s while %s: two teams use this "
                            "region at once, e.g. teams of pthreads that each start OpenMP; "
                            "give each its own region name", file, line, who, other);
    ompb__region_push_ignored(ts, r, name, g, file, line);
}

/* A thread plays lane ln of g for the first time (its begin holds the
 * lane). False when the begin was turned into an ignored one. */
bool ompb__region_lane_new_player(ompb__region_thread *ts, ompb__region *r, const char *name,
                                  ompb__region_group *g, ompb__region_lane *ln,
                                  const ompb__region_team *t, const char *file, int line)
{
    int prev = atomic_load_explicit(&ln->os_tid, memory_order_relaxed), other = 0;
    if (t->level > 0 && t->tid == 0 && prev != 0
        && !ompb__region_team_switch_ok(ts, prev, t->key, &other)) {
        char who[160];
        ompb__region_describe_thread(ts, t->level, t->tid, t->threads, who, sizeof who);
        ompb__region_entry_fail(g->entry, "began at %s:%d by %s while OS thread %d, which "
                                "started another team of the same shape, may still be in it: "
                                "two teams use this region at once, e.g. teams of pthreads "
                                "that each start OpenMP, and their instances cannot be paired "
                                "per team; give each its own region name", file, line, who,
                                other);
        atomic_store_explicit(&g->dead, true, memory_order_relaxed);
        atomic_store_explicit(&ln->occupant, 0, memory_order_release);
        ompb__region_push_ignored(ts, r, name, g, file, line);
        return false;
    }
    atomic_store_explicit(&ln->os_tid, ts->os_tid, memory_order_relaxed);
    return true;
}

/* Two threads entered one lane so close together that begin did not see
 * it; the one that finds the lane taken at its end says so. */
void ompb__region_end_conflict(const ompb__region_thread *ts, ompb__region_frame *f)
{
    char who[160], other[OMPB__REGION_ERROR_MAX / 2], site[OMPB__REGION_SITE_MAX];
    ompb__region_describe_frame(ts, f, who, sizeof who);
    describe_occupant(f->lane, other, sizeof other);
    ompb__region_entry_fail(f->group->entry, "began at %s:%d by %s while %s: two teams use "
                            "this region at once, e.g. teams of pthreads that each start "
                            "OpenMP; give each its own region name",
                            ompb__region_site_file(f->file, site, sizeof site), f->line, who,
                            other);
    f->lane = NULL;
}

void ompb__region_begin_too_deep(ompb__region_thread *ts, ompb__region_group *g,
                                 const ompb__region_team *t, const char *file, int line)
{
    char who[160];
    ompb__region_describe_thread(ts, t->level, t->tid, t->threads, who, sizeof who);
    ompb__region_entry_fail(g->entry, "began at %s:%d by %s with %d regions already open on "
                            "that thread (the limit): not recorded", file, line, who,
                            OMPB__REGION_DEPTH_MAX);
    ts->overflow++;
}

ompb__region_frame *ompb__region_end_slow(ompb__region_thread *ts, const char *name,
                                          const char *file, int line)
{
    char who[160], site[OMPB__REGION_SITE_MAX];
    int i = ts->depth - 1;
    while (i >= 0 && !ompb__region_name_equal(ts->stack[i].region, name))
        i--;
    if (i < 0) {
        ompb__region_team t;
        ompb__region_team_now(ts, &t);
        ompb__region *r = ompb__region_find(name, file);
        ompb__region_entry *e = r ? ompb__regions_entry_get(r, t.threads, file, line) : NULL;
        ompb__region_describe_thread(ts, t.level, t.tid, t.threads, who, sizeof who);
        if (e)
            ompb__region_entry_fail(e, "ended at %s:%d by %s without a matching begin on that "
                                    "thread", file, line, who);
        return NULL;
    }
    /* Regions begun inside name and still open: none of them ends well. */
    ompb__region_frame *outer = &ts->stack[i];
    ompb__region_describe_frame(ts, outer, who, sizeof who);
    for (int j = ts->depth - 1; j > i; j--) {
        ompb__region_frame *f = &ts->stack[j];
        if (f->lane)
            ompb__region_entry_fail(f->group->entry, "began at %s:%d by %s and still open "
                                    "when the enclosing region '%s' ended at %s:%d (regions "
                                    "must nest: end the inner one first)",
                                    ompb__region_site_file(f->file, site, sizeof site), f->line,
                                    who, outer->region->display, file, line);
        ompb__region_frame_drop(f);
    }
    ompb__region_entry_fail(outer->group->entry, "ended at %s:%d by %s while '%s', begun "
                            "inside it at %s:%d, was still open (mismatched names: regions "
                            "must nest)", file, line, who, ts->stack[i + 1].region->display,
                            ompb__region_site_file(ts->stack[i + 1].file, site, sizeof site),
                            ts->stack[i + 1].line);
    ts->depth = i + 1;
    return outer;
}

