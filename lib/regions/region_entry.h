/* SPDX-License-Identifier: MIT */
/*
 * The objects of application regions and what is done to them below the
 * hot path: pairing the threads' begin/end of an instance (lanes and
 * groups) and folding the paired instances into each (region, team size)
 * entry's statistics, an accumulator (lib/regions/region_stats.h)
 * (lib/regions/region_entry.c). In the regions' one-way chain after the
 * settings and the statistics (docs/architecture.md, "regions"): it calls
 * no other region module.
 *
 * The objects, from the name down:
 *
 *   region  one name; never freed (the name table only grows)
 *   entry   (region, team size T): what a report shows as region:NAME[t=T];
 *           its statistics, guarded by its mutex
 *   group   one team shape using the region: the OpenMP nesting path and T
 *           (a thread outside OpenMP is a team of one of its own); T lanes
 *   lane    thread index t of a group: a ring of that thread's completed
 *           begin/end pairs, written by whichever thread plays index t,
 *           claimed by compare-and-swap at begin (two threads at once: one
 *           wins, the other's begin is misuse)
 *
 * OpenMP does not say which team of a shape a thread is in, so two
 * pthreads' teams of one shape share a group. Lane 0 (at level >= 1 the
 * thread that started the team) changing hands while its previous thread
 * is alive and last began a region in that shape fails the entry
 * (region_misuse.c, team switches): never instances paired across teams.
 *
 * Pairing: the k-th pair of every lane of a group is instance k. Lanes only
 * publish a count (release). Every BATCH of its own instances, lane 0's
 * thread takes the group's reducing flag and the entry's mutex if both are
 * free and folds what every lane has completed into the entry; the other
 * lanes fold only when their ring is full. One folding thread keeps the
 * entry's lines in one core's cache.
 *
 * Lock order: the global lock (region_table.c), then a group's reducing flag,
 * then an entry's mutex. The hot path takes neither lock and never waits
 * for the flag.
 */
#ifndef OMPB_REGION_ENTRY_H
#define OMPB_REGION_ENTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/error.h>
#include <ompbench/region.h>

#include "core/core.h"
#include "regions/region_stats.h"

/* Distinct names a process may use; later new names are ignored (warned). */
#define OMPB__REGIONS_MAX 16384
/* Regions open at once on one thread. */
#define OMPB__REGION_DEPTH_MAX 64
/* Ring of a lane: first size, size once the region is hot (at its
 * RING_HOT-th instance on that lane), and largest size. Thread 0 of a team
 * folds every quarter ring: the larger the batch, the better the lines a
 * batch brings from the other cores overlap. A thread more than a ring
 * ahead of the slowest thread of its team grows its ring (doubling); one
 * RING_MAX ahead cannot be paired. */
#define OMPB__REGION_RING_FIRST 64
#define OMPB__REGION_RING_HOT 512
#define OMPB__REGION_RING_MAX (1u << 20)
/* OpenMP nesting levels told apart exactly (deeper ones by hash only). */
#define OMPB__REGION_LEVELS_MAX 8
#define OMPB__REGION_ERROR_MAX 512
/* Marker pairs one runner window buffers at most (16 bytes each). */
#define OMPB__REGION_PAIRS_MAX (1u << 22)

typedef struct ompb__region ompb__region;
typedef struct ompb__region_entry ompb__region_entry;
typedef struct ompb__region_group ompb__region_group;
typedef struct ompb__region_lane ompb__region_lane;

struct ompb__region {
    char *name;                 /* as given, at most OMPB_REGION_NAME_MAX + 1 bytes */
    char *display;              /* valid UTF-8: the name, or an escaped, cut copy + "~id" */
    char *file;                 /* URI file of the first call site */
    uint64_t hash;
    uint32_t id;                /* order of first use */
    char invalid[160];          /* why the name is refused; "" when valid */
    _Atomic(ompb__region_entry *) entries;  /* by team size, newest first */
    _Atomic(ompb__region_group *) groups;
};

