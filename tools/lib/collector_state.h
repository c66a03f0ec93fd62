/* SPDX-License-Identifier: MIT */
/*
 * The collector's state, shared by the files that split it by concern:
 * collector.c (the protocol: commands, framing, serving the pipes),
 * collector_results.c (the walltime results-file checker),
 * collector_dumps.c (callgrind dumps in simulation) and collector_print.c
 * (the human and JSON summaries). Nothing outside those files includes it;
 * everyone else sees the opaque handle of collector.h.
 */
#ifndef OMPB_COLLECTOR_STATE_H
#define OMPB_COLLECTOR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector.h"

/* Violations kept as text; more are only counted. */
#define OMPB__COLLECTOR_MAX_TEXTS 200
/* Room for one violation's text, terminator included. */
#define OMPB__COLLECTOR_VIOLATION_MAX 400

typedef enum { ST_IDLE, ST_OPEN, ST_STOPPED } window_state;

struct ompb__collector {
    ompb__runner_mode mode;
    uint64_t t0;
    char *name, *version;
    uint64_t protocol_version;
    size_t frames, undecodable, counts[OMPB__CMD_COUNT];
    bool framing_lost, hello_checked;

    ompb__collector_window *windows;
    size_t n_windows, cap_windows;
    window_state state;

    ompb__collector_dump *dumps;
    size_t n_dumps, cap_dumps;

    char **violations;
    size_t n_violations, n_texts;

    /* Results entries of application regions that had no window (regions
     * that interleave in time cannot each have one: docs/protocol.md). */
    char **results_only;
    size_t n_results_only, cap_results_only;

    uint8_t *in, *out;
    size_t in_len, in_cap, out_len, out_cap;
    unsigned fail_alloc;      /* tests: the allocation that fails (0: none) */
};

/* Grows *buf to hold need elements of elem bytes; false when memory runs
 * out, or when the allocation chosen by ompb__collector_fail_alloc is
 * reached (tests). */
bool ompb__collector_grow(ompb__collector *c, void **buf, size_t *cap, size_t need, size_t elem);

/* A malloc'd, terminated copy of len bytes of s; NULL on ENOMEM. */
char *ompb__collector_copy(const char *s, size_t len);

/* "window #3 (benches/x.c::y)" or "window #3" before it is named; returns buf. */
const char *ompb__collector_window_label(const ompb__collector *c,
                                         const ompb__collector_window *w, char *buf, size_t len);

#endif
