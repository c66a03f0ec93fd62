/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 validation and escaping (Unicode 15, table 3-7: no overlong forms,
 * no surrogates, nothing above U+10FFFF).
 */
#include "core/utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Length of the UTF-8 sequence starting at s[i], 0 when ill-formed
 * (Unicode table 3-7: the second byte's range depends on the first). */
static size_t utf8_seq(const unsigned char *s, size_t i, size_t len)
{
    unsigned char c = s[i];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (len - i < n || s[i + 1] < lo || s[i + 1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if (s[i + k] < 0x80 || s[i + k] > 0xBF)
            return 0;
    return n;
}

bool ompb__utf8_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq(u, i, len);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

/* U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR (E2 80 A8/A9),
 * which some terminals and most editors break a line at, and the
 * bidirectional embeddings, overrides and isolates U+202A-U+202E and
 * U+2066-U+2069 (E2 80 AA..AE, E2 81 A6..A9), which reorder what follows
 * them on screen: a one-line message must read as it is. */
static bool is_format_control(const unsigned char *u, size_t n)
{
    if (n != 3 || u[0] != 0xe2)
        return false;
    return (u[1] == 0x80 && u[2] >= 0xa8 && u[2] <= 0xae) ||
           (u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9);
}

/* A C0 control, DEL, a C1 control (U+0080-U+009F is C2 80..C2 9F), or one
 * of the format controls above. */
static bool is_control(const unsigned char *u, size_t n)
{
    return (n == 1 && (u[0] < 0x20 || u[0] == 0x7f)) || (n == 2 && u[0] == 0xc2 && u[1] < 0xa0) ||
           is_format_control(u, n);
}

static size_t escape(const char *s, char *out, size_t cap, bool controls)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s), o = 0;
    if (cap == 0)
        return 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq(u, i, len);
        bool esc = n == 0 || (controls && is_control(u + i, n));
        size_t bytes = esc ? (n ? n : 1) : n, width = esc ? 4 * bytes : n;
        /* Whole pieces only, so a truncated result is still valid UTF-8. */
        if (width >= cap - o)
            break;
        if (!esc)
            memcpy(out + o, s + i, n);
        for (size_t k = 0; esc && k < bytes; k++)
            snprintf(out + o + 4 * k, cap - o - 4 * k, "\\x%02x", u[i + k]);
        o += width;
        i += bytes;
    }
    out[o] = '\0';
    return o;
}

size_t ompb__utf8_escape(const char *s, char *out, size_t cap)
{
    return escape(s, out, cap, false);
}

size_t ompb__utf8_escape_controls(const char *s, char *out, size_t cap)
{
    return escape(s, out, cap, true);
}
