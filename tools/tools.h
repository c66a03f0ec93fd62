/* SPDX-License-Identifier: MIT */
/* Subcommands of the `ompbench` tool; argv[0] is the subcommand name and the
 * return value is the process exit status (0 ok, 1 check failed, 2 bad input). */
#ifndef OMPB_TOOLS_H
#define OMPB_TOOLS_H

int ompb__tool_ab(int argc, char **argv);
int ompb__tool_collect(int argc, char **argv);
int ompb__tool_compare(int argc, char **argv);
int ompb__tool_scaling(int argc, char **argv);

/* The value of option `name` at argv[*i], given as "--name=value" or as
 * "--name value" (then *i advances); NULL when argv[*i] is another option
 * or the value is missing. Shared by every subcommand's parser. */
const char *ompb__tool_option_value(int argc, char **argv, int *i, const char *name);

/* Prints "TOOL: message" as one line on stderr; returns exit status 2. */
int ompb__tool_usage_error(const char *tool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
