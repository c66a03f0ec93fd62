/* SPDX-License-Identifier: MIT */
/*
 * A scriptable runner for the transport and hooks tests: it owns a private
 * pair of FIFOs (and points OMPB_RUNNER_*_FIFO at them) and answers as a
 * real runner, or fails the way runners fail: silent, Err, garbage, a wrong
 * reply, a refused SetVersion, death after N answers; or answers right but
 * one byte per write, or late (slow but live). It runs in a thread, or in a child process when the
 * test needs a peer that really dies. A frame with an absurd length ends
 * the connection as for the runner: everything after it is read and
 * dropped, unanswered.
 */
#ifndef OMPB_TESTS_HOOKS_PEER_H
#define OMPB_TESTS_HOOKS_PEER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"

typedef enum {
    PEER_COLLECTOR,      /* answers through an ompb__collector (p->collector) */
    PEER_SILENT,         /* reads, never answers */
    PEER_ERR,            /* answers Err to everything */
    PEER_GARBAGE,        /* answers bytes that are no frame */
    PEER_WRONG_REPLY,    /* answers IntegrationModeResponse to everything */
    PEER_REFUSE_VERSION, /* like a runner, but Err to SetVersion */
    PEER_COUNTING,       /* Ack to all; checks per-pid AddMarker sequences */
    PEER_BYTEWISE,       /* like a runner, but writes each reply a byte at a time */
    PEER_SLOW            /* like a runner, but waits delay_ns before each reply (to
                            delay_kind only, unless it is -1) */
} peer_behavior;

#define PEER_MAX_PIDS 256

typedef struct hooks_peer {
    char dir[64], ctl[96], ack[96];
    int ctl_fd, ack_fd;
    peer_behavior behavior;
    long answer_limit;          /* answer this many frames, then fall silent (-1: no limit) */
    bool exit_at_limit;         /* in a child: exit when the limit is reached */
    uint64_t delay_ns;          /* PEER_SLOW: the wait before a reply */
    int delay_kind;             /* PEER_SLOW: the command kind delayed, -1: all */
    ompb__collector *collector; /* PEER_COLLECTOR */
    pthread_t thread;
    bool thread_running;
    pid_t child;
    atomic_bool stop;
    atomic_bool framing_lost;   /* an absurd length was seen: reading only, to drop */
    atomic_size_t frames, undecodable, sequence_errors;
    uint64_t next_seq[PEER_MAX_PIDS];
} hooks_peer;

/* Creates the FIFOs in a fresh temporary directory, opens them, sets
 * OMPB_RUNNER_CTL_FIFO/OMPB_RUNNER_ACK_FIFO and revives the process's
 * transports (a new runner, a fresh start). Returns 0 or -1. */
int hooks_peer_init(hooks_peer *p, peer_behavior behavior);
/* Starts answering in a thread / in a forked child. Return 0 or -1. */
int hooks_peer_start_thread(hooks_peer *p);
int hooks_peer_start_process(hooks_peer *p);
/* Stops the peer (joins or kills and reaps it). */
void hooks_peer_stop(hooks_peer *p);
/* Stops it if needed, closes and removes the FIFOs, frees the collector,
 * unsets the variables. */
void hooks_peer_destroy(hooks_peer *p);

/* The bare answering loop (runs until p->stop); exposed for the benchmark. */
void hooks_peer_run(hooks_peer *p);

#endif
