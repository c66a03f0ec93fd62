/* SPDX-License-Identifier: MIT */
/*
 * The signal owner (lib/core/signals.h). Registrations live in fixed slots
 * that the dispatcher reads without a lock: a slot's fields are written
 * while its sequence number is 0 and published by storing a new one, which
 * is unique for the process's life, so a dispatcher that reads the same
 * number before and after the fields has read one registration whole. The
 * action found is kept twice and switched with an index, so that a
 * dispatcher never reads one half written. A signal's generation counts
 * the times its registrations were shadowed (the action was replaced by
 * someone else, or ignored for good).
 */
#include "core/signals.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Registrations at once, over all signals (the library holds at most
 * about a dozen). */
#define MAX_REGS 32

typedef struct reg {
    atomic_ulong seq; /* 0: free */
    atomic_int sig;
    _Atomic(ompb__signal_fn) fn;
    _Atomic(void *) arg;
    atomic_uint flags;
    atomic_int pid;   /* the process that registered */
    atomic_uint gen;  /* the signal's generation then */
} reg;

typedef struct sigstate {
    struct sigaction found[2];
    atomic_int cur;   /* which found is current */
    atomic_uint gen;
} sigstate;

static reg regs[MAX_REGS];
static sigstate states[NSIG];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long last_seq; /* under the lock */

/* What a dispatcher reads of one slot. */
typedef struct view {
    unsigned long seq;
    ompb__signal_fn fn;
    void *arg;
    unsigned flags;
} view;

static void dispatch(int sig, siginfo_t *info, void *uc);

static bool is_dispatcher(const struct sigaction *a)
{
    return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == dispatch;
}

static bool dispatcher_current(int sig)
{
    struct sigaction now;
    return sigaction(sig, NULL, &now) == 0 && is_dispatcher(&now);
}

static const struct sigaction *found(int sig)
{
    return &states[sig].found[atomic_load(&states[sig].cur)];
}

/* Under the lock. */
static void set_found(int sig, const struct sigaction *a)
{
    int next = 1 - atomic_load(&states[sig].cur);
    states[sig].found[next] = *a;
    atomic_store(&states[sig].cur, next);
}

/* Reads slot i as one registration for sig of the current generation made
 * by this process; false when it is none. Async-signal-safe. */
static bool read_slot(int i, int sig, unsigned gen, int pid, view *v)
{
    reg *r = &regs[i];
    v->seq = atomic_load(&r->seq);
    if (v->seq == 0 || atomic_load(&r->sig) != sig || atomic_load(&r->gen) != gen ||
        (pid && atomic_load(&r->pid) != pid))
        return false;
    v->fn = atomic_load(&r->fn);
    v->arg = atomic_load(&r->arg);
    v->flags = atomic_load(&r->flags);
    return atomic_load(&r->seq) == v->seq;
}

/* The registration of the class (last or not) with the greatest sequence
 * number below `below`; false when there is none. */
static bool next_in_order(int sig, unsigned gen, int pid, bool last, unsigned long below,
                          view *out)
{
    bool any = false;
    for (int i = 0; i < MAX_REGS; i++) {
        view v = {0};
        if (!read_slot(i, sig, gen, pid, &v) || v.seq >= below ||
            !!(v.flags & OMPB__SIGNAL_LAST) != last)
            continue;
        if (!any || v.seq > out->seq)
            *out = v;
        any = true;
    }
    return any;
}

/* The default action of these does not end the process. */
static bool default_spares(int sig)
{
    return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
}

/* A fault raised by an instruction comes back when it runs again (a
 * terminal's SIGINT also has a positive si_code: SI_KERNEL). */
static bool is_fault(int sig, const siginfo_t *info)
{
    bool synchronous = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
                       sig == SIGTRAP;
    return synchronous && info->si_code > 0;
}

/* Hands sig to the action found. Putting it back for good is only for an
 * action that ends the process (or when the registration asked for it). */
static void pass_to_found(int sig, siginfo_t *info, void *uc, bool reset)
{
    const struct sigaction *f = found(sig);
    bool plain = !(f->sa_flags & SA_SIGINFO);
    if (plain && f->sa_handler == SIG_IGN)
        return;
    if (plain && f->sa_handler == SIG_DFL && default_spares(sig))
        return;
    if (reset || (plain && f->sa_handler == SIG_DFL)) {
        sigaction(sig, f, NULL);
        /* Blocked while the dispatcher runs: delivered when it returns. */
        if (!is_fault(sig, info))
            raise(sig);
        return;
    }
    if (plain)
        f->sa_handler(sig);
    else
        f->sa_sigaction(sig, info, uc);
}

static void dispatch(int sig, siginfo_t *info, void *uc)
{
    int saved = errno;
    unsigned gen = atomic_load(&states[sig].gen);
    int pid = (int)getpid();
    bool reset = false;
    for (int last = 0; last < 2; last++) {
        unsigned long below = (unsigned long)-1;
        view v = {0};
        while (next_in_order(sig, gen, pid, last, below, &v)) {
            if (v.fn(sig, info, v.arg)) {
                errno = saved;
                return;
            }
            reset |= (v.flags & OMPB__SIGNAL_RESETHAND) != 0;
            below = v.seq;
        }
    }
    pass_to_found(sig, info, uc, reset);
    errno = saved;
}

/* ---- registration (under the lock) ------------------------------------------ */

