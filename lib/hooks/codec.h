/* SPDX-License-Identifier: MIT */
/*
 * Codec of the CodSpeed runner protocol v2 (docs/protocol.md). A frame is a
 * u32 little-endian payload length followed by a bincode-1 payload: u32
 * variant index, then the variant's fields as fixed-width little-endian
 * integers and strings (u64 length + UTF-8 bytes, no NUL). The decoder
 * never reads outside the bytes it is given and rejects truncated payloads,
 * unknown tags, absurd lengths, invalid UTF-8 and trailing bytes.
 */
#ifndef OMPB_HOOKS_CODEC_H
#define OMPB_HOOKS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/error.h>
#include <ompbench/hooks.h>

/* Bytes of the length prefix. */
#define OMPB__FRAME_HEADER 4
/* Largest payload either side may declare; a larger length means the stream
 * lost its framing (or the peer is hostile) and is rejected. */
#define OMPB__PAYLOAD_MAX 65536u
/* Longest string we encode. It keeps every frame we send at most
 * OMPB__FRAME_MAX bytes, below PIPE_BUF (4096), so one write(2) puts a
 * whole frame in the pipe atomically, even next to other processes. */
#define OMPB__STRING_MAX 1024u
#define OMPB__FRAME_MAX (OMPB__FRAME_HEADER + 4 + 2 * (8 + OMPB__STRING_MAX))
/* Size of the frames that carry no field (Ack, Err, StartBenchmark, ...). */
#define OMPB__FRAME_MIN (OMPB__FRAME_HEADER + 4)

/* Command variants, numbered as on the wire. */
typedef enum {
    OMPB__CMD_CURRENT_BENCHMARK = 0,       /* pid, uri */
    OMPB__CMD_START_BENCHMARK = 1,
    OMPB__CMD_STOP_BENCHMARK = 2,
    OMPB__CMD_ACK = 3,
    OMPB__CMD_PING_PERF = 4,               /* deprecated, still decoded */
    OMPB__CMD_SET_INTEGRATION = 5,         /* name, version */
    OMPB__CMD_ERR = 6,
    OMPB__CMD_ADD_MARKER = 7,              /* pid, marker, ns */
    OMPB__CMD_SET_VERSION = 8,             /* version */
    OMPB__CMD_GET_INTEGRATION_MODE = 9,
    OMPB__CMD_INTEGRATION_MODE_RESPONSE = 10, /* mode */
    OMPB__CMD_COUNT
} ompb__cmd_kind;

/* Integration modes of IntegrationModeResponse. */
typedef enum {
    OMPB__RUNNER_PERF = 0,          /* walltime */
    OMPB__RUNNER_SIMULATION = 1,
    OMPB__RUNNER_ANALYSIS = 2,
    OMPB__RUNNER_MODE_COUNT
} ompb__runner_mode;

/* The protocol version we speak, sent with SetVersion. */
#define OMPB__PROTOCOL_VERSION 2u

/*
 * One decoded or to-be-encoded command. Only the fields of its kind are
 * meaningful. Strings are not NUL-terminated: str[i] points at len[i] bytes.
 * After ompb__cmd_decode they point into the payload that was decoded and
 * stay valid as long as it does.
 */
typedef struct ompb__cmd {
    ompb__cmd_kind kind;
    int32_t pid;          /* CurrentBenchmark, AddMarker */
    uint32_t marker;      /* AddMarker: an ompb_marker */
    uint64_t ns;          /* AddMarker: timestamp, CLOCK_MONOTONIC ns */
    uint64_t version;     /* SetVersion */
    uint32_t mode;        /* IntegrationModeResponse: an ompb__runner_mode */
    const char *str[2];   /* CurrentBenchmark: uri; SetIntegration: name, version */
    size_t len[2];
} ompb__cmd;

/* Convenience initializers for the commands the hooks send. */
ompb__cmd ompb__cmd_simple(ompb__cmd_kind kind);
ompb__cmd ompb__cmd_marker(int32_t pid, ompb_marker marker, uint64_t ns);
/* uri, name and version are NUL-terminated and must outlive the command. */
ompb__cmd ompb__cmd_current_benchmark(int32_t pid, const char *uri);
ompb__cmd ompb__cmd_set_integration(const char *name, const char *version);
ompb__cmd ompb__cmd_set_version(uint64_t version);
ompb__cmd ompb__cmd_mode_response(uint32_t mode);

/* Size of cmd's whole frame (header included), or 0 when cmd cannot be
 * encoded (unknown kind or marker, string longer than OMPB__STRING_MAX or
 * not valid UTF-8). */
size_t ompb__cmd_frame_size(const ompb__cmd *cmd);

/* Writes cmd's whole frame to buf. Returns 0 and sets *len, or OMPB_EINVAL
 * when cmd cannot be encoded or cap is too small (buf untouched). */
int ompb__cmd_encode(const ompb__cmd *cmd, uint8_t *buf, size_t cap, size_t *len);

/*
 * Looks for a frame at the start of buf[0..len). Returns 1 and sets
 * *frame_len (header + payload) when a whole frame is present, 0 when more
 * bytes are needed, OMPB_EPROTO when the declared payload length is absurd
 * (below 4 or above OMPB__PAYLOAD_MAX): the stream has lost its framing.
 */
int ompb__frame_peek(const uint8_t *buf, size_t len, size_t *frame_len);

/* Decodes one payload (the bytes after the length prefix). Returns 0, or
 * OMPB_EPROTO with err (optional) saying what is wrong. */
int ompb__cmd_decode(const uint8_t *payload, size_t len, ompb__cmd *out, ompb_error *err);

/* Wire name of a command ("AddMarker") or marker ("BenchmarkStart");
 * "unknown" outside the enums. Static strings. */
const char *ompb__cmd_name(uint32_t kind);
const char *ompb__marker_name(uint32_t marker);

#endif
