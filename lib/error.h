/* SPDX-License-Identifier: MIT */
/*
 * Filling an ompb_error (public type, include/ompbench/error.h) with a
 * one-line message that names the bad value and what is accepted. Every
 * module that reports user errors includes this, and nothing else, for it.
 */
#ifndef OMPB_ERROR_H
#define OMPB_ERROR_H

#include <ompbench/error.h>

/* Sets err->code and a printf-formatted err->text; returns code. NULL err is fine. */
int ompb__error_set(ompb_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
