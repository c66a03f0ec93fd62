/* SPDX-License-Identifier: MIT */
/*
 * The runner transport's exact I/O: waiting with poll(2) against a fixed
 * deadline, writes and reads of exact lengths (never past a frame, so the
 * ack pipe's framing stays intact for whoever holds the lock next), replies
 * and the pipelined flush. Callers hold the transport lock (transport.c);
 * nothing here sleeps or touches the process-wide state.
 */
#include "hooks/transport_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Records why an I/O step failed where it failed, before a later call can
 * overwrite errno. */
int ompb__transport_io_failed(ompb_error *err, const char *step, int errnum)
{
    return ompb__error_set(err, OMPB_EIO, "%s: %s", step, strerror(errnum));
}

static int poll_failed(const struct pollfd *fds, nfds_t n, ompb_error *err)
{
    for (nfds_t i = 0; i < n; i++) {
        if (fds[i].revents & POLLNVAL)
            return ompb__error_set(err, OMPB_EIO, "a runner pipe descriptor was closed");
        if (fds[i].revents & POLLERR)
            return ompb__error_set(err, OMPB_EIO, "poll reported an error on a runner pipe");
    }
    return 0;
}

/* Waits until one of fds is ready or the deadline passes. */
static int wait_ready(struct pollfd *fds, nfds_t n, uint64_t deadline, ompb_error *err)
{
    for (;;) {
        uint64_t now = ompb__now_ns();
        if (now >= deadline)
            return OMPB_ETIMEDOUT;
        /* Round up: poll must never return before the deadline. */
        int ms = (int)((deadline - now + 999999u) / 1000000u);
        int r = poll(fds, n, ms);
        if (r > 0)
            return poll_failed(fds, n, err);
        if (r < 0 && errno != EINTR)
            return ompb__transport_io_failed(err, "poll", errno);
    }
}

static int wait_fd(int fd, short events, uint64_t deadline, ompb_error *err)
{
    struct pollfd p = {.fd = fd, .events = events};
    return wait_ready(&p, 1, deadline, err);
}

