/* SPDX-License-Identifier: MIT */
/*
 * Hostile bodies (lib/guard.c): what the run does when the code under test
 * ends the process with exit() while it is being measured. The guard only
 * detects and calls back; the caller (lib/run.c) decides what to report.
 */
#ifndef OMPB_GUARD_H
#define OMPB_GUARD_H

#include <stddef.h>

/* Called once, on the thread that stopped the run, with what stopped it
 * (`by`: "exit", static) and why in words ("the benchmark called
 * exit(0) while it was being measured"). It may write files and print;
 * when it returns the process ends with exit status 1 (OMPB_EXIT_FAILED). */
typedef void (*ompb__guard_stop_fn)(void *arg, const char *by, const char *why);

/* From now until ompb__guard_run_end: an exit() (from any thread) calls
 * stop(arg, why) instead of ending the run as if it had succeeded. */
void ompb__guard_run_begin(ompb__guard_stop_fn stop, void *arg);
void ompb__guard_run_end(void);

/* The master, around each measured slot of the schedule: which one runs.
 * The stop function reads it with ompb__guard_slot(); SIZE_MAX: none. */
void ompb__guard_slot_begin(size_t slot);
void ompb__guard_slot_end(void);
size_t ompb__guard_slot(void);

#endif
