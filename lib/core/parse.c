/* SPDX-License-Identifier: MIT */
/*
 * Strict decimal numbers: digits only, range-checked as they are read, so
 * no value can wrap on the way in.
 */
#include "core/parse.h"

#include <ompbench/error.h>

int ompb__parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (!text || !*text)
        return OMPB_EINVAL;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return OMPB_EINVAL;
        uint64_t digit = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return OMPB_EINVAL;
        v = v * 10 + digit;
        if (v > max)
            return OMPB_EINVAL;
    }
    if (v < min)
        return OMPB_EINVAL;
    *out = v;
    return 0;
}