struct ompb__region_lane {
    /* Read by the thread that folds (and by reports). */
    _Alignas(64) _Atomic uint64_t published; /* pairs completed (release) */
    ompb__region_slot *ring;    /* [mask + 1]; changes only under the reducing flag */
    uint32_t mask;
    _Atomic int os_tid;         /* kernel id of the last thread that played it */
    /* The playing thread's own line: nobody else writes it, and only the
     * rare checks (conflicts, the exit, reports) read it, so the owner's
     * stores here never wait for another core. */
    _Alignas(64) _Atomic uint64_t occupant; /* serial of the thread inside, 0 none */
    _Atomic(const char *) begin_file;        /* its call site, for messages */
    _Atomic int begin_line;
    /* The serial whose begin wrote begin_file and begin_line: a thread that
     * claimed the lane has not written them yet when another finds it taken. */
    _Atomic uint64_t site_serial;
    uint64_t count;             /* == published */
    uint64_t reduced_seen;      /* group->reduced as last read */
    uint64_t next_try;          /* count at which to try folding again */
};

struct ompb__region_group {
    /* Read-mostly (begin reads dead): never on a line the reducer writes. */
    ompb__region_entry *entry;
    ompb__region_group *next;   /* the region's list */
    _Atomic uint64_t key;       /* hash of the shape below */
    int level, threads;         /* OpenMP level (0: outside teams), T */
    int ancestors[OMPB__REGION_LEVELS_MAX]; /* thread numbers at levels 1..level-1 */
    /* Level 0: the thread it belongs to. When that thread exits the group
     * becomes vacant and the next thread outside OpenMP adopts it, so
     * short-lived pthreads do not pile up groups. */
    _Atomic uint64_t serial;
    _Atomic bool vacant;
    _Atomic bool dead;          /* pairing gave up (entry failed): lanes stop */
    ompb__region_slot *scratch; /* [threads], for the reducer */
    /* Written by the reducer. */
    _Alignas(64) _Atomic uint64_t reduced; /* instances folded into the entry */
    atomic_flag reducing;
    ompb__region_lane lanes[];  /* [threads] */
};

/* A phase region: an entry at OpenMP level 0 (t=1) whose instances
 * contained teams, seen through the regions marked in them
 * (ompb__region_entry_note_phase). Widths are 0 until one is seen;
 * written with relaxed atomics by the threads that end its instances
 * (each such instance holds a whole team: the cost is nothing beside it),
 * read by reports and the runner's window. */
typedef struct ompb__region_phase {
    _Atomic uint64_t instances;     /* instances that contained a marked team */
    _Atomic uint32_t lo, hi;        /* widths of those teams, smallest and largest */
    _Atomic uint32_t asked_lo, asked_hi; /* the runtime's answer at their begins
                                            (omp_get_max_threads) */
} ompb__region_phase;

/* What a report says of a phase region (all 0 for any other entry). */
typedef struct ompb__region_phase_info {
    int width;                  /* the name's width: the teams' width, else the runtime's answer */
    uint64_t instances;
    unsigned lo, hi, asked_lo, asked_hi;
    bool mixed;                 /* the teams' widths differ, or differ from the runtime's answer */
} ompb__region_phase_info;

/* A window's marker pairs, for the CodSpeed runner (lib/regions/region_runner.c). */
typedef struct ompb__region_pairs {
    uint64_t *start_ns, *end_ns;
    size_t n, cap;
    uint64_t dropped;           /* instances beyond the buffer's limit */
} ompb__region_pairs;

/* What the results file says of an entry that had a runner window. */
typedef struct ompb__region_window_result {
    bool sent;                  /* markers went out: stats below describe them */
    ompb__stats stats;          /* per-instance makespans of the pairs sent */
    uint64_t rounds;
    double total_s;
} ompb__region_window_result;

struct ompb__region_entry {
    ompb__region *region;
    int threads;
    uint32_t order;             /* creation order over all entries */
    ompb__region_entry *next;   /* the region's list */
    ompb__region_entry *next_all; /* every entry, creation order */
    pthread_mutex_t lock;       /* everything below */

