/* SPDX-License-Identifier: MIT */
/* What the subcommands of the `ompbench` tool share: their table and the
 * option helpers every subcommand's parser uses. */
#ifndef OMPB_TOOLS_H
#define OMPB_TOOLS_H

#include <stddef.h>

#include "analysis/analysis.h"

/*
 * The subcommands, one row each: X(NAME, SUMMARY). A row is the whole
 * registration: `ompbench NAME` runs int ompb__tool_NAME(int argc, char
 * **argv), defined in tools/NAME.c (declared here from the row; argv[0] is
 * "NAME", the return value is the exit status: 0 ok, 1 check failed, 2 bad
 * input), its messages name "ompbench NAME", and `ompbench --help` lists
 * NAME and SUMMARY in this order (tools/ompbench.c makes its table from
 * these rows; tools/CMakeLists.txt builds every .c file in tools/).
 */
#define OMPB__TOOL_COMMANDS(X)                                                                     \
    X(ab, "compare two builds in one command: alternating runs until each verdict is decided")   \
    X(collect, "run a benchmark binary under a CodSpeed-runner stand-in and check its hooks")    \
    X(compare, "compare two result files: improved, regressed, untouched, new, missing")         \
    X(convert, "re-render a result file as console, csv or json")                                \
    X(scaling, "scaling table (and SVG plot, strong or weak) from result files")                 \
    X(report, "one self-contained HTML page: rounds, threads, scaling, comparison")          \
    X(trace, "time every parallel region of an unmodified OpenMP program (GNU OpenMP)")

#define OMPB__TOOL_DECLARE(name, summary) int ompb__tool_##name(int argc, char **argv);
OMPB__TOOL_COMMANDS(OMPB__TOOL_DECLARE)
#undef OMPB__TOOL_DECLARE

/* The value of option `name` at argv[*i], given as "--name=value" or as
 * "--name value" (then *i advances); NULL when argv[*i] is another option
 * or the value is missing. Shared by every subcommand's parser. */
const char *ompb__tool_option_value(int argc, char **argv, int *i, const char *name);

/* The options with a value seen so far on one command line. */
#define OMPB__TOOL_MAX_OPTIONS 16
typedef struct ompb__tool_seen {
    const char *name[OMPB__TOOL_MAX_OPTIONS];   /* argv text, up to any '=' */
    size_t len[OMPB__TOOL_MAX_OPTIONS];
    const char *value[OMPB__TOOL_MAX_OPTIONS];
    size_t n;
} ompb__tool_seen;

/* Called after the option at argv[at] was parsed, its value (if any) at
 * argv[next] or after its '='. An option with a value that is not in
 * `lists` (NULL-terminated names of the options documented as repeatable,
 * such as --base) may be given once: a second one prints both values and
 * returns 2 instead of silently replacing the first. 0 otherwise. */
int ompb__tool_check_once(const char *tool, ompb__tool_seen *seen, char **argv, int at,
                          int next, const char *const *lists);

/* Prints "TOOL: message" as one line on stderr, control characters in it
 * escaped (lib/core/error.h); returns exit status 2. */
/* compare's and ab's --threshold (a percentage, 0 to 1000, '%' allowed)
 * and --alpha (strictly between 0 and 1): 0, or 2 after one line naming
 * the value and what is accepted. */
int ompb__tool_parse_threshold(const char *tool, const char *v, double *out);
int ompb__tool_parse_alpha(const char *tool, const char *v, double *out);

/* --format of compare, scaling and ab: a row of the report format table
 * (analysis/units.h); 0, or 2 after one line naming the value and the
 * table's names. */
int ompb__tool_parse_format(const char *tool, const char *v, ompb__report_format *out);

/* convert's and trace's --format (console, csv, json) and --output at
 * argv[*i] (tools/convert.c): 1 when it was one of them (stored), 0 when
 * it is another option, 2 after one line for a bad value. */
int ompb__tool_convert_option(const char *tool, int argc, char **argv, int *i,
                              const char **format, const char **output);

/* A result file read into the reporters' model, rendered as format
 * (ompb__convert_print) to output, atomically, or to standard output when
 * output is NULL; console_first, when not NULL, is a line before a console
 * rendering. 0, or 2 after one line. */
int ompb__tool_convert_write(const char *tool, const char *output, const char *format,
                             const ompb__result_file *f, const char *console_first);

int ompb__tool_usage_error(const char *tool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
