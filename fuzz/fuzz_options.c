/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the benchmark binaries' option parser
 * (ompb__config_parse, lib/config/cli.c, with the regex, duration, count, thread
 * list, --pin and --counters parsers behind it). The input is split at NUL
 * bytes into at most 31 arguments; one of the form "=NAME=VALUE" sets
 * NAME (only the variables the parser reads: OMP_NUM_THREADS and the hooks'
 * two) for this input. A refusal must be one line, never empty, with no
 * control character (issue 19: every echoed value is escaped); whatever
 * was parsed is released.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "config/cli.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/* Each accepted --filter makes regcomp allocate and free megabytes, which
 * ASan's quarantine (256 MB by default) kept: the RSS grew from 33 to
 * almost 800 MB in 5 minutes with no leak (LSan found none). 32 MB still
 * catches a use of a regex_t after regfree. ASAN_OPTIONS overrides it. */
const char *__asan_default_options(void)
{
    return "quarantine_size_mb=32";
}

static const char *const env_names[] = {"OMP_NUM_THREADS", "OMPB_HOOKS_TIMEOUT_MS",
                                        "OMPB_HOOKS_BUDGET_MS"};

/* "=NAME=VALUE" for one of env_names: set, and true. */
static int set_env(const char *arg)
{
    if (arg[0] != '=')
        return 0;
    for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++) {
        size_t n = strlen(env_names[i]);
        if (strncmp(arg + 1, env_names[i], n) == 0 && arg[1 + n] == '=') {
            setenv(env_names[i], arg + 2 + n, 1);
            return 1;
        }
    }
    return 0;
}

static void check_refusal(const ompb_error *err)
{
    if (!err->text[0])
        __builtin_trap();
    for (const unsigned char *p = (const unsigned char *)err->text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            __builtin_trap(); /* a refusal is one line, its values escaped */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *argv[MAX_ARGS + 1] = {"fuzz"};
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++)
        unsetenv(env_names[i]);
    int argc = 1;
    for (char *p = text; p <= text + size && argc < MAX_ARGS; p += strlen(p) + 1)
        if (!set_env(p))
            argv[argc++] = p;
    argv[argc] = NULL;
    ompb__config cfg;
    ompb_error err = {0};
    if (ompb__config_parse(&cfg, argc, argv, &err) == 0)
        ompb__config_release(&cfg);
    else
        check_refusal(&err);
    free(text);
    return 0;
}
