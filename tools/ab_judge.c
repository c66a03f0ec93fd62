/* SPDX-License-Identifier: MIT */
/*
 * The verdicts of `ompbench ab`: after every pair of runs, all usable
 * files of each side are pooled by `ompbench compare`'s own code
 * (ompb__compare_runs: per-process log medians, Yuen-trimmed), and each
 * instance whose runs reached its next planned look takes it
 * (analysis/sequential.h). compare's rows carry each side's trimmed mean
 * (as a geometric mean), its winsorized spread and its count of runs,
 * which is Yuen's summary again, so the look tests exactly what compare
 * pooled. Benjamini-Hochberg over the instances with a look then decides
 * the regressed/improved claims; an interval within the threshold decides
 * untouched; the rest stay open until their looks are used up.
 */
#include "ab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

/* The row of name (the hint first: both sides usually list in one order);
 * the name index keeps a list of 40,000 names linear. */
static ompb__ab_row *find_row(ompb__ab *ab, const char *name, size_t hint)
{
    size_t at;
    if (hint < ab->n_rows && strcmp(ab->rows[hint].name, name) == 0)
        return &ab->rows[hint];
    return ompb__name_index_get(&ab->row_index, name, &at) ? &ab->rows[at] : NULL;
}

int ompb__ab_add_listed(ompb__ab *ab, int side, char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ompb__ab_row *r = find_row(ab, names[i], i);
        if (!r) {
            if (!ompb__grow((void **)&ab->rows, &ab->cap_rows, ab->n_rows + 1, sizeof *r, 16))
                return OMPB_ENOMEM;
            r = &ab->rows[ab->n_rows];
            memset(r, 0, sizeof *r);
            if (!(r->name = strdup(names[i])))
                return OMPB_ENOMEM;
            if (ompb__name_index_put(&ab->row_index, r->name, ab->n_rows)) {
                free(r->name);
                return OMPB_ENOMEM;
            }
            ab->n_rows++;
            ompb__seq_state_init(&r->seq);
            r->verdict = OMPB__VERDICT_UNKNOWN;
            r->q = NAN;
        }
        r->listed[side] = true;
    }
    return 0;
}

/* The log differences HEAD - BASE of the instance's complete pairs (both
 * runs of a pair have a value, as compare pools them: clean when the pair
 * of sides was accounted), in pair order, into d (room for every BASE file). */
static size_t pair_differences(const ompb__ab *ab, const ompb__ab_row *r, double *d)
{
    bool clean = r->cmp.accounted;
    size_t n = 0;
    for (size_t i = 0; i < ab->n_files[OMPB__AB_BASE]; i++) {
        double b, h;
        const ompb__rf_instance *in = ompb__resultfile_find(&ab->files[OMPB__AB_BASE][i], r->name);
        if (!ompb__compare_run_value(in, clean, &b))
            continue;
        for (size_t j = 0; j < ab->n_files[OMPB__AB_HEAD]; j++) {
            if (ab->file_pair[OMPB__AB_HEAD][j] != ab->file_pair[OMPB__AB_BASE][i])
                continue;
            in = ompb__resultfile_find(&ab->files[OMPB__AB_HEAD][j], r->name);
            if (ompb__compare_run_value(in, clean, &h))
                d[n++] = h - b;
            break;
        }
    }
    return n;
}

/* A look on the pairs: BASE and HEAD of one pair ran one after the other,
 * so their difference is free of what the machine did over the minutes of
 * the comparison (a drift both sides see); Yuen's trimmed mean of the
 * pairs' log differences, its one-sample t (ompb__paired). */
static int take_look(ompb__ab *ab, ompb__ab_row *r)
{
    const ompb__compare_row *c = &r->cmp;
    if (c->basis != OMPB__BASIS_PROCESSES)
        return 0;
    double *d = malloc((ab->n_files[OMPB__AB_BASE] + 1) * sizeof *d);
    if (!d)
        return OMPB_ENOMEM;
    size_t n = pair_differences(ab, r, d);
    if (ompb__seq_due(&ab->plan, &r->seq, n)) {
        ompb__welch_result w = ompb__paired(ompb__summarize_trimmed(d, n, OMPB__COMPARE_TRIM));
        ompb__seq_look(&ab->plan, &r->seq, &w, n);
        ompb__seq_interval(&ab->plan, &r->seq, &w);
    }
    free(d);
    return 0;
}

/* What compare's presence says, when it settles the instance: failed in
 * HEAD, failed in BASE only, a time of 0, or listed by one side only. A
 * side without a record of an instance both list has not measured it yet
 * (its runs failed early): that stays open. */
static bool settled_by_presence(const ompb__ab_row *r)
{
    switch (r->cmp.verdict) {
    case OMPB__VERDICT_FAILED:
    case OMPB__VERDICT_NO_RATIO:
        return true;
    case OMPB__VERDICT_NEW:
        return !r->listed[OMPB__AB_BASE] || (r->cmp.base && r->cmp.base->failed);
    case OMPB__VERDICT_MISSING:
        return !r->listed[OMPB__AB_HEAD];
    default:
        return false;
    }
}