    bool failed;
    char error[OMPB__REGION_ERROR_MAX];
    uint64_t misuse;            /* misuse events, the first one included */

    /* The statistics of every instance folded (region_stats.h). */
    ompb__region_acc acc;
    ompb__region_phase phase;
    int *os_tid;                /* [threads] kernel id of the last thread of each lane */

    /* CodSpeed runner (region_runner.c; the buffer filled here). */
    bool window_active;         /* this entry holds the open window */
    atomic_bool had_window;     /* set under lock, read by begin without it */
    uint64_t window_open_ns;
    ompb__region_pairs pairs;
    ompb__region_window_result window;
};

/* A spin-wait hint to the CPU. */
static inline void ompb__region_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* Marks e failed with a message (printed once per entry on stderr as
 * "ompbench: region ...: ..."); later misuse of e is only counted. */
void ompb__region_entry_fail(ompb__region_entry *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* An instance of e that ended at OpenMP level 0 contained teams of widths
 * lo..hi (marked regions begun in them by this thread); asked: the
 * runtime's answer (omp_get_max_threads) at its begin. */
void ompb__region_entry_note_phase(ompb__region_entry *e, unsigned asked, unsigned lo,
                                   unsigned hi);

/* e's phase figures, and the width its name carries: e->threads, or for a
 * phase region the width of the teams it contained (the runtime's answer
 * when those differed), unless another entry of its region already has
 * that width (the name would not be unique: t=1 is kept). */
ompb__region_phase_info ompb__region_entry_phase(const ompb__region_entry *e);

/* "region:NAME[t=T]" and "<file>::region:NAME[t=T]" of e (T: the width of
 * ompb__region_entry_phase). */
void ompb__region_entry_names(const ompb__region_entry *e, char *name, size_t name_len,
                              char *uri, size_t uri_len);

/* A new entry for (r, threads) with no instance; NULL on ENOMEM. */
ompb__region_entry *ompb__region_entry_new(ompb__region *r, int threads, uint32_t order);
void ompb__region_entry_free(ompb__region_entry *e);

/* A new group of `threads` lanes feeding e; NULL on ENOMEM. */
ompb__region_group *ompb__region_group_new(ompb__region_entry *e, int threads);
void ompb__region_group_free(ompb__region_group *g);

/* The owner of lane ln found its ring full: reduces what it can, grows
 * the ring, or gives the group up (entry failed). Returns false when the
 * pair cannot be recorded. */
bool ompb__region_lane_make_room(ompb__region_group *g, ompb__region_lane *ln);

/* The owner of lane ln reached its RING_HOT-th instance: gives it a ring
 * of RING_HOT slots (once; a failed allocation keeps the small one). */
void ompb__region_lane_heat(ompb__region_group *g, ompb__region_lane *ln);

/* Instances between two folds by lane 0: a quarter of its ring. */
static inline uint64_t ompb__region_batch(const ompb__region_lane *ln)
{
    return ((uint64_t)ln->mask + 1) / 4;
}

/* Tries to fold the instances complete on every lane into the entry;
 * returns at once when another thread is doing it. */
void ompb__region_group_try_reduce(ompb__region_group *g, ompb__region_lane *self);

/* Folds every complete instance, waiting for the reducing flag (reports). */
void ompb__region_group_reduce_all(ompb__region_group *g);

/* Adds one instance, the `threads` slots of its threads, to e as the fold
 * does (e->lock not held: tests and benches, which own e alone). */
void ompb__region_entry_add(ompb__region_entry *e, const ompb__region_slot *slots);

/* e->lock held, e holding the CodSpeed runner's window (window_active):
 * buffers a completed instance's aggregate pair for it; one begun before
 * the window opened is left out (the runner cannot take it). The runner
 * (lib/regions/region_runner.c) opens the window and empties the buffer. */
void ompb__region_window_record(ompb__region_entry *e, uint64_t start_ns, uint64_t end_ns);

#endif
