/* SPDX-License-Identifier: MIT */
/*
 * The signal helpers shared by the body guard, the run and the region
 * report (lib/core/signals.h). Dying of a signal resets it to its default
 * action and unblocks it first, so the process really ends of it (the
 * shell then reports 128 + sig) even from a thread that blocked it; the
 * _exit after raise is only reached if the signal could not end it.
 */
#include "core/signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *ompb__signal_name(int sig)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}, {SIGSEGV, "SIGSEGV"},
        {SIGBUS, "SIGBUS"}, {SIGILL, "SIGILL"}, {SIGFPE, "SIGFPE"}, {SIGABRT, "SIGABRT"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "signal";
}

_Noreturn void ompb__signal_die_of(int sig)
{
    sigset_t set;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    fflush(stdout);
    raise(sig);
    _exit(128 + sig);
}

void ompb__signal_ignore_repeats(int sig)
{
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(sig, &ign, NULL);
}
