/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by the subcommands of the `ompbench` tool, so
 * that every subcommand accepts options and reports bad ones the same way.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tools.h"

const char *ompb__tool_option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0' || *i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

int ompb__tool_usage_error(const char *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", tool);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}
