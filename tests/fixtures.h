/* SPDX-License-Identifier: MIT */
/*
 * Helpers that several unit suites share (libuv's test/task.h plays this
 * part): an instance as the registry would make it, without a registry,
 * and the text a reporter wrote to a temporary file. One definition here
 * instead of a copy per suite, so that a change to ompb__instance or to
 * how instances are named is made once. Everything is for tests only.
 */
#ifndef OMPB_TEST_FIXTURES_H
#define OMPB_TEST_FIXTURES_H

#include <signal.h>
#include <stdio.h>

#include <ompbench.h>

#include "model/registry.h"
#include "report/report.h"

/* The instance of b at `threads` threads, named b->name, with the URI
 * "tests::<name>"; every other field zero. */
ompb__instance ompb_test_instance(const ompb_benchmark *b, int threads);

/* An instance with only a name and a URI (no benchmark, 0 threads): what
 * the instrument and the reporters read of one. */
ompb__instance ompb_test_instance_named(const char *name, const char *uri);

/* A record's measured rounds, from arrays the caller keeps: start and end
 * [rounds], the per-thread ones [rounds * threads]. */
typedef struct ompb_test_rounds {
    size_t rounds;
    int threads;
    uint64_t sample_size;
    uint64_t *start, *end, *thread_start, *busy, *iters;
    int *pus;
} ompb_test_rounds;

/* A result of inst zeroed but for the rounds r describes: what the
 * reporter suites build on. */
ompb__result ompb_test_result(const ompb__instance *inst, const ompb_test_rounds *r);

/* The whole content of f (written, not yet rewound), NUL-terminated;
 * closes f. The caller frees the text. Fails the running test when it
 * cannot be read. */
char *ompb_test_slurp(FILE *f);

/* Sets sig's action to the plain handler fn (the test's own), the one
 * before in *old (NULL: not kept). Fails the running test when it cannot. */
void ompb_test_set_action(int sig, void (*fn)(int), struct sigaction *old);

/* sig's plain handler now (SIG_DFL, SIG_IGN or a function); NULL for an
 * SA_SIGINFO one, such as the signal owner's dispatcher. */
void (*ompb_test_handler_of(int sig))(int);

#endif
