/* SPDX-License-Identifier: MIT */
/*
 * The runner transport over two named pipes. Every frame we send fits in
 * PIPE_BUF and goes out in one write(2), which the kernel makes atomic; the
 * process-wide lock additionally keeps each request and its reply together,
 * so no other thread can send in between or read the reply. Replies are
 * read with exact lengths (header first, never past the frame), which keeps
 * the ack pipe's framing intact for whoever holds the lock next. Waiting is
 * poll(2) against a deadline; nothing sleeps. Every deadline is fixed when
 * the request or flush begins, and no later than what is left of the
 * process's budget of runner waits, so a runner that answers just before
 * each timeout still cannot hold the process for long.
 */
#include "hooks/transport.h"
#include "hooks/transport_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"

/* A flush gets one timeout in all per this many commands begun: ample for
 * a live runner (it acks ~13 million frames a second here), and bounded. */
#define FLUSH_FRAMES_PER_TIMEOUT 65536u
/* Runners (ctl FIFOs) one process may hold claims on at once. */
#define MAX_CLAIMS 4

/* A process's claim on one runner: an exclusive flock(2) on its own open
 * file description of the ctl FIFO, held while any of its transports to
 * that FIFO is open. Another process finds it taken and stays away, so
 * only one process talks to a runner at a time: two would steal each
 * other's acks and interleave benchmark windows, which the runner cannot
 * tell apart. Guarded by transport_lock. */
typedef struct claim {
    dev_t dev;
    ino_t ino;
    int fd;
    size_t users;
} claim;

static pthread_mutex_t transport_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool transport_dead;
static atomic_bool runner_taken;
static pthread_once_t fork_watch = PTHREAD_ONCE_INIT;
static claim claims[MAX_CLAIMS];
/* Time spent in requests and flushes so far (from the first write to the
 * last reply), over every transport of the process. Guarded by
 * transport_lock. */
static uint64_t waited_ns;

/* ---- fork ----------------------------------------------------------------- */

/* A forked child keeps only the thread that forked: the lock may be held
 * by a thread that no longer exists there, and the pipes are the parent's,
 * whose acks the child would steal. So the child gets a fresh lock and its
 * transports off, silently: the parent is still talking to the runner. */
static void child_after_fork(void)
{
    pthread_mutex_init(&transport_lock, NULL);
    atomic_store(&transport_dead, true);
    /* The parent's claims stay with the parent: closing the child's copies
     * keeps a long-lived child from holding a runner its parent let go. */
    for (int i = 0; i < MAX_CLAIMS; i++) {
        if (claims[i].users)
            close(claims[i].fd);
        claims[i].users = 0;
    }
}

static void watch_forks(void)
{
    pthread_atfork(NULL, NULL, child_after_fork);
}

/* Off in a process other than the opener even without the fork handler
 * (a child made by a raw clone(2), say): no traffic, no wait on the lock. */
static bool usable(const ompb__transport *t)
{
    return t && !atomic_load_explicit(&transport_dead, memory_order_relaxed)
           && t->owner == getpid();
}

/* ---- waiting and exact I/O ------------------------------------------------ */

/* The deadline of one request or flush: its own allowance from now, or the
 * end of the process's budget of runner waits, whichever comes first. The
 * first OMPB__BUDGET_FREE_MS of each exchange (per block of a flush) are
 * not charged: a live runner answers in a fraction of that, so only a slow
 * one spends the budget, however many instances a suite has. */
typedef struct waiting {
    uint64_t begin, deadline;
    uint64_t free_ns;     /* the part of this exchange's wait not charged */
    bool budget_bound;    /* the deadline is the budget's end */
} waiting;

