/* SPDX-License-Identifier: MIT */
/*
 * The crash signals of code under test (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGABRT): one handler, installed while a run measures, that lets its
 * owner note the crash with async-signal-safe calls (the run appends a line
 * to its journal, lib/run/journal.h) and then lets the signal end the
 * process as it would have without it. The action found at install (the
 * default, or a sanitizer's) is put back first; a fault the hardware raised
 * comes back when its instruction runs again, a sent one (abort, kill) is
 * raised again. So the exit status still names the signal, a core is still
 * dumped where the limits allow one, and a debugger still stops at the
 * faulting instruction (before any handler runs). OMPB_CRASH_HANDLER=0
 * leaves the five signals alone. This module is the only one that
 * registers for them with the signal owner (lib/core/signals.h), which
 * also names them.
 */
#ifndef OMPB_CORE_CRASH_H
#define OMPB_CORE_CRASH_H

#include <stdbool.h>

#include <ompbench/error.h>

/* Called once, on the crashing thread, with the signal: async-signal-safe
 * calls only (write, waitpid, execve, ...). */
typedef void (*ompb__crash_fn)(int sig, void *arg);

/* OMPB_CRASH_HANDLER: unset, empty or "1" on, "0" off. Returns 0 with *on
 * set, or OMPB_EINVAL with err naming the value and the accepted ones. */
int ompb__crash_setting(bool *on, ompb_error *err);

/* Installs the handler for the five signals that are not ignored, with fn
 * to call (replacing an earlier fn). Not a signal handler's call. */
void ompb__crash_install(ompb__crash_fn fn, void *arg);

/* Gives the calling thread an alternate signal stack, for the handler to
 * run on after a stack overflow, while the handler is installed (else
 * nothing): once per thread (later calls return at once), kept until the
 * thread exits, when a destructor unmaps it; a thread that has one already
 * keeps its own. Install calls it for its own thread; every thread that
 * runs bodies calls it before the first. */
void ompb__crash_thread_stack(void);

/* Unregisters: the owner puts back the actions it found (a handler the
 * code under test installed meanwhile ends with the run). */
void ompb__crash_restore(void);

#endif
