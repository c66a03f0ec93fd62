/* SPDX-License-Identifier: MIT */
/*
 * Encoder and decoder of the runner protocol's frames. Everything goes
 * through two cursors, a writer that cannot overrun its buffer and a reader
 * that fails instead of reading past its end, so a hostile or truncated
 * payload can make decoding fail but never crash.
 */
#include "hooks/codec.h"

#include <stdio.h>
#include <string.h>

#include "core/core.h"

/* Fields after the tag, in bytes, of the variants without strings. */
#define MARKER_FIELDS (4 + 4 + 8)

static const char *const cmd_names[OMPB__CMD_COUNT] = {
    "CurrentBenchmark", "StartBenchmark", "StopBenchmark", "Ack", "PingPerf",
    "SetIntegration", "Err", "AddMarker", "SetVersion", "GetIntegrationMode",
    "IntegrationModeResponse",
};

static const char *const marker_names[] = {
    "SampleStart", "SampleEnd", "BenchmarkStart", "BenchmarkEnd",
};
#define MARKER_COUNT (sizeof marker_names / sizeof marker_names[0])

/* ---- writer --------------------------------------------------------------- */

typedef struct writer {
    uint8_t *p;
} writer;

static void put_u32(writer *w, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *w->p++ = (uint8_t)(v >> (8 * i));
}

static void put_u64(writer *w, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        *w->p++ = (uint8_t)(v >> (8 * i));
}

static void put_str(writer *w, const char *s, size_t len)
{
    put_u64(w, len);
    if (len)
        memcpy(w->p, s, len);
    w->p += len;
}

/* ---- reader --------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p, *end;
    const char *why;      /* first failure, NULL while fine */
} reader;

static bool need(reader *r, uint64_t n)
{
    if (r->why)
        return false;
    if ((uint64_t)(r->end - r->p) < n) {
        r->why = "truncated payload";
        return false;
    }
    return true;
}

static uint32_t get_u32(reader *r)
{
    if (!need(r, 4))
        return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)r->p[i] << (8 * i);
    r->p += 4;
    return v;
}

static uint64_t get_u64(reader *r)
{
    if (!need(r, 8))
        return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    return v;
}

static void get_str(reader *r, const char **s, size_t *len)
{
    uint64_t n = get_u64(r);
    *s = NULL;
    *len = 0;
    if (r->why)
        return;
    if (n > (uint64_t)(r->end - r->p)) {
        r->why = "string length exceeds the frame";
        return;
    }
    if (!ompb__utf8_valid((const char *)r->p, (size_t)n)) {
        r->why = "string is not valid UTF-8";
        return;
    }
    *s = (const char *)r->p;
    *len = (size_t)n;
    r->p += n;
}

/* ---- helpers -------------------------------------------------------------- */

static bool strings_ok(const ompb__cmd *cmd, int count)
{
    for (int i = 0; i < count; i++) {
        if (cmd->len[i] > OMPB__STRING_MAX || (cmd->len[i] && !cmd->str[i]))
            return false;
        if (!ompb__utf8_valid(cmd->str[i], cmd->len[i]))
            return false;
    }
    return true;
}

/* Payload size of cmd, 0 when it cannot be encoded. */
static size_t payload_size(const ompb__cmd *cmd)
{
    switch (cmd->kind) {
    case OMPB__CMD_CURRENT_BENCHMARK:
        return strings_ok(cmd, 1) ? 4 + 4 + 8 + cmd->len[0] : 0;
    case OMPB__CMD_SET_INTEGRATION:
        return strings_ok(cmd, 2) ? 4 + 16 + cmd->len[0] + cmd->len[1] : 0;
    case OMPB__CMD_ADD_MARKER:
        return cmd->marker < MARKER_COUNT ? 4 + MARKER_FIELDS : 0;
    case OMPB__CMD_SET_VERSION:
        return 4 + 8;
    case OMPB__CMD_INTEGRATION_MODE_RESPONSE:
        return 4 + 4;
    case OMPB__CMD_START_BENCHMARK: case OMPB__CMD_STOP_BENCHMARK:
    case OMPB__CMD_ACK: case OMPB__CMD_PING_PERF: case OMPB__CMD_ERR:
    case OMPB__CMD_GET_INTEGRATION_MODE:
        return 4;
    default:
        return 0;
    }
}

static void put_fields(writer *w, const ompb__cmd *cmd)
{
    switch (cmd->kind) {
    case OMPB__CMD_CURRENT_BENCHMARK:
        put_u32(w, (uint32_t)cmd->pid);
        put_str(w, cmd->str[0], cmd->len[0]);
        break;
    case OMPB__CMD_SET_INTEGRATION:
        put_str(w, cmd->str[0], cmd->len[0]);
        put_str(w, cmd->str[1], cmd->len[1]);
        break;
    case OMPB__CMD_ADD_MARKER:
        put_u32(w, (uint32_t)cmd->pid);
        put_u32(w, cmd->marker);
        put_u64(w, cmd->ns);
        break;
    case OMPB__CMD_SET_VERSION:
        put_u64(w, cmd->version);
        break;
    case OMPB__CMD_INTEGRATION_MODE_RESPONSE:
        put_u32(w, cmd->mode);
        break;
    default:
        break;
    }
}

