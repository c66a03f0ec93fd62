/* SPDX-License-Identifier: MIT */
/*
 * The runner's side of the protocol, with the checks of collector.h. It is
 * a small state machine over the command stream: idle, a window open, a
 * window stopped and waiting for its CurrentBenchmark. Violations are kept
 * as readable sentences naming the window by index (and URI once known), so
 * a failing integration test says what went wrong, not just that it did.
 */
#include "collector.h"
#include "collector_state.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

#define READ_CHUNK 65536
#define POLL_TICK_MS 50

/* ---- small helpers -------------------------------------------------------- */

bool ompb__collector_grow(ompb__collector *c, void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need > *cap && c->fail_alloc && --c->fail_alloc == 0)
        return false;
    return ompb__grow(buf, cap, need, elem, 16);
}

static void vviolation(ompb__collector *c, const char *fmt, va_list ap)
{
    c->n_violations++;
    if (c->n_texts >= OMPB__COLLECTOR_MAX_TEXTS)
        return;
    char *text = malloc(OMPB__COLLECTOR_VIOLATION_MAX);
    if (!text)
        return;
    vsnprintf(text, OMPB__COLLECTOR_VIOLATION_MAX, fmt, ap);
    c->violations[c->n_texts++] = text;
}

void ompb__collector_fail_alloc(ompb__collector *c, unsigned nth)
{
    c->fail_alloc = nth;
}

void ompb__collector_violation(ompb__collector *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vviolation(c, fmt, ap);
    va_end(ap);
}

static ompb__collector_window *current(ompb__collector *c)
{
    return c->n_windows ? &c->windows[c->n_windows - 1] : NULL;
}

const char *ompb__collector_window_label(const ompb__collector *c,
                                         const ompb__collector_window *w, char *buf, size_t len)
{
    size_t idx = (size_t)(w - c->windows) + 1;
    if (w->uri)
        snprintf(buf, len, "window #%zu (%s)", idx, w->uri);
    else
        snprintf(buf, len, "window #%zu", idx);
    return buf;
}

