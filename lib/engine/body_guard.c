/* SPDX-License-Identifier: MIT */
/*
 * The body guard: what guards the run against hostile benchmark bodies.
 * While the run measures, the guard watches for three ways
 * the code under test can take the run down with it:
 * - exit() on any thread: an exit handler calls the run's stop function,
 *   which says which instance did it and writes what was completed, then
 *   ends the process with status 1 (otherwise the run would end with the
 *   status the code chose, 0 included, and no report);
 * - SIGINT/SIGTERM/SIGHUP: the handler only sets a flag (and posts a
 *   semaphore, async-signal-safe) that the master reads between rounds;
 *   a body that blocks every signal on every thread of its team would keep
 *   the handler from ever running, so a watcher thread (lib/core/sigwatch.h)
 *   takes the signal then and does the same;
 * - a slot that does not end (--timeout), or a master that does not answer
 *   a signal: the guard's own thread (not an OpenMP thread) sleeps until
 *   the next deadline, then stops the run itself, naming the threads still
 *   in the body. A stuck body cannot be ended in-process: stopping means
 *   ending the process.
 * One lock serializes every stop with the master's slot and team changes,
 * so a stop never sees them half made; the first stop wins (armed), any
 * later one blocks until the process ends.
 */
#include "engine/body_guard.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ompbench/run.h>

#include "core/core.h"
#include "engine/state.h"

/* How long the master may take, after a signal, to reach a round's end. */
#define GRACE_NS 1000000000ull
/* Stuck threads named in a message, and the room their numbers take
 * (each at most ", 4095"). */
#define NAMED 32
#define NAMES_MAX (NAMED * 6 + 1)

static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_SIGNALS (sizeof caught_signals / sizeof caught_signals[0])

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool armed;
static ompb__body_guard_stop_fn stop_fn;
static void *stop_arg;
/* Exit handlers registered so far. glibc takes each handler off its list
 * before running it, so a thread that calls exit() while another runs ours
 * finds it gone: one registration per thread that may call exit() at once. */
static int registered;
/* A stop has begun: it ends the process, whatever else happens. */
static atomic_bool stopping;

/* Under the lock: the slot running, since when, and its team. */
static size_t current = SIZE_MAX;
static uint64_t current_since;
static const ompb_state *team_states;
static int team_threads;

/* Signals and the guard's thread. */
static volatile sig_atomic_t caught;
static int ids[N_SIGNALS] = {-1, -1, -1}; /* registrations with the signal owner */
static sem_t wake;
static volatile sig_atomic_t thread_running; /* read by the handler */
static atomic_bool quit;
static pthread_t thread;
static uint64_t timeout;
static ompb__sigwatch watcher;

/* The actions the run found, except for a signal already caught: the run
 * is going to stop of it, and a repeat (see ompb__signal_ignore_repeats)
 * must find no moment at which it would end the process first, so that
 * one goes from our handler straight to ignored (which shadows our
 * registration before it goes). */
static void restore_handlers(void)
{
    for (size_t i = 0; i < N_SIGNALS; i++) {
        if (ids[i] < 0)
            continue;
        if (caught_signals[i] == caught)
            ompb__signal_ignore_repeats(caught);
        ompb__signal_unregister(ids[i]);
        ids[i] = -1;
    }
}

/* The first stop reports, then the process ends; a second one (another
 * thread calling exit() meanwhile) blocks on the lock until it does. A
 * signal's report is written under the signal actions the run found,
 * except for that signal itself, whose repeats are ignored (a different
 * signal then ends it as it would have, temporary files removed). */
static _Noreturn void stop_locked(const char *by, const char *why, int sig)
{
    atomic_store(&stopping, true);
    if (sig) {
        restore_handlers();
        ompb__signal_ignore_repeats(sig);
    }
    if (atomic_exchange(&armed, false) && stop_fn)
        stop_fn(stop_arg, by, why);
    if (sig)
        ompb__signal_die_of(sig);
    fflush(stdout);
    _exit(OMPB_EXIT_FAILED);
}

static _Noreturn void stop(const char *by, const char *why, int sig)
{
    pthread_mutex_lock(&lock);
    stop_locked(by, why, sig);
}

/* exit() ran the handlers: the run did not return from ompb_main. glibc's
 * on_exit tells the status the code passed; elsewhere it is unknown. */
static void on_process_exit_status(int status, void *arg)
{
    (void)arg;
    if (!atomic_load(&armed)) {
        /* Another thread is stopping the run (and holds the lock until it
         * ends the process): this exit() must not go on to end it with
         * the code's status meanwhile. */
        if (atomic_load(&stopping))
            pthread_mutex_lock(&lock);
        return;
    }
    char why[96];
    snprintf(why, sizeof why, "the benchmark called exit(%d) while it was being measured",
             status);
    stop("exit", why, 0);
}

