/* SPDX-License-Identifier: MIT */
/*
 * Codec tests: round trips of every command variant, golden bytes worked
 * out by hand from the protocol table (design.md section 3), and a decoder
 * that must refuse truncated, unknown, oversized and non-UTF-8 input without
 * reading out of bounds (payloads live in exact-size heap blocks, so the
 * sanitizer build catches any overread).
 */
#include <stdlib.h>
#include <string.h>

#include "hooks/codec.h"
#include "suite.h"
#include "core/utf8.h"

#define FUZZ_ROUNDS 200000
#define FUZZ_MAX_LEN 72

/* ---- helpers -------------------------------------------------------------- */

/* Decodes a copy of the payload in an exact-size heap block (the copy is
 * freed: do not look at the decoded strings). */
static int decode_exact(const uint8_t *payload, size_t len, ompb__cmd *out)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, payload, len);
    int rc = ompb__cmd_decode(copy, len, out, NULL);
    free(copy);
    return rc;
}

static void check_golden(const ompb__cmd *cmd, const uint8_t *want, size_t want_len)
{
    uint8_t buf[OMPB__FRAME_MAX];
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(ompb__cmd_encode(cmd, buf, sizeof buf, &len), 0);
    CU_ASSERT_EQUAL(len, want_len);
    CU_ASSERT_EQUAL(ompb__cmd_frame_size(cmd), want_len);
    CU_ASSERT(len == want_len && memcmp(buf, want, len) == 0);
}

static bool same_string(const ompb__cmd *a, const ompb__cmd *b, int i)
{
    return a->len[i] == b->len[i] && (a->len[i] == 0 || memcmp(a->str[i], b->str[i],
                                                                 a->len[i]) == 0);
}

static bool same_cmd(const ompb__cmd *a, const ompb__cmd *b)
{
    return a->kind == b->kind && a->pid == b->pid && a->marker == b->marker && a->ns == b->ns
           && a->version == b->version && a->mode == b->mode && same_string(a, b, 0)
           && same_string(a, b, 1);
}

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* An accepted payload must re-encode to exactly the same bytes. */
static void check_canonical(const uint8_t *payload, size_t len)
{
    ompb__cmd cmd;
    uint8_t *copy = malloc(len ? len : 1), frame[OMPB__FRAME_MAX];
    size_t flen;
    memcpy(copy, payload, len);
    int rc = ompb__cmd_decode(copy, len, &cmd, NULL);
    CU_ASSERT(rc == 0 || rc == OMPB_EPROTO);
    if (rc == 0) {
        CU_ASSERT_EQUAL_FATAL(ompb__cmd_encode(&cmd, frame, sizeof frame, &flen), 0);
        CU_ASSERT(flen == len + 4 && memcmp(frame + 4, payload, len) == 0);
    }
    free(copy);
}

/* ---- round trips ---------------------------------------------------------- */