static waiting begin_waiting(const ompb__transport *t, uint64_t allowance_ns, uint64_t blocks)
{
    waiting w = {.begin = ompb__now_ns(), .free_ns = blocks * OMPB__BUDGET_FREE_MS * NS_PER_MS};
    uint64_t left = waited_ns < t->budget_ns ? t->budget_ns - waited_ns : 0;
    uint64_t reach = left ? left + w.free_ns : 0;
    w.budget_bound = reach <= allowance_ns;
    w.deadline = w.begin + (w.budget_bound ? reach : allowance_ns);
    return w;
}

static void end_waiting(const waiting *w)
{
    uint64_t took = ompb__now_ns() - w->begin;
    waited_ns += took > w->free_ns ? took - w->free_ns : 0;
}

static uint64_t timeout_ns(const ompb__transport *t)
{
    return (uint64_t)t->timeout_ms * NS_PER_MS;
}


/* Fills err for an I/O-level failure of a request of the given kind; for
 * OMPB_EIO, err already holds the cause recorded where it happened. A
 * timeout at the end of the budget is the budget's: the runner answers, but
 * too slowly for the process to keep waiting. note (may be "") follows the
 * timeout's message. */
static int describe(const ompb__transport *t, int rc, const waiting *w, const char *what,
                    const char *note, ompb_error *err)
{
    char cause[OMPB_ERROR_TEXT_MAX];
    if (rc == OMPB_ETIMEDOUT && w->budget_bound)
        return ompb__error_set(err, rc, "the runner is too slow: waiting for its answers took "
                               "%llu ms in all (at %s), the most one process waits (%s=%llu)",
                               (unsigned long long)(waited_ns / NS_PER_MS), what,
                               OMPB__BUDGET_ENV, (unsigned long long)(t->budget_ns / NS_PER_MS));
    if (rc == OMPB_ETIMEDOUT)
        return ompb__error_set(err, rc, "no answer from the runner to %s within %d ms (%s%s)",
                               what, t->timeout_ms, OMPB__TIMEOUT_ENV, note);
    if (rc == OMPB_EIO) {
        snprintf(cause, sizeof cause, "%s", err->text[0] ? err->text : "unknown cause");
        return ompb__error_set(err, rc, "runner pipe error during %s: %s", what, cause);
    }
    return rc;
}

static int fail(int rc, ompb_error *local, ompb_error *err)
{
    ompb__transport_disable(local->text);
    if (err)
        *err = *local;
    return rc;
}


/* ---- public functions ----------------------------------------------------- */

const char *ompb__transport_ctl_path(void)
{
    const char *p = getenv(OMPB__CTL_FIFO_ENV);
    return p && *p ? p : OMPB__CTL_FIFO_DEFAULT;
}

const char *ompb__transport_ack_path(void)
{
    const char *p = getenv(OMPB__ACK_FIFO_ENV);
    return p && *p ? p : OMPB__ACK_FIFO_DEFAULT;
}

/* A number of milliseconds from the environment, else fallback; a bad
 * value is named in one warning per variable and process. */
static int env_ms(const char *name, int fallback, atomic_bool *warned)
{
    const char *v = getenv(name);
    uint64_t ms;
    if (!v)
        return fallback;
    if (ompb__parse_uint(v, 1, OMPB__HOOKS_TIMEOUT_MAX_MS, &ms) == 0)
        return (int)ms;
    if (!atomic_exchange(warned, true))
        ompb__error_print(stderr, "ompbench: warning: %s: invalid value '%s' (accepted: an "
                          "integer number of milliseconds from 1 to %d); using %d", name, v,
                OMPB__HOOKS_TIMEOUT_MAX_MS, fallback);
    return fallback;
}

int ompb__transport_timeout_ms(void)
{
    static atomic_bool warned;
    return env_ms(OMPB__TIMEOUT_ENV, OMPB__TIMEOUT_DEFAULT_MS, &warned);
}

int ompb__transport_budget_ms(void)
{
    static atomic_bool warned;
    return env_ms(OMPB__BUDGET_ENV, OMPB__BUDGET_DEFAULT_MS, &warned);
}

