/* SPDX-License-Identifier: MIT */
/*
 * Error convention of the whole library: functions that can fail return 0 on
 * success and a negative OMPB_E* code on failure; functions returning a
 * pointer return NULL on failure. ompb_strerror() turns a code into a fixed,
 * never-freed string. Parse and configuration functions also fill an optional
 * ompb_error with a message that names the offending value.
 */
#ifndef OMPBENCH_ERROR_H
#define OMPBENCH_ERROR_H

#include <ompbench/export.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    OMPB_OK = 0,
    OMPB_EINVAL = -1,   /* invalid argument or input value */
    OMPB_ENOMEM = -2,   /* out of memory */
    OMPB_EIO = -3,      /* read/write/open failure (errno is preserved) */
    OMPB_ENOENT = -4,   /* nothing matched / no such item */
    OMPB_ETIMEDOUT = -5, /* a bounded wait expired */
    OMPB_EPROTO = -6,   /* peer violated the protocol */
    OMPB_ENOTSUP = -7,  /* not supported on this build or machine */
    OMPB_ERUN = -8      /* a benchmark body misbehaved (e.g. left its loop early) */
};

/* Room for a message such as "--threads: invalid value 'abc' (accepted: ...)". */
#define OMPB_ERROR_TEXT_MAX 320

typedef struct ompb_error {
    int code;                       /* one of OMPB_E*, 0 when unset */
    char text[OMPB_ERROR_TEXT_MAX]; /* one line, no trailing newline */
} ompb_error;

/* Static string for an OMPB_E* code; never NULL, never to be freed. */
OMPB_API const char *ompb_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_ERROR_H */
