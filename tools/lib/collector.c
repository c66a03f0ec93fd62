/* SPDX-License-Identifier: MIT */
/*
 * The runner's side of the protocol, with the checks of collector.h. It is
 * a small state machine over the command stream: idle, a window open, a
 * window stopped and waiting for its CurrentBenchmark. Violations are kept
 * as readable sentences naming the window by index (and URI once known), so
 * a failing integration test says what went wrong, not just that it did.
 */
#include "collector.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"
#include "grow.h"
#include "utf8.h"

/* Violations kept as text; more are only counted. */
#define MAX_VIOLATION_TEXTS 200
#define VIOLATION_MAX 400
#define READ_CHUNK 65536
#define POLL_TICK_MS 50
/* Results-file numbers are doubles printed by jansson: allow rounding. */
#define REL_TOLERANCE 1e-9

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

/* ---- small helpers -------------------------------------------------------- */

static bool grow(ompb__collector *c, void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need > *cap && c->fail_alloc && --c->fail_alloc == 0)
        return false;
    return ompb__grow(buf, cap, need, elem, 16);
}

static void vviolation(ompb__collector *c, const char *fmt, va_list ap)
{
    c->n_violations++;
    if (c->n_texts >= MAX_VIOLATION_TEXTS)
        return;
    char *text = malloc(VIOLATION_MAX);
    if (!text)
        return;
    vsnprintf(text, VIOLATION_MAX, fmt, ap);
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

/* "window #3 (benches/x.c::y)" or "window #3" before it is named. */
static const char *window_label(const ompb__collector *c, const ompb__collector_window *w,
                                char *buf, size_t len)
{
    size_t idx = (size_t)(w - c->windows) + 1;
    if (w->uri)
        snprintf(buf, len, "window #%zu (%s)", idx, w->uri);
    else
        snprintf(buf, len, "window #%zu", idx);
    return buf;
}

static char *copy_string(const char *s, size_t len)
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
                                  window_label(c, w, label, sizeof label), why);
        w->stop_ns = now;
    } else if (c->state == ST_STOPPED) {
        ompb__collector_violation(c, "%s was never named by CurrentBenchmark before %s",
                                  window_label(c, w, label, sizeof label), why);
    }
    c->state = ST_IDLE;
}

static int on_start(ompb__collector *c, uint64_t now)
{
    check_hello(c);
    close_dangling(c, now, "StartBenchmark");
    if (!grow(c, (void **)&c->windows, &c->cap_windows, c->n_windows + 1, sizeof *c->windows))
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
                                  window_label(c, w, label, sizeof label));
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
    w->uri = copy_string(cmd->str[0], cmd->len[0]);
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
    window_label(c, w, label, sizeof label);
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
    if (!grow(c, (void **)&w->bounds, &w->cap_bounds, w->n_bounds + 1, sizeof *w->bounds))
        return OMPB_ENOMEM;
    w->bounds[w->n_bounds++] = cmd->ns;
    return 0;
}

