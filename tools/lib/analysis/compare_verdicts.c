/* SPDX-License-Identifier: MIT */
/*
 * The verdicts of `ompbench compare` and `ompbench ab` as rows: the name
 * the reports print, the JSON key, the flags that decide the summaries'
 * groups, the gates and the emphasis, how rows of a verdict sort and where
 * the summary lines name it. Every report, summary, JSON count and gate
 * reads them here; analysis/compare.c decides which verdict a pair gets.
 */
#include "analysis/compare.h"

#include <stdbool.h>
#include <stddef.h>

#define JUDGED OMPB__VERDICT_JUDGED
#define GATES OMPB__VERDICT_GATES
#define EMPHASIS OMPB__VERDICT_EMPHASIS
#define CHANGE OMPB__VERDICT_CHANGE
#define RARE OMPB__VERDICT_RARE
#define UNDECIDED OMPB__VERDICT_UNDECIDED
#define WHEN_SEEN OMPB__VERDICT_WHEN_SEEN

/* The verdicts: a new one is an enum value (where regressions-first
 * reports list it) and a row here; every report, summary, JSON count and
 * gate reads it from this table. */
static const ompb__verdict_row verdicts[OMPB__VERDICT_COUNT] = {
    [OMPB__VERDICT_REGRESSED] = {"regressed", "regressed", JUDGED | GATES | EMPHASIS | CHANGE,
                                 OMPB__SORT_CHANGE_DESC, 0},
    [OMPB__VERDICT_FAILED] = {"failed", "failed", GATES | EMPHASIS, OMPB__SORT_FILE, 7},
    [OMPB__VERDICT_IMPROVED] = {"improved", "improved", JUDGED | CHANGE, OMPB__SORT_CHANGE_ASC,
                                1},
    [OMPB__VERDICT_NOISY] = {"noisy", "noisy", JUDGED | UNDECIDED, OMPB__SORT_SIZE_DESC, 3},
    [OMPB__VERDICT_DISTURBED] = {"disturbed", "disturbed", JUDGED | UNDECIDED | WHEN_SEEN,
                                 OMPB__SORT_FILE, 3},
    [OMPB__VERDICT_UNKNOWN] = {"noise unknown", "noise_unknown", UNDECIDED,
                               OMPB__SORT_SIZE_DESC, 4},
    [OMPB__VERDICT_NO_RATIO] = {"no ratio", "no_ratio", RARE, OMPB__SORT_FILE, 8},
    [OMPB__VERDICT_UNTOUCHED] = {"untouched", "untouched", JUDGED, OMPB__SORT_CHANGE_DESC, 2},
    [OMPB__VERDICT_NEW] = {"new", "new", 0, OMPB__SORT_FILE, 5},
    [OMPB__VERDICT_MISSING] = {"missing", "missing", 0, OMPB__SORT_FILE, 6},
};

const ompb__verdict_row *ompb__verdict_info(ompb__verdict v)
{
    return (unsigned)v < OMPB__VERDICT_COUNT ? &verdicts[v] : NULL;
}

const char *ompb__verdict_name(ompb__verdict v)
{
    const ompb__verdict_row *row = ompb__verdict_info(v);
    return row ? row->name : "?";
}

const char *ompb__verdict_key(ompb__verdict v)
{
    const ompb__verdict_row *row = ompb__verdict_info(v);
    return row ? row->key : "?";
}

bool ompb__verdict_is(ompb__verdict v, unsigned flags)
{
    const ompb__verdict_row *row = ompb__verdict_info(v);
    return row && (row->flags & flags) == flags;
}

size_t ompb__verdict_count(const size_t *counts, unsigned flags)
{
    size_t n = 0;
    for (int v = 0; v < OMPB__VERDICT_COUNT; v++)
        n += ompb__verdict_is((ompb__verdict)v, flags) ? counts[v] : 0;
    return n;
}

void ompb__verdict_summary_order(ompb__verdict order[OMPB__VERDICT_COUNT], size_t *n)
{
    /* Insertion sort by position: stable, so ties keep the enum's order. */
    for (int v = 0; v < OMPB__VERDICT_COUNT; v++) {
        int k = v;
        for (; k > 0 && verdicts[order[k - 1]].summary > verdicts[v].summary; k--)
            order[k] = order[k - 1];
        order[k] = (ompb__verdict)v;
    }
    *n = OMPB__VERDICT_COUNT;
}
