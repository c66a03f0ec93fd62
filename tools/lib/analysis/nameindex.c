/* SPDX-License-Identifier: MIT */
/*
 * The name index: FNV-1a hashes, linear probing, a table at most half full
 * (doubled before it gets fuller), so a lookup touches about two slots.
 */
#include "analysis/nameindex.h"

#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#define FIRST_CAP 64

static uint64_t hash_of(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

/* The slot holding key, or the empty slot where it would go. */
static ompb__name_slot *probe(ompb__name_slot *slots, size_t cap, const char *key, uint64_t h)
{
    size_t i = (size_t)h & (cap - 1);
    while (slots[i].key && (slots[i].hash != h || strcmp(slots[i].key, key) != 0))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(ompb__name_index *ix)
{
    size_t cap = ix->cap ? ix->cap * 2 : FIRST_CAP;
    if (cap < ix->cap || cap > SIZE_MAX / sizeof *ix->slots)
        return OMPB_ENOMEM;
    ompb__name_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return OMPB_ENOMEM;
    for (size_t i = 0; i < ix->cap; i++)
        if (ix->slots[i].key)
            *probe(slots, cap, ix->slots[i].key, ix->slots[i].hash) = ix->slots[i];
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return 0;
}

int ompb__name_index_put(ompb__name_index *ix, const char *key, size_t value)
{
    if (2 * (ix->n + 1) > ix->cap && grow(ix) != 0)
        return OMPB_ENOMEM;
    uint64_t h = hash_of(key);
    ompb__name_slot *s = probe(ix->slots, ix->cap, key, h);
    if (!s->key) {
        *s = (ompb__name_slot){key, h, value};
        ix->n++;
    }
    return 0;
}

bool ompb__name_index_get(const ompb__name_index *ix, const char *key, size_t *value)
{
    if (ix->n == 0)
        return false;
    const ompb__name_slot *s = probe(ix->slots, ix->cap, key, hash_of(key));
    if (!s->key)
        return false;
    *value = s->value;
    return true;
}

void ompb__name_index_free(ompb__name_index *ix)
{
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}
