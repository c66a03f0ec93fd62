/* SPDX-License-Identifier: MIT */
/* Version of the headers; ompb_version() gives the library's. */
#ifndef OMPBENCH_VERSION_H
#define OMPBENCH_VERSION_H

#include <ompbench/export.h>

#define OMPB_VERSION_MAJOR 0
#define OMPB_VERSION_MINOR 1
#define OMPB_VERSION_PATCH 0
#define OMPB_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the linked library, e.g. "0.1.0"; static string. */
OMPB_API const char *ompb_version(void);

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_VERSION_H */
