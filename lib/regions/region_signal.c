/* SPDX-License-Identifier: MIT */
/*
 * Region programs stopped by SIGINT, SIGTERM or SIGHUP: the report of the
 * completed instances is written, marked partial, and the process then
 * dies of the signal, as a benchmark binary does. At the first use of
 * regions (in an application, not a benchmark binary, where the run's
 * guard has the signals) a handler is registered with the signal owner
 * (lib/core/signals.h) for each of them still at its default action; it
 * only forwards the signal to a watcher thread
 * (lib/core/sigwatch.h), which also takes it directly when every thread blocks
 * it. The report is written on that thread, in the normal flow: nothing but
 * a flag and pthread_kill happens in the handler. A signal the application
 * ignores or handles itself (installed before or after) stays its own.
 */
#include "regions/region_signal.h"

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "core/core.h"
#include "model/model.h"

static const int watched[] = {SIGINT, SIGTERM, SIGHUP};
#define N_WATCHED (sizeof watched / sizeof watched[0])

static volatile sig_atomic_t caught;
static ompb__sigwatch watcher;
static pid_t watcher_pid;

/* Async-signal-safe: the first signal goes to the watcher; repeats (a
 * Ctrl-C reaching the process twice) add nothing. A fork child has no
 * watcher (and reports no regions): the owner does not call a parent's
 * registration there, and the signal does what it would have. */
static bool on_signal(int sig, const siginfo_t *info, void *arg)
{
    (void)info;
    (void)arg;
    if (caught)
        return true;
    caught = sig;
    ompb__sigwatch_forward(&watcher, sig);
    return true;
}

/* The watcher's thread: report, then die of sig (lib/regions/region_report.c). */
static void on_watched(int sig)
{
    caught = sig;
    ompb__regions_stop_on_signal(sig);
}

void ompb__regions_signals_init(void)
{
    if (ompb__registry_count() > 0)
        return; /* a benchmark binary: the run's guard has the signals */
    sigset_t set;
    sigemptyset(&set);
    /* The output module's removal of temporary files is registered after
     * ours (OMPB__SIGNAL_LAST), so it does not count: the report is written
     * under the regions' lock, which the watcher takes before it writes,
     * so no temporary file is open when it dies. */
    for (size_t i = 0; i < N_WATCHED; i++)
        if (ompb__signal_app_action(watched[i]) == OMPB__SIGNAL_APP_DEFAULT)
            sigaddset(&set, watched[i]);
    watcher_pid = getpid();
    if (sigisemptyset(&set) || !ompb__sigwatch_start(&watcher, &set, on_watched))
        return;
    for (size_t i = 0; i < N_WATCHED; i++)
        if (sigismember(&set, watched[i]) == 1)
            (void)ompb__signal_register(watched[i], on_signal, NULL, 0);
}

void ompb__regions_at_exit(void)
{
    int sig = caught;
    if (sig && getpid() == watcher_pid)
        ompb__regions_stop_on_signal(sig);
    ompb__regions_exit_report();
    /* Taken during the report: the watcher found it being written and
     * waits; the process still dies of the signal, not with main's status. */
    sig = caught;
    if (sig && getpid() == watcher_pid)
        ompb__signal_die_of(sig);
}