static void test_roundtrip_every_variant(void)
{
    const char *uri = "benches/examples.c::thread_example[t=4] \xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e";
    ompb__cmd cmds[] = {
        ompb__cmd_current_benchmark(-7, uri),
        ompb__cmd_current_benchmark(INT32_MAX, ""),
        ompb__cmd_simple(OMPB__CMD_START_BENCHMARK),
        ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK),
        ompb__cmd_simple(OMPB__CMD_ACK),
        ompb__cmd_simple(OMPB__CMD_PING_PERF),
        ompb__cmd_set_integration("ompbench", "0.1.0"),
        ompb__cmd_simple(OMPB__CMD_ERR),
        ompb__cmd_marker(INT32_MIN, OMPB_MARKER_SAMPLE_START, 0),
        ompb__cmd_marker(1, OMPB_MARKER_SAMPLE_END, 1),
        ompb__cmd_marker(2, OMPB_MARKER_BENCHMARK_START, UINT64_MAX),
        ompb__cmd_marker(3, OMPB_MARKER_BENCHMARK_END, 1234567890123ull),
        ompb__cmd_set_version(2),
        ompb__cmd_set_version(UINT64_MAX),
        ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE),
        ompb__cmd_mode_response(OMPB__RUNNER_PERF),
        ompb__cmd_mode_response(OMPB__RUNNER_SIMULATION),
        ompb__cmd_mode_response(OMPB__RUNNER_ANALYSIS),
    };
    bool seen[OMPB__CMD_COUNT] = {false};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        uint8_t buf[OMPB__FRAME_MAX];
        size_t len, flen;
        ompb__cmd back;
        CU_ASSERT_EQUAL_FATAL(ompb__cmd_encode(&cmds[i], buf, sizeof buf, &len), 0);
        CU_ASSERT_EQUAL(ompb__frame_peek(buf, len, &flen), 1);
        CU_ASSERT_EQUAL(flen, len);
        uint8_t *payload = malloc(len - 4);
        memcpy(payload, buf + 4, len - 4);
        CU_ASSERT_EQUAL(ompb__cmd_decode(payload, len - 4, &back, NULL), 0);
        CU_ASSERT(same_cmd(&cmds[i], &back));
        free(payload);
        seen[cmds[i].kind] = true;
    }
    for (int k = 0; k < OMPB__CMD_COUNT; k++)
        CU_ASSERT(seen[k]);
}

static void test_names(void)
{
    CU_ASSERT_STRING_EQUAL(ompb__cmd_name(OMPB__CMD_ADD_MARKER), "AddMarker");
    CU_ASSERT_STRING_EQUAL(ompb__cmd_name(OMPB__CMD_INTEGRATION_MODE_RESPONSE),
                           "IntegrationModeResponse");
    CU_ASSERT_STRING_EQUAL(ompb__cmd_name(99), "unknown");
    CU_ASSERT_STRING_EQUAL(ompb__marker_name(OMPB_MARKER_BENCHMARK_END), "BenchmarkEnd");
    CU_ASSERT_STRING_EQUAL(ompb__marker_name(4), "unknown");
}

/* ---- golden bytes (by hand from the table) -------------------------------- */

static void test_golden_add_marker(void)
{
    /* 4 (len = 20) + 4 (tag 7) + 4 (pid) + 4 (marker 3) + 8 (ns) = 24 bytes */
    static const uint8_t want[24] = {
        0x14, 0, 0, 0,  0x07, 0, 0, 0,  0x04, 0x03, 0x02, 0x01,  0x03, 0, 0, 0,
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
    ompb__cmd c = ompb__cmd_marker(0x01020304, OMPB_MARKER_BENCHMARK_END,
                                   0x1122334455667788ull);
    check_golden(&c, want, sizeof want);
}

static void test_golden_simple_frames(void)
{
    static const uint8_t ack[8] = {4, 0, 0, 0, 3, 0, 0, 0};
    static const uint8_t start[8] = {4, 0, 0, 0, 1, 0, 0, 0};
    static const uint8_t get_mode[8] = {4, 0, 0, 0, 9, 0, 0, 0};
    static const uint8_t version[16] = {12, 0, 0, 0, 8, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t mode[12] = {8, 0, 0, 0, 10, 0, 0, 0, 1, 0, 0, 0};
    ompb__cmd c = ompb__cmd_simple(OMPB__CMD_ACK);
    check_golden(&c, ack, sizeof ack);
    c = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK);
    check_golden(&c, start, sizeof start);
    c = ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE);
    check_golden(&c, get_mode, sizeof get_mode);
    c = ompb__cmd_set_version(2);
    check_golden(&c, version, sizeof version);
    c = ompb__cmd_mode_response(OMPB__RUNNER_SIMULATION);
    check_golden(&c, mode, sizeof mode);
}

