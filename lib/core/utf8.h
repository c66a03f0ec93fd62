/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 checks shared by the registry (benchmark names), the wire codec
 * (every string on the runner's pipe) and the reporters: one definition of
 * well-formed, so a name the registry accepts is one the runner accepts.
 */
#ifndef OMPB_UTF8_H
#define OMPB_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* True when s[0..len) is well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
bool ompb__utf8_valid(const char *s, size_t len);

/* Copies the NUL-terminated s to out as valid UTF-8: each byte that is not
 * part of a well-formed sequence becomes the four characters "\xNN".
 * Stops before a piece that would not fit in cap - 1 bytes; always
 * NUL-terminates when cap > 0. Returns the length written. Used to name
 * an invalid string in a warning and to send something well-formed. */
size_t ompb__utf8_escape(const char *s, char *out, size_t cap);

/* Same, for a terminal: control characters too (C0, DEL, and the C1 range
 * U+0080-U+009F, whose CSI would drive the terminal as ESC [ does), the
 * line and paragraph separators U+2028/U+2029 and the bidirectional
 * controls U+202A-U+202E and U+2066-U+2069 become "\xNN" per byte. A name
 * printed this way cannot move the cursor, clear the screen, change
 * colours, break the line or reorder the text after it. */
size_t ompb__utf8_escape_controls(const char *s, char *out, size_t cap);

#endif
