/* SPDX-License-Identifier: MIT */
/*
 * Error codes and messages: the strings behind OMPB_E* codes, and the helper
 * that fills an ompb_error with a one-line message for the user.
 */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

#include <ompbench/error.h>

#include "core/utf8.h"

const char *ompb_strerror(int code)
{
    switch (code) {
    case OMPB_OK: return "success";
    case OMPB_EINVAL: return "invalid argument";
    case OMPB_ENOMEM: return "out of memory";
    case OMPB_EIO: return "input/output error";
    case OMPB_ENOENT: return "no such item";
    case OMPB_ETIMEDOUT: return "timed out";
    case OMPB_EPROTO: return "protocol error";
    case OMPB_ENOTSUP: return "not supported";
    case OMPB_ERUN: return "benchmark failed";
    default: return "unknown error";
    }
}

/* fmt and ap into out[OMPB_ERROR_TEXT_MAX], escaped. Escaping is
 * idempotent ("\x0a" has no control character), so a message built from
 * another one's text is not escaped twice. */
static void format_line(char *out, const char *fmt, va_list ap)
{
    char raw[OMPB_ERROR_TEXT_MAX];
    vsnprintf(raw, sizeof raw, fmt, ap);
    ompb__utf8_escape_controls(raw, out, OMPB_ERROR_TEXT_MAX);
}

int ompb__error_set(ompb_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        format_line(err->text, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void ompb__error_print(void *stream, const char *fmt, ...)
{
    char text[OMPB_ERROR_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    format_line(text, fmt, ap);
    va_end(ap);
    fprintf((FILE *)stream, "%s\n", text);
}
