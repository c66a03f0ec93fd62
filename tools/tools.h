/* SPDX-License-Identifier: MIT */
/* Subcommands of the `ompbench` tool; argv[0] is the subcommand name and the
 * return value is the process exit status (0 ok, 1 check failed, 2 bad input). */
#ifndef OMPB_TOOLS_H
#define OMPB_TOOLS_H

int ompb__tool_collect(int argc, char **argv);
int ompb__tool_compare(int argc, char **argv);
int ompb__tool_scaling(int argc, char **argv);

#endif
