/* SPDX-License-Identifier: MIT */
/*
 * Filling an ompb_error (public type, include/ompbench/error.h) with a
 * one-line message that names the bad value and what is accepted. Every
 * module that reports user errors includes this, and nothing else, for it.
 */
#ifndef OMPB_ERROR_H
#define OMPB_ERROR_H

#include <ompbench/error.h>

/* Sets err->code and a printf-formatted err->text; returns code. NULL err
 * is fine. Control characters and bytes that are not UTF-8 in the text
 * become "\xNN" (lib/core/utf8.h): a value echoed from the command line, the
 * environment or a file ("--filter $'a\nb'", a unit string with an escape
 * sequence) cannot break the one line or drive the terminal. */
int ompb__error_set(ompb_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prints one printf-formatted line with the same escaping, and a newline,
 * to stream (a FILE *): for messages that name a value and go straight to
 * standard error without an ompb_error. */
void ompb__error_print(void *stream, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