static bool is_fifo(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

bool ompb__transport_present(const char *ctl_path, const char *ack_path)
{
    return is_fifo(ctl_path) && is_fifo(ack_path);
}

/* Moves fd to 3 or above: with a closed stdout or stderr, a pipe at fd 1
 * or 2 would get the program's printf output as frames. Closes fd; returns
 * the new one, or -1 with errno set. */
static int above_stdio(int fd)
{
    if (fd < 0 || fd > STDERR_FILENO)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    int e = errno;
    close(fd);
    errno = e;
    return moved;
}

static int open_fifo(const char *path, int *fd, ompb_error *err)
{
    struct stat st;
    *fd = above_stdio(open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC));
    if (*fd < 0)
        return ompb__error_set(err, errno == ENOENT ? OMPB_ENOENT : OMPB_EIO,
                               "cannot open runner pipe '%s': %s", path, strerror(errno));
    if (fstat(*fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
        close(*fd);
        *fd = -1;
        return ompb__error_set(err, OMPB_ENOENT, "runner pipe '%s' is not a FIFO", path);
    }
    return 0;
}

/* ---- the claim on the runner ---------------------------------------------- */

static int find_claim(const struct stat *st)
{
    for (int i = 0; i < MAX_CLAIMS; i++)
        if (claims[i].users && claims[i].dev == st->st_dev && claims[i].ino == st->st_ino)
            return i;
    return -1;
}

/* Said once per process, like the disabling warning: every later handle
 * finds the same. */
static int taken(const char *ctl_path, ompb_error *err)
{
    ompb_error local;
    ompb__error_set(&local, OMPB_ENOTSUP, "another process is already talking to the CodSpeed "
                    "runner through '%s', and only one process may at a time (their "
                    "acknowledgements and benchmark windows would mix): process %ld runs its "
                    "benchmarks without the runner and writes no CodSpeed results",
                    ctl_path, (long)getpid());
    if (!atomic_exchange(&runner_taken, true))
        fprintf(stderr, "ompbench: warning: %s\n", local.text);
    if (err)
        *err = local;
    return OMPB_ENOTSUP;
}

/* Under transport_lock. Shares the process's claim on this FIFO, or takes
 * a new one; OMPB_ENOTSUP when another process holds it. */
static int claim_runner(ompb__transport *t, const char *ctl_path, ompb_error *err)
{
    struct stat st;
    if (fstat(t->ctl, &st) != 0)
        return ompb__transport_io_failed(err, "fstat of the ctl pipe", errno);
    int i = find_claim(&st);
    if (i >= 0) {
        claims[i].users++;
        t->claim = i;
        return 0;
    }
    for (i = 0; i < MAX_CLAIMS && claims[i].users; i++)
        continue;
    if (i == MAX_CLAIMS)
        return 0; /* a fifth runner at once: talked to without a claim */
    int fd = above_stdio(open(ctl_path, O_RDWR | O_NONBLOCK | O_CLOEXEC));
    if (fd < 0)
        return ompb__transport_io_failed(err, "cannot open the ctl pipe to claim it", errno);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        return e == EWOULDBLOCK ? taken(ctl_path, err) : ompb__transport_io_failed(err, "flock", e);
    }
    claims[i] = (claim){st.st_dev, st.st_ino, fd, 1};
    t->claim = i;
    return 0;
}

static void release_claim(ompb__transport *t)
{
    if (t->claim < 0 || t->owner != getpid())
        return;
    pthread_mutex_lock(&transport_lock);
    if (claims[t->claim].users && --claims[t->claim].users == 0)
        close(claims[t->claim].fd);
    pthread_mutex_unlock(&transport_lock);
    t->claim = -1;
}

