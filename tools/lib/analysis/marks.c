/* SPDX-License-Identifier: MIT */
/*
 * The table of marks as the analysis tools read them: code, bit and legend,
 * in the order the reports list them. The codes are the producer's
 * (lib/report/marks.h writes them); the legends say what each means for a
 * comparison or a scaling curve, which is where these tools show them.
 */
#include "analysis/marks.h"

#include <string.h>

typedef struct mark_row {
    unsigned bit;
    const char *code;
    const char *legend;
} mark_row;

static const mark_row rows[] = {
    {OMPB__RF_MARK_OVERSUBSCRIBED, "oversubscribed",
     "more threads than usable PUs: threads took turns, so the time is not the code's"},
    {OMPB__RF_MARK_CPU_SHARE, "cpu_share",
     "the team did not have its CPUs (another load took a share): the time is the machine's"},
    {OMPB__RF_MARK_FEW_ROUNDS, "few_rounds",
     "fewer measured rounds than asked (or under 5): the median rests on little"},
    {OMPB__RF_MARK_CALIBRATION, "calibration",
     "calibration stayed disturbed after its retries: the sample size may be off"},
    {OMPB__RF_MARK_NESTED_REGION, "nested_region",
     "the body opened nested parallel regions (fresh threads each time)"},
    {OMPB__RF_MARK_TEAM_WIDTH, "team_width",
     "a caller team's regions, or a phase region's teams, ran at another width than the "
     "instance names"},
    {OMPB__RF_MARK_UNOPTIMIZED, "unoptimized",
     "the benchmark was built without optimization"},
    {OMPB__RF_MARK_ONE_VALUE, "one_value",
     "a region instance seen once: no spread"},
    {OMPB__RF_MARK_OVERFLOW, "overflow",
     "a user counter's figure exceeded the largest double: it is empty"},
    {OMPB__RF_MARK_OTHER, "other",
     "a mark this ompbench does not know (a newer file): see the producing version's docs"},
};

#define N_ROWS (sizeof rows / sizeof rows[0])

static unsigned bit_of(const char *code)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (rows[i].bit != OMPB__RF_MARK_OTHER && strcmp(rows[i].code, code) == 0)
            return rows[i].bit;
    return OMPB__RF_MARK_OTHER;
}

int ompb__marks_read(const json_t *omp, unsigned *marks)
{
    const json_t *list = json_object_get(omp, "marks"), *code;
    size_t i;
    *marks = 0;
    if (!list)
        return 0;
    if (!json_is_array(list))
        return -1;
    unsigned bits = 0;
    json_array_foreach(list, i, code) {
        if (!json_is_string(code))
            return -1;
        bits |= bit_of(json_string_value(code));
    }
    *marks = bits;
    return 0;
}

char *ompb__marks_text(char *buf, size_t cap, unsigned marks)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < N_ROWS && len < cap; i++) {
        if (!(marks & rows[i].bit))
            continue;
        int n = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", rows[i].code);
        len += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

json_t *ompb__marks_json(unsigned marks)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < N_ROWS; i++)
        if ((marks & rows[i].bit) && json_array_append_new(a, json_string(rows[i].code))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

void ompb__marks_each(unsigned marks, void (*fn)(const char *code, const char *legend, void *arg),
                      void *arg)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (marks & rows[i].bit)
            fn(rows[i].code, rows[i].legend, arg);
}

void ompb__marks_legend(FILE *out, unsigned marks, bool markdown)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (marks & rows[i].bit)
            fprintf(out, markdown ? "> - `%s`: %s\n" : "  %s: %s\n", rows[i].code,
                    rows[i].legend);
}
