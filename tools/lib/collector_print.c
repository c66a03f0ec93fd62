/* SPDX-License-Identifier: MIT */
/*
 * What the collector saw, for people and for scripts: the summary
 * `ompbench collect` prints (windows, dumps, violations) and the same as
 * JSON (docs/protocol.md). Every string came from the integration's frames
 * or files, so control characters are escaped before they reach a terminal.
 */
#include "collector.h"
#include "collector_state.h"

#include <stdio.h>

#include <jansson.h>

#include "core/core.h"

static uint64_t marked_ns(const ompb__collector_window *w)
{
    uint64_t sum = 0;
    for (size_t i = 0; i + 1 < w->n_bounds; i += 2)
        if (w->bounds[i + 1] >= w->bounds[i])
            sum += w->bounds[i + 1] - w->bounds[i];
    return sum;
}

/* A violation's text, escaped: each byte at most four ("\xNN"). */
#define SHOWN_MAX (4 * OMPB__COLLECTOR_VIOLATION_MAX)

static const char *shown(const char *s, char *buf)
{
    ompb__utf8_escape_controls(s, buf, SHOWN_MAX);
    return buf;
}

static void print_window(const ompb__collector *c, const ompb__collector_window *w, FILE *out)
{
    char first[32] = "-", last[32] = "-", marked[32], uri[SHOWN_MAX];
    if (w->n_bounds) {
        ompb__format_duration((double)w->bounds[0] - (double)c->t0, first, sizeof first);
        ompb__format_duration((double)w->bounds[w->n_bounds - 1] - (double)c->t0, last,
                              sizeof last);
    }
    ompb__format_duration((double)marked_ns(w), marked, sizeof marked);
    fprintf(out, "  %6zu  %12s  %12s  %12s  %s\n", w->n_bounds / 2, first, last, marked,
            w->uri ? shown(w->uri, uri) : "(unnamed)");
}

static void print_dumps(const ompb__collector *c, FILE *out)
{
    char name[SHOWN_MAX];
    fprintf(out, "  %14s  %s\n", "instructions", "callgrind dump");
    for (size_t i = 0; i < c->n_dumps; i++)
        fprintf(out, "  %14llu  %s\n", (unsigned long long)c->dumps[i].ir,
                shown(c->dumps[i].name, name));
}

void ompb__collector_print(const ompb__collector *c, FILE *out)
{
    char name[SHOWN_MAX], version[SHOWN_MAX], text[SHOWN_MAX];
    if (c->mode == OMPB__RUNNER_SIMULATION)
        fprintf(out, "ompbench collect: CPU simulation, %zu callgrind dumps", c->n_dumps);
    else if (c->name)
        fprintf(out, "ompbench collect: integration %s %s, protocol v%llu", shown(c->name, name),
                shown(c->version, version), (unsigned long long)c->protocol_version);
    else
        fprintf(out, "ompbench collect: no integration announced");
    fprintf(out, "; %zu frames (%zu undecodable), %zu windows\n", c->frames, c->undecodable,
            c->n_windows);
    if (c->n_windows)
        fprintf(out, "  %6s  %12s  %12s  %12s  %s\n", "rounds", "first marker",
                "last marker", "marked time", "URI");
    for (size_t i = 0; i < c->n_windows; i++)
        print_window(c, &c->windows[i], out);
    if (c->n_dumps)
        print_dumps(c, out);
    if (c->n_results_only)
        fprintf(out, "  results without a window (application regions that ran while another "
                "held the window):\n");
    for (size_t i = 0; i < c->n_results_only; i++)
        fprintf(out, "          %s\n", c->results_only[i]);
    if (c->n_violations == 0) {
        fprintf(out, "ompbench collect: all checks passed\n");
        return;
    }
    fprintf(out, "ompbench collect: %zu violation%s:\n", c->n_violations,
            c->n_violations == 1 ? "" : "s");
    for (size_t i = 0; i < c->n_violations && i <= c->n_texts; i++)
        fprintf(out, "  - %s\n", shown(ompb__collector_violation_text(c, i), text));
}

static json_t *window_json(const ompb__collector_window *w)
{
    json_t *pairs = json_array();
    for (size_t i = 0; pairs && i + 1 < w->n_bounds; i += 2)
        json_array_append_new(pairs, json_pack("[I, I]", (json_int_t)w->bounds[i],
                                               (json_int_t)w->bounds[i + 1]));
    return json_pack("{s:s?, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
                     "uri", w->uri, "pid", (int)w->pid,
                     "window_start_ns", (json_int_t)w->start_ns,
                     "window_stop_ns", (json_int_t)w->stop_ns,
                     "rounds", (json_int_t)(w->n_bounds / 2),
                     "first_marker_ns", (json_int_t)(w->n_bounds ? w->bounds[0] : 0),
                     "last_marker_ns",
                     (json_int_t)(w->n_bounds ? w->bounds[w->n_bounds - 1] : 0),
                     "marked_ns", (json_int_t)marked_ns(w),
                     "sample_markers", (json_int_t)w->sample_markers, "pairs", pairs);
}

static json_t *lists_json(const ompb__collector *c, json_t *root)
{
    json_t *windows = json_array(), *dumps = json_array(), *violations = json_array();
    json_t *counts = json_object(), *results_only = json_array();
    for (size_t i = 0; i < c->n_results_only; i++)
        json_array_append_new(results_only, json_string(c->results_only[i]));
    json_object_set_new(root, "results_without_window", results_only);
    for (size_t i = 0; i < c->n_windows; i++)
        json_array_append_new(windows, window_json(&c->windows[i]));
    for (size_t i = 0; i < c->n_dumps; i++)
        json_array_append_new(dumps, json_pack("{s:I, s:s, s:I}", "pid",
                                               (json_int_t)c->dumps[i].pid, "name",
                                               c->dumps[i].name, "ir",
                                               (json_int_t)c->dumps[i].ir));
    for (size_t i = 0; i < c->n_texts; i++)
        json_array_append_new(violations, json_string(c->violations[i]));
    for (int k = 0; k < OMPB__CMD_COUNT; k++)
        if (c->counts[k])
            json_object_set_new(counts, ompb__cmd_name((uint32_t)k),
                                json_integer((json_int_t)c->counts[k]));
    json_object_set_new(root, "commands", counts);
    json_object_set_new(root, "windows", windows);
    json_object_set_new(root, "dumps", dumps);
    json_object_set_new(root, "violations", violations);
    return root;
}

json_t *ompb__collector_to_json(const ompb__collector *c)
{
    json_t *root = json_pack("{s:b, s:I, s:{s:s?, s:s?}, s:I, s:I, s:I}",
                             "ok", c->n_violations == 0,
                             "violation_count", (json_int_t)c->n_violations,
                             "integration", "name", c->name, "version", c->version,
                             "protocol_version", (json_int_t)c->protocol_version,
                             "frames", (json_int_t)c->frames,
                             "undecodable_frames", (json_int_t)c->undecodable);
    return root ? lists_json(c, root) : NULL;
}
