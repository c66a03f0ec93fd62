/* SPDX-License-Identifier: MIT */
/*
 * The scriptable runner of hooks_peer.h. It parses the ctl stream with the
 * library's codec, so a test that sees zero undecodable frames here has
 * proven the transport's framing, not just the peer's tolerance.
 */
#include "hooks_peer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hooks/codec.h"
#include "hooks/transport.h"
#include "suite.h"

/* Room for the largest frame the codec accepts, and then some. */
#define BUF_BYTES (2 * (OMPB__FRAME_HEADER + OMPB__PAYLOAD_MAX))
/* Pause between the bytes of a PEER_BYTEWISE reply: long enough for the
 * reader to see part of a frame, short enough to keep the tests quick. */
#define BYTE_PAUSE_NS 20000

static void put_bytes(hooks_peer *p, const uint8_t *buf, size_t len)
{
    while (write(p->ack_fd, buf, len) < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
}

static void put_frame(hooks_peer *p, const ompb__cmd *reply)
{
    uint8_t buf[OMPB__FRAME_MAX];
    size_t len;
    if (ompb__cmd_encode(reply, buf, sizeof buf, &len) != 0)
        return;
    if (p->behavior != PEER_BYTEWISE) {
        put_bytes(p, buf, len);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        struct timespec pause = {0, BYTE_PAUSE_NS};
        put_bytes(p, buf + i, 1);
        nanosleep(&pause, NULL);
    }
}

static void count_marker(hooks_peer *p, const ompb__cmd *cmd)
{
    if (cmd->pid < 0 || cmd->pid >= PEER_MAX_PIDS || cmd->ns != p->next_seq[cmd->pid])
        atomic_fetch_add(&p->sequence_errors, 1);
    else
        p->next_seq[cmd->pid]++;
}

static void answer(hooks_peer *p, const ompb__cmd *cmd)
{
    static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0x7f, 0xde, 0xad, 0xbe, 0xef};
    ompb__cmd reply = ompb__cmd_simple(OMPB__CMD_ACK);
    if (cmd->kind == OMPB__CMD_GET_INTEGRATION_MODE)
        reply = ompb__cmd_mode_response(OMPB__RUNNER_PERF);
    switch (p->behavior) {
    case PEER_SILENT: return;
    case PEER_ERR: reply = ompb__cmd_simple(OMPB__CMD_ERR); break;
    case PEER_WRONG_REPLY: reply = ompb__cmd_mode_response(OMPB__RUNNER_ANALYSIS); break;
    case PEER_GARBAGE:
        if (write(p->ack_fd, garbage, sizeof garbage) < 0)
            return;
        return;
    case PEER_REFUSE_VERSION:
        if (cmd->kind == OMPB__CMD_SET_VERSION)
            reply = ompb__cmd_simple(OMPB__CMD_ERR);
        break;
    case PEER_COUNTING:
        if (cmd->kind == OMPB__CMD_ADD_MARKER)
            count_marker(p, cmd);
        break;
    case PEER_SLOW:
        if (p->delay_kind < 0 || (int)cmd->kind == p->delay_kind) {
            struct timespec pause = {(time_t)(p->delay_ns / 1000000000u),
                                     (long)(p->delay_ns % 1000000000u)};
            while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
                continue;
        }
        break;
    default: break;
    }
    put_frame(p, &reply);
}

/* Handles every whole frame in buf; returns the bytes consumed. An absurd
 * length loses the framing for good: all is consumed, nothing answered. */
static size_t handle_frames(hooks_peer *p, const uint8_t *buf, size_t len)
{
    size_t off = 0, flen;
    ompb__cmd cmd;
    int r;
    while (!atomic_load(&p->framing_lost)
           && (r = ompb__frame_peek(buf + off, len - off, &flen)) != 0) {
        if (r < 0) {
            atomic_fetch_add(&p->undecodable, 1);
            atomic_store(&p->framing_lost, true);
            break;
        }
        size_t n = atomic_fetch_add(&p->frames, 1) + 1;
        if (ompb__cmd_decode(buf + off + 4, flen - 4, &cmd, NULL) != 0)
            atomic_fetch_add(&p->undecodable, 1);
        else if (p->answer_limit < 0 || (long)n <= p->answer_limit)
            answer(p, &cmd);
        else if (p->exit_at_limit)
            _exit(0);
        off += flen;
    }
    return atomic_load(&p->framing_lost) ? len : off;
}

