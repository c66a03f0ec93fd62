/* SPDX-License-Identifier: MIT */
/*
 * Hostile bodies. While the run measures, an exit handler is armed: code
 * under test that calls exit() (on any thread) would otherwise end the run
 * with the status it chose, 0 included, and no report. The handler calls
 * the run's stop function, which says which instance did it and writes what
 * was completed, then ends the process with status 1. One lock serializes
 * the stop with the master's slot changes, so the stop function never sees
 * a slot half begun or half ended; the first stop wins, any later one waits
 * for the process to end.
 */
#include "guard.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ompbench/run.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool armed;
static ompb__guard_stop_fn stop_fn;
static void *stop_arg;
static size_t current = SIZE_MAX;
static bool registered;

/* The first stop reports, then the process ends; a second one (another
 * thread calling exit() meanwhile) blocks on the lock until it does. */
static _Noreturn void stop(const char *by, const char *why)
{
    pthread_mutex_lock(&lock);
    if (atomic_exchange(&armed, false) && stop_fn)
        stop_fn(stop_arg, by, why);
    fflush(stdout);
    _exit(OMPB_EXIT_FAILED);
}

/* exit() ran the handlers: the run did not return from ompb_main. glibc's
 * on_exit tells the status the code passed; elsewhere it is unknown. */
static void on_process_exit_status(int status, void *arg)
{
    (void)arg;
    if (!atomic_load(&armed))
        return;
    char why[96];
    snprintf(why, sizeof why, "the benchmark called exit(%d) while it was being measured",
             status);
    stop("exit", why);
}

#ifndef __GLIBC__
static void on_process_exit(void)
{
    if (atomic_load(&armed))
        stop("exit", "the benchmark called exit() while it was being measured");
}
#endif

void ompb__guard_run_begin(ompb__guard_stop_fn fn, void *arg)
{
    pthread_mutex_lock(&lock);
    stop_fn = fn;
    stop_arg = arg;
    current = SIZE_MAX;
    /* Exit handlers cannot be removed: registered once, they check armed. */
    if (!registered) {
#ifdef __GLIBC__
        registered = on_exit(on_process_exit_status, NULL) == 0;
#else
        (void)on_process_exit_status;
        registered = atexit(on_process_exit) == 0;
#endif
    }
    atomic_store(&armed, registered);
    pthread_mutex_unlock(&lock);
}

void ompb__guard_run_end(void)
{
    pthread_mutex_lock(&lock);
    atomic_store(&armed, false);
    current = SIZE_MAX;
    pthread_mutex_unlock(&lock);
}

void ompb__guard_slot_begin(size_t slot)
{
    pthread_mutex_lock(&lock);
    current = slot;
    pthread_mutex_unlock(&lock);
}

void ompb__guard_slot_end(void)
{
    pthread_mutex_lock(&lock);
    current = SIZE_MAX;
    pthread_mutex_unlock(&lock);
}

size_t ompb__guard_slot(void)
{
    return current;
}
