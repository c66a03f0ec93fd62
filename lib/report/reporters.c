/* SPDX-License-Identifier: MIT */
/*
 * The reporter table: --format validates against it, --help lists it, and
 * ompb_main writes through the row it names. A new format is one file that
 * defines its ompb__reporter, plus one ROW(name) line here.
 */
#include "report/report.h"

#include <string.h>

/* One row per format, each defined as ompb__reporter_<row> in its own
 * lib/report/<row>.c; the first row is the default. */
#define REPORTERS(ROW) \
    ROW(console)       \
    ROW(json)          \
    ROW(csv)

#define DECLARE(name) extern const ompb__reporter ompb__reporter_##name;
REPORTERS(DECLARE)
#define ENTRY(name) &ompb__reporter_##name,
static const ompb__reporter *const reporters[] = {REPORTERS(ENTRY)};

#define N_REPORTERS (sizeof reporters / sizeof reporters[0])

const ompb__reporter *ompb__reporter_find(const char *name)
{
    for (size_t i = 0; i < N_REPORTERS; i++)
        if (strcmp(reporters[i]->name, name) == 0)
            return reporters[i];
    return NULL;
}

const char *ompb__reporter_names(void)
{
    static char names[256];
    if (!names[0]) {
        size_t pos = 0;
        for (size_t i = 0; i < N_REPORTERS && pos < sizeof names; i++)
            pos += (size_t)snprintf(names + pos, sizeof names - pos, "%s%s", i ? ", " : "",
                                    reporters[i]->name);
    }
    return names;
}

const ompb__reporter *ompb__reporter_default(void)
{
    return reporters[0];
}
