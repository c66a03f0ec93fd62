/* SPDX-License-Identifier: MIT */
/*
 * Rendering a result file again: the file read into the reporters' model
 * (lib/report/json_read.c), then the library's reporter of the format. The
 * console table has no context header (the file's context is JSON, not
 * the run's collected context): a line names the run instead.
 */
#include "analysis/convert.h"

#include <string.h>

#include "core/core.h"

#define SHOWN_MAX 256

int ompb__convert_format_ok(const char *format)
{
    return strcmp(format, "console") == 0 || strcmp(format, "csv") == 0 ||
           strcmp(format, "json") == 0;
}

/* "converted from: executable X date Y host_name Z", control characters
 * escaped (a hostile file cannot drive the terminal). */
static void converted_from(FILE *out, const json_t *ctx)
{
    static const char *const keys[] = {"executable", "date", "host_name"};
    fputs("converted from:", out);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *v = json_string_value(json_object_get(ctx, keys[k]));
        char shown[SHOWN_MAX];
        ompb__utf8_escape_controls(v ? v : "?", shown, sizeof shown);
        fprintf(out, " %s %s", keys[k], shown);
    }
    fputc('\n', out);
}

int ompb__convert_print(FILE *out, const ompb__result_file *f, const char *format)
{
    const ompb__reporter *r = ompb__reporter_find(format);
    if (!r || !ompb__convert_format_ok(format))
        return OMPB_EINVAL;
    ompb__report rep;
    int rc = ompb__result_file_report(f, &rep);
    if (rc)
        return rc;
    if (r == &ompb__reporter_console && json_object_size(f->context) > 0)
        converted_from(out, f->context);
    rc = r->write(out, &rep);
    ompb__report_release(&rep);
    return rc ? rc : ferror(out) ? OMPB_EIO : 0;
}
