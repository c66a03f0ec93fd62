/* SPDX-License-Identifier: MIT */
/*
 * The signal watcher (lib/core/sigwatch.h). Stopping it sends it one of its own
 * signals with pthread_kill: a thread-directed signal that it blocks stays
 * pending for it alone, so its sigwaitinfo returns, sees quit and ends.
 */
#include "core/sigwatch.h"

#include <errno.h>

static void *watch(void *arg)
{
    ompb__sigwatch *w = arg;
    /* The watcher runs no handler: it takes its signals synchronously,
     * and any other signal is for the process's other threads. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    sem_post(&w->ready);
    while (!atomic_load(&w->quit)) {
        int sig = sigwaitinfo(&w->set, NULL);
        if (sig < 0 || atomic_load(&w->quit))
            continue;
        w->fn(sig);
    }
    return NULL;
}

bool ompb__sigwatch_start(ompb__sigwatch *w, const sigset_t *set, ompb__sigwatch_fn fn)
{
    w->set = *set;
    w->fn = fn;
    atomic_store(&w->quit, false);
    /* Blocked from the start: a signal sent before the new thread's first
     * sigwaitinfo waits for it instead of running a handler there. */
    sigset_t all, old;
    sigfillset(&all);
    if (sem_init(&w->ready, 0, 0) != 0)
        return w->running = false;
    pthread_sigmask(SIG_BLOCK, &all, &old);
    w->running = pthread_create(&w->thread, NULL, watch, w) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (w->running) {
        (void)pthread_setname_np(w->thread, "ompb-signals"); /* for ps, gdb, perf */
        while (sem_wait(&w->ready) != 0 && errno == EINTR)
            ;
    }
    sem_destroy(&w->ready);
    return w->running;
}

void ompb__sigwatch_stop(ompb__sigwatch *w)
{
    if (!w->running)
        return;
    atomic_store(&w->quit, true);
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&w->set, sig) == 1) {
            pthread_kill(w->thread, sig);
            break;
        }
    pthread_join(w->thread, NULL);
    w->running = false;
}

void ompb__sigwatch_deliver(int sig)
{
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig); /* delivered before raise returns */
    pthread_sigmask(SIG_BLOCK, &one, NULL);
}

void ompb__sigwatch_forward(const ompb__sigwatch *w, int sig)
{
    if (w->running)
        pthread_kill(w->thread, sig);
}