void hooks_peer_run(hooks_peer *p)
{
    if (p->behavior == PEER_COLLECTOR) {
        ompb__collector_serve(p->collector, p->ctl_fd, p->ack_fd, -1, &p->stop);
        return;
    }
    uint8_t *buf = malloc(BUF_BYTES);
    size_t have = 0;
    while (buf && !atomic_load(&p->stop)) {
        struct pollfd fd = {.fd = p->ctl_fd, .events = POLLIN};
        if (poll(&fd, 1, 20) <= 0)
            continue;
        ssize_t r = read(p->ctl_fd, buf + have, BUF_BYTES - have);
        if (r <= 0)
            continue;
        have += (size_t)r;
        size_t used = handle_frames(p, buf, have);
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    free(buf);
}

static void *peer_thread(void *arg)
{
    hooks_peer_run(arg);
    return NULL;
}

static int open_fifo(const char *path, int *fd)
{
    if (mkfifo(path, 0600) != 0)
        return -1;
    *fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    return *fd < 0 ? -1 : 0;
}

int hooks_peer_init(hooks_peer *p, peer_behavior behavior)
{
    memset(p, 0, sizeof *p);
    p->ctl_fd = p->ack_fd = -1;
    p->child = -1;
    p->behavior = behavior;
    p->answer_limit = -1;
    p->delay_kind = -1;
    snprintf(p->dir, sizeof p->dir, "/tmp/ompb-peer.XXXXXX");
    if (!mkdtemp(p->dir))
        return -1;
    snprintf(p->ctl, sizeof p->ctl, "%s/ctl.fifo", p->dir);
    snprintf(p->ack, sizeof p->ack, "%s/ack.fifo", p->dir);
    if (open_fifo(p->ctl, &p->ctl_fd) || open_fifo(p->ack, &p->ack_fd))
        return -1;
    if (behavior == PEER_COLLECTOR && !(p->collector = ompb__collector_new(OMPB__RUNNER_PERF)))
        return -1;
    setenv(OMPB__CTL_FIFO_ENV, p->ctl, 1);
    setenv(OMPB__ACK_FIFO_ENV, p->ack, 1);
    ompb__transport_revive();
    return 0;
}

int hooks_peer_start_thread(hooks_peer *p)
{
    atomic_store(&p->stop, false);
    p->thread_running = pthread_create(&p->thread, NULL, peer_thread, p) == 0;
    return p->thread_running ? 0 : -1;
}

int hooks_peer_start_process(hooks_peer *p)
{
    p->child = fork();
    if (p->child == 0) {
        hooks_peer_run(p);
        _exit(0);
    }
    return p->child > 0 ? 0 : -1;
}

void hooks_peer_stop(hooks_peer *p)
{
    if (p->child > 0) {
        kill(p->child, SIGKILL);
        while (waitpid(p->child, NULL, 0) < 0 && errno == EINTR)
            continue;
        p->child = -1;
    } else if (p->thread_running) {
        atomic_store(&p->stop, true);
        pthread_join(p->thread, NULL);
        p->thread_running = false;
    }
}

void hooks_peer_destroy(hooks_peer *p)
{
    hooks_peer_stop(p);
    if (p->ctl_fd >= 0)
        close(p->ctl_fd);
    if (p->ack_fd >= 0)
        close(p->ack_fd);
    unlink(p->ctl);
    unlink(p->ack);
    rmdir(p->dir);
    ompb__collector_free(p->collector);
    p->collector = NULL;
    ompb_test_no_runner();
}