int ompb__transport_write_all(int fd, const uint8_t *buf, size_t len, uint64_t deadline,
                              ompb_error *err)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w > 0) {
            buf += w;
            len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno != EAGAIN)
            return ompb__transport_io_failed(err, "write to the ctl pipe", errno);
        int rc = wait_fd(fd, POLLOUT, deadline, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* Reads exactly len bytes, waiting with poll only when the pipe is empty. */
static int read_exact(int fd, uint8_t *buf, size_t len, uint64_t deadline, ompb_error *err)
{
    while (len > 0) {
        ssize_t r = read(fd, buf, len);
        if (r > 0) {
            buf += r;
            len -= (size_t)r;
            continue;
        }
        if (r == 0)
            return ompb__error_set(err, OMPB_EIO, "unexpected end of file on the ack pipe");
        if (errno != EINTR && errno != EAGAIN)
            return ompb__transport_io_failed(err, "read from the ack pipe", errno);
        int rc = wait_fd(fd, POLLIN, deadline, err);
        if (rc)
            return rc;
    }
    return 0;
}

void ompb__transport_drain(int fd)
{
    uint8_t junk[512];
    for (;;) {
        ssize_t r = read(fd, junk, sizeof junk);
        if (r > 0 || (r < 0 && errno == EINTR))
            continue;
        break;
    }
}

/* ---- replies -------------------------------------------------------------- */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int ompb__transport_read_reply(const ompb__transport *t, uint8_t *buf, ompb__cmd *reply,
                               uint64_t deadline, ompb_error *err)
{
    int rc = read_exact(t->ack, buf, OMPB__FRAME_MIN, deadline, err);
    if (rc)
        return rc;
    uint32_t n = le32(buf);
    if (n < 4 || n > REPLY_PAYLOAD_MAX)
        return ompb__error_set(err, OMPB_EPROTO,
                               "undecodable reply from the runner (declared length %u)", n);
    rc = read_exact(t->ack, buf + OMPB__FRAME_MIN, n - 4, deadline, err);
    if (rc)
        return rc;
    return ompb__cmd_decode(buf + OMPB__FRAME_HEADER, n, reply, err);
}

int ompb__transport_check_reply(const ompb__cmd *req, const ompb__cmd *reply, ompb_error *err)
{
    ompb__cmd_kind want = req->kind == OMPB__CMD_GET_INTEGRATION_MODE
                              ? OMPB__CMD_INTEGRATION_MODE_RESPONSE : OMPB__CMD_ACK;
    if (reply->kind == want)
        return 0;
    if (req->kind == OMPB__CMD_SET_VERSION && reply->kind == OMPB__CMD_ERR)
        return ompb__error_set(err, OMPB_EPROTO,
                               "the runner refused protocol version %llu (answered Err to "
                               "SetVersion)", (unsigned long long)req->version);
    return ompb__error_set(err, OMPB_EPROTO, "the runner answered %s to %s (expected %s)",
                           ompb__cmd_name(reply->kind), ompb__cmd_name(req->kind),
                           ompb__cmd_name(want));
}

/* ---- pipelining ----------------------------------------------------------- */

ompb__cmd ompb__transport_pipeline_cmd(const pipeline *pl, size_t i)
{
    if (i >= 2 * pl->rounds)
        return pl->tail[i - 2 * pl->rounds];
    if (i % 2)
        return ompb__cmd_marker(pl->pid, OMPB_MARKER_BENCHMARK_END, pl->end_ns[i / 2]);
    return ompb__cmd_marker(pl->pid, OMPB_MARKER_BENCHMARK_START, pl->start_ns[i / 2]);
}

/* Packs as many whole frames as fit into one atomic write. */
static int pack_batch(pipeline *pl, ompb_error *err)
{
    pl->out_len = pl->out_off = 0;
    while (pl->packed < pl->n) {
        size_t len;
        ompb__cmd cmd = ompb__transport_pipeline_cmd(pl, pl->packed);
        if (ompb__cmd_frame_size(&cmd) > sizeof pl->out - pl->out_len)
            break;
        if (ompb__cmd_encode(&cmd, pl->out + pl->out_len, sizeof pl->out - pl->out_len,
                             &len) != 0)
            return ompb__error_set(err, OMPB_EINVAL, "cannot encode %s",
                                   ompb__cmd_name(cmd.kind));
        pl->out_len += len;
        pl->packed++;
    }
    return 0;
}

/* Writes what the pipe takes; returns 1 on progress, 0 on EAGAIN. */
static int pump_out(const ompb__transport *t, pipeline *pl, ompb_error *err)
{
    ssize_t w = write(t->ctl, pl->out + pl->out_off, pl->out_len - pl->out_off);
    if (w > 0) {
        pl->out_off += (size_t)w;
        return 1;
    }
    if (w < 0 && errno != EAGAIN && errno != EINTR)
        return ompb__transport_io_failed(err, "write to the ctl pipe", errno);
    return 0;
}

/* Reads acks for frames already packed, never more: bytes past them are
 * not ours. Returns 1 on progress, 0 on EAGAIN. */
static int pump_in(const ompb__transport *t, pipeline *pl, ompb_error *err)
{
    size_t owed = (pl->packed - pl->acked) * OMPB__FRAME_MIN - pl->ack_have;
    size_t room = sizeof pl->acks - pl->ack_have;
    ssize_t r = read(t->ack, pl->acks + pl->ack_have, owed < room ? owed : room);
    if (r == 0)
        return ompb__error_set(err, OMPB_EIO, "unexpected end of file on the ack pipe");
    if (r < 0)
        return errno == EAGAIN || errno == EINTR
                   ? 0 : ompb__transport_io_failed(err, "read from the ack pipe", errno);
    pl->ack_have += (size_t)r;
    size_t whole = pl->ack_have / OMPB__FRAME_MIN;
    for (size_t i = 0; i < whole; i++) {
        const uint8_t *f = pl->acks + i * OMPB__FRAME_MIN;
        if (le32(f) != 4 || le32(f + 4) != OMPB__CMD_ACK) {
            const char *what = ompb__cmd_name(ompb__transport_pipeline_cmd(pl, pl->acked).kind);
            if (le32(f) != 4)
                return ompb__error_set(err, OMPB_EPROTO, "the runner answered a frame of "
                                       "%u payload bytes to %s (expected Ack)", le32(f), what);
            return ompb__error_set(err, OMPB_EPROTO, "the runner answered %s to %s (expected "
                                   "Ack)", ompb__cmd_name(le32(f + 4)), what);
        }
        pl->acked++;
    }
    pl->ack_have -= whole * OMPB__FRAME_MIN;
    memmove(pl->acks, pl->acks + whole * OMPB__FRAME_MIN, pl->ack_have);
    return 1;
}

static int pipeline_step(const ompb__transport *t, pipeline *pl, ompb_error *err)
{
    int progress = 0, rc;
    if (pl->out_off == pl->out_len && pl->packed < pl->n && (rc = pack_batch(pl, err)))
        return rc;
    if (pl->out_off < pl->out_len) {
        if ((rc = pump_out(t, pl, err)) < 0)
            return rc;
        progress |= rc;
    }
    if (pl->acked < pl->packed) {
        if ((rc = pump_in(t, pl, err)) < 0)
            return rc;
        progress |= rc;
    }
    return progress;
}

/* One deadline for the whole flush, fixed at its start: a deadline that
 * restarted at every ack would let a runner that answers just in time hold
 * the process for a timeout per frame. */
int ompb__transport_run_pipeline(const ompb__transport *t, pipeline *pl, uint64_t deadline,
                                 ompb_error *err)
{
    while (pl->acked < pl->n) {
        int rc = pipeline_step(t, pl, err);
        if (rc < 0)
            return rc;
        if (rc > 0)
            continue;
        struct pollfd fds[2] = {{.fd = t->ack, .events = POLLIN},
                                {.fd = t->ctl, .events = 0}};
        if (pl->out_off < pl->out_len)
            fds[1].events = POLLOUT;
        if ((rc = wait_ready(fds, 2, deadline, err)) != 0)
            return rc;
    }
    return 0;
}
