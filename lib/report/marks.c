/* SPDX-License-Identifier: MIT */
/*
 * The one place that decides the marks. A mark says that a number cannot
 * be vouched for and why; every reporter shows the same marks from one
 * table (lib/report/marks_table.c: console letters and legend, CSV and
 * JSON codes, the analysis tools' meaning), so a new mark is a row there
 * and a test in ompb__marks_of_record, never code in a reporter. docs/methodology.md ("Marks") explains each one.
 */
#include "report/marks.h"

#include <math.h>
#include <stdbool.h>

#include "report/report.h"


double ompb__cpu_share(const ompb__record *rec)
{
    if (rec->failed || rec->region || rec->rounds == 0 || rec->threads < 1 || rec->cpu_ns == 0)
        return NAN;
    /* The engine says over which wall time it took cpu_ns; a record that
     * does not (measure_wall_ns 0) is taken over its measured rounds, from
     * the first start to the last end, which the CPU time spans too. */
    uint64_t wall = rec->measure_wall_ns;
    if (wall == 0)
        wall = rec->end_ns[rec->rounds - 1] - rec->start_ns[0];
    if (wall == 0)
        return NAN;
    return (double)rec->cpu_ns / ((double)rec->threads * (double)wall);
}

/* The run's plan for this width says whether its threads share PUs. */
static bool oversubscribed(const ompb__record *rec, const ompb__context *ctx)
{
    for (size_t i = 0; ctx && i < ctx->n_plans; i++)
        if (ctx->plans[i].threads == rec->threads)
            return ctx->plans[i].oversubscribed;
    return false;
}

/* Marks that only a measuring run can earn: test and simulation modes ask
 * for one short round on purpose. */
static unsigned measure_marks(const ompb__record *rec)
{
    unsigned m = 0;
    /* Repetitions split the rounds: fewer than 5 is judged over the
     * instance's pooled rounds (ompb__report_init), not per repetition. */
    if (rec->rounds < rec->sampling.rounds
        || (rec->sampling.repetitions <= 1 && rec->rounds < OMPB__MARK_MIN_ROUNDS))
        m |= OMPB__MARK_FEW_ROUNDS;
    /* A caller team's share also drops when the code leaves the runtime's
     * threads idle (serial parts past their spin time): low there does not
     * say that other work took the CPUs, so it is shown but not marked. */
    double share = ompb__cpu_share(rec);
    if (!rec->caller_team && !isnan(share) && share < OMPB__CPU_SHARE_LOW)
        m |= OMPB__MARK_CPU_SHARE;
    if (rec->calibration_disturbed)
        m |= OMPB__MARK_CALIBRATION;
    return m;
}

/* A round's user-counter figure that overflows although its total did
 * not (a rate over a short round): the figure is left empty, and marked.
 * A region's figures are over its sums: result.c marks those. */
static bool ucounter_overflow(const ompb__record *rec)
{
    if (rec->region || !rec->ucounter_values)
        return false;
    for (size_t r = 0; r < rec->rounds; r++)
        for (int k = 0; k < rec->ucounters.n; k++)
            if (isinf(ompb__ucounter_round(rec, r, k)))
                return true;
    return false;
}

unsigned ompb__marks_of_record(const ompb__record *rec, const ompb__context *ctx)
{
    if (rec->failed)
        return 0; /* a failure is shown as such, not as a suspect number */
    unsigned m = rec->sampling.mode == OMPB__SAMPLING_MEASURE ? measure_marks(rec) : 0;
    if (oversubscribed(rec, ctx))
        m |= OMPB__MARK_OVERSUB;
    if (!rec->caller_team && rec->nested_regions > 0)
        m |= OMPB__MARK_NESTED;
    if ((rec->caller_team && rec->other_width_regions > 0)
        || (rec->region && rec->region->phase_mixed))
        m |= OMPB__MARK_WIDTH;
    if (rec->inst && rec->inst->unoptimized)
        m |= OMPB__MARK_UNOPTIMIZED;
    if (rec->region && rec->region->instances == 1)
        m |= OMPB__MARK_ONE_VALUE;
    if (ucounter_overflow(rec))
        m |= OMPB__MARK_OVERFLOW;
    return m;
}
