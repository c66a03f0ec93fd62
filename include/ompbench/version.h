/* SPDX-License-Identifier: MIT */
/* Version of the headers; ompb_version() gives the library's. */
#ifndef OMPBENCH_VERSION_H
#define OMPBENCH_VERSION_H

#include <ompbench/export.h>

#define OMPB_VERSION_MAJOR 0
#define OMPB_VERSION_MINOR 3
#define OMPB_VERSION_PATCH 0
#define OMPB_VERSION_STRING "0.3.0"
/* One number to compare at compile time (cmark's CMARK_VERSION):
 * #if OMPB_VERSION >= OMPB_VERSION_OF(0, 3, 0). */
#define OMPB_VERSION_OF(major, minor, patch) (((major) << 16) | ((minor) << 8) | (patch))
#define OMPB_VERSION OMPB_VERSION_OF(OMPB_VERSION_MAJOR, OMPB_VERSION_MINOR, OMPB_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the linked library, e.g. "0.3.0"; static string. */
OMPB_API const char *ompb_version(void);
/* The same as a number, OMPB_VERSION of the library's headers: compare it
 * with OMPB_VERSION to tell a program built against other headers. */
OMPB_API int ompb_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_VERSION_H */
