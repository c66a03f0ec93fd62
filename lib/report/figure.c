/* SPDX-License-Identifier: MIT */
/*
 * Figure lists and the columns they make: the part of the reporters'
 * layout that depends on nothing but the figures, so that every format
 * finds its columns the same way.
 */
#include "report/figure.h"

#include <string.h>

int ompb__figure_add(ompb__figures *l, const ompb__figure *fig)
{
    if (l->n >= OMPB__FIGURES_MAX || ompb__figure_find(l, fig->key))
        return -1;
    l->f[l->n++] = *fig;
    return 0;
}

const ompb__figure *ompb__figure_find(const ompb__figures *l, const char *key)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->f[i].key, key) == 0)
            return &l->f[i];
    return NULL;
}

void ompb__figure_columns_clear(ompb__figure_columns *c)
{
    c->n = 0;
}

static bool has_column(const ompb__figure_columns *c, const char *key)
{
    for (int j = 0; j < c->n; j++)
        if (strcmp(c->col[j]->key, key) == 0)
            return true;
    return false;
}

void ompb__figure_columns_add(ompb__figure_columns *c, const ompb__figures *l, int fmt)
{
    for (int i = 0; i < l->n && c->n < OMPB__COLUMNS_MAX; i++)
        if (l->f[i].place[fmt] && !has_column(c, l->f[i].key))
            c->col[c->n++] = &l->f[i];
}

/* Stable (insertion) sort by place: first appearance breaks ties. */
void ompb__figure_columns_sort(ompb__figure_columns *c, int fmt)
{
    for (int i = 1; i < c->n; i++) {
        const ompb__figure *x = c->col[i];
        int j = i;
        for (; j > 0 && c->col[j - 1]->place[fmt] > x->place[fmt]; j--)
            c->col[j] = c->col[j - 1];
        c->col[j] = x;
    }
}
