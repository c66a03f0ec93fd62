/* SPDX-License-Identifier: MIT */
/*
 * The `ompbench` command: a thin dispatcher over the library's tools, one
 * per row of OMPB__TOOL_COMMANDS (tools.h).
 * `ompbench --help` lists them with their summaries.
 */
#include <stdio.h>
#include <string.h>

#include <ompbench/version.h>

#include "core/core.h"
#include "tools.h"

/* The table of tools.h's rows (OMPB__TOOL_COMMANDS). */
#define OMPB__TOOL_ROW(name, summary) {#name, ompb__tool_##name, summary, "ompbench " #name},
static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
    const char *tool;       /* names the command in messages */
} commands[] = {OMPB__TOOL_COMMANDS(OMPB__TOOL_ROW)};
#undef OMPB__TOOL_ROW

static void usage(FILE *out)
{
    fprintf(out, "Usage: ompbench COMMAND [ARGS]...   (ompbench COMMAND --help for details)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

/* What went to stdout must have arrived: a full disk or a closed stdout
 * turns a success (or a verdict) into exit status 2 with one line. */
static int finish(const char *who, int status)
{
    ompb_error err = {0};
    if (ompb__outfile_flush_stdout(&err) == 0)
        return status;
    fprintf(stderr, "%s: %s\n", who, err.text);
    return status <= 2 ? 2 : status;
}

static int dispatch(int argc, char **argv, const char **who)
{
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ompbench %s\n", ompb_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) == 0) {
            *who = commands[i].tool;
            return commands[i].fn(argc - 1, argv + 1);
        }
    }
    char names[128] = "";
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 commands[i].name);
    ompb__error_print(stderr, "ompbench: unknown command '%s' (accepted: %s)", argv[1], names);
    return 2;
}

int main(int argc, char **argv)
{
    const char *who = "ompbench";
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    int status = dispatch(argc, argv, &who);
    return finish(who, status);
}
