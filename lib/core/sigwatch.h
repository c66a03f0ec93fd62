/* SPDX-License-Identifier: MIT */
/*
 * A thread that waits for signals (sigwaitinfo), so that a signal reaches
 * the library whatever the other threads of the process block. A body, or
 * an application's threads, may block every signal (pthread_sigmask): a
 * handler then never runs, and a SIGINT would stay pending until the
 * process ends. The watcher blocks the signals it waits for, so the kernel
 * hands it a process-directed one only when no other thread would take it
 * (an unblocked thread still runs the handler, which the module that owns
 * it installs as before). Used by the guard (lib/engine/body_guard.c) and by the
 * region report (lib/regions/region_signal.c).
 */
#ifndef OMPB_SIGWATCH_H
#define OMPB_SIGWATCH_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Called on the watcher's thread for each signal it takes. */
typedef void (*ompb__sigwatch_fn)(int sig);

typedef struct ompb__sigwatch {
    pthread_t thread;
    sigset_t set;
    ompb__sigwatch_fn fn;
    atomic_bool quit;
    bool running;
    sem_t ready;                /* posted by the thread once it runs */
} ompb__sigwatch;

/* Starts a watcher for the signals in set (not empty) and returns once its
 * thread runs (its start-up done: a fork right after must not copy a
 * runtime lock, such as a sanitizer allocator's, that the new thread held
 * then, which the child would wait for at exit); returns false when no
 * thread could be started (the caller's handlers still work for threads
 * that do not block the signals). */
bool ompb__sigwatch_start(ompb__sigwatch *w, const sigset_t *set, ompb__sigwatch_fn fn);

/* Stops and joins the watcher (not from fn). A signal the watcher takes
 * meanwhile is not passed to fn. */
void ompb__sigwatch_stop(ompb__sigwatch *w);

/* On the watcher's thread (in fn): sig does what the process's action for
 * it now says, as if another thread had taken it (the watcher unblocks it
 * for the moment and raises it; a default action ends the process). For a
 * signal that the owner no longer means to take. */
void ompb__sigwatch_deliver(int sig);

/* Async-signal-safe: hands sig to the watcher (a handler that runs on
 * another thread forwards with it, when the watcher must act). */
void ompb__sigwatch_forward(const ompb__sigwatch *w, int sig);

#endif
