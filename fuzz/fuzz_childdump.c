/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the child-dump reader (lib/run/dump.c), the parent's side
 * of --processes. Any input is read as the dump of process 1 of 2 of a
 * 4-repetition run of two instances of 2 threads (the shape of
 * tests/test_dump.c); every record it hands over is checked against what
 * the reader promised (its instance, a repetition this process owns, its
 * arrays as long as its rounds and threads say) and freed. A refusal must
 * be one line, never empty. A child is the same binary as its parent, but
 * the file is on disk between them: a damaged or foreign one must be
 * refused, never crash the parent that reads it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ompbench/error.h>

#include "context/context.h"
#include "run/dump.h"
#include "model/record.h"
#include "model/registry.h"

#define THREADS 2
#define PROCESS 1
#define PROCESSES 2
#define REPETITIONS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void body(ompb_state *s) { (void)s; }

static const ompb_benchmark bench = {.name = "triad", .file = "benches/x.c", .fn = body};
static ompb__instance inst[2];
static ompb__context *ctx;
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
    /* The child's warnings go into a context, quietly: the fuzzer's output
     * is its own. */
    ompb__context_env quiet = {.quiet = true};
    ctx = ompb__context_new_in(&quiet, NULL, THREADS, "fuzz");
    fd = memfd_create("dump", 0);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
}

/* What the reader promises of every record it hands over. */
static int take(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    (void)arg;
    (void)err;
    if (instance >= 2 || rec->inst != &inst[instance]
        || rec->sampling.repetition % PROCESSES != PROCESS
        || rec->sampling.repetition >= REPETITIONS)
        __builtin_trap();
    /* Touch every raw value the parent will read: the sanitizers catch an
     * array shorter than its counts. */
    volatile uint64_t sink = 0;
    int timed = ompb__record_timed_threads(rec);
    for (size_t r = 0; r < rec->rounds; r++)
        for (int t = 0; t < timed; t++)
            sink += rec->busy_ns[r * (size_t)timed + (size_t)t];
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
    int rc = ompb__dump_read(path, PROCESS, PROCESSES, REPETITIONS, inst, 2, ctx, take, NULL,
                             &err);
    if (rc != 0 && (!err.text[0] || strchr(err.text, '\n')))
        __builtin_trap(); /* a refusal is one line, never empty */
    return 0;
}
