/* SPDX-License-Identifier: MIT */
/*
 * Name -> index lookups in constant expected time, for matching instances
 * by name in compare and scaling: a linear search per name made 100k names
 * take minutes. An open-addressing hash table of borrowed keys: the caller
 * keeps each key string alive, unchanged, as long as the index is used
 * (result-file instance names and family names are malloc'd once and never
 * moved, even when the arrays holding their pointers grow).
 */
#ifndef OMPB_ANALYSIS_NAMEINDEX_H
#define OMPB_ANALYSIS_NAMEINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ompb__name_slot {
    const char *key;        /* NULL: empty */
    uint64_t hash;
    size_t value;
} ompb__name_slot;

/* Zero-initialized is an empty index. */
typedef struct ompb__name_index {
    ompb__name_slot *slots;
    size_t cap, n;
} ompb__name_index;

/* Adds key -> value; a key already present keeps its first value. Returns
 * 0 or OMPB_ENOMEM (the index is then unchanged). */
int ompb__name_index_put(ompb__name_index *ix, const char *key, size_t value);
/* True and *value when key is present. */
bool ompb__name_index_get(const ompb__name_index *ix, const char *key, size_t *value);
/* Frees the table (not the keys) and empties the index. */
void ompb__name_index_free(ompb__name_index *ix);

#endif