#ifndef __GLIBC__
static void on_process_exit(void)
{
    if (atomic_load(&armed))
        stop("exit", "the benchmark called exit() while it was being measured", 0);
    if (atomic_load(&stopping))
        pthread_mutex_lock(&lock); /* as on_process_exit_status */
}
#endif

/* Async-signal-safe: a flag and sem_post. The first signal counts: a
 * Ctrl-C reaches a --processes child twice (from the terminal, to the
 * whole process group, and passed on by its parent), so a second one
 * cannot mean "now". A master that does not answer is the guard thread's
 * business (GRACE_NS). */
static void on_signal(int sig)
{
    /* Also called on the watcher's thread (the same steps are safe there). */
    if (caught)
        return;
    caught = sig;
    if (thread_running)
        sem_post(&wake);
}

/* The registered handler: every signal of ours is taken. */
static bool on_registered(int sig, const siginfo_t *info, void *arg)
{
    (void)info;
    (void)arg;
    on_signal(sig);
    return true;
}

/* The watcher's callback. A different signal than the one being honoured
 * does what the action now in place says (a different signal ends a
 * stopping run at once, once the run's own actions are back), as it
 * would have on any other thread. */
static void on_watched(int sig)
{
    if (caught && caught != sig)
        ompb__sigwatch_deliver(sig);
    else
        on_signal(sig);
}

/* The signals left to their default or handled by someone else (the
 * output module's temporary-file cleanup): an ignored one stays ignored
 * (nohup). */
static void install_handlers(void)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < N_SIGNALS; i++) {
        if (ompb__signal_app_action(caught_signals[i]) == OMPB__SIGNAL_APP_IGNORED)
            continue;
        ids[i] = ompb__signal_register(caught_signals[i], on_registered, NULL, 0);
        if (ids[i] >= 0)
            sigaddset(&set, caught_signals[i]);
    }
    /* The signals whose handler is ours: taken by the watcher when every
     * other thread blocks them. */
    if (!sigisemptyset(&set) && !ompb__sigwatch_start(&watcher, &set, on_watched))
        fprintf(stderr, "ompbench: warning: the guard's signal thread could not be started: a "
                "body that blocks every signal also keeps Ctrl-C from stopping the run\n");
}

/* "thread 1 of 2 still in the body", "threads 0, 3 of 4 ...", or what
 * the team was doing instead; at most NAMED threads are listed. */
static void stuck_threads(char *buf, size_t cap)
{
    char names[NAMES_MAX] = "";
    size_t len = 0;
    int n = 0;
    for (int t = 0; team_states && t < team_threads; t++) {
        if (!atomic_load(&team_states[t].in_body))
            continue;
        if (n++ < NAMED)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%d", n > 1 ? ", " : "", t);
    }
    if (n == 0) {
        snprintf(buf, cap, "no team thread is in the body (stuck in a setup, a teardown or "
                 "the OpenMP runtime)");
        return;
    }
    char more[48] = "";
    if (n > NAMED)
        snprintf(more, sizeof more, " and %d more", n - NAMED);
    snprintf(buf, cap, "thread%s %s%s of %d still in the body", n > 1 ? "s" : "", names, more,
             team_threads);
}

static void format_ns(uint64_t ns, char *buf, size_t cap)
{
    if (ns % 1000000000ull == 0)
        snprintf(buf, cap, "%llus", (unsigned long long)(ns / 1000000000ull));
    else if (ns % 1000000ull == 0)
        snprintf(buf, cap, "%llums", (unsigned long long)(ns / 1000000ull));
    else
        snprintf(buf, cap, "%lluns", (unsigned long long)ns);
}

/* Under the lock: stops the run when a deadline passed (and then does
 * not return). */
static void check_deadlines(uint64_t now, uint64_t caught_at)
{
    char who[NAMES_MAX + 64], why[NAMES_MAX + 320], d[32];
    if (caught && caught_at && now - caught_at >= GRACE_NS && atomic_load(&armed)) {
        int sig = caught;
        stuck_threads(who, sizeof who);
        snprintf(why, sizeof why, "interrupted by %s, and the round did not end within 1s "
                 "(%s)", ompb__signal_name(sig), who);
        stop_locked(ompb__signal_name(sig), why, sig);
    }
    if (timeout && current != SIZE_MAX && now - current_since >= timeout && atomic_load(&armed)) {
        stuck_threads(who, sizeof who);
        format_ns(timeout, d, sizeof d);
        snprintf(why, sizeof why, "--timeout %s expired (%s); a stuck body cannot be stopped "
                 "in-process, so the run ends here", d, who);
        stop_locked("timeout", why, 0);
    }
}

