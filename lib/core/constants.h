/* SPDX-License-Identifier: MIT */
/*
 * Limits and versions that more than one module must agree on, defined
 * once: the CLI validates against them, the registry and the engine rely on
 * them, the reporters write them and the result-file reader checks them.
 */
#ifndef OMPB_CONSTANTS_H
#define OMPB_CONSTANTS_H

#include <stdint.h>

/* A macro's value as a string literal, for messages. */
#define OMPB__STR(x) OMPB__STR_(x)
#define OMPB__STR_(x) #x

/* Largest team: thread lists, OMPB_THREADS and OMP_NUM_THREADS are checked
 * against it, and the engine caches per-width costs up to it. */
#define OMPB__MAX_THREADS 4096
/* Largest --sample-count: rounds are recorded in arrays sized up front. */
#define OMPB__MAX_SAMPLE_COUNT 1000000
/* Largest sample size (iterations per round per thread): a calibration that
 * reaches it means the round time does not grow with the sample size. */
#define OMPB__MAX_SAMPLE_SIZE (UINT64_C(1) << 40)
/* Largest --repetitions: repetitions are recorded in arrays sized up front,
 * and --processes may not exceed it either. */
#define OMPB__MAX_REPETITIONS 1000
/* The hooks' wait for each runner reply: the variable, its default and
 * its largest value, in milliseconds (the CLI and the transport check it). */
#define OMPB__HOOKS_TIMEOUT_ENV "OMPB_HOOKS_TIMEOUT_MS"
#define OMPB__HOOKS_TIMEOUT_DEFAULT_MS 1000
#define OMPB__HOOKS_TIMEOUT_MAX_MS 1073741823
/* The most a process waits for the runner in all (every request and flush
 * together): the variable and its default; its largest value is
 * OMPB__HOOKS_TIMEOUT_MAX_MS. Past it the hooks turn themselves off. */
#define OMPB__HOOKS_BUDGET_ENV "OMPB_HOOKS_BUDGET_MS"
#define OMPB__HOOKS_BUDGET_DEFAULT_MS 10000
/* The "json_schema_version" our JSON results carry and the reader accepts. */
#define OMPB__JSON_SCHEMA_VERSION 1

#endif
