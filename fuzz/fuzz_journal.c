/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the journal reader (lib/run/journal.c), which a crashed
 * run's report, `ompbench convert` and the parent of a crashed --processes
 * child rely on. Any input is read as the journal of a run of two instances
 * of 2 threads (the shape of fuzz_childdump.c); every record it hands over
 * is checked against what the reader promises (its instance, its arrays as
 * long as its rounds and threads say) and freed, and a crash line must name
 * one of the instances (or none: a crash between slots). A refusal must be one line, never empty. A journal
 * is what a crash or a SIGKILL left behind: cut anywhere, or damaged, it
 * must be read up to its last whole record and never crash the reader.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ompbench/error.h>

#include "model/record.h"
#include "model/registry.h"
#include "run/journal.h"

#define THREADS 2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void body(ompb_state *s) { (void)s; }

static const ompb_benchmark bench = {.name = "triad", .file = "benches/x.c", .fn = body};
static ompb__instance inst[2];
static int fd = -1;
static char path[64];

static void init(void)
{
    for (int i = 0; i < 2; i++) {
        inst[i].bench = &bench;
        inst[i].threads = THREADS;
        snprintf(inst[i].name, sizeof inst[i].name, "triad[%d, t=2]", i);
        snprintf(inst[i].uri, sizeof inst[i].uri, "benches/x.c::triad[%d, t=2]", i);
    }
    fd = memfd_create("journal", 0);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
}

/* What the reader promises of every record it hands over. */
static int take(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    (void)arg;
    (void)err;
    if (instance >= 2 || rec->inst != &inst[instance])
        __builtin_trap();
    /* Touch every raw value a report will read: the sanitizers catch an
     * array shorter than its counts. */
    volatile uint64_t sink = 0;
    int timed = ompb__record_timed_threads(rec);
    for (size_t r = 0; r < rec->rounds; r++) {
        sink += rec->start_ns[r] + rec->end_ns[r];
        for (int t = 0; t < timed; t++)
            sink += rec->busy_ns[r * (size_t)timed + (size_t)t];
    }
    (void)sink;
    ompb__record_free(rec);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd < 0)
        init();
    if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return 0;
    ompb_error err = {0};
    ompb__journal_info info;
    int rc = ompb__journal_read(path, inst, 2, take, NULL, &info, &err);
    if (rc != 0 && (!err.text[0] || strchr(err.text, '\n')))
        __builtin_trap(); /* a refusal is one line, never empty */
    if (rc == 0 && info.crash_signal && info.crash_instance >= 2 &&
        info.crash_instance != SIZE_MAX)
        __builtin_trap();
    return 0;
}
