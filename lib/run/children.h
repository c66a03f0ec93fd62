/* SPDX-License-Identifier: MIT */
/*
 * Process-level repetitions (--processes P): the binary re-executes itself
 * (/proc/self/exe, the same argv plus the hidden --ompb-child=K,SEED,PATH)
 * P times, one process after another. Child K runs its share of the
 * repetitions (lib/schedule), writes its records to a private file in a
 * temporary directory (lib/dump) and exits; the parent reads them back as
 * if it had measured them itself. A child that dies before its dump (a
 * crash, SIGKILL) leaves its journal beside it (lib/run/journal.h): the
 * parent reads that instead, and loses only the repetition that ran. A fresh process gets a fresh address
 * space, heap, thread pool and placement, which in-process repetitions do
 * not (docs/methodology.md measures the difference).
 *
 * Children inherit stdin, stdout and stderr (their progress and warnings
 * appear as they happen). Ctrl-C reaches the child and the parent alike;
 * the parent, on SIGINT, SIGTERM or SIGHUP, passes the signal on to the
 * running child, waits for it, removes the temporary directory and then
 * dies of the same signal, so no temporary file outlives the run.
 */
#ifndef OMPB_CHILDREN_H
#define OMPB_CHILDREN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ompbench/error.h>

#include "context/context.h"
#include "run/dump.h"
#include "model/model.h"

/* Longest explanation of a lost process. */
#define OMPB__CHILDREN_WHY_MAX 200

/* How children are started, waited for and signalled. NULL in
 * ompb__children means the system's: posix_spawn of /proc/self/exe,
 * waitpid, kill. The unit tests give doubles that play a child's part
 * (tests/test_children.c). */
typedef struct ompb__children_ops {
    /* Starts argv (the parent's own argv plus the child option). Returns 0
     * with *pid set, or an errno value. */
    int (*spawn)(void *ctx, char *const argv[], pid_t *pid);
    /* Waits for pid to end: pid with *status set, or -1 with errno set
     * (EINTR: a signal came first, and the caller waits again). */
    pid_t (*wait)(void *ctx, pid_t pid, int *status);
    /* Sends sig to pid. Called from a signal handler: async-signal-safe. */
    int (*signal)(void *ctx, pid_t pid, int sig);
    void *ctx;
} ompb__children_ops;

typedef struct ompb__children {
    int argc;
    char **argv;                 /* the parent's command line, passed on */
    uint32_t processes, repetitions;
    uint64_t seed;               /* the run's seed; child K gets it and derives its own */
    const ompb__instance *sel;   /* the selected instances */
    size_t n_sel;
    ompb__context *ctx;          /* the children's warnings are recorded here */
    ompb__dump_record_fn take;   /* receives every record read back */
    /* A child that crashed (lib/run/journal.h) in the repetition `repetition`
     * of instance `instance`, of signal sig; called after take got the
     * records its journal kept. May be NULL. */
    void (*crashed)(void *arg, size_t instance, uint32_t repetition, int sig);
    void *arg;
    /* Out: why[k] says why process k handed over nothing ("" when it did);
     * [processes], allocated by the caller. */
    char (*why)[OMPB__CHILDREN_WHY_MAX];
    /* Out: partial[k] is true when process k died of a signal that reached
     * it alone (or that a body raised) after it handed over its completed
     * repetitions; why[k] then says what became of the others ("was killed
     * by signal 15 (Terminated) before it completed this repetition").
     * [processes], allocated by the caller, all false. */
    bool *partial;
    /* Out: the signal that interrupted the run (0: none). */
    int interrupted;
    const ompb__children_ops *ops; /* NULL: the system's */
} ompb__children;

/*
 * Runs the P children one after another. Returns 0 when every child ran
 * (a child that lost its records is reported in why[k] and on stderr, and
 * the run goes on with the next one; one that a signal ended hands over
 * what it completed, see partial); OMPB_EIO when the temporary
 * directory cannot be made (err set). On SIGINT, SIGTERM or SIGHUP it
 * passes the signal to the running child, takes the records that child
 * handed over before it died (its completed repetitions), starts no other,
 * cleans up, restores the signal actions and returns 0 with
 * sp->interrupted set: the caller reports what it has and dies of it.
 */
int ompb__children_run(ompb__children *sp, ompb_error *err);

#endif
