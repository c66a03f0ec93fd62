/* SPDX-License-Identifier: MIT */
/*
 * Performance counters (--counters): event names, perf_event groups, reads
 * and multiplex scaling. Every team thread opens one group of its own for
 * its own thread id after it is placed (never `inherit`: a counter opened
 * that way does not see the threads of an OpenMP pool that already exist).
 * The timed loop reads it right before its start time and right after its
 * end time (lib/engine/state.c), so a round's counts are the delta over the
 * thread's timed window, and neither read lies inside it. Names are perf's
 * generic ones (hardware, software, cache events) and their aliases, each
 * event known by one canonical name (the one results carry); with libpfm4
 * at build time (OMPB_HAVE_LIBPFM) the processor's own named events too.
 * The system calls go through an ops table the caller passes in (the engine
 * its environment's, ompb__engine_env.counters; a group keeps the one it
 * was opened with), so tests can put a double with fake file descriptors in
 * their place (this VM has no PMU). The module's files:
 * lib/counters/counters_internal.h.
 */
#ifndef OMPB_COUNTERS_H
#define OMPB_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ompbench/error.h>

#include "counters/preempt.h"

/* Most events in one --counters list (one group: a PMU has 4-8 counters,
 * software events need none). */
#define OMPB__MAX_COUNTERS 8
#define OMPB__COUNTER_NAME_MAX 64

/* What a counter counts, for units in reports. */
typedef enum {
    OMPB__COUNTER_COUNT,      /* events (instructions, misses, switches, ...) */
    OMPB__COUNTER_NS          /* nanoseconds (task-clock, cpu-clock) */
} ompb__counter_unit;

/* One event, resolved to the perf_event_attr fields we set. */
typedef struct ompb__counter_event {
    char name[OMPB__COUNTER_NAME_MAX];   /* canonical: cycles for cpu-cycles (results) */
    char given[OMPB__COUNTER_NAME_MAX];  /* as the user wrote it (messages); "" when not
                                            parsed here (a child's dump) */
    uint32_t type;                       /* PERF_TYPE_* */
    uint64_t config, config1, config2;
    bool kernel;                         /* counts kernel activity too: context
                                            switches and migrations, which happen
                                            there; every other event counts user
                                            space (paranoid 2 allows it) */
    ompb__counter_unit unit;
    bool named;                          /* resolved by libpfm4 */
} ompb__counter_event;

/* A parsed --counters list: the events of one group, in the user's order. */
typedef struct ompb__counter_set {
    ompb__counter_event ev[OMPB__MAX_COUNTERS];
    int n;
} ompb__counter_set;

/* One read of a group: cumulative values since it was enabled, and the
 * times the group was enabled and actually on the PMU (they differ when the
 * kernel multiplexed it). */
typedef struct ompb__counter_reading {
    uint64_t enabled_ns, running_ns;
    uint64_t value[OMPB__MAX_COUNTERS];
} ompb__counter_reading;

struct ompb__counter_ops;

/* One thread's open group. fd[0] is the leader. */
typedef struct ompb__counter_group {
    const struct ompb__counter_ops *ops; /* the system calls it was opened with */
    int fd[OMPB__MAX_COUNTERS];
    int n;
    ompb__counter_reading last;          /* the window's start (ompb__counter_group_mark) */
    ompb__counter_reading delta;         /* the last window's: its end reading - last */
    int read_errno;                      /* a failed read (0: none) */
} ompb__counter_group;

/* The system calls behind groups. Each returns what the system call does,
 * with -errno instead of -1. */
typedef struct ompb__counter_ops {
    /* perf_event_open(attr, tid, cpu -1, group_fd, PERF_FLAG_FD_CLOEXEC);
     * attr is a struct perf_event_attr. */
    int (*open)(void *attr, int tid, int group_fd);
    int (*enable)(int leader_fd);        /* ioctl ENABLE with PERF_IOC_FLAG_GROUP */
    long (*read)(int fd, void *buf, size_t len);
    int (*close)(int fd);
    /* kernel.perf_event_paranoid, or OMPB__PARANOID_UNKNOWN when it cannot
     * be read; NULL: the system's (/proc/sys/kernel/perf_event_paranoid). */
    int (*paranoid)(void);
} ompb__counter_ops;

