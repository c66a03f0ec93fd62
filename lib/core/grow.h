/* SPDX-License-Identifier: MIT */
/* Growing arrays: one doubling policy for every buffer of the library; and
 * zeroed memory on cache lines of its own. */
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

/* Zeroed memory on cache lines of its own (64-byte aligned, size rounded up
 * to a multiple of 64), for objects that threads on other cores write (a
 * region read by every begin must not share a line with an entry the
 * reducers write); NULL on ENOMEM. free() releases it. */
void *ompb__calloc_lines(size_t size);

#endif