static void test_golden_string_frames(void)
{
    /* CurrentBenchmark{42, "a::b"}: payload 4 + 4 + 8 + 4 = 20 */
    static const uint8_t current[24] = {
        20, 0, 0, 0,  0, 0, 0, 0,  42, 0, 0, 0,  4, 0, 0, 0, 0, 0, 0, 0,  'a', ':', ':', 'b'};
    /* SetIntegration{"ompbench", "0.1.0"}: payload 4 + 8 + 8 + 8 + 5 = 33 */
    static const uint8_t integration[37] = {
        33, 0, 0, 0,  5, 0, 0, 0,  8, 0, 0, 0, 0, 0, 0, 0,
        'o', 'm', 'p', 'b', 'e', 'n', 'c', 'h',  5, 0, 0, 0, 0, 0, 0, 0,
        '0', '.', '1', '.', '0'};
    ompb__cmd c = ompb__cmd_current_benchmark(42, "a::b");
    check_golden(&c, current, sizeof current);
    c = ompb__cmd_set_integration("ompbench", "0.1.0");
    check_golden(&c, integration, sizeof integration);
}

/* ---- rejections ----------------------------------------------------------- */

static void test_decode_rejects_every_truncation(void)
{
    ompb__cmd cmds[] = {ompb__cmd_current_benchmark(1, "x.c::y"),
                        ompb__cmd_set_integration("n", "v"),
                        ompb__cmd_marker(1, OMPB_MARKER_BENCHMARK_START, 5),
                        ompb__cmd_set_version(2), ompb__cmd_mode_response(0),
                        ompb__cmd_simple(OMPB__CMD_ACK)};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        uint8_t buf[OMPB__FRAME_MAX];
        size_t len, flen;
        ompb__cmd out;
        CU_ASSERT_EQUAL_FATAL(ompb__cmd_encode(&cmds[i], buf, sizeof buf, &len), 0);
        for (size_t cut = 0; cut < len - 4; cut++)
            CU_ASSERT_EQUAL(decode_exact(buf + 4, cut, &out), OMPB_EPROTO);
        for (size_t cut = 0; cut < len; cut++)
            CU_ASSERT_EQUAL(ompb__frame_peek(buf, cut, &flen), 0);
    }
}

static void test_decode_rejects_unknown_tags(void)
{
    ompb__cmd out;
    ompb_error err = {0};
    uint8_t tag11[4] = {11, 0, 0, 0}, tag_max[4] = {0xff, 0xff, 0xff, 0xff};
    uint8_t marker4[20] = {7, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0};
    uint8_t mode3[8] = {10, 0, 0, 0, 3, 0, 0, 0};
    CU_ASSERT_EQUAL(decode_exact(tag11, 4, &out), OMPB_EPROTO);
    CU_ASSERT_EQUAL(decode_exact(tag_max, 4, &out), OMPB_EPROTO);
    CU_ASSERT_EQUAL(decode_exact(marker4, sizeof marker4, &out), OMPB_EPROTO);
    CU_ASSERT_EQUAL(decode_exact(mode3, sizeof mode3, &out), OMPB_EPROTO);
    CU_ASSERT_EQUAL(ompb__cmd_decode(tag11, 4, &out, &err), OMPB_EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "unknown command tag"));
}

static void test_decode_rejects_absurd_lengths(void)
{
    ompb__cmd out;
    size_t flen;
    /* CurrentBenchmark whose string claims 2^63 bytes, then one byte too many. */
    uint8_t huge[17] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 'x'};
    uint8_t plus_one[17] = {0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 'x'};
    CU_ASSERT_EQUAL(decode_exact(huge, sizeof huge, &out), OMPB_EPROTO);
    CU_ASSERT_EQUAL(decode_exact(plus_one, sizeof plus_one, &out), OMPB_EPROTO);
    uint8_t zero[8] = {0, 0, 0, 0}, three[8] = {3, 0, 0, 0};
    uint8_t big[8] = {0x01, 0x00, 0x01, 0x00}, max[8] = {0xff, 0xff, 0xff, 0xff};
    CU_ASSERT_EQUAL(ompb__frame_peek(zero, 8, &flen), OMPB_EPROTO);
    CU_ASSERT_EQUAL(ompb__frame_peek(three, 8, &flen), OMPB_EPROTO);
    CU_ASSERT_EQUAL(ompb__frame_peek(big, 8, &flen), OMPB_EPROTO);
    CU_ASSERT_EQUAL(ompb__frame_peek(max, 8, &flen), OMPB_EPROTO);
}