static int on_integration(ompb__collector *c, const ompb__cmd *cmd)
{
    free(c->name);
    free(c->version);
    c->name = copy_string(cmd->str[0], cmd->len[0]);
    c->version = copy_string(cmd->str[1], cmd->len[1]);
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
    if (!grow(c, (void **)&c->out, &c->out_cap, c->out_len + REPLY_MAX, 1))
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
    c->violations = calloc(MAX_VIOLATION_TEXTS, sizeof *c->violations);
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
    if (!grow(c, (void **)&c->in, &c->in_cap, c->in_len + len, 1))
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

/* ---- results file --------------------------------------------------------- */

/* Field types of the runner's schema (serde): f64 takes any JSON number,
 * u64 only a non-negative integer. */
typedef enum { FIELD_STRING, FIELD_NUMBER, FIELD_COUNT } field_type;

typedef struct field {
    const char *key;
    field_type type;
} field;

static const field creator_fields[] = {
    {"name", FIELD_STRING}, {"version", FIELD_STRING}, {"pid", FIELD_COUNT}};
static const field entry_fields[] = {{"name", FIELD_STRING}, {"uri", FIELD_STRING}};
static const field config_fields[] = {
    {"warmup_time_ns", FIELD_NUMBER}, {"min_round_time_ns", FIELD_NUMBER},
    {"max_time_ns", FIELD_NUMBER}, {"max_rounds", FIELD_COUNT}};
static const field stats_fields[] = {
    {"min_ns", FIELD_NUMBER}, {"max_ns", FIELD_NUMBER}, {"mean_ns", FIELD_NUMBER},
    {"stdev_ns", FIELD_NUMBER}, {"q1_ns", FIELD_NUMBER}, {"median_ns", FIELD_NUMBER},
    {"q3_ns", FIELD_NUMBER}, {"rounds", FIELD_COUNT}, {"total_time", FIELD_NUMBER},
    {"iqr_outlier_rounds", FIELD_COUNT}, {"stdev_outlier_rounds", FIELD_COUNT},
    {"iter_per_round", FIELD_COUNT}, {"warmup_iters", FIELD_COUNT}};
#define N_FIELDS(a) (sizeof a / sizeof a[0])

static const char *type_name(field_type t)
{
    return t == FIELD_STRING ? "a string" : t == FIELD_NUMBER ? "a number"
                                                               : "a non-negative integer";
}

static bool has_type(const json_t *v, field_type t)
{
    if (t == FIELD_STRING)
        return json_is_string(v);
    if (t == FIELD_NUMBER)
        return json_is_number(v);
    return json_is_integer(v) && json_integer_value(v) >= 0;
}

/* where.key must exist with its type, for every field; each one that does
 * not is a violation of its own. Returns true when all do. */
static bool check_fields(ompb__collector *c, const char *where, const char *key,
                         const json_t *parent, const field *f, size_t n)
{
    const json_t *obj = key ? json_object_get(parent, key) : parent;
    bool ok = true;
    if (!json_is_object(obj)) {
        ompb__collector_violation(c, "%s: %s is %s (expected an object)", where,
                                  key ? key : "the entry", obj ? "not an object" : "missing");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_object_get(obj, f[i].key);
        if (has_type(v, f[i].type))
            continue;
        ompb__collector_violation(c, "%s: %s%s%s is %s (expected %s)", where, key ? key : "",
                                  key ? "." : "", f[i].key, v ? "of the wrong type" : "missing",
                                  type_name(f[i].type));
        ok = false;
    }
    return ok;
}

static ompb__collector_window *find_window(ompb__collector *c, const char *uri)
{
    for (size_t i = 0; i < c->n_windows; i++)
        if (c->windows[i].uri && strcmp(c->windows[i].uri, uri) == 0)
            return &c->windows[i];
    return NULL;
}

static bool close_enough(double a, double b)
{
    return fabs(a - b) <= REL_TOLERANCE * fmax(fabs(a), fabs(b)) + 1e-6;
}

/* Per-iteration extremes and total of a window's pairs. */
static void window_times(const ompb__collector_window *w, double iters, double *min,
                         double *max, double *total)
{
    *min = INFINITY;
    *max = *total = 0;
    for (size_t i = 0; i + 1 < w->n_bounds; i += 2) {
        /* Signed: a reversed pair (already a violation) must not wrap. */
        double span = (double)w->bounds[i + 1] - (double)w->bounds[i];
        *min = fmin(*min, span / iters);
        *max = fmax(*max, span / iters);
        *total += span;
    }
}

static double number(const json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

/* The entry's numbers against the window's marker pairs. */
static void check_against_markers(ompb__collector *c, const char *where,
                                  const ompb__collector_window *w, const json_t *stats)
{
    json_int_t rounds = json_integer_value(json_object_get(stats, "rounds"));
    json_int_t iters = json_integer_value(json_object_get(stats, "iter_per_round"));
    double min_ns = number(stats, "min_ns"), max_ns = number(stats, "max_ns");
    double total_s = number(stats, "total_time"), wmin, wmax, wtotal;
    if ((size_t)rounds != w->n_bounds / 2) {
        ompb__collector_violation(c, "%s reports %lld rounds, the runner saw %zu marker "
                                  "pairs", where, (long long)rounds, w->n_bounds / 2);
        return;
    }
    if (iters <= 0) {
        ompb__collector_violation(c, "%s: stats.iter_per_round is 0", where);
        return;
    }
    window_times(w, (double)iters, &wmin, &wmax, &wtotal);
    if (!close_enough(min_ns, wmin) || !close_enough(max_ns, wmax)
        || !close_enough(total_s * 1e9, wtotal))
        ompb__collector_violation(c, "%s: stats (min %.6g ns, max %.6g ns, total %.9g s) do "
                                  "not match its markers (min %.6g, max %.6g, total %.9g s)",
                                  where, min_ns, max_ns, total_s, wmin, wmax, wtotal * 1e-9);
}

/* An application region's URI ("<file>::region:NAME[t=T]"): the runner
 * gets one window at a time, so a region that ran while another held the
 * window has statistics but no window. */
#define REGION_URI_PART "::region:"

static void add_results_only(ompb__collector *c, const char *uri)
{
    for (size_t i = 0; i < c->n_results_only; i++)
        if (strcmp(c->results_only[i], uri) == 0) {
            ompb__collector_violation(c, "%s appears more than once in the results files", uri);
            return;
        }
    char *copy = copy_string(uri, strlen(uri));
    if (!copy || !grow(c, (void **)&c->results_only, &c->cap_results_only,
                       c->n_results_only + 1, sizeof *c->results_only)) {
        free(copy);
        ompb__collector_violation(c, "collector out of memory");
        return;
    }
    c->results_only[c->n_results_only++] = copy;
}

/* One entry of a results file written by process pid (-1: unknown). */
static void check_entry(ompb__collector *c, const char *path, size_t index, json_int_t pid,
                        const json_t *b)
{
    char where[OMPB__STRING_MAX + 64];
    const char *uri = json_string_value(json_object_get(b, "uri"));
    if (uri)
        snprintf(where, sizeof where, "%s: %s", path, uri);
    else
        snprintf(where, sizeof where, "%s: benchmarks[%zu]", path, index);
    bool ok = check_fields(c, where, NULL, b, entry_fields, N_FIELDS(entry_fields));
    ok &= check_fields(c, where, "config", b, config_fields, N_FIELDS(config_fields));
    ok &= check_fields(c, where, "stats", b, stats_fields, N_FIELDS(stats_fields));
    ompb__collector_window *w = uri ? find_window(c, uri) : NULL;
    if (uri && !w && strstr(uri, REGION_URI_PART)) {
        add_results_only(c, uri);
        return;
    }
    if (uri && !w) {
        ompb__collector_violation(c, "%s has results but no benchmark window", where);
        return;
    }
    if (!w || ++w->results_entries > 1) {
        if (w && w->results_entries == 2)
            ompb__collector_violation(c, "%s appears more than once in the results files",
                                      where);
        return;
    }
    if (pid >= 0 && w->pid != pid)
        ompb__collector_violation(c, "%s: window named by pid %d, entry in the results of "
                                  "pid %lld", where, (int)w->pid, (long long)pid);
    if (ok)
        check_against_markers(c, where, w, json_object_get(b, "stats"));
}

/* creator, instrument and benchmarks; *pid gets creator.pid, -1 without. */
static int check_header(ompb__collector *c, const char *path, const json_t *root,
                        json_int_t *pid)
{
    const char *type = json_string_value(json_object_get(json_object_get(root, "instrument"),
                                                         "type"));
    bool ok = check_fields(c, path, "creator", root, creator_fields, N_FIELDS(creator_fields));
    if (!type || strcmp(type, "walltime") != 0) {
        ompb__collector_violation(c, "%s: instrument.type is %s%s%s (expected \"walltime\")",
                                  path, type ? "\"" : "missing", type ? type : "",
                                  type ? "\"" : "");
        ok = false;
    }
    const json_t *benchmarks = json_object_get(root, "benchmarks");
    if (!json_is_array(benchmarks)) {
        ompb__collector_violation(c, "%s: benchmarks is missing or not an array", path);
        ok = false;
    } else if (json_array_size(benchmarks) == 0) {
        /* The runner fails the whole upload on such a file. */
        ompb__collector_violation(c, "%s: benchmarks is empty (the runner rejects the upload; "
                                  "write no results file when no instance succeeded)", path);
        ok = false;
    }
    const json_t *p = json_object_get(json_object_get(root, "creator"), "pid");
    *pid = has_type(p, FIELD_COUNT) ? json_integer_value(p) : -1;
    return ok ? 0 : OMPB_EPROTO;
}

int ompb__collector_check_results(ompb__collector *c, const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr), *b;
    json_int_t pid;
    size_t i;
    if (!root) {
        ompb__collector_violation(c, "%s: unreadable results file: %s", path, jerr.text);
        return OMPB_EIO;
    }
    /* A bad header is reported, and the entries are still checked. */
    int rc = check_header(c, path, root, &pid);
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
        check_entry(c, path, i, pid, b);
    json_decref(root);
    return rc;
}

void ompb__collector_check_results_coverage(ompb__collector *c)
{
    char label[OMPB__STRING_MAX + 32];
    for (size_t i = 0; i < c->n_windows; i++) {
        const ompb__collector_window *w = &c->windows[i];
        if (w->n_bounds > 0 && w->results_entries == 0)
            ompb__collector_violation(c, "%s has %zu marker pairs but no entry in a results "
                                      "file", window_label(c, w, label, sizeof label),
                                      w->n_bounds / 2);
    }
}

/* ---- callgrind dumps ------------------------------------------------------ */

int ompb__collector_add_dump(ompb__collector *c, long pid, const char *name, uint64_t ir)
{
    if (!grow(c, (void **)&c->dumps, &c->cap_dumps, c->n_dumps + 1, sizeof *c->dumps))
        return OMPB_ENOMEM;
    char *copy = copy_string(name, strlen(name));
    if (!copy)
        return OMPB_ENOMEM;
    c->dumps[c->n_dumps].pid = pid;
    c->dumps[c->n_dumps].name = copy;
    c->dumps[c->n_dumps++].ir = ir;
    return 0;
}

static bool is_metadata(const char *name)
{
    return strncmp(name, "Metadata: ", 10) == 0;
}

/* Each process that dumped must announce itself exactly once; a process
 * seen for the first time at dumps[first] is counted once. */
static void check_metadata(ompb__collector *c, size_t first)
{
    long pid = c->dumps[first].pid;
    size_t metadata = 0;
    for (size_t i = 0; i < c->n_dumps; i++) {
        if (c->dumps[i].pid != pid)
            continue;
        if (i < first)
            return;
        metadata += is_metadata(c->dumps[i].name);
    }
    if (metadata != 1)
        ompb__collector_violation(c, "process %ld: %zu \"Metadata: \" callgrind dumps "
                                  "(expected 1)", pid, metadata);
}

void ompb__collector_check_dumps(ompb__collector *c)
{
    size_t benches = 0;
    for (size_t i = 0; i < c->n_dumps; i++) {
        const char *name = c->dumps[i].name;
        check_metadata(c, i);
        if (is_metadata(name))
            continue;
        benches++;
        if (!name[0])
            ompb__collector_violation(c, "callgrind dump %zu has an empty name", i + 1);
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->dumps[j].name, name) == 0)
                ompb__collector_violation(c, "callgrind dumps %zu and %zu are both named %s",
                                          j + 1, i + 1, name);
    }
    if (benches == 0)
        ompb__collector_violation(c, "no benchmark callgrind dump");
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

/* ---- reports -------------------------------------------------------------- */

static uint64_t marked_ns(const ompb__collector_window *w)
{
    uint64_t sum = 0;
    for (size_t i = 0; i + 1 < w->n_bounds; i += 2)
        if (w->bounds[i + 1] >= w->bounds[i])
            sum += w->bounds[i + 1] - w->bounds[i];
    return sum;
}

/* Everything printed here came from the integration's frames or files:
 * control characters are escaped, so a URI cannot drive the terminal. */
#define SHOWN_MAX (4 * VIOLATION_MAX)

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