char *ompb__collector_copy(const char *s, size_t len)
{
    char *p = malloc(len + 1);
    if (p) {
        if (len)
            memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

/* ---- command handlers ----------------------------------------------------- */

static void check_hello(ompb__collector *c)
{
    if (c->hello_checked)
        return;
    c->hello_checked = true;
    if (c->protocol_version == 0)
        ompb__collector_violation(c, "StartBenchmark before SetVersion");
    if (!c->name)
        ompb__collector_violation(c, "StartBenchmark before SetIntegration");
}

/* A window left stopped but unnamed, or open, when something else begins. */
static void close_dangling(ompb__collector *c, uint64_t now, const char *why)
{
    char label[OMPB__STRING_MAX + 32];
    ompb__collector_window *w = current(c);
    if (c->state == ST_OPEN) {
        ompb__collector_violation(c, "%s is still open at %s (no StopBenchmark)",
                                  ompb__collector_window_label(c, w, label, sizeof label), why);
        w->stop_ns = now;
    } else if (c->state == ST_STOPPED) {
        ompb__collector_violation(c, "%s was never named by CurrentBenchmark before %s",
                                  ompb__collector_window_label(c, w, label, sizeof label), why);
    }
    c->state = ST_IDLE;
}

static int on_start(ompb__collector *c, uint64_t now)
{
    check_hello(c);
    close_dangling(c, now, "StartBenchmark");
    if (!ompb__collector_grow(c, (void **)&c->windows, &c->cap_windows, c->n_windows + 1, sizeof *c->windows))
        return OMPB_ENOMEM;
    ompb__collector_window *w = &c->windows[c->n_windows++];
    memset(w, 0, sizeof *w);
    w->pid = w->marker_pid = -1;
    w->start_ns = now;
    c->state = ST_OPEN;
    return 0;
}

static void on_stop(ompb__collector *c, uint64_t now)
{
    char label[OMPB__STRING_MAX + 32];
    ompb__collector_window *w = current(c);
    if (c->state != ST_OPEN) {
        ompb__collector_violation(c, "StopBenchmark without an open window");
        return;
    }
    if (w->n_bounds % 2)
        ompb__collector_violation(c, "%s ends with an unmatched BenchmarkStart",
                                  ompb__collector_window_label(c, w, label, sizeof label));
    w->stop_ns = now;
    c->state = ST_STOPPED;
}

static void check_uri(ompb__collector *c, ompb__collector_window *w)
{
    if (!w->uri[0])
        ompb__collector_violation(c, "window #%zu is named by an empty URI",
                                  (size_t)(w - c->windows) + 1);
    for (ompb__collector_window *o = c->windows; o < w; o++)
        if (o->uri && strcmp(o->uri, w->uri) == 0)
            ompb__collector_violation(c, "URI %s names both window #%zu and window #%zu",
                                      w->uri, (size_t)(o - c->windows) + 1,
                                      (size_t)(w - c->windows) + 1);
    if (w->marker_pid >= 0 && w->marker_pid != w->pid)
        ompb__collector_violation(c, "%s: markers came with pid %d, CurrentBenchmark with "
                                  "pid %d", w->uri, (int)w->marker_pid, (int)w->pid);
}

static int on_current(ompb__collector *c, const ompb__cmd *cmd)
{
    if (c->state != ST_STOPPED) {
        ompb__collector_violation(c, "CurrentBenchmark(%.*s) %s", (int)cmd->len[0],
                                  cmd->str[0], c->state == ST_OPEN
                                  ? "inside an open window (before StopBenchmark)"
                                  : "names no window (no StopBenchmark since the last one)");
        return 0;
    }
    ompb__collector_window *w = current(c);
    w->uri = ompb__collector_copy(cmd->str[0], cmd->len[0]);
    if (!w->uri)
        return OMPB_ENOMEM;
    w->pid = cmd->pid;
    c->state = ST_IDLE;
    check_uri(c, w);
    return 0;
}

/* Strict alternation, time order, and the window's lower bound. */
static void check_bound(ompb__collector *c, ompb__collector_window *w, const ompb__cmd *cmd,
                        uint64_t now)
{
    char label[OMPB__STRING_MAX + 32];
    const char *what = ompb__marker_name(cmd->marker);
    uint32_t want = w->n_bounds % 2 ? OMPB_MARKER_BENCHMARK_END : OMPB_MARKER_BENCHMARK_START;
    ompb__collector_window_label(c, w, label, sizeof label);
    if (cmd->marker != want)
        ompb__collector_violation(c, "%s: %s where %s was due (marker %zu)", label, what,
                                  ompb__marker_name(want), w->n_bounds + 1);
    if (w->n_bounds && cmd->ns < w->bounds[w->n_bounds - 1])
        ompb__collector_violation(c, "%s: %s at %llu ns is earlier than the marker before it "
                                  "(%llu ns)", label, what, (unsigned long long)cmd->ns,
                                  (unsigned long long)w->bounds[w->n_bounds - 1]);
    if (cmd->ns < w->start_ns)
        ompb__collector_violation(c, "%s: %s at %llu ns precedes its StartBenchmark "
                                  "(%llu ns)", label, what, (unsigned long long)cmd->ns,
                                  (unsigned long long)w->start_ns);
    if (cmd->ns > now)
        ompb__collector_violation(c, "%s: %s at %llu ns is later than its arrival (%llu ns)",
                                  label, what, (unsigned long long)cmd->ns,
                                  (unsigned long long)now);
}

static int on_marker(ompb__collector *c, const ompb__cmd *cmd, uint64_t now)
{
    ompb__collector_window *w = current(c);
    if (c->state != ST_OPEN) {
        ompb__collector_violation(c, "AddMarker(%s) outside a benchmark window",
                                  ompb__marker_name(cmd->marker));
        return 0;
    }
    if (w->marker_pid < 0)
        w->marker_pid = cmd->pid;
    else if (w->marker_pid != cmd->pid)
        ompb__collector_violation(c, "window #%zu: markers from pids %d and %d",
                                  (size_t)(w - c->windows) + 1, (int)w->marker_pid,
                                  (int)cmd->pid);
    if (cmd->marker < OMPB_MARKER_BENCHMARK_START) {
        w->sample_markers++;
        return 0;
    }
    check_bound(c, w, cmd, now);
    if (!ompb__collector_grow(c, (void **)&w->bounds, &w->cap_bounds, w->n_bounds + 1, sizeof *w->bounds))
        return OMPB_ENOMEM;
    w->bounds[w->n_bounds++] = cmd->ns;
    return 0;
}

static int on_integration(ompb__collector *c, const ompb__cmd *cmd)
{
    free(c->name);
    free(c->version);
    c->name = ompb__collector_copy(cmd->str[0], cmd->len[0]);
    c->version = ompb__collector_copy(cmd->str[1], cmd->len[1]);
    return c->name && c->version ? 0 : OMPB_ENOMEM;
}

static bool on_version(ompb__collector *c, const ompb__cmd *cmd)
{
    if (cmd->version < 1 || cmd->version > OMPB__PROTOCOL_VERSION) {
        ompb__collector_violation(c, "SetVersion(%llu) outside [1, %u]: the runner aborts "
                                  "the run", (unsigned long long)cmd->version,
                                  OMPB__PROTOCOL_VERSION);
        return false;
    }
    c->protocol_version = cmd->version;
    return true;
}

/* Returns false when the reply must be Err. */
static bool dispatch(ompb__collector *c, const ompb__cmd *cmd, uint64_t now, int *rc)
{
    switch (cmd->kind) {
    case OMPB__CMD_START_BENCHMARK: *rc = on_start(c, now); return true;
    case OMPB__CMD_STOP_BENCHMARK: on_stop(c, now); return true;
    case OMPB__CMD_CURRENT_BENCHMARK: *rc = on_current(c, cmd); return true;
    case OMPB__CMD_ADD_MARKER: *rc = on_marker(c, cmd, now); return true;
    case OMPB__CMD_SET_INTEGRATION: *rc = on_integration(c, cmd); return true;
    case OMPB__CMD_SET_VERSION: return on_version(c, cmd);
    case OMPB__CMD_PING_PERF: return true;
    case OMPB__CMD_GET_INTEGRATION_MODE: return true;
    default:
        ompb__collector_violation(c, "%s sent by the integration (a runner-only command)",
                                  ompb__cmd_name(cmd->kind));
        return false;
    }
}

/* ---- framing -------------------------------------------------------------- */

/* Longest reply: IntegrationModeResponse. */
#define REPLY_MAX (OMPB__FRAME_MIN + 4)

static void queue_reply(ompb__collector *c, const ompb__cmd *reply)
{
    size_t len;
    if (ompb__cmd_encode(reply, c->out + c->out_len, c->out_cap - c->out_len, &len) == 0)
        c->out_len += len;
}

static int handle_frame(ompb__collector *c, const uint8_t *frame, size_t len)
{
    ompb__cmd cmd, reply;
    ompb_error err = {0};
    /* Room for the reply before anything else: a frame that cannot be
     * answered now is left whole for the next feed, never handled twice. */
    if (!ompb__collector_grow(c, (void **)&c->out, &c->out_cap, c->out_len + REPLY_MAX, 1))
        return OMPB_ENOMEM;
    c->frames++;
    if (ompb__cmd_decode(frame + OMPB__FRAME_HEADER, len - OMPB__FRAME_HEADER, &cmd, &err)) {
        c->undecodable++;
        ompb__collector_violation(c, "frame %zu: %s", c->frames, err.text);
        reply = ompb__cmd_simple(OMPB__CMD_ERR);
    } else {
        ompb__collector_handle(c, &cmd, ompb__now_ns(), &reply);
    }
    queue_reply(c, &reply);
    return 0;
}

static int lose_framing(ompb__collector *c)
{
    uint32_t n = (uint32_t)c->in[0] | (uint32_t)c->in[1] << 8 | (uint32_t)c->in[2] << 16
                 | (uint32_t)c->in[3] << 24;
    c->framing_lost = true;
    c->undecodable++;
    ompb__collector_violation(c, "frame %zu declares a %u-byte payload: framing lost, "
                              "nothing after it is read (the runner would abort)",
                              c->frames + 1, n);
    c->in_len = 0;
    return OMPB_EPROTO;
}

/* ---- public functions ----------------------------------------------------- */

ompb__collector *ompb__collector_new(ompb__runner_mode mode)
{
    ompb__collector *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->violations = calloc(OMPB__COLLECTOR_MAX_TEXTS, sizeof *c->violations);
    if (!c->violations) {
        free(c);
        return NULL;
    }
    c->mode = mode;
    c->t0 = ompb__now_ns();
    return c;
}

void ompb__collector_free(ompb__collector *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_windows; i++) {
        free(c->windows[i].uri);
        free(c->windows[i].bounds);
    }
    for (size_t i = 0; i < c->n_dumps; i++)
        free(c->dumps[i].name);
    for (size_t i = 0; i < c->n_texts; i++)
        free(c->violations[i]);
    free(c->violations);
    for (size_t i = 0; i < c->n_results_only; i++)
        free(c->results_only[i]);
    free(c->results_only);
    free(c->windows);
    free(c->dumps);
    free(c->name);
    free(c->version);
    free(c->in);
    free(c->out);
    free(c);
}

void ompb__collector_handle(ompb__collector *c, const ompb__cmd *cmd, uint64_t now_ns,
                            ompb__cmd *reply)
{
    int rc = 0;
    if ((unsigned)cmd->kind < OMPB__CMD_COUNT)
        c->counts[cmd->kind]++;
    bool ok = dispatch(c, cmd, now_ns, &rc);
    if (rc == OMPB_ENOMEM)
        ompb__collector_violation(c, "collector out of memory");
    if (!ok)
        *reply = ompb__cmd_simple(OMPB__CMD_ERR);
    else if (cmd->kind == OMPB__CMD_GET_INTEGRATION_MODE)
        *reply = ompb__cmd_mode_response(c->mode);
    else
        *reply = ompb__cmd_simple(OMPB__CMD_ACK);
}

int ompb__collector_feed(ompb__collector *c, const uint8_t *buf, size_t len)
{
    if (c->framing_lost)
        return OMPB_EPROTO;
    /* Nothing held, nothing new: c->in may still be NULL, and NULL + 0 is
     * undefined behaviour. */
    if (c->in_len == 0 && len == 0)
        return 0;
    if (!ompb__collector_grow(c, (void **)&c->in, &c->in_cap, c->in_len + len, 1))
        return OMPB_ENOMEM;
    if (len)
        memcpy(c->in + c->in_len, buf, len);
    c->in_len += len;
    size_t off = 0, flen;
    int r, rc = 0;
    while ((r = ompb__frame_peek(c->in + off, c->in_len - off, &flen)) == 1) {
        if ((rc = handle_frame(c, c->in + off, flen)) != 0)
            break;
        off += flen;
    }
    /* Consume exactly the frames handled, also when one could not be. */
    memmove(c->in, c->in + off, c->in_len - off);
    c->in_len -= off;
    if (rc)
        return rc;
    return r < 0 ? lose_framing(c) : 0;
}

const uint8_t *ompb__collector_replies(const ompb__collector *c, size_t *len)
{
    *len = c->out_len;
    return c->out;
}

void ompb__collector_consume(ompb__collector *c, size_t n)
{
    n = n < c->out_len ? n : c->out_len;
    if (n == 0)
        return; /* c->out may be NULL: no NULL + 0 */
    memmove(c->out, c->out + n, c->out_len - n);
    c->out_len -= n;
}

/* Reads what ctl holds and answers; returns 1 when something was read.
 * Lost framing is a violation already recorded: reading goes on (and
 * discards), so the command never blocks on a full pipe. */
static int serve_once(ompb__collector *c, int ctl_fd, int ack_fd, uint8_t *buf)
{
    ssize_t r = read(ctl_fd, buf, READ_CHUNK);
    if (r < 0 && errno != EAGAIN && errno != EINTR)
        return OMPB_EIO;
    if (r > 0 && ompb__collector_feed(c, buf, (size_t)r) == OMPB_ENOMEM)
        return OMPB_ENOMEM;
    while (c->out_len) {
        ssize_t w = write(ack_fd, c->out, c->out_len);
        if (w <= 0)
            break;
        ompb__collector_consume(c, (size_t)w);
    }
    return r > 0;
}

int ompb__collector_serve(ompb__collector *c, int ctl_fd, int ack_fd, int stop_fd,
                          const atomic_bool *stop)
{
    uint8_t *buf = malloc(READ_CHUNK);
    if (!buf)
        return OMPB_ENOMEM;
    int rc = 0;
    while (!(stop && atomic_load(stop))) {
        struct pollfd fds[3] = {{.fd = ctl_fd, .events = POLLIN},
                                {.fd = stop_fd, .events = POLLIN},
                                {.fd = ack_fd, .events = c->out_len ? POLLOUT : 0}};
        int n = poll(fds, 3, POLL_TICK_MS);
        if (n < 0 && errno != EINTR) {
            rc = OMPB_EIO;
            break;
        }
        if ((rc = serve_once(c, ctl_fd, ack_fd, buf)) < 0)
            break;
        rc = 0;
        if (stop_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            break;
    }
    while (rc == 0 && serve_once(c, ctl_fd, ack_fd, buf) > 0)
        continue;
    free(buf);
    return rc;
}

/* Bytes left of a frame that never arrived whole: the runner would wait
 * for the rest, and the command that sent it has gone. */
static void check_trailing_bytes(ompb__collector *c)
{
    if (c->framing_lost || c->in_len == 0)
        return;
    if (c->in_len < OMPB__FRAME_HEADER) {
        ompb__collector_violation(c, "the stream ends inside frame %zu: %zu of its %d length "
                                  "bytes arrived", c->frames + 1, c->in_len, OMPB__FRAME_HEADER);
        return;
    }
    uint32_t n = (uint32_t)c->in[0] | (uint32_t)c->in[1] << 8 | (uint32_t)c->in[2] << 16
                 | (uint32_t)c->in[3] << 24;
    ompb__collector_violation(c, "the stream ends inside frame %zu: %zu of its %llu bytes "
                              "arrived (a truncated frame)", c->frames + 1, c->in_len,
                              (unsigned long long)n + OMPB__FRAME_HEADER);
}

void ompb__collector_finish(ompb__collector *c, bool expect_frames)
{
    check_trailing_bytes(c);
    close_dangling(c, ompb__now_ns(), "the end of the run");
    if (expect_frames && c->frames == 0)
        ompb__collector_violation(c, "no frame received: the command never talked to the "
                                  "runner");
}


/* ---- read access ---------------------------------------------------------- */

const ompb__collector_window *ompb__collector_windows(const ompb__collector *c, size_t *n)
{
    *n = c->n_windows;
    return c->windows;
}

const ompb__collector_dump *ompb__collector_dumps(const ompb__collector *c, size_t *n)
{
    *n = c->n_dumps;
    return c->dumps;
}

size_t ompb__collector_violation_count(const ompb__collector *c)
{
    return c->n_violations;
}

const char *ompb__collector_violation_text(const ompb__collector *c, size_t i)
{
    return i < c->n_texts ? c->violations[i] : "(more violations, not kept)";
}

size_t ompb__collector_frames(const ompb__collector *c)
{
    return c->frames;
}

size_t ompb__collector_command_count(const ompb__collector *c, ompb__cmd_kind kind)
{
    return (unsigned)kind < OMPB__CMD_COUNT ? c->counts[kind] : 0;
}

size_t ompb__collector_undecodable(const ompb__collector *c)
{
    return c->undecodable;
}

const char *ompb__collector_integration(const ompb__collector *c, const char **version)
{
    if (version)
        *version = c->version;
    return c->name;
}

uint64_t ompb__collector_protocol_version(const ompb__collector *c)
{
    return c->protocol_version;
}