int ompb__transport_open(const char *ctl_path, const char *ack_path, int timeout_ms,
                         ompb__transport **out, ompb_error *err)
{
    ompb__transport *t = malloc(sizeof *t);
    *out = NULL;
    if (!t)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    pthread_once(&fork_watch, watch_forks);
    t->timeout_ms = timeout_ms > 0 ? timeout_ms : OMPB__TIMEOUT_DEFAULT_MS;
    t->budget_ns = (uint64_t)ompb__transport_budget_ms() * NS_PER_MS;
    t->owner = getpid();
    t->ack = -1;
    t->claim = -1;
    int rc = open_fifo(ctl_path, &t->ctl, err);
    if (rc == 0)
        rc = open_fifo(ack_path, &t->ack, err);
    /* Under the lock: another transport may be mid-request on this pipe.
     * Draining comes after the claim: the acks may be another process's. */
    if (rc == 0) {
        pthread_mutex_lock(&transport_lock);
        rc = claim_runner(t, ctl_path, err);
        if (rc == 0)
            ompb__transport_drain(t->ack);
        pthread_mutex_unlock(&transport_lock);
    }
    if (rc) {
        ompb__transport_close(t);
        return rc;
    }
    *out = t;
    return 0;
}

void ompb__transport_close(ompb__transport *t)
{
    if (!t)
        return;
    release_claim(t);
    if (t->ctl >= 0)
        close(t->ctl);
    if (t->ack >= 0)
        close(t->ack);
    free(t);
}

static int request_locked(ompb__transport *t, const uint8_t *frame, size_t len,
                          const ompb__cmd *req, ompb__cmd *reply, ompb_error *err)
{
    uint8_t buf[OMPB__FRAME_MIN + REPLY_PAYLOAD_MAX];
    waiting w = begin_waiting(t, timeout_ns(t), 1);
    const char *what = ompb__cmd_name(req->kind);
    /* Nothing goes out once the budget is spent: no reply would be awaited. */
    int rc = w.deadline > w.begin ? ompb__transport_write_all(t->ctl, frame, len, w.deadline, err)
                                  : OMPB_ETIMEDOUT;
    if (rc == 0)
        rc = ompb__transport_read_reply(t, buf, reply, w.deadline, err);
    end_waiting(&w);
    if (rc == OMPB_ETIMEDOUT || rc == OMPB_EIO)
        return describe(t, rc, &w, what, "", err);
    if (rc == 0)
        rc = ompb__transport_check_reply(req, reply, err);
    return rc;
}

int ompb__transport_request(ompb__transport *t, const ompb__cmd *req, ompb__cmd *reply,
                            ompb_error *err)
{
    uint8_t frame[OMPB__FRAME_MAX];
    size_t len;
    ompb__cmd local_reply;
    ompb_error local = {0};
    if (!usable(t))
        return ompb__error_set(err, OMPB_ENOTSUP, "runner hooks are disabled");
    if (ompb__cmd_encode(req, frame, sizeof frame, &len) != 0)
        return ompb__error_set(err, OMPB_EINVAL, "cannot encode %s (string too long or "
                               "not UTF-8)", ompb__cmd_name(req->kind));
    pthread_mutex_lock(&transport_lock);
    int rc = OMPB_ENOTSUP;
    if (!atomic_load(&transport_dead))
        rc = request_locked(t, frame, len, req, reply ? reply : &local_reply, &local);
    pthread_mutex_unlock(&transport_lock);
    if (rc == OMPB_ENOTSUP)
        return ompb__error_set(err, rc, "runner hooks are disabled");
    return rc ? fail(rc, &local, err) : 0;
}

