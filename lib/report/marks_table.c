/* SPDX-License-Identifier: MIT */
/*
 * The table of marks (lib/report/marks.h), the one table every reporter
 * and every analysis tool reads: a mark's bit, its code in files, its
 * console letter and legend, and what it means for a comparison or a
 * scaling curve. Beside it, the codes read back from a file and written
 * in the analysis tools' order. Data and codes only: no record, no
 * context (the fuzzers link it alone).
 */
#include "report/marks.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

const ompb__mark_row ompb__mark_rows[] = {
    {OMPB__MARK_FEW_ROUNDS, "few_rounds", 'R',
     "fewer measured rounds than asked for, or fewer than 5: the statistics rest on too few "
     "rounds; give the instance more time (--max-time) or find why (the note names it)",
     "fewer measured rounds than asked (or under 5): the median rests on little", 2},
    {OMPB__MARK_CPU_SHARE, "cpu_share", 'C',
     "the team had its CPUs less than 80% of the time (CPU share column): other work ran on "
     "them; rerun on a quiet machine or on PUs nothing else uses",
     "the team did not have its CPUs (another load took a share): the time is the machine's", 1},
    {OMPB__MARK_OVERSUB, "oversubscribed", 'O',
     "more threads than usable PUs: threads share PUs and rounds include time slicing; use "
     "at most as many threads as PUs (--threads, taskset)",
     "more threads than usable PUs: threads took turns, so the time is not the code's", 0},
    {OMPB__MARK_NESTED, "nested_region", 'N',
     "the body opened nested parallel regions (one thread each): not the code's parallel "
     "figure; declare it with .team = OMPB_TEAM_CALLER",
     "the body opened nested parallel regions (fresh threads each time)", 4},
    {OMPB__MARK_WIDTH, "team_width", 'W',
     "a caller team's code opened regions of another width than T, or a phase region's "
     "teams had mixed widths: not a t=T figure; drop num_threads/omp_set_num_threads from "
     "the code under test",
     "a caller team's regions, or a phase region's teams, ran at another width than the "
     "instance names", 5},
    {OMPB__MARK_UNOPTIMIZED, "unoptimized", 'U',
     "the benchmark's own source was compiled without optimization (no -O): the figure is "
     "not an optimized build's; compile it with -O2 (CMake: -DCMAKE_BUILD_TYPE=Release)",
     "the benchmark was built without optimization", 6},
    {OMPB__MARK_ONE_VALUE, "one_value", '1',
     "a region instance seen once: its statistics are one value, with no spread; run the "
     "region more often",
     "a region instance seen once: no spread", 7},
    {OMPB__MARK_CALIBRATION, "calibration", 'D',
     "the calibration was still disturbed after its retries: the sample size may be far off; "
     "rerun on a quiet machine, or fix it with --sample-size",
     "calibration stayed disturbed after its retries: the sample size may be off", 3},
    {OMPB__MARK_OVERFLOW, "overflow", 'V',
     "a user counter's figure (a rate, an average) exceeds the largest double: it is left "
     "empty (null in JSON); the counts are in the per-round figures or the sums",
     "a user counter's figure exceeded the largest double: it is empty", 8},
    {OMPB__MARK_OTHER, "other", '?',
     "a mark this ompbench does not know (a newer file): see the producing version's docs",
     "a mark this ompbench does not know (a newer file): see the producing version's docs", 9},
};
const size_t ompb__n_mark_rows = sizeof ompb__mark_rows / sizeof ompb__mark_rows[0];

/* Row i of the analysis tools' order. */
static const ompb__mark_row *analysis_row(size_t i)
{
    for (size_t k = 0; k < ompb__n_mark_rows; k++)
        if (ompb__mark_rows[k].analysis_rank == i)
            return &ompb__mark_rows[k];
    return NULL;
}

int ompb__marks_of_json(const json_t *codes, unsigned *marks)
{
    *marks = 0;
    if (!codes)
        return 0;
    if (!json_is_array(codes))
        return -1;
    unsigned bits = 0;
    for (size_t i = 0; i < json_array_size(codes); i++) {
        const char *code = json_string_value(json_array_get(codes, i));
        if (!code)
            return -1;
        unsigned bit = OMPB__MARK_OTHER;
        for (size_t k = 0; k < ompb__n_mark_rows; k++)
            if (ompb__mark_rows[k].bit != OMPB__MARK_OTHER &&
                strcmp(code, ompb__mark_rows[k].code) == 0)
                bit = ompb__mark_rows[k].bit;
        bits |= bit;
    }
    *marks = bits;
    return 0;
}

char *ompb__marks_text(char *buf, size_t cap, unsigned marks)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < ompb__n_mark_rows && len < cap; i++) {
        const ompb__mark_row *row = analysis_row(i);
        if (!row || !(marks & row->bit))
            continue;
        int n = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", row->code);
        len += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

json_t *ompb__marks_json(unsigned marks)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < ompb__n_mark_rows; i++) {
        const ompb__mark_row *row = analysis_row(i);
        if (row && (marks & row->bit) && json_array_append_new(a, json_string(row->code))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

void ompb__marks_each(unsigned marks, void (*fn)(const char *code, const char *legend, void *arg),
                      void *arg)
{
    for (size_t i = 0; i < ompb__n_mark_rows; i++) {
        const ompb__mark_row *row = analysis_row(i);
        if (row && (marks & row->bit))
            fn(row->code, row->analysis, arg);
    }
}

void ompb__marks_legend(FILE *out, unsigned marks, bool markdown)
{
    for (size_t i = 0; i < ompb__n_mark_rows; i++) {
        const ompb__mark_row *row = analysis_row(i);
        if (row && (marks & row->bit))
            fprintf(out, markdown ? "> - `%s`: %s\n" : "  %s: %s\n", row->code, row->analysis);
    }
}