/* The next deadline after now: the grace of a signal, the slot's timeout. */
static uint64_t next_deadline(uint64_t caught_at)
{
    uint64_t next = UINT64_MAX;
    if (caught && caught_at)
        next = caught_at + GRACE_NS;
    if (timeout && current != SIZE_MAX && current_since + timeout < next)
        next = current_since + timeout;
    return next;
}

static void *guard_thread(void *arg)
{
    (void)arg;
    /* Signals are for the run's threads; this one only waits. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    uint64_t caught_at = 0;
    while (!atomic_load(&quit)) {
        pthread_mutex_lock(&lock);
        uint64_t until = next_deadline(caught_at);
        pthread_mutex_unlock(&lock);
        if (until == UINT64_MAX) {
            while (sem_wait(&wake) != 0 && errno == EINTR)
                ;
        } else {
            struct timespec ts = {(time_t)(until / 1000000000ull), (long)(until % 1000000000ull)};
            while (sem_clockwait(&wake, CLOCK_MONOTONIC, &ts) != 0 && errno == EINTR)
                ;
        }
        if (atomic_load(&quit))
            break;
        /* The time is read under the lock, so that no slot can have begun
         * after it (its start would lie in this reading's future). */
        pthread_mutex_lock(&lock);
        uint64_t now = ompb__now_ns();
        if (caught && !caught_at)
            caught_at = now;
        check_deadlines(now, caught_at);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

void ompb__body_guard_run_begin(ompb__body_guard_stop_fn fn, void *arg, bool signals,
                                uint64_t timeout_ns, int max_threads)
{
    pthread_mutex_lock(&lock);
    stop_fn = fn;
    stop_arg = arg;
    current = SIZE_MAX;
    caught = 0;
    timeout = timeout_ns;
    /* Exit handlers cannot be removed: registered once each, they check
     * armed. One for each thread of the widest team, and the guard's. */
    for (; registered < max_threads + 1; registered++) {
#ifdef __GLIBC__
        if (on_exit(on_process_exit_status, NULL) != 0)
            break;
#else
        (void)on_process_exit_status;
        if (atexit(on_process_exit) != 0)
            break;
#endif
    }
    atomic_store(&armed, true);
    atomic_store(&quit, false);
    bool have_sem = (signals || timeout_ns) && sem_init(&wake, 0, 0) == 0;
    thread_running = have_sem && pthread_create(&thread, NULL, guard_thread, NULL) == 0;
    if (thread_running)
        (void)pthread_setname_np(thread, "ompb-guard"); /* for ps, gdb, perf */
    if (have_sem && !thread_running)
        sem_destroy(&wake);
    if (!thread_running && (signals || timeout_ns))
        fprintf(stderr, "ompbench: warning: the guard's thread could not be started: no "
                "--timeout, and a stuck body ignores Ctrl-C\n");
    if (signals)
        install_handlers();
    pthread_mutex_unlock(&lock);
}

int ompb__body_guard_handler_replaced(void)
{
    static bool told[N_SIGNALS];
    for (size_t i = 0; i < N_SIGNALS; i++) {
        if (ids[i] < 0 || told[i] || ompb__signal_live(ids[i]))
            continue;
        told[i] = true;
        return caught_signals[i];
    }
    return 0;
}

int ompb__body_guard_signal(void)
{
    return caught;
}

int ompb__body_guard_claim(void)
{
    pthread_mutex_lock(&lock);
    atomic_store(&armed, false);
    int sig = caught;
    pthread_mutex_unlock(&lock);
    return sig;
}

void ompb__body_guard_run_end(void)
{
    /* Before the handlers go: once they are the run's again, a signal the
     * watcher took would be lost. */
    ompb__sigwatch_stop(&watcher);
    pthread_mutex_lock(&lock);
    atomic_store(&armed, false);
    restore_handlers();
    current = SIZE_MAX;
    atomic_store(&quit, true);
    bool joined = thread_running;
    thread_running = false;
    pthread_mutex_unlock(&lock);
    if (joined) {
        sem_post(&wake);
        pthread_join(thread, NULL);
        sem_destroy(&wake);
    }
}

void ompb__body_guard_slot_begin(size_t slot)
{
    pthread_mutex_lock(&lock);
    current = slot;
    current_since = ompb__now_ns();
    pthread_mutex_unlock(&lock);
    /* The guard's thread sleeps until the next deadline: this is one. */
    if (thread_running && timeout)
        sem_post(&wake);
}

void ompb__body_guard_slot_end(void)
{
    pthread_mutex_lock(&lock);
    current = SIZE_MAX;
}

void ompb__body_guard_slot_done(void)
{
    pthread_mutex_unlock(&lock);
}

size_t ompb__body_guard_slot(void)
{
    return current;
}

void ompb__body_guard_team(const ompb_state *states, int threads)
{
    pthread_mutex_lock(&lock);
    team_states = states;
    team_threads = threads;
    pthread_mutex_unlock(&lock);
}
