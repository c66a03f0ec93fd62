/* SPDX-License-Identifier: MIT */
/*
 * The run's journal: every repetition this process completes is appended,
 * as it completes, to a file beside the output (docs/guide.md, "Hostile
 * bodies"), so that a crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT in a
 * body), a SIGKILL or the OOM killer loses only the repetition that was
 * running. JSON Lines, one object a line, each line one write(2):
 *
 *   {"ompbench_journal":1,"exe":PATH,"pid":N,"seed":S,"argv":[...]}   first
 *   {"started":{"instance":I,"name":NAME,"repetition":R}}
 *                               a repetition about to run, before it runs
 *   {"record":{...}}            a completed repetition, in the dump's form
 *                               (lib/run/dump.h), whatever fields it has
 *   {"crash":{"instance":I,"name":NAME,"repetition":R,"signal":N}}
 *                               written by the crash handler, last
 *                               ({"crash":{"signal":N}} outside a slot)
 *
 * The file is not synced per record: a write(2) is in the kernel's page
 * cache when it returns, which a crash, SIGKILL or the OOM killer of this
 * process does not lose (only the machine's own crash would). The reader
 * keeps every whole line and says when the last one was cut.
 */
#ifndef OMPB_RUN_JOURNAL_H
#define OMPB_RUN_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/error.h>

#include "run/dump.h"
#include "run/dump_internal.h"

#define OMPB__JOURNAL_SUFFIX ".journal"
#define OMPB__JOURNAL_PATH_MAX 4200
/* The crash line: a name escaped twice (UTF-8, then JSON) and numbers. */
#define OMPB__JOURNAL_CRASH_MAX (2 * OMPB__DUMP_ESCAPED_MAX + 160)

typedef struct ompb__journal {
    int fd;                                 /* -1: none */
    char path[OMPB__JOURNAL_PATH_MAX];
    /* The crash line of the slot running, but its signal and end: built
     * when the slot begins, so that the handler only appends digits. */
    char crash[OMPB__JOURNAL_CRASH_MAX];
    size_t crash_len;
} ompb__journal;

/* Creates path (it must not exist: a journal left by an earlier run is
 * never overwritten) and writes its first line; with `unique`, path ends in
 * "XXXXXX" + OMPB__JOURNAL_SUFFIX, which become a name no file has (j->path).
 * Returns 0, or OMPB_EIO with err naming the file and why. */
int ompb__journal_open(ompb__journal *j, const char *path, bool unique, uint64_t seed,
                       int argc, char **argv, ompb_error *err);

/* Appends a completed repetition (instance: its index in the selection);
 * its slot is done, and a crash from now on names none. Returns 0, OMPB_EIO
 * or OMPB_ENOMEM (the run goes on without it). */
int ompb__journal_add(ompb__journal *j, const ompb__record *rec, size_t instance);

/* The slot that begins: appends its started line (so that a SIGKILL
 * leaves it named) and builds its crash line; name is its instance's. */
void ompb__journal_slot(ompb__journal *j, size_t instance, const char *name,
                        uint32_t repetition);

/* Async-signal-safe: appends the crash line of the slot running, or of
 * none. */
void ompb__journal_crash(const ompb__journal *j, int sig);

/* Closes the journal; removes the file unless keep. */
void ompb__journal_close(ompb__journal *j, bool keep);

/* What a journal said besides its records. */
typedef struct ompb__journal_info {
    uint64_t seed;
    size_t records;             /* whole records read */
    bool truncated;             /* the last line was cut (not read) */
    int crash_signal;           /* 0: no crash line */
    size_t crash_instance;      /* SIZE_MAX: outside every slot */
    uint32_t crash_repetition;
    /* Without a crash line: the repetition started last when no record of
     * it follows (the process was killed or lost while it ran), else
     * SIZE_MAX. */
    size_t lost_instance;
    uint32_t lost_repetition;
} ompb__journal_info;

/* Reads path: every record must belong to one of inst[n_inst] (by index
 * and name) and goes to fn, as ompb__dump_read hands them over. A last
 * line cut mid-write is not an error (info->truncated). Returns 0; OMPB_EIO
 * (unreadable), OMPB_EINVAL (malformed: err is one line, "PATH: line N:
 * what"; the records before it were handed over), OMPB_ENOMEM. */
int ompb__journal_read(const char *path, const ompb__instance *inst, size_t n_inst,
                       ompb__dump_record_fn fn, void *arg, ompb__journal_info *info,
                       ompb_error *err);

#endif
