/* SPDX-License-Identifier: MIT */
/*
 * The collector: the runner's side of the protocol, for `ompbench collect`
 * and the tests. It answers every command as the runner does, records the
 * integration, the protocol version, each benchmark window with its markers
 * and URI, and checks what the runner relies on:
 *
 * - every frame decodes (a bad length loses the framing: nothing after it
 *   is read or answered, as with the runner);
 * - SetVersion within [1, 2], SetVersion and SetIntegration before the
 *   first StartBenchmark;
 * - StartBenchmark/StopBenchmark alternate; each stopped window is named
 *   by exactly one CurrentBenchmark before the next one opens; URIs are
 *   unique; marker and CurrentBenchmark pids agree;
 * - inside a window, BenchmarkStart/BenchmarkEnd alternate strictly, are
 *   time-ordered (so end >= start), and lie between the window's
 *   StartBenchmark and the frame's arrival (hence before StopBenchmark);
 * - optionally, that the walltime results files agree with the markers:
 *   the runner's schema with its types, exactly one entry per window with
 *   markers, in the file of the process that named the window, and
 *   statistics that match the marker pairs; an entry without a window is
 *   a violation, except for application regions ("<file>::region:..."
 *   URIs), which cannot each have a window when they interleave in time:
 *   those are listed as results without a window;
 * - in simulation, one "Metadata: " callgrind dump per process.
 *
 * Timestamps of windows are the collector's CLOCK_MONOTONIC at the moment
 * it handles the frame, as the runner stamps them.
 */
#ifndef OMPB_COLLECTOR_H
#define OMPB_COLLECTOR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "hooks/hooks.h"

typedef struct ompb__collector ompb__collector;

/* One StartBenchmark .. StopBenchmark window. */
typedef struct ompb__collector_window {
    char *uri;                /* from CurrentBenchmark; NULL until named */
    int32_t pid;              /* of CurrentBenchmark; -1 until named */
    int32_t marker_pid;       /* of the first marker; -1 without markers */
    uint64_t start_ns;        /* collector clock at StartBenchmark */
    uint64_t stop_ns;         /* at StopBenchmark; 0 while open */
    uint64_t *bounds;         /* BenchmarkStart/End timestamps: s0 e0 s1 e1 ... */
    size_t n_bounds, cap_bounds;
    size_t sample_markers;    /* SampleStart/SampleEnd markers (recorded, unchecked) */
    size_t results_entries;   /* entries naming it in the results files checked */
} ompb__collector_window;

/* A callgrind dump seen in simulation mode. */
typedef struct ompb__collector_dump {
    long pid;                 /* of the process that dumped (callgrind.<pid>.out) */
    char *name;               /* the dump's trigger: a URI or "Metadata: ..." */
    uint64_t ir;              /* instructions counted in the dump */
} ompb__collector_dump;

/* A collector answering GetIntegrationMode with mode. NULL on ENOMEM.
 * Freed with ompb__collector_free. */
ompb__collector *ompb__collector_new(ompb__runner_mode mode);
void ompb__collector_free(ompb__collector *c);

/* Handles one decoded command that arrived at now_ns; *reply gets the
 * answer (Ack, Err or IntegrationModeResponse). */
void ompb__collector_handle(ompb__collector *c, const ompb__cmd *cmd, uint64_t now_ns,
                            ompb__cmd *reply);

/* Feeds bytes read from the ctl pipe: whole frames are decoded and handled
 * and their encoded replies queued (ompb__collector_replies). Returns 0, or
 * OMPB_EPROTO once the framing is lost; OMPB_ENOMEM, in which case the
 * frames handled so far are consumed and the rest is kept for the next
 * call (len may be 0 to retry). */
int ompb__collector_feed(ompb__collector *c, const uint8_t *buf, size_t len);
/* Queued reply bytes; ompb__collector_consume(c, n) drops the first n. */
const uint8_t *ompb__collector_replies(const ompb__collector *c, size_t *len);
void ompb__collector_consume(ompb__collector *c, size_t n);

/*
 * Serves the pipes until stop_fd (a pipe or pidfd) becomes readable or
 * *stop becomes true (checked at least every 50 ms), then reads what is left
 * in ctl once more. ctl_fd/ack_fd are non-blocking. Returns 0, or OMPB_EIO
 * when the pipes fail, OMPB_ENOMEM. stop_fd may be -1 and stop NULL.
 */
int ompb__collector_serve(ompb__collector *c, int ctl_fd, int ack_fd, int stop_fd,
                          const atomic_bool *stop);

/* End of the stream: an open or unnamed window is a violation, and so are
 * bytes of a frame that never arrived whole. With expect_frames, receiving
 * no frame at all is one too. */
void ompb__collector_finish(ompb__collector *c, bool expect_frames);

/* Checks a walltime results file ($CODSPEED_PROFILE_FOLDER/results/<pid>.json)
 * against the recorded windows: the runner's schema, field by field with
 * types (creator{name, version, pid}, instrument.type "walltime", each
 * entry's name, uri, config{...} and stats{...}); every entry names a
 * window of the process creator.pid, once over all files checked; rounds
 * equal its marker pairs, total/min/max times match the pairs. Mismatches
 * are violations; returns 0, or OMPB_EIO/OMPB_EPROTO when the file cannot
 * be read or its header is wrong (also a violation). */
int ompb__collector_check_results(ompb__collector *c, const char *path);
/* After the results files: every window with markers that no entry named
 * is a violation. */
void ompb__collector_check_results_coverage(ompb__collector *c);

/* Records one callgrind dump of process pid (simulation mode);
 * ompb__collector_check_dumps then wants exactly one "Metadata: " dump per
 * process that dumped, at least one benchmark dump, and unique, non-empty
 * benchmark names. */
int ompb__collector_add_dump(ompb__collector *c, long pid, const char *name, uint64_t ir);
void ompb__collector_check_dumps(ompb__collector *c);

/* Tests only: the nth allocation of the collector from now on fails, as
 * when memory runs out (0: none). */
void ompb__collector_fail_alloc(ompb__collector *c, unsigned nth);

/* Records a violation found outside the collector (e.g. the command failed). */
void ompb__collector_violation(ompb__collector *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Read access for tests and reports. Pointers stay valid until the next
 * call that changes the collector. */
const ompb__collector_window *ompb__collector_windows(const ompb__collector *c, size_t *n);
const ompb__collector_dump *ompb__collector_dumps(const ompb__collector *c, size_t *n);
size_t ompb__collector_violation_count(const ompb__collector *c);
const char *ompb__collector_violation_text(const ompb__collector *c, size_t i);
size_t ompb__collector_frames(const ompb__collector *c);
size_t ompb__collector_command_count(const ompb__collector *c, ompb__cmd_kind kind);
size_t ompb__collector_undecodable(const ompb__collector *c);
/* Announced integration and protocol version; NULL / 0 when never sent. */
const char *ompb__collector_integration(const ompb__collector *c, const char **version);
uint64_t ompb__collector_protocol_version(const ompb__collector *c);

/* Human summary: per URI the rounds seen, first/last marker (relative to
 * the collector's start), total marked time; then the violations. */
void ompb__collector_print(const ompb__collector *c, FILE *out);
/* The same as a JSON object (docs/protocol.md). New reference. */
json_t *ompb__collector_to_json(const ompb__collector *c);

#endif