static void settle_row(ompb__ab *ab, ompb__ab_row *r)
{
    r->runs_needed = 0;
    if (settled_by_presence(r)) {
        r->verdict = r->cmp.verdict;
        r->decided = true;
        return;
    }
    r->decided = false;
    if (r->seq.looks == 0) {
        /* Too few clean runs so far: still open, and said so. */
        r->verdict = r->cmp.verdict == OMPB__VERDICT_DISTURBED ? OMPB__VERDICT_DISTURBED
                                                               : OMPB__VERDICT_UNKNOWN;
        return;
    }
    if (r->q <= ab->opts.alpha) {
        /* The direction of the look that gave p: its interval clears the
         * threshold on that side (q <= alpha needs p_k <= gamma_k there). */
        r->verdict = r->seq.p_low > 0.0 ? OMPB__VERDICT_REGRESSED : OMPB__VERDICT_IMPROVED;
        r->decided = true;
    } else if (r->seq.within) {
        r->verdict = OMPB__VERDICT_UNTOUCHED;
        r->decided = true;
    } else {
        r->verdict = OMPB__VERDICT_NOISY;
        /* Futile: too noisy for the threshold even at the last look; its
         * runs go to the instances that can still be decided. */
        r->decided = !ompb__seq_open(&ab->plan, &r->seq) || r->seq.futile;
        r->runs_needed = ompb__seq_runs_needed(&ab->plan, &r->seq, OMPB__COMPARE_TRIM);
    }
}

/* Benjamini-Hochberg over the sequential p of every instance with a look
 * (compare's family: the judged instances). */
static int adjust(ompb__ab *ab)
{
    double *p = malloc((ab->n_rows + 1) * sizeof *p);
    if (!p)
        return OMPB_ENOMEM;
    for (size_t i = 0; i < ab->n_rows; i++)
        p[i] = settled_by_presence(&ab->rows[i]) ? NAN : ab->rows[i].seq.p;
    int rc = ompb__bh_adjust(p, ab->n_rows, p);
    for (size_t i = 0; i < ab->n_rows && !rc; i++)
        ab->rows[i].q = p[i];
    free(p);
    return rc;
}

static int pool(ompb__ab *ab)
{
    if (ab->have_cmp)
        ompb__comparison_free(&ab->cmp);
    ab->have_cmp = false;
    if (!ab->n_files[OMPB__AB_BASE] || !ab->n_files[OMPB__AB_HEAD])
        return 0;
    ompb__compare_side base = {ab->files[OMPB__AB_BASE], ab->n_files[OMPB__AB_BASE]};
    ompb__compare_side head = {ab->files[OMPB__AB_HEAD], ab->n_files[OMPB__AB_HEAD]};
    int rc = ompb__compare_runs(&base, &head, &ab->opts, &ab->cmp);
    ab->have_cmp = rc == 0;
    return rc;
}

/* Before each pooling: nothing measured, as far as the rows know. */
static void reset_rows(ompb__ab *ab)
{
    for (size_t i = 0; i < ab->n_rows; i++) {
        ompb__compare_row *c = &ab->rows[i].cmp;
        memset(c, 0, sizeof *c);
        c->name = ab->rows[i].name;
        c->base_ns = c->head_ns = c->change = c->ci_low = c->ci_high = NAN;
        c->base_spread = c->head_spread = c->p = c->q = NAN;
        c->basis = OMPB__BASIS_NONE;
        c->verdict = !ab->rows[i].listed[OMPB__AB_BASE]   ? OMPB__VERDICT_NEW
                     : !ab->rows[i].listed[OMPB__AB_HEAD] ? OMPB__VERDICT_MISSING
                                                          : OMPB__VERDICT_UNKNOWN;
    }
}

int ompb__ab_judge(ompb__ab *ab)
{
    reset_rows(ab);
    int rc = pool(ab);
    if (rc)
        return rc;
    for (size_t i = 0; ab->have_cmp && i < ab->cmp.n; i++) {
        const ompb__compare_row *c = &ab->cmp.rows[i];
        ompb__ab_row *r = find_row(ab, c->name, i);
        /* An instance no --list named (the binary changed meanwhile)
         * cannot be selected again; compare's verdict is all it gets. */
        if (!r) {
            char *name = (char *)c->name;
            if ((rc = ompb__ab_add_listed(ab, OMPB__AB_BASE, &name, 1)))
                return rc;
            r = find_row(ab, c->name, ab->n_rows - 1);
            r->listed[OMPB__AB_BASE] = c->base != NULL;
            r->listed[OMPB__AB_HEAD] = c->head != NULL;
        }
        r->cmp = *c;
        if (!r->decided && r->listed[0] && r->listed[1] && (rc = take_look(ab, r)))
            return rc;
    }
    if ((rc = adjust(ab)))
        return rc;
    memset(ab->counts, 0, sizeof ab->counts);
    ab->judged = ab->open = 0;
    for (size_t i = 0; i < ab->n_rows; i++) {
        ompb__ab_row *r = &ab->rows[i];
        settle_row(ab, r);
        ab->counts[r->verdict]++;
        ab->judged += r->seq.looks > 0 && !settled_by_presence(r);
        ab->open += !r->decided && r->listed[0] && r->listed[1];
    }
    return 0;
}

void ompb__ab_check_code(ompb__ab *ab)
{
    for (size_t i = 0; i < ab->n_rows; i++) {
        ompb__ab_row *r = &ab->rows[i];
        r->code_checked = ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE);
        if (r->code_checked)
            ompb__compare_code(r->cmp.base, r->cmp.head, &r->code);
    }
}

void ompb__ab_free(ompb__ab *ab)
{
    for (size_t i = 0; i < ab->n_rows; i++)
        free(ab->rows[i].name);
    free(ab->rows);
    ompb__name_index_free(&ab->row_index);
    for (size_t i = 0; i < ab->n_runs; i++) {
        free(ab->runs[i].path);
        free(ab->runs[i].log);
        free(ab->runs[i].names);
    }
    free(ab->runs);
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < ab->n_files[s]; i++)
            ompb__resultfile_free(&ab->files[s][i]);
        free(ab->files[s]);
        free(ab->file_pair[s]);
    }
    if (ab->have_cmp)
        ompb__comparison_free(&ab->cmp);
}
