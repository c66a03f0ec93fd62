/* SPDX-License-Identifier: MIT */
/*
 * Growing arrays by doubling, so appending n elements costs O(n) copies in
 * all, with the overflow checks in one place; and allocations on cache
 * lines of their own.
 */
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool ompb__grow(void **buf, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return true;
    size_t cap2 = *cap ? *cap : (first ? first : 1);
    while (cap2 < need) {
        if (cap2 > SIZE_MAX / 2)
            return false;
        cap2 *= 2;
    }
    if (elem && cap2 > SIZE_MAX / elem)
        return false;
    void *p = realloc(*buf, cap2 * elem);
    if (!p)
        return false;
    *buf = p;
    *cap = cap2;
    return true;
}

void *ompb__calloc_lines(size_t size)
{
    size = (size + 63) / 64 * 64;
    void *p = aligned_alloc(64, size ? size : 64);
    if (p)
        memset(p, 0, size);
    return p;
}
