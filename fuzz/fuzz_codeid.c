/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the code identity check's ELF reader and comparison
 * (tools/lib/analysis/codeid*.c). Any input is written to a file, read as
 * an ELF object and compared with itself from its bench_body (the seeds'
 * fixture function) or else from its entry point, and the bytes of that
 * function are copied out. The check reads executables that someone else
 * built: a truncated, damaged or crafted one must give an UNKNOWN (or any
 * verdict), never a crash or a read outside the file.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/codeid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void remove_file(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/ompb-fuzz-codeid-%d", (int)getpid());
        atexit(remove_file);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    size_t put = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || put != size)
        return 0;
    uint64_t v = 0;
    if (ompb__code_symbol(path, "bench_body", &v) != 0 && size >= 32)
        memcpy(&v, data + 24, sizeof v); /* e_entry of an ELF64 header */
    ompb__code_result r;
    ompb__code_compare(path, v, path, v, &r);
    if (r.verdict > OMPB__CODE_UNKNOWN || !memchr(r.why, '\0', sizeof r.why)
        || strchr(r.why, '\n'))
        abort();
    unsigned char *bytes = NULL;
    size_t n = 0;
    uint64_t start = 0;
    if (ompb__code_function_bytes(path, v, &bytes, &n, &start) == 0)
        free(bytes);
    return 0;
}