#define OMPB__PARANOID_UNKNOWN (-100)

/* The real system calls. Every function below that takes ops reads NULL
 * as these. */
extern const ompb__counter_ops ompb__counter_ops_system;

/*
 * Parses "instructions,cycles,cache-misses" into *set. Names: perf's
 * generic hardware, software and cache events and their aliases
 * (`--list-counters`), and with libpfm4 any event it knows for this
 * machine; each event gets its canonical name, and keeps the one given.
 * Returns 0, or OMPB_EINVAL with err naming the unknown or repeated event
 * (twice under one name or under two), an empty list or more than
 * OMPB__MAX_COUNTERS events.
 */
int ompb__counters_parse(const char *list, ompb__counter_set *set, ompb_error *err);

/*
 * Opens set as one group on the calling thread through ops, enables it,
 * lets the thread run about 1 ms, reads it and closes it: what every team
 * thread will do, tried before anything is measured. Returns 0, or a
 * negative code with err
 * one line naming the event(s), the reason and the fix (event not on this
 * machine, perf_event_paranoid, too many events for the PMU, a group that
 * opens but is never on the PMU: time_running 0 with time_enabled > 0, ...).
 * The caller exits 2.
 */
int ompb__counters_probe(const ompb__counter_ops *ops, const ompb__counter_set *set,
                         ompb_error *err);

/*
 * Opens set as one group counting thread tid (0: the caller) through ops,
 * which the group keeps for its reads and its close, disabled, then enables
 * it and takes the first reading into g->last. On failure closes what it
 * opened, returns a negative code and fills err as ompb__counters_probe
 * does.
 */
int ompb__counter_group_open(ompb__counter_group *g, const ompb__counter_ops *ops,
                             const ompb__counter_set *set, int tid, ompb_error *err);
/* Reads the group: g->delta = now - g->last, g->last = now. One read(2) for
 * the whole group. Returns 0, or -errno (g->read_errno set, delta zeroed). */
int ompb__counter_group_read(ompb__counter_group *g);
/* Reads the group into g->last only: where the next delta starts. Returns
 * 0, or -errno (g->read_errno set). */
int ompb__counter_group_mark(ompb__counter_group *g);

/* The brackets of a timed window over n groups (lib/engine/state.c: before the
 * start time is taken, and after the end time): mark each group, then read
 * each, so every group's delta covers the window and a little more (the
 * reads' own cost), never less. A failed read sets that group's read_errno,
 * which fails the instance. */
void ompb__counters_window_begin(ompb__counter_group *g, int n);
void ompb__counters_window_end(ompb__counter_group *g, int n);
void ompb__counter_group_close(ompb__counter_group *g);

/* value scaled to the whole enabled time: value * enabled / running; NAN
 * when the group never ran (running 0 with enabled > 0), value itself when
 * it ran all the time. */
double ompb__counter_scale(uint64_t value, uint64_t enabled_ns, uint64_t running_ns);

/* Writes what this machine offers, as ops open them: every generic event
 * with "available" or the reason it is not, then libpfm4's named events (or
 * that they need libpfm4). */
void ompb__counters_list(const ompb__counter_ops *ops, FILE *out);

/* The canonical name of an event name: the event's for one of its aliases
 * ("cpu-cycles" -> "cycles"), else name itself (static, or name). Names in
 * files written before aliases were canonical go through it to match. */
const char *ompb__counter_canonical(const char *name);

/* The name of ev for messages: as the user wrote it, else the canonical one. */
const char *ompb__counter_label(const ompb__counter_event *ev);

/* The names of set as the user wrote them, comma-separated
 * ("task-clock,cs"), into buf: for messages. */
void ompb__counters_names(const ompb__counter_set *set, char *buf, size_t len);

/* The name of unit for reports: "ns" or "count" (static). */
const char *ompb__counter_unit_name(ompb__counter_unit unit);

#endif
