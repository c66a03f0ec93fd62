/* SPDX-License-Identifier: MIT */
/*
 * The owner of the process's signal actions (lib/core/signals.c): the only
 * module of lib/ and tools/ that calls sigaction(2) (checked by
 * boundary.signal_owner). Every other part registers a handler with it:
 * the output files' clean-up, the crash journal, the body guard, the
 * regions' report, the --processes parent and its dumps, the collector
 * and `ab`. The owner installs one dispatcher per signal and calls the
 * registered handlers in order; what no handler takes goes to the action
 * the owner found (the application's, a sanitizer's or the default), as
 * libuv's src/unix/signal.c owns its signals for every uv_signal_t.
 *
 * The protocol, in full (docs/architecture.md, "Signals"):
 * - Order: registrations without OMPB__SIGNAL_LAST first, the newest
 *   first; then those with it, the newest first; then the action found.
 *   A handler returns true when it took the signal (the chain ends there)
 *   and false to pass it on.
 * - The action found: read when the dispatcher is installed (the first
 *   registration of a signal, or the first after someone else replaced
 *   the dispatcher). An ignored one swallows what is passed to it; a
 *   default one that ends the process is put back and ends it (a fault by
 *   its instruction running again, a sent signal raised again); a
 *   handler is called as the kernel would have called it.
 * - Someone else's sigaction (a body, the application): its action stands
 *   until the library's next change of that signal (ompb__signal_live
 *   turns false meanwhile). The next registration adopts it as the action
 *   found and shadows the registrations made before (they are never
 *   called again; unregistering them is still required and harmless). The
 *   next unregistration of a live registration ends it: the dispatcher
 *   comes back, or with no live registration left the action found.
 * - Flags of the dispatcher: SA_SIGINFO, and the union of the live
 *   registrations' OMPB__SIGNAL_RESTART, _ONSTACK, _NOCLDSTOP and
 *   _MASK_ALL, rewritten at each registration and unregistration.
 * - fork: a registration belongs to the process that made it. In a fork
 *   child it is skipped (the child's signal goes to the action found)
 *   until the child registers its own; exec resets everything anyway.
 * - Re-registration: registering the same fn for the same signal again
 *   makes a second registration (called too, unregistered on its own);
 *   each part keeps its ids and unregisters each once.
 * - Threads: registration, unregistration and the queries take one lock
 *   and may run on any thread at once, never in a signal handler. The
 *   dispatcher takes no lock: it reads the registrations through atomics.
 *   A handler may still be running on another thread when unregister
 *   returns (a signal taken just before), as with sigaction itself.
 * Handlers run in signal context: async-signal-safe calls only.
 */
#ifndef OMPB_CORE_SIGNALS_H
#define OMPB_CORE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* A registered handler: true when it took sig, false to pass it on. info
 * is the kernel's (never NULL). Async-signal-safe calls only. */
typedef bool (*ompb__signal_fn)(int sig, const siginfo_t *info, void *arg);

enum {
    OMPB__SIGNAL_RESTART = 1u << 0,   /* SA_RESTART: interrupted calls go on */
    OMPB__SIGNAL_ONSTACK = 1u << 1,   /* SA_ONSTACK: on the thread's sigaltstack */
    OMPB__SIGNAL_MASK_ALL = 1u << 2,  /* every signal blocked while handlers run */
    OMPB__SIGNAL_NOCLDSTOP = 1u << 3, /* SA_NOCLDSTOP (SIGCHLD) */
    /* SA_RESETHAND for crash signals: when this handler passes, the action
     * found is put back for good and the signal is delivered to it (a
     * fault by its instruction running again, a sent one raised again), so
     * that a core, a debugger or a sanitizer sees it as without us. */
    OMPB__SIGNAL_RESETHAND = 1u << 4,
    /* After every registration without it: a last step before the action
     * found (the output files' clean-up). */
    OMPB__SIGNAL_LAST = 1u << 5,
};

/* Registers fn for sig (not SIGKILL, SIGSTOP) and installs the
 * dispatcher. Returns an id >= 0 for ompb__signal_unregister, or -1 with
 * errno set (EINVAL, ENOSPC: all registrations in use, or sigaction's). */
int ompb__signal_register(int sig, ompb__signal_fn fn, void *arg, unsigned flags);

/* Removes a registration (id from register; -1 is ignored). */
void ompb__signal_unregister(int id);

/* Async-signal-safe: the registration would be called for its signal
 * now (the dispatcher is installed and the registration not shadowed). */
bool ompb__signal_live(int id);

/* The action under the library's registrations: the one found when the
 * dispatcher is installed, the one installed otherwise. */
typedef enum {
    OMPB__SIGNAL_APP_DEFAULT,
    OMPB__SIGNAL_APP_IGNORED,
    OMPB__SIGNAL_APP_HANDLED,
} ompb__signal_app;
ompb__signal_app ompb__signal_app_action(int sig);

/* Async-signal-safe: gives sig back to the action found, for good, when
 * the dispatcher is its action (otherwise nothing: the action is someone
 * else's). The crash handler, for the crash signals other than the one it
 * handles. */
void ompb__signal_put_back(int sig);

/* Async-signal-safe: sig's action becomes its default, with no lock (a
 * fork child before exec). */
void ompb__signal_default(int sig);

/* "SIGINT", "SIGTERM", "SIGHUP", and the crash signals of lib/core/crash.h
 * ("SIGSEGV", ...); "signal" for any other. Async-signal-safe. */
const char *ompb__signal_name(int sig);

/* While the report of a run stopped by sig is written: further deliveries
 * of sig are ignored, for the rest of the process (every registration of
 * sig is shadowed). They repeat the request being honoured: timeout(1)
 * sends its signal to the child and again to its process group, a
 * terminal's Ctrl-C reaches a --processes child and its parent, which
 * passes it on. Any other signal still ends the process. */
void ompb__signal_ignore_repeats(int sig);

/* Ends the process of sig, with its default action (the shell reports
 * 128 + sig). */
_Noreturn void ompb__signal_die_of(int sig);

#endif
