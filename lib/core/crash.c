/* SPDX-License-Identifier: MIT */
/*
 * The crash handler (lib/core/crash.h). The first crashing thread calls
 * the owner's function; a second one that crashes meanwhile waits for the
 * first to end the process. The handler runs with every signal blocked, so
 * the signal raised again stays pending until it returns, and then meets
 * the action put back (the default: the process dies of it, with a core).
 */
#include "core/crash.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/utf8.h"

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define N_CRASH (sizeof crash_signals / sizeof crash_signals[0])

static struct sigaction found[N_CRASH];
static bool installed[N_CRASH];
static ompb__crash_fn crash_fn;
static void *crash_arg;
static atomic_flag taken = ATOMIC_FLAG_INIT;

static void put_back(void)
{
    for (size_t i = 0; i < N_CRASH; i++)
        if (installed[i])
            sigaction(crash_signals[i], &found[i], NULL);
}

static void on_crash(int sig, siginfo_t *info, void *uc)
{
    (void)uc;
    if (atomic_flag_test_and_set(&taken)) {
        for (;;)
            pause(); /* the first crash ends the process */
    }
    if (crash_fn)
        crash_fn(sig, crash_arg);
    put_back();
    /* si_code > 0: the hardware's fault, which its instruction raises again
     * on return; otherwise abort(), raise() or kill(): raise it again. */
    if (info->si_code <= 0)
        raise(sig);
}

int ompb__crash_setting(bool *on, ompb_error *err)
{
    const char *v = getenv("OMPB_CRASH_HANDLER");
    *on = true;
    if (!v || !*v || strcmp(v, "1") == 0)
        return 0;
    if (strcmp(v, "0") == 0) {
        *on = false;
        return 0;
    }
    char text[64];
    ompb__utf8_escape(v, text, sizeof text);
    return ompb__error_set(err, OMPB_EINVAL, "OMPB_CRASH_HANDLER: invalid value '%s' "
                           "(accepted: 0 to leave crash signals alone, 1 or unset to report "
                           "a crash)", text);
}

void ompb__crash_install(ompb__crash_fn fn, void *arg)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    crash_fn = fn;
    crash_arg = arg;
    for (size_t i = 0; i < N_CRASH; i++) {
        if (installed[i])
            continue;
        installed[i] = sigaction(crash_signals[i], NULL, &found[i]) == 0 &&
                       ((found[i].sa_flags & SA_SIGINFO) || found[i].sa_handler != SIG_IGN) &&
                       sigaction(crash_signals[i], &sa, NULL) == 0;
    }
}

void ompb__crash_restore(void)
{
    for (size_t i = 0; i < N_CRASH; i++) {
        struct sigaction now;
        if (installed[i] && sigaction(crash_signals[i], NULL, &now) == 0 &&
            (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_crash)
            sigaction(crash_signals[i], &found[i], NULL);
        installed[i] = false;
    }
    crash_fn = NULL;
    crash_arg = NULL;
}
