/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by the subcommands of the `ompbench` tool, so
 * that every subcommand accepts options and reports bad ones the same way.
 */
#include "tools.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* The largest --threshold, in percent. */
#define MAX_THRESHOLD_PCT 1000.0

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

static bool listed(const char *name, size_t len, const char *const *lists)
{
    for (; lists && *lists; lists++)
        if (strlen(*lists) == len && strncmp(*lists, name, len) == 0)
            return true;
    return false;
}

int ompb__tool_check_once(const char *tool, ompb__tool_seen *seen, char **argv, int at,
                          int next, const char *const *lists)
{
    const char *arg = argv[at], *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const char *value = eq ? eq + 1 : next > at ? argv[next] : NULL;
    if (!value || listed(arg, len, lists))
        return 0;
    for (size_t k = 0; k < seen->n; k++)
        if (seen->len[k] == len && strncmp(seen->name[k], arg, len) == 0)
            return ompb__tool_usage_error(tool, "%.*s: given twice, '%s' and '%s' (accepted: "
                                          "the option once)", (int)len, arg, seen->value[k],
                                          value);
    if (seen->n < OMPB__TOOL_MAX_OPTIONS) {
        seen->name[seen->n] = arg;
        seen->len[seen->n] = len;
        seen->value[seen->n++] = value;
    }
    return 0;
}

int ompb__tool_usage_error(const char *tool, const char *fmt, ...)
{
    char text[OMPB_ERROR_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ompb__error_print(stderr, "%s: %s", tool, text);
    return 2;
}

int ompb__tool_parse_threshold(const char *tool, const char *v, double *out)
{
    char *end;
    double pct = strtod(v, &end);
    if (end != v && *end == '%')
        end++;
    if (end == v || *end || !isfinite(pct) || pct < 0.0 || pct > MAX_THRESHOLD_PCT)
        return ompb__tool_usage_error(tool, "--threshold: invalid value '%s' (accepted: a "
                                      "percentage from 0 to 1000, e.g. 5 or 2.5%%)", v);
    *out = pct / 100.0;
    return 0;
}

int ompb__tool_parse_format(const char *tool, const char *v, ompb__report_format *out)
{
    if (ompb__report_parse_format(v, out) != 0)
        return ompb__tool_usage_error(tool, "--format: invalid value '%s' (accepted: %s)", v,
                                      ompb__report_format_list());
    return 0;
}

int ompb__tool_parse_alpha(const char *tool, const char *v, double *out)
{
    char *end;
    double a = strtod(v, &end);
    if (end == v || *end || !(a > 0.0 && a < 1.0))
        return ompb__tool_usage_error(tool, "--alpha: invalid value '%s' (accepted: a "
                                      "probability strictly between 0 and 1, e.g. 0.05)", v);
    *out = a;
    return 0;
}
