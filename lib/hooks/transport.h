/* SPDX-License-Identifier: MIT */
/*
 * The runner transport: two named pipes, ctl (to the runner) and ack (from
 * it), each opened O_RDWR|O_NONBLOCK. One process-wide lock serializes each
 * request and its reply across all threads and all transports, so frames
 * never interleave and acknowledgements are never stolen. Replies are
 * awaited with poll(2) against a deadline, fixed when the request (or
 * pipelined flush) begins: OMPB_HOOKS_TIMEOUT_MS for a request, as much for
 * a flush of up to 65536 commands (one more per 65536 begun), never later
 * than the end of the process's budget of runner waits.
 *
 * Budget: every request and flush counts its time, from its first write to
 * its last reply, less OMPB__BUDGET_FREE_MS (per 65536 commands of a
 * flush), against one process-wide budget, OMPB_HOOKS_BUDGET_MS (default
 * 10000). A runner that answers, but so slowly that the budget runs out,
 * is a failure like a silent one (below). A live runner answers within the
 * free part and spends nothing.
 *
 * Failure policy: the first fatal failure anywhere in the process (timeout,
 * the budget spent, Err, undecodable or unexpected reply, write error,
 * refused protocol version) prints one warning to stderr and disables every transport of the
 * process; later requests return OMPB_ENOTSUP at once without touching the
 * pipes. Failing to open a transport is not such a failure: it concerns
 * that transport only.
 *
 * Fork: a transport belongs to the process that opened it. In a forked
 * child every transport is off (requests return OMPB_ENOTSUP without
 * traffic and without waiting for the lock, which the child gets fresh).
 *
 * One process per runner: the first transport a process opens to a ctl
 * FIFO takes an exclusive flock(2) on it, shared by the process's other
 * transports to that FIFO and released when the last one closes (or the
 * process ends). Opening fails with OMPB_ENOTSUP while another process
 * holds it: two processes would read each other's acks, and the runner
 * cannot tell their benchmark windows apart. Processes that do not take
 * the lock (other integrations) are not detected.
 *
 * Descriptors: the pipes never take fds 0-2, so a closed stdout or stderr
 * cannot turn the program's output into frames.
 */
#ifndef OMPB_HOOKS_TRANSPORT_H
#define OMPB_HOOKS_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "hooks/codec.h"
#include "hooks/runner_gate.h" /* the FIFO paths' defaults and variables */

typedef struct ompb__transport ompb__transport;

#define OMPB__TIMEOUT_ENV OMPB__HOOKS_TIMEOUT_ENV
#define OMPB__TIMEOUT_DEFAULT_MS OMPB__HOOKS_TIMEOUT_DEFAULT_MS
#define OMPB__BUDGET_ENV OMPB__HOOKS_BUDGET_ENV
#define OMPB__BUDGET_DEFAULT_MS OMPB__HOOKS_BUDGET_DEFAULT_MS
/* The part of each request's wait (and of each flush's, per 65536
 * commands) that the budget does not count: a live runner answers within
 * ~0.1 ms on the development VMs, so it never spends the budget. */
#define OMPB__BUDGET_FREE_MS 5

/* Pipe paths from the environment, else the defaults. Static or environment
 * strings; never freed. */
const char *ompb__transport_ctl_path(void);
const char *ompb__transport_ack_path(void);
/* OMPB_HOOKS_TIMEOUT_MS when it is an integer from 1 to
 * OMPB__HOOKS_TIMEOUT_MAX_MS (digits only), else 1000; any other value is
 * named in one warning per process (the command line refuses it first). */
int ompb__transport_timeout_ms(void);
/* OMPB_HOOKS_BUDGET_MS, checked the same way, else 10000. Read by each
 * open; the time already spent is the process's, shared by all. */
int ompb__transport_budget_ms(void);

/* True when both paths name existing FIFOs (cheap: two stat calls). */
bool ompb__transport_present(const char *ctl_path, const char *ack_path);

/*
 * Opens both pipes, claims the runner for this process and drains stale
 * bytes from the ack pipe. Returns 0 and a transport in *out (free with
 * ompb__transport_close), OMPB_ENOENT when a path is missing or not a
 * FIFO, OMPB_ENOTSUP when another process holds the runner, OMPB_EIO, or
 * OMPB_ENOMEM; err says why.
 */
int ompb__transport_open(const char *ctl_path, const char *ack_path, int timeout_ms,
                         ompb__transport **out, ompb_error *err);
void ompb__transport_close(ompb__transport *t);

/*
 * Sends req and waits for its reply under the process-wide lock. The reply
 * must be IntegrationModeResponse for GetIntegrationMode and Ack otherwise;
 * *reply (optional) receives it. Returns 0; OMPB_ENOTSUP when the process's
 * transports are disabled; OMPB_EINVAL when req cannot be encoded (nothing
 * sent, nothing disabled); OMPB_ETIMEDOUT, OMPB_EPROTO or OMPB_EIO after
 * disabling (err says why).
 */
int ompb__transport_request(ompb__transport *t, const ompb__cmd *req, ompb__cmd *reply,
                            ompb_error *err);

/*
 * Sends n requests, each answered by Ack, pipelined under one hold of the
 * lock: frames are written as fast as the pipe takes them (whole frames,
 * at most PIPE_BUF bytes per write) while the acks are read as they come,
 * in order. One deadline holds for the whole flush (see the top), so a
 * silent peer costs one timeout, and a slow one no more. Returns as
 * _request; OMPB_EINVAL when a request cannot be encoded (nothing sent).
 */
int ompb__transport_send_all(ompb__transport *t, const ompb__cmd *reqs, size_t n,
                             ompb_error *err);
/*
 * The same flush, its first 2 * rounds commands the markers
 * BenchmarkStart(start_ns[r]), BenchmarkEnd(end_ns[r]) of pid for r <
 * rounds, encoded straight from the two arrays a batch at a time (nothing
 * is copied), then the n_tail commands of tail (StopBenchmark, say).
 */
int ompb__transport_send_markers(ompb__transport *t, int32_t pid, const uint64_t *start_ns,
                                 const uint64_t *end_ns, size_t rounds, const ompb__cmd *tail,
                                 size_t n_tail, ompb_error *err);

/* True once an open found the runner held by another process. */
bool ompb__transport_runner_taken(void);
/* True once a failure has disabled the process's transports. */
bool ompb__transport_disabled(void);
/* Disables them with one warning (the first caller's text wins). */
void ompb__transport_disable(const char *why);
/* Tests only: forget a previous failure, a runner found taken and the time
 * spent waiting, so the next test starts fresh. */
void ompb__transport_revive(void);
/* Tests only: how much of the budget of runner waits the process has
 * spent (the waits beyond each exchange's free part). */
uint64_t ompb__transport_charged_ns(void);
/* Tests only: the transport's descriptors, to break them on purpose. */
void ompb__transport_fds(const ompb__transport *t, int *ctl, int *ack);

#endif