/* Under transport_lock: the flush pl, against one deadline for all of it. */
static int flush_locked(const ompb__transport *t, pipeline *pl, ompb_error *err)
{
    uint64_t allowances = (pl->n + FLUSH_FRAMES_PER_TIMEOUT - 1) / FLUSH_FRAMES_PER_TIMEOUT;
    waiting w = begin_waiting(t, timeout_ns(t) * allowances, allowances);
    int rc = w.deadline > w.begin ? ompb__transport_run_pipeline(t, pl, w.deadline, err)
                                  : OMPB_ETIMEDOUT;
    end_waiting(&w);
    if (rc == OMPB_ETIMEDOUT || rc == OMPB_EIO) {
        char note[160];
        snprintf(note, sizeof note, ", for a whole flush: %zu of its %zu commands "
                 "acknowledged", pl->acked, pl->n);
        ompb__cmd stuck = ompb__transport_pipeline_cmd(pl, pl->acked);
        describe(t, rc, &w, ompb__cmd_name(stuck.kind), note, err);
    }
    return rc;
}

/* Sends the flush described by pl (its commands already checked). */
static int flush(ompb__transport *t, pipeline *pl, ompb_error *err)
{
    ompb_error local = {0};
    pthread_mutex_lock(&transport_lock);
    int rc = OMPB_ENOTSUP;
    if (!atomic_load(&transport_dead))
        rc = flush_locked(t, pl, &local);
    pthread_mutex_unlock(&transport_lock);
    if (rc == OMPB_ENOTSUP)
        return ompb__error_set(err, rc, "runner hooks are disabled");
    return rc ? fail(rc, &local, err) : 0;
}

static int check_encodable(const ompb__cmd *reqs, size_t n, ompb_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (ompb__cmd_frame_size(&reqs[i]) == 0)
            return ompb__error_set(err, OMPB_EINVAL, "cannot encode %s",
                                   ompb__cmd_name(reqs[i].kind));
    return 0;
}

int ompb__transport_send_all(ompb__transport *t, const ompb__cmd *reqs, size_t n,
                             ompb_error *err)
{
    return ompb__transport_send_markers(t, 0, NULL, NULL, 0, reqs, n, err);
}

int ompb__transport_send_markers(ompb__transport *t, int32_t pid, const uint64_t *start_ns,
                                 const uint64_t *end_ns, size_t rounds, const ompb__cmd *tail,
                                 size_t n_tail, ompb_error *err)
{
    if (!usable(t))
        return ompb__error_set(err, OMPB_ENOTSUP, "runner hooks are disabled");
    if (check_encodable(tail, n_tail, err) != 0)
        return OMPB_EINVAL;
    if (rounds > (SIZE_MAX - n_tail) / 2)
        return ompb__error_set(err, OMPB_EINVAL, "cannot send %zu marker pairs at once", rounds);
    /* On the stack: one batch and its acks (~8 KB), however many rounds. */
    if (rounds == 0 && n_tail == 0)
        return 0; /* nothing to send: no wait, no deadline */
    pipeline pl = {.pid = pid, .start_ns = start_ns, .end_ns = end_ns, .rounds = rounds,
                   .tail = tail, .n = 2 * rounds + n_tail};
    return flush(t, &pl, err);
}

bool ompb__transport_runner_taken(void)
{
    return atomic_load(&runner_taken);
}

bool ompb__transport_disabled(void)
{
    return atomic_load_explicit(&transport_dead, memory_order_relaxed);
}

void ompb__transport_disable(const char *why)
{
    if (!atomic_exchange(&transport_dead, true))
        fprintf(stderr, "ompbench: warning: %s; no longer talking to the CodSpeed runner "
                "(benchmarks still run and local results are still written)\n", why);
}

void ompb__transport_revive(void)
{
    pthread_mutex_lock(&transport_lock);
    waited_ns = 0;
    pthread_mutex_unlock(&transport_lock);
    atomic_store(&transport_dead, false);
    atomic_store(&runner_taken, false);
}

uint64_t ompb__transport_charged_ns(void)
{
    pthread_mutex_lock(&transport_lock);
    uint64_t charged = waited_ns;
    pthread_mutex_unlock(&transport_lock);
    return charged;
}

void ompb__transport_fds(const ompb__transport *t, int *ctl, int *ack)
{
    *ctl = t->ctl;
    *ack = t->ack;
}
