/* SPDX-License-Identifier: MIT */
/*
 * The body guard (lib/engine/body_guard.c; not the fork guard, which counts a
 * body's parallel regions): what the run does when the code under test
 * ends the process with exit(), when the user interrupts it (SIGINT,
 * SIGTERM, SIGHUP) and when a body does not come back (--timeout). The
 * guard detects and calls back; the caller (lib/run/run.c) decides what to
 * report.
 */
#ifndef OMPB_BODY_GUARD_H
#define OMPB_BODY_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ompb_state;

/* Called once, on the thread that stopped the run, with what stopped it
 * (`by`, static text: "exit", "timeout" or a signal's name such as
 * "SIGINT") and why in words, naming the stuck threads when some are
 * ("the benchmark called exit(0) while it was being measured"). It may
 * write files and print. When it returns the process ends: with status 1
 * (OMPB_EXIT_FAILED) after exit() or a timeout, of the signal otherwise. */
typedef void (*ompb__body_guard_stop_fn)(void *arg, const char *by, const char *why);

/* Master, while the run measures in this process, from begin to end:
 * - an exit() from any thread calls stop instead of ending the run as if
 *   it had succeeded;
 * - with `signals`, SIGINT, SIGTERM and SIGHUP (those not ignored) only
 *   set a flag that the master reads between rounds (ompb__body_guard_signal);
 *   a master that has not claimed the stop (ompb__body_guard_claim) within a
 *   grace second is taken to be stuck: stop is called from the guard's
 *   thread;
 * - timeout_ns > 0: a slot that runs longer calls stop ("timeout").
 * max_threads: the widest team the run will use (as many threads may call
 * exit() at once). end restores the signal actions that begin found. */
void ompb__body_guard_run_begin(ompb__body_guard_stop_fn stop, void *arg, bool signals,
                                uint64_t timeout_ns, int max_threads);
void ompb__body_guard_run_end(void);

/* The master, after a slot: a signal whose handler is no longer the
 * guard's (a body installed its own: that signal is then the body's until
 * the run ends, when the action the run found is restored), each signal
 * told once per process; 0 none. */
int ompb__body_guard_handler_replaced(void);

/* The signal caught since run_begin, 0 none. Cheap: one volatile read. */
int ompb__body_guard_signal(void);

/* Master, after its last slot: takes the stop over from the guard's thread
 * and the exit handler, and returns the signal caught (0 none). Does not
 * return if the guard's thread is already stopping the run. */
int ompb__body_guard_claim(void);

/* The master, around each slot of the schedule: which one runs (the
 * timeout counts from begin). The stop function reads it with
 * ompb__body_guard_slot(); SIZE_MAX: none. slot_end holds every stop off
 * (it keeps the guard's lock) until slot_done: the master records the
 * slot's result in between, and a stop must not read it half written. */
void ompb__body_guard_slot_begin(size_t slot);
void ompb__body_guard_slot_end(void);
void ompb__body_guard_slot_done(void);
size_t ompb__body_guard_slot(void);

/* The engine, while a team runs: its states (thread t is in the body while
 * states[t].in_body is set), read by the guard's thread to name the
 * threads that are stuck. NULL, 0 when the team is done. */
void ompb__body_guard_team(const struct ompb_state *states, int threads);

#endif
