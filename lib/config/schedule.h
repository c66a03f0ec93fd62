/* SPDX-License-Identifier: MIT */
/*
 * The order in which a process runs its (instance, repetition) slots. With
 * more than one repetition the slots are interleaved: a shuffled
 * round-robin, one pass per repetition, each pass visiting every instance
 * once in a freshly shuffled order, so a slow drift of the machine (load,
 * temperature, a neighbour's job) spreads over every instance instead of
 * landing on the ones that happened to run late. The shuffle is a seeded
 * PRNG, so a printed seed replays the order. With process-level
 * repetitions (lib/run/children.c) process k runs repetitions k, k + P, k + 2P...
 */
#ifndef OMPB_SCHEDULE_H
#define OMPB_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ompb__slot {
    uint32_t instance;          /* index into the selected instances */
    uint32_t repetition;        /* 0 .. repetitions - 1, over the whole run */
} ompb__slot;

typedef struct ompb__schedule_spec {
    size_t instances;           /* selected instances */
    uint32_t repetitions;       /* per instance, over the whole run (>= 1) */
    uint32_t processes;         /* processes sharing them (>= 1) */
    uint32_t process;           /* which one this is, < processes */
    uint64_t seed;              /* this process's seed (ompb__seed_for_process) */
    bool interleave;            /* false: each instance's repetitions back to
                                   back, instances in registration order (one
                                   CodSpeed window per instance) */
} ompb__schedule_spec;

/*
 * The slots process `spec->process` runs, in run order, into a malloc'd
 * array the caller frees. With one repetition in the whole run the order is
 * the registration order (no shuffle: a single run behaves as before
 * repetitions existed). Returns 0 or OMPB_ENOMEM.
 */
int ompb__schedule_make(const ompb__schedule_spec *spec, ompb__slot **slots, size_t *n);

/* Repetitions of the run that process k of P runs: k, k + P, ... < N. */
uint32_t ompb__schedule_share(uint32_t repetitions, uint32_t processes, uint32_t k);

/* A seed from the clock, for runs without --seed. */
uint64_t ompb__seed_from_clock(void);

/* The seed process k uses: seed itself for k = 0 (a run in one process
 * replays with the printed seed alone), a well-mixed derivation otherwise. */
uint64_t ompb__seed_for_process(uint64_t seed, uint32_t k);

#endif
