/* SPDX-License-Identifier: MIT */
/*
 * What the two halves of the runner transport share: the handle, the
 * pipelined flush's state, and the exact I/O that transport_io.c does for
 * transport.c (which keeps the lock, the claims, the budget and the fork
 * handling). Private to lib/hooks/.
 */
#ifndef OMPB_HOOKS_TRANSPORT_INTERNAL_H
#define OMPB_HOOKS_TRANSPORT_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/core.h"
#include "hooks/codec.h"
#include "hooks/transport.h"

/* Longest reply we accept (IntegrationModeResponse has 8 payload bytes);
 * anything longer is garbage on the ack pipe. */
#define REPLY_PAYLOAD_MAX 64
/* Frames per pipelined write: kept within PIPE_BUF so each write is atomic. */
#define BATCH_BYTES PIPE_BUF
#define ACK_BUF_FRAMES 512
#define NS_PER_MS 1000000u
struct ompb__transport {
    int ctl;
    int ack;
    int timeout_ms;
    uint64_t budget_ns;   /* the process's budget of runner waits, as read at open */
    pid_t owner;          /* the process that opened it */
    int claim;            /* index in claims[], -1 for none */
};

/* The commands of one flush: 2 * rounds markers encoded straight from the
 * bound arrays (BenchmarkStart(start_ns[r]), BenchmarkEnd(end_ns[r])),
 * then the tail; frames are made a batch at a time, never all at once. */
typedef struct pipeline {
    int32_t pid;
    const uint64_t *start_ns, *end_ns;
    size_t rounds;
    const ompb__cmd *tail;
    size_t n, packed, acked;
    uint8_t out[BATCH_BYTES];
    size_t out_len, out_off;
    uint8_t acks[ACK_BUF_FRAMES * OMPB__FRAME_MIN];
    size_t ack_have;
} pipeline;

/* Records why an I/O step failed where it failed, before a later call can
 * overwrite errno. */
int ompb__transport_io_failed(ompb_error *err, const char *step, int errnum);
/* Writes all of buf, waiting with poll until the deadline when the pipe is full. */
int ompb__transport_write_all(int fd, const uint8_t *buf, size_t len, uint64_t deadline,
                              ompb_error *err);
/* Discards whatever the pipe holds now, without waiting. */
void ompb__transport_drain(int fd);
/* Reads exactly one reply frame from t's ack pipe into buf (room for
 * OMPB__FRAME_MIN + REPLY_PAYLOAD_MAX bytes) and decodes it. */
int ompb__transport_read_reply(const ompb__transport *t, uint8_t *buf, ompb__cmd *reply,
                               uint64_t deadline, ompb_error *err);
/* OMPB_EPROTO unless reply is the answer req expects. */
int ompb__transport_check_reply(const ompb__cmd *req, const ompb__cmd *reply, ompb_error *err);
/* The i-th command of the flush pl. */
ompb__cmd ompb__transport_pipeline_cmd(const pipeline *pl, size_t i);
/* Sends every command of pl and reads its acks, against one deadline. */
int ompb__transport_run_pipeline(const ompb__transport *t, pipeline *pl, uint64_t deadline,
                                 ompb_error *err);

#endif
