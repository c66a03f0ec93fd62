/* SPDX-License-Identifier: MIT */
/* Growing arrays: one doubling policy for every buffer of the library. */
#ifndef OMPB_GROW_H
#define OMPB_GROW_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Makes room for at least `need` elements of `elem` bytes in *buf (capacity
 * *cap, in elements), doubling from `first`. Returns false, leaving *buf and
 * *cap untouched, when the size would overflow or realloc fails.
 */
bool ompb__grow(void **buf, size_t *cap, size_t need, size_t elem, size_t first);

#endif
