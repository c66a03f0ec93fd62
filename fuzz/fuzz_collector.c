/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the wire codec and the collector, the runner's side of
 * the protocol (lib/hooks/codec.c, tools/lib/collector.c). The input is a
 * byte stream from the control pipe, fed to a collector in chunks whose
 * sizes come from the input itself (frames split anywhere, as a pipe
 * splits them); then the run is finished, summarized and dumped as JSON.
 * Each whole frame is also decoded directly, and a decoded command that the
 * encoder accepts must encode back to the very same bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "collector.h"
#include "hooks/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void)
{
    static FILE *null;
    if (!null)
        null = fopen("/dev/null", "w");
    return null;
}

/* decode(frame) -> encode -> the same bytes, whenever both succeed. */
static void round_trip(const uint8_t *data, size_t size)
{
    static uint8_t again[OMPB__FRAME_MAX];
    size_t off = 0, flen, len;
    while (ompb__frame_peek(data + off, size - off, &flen) == 1) {
        ompb__cmd cmd;
        if (ompb__cmd_decode(data + off + OMPB__FRAME_HEADER, flen - OMPB__FRAME_HEADER, &cmd,
                             NULL) == 0
            && ompb__cmd_encode(&cmd, again, sizeof again, &len) == 0
            && (len != flen || memcmp(again, data + off, len) != 0))
            __builtin_trap();
        off += flen;
    }
}

static void feed_in_chunks(ompb__collector *c, const uint8_t *data, size_t size)
{
    size_t off = 0, step = size ? (size_t)data[0] % 17 + 1 : 1;
    while (off < size) {
        size_t n = size - off < step ? size - off : step;
        if (ompb__collector_feed(c, data + off, n) == OMPB_EPROTO)
            break;
        off += n;
        step = (size_t)data[off % size] % 64 + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    round_trip(data, size);
    ompb__collector *c = ompb__collector_new(size && data[size - 1] % 2 ? OMPB__RUNNER_SIMULATION
                                                                         : OMPB__RUNNER_PERF);
    if (!c)
        return 0;
    feed_in_chunks(c, data, size);
    size_t rlen;
    ompb__collector_replies(c, &rlen);
    ompb__collector_consume(c, rlen / 2);
    ompb__collector_finish(c, true);
    ompb__collector_print(c, sink());
    json_t *j = ompb__collector_to_json(c);
    char *text = j ? json_dumps(j, 0) : NULL;
    free(text);
    json_decref(j);
    ompb__collector_free(c);
    return 0;
}