/* Reads the fields of r's command; sets r->why on failure. */
static void get_fields(reader *r, ompb__cmd *out)
{
    switch (out->kind) {
    case OMPB__CMD_CURRENT_BENCHMARK:
        out->pid = (int32_t)get_u32(r);
        get_str(r, &out->str[0], &out->len[0]);
        break;
    case OMPB__CMD_SET_INTEGRATION:
        get_str(r, &out->str[0], &out->len[0]);
        get_str(r, &out->str[1], &out->len[1]);
        break;
    case OMPB__CMD_ADD_MARKER:
        out->pid = (int32_t)get_u32(r);
        out->marker = get_u32(r);
        out->ns = get_u64(r);
        if (!r->why && out->marker >= MARKER_COUNT)
            r->why = "unknown marker tag";
        break;
    case OMPB__CMD_SET_VERSION:
        out->version = get_u64(r);
        break;
    case OMPB__CMD_INTEGRATION_MODE_RESPONSE:
        out->mode = get_u32(r);
        if (!r->why && out->mode >= OMPB__RUNNER_MODE_COUNT)
            r->why = "unknown integration mode";
        break;
    default:
        break;
    }
}

/* ---- public functions ----------------------------------------------------- */

ompb__cmd ompb__cmd_simple(ompb__cmd_kind kind)
{
    ompb__cmd c = {.kind = kind};
    return c;
}

ompb__cmd ompb__cmd_marker(int32_t pid, ompb_marker marker, uint64_t ns)
{
    ompb__cmd c = {.kind = OMPB__CMD_ADD_MARKER, .pid = pid,
                   .marker = (uint32_t)marker, .ns = ns};
    return c;
}

ompb__cmd ompb__cmd_current_benchmark(int32_t pid, const char *uri)
{
    ompb__cmd c = {.kind = OMPB__CMD_CURRENT_BENCHMARK, .pid = pid};
    c.str[0] = uri;
    c.len[0] = uri ? strlen(uri) : 0;
    return c;
}

ompb__cmd ompb__cmd_set_integration(const char *name, const char *version)
{
    ompb__cmd c = {.kind = OMPB__CMD_SET_INTEGRATION};
    c.str[0] = name;
    c.len[0] = name ? strlen(name) : 0;
    c.str[1] = version;
    c.len[1] = version ? strlen(version) : 0;
    return c;
}

ompb__cmd ompb__cmd_set_version(uint64_t version)
{
    ompb__cmd c = {.kind = OMPB__CMD_SET_VERSION, .version = version};
    return c;
}

ompb__cmd ompb__cmd_mode_response(uint32_t mode)
{
    ompb__cmd c = {.kind = OMPB__CMD_INTEGRATION_MODE_RESPONSE, .mode = mode};
    return c;
}

size_t ompb__cmd_frame_size(const ompb__cmd *cmd)
{
    size_t n = payload_size(cmd);
    return n ? OMPB__FRAME_HEADER + n : 0;
}

int ompb__cmd_encode(const ompb__cmd *cmd, uint8_t *buf, size_t cap, size_t *len)
{
    size_t n = payload_size(cmd);
    if (n == 0 || OMPB__FRAME_HEADER + n > cap)
        return OMPB_EINVAL;
    writer w = {buf};
    put_u32(&w, (uint32_t)n);
    put_u32(&w, (uint32_t)cmd->kind);
    put_fields(&w, cmd);
    *len = OMPB__FRAME_HEADER + n;
    return 0;
}

int ompb__frame_peek(const uint8_t *buf, size_t len, size_t *frame_len)
{
    if (len < OMPB__FRAME_HEADER)
        return 0;
    uint32_t n = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16
                 | (uint32_t)buf[3] << 24;
    if (n < 4 || n > OMPB__PAYLOAD_MAX)
        return OMPB_EPROTO;
    if (len < OMPB__FRAME_HEADER + (size_t)n)
        return 0;
    *frame_len = OMPB__FRAME_HEADER + (size_t)n;
    return 1;
}

int ompb__cmd_decode(const uint8_t *payload, size_t len, ompb__cmd *out, ompb_error *err)
{
    reader r = {payload, payload + len, NULL};
    memset(out, 0, sizeof *out);
    uint32_t tag = get_u32(&r);
    if (!r.why && tag >= OMPB__CMD_COUNT)
        r.why = "unknown command tag";
    out->kind = (ompb__cmd_kind)tag;
    if (!r.why)
        get_fields(&r, out);
    if (!r.why && r.p != r.end)
        r.why = "trailing bytes after the command";
    if (!r.why)
        return 0;
    return ompb__error_set(err, OMPB_EPROTO, "undecodable frame (%zu-byte payload, tag %u): %s",
                           len, (unsigned)tag, r.why);
}

const char *ompb__cmd_name(uint32_t kind)
{
    return kind < OMPB__CMD_COUNT ? cmd_names[kind] : "unknown";
}

const char *ompb__marker_name(uint32_t marker)
{
    return marker < MARKER_COUNT ? marker_names[marker] : "unknown";
}
