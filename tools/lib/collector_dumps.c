/* SPDX-License-Identifier: MIT */
/*
 * The collector in CPU simulation: the callgrind dumps a run left, one
 * "Metadata: " dump per process and uniquely named benchmark dumps
 * (collector.h, ompb__collector_check_dumps).
 */
#include "collector.h"
#include "collector_state.h"

#include <stdlib.h>
#include <string.h>

#include "core/core.h"

int ompb__collector_add_dump(ompb__collector *c, long pid, const char *name, uint64_t ir)
{
    if (!ompb__collector_grow(c, (void **)&c->dumps, &c->cap_dumps, c->n_dumps + 1, sizeof *c->dumps))
        return OMPB_ENOMEM;
    char *copy = ompb__collector_copy(name, strlen(name));
    if (!copy)
        return OMPB_ENOMEM;
    c->dumps[c->n_dumps].pid = pid;
    c->dumps[c->n_dumps].name = copy;
    c->dumps[c->n_dumps++].ir = ir;
    return 0;
}

static bool is_metadata(const char *name)
{
    return strncmp(name, "Metadata: ", 10) == 0;
}

/* Each process that dumped must announce itself exactly once; a process
 * seen for the first time at dumps[first] is counted once. */
static void check_metadata(ompb__collector *c, size_t first)
{
    long pid = c->dumps[first].pid;
    size_t metadata = 0;
    for (size_t i = 0; i < c->n_dumps; i++) {
        if (c->dumps[i].pid != pid)
            continue;
        if (i < first)
            return;
        metadata += is_metadata(c->dumps[i].name);
    }
    if (metadata != 1)
        ompb__collector_violation(c, "process %ld: %zu \"Metadata: \" callgrind dumps "
                                  "(expected 1)", pid, metadata);
}

void ompb__collector_check_dumps(ompb__collector *c)
{
    size_t benches = 0;
    for (size_t i = 0; i < c->n_dumps; i++) {
        const char *name = c->dumps[i].name;
        check_metadata(c, i);
        if (is_metadata(name))
            continue;
        benches++;
        if (!name[0])
            ompb__collector_violation(c, "callgrind dump %zu has an empty name", i + 1);
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->dumps[j].name, name) == 0)
                ompb__collector_violation(c, "callgrind dumps %zu and %zu are both named %s",
                                          j + 1, i + 1, name);
    }
    if (benches == 0)
        ompb__collector_violation(c, "no benchmark callgrind dump");
}
