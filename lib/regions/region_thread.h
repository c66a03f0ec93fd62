/* SPDX-License-Identifier: MIT */
/*
 * What each thread keeps for itself while it uses regions
 * (lib/regions/region_thread.c): its stack of open regions, its caches of names
 * and groups, the team it is in, and the list of live threads that the
 * misuse messages and team switches read. Above the table
 * (lib/regions/region_table.h) in the regions' one-way chain; the hot path
 * (lib/regions/region.c) inlines what is here.
 */
#ifndef OMPB_REGION_THREAD_H
#define OMPB_REGION_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <omp.h>

#include "regions/region_table.h"

/* Slots of a thread's name cache (pointer-keyed). */
#define OMPB__REGION_NAME_CACHE 64

/* One open region on a thread. lane is NULL for a begin that is only
 * remembered so that its end pairs with it (recursion, a conflicting
 * team): nothing is recorded for it. */
typedef struct ompb__region_frame {
    ompb__region *region;
    const char *name;           /* the caller's pointer at begin */
    ompb__region_group *group;
    ompb__region_lane *lane;
    const char *file;
    int line;
    int32_t pu;
    /* OpenMP level of its team; at level 0, the runtime's answer at begin
     * (omp_get_max_threads) and the widths of the teams (level 1) in
     * which this thread began regions while it was open (0: none). */
    int level;
    uint32_t asked, inner_lo, inner_hi;
    uint64_t start_ns;
} ompb__region_frame;

/* A thread's cached group of one region: the shape is copied here so the
 * check reads only thread-local memory. */
typedef struct ompb__region_group_slot {
    ompb__region_group *group;
    uint64_t key;
    uint64_t shape;             /* team.shape */
} ompb__region_group_slot;

/* A slot of the thread's name cache: the region of a name pointer
 * (checked by content on every hit unless fixed: a string literal of the
 * main program, which cannot change), and that region's group for one
 * team outside nesting (OpenMP level 0 or 1), which the begin then finds
 * without hashing the team: the team as ompb__region_flat_code and its
 * key (team 0: none cached). */
typedef struct ompb__region_name_slot {
    const char *ptr;
    ompb__region *region;
    uint64_t team, key;
    ompb__region_group *group;
    bool fixed;
} ompb__region_name_slot;

/* Level (0 or 1), size and thread number of a team outside nesting in one
 * word, never 0. */
static inline uint64_t ompb__region_flat_code(int level, int threads, int tid)
{
    return UINT64_C(1) << 63 | (uint64_t)level << 62 | (uint64_t)(uint32_t)threads << 31
           | (uint32_t)tid;
}

typedef struct ompb__region_thread {
    uint64_t serial;            /* nonzero, unique in the process */
    int os_tid;
    int depth;
    /* The team key of the thread's last begin: another thread that finds
     * it taking over lane 0 of that team's shape reads it (team_switch). */
    _Atomic uint64_t last_key;
    uint64_t solo_key;          /* its team key outside OpenMP */
    uint32_t overflow;          /* begins past the depth limit, ignored */
    ompb__region_frame stack[OMPB__REGION_DEPTH_MAX];
    ompb__region_name_slot names[OMPB__REGION_NAME_CACHE];
    ompb__region_group_slot *groups;         /* [n_groups], by region id */
    size_t n_groups;
    /* Began a region outside any team; the fork guard's observe that was
     * given this thread's forks (lib/regions/region_forks.c), NULL: none. */
    bool level0;
    void (*observed_by)(void (*)(unsigned));
    struct ompb__region_thread *prev, *next;
} ompb__region_thread;

/* The team the calling thread is in, as far as pairing is concerned. */
typedef struct ompb__region_team {
    uint64_t key;
    /* level << 32 | threads, compared in one load: the cached shape of
     * group_slot is checked against it without a store-forwarding stall
     * (two 4-byte stores read back as one 8-byte load). */
    uint64_t shape;
    int level, threads, tid;
    int ancestors[OMPB__REGION_LEVELS_MAX];
} ompb__region_team;

static inline uint64_t ompb__region_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

/* The calling thread's state, NULL before its first region call.
 *
 * The default TLS model: an executable that links libompbench statically
 * gets a thread-pointer load anyway (the linker relaxes it); a shared
 * libompbench stays loadable by dlopen, which initial-exec would stop once
 * the static TLS space is used up (the STATIC_TLS flag), for the price of
 * one __tls_get_addr call per marker there (docs/performance.md). */
extern __thread ompb__region_thread *ompb__region_self;

/* The calling thread's team: outside OpenMP a team of one of its own, in
 * OpenMP the nesting path (thread numbers of the ancestors) and size, so
 * concurrent inner teams are told apart and consecutive teams of one shape
 * share their pairing. */
