/* SPDX-License-Identifier: MIT */
/*
 * The signal watcher (lib/core/sigwatch.c): a signal handed to it reaches its
 * callback on its own thread, whatever the calling thread blocks; stopping
 * it joins the thread and calls nothing more. SIGUSR1 gets a handler of
 * the test's own meanwhile, so that a stray delivery cannot end the test
 * process (the OpenMP pool threads of earlier suites do not block it).
 */
#include "core/sigwatch.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "suite.h"

static atomic_int calls, last_sig;
static pthread_t caller;
static atomic_bool on_other_thread;

static void count(int sig)
{
    atomic_store(&on_other_thread, !pthread_equal(pthread_self(), caller));
    atomic_store(&last_sig, sig);
    atomic_fetch_add(&calls, 1);
}

static void ignore(int sig)
{
    (void)sig;
}

/* Waits (bounded, scaled) until the callback ran n times. */
static bool wait_calls(int n)
{
    struct timespec nap = {0, 1000000};
    for (int i = 0; i < 5000 * ompb_test_timeout_multiplier(); i++) {
        if (atomic_load(&calls) >= n)
            return true;
        nanosleep(&nap, NULL);
    }
    return false;
}

static void test_forward_while_blocked(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ignore;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, &old);
    sigset_t set, before;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    /* The calling thread blocks the signal, as a body may. */
    pthread_sigmask(SIG_BLOCK, &set, &before);
    atomic_store(&calls, 0);
    caller = pthread_self();
    ompb__sigwatch w;
    memset(&w, 0, sizeof w);
    CU_ASSERT_FATAL(ompb__sigwatch_start(&w, &set, count));
    ompb__sigwatch_forward(&w, SIGUSR1);
    CU_ASSERT(wait_calls(1));
    CU_ASSERT_EQUAL(atomic_load(&last_sig), SIGUSR1);
    CU_ASSERT(atomic_load(&on_other_thread));
    /* A second one is taken too: the watcher goes on after its callback. */
    ompb__sigwatch_forward(&w, SIGUSR1);
    CU_ASSERT(wait_calls(2));
    ompb__sigwatch_stop(&w);
    CU_ASSERT_FALSE(w.running);
    /* Stopped: the signal that stopped it was not passed on, and
     * forwarding now does nothing. */
    CU_ASSERT_EQUAL(atomic_load(&calls), 2);
    ompb__sigwatch_forward(&w, SIGUSR1);
    CU_ASSERT_EQUAL(atomic_load(&calls), 2);
    ompb__sigwatch_stop(&w); /* twice: harmless */
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    sigaction(SIGUSR1, &old, NULL);
}

static const ompb_test_case cases[] = {
    {"forward_while_blocked", test_forward_while_blocked},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_sigwatch = {"sigwatch", NULL, NULL, cases};