static void test_decode_rejects_trailing_bytes(void)
{
    ompb__cmd out;
    uint8_t ack_plus[5] = {3, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(decode_exact(ack_plus, sizeof ack_plus, &out), OMPB_EPROTO);
}

static void test_utf8_validation(void)
{
    static const char *const good[] = {"", "plain", "\xc3\xa9", "\xe2\x82\xac",
                                       "\xf0\x9d\x84\x9e", "\xed\x9f\xbf", "\xf4\x8f\xbf\xbf"};
    static const char *const bad[] = {"\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80",
                                      "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\x80", "\xe2\x82",
                                      "a\xffz", "\xf0\x9d\x84"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CU_ASSERT(ompb__utf8_valid(good[i], strlen(good[i])));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT(!ompb__utf8_valid(bad[i], strlen(bad[i])));
    /* And through the decoder: CurrentBenchmark with a surrogate. */
    uint8_t frame[19] = {0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0xed, 0xa0, 0x80};
    ompb__cmd out;
    CU_ASSERT_EQUAL(decode_exact(frame, sizeof frame, &out), OMPB_EPROTO);
}

static void test_encode_rejects(void)
{
    uint8_t buf[OMPB__FRAME_MAX];
    size_t len = 0;
    char *long_uri = malloc(OMPB__STRING_MAX + 2);
    memset(long_uri, 'u', OMPB__STRING_MAX + 1);
    long_uri[OMPB__STRING_MAX + 1] = '\0';
    ompb__cmd c = ompb__cmd_current_benchmark(1, long_uri);
    CU_ASSERT_EQUAL(ompb__cmd_encode(&c, buf, sizeof buf, &len), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__cmd_frame_size(&c), 0);
    long_uri[OMPB__STRING_MAX] = '\0';   /* exactly the maximum: accepted, fits */
    c = ompb__cmd_set_integration(long_uri, long_uri);
    CU_ASSERT_EQUAL(ompb__cmd_encode(&c, buf, sizeof buf, &len), 0);
    CU_ASSERT_EQUAL(len, OMPB__FRAME_MAX);
    c = ompb__cmd_current_benchmark(1, "\xff");
    CU_ASSERT_EQUAL(ompb__cmd_encode(&c, buf, sizeof buf, &len), OMPB_EINVAL);
    c = ompb__cmd_marker(1, (ompb_marker)4, 0);
    CU_ASSERT_EQUAL(ompb__cmd_encode(&c, buf, sizeof buf, &len), OMPB_EINVAL);
    c = ompb__cmd_simple(OMPB__CMD_COUNT);
    CU_ASSERT_EQUAL(ompb__cmd_encode(&c, buf, sizeof buf, &len), OMPB_EINVAL);
    c = ompb__cmd_marker(1, OMPB_MARKER_BENCHMARK_START, 0);
    CU_ASSERT_EQUAL(ompb__cmd_encode(&c, buf, 23, &len), OMPB_EINVAL);
    free(long_uri);
}

/* ---- fuzz-style ----------------------------------------------------------- */

static void test_fuzz_random_payloads(void)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    uint8_t payload[FUZZ_MAX_LEN];
    size_t accepted = 0;
    for (int round = 0; round < FUZZ_ROUNDS; round++) {
        size_t len = (size_t)(rng_next(&s) % FUZZ_MAX_LEN);
        for (size_t i = 0; i < len; i++)
            payload[i] = (uint8_t)rng_next(&s);
        /* Bias towards real tags and small lengths so decoding gets deep. */
        if (len >= 4 && rng_next(&s) % 4) {
            memset(payload, 0, 4);
            payload[0] = (uint8_t)(rng_next(&s) % 12);
        }
        if (len >= 16 && rng_next(&s) % 2)
            memset(payload + 9, 0, 7);
        ompb__cmd cmd;
        if (decode_exact(payload, len, &cmd) == 0)
            accepted++;
        check_canonical(payload, len);
    }
    CU_ASSERT(accepted > 0);   /* the bias works: some random input is valid */
}

static void test_fuzz_mutated_frames(void)
{
    uint64_t s = 42;
    ompb__cmd seeds[] = {ompb__cmd_current_benchmark(9, "b.c::x[1, t=2]"),
                         ompb__cmd_set_integration("ompbench", "0.1.0"),
                         ompb__cmd_marker(9, OMPB_MARKER_BENCHMARK_END, 77)};
    for (int round = 0; round < FUZZ_ROUNDS / 4; round++) {
        uint8_t buf[OMPB__FRAME_MAX];
        size_t len;
        ompb__cmd_encode(&seeds[round % 3], buf, sizeof buf, &len);
        int flips = 1 + (int)(rng_next(&s) % 3);
        for (int f = 0; f < flips; f++)
            buf[4 + rng_next(&s) % (len - 4)] ^= (uint8_t)(1u << (rng_next(&s) % 8));
        check_canonical(buf + 4, len - 4);
    }
}

/* Escaping: valid sequences kept, each bad byte as \xNN, truncation only
 * between pieces, and the result always valid UTF-8 and terminated. */
static void test_utf8_escape(void)
{
    static const struct { const char *in; size_t cap; const char *want; } cases[] = {
        {"plain::name[1]", 64, "plain::name[1]"},
        {"caf\xc3\xa9", 64, "caf\xc3\xa9"},
        {"caf\xe9.c::x", 64, "caf\\xe9.c::x"},
        {"\xc0\xaf\xed\xa0\x80", 64, "\\xc0\\xaf\\xed\\xa0\\x80"},
        {"caf\xe9", 7, "caf"},          /* "\\xe9" does not fit in 6 bytes */
        {"caf\xe9", 8, "caf\\xe9"},
        {"ab\xc3\xa9", 4, "ab"},        /* never half a character */
        {"ab\xc3\xa9", 5, "ab\xc3\xa9"},
        {"", 1, ""},
    };
    char out[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(out, 'Z', sizeof out);
        size_t n = ompb__utf8_escape(cases[i].in, out, cases[i].cap);
        CU_ASSERT_STRING_EQUAL(out, cases[i].want);
        CU_ASSERT_EQUAL(n, strlen(cases[i].want));
        CU_ASSERT_TRUE(ompb__utf8_valid(out, n));
    }
    out[0] = 'Z';
    CU_ASSERT_EQUAL(ompb__utf8_escape("x", out, 0), 0);
    CU_ASSERT_EQUAL(out[0], 'Z');
}

static const ompb_test_case cases[] = {
    {"roundtrip_every_variant", test_roundtrip_every_variant},
    {"names", test_names},
    {"golden_add_marker", test_golden_add_marker},
    {"golden_simple_frames", test_golden_simple_frames},
    {"golden_string_frames", test_golden_string_frames},
    {"decode_rejects_every_truncation", test_decode_rejects_every_truncation},
    {"decode_rejects_unknown_tags", test_decode_rejects_unknown_tags},
    {"decode_rejects_absurd_lengths", test_decode_rejects_absurd_lengths},
    {"decode_rejects_trailing_bytes", test_decode_rejects_trailing_bytes},
    {"utf8_validation", test_utf8_validation},
    {"utf8_escape", test_utf8_escape},
    {"encode_rejects", test_encode_rejects},
    {"fuzz_random_payloads", test_fuzz_random_payloads},
    {"fuzz_mutated_frames", test_fuzz_mutated_frames},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_codec = {"codec", NULL, NULL, cases};