/* The team key at level 0 (the thread's own) or 1 (its size alone); the
 * begin's name cache computes it without ompb__region_team_now. */
static inline uint64_t ompb__region_flat_key(const ompb__region_thread *ts, int level,
                                             int threads)
{
    return level ? ompb__region_mix(1, (uint64_t)threads) | 1 : ts->solo_key;
}

static inline void ompb__region_team_now(const ompb__region_thread *ts, ompb__region_team *t)
{
    int level = omp_get_level();
    t->level = level;
    if (level == 0) {
        t->threads = 1;
        t->tid = 0;
        t->key = ompb__region_flat_key(ts, 0, 1);
        t->shape = 1;
        return;
    }
    t->threads = omp_get_num_threads();
    t->tid = omp_get_thread_num();
    if (level == 1) {
        t->key = ompb__region_flat_key(ts, 1, t->threads);
        t->shape = (uint64_t)1 << 32 | (uint32_t)t->threads;
        return;
    }
    uint64_t h = ompb__region_mix((uint64_t)level, (uint64_t)t->threads);
    for (int l = 1; l < level; l++) {
        int a = omp_get_ancestor_thread_num(l);
        if (l - 1 < OMPB__REGION_LEVELS_MAX)
            t->ancestors[l - 1] = a;
        h = ompb__region_mix(h, (uint64_t)a);
    }
    t->key = h | 1; /* never the empty slot's 0 */
    t->shape = (uint64_t)(uint32_t)level << 32 | (uint32_t)t->threads;
}

/* Once per process, before the first thread state: the key whose
 * destructor fails a thread's open regions when it exits. */
void ompb__region_threads_init(void);
/* The calling thread's new state (now ompb__region_self); NULL on ENOMEM. */
ompb__region_thread *ompb__region_thread_new(void);

/* The group of (r, team t) for thread ts, found or made under the global
 * lock (file:line: the call site, for a refused name's message); NULL on
 * ENOMEM. */
ompb__region_group *ompb__region_group_find(ompb__region *r, const ompb__region_team *t,
                                            const ompb__region_thread *ts, const char *file,
                                            int line);
/* Room in ts's group cache for region id; false on ENOMEM. */
bool ompb__region_grow_slots(ompb__region_thread *ts, uint32_t id);

/* "thread 1 of a team of 4 (OpenMP level 1, OS thread 4242)". */
void ompb__region_describe_thread(const ompb__region_thread *ts, int level, int tid,
                                  int threads, char *buf, size_t len);
void ompb__region_describe_frame(const ompb__region_thread *ts, const ompb__region_frame *f,
                                 char *buf, size_t len);

/* Pushes a begin that records nothing, so that its end pairs with it. */
void ompb__region_push_ignored(ompb__region_thread *ts, ompb__region *r, const char *name,
                               ompb__region_group *g, const char *file, int line);
/* Releases the lane of a frame that will never be recorded. */
void ompb__region_frame_drop(ompb__region_frame *f);
/* Fails every open frame of ts (begun, never ended): at thread exit and,
 * for the calling thread, at process exit. */
void ompb__region_close_frames(ompb__region_thread *ts, const char *why);

/* Room for a call site's file in a message. */
#define OMPB__REGION_SITE_MAX 256
/* A call site's file (a begin's __FILE__, kept as the caller's pointer) for
 * a message: the string, a copy of it in buf, "(unloaded library)" when
 * the library it was in has been dlclose()d since, "?" for NULL. */
const char *ompb__region_site_file(const char *file, char *buf, size_t len);

/* The kernel id of the live thread with this serial, 0 when none. Takes
 * the global lock (the thread list). */
int ompb__region_thread_os_tid(uint64_t serial);
/* False when a live thread other than ts with kernel id prev_tid last
 * began a region in a team of key (*other: its id). Takes the global
 * lock (region_misuse.c, team switches). */
bool ompb__region_team_switch_ok(const ompb__region_thread *ts, int prev_tid, uint64_t key,
                                 int *other);

/* The entry of the calling thread's innermost open instance of region
 * `name` (ompb_region_counter), NULL when none is open. */
ompb__region_entry *ompb__regions_open_entry(const char *name);
/* True when the calling thread has a region open; buf then names the
 * innermost one and its call site. */
bool ompb__regions_open_here(char *buf, size_t len);
/* At process exit: fails the calling thread's open regions. */
void ompb__regions_close_own_frames(void);

/* Global lock held, no thread inside a region call (tests): forgets every
 * thread's open regions and caches. */
void ompb__region_threads_reset(void);

#endif
