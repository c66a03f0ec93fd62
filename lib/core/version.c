/* SPDX-License-Identifier: MIT */
/* The library's version string, for programs linked against another header. */
#include <ompbench/version.h>

const char *ompb_version(void)
{
    return OMPB_VERSION_STRING;
}

int ompb_version_number(void)
{
    return OMPB_VERSION;
}