static int live_count(int sig, unsigned *flags)
{
    int n = 0;
    *flags = 0;
    unsigned gen = atomic_load(&states[sig].gen);
    for (int i = 0; i < MAX_REGS; i++) {
        view v = {0};
        if (read_slot(i, sig, gen, 0, &v)) {
            n++;
            *flags |= v.flags;
        }
    }
    return n;
}

static int install(int sig)
{
    unsigned flags;
    live_count(sig, &flags);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = dispatch;
    sa.sa_flags = SA_SIGINFO;
    if (flags & OMPB__SIGNAL_RESTART)
        sa.sa_flags |= SA_RESTART;
    if (flags & OMPB__SIGNAL_ONSTACK)
        sa.sa_flags |= SA_ONSTACK;
    if (flags & OMPB__SIGNAL_NOCLDSTOP)
        sa.sa_flags |= SA_NOCLDSTOP;
    if (flags & OMPB__SIGNAL_MASK_ALL)
        sigfillset(&sa.sa_mask);
    else
        sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL);
}

/* The dispatcher is not the action: the first registration, or someone
 * replaced it (or the signal was put back): what is there now is the
 * action found, and the registrations made before it are shadowed. */
static int adopt(int sig)
{
    struct sigaction now;
    if (sigaction(sig, NULL, &now) != 0)
        return -1;
    if (!is_dispatcher(&now)) {
        set_found(sig, &now);
        atomic_fetch_add(&states[sig].gen, 1);
    }
    return 0;
}

static void free_slot(int i)
{
    atomic_store(&regs[i].seq, 0);
}

int ompb__signal_register(int sig, ompb__signal_fn fn, void *arg, unsigned flags)
{
    if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP || !fn) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&lock);
    int id = -1;
    for (int i = 0; i < MAX_REGS && id < 0; i++)
        if (atomic_load(&regs[i].seq) == 0)
            id = i;
    int err = id < 0 ? ENOSPC : 0;
    if (!err && adopt(sig) != 0)
        err = errno;
    if (!err) {
        reg *r = &regs[id];
        atomic_store(&r->sig, sig);
        atomic_store(&r->fn, fn);
        atomic_store(&r->arg, arg);
        atomic_store(&r->flags, flags);
        atomic_store(&r->pid, (int)getpid());
        atomic_store(&r->gen, atomic_load(&states[sig].gen));
        atomic_store(&r->seq, ++last_seq);
        if (install(sig) != 0) {
            err = errno;
            free_slot(id);
        }
    }
    pthread_mutex_unlock(&lock);
    if (err) {
        errno = err;
        return -1;
    }
    return id;
}

void ompb__signal_unregister(int id)
{
    if (id < 0 || id >= MAX_REGS)
        return;
    pthread_mutex_lock(&lock);
    reg *r = &regs[id];
    int sig = atomic_load(&r->sig);
    bool was_live = atomic_load(&r->seq) != 0 && atomic_load(&r->gen) == atomic_load(&states[sig].gen);
    free_slot(id);
    unsigned flags;
    /* Whatever someone else installed meanwhile ends here (lib/core/signals.h). */
    if (was_live && live_count(sig, &flags) == 0)
        sigaction(sig, found(sig), NULL);
    else if (was_live)
        install(sig); /* with the flags of those left */
    pthread_mutex_unlock(&lock);
}

bool ompb__signal_live(int id)
{
    if (id < 0 || id >= MAX_REGS)
        return false;
    reg *r = &regs[id];
    int sig = atomic_load(&r->sig);
    return atomic_load(&r->seq) != 0 && atomic_load(&r->gen) == atomic_load(&states[sig].gen) &&
           dispatcher_current(sig);
}

ompb__signal_app ompb__signal_app_action(int sig)
{
    struct sigaction now;
    pthread_mutex_lock(&lock);
    if (sigaction(sig, NULL, &now) != 0)
        memset(&now, 0, sizeof now); /* an invalid signal reads as default */
    if (is_dispatcher(&now))
        now = *found(sig);
    pthread_mutex_unlock(&lock);
    if (now.sa_flags & SA_SIGINFO)
        return OMPB__SIGNAL_APP_HANDLED;
    if (now.sa_handler == SIG_DFL)
        return OMPB__SIGNAL_APP_DEFAULT;
    return now.sa_handler == SIG_IGN ? OMPB__SIGNAL_APP_IGNORED : OMPB__SIGNAL_APP_HANDLED;
}

void ompb__signal_put_back(int sig)
{
    if (sig > 0 && sig < NSIG && dispatcher_current(sig))
        sigaction(sig, found(sig), NULL);
}

void ompb__signal_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
}

/* ---- stopping of a signal ------------------------------------------------------- */

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

/* Dying of a signal resets it to its default action and unblocks it
 * first, so the process really ends of it (the shell then reports
 * 128 + sig) even from a thread that blocked it; the _exit after raise is
 * only reached if the signal could not end it. No lock: the process ends. */
_Noreturn void ompb__signal_die_of(int sig)
{
    sigset_t set;
    ompb__signal_default(sig);
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
    pthread_mutex_lock(&lock);
    sigaction(sig, &ign, NULL);
    if (sig > 0 && sig < NSIG) {
        set_found(sig, &ign);
        atomic_fetch_add(&states[sig].gen, 1);
    }
    pthread_mutex_unlock(&lock);
}
