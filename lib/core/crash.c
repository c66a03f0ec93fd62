/* SPDX-License-Identifier: MIT */
/*
 * The crash handler (lib/core/crash.h). The first crashing thread calls
 * the owner's function; a second one that crashes meanwhile waits for the
 * first to end the process. It is registered with the signal owner
 * (lib/core/signals.h) with every signal blocked and SA_RESETHAND's
 * semantics: the signal raised again stays pending until the dispatcher
 * returns, and then meets the action put back (the default: the process
 * dies of it, with a core).
 */
#include "core/crash.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/signals.h"
#include "core/utf8.h"

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define N_CRASH (sizeof crash_signals / sizeof crash_signals[0])

static int ids[N_CRASH] = {-1, -1, -1, -1, -1};
static ompb__crash_fn crash_fn;
static void *crash_arg;
static atomic_flag taken = ATOMIC_FLAG_INIT;

/* Passed on with OMPB__SIGNAL_RESETHAND: the owner puts this signal's
 * action found back and delivers it there; the other four go back too, so
 * that a second crash meanwhile (of the action found, a sanitizer's
 * report) does not come here. */
static bool on_crash(int sig, const siginfo_t *info, void *arg)
{
    (void)info;
    (void)arg;
    if (atomic_flag_test_and_set(&taken)) {
        for (;;)
            pause(); /* the first crash ends the process */
    }
    if (crash_fn)
        crash_fn(sig, crash_arg);
    for (size_t i = 0; i < N_CRASH; i++)
        ompb__signal_put_back(crash_signals[i]);
    return false;
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
    crash_fn = fn;
    crash_arg = arg;
    for (size_t i = 0; i < N_CRASH; i++)
        if (ids[i] < 0 && ompb__signal_app_action(crash_signals[i]) != OMPB__SIGNAL_APP_IGNORED)
            ids[i] = ompb__signal_register(crash_signals[i], on_crash, NULL,
                                           OMPB__SIGNAL_MASK_ALL | OMPB__SIGNAL_RESETHAND);
}

void ompb__crash_restore(void)
{
    for (size_t i = 0; i < N_CRASH; i++) {
        ompb__signal_unregister(ids[i]);
        ids[i] = -1;
    }
    crash_fn = NULL;
    crash_arg = NULL;
}
