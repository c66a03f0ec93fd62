/* SPDX-License-Identifier: MIT */
/*
 * The verdicts of `ompbench ab` (analysis/ab.h): after every pair of runs,
 * all usable files of each side are pooled by `ompbench compare`'s own
 * code (ompb__compare_runs: per-process log medians, Yuen-trimmed), and
 * each instance whose runs reached its next planned look takes it
 * (analysis/sequential.h). compare's rows carry each side's trimmed mean
 * (as a geometric mean), its winsorized spread and its count of runs,
 * which is Yuen's summary again, so the look tests exactly what compare
 * pooled. Benjamini-Hochberg over the instances with a look then decides
 * the regressed/improved claims; an interval within the threshold decides
 * untouched; the rest stay open until their looks are used up. Also the
 * ledger of runs and why no further pair starts.
 */
#include "analysis/ab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

/* ---- the ledger ---------------------------------------------------------- */

ompb__ab_run *ompb__ab_ledger_add_run(ompb__ab_ledger *l, int side)
{
    if (!ompb__grow((void **)&l->runs, &l->cap_runs, l->n_runs + 1, sizeof *l->runs, 1))
        return NULL;
    ompb__ab_run *run = &l->runs[l->n_runs++];
    memset(run, 0, sizeof *run);
    run->side = side;
    run->index = ++l->side_runs[side];
    return run;
}

void ompb__ab_ledger_end_run(ompb__ab_ledger *l, const ompb__ab_run *run)
{
    bool fault = run->outcome != OMPB__AB_RUN_OK && run->outcome != OMPB__AB_RUN_FAILED;
    l->faults_in_a_row[run->side] = fault ? l->faults_in_a_row[run->side] + 1 : 0;
}

int ompb__ab_ledger_pool(ompb__ab_ledger *l, const ompb__ab_run *run, ompb__resultfile *rf)
{
    int s = run->side;
    if (!ompb__grow((void **)&l->files[s], &l->cap_files[s], l->n_files[s] + 1, sizeof *rf, 1) ||
        !ompb__grow((void **)&l->file_pair[s], &l->cap_pairs[s], l->n_files[s] + 1,
                    sizeof *l->file_pair[s], 8)) {
        ompb__resultfile_free(rf);
        return OMPB_ENOMEM;
    }
    /* A side's runs are numbered by their pair: its index. */
    l->file_pair[s][l->n_files[s]] = run->index;
    l->files[s][l->n_files[s]++] = *rf;
    l->pooled[s]++;
    return 0;
}

bool ompb__ab_run_is_fault(const ompb__ab_run *run)
{
    return run->outcome != OMPB__AB_RUN_OK;
}

bool ompb__ab_run_is_hard_fault(const ompb__ab_run *run)
{
    return run->outcome != OMPB__AB_RUN_OK && run->outcome != OMPB__AB_RUN_FAILED &&
           run->outcome != OMPB__AB_RUN_INTERRUPTED;
}

void ompb__ab_ledger_free(ompb__ab_ledger *l)
{
    for (size_t i = 0; i < l->n_runs; i++) {
        free(l->runs[i].path);
        free(l->runs[i].log);
        free(l->runs[i].names);
    }
    free(l->runs);
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < l->n_files[s]; i++)
            ompb__resultfile_free(&l->files[s][i]);
        free(l->files[s]);
        free(l->file_pair[s]);
    }
}

/* ---- the rows -------------------------------------------------------------- */

/* The row of name (the hint first: both sides usually list in one order);
 * the name index keeps a list of 40,000 names linear. */
static ompb__ab_row *find_row(ompb__ab_rows *rows, const char *name, size_t hint)
{
    size_t at;
    if (hint < rows->n && strcmp(rows->v[hint].name, name) == 0)
        return &rows->v[hint];
    return ompb__name_index_get(&rows->index, name, &at) ? &rows->v[at] : NULL;
}

int ompb__ab_rows_add_listed(ompb__ab_rows *rows, int side, char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ompb__ab_row *r = find_row(rows, names[i], i);
        if (!r) {
            if (!ompb__grow((void **)&rows->v, &rows->cap, rows->n + 1, sizeof *r, 16))
                return OMPB_ENOMEM;
            r = &rows->v[rows->n];
            memset(r, 0, sizeof *r);
            if (!(r->name = strdup(names[i])))
                return OMPB_ENOMEM;
            if (ompb__name_index_put(&rows->index, r->name, rows->n)) {
                free(r->name);
                return OMPB_ENOMEM;
            }
            rows->n++;
            ompb__seq_state_init(&r->seq);
            r->verdict = OMPB__VERDICT_UNKNOWN;
            r->q = NAN;
        }
        r->listed[side] = true;
    }
    return 0;
}

bool ompb__ab_row_runs_again(const ompb__ab_row *r)
{
    return !r->decided && r->listed[OMPB__AB_BASE] && r->listed[OMPB__AB_HEAD];
}

void ompb__ab_rows_free(ompb__ab_rows *rows)
{
    for (size_t i = 0; i < rows->n; i++)
        free(rows->v[i].name);
    free(rows->v);
    ompb__name_index_free(&rows->index);
    if (rows->have_cmp)
        ompb__comparison_free(&rows->cmp);
}

/* ---- the looks ------------------------------------------------------------- */

/* The log differences HEAD - BASE of the instance's complete pairs (both
 * runs of a pair have a value, as compare pools them: clean when the pair
 * of sides was accounted), in pair order, into d (room for every BASE file). */
static size_t pair_differences(const ompb__ab_ledger *l, const ompb__ab_row *r, double *d)
{
    bool clean = r->cmp.accounted;
    size_t n = 0;
    for (size_t i = 0; i < l->n_files[OMPB__AB_BASE]; i++) {
        double b, h;
        const ompb__rf_instance *in = ompb__resultfile_find(&l->files[OMPB__AB_BASE][i], r->name);
        if (!ompb__compare_run_value(in, clean, &b))
            continue;
        for (size_t j = 0; j < l->n_files[OMPB__AB_HEAD]; j++) {
            if (l->file_pair[OMPB__AB_HEAD][j] != l->file_pair[OMPB__AB_BASE][i])
                continue;
            in = ompb__resultfile_find(&l->files[OMPB__AB_HEAD][j], r->name);
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
static int take_look(const ompb__seq_plan *plan, const ompb__ab_ledger *l, ompb__ab_row *r)
{
    const ompb__compare_row *c = &r->cmp;
    if (c->basis != OMPB__BASIS_PROCESSES)
        return 0;
    double *d = malloc((l->n_files[OMPB__AB_BASE] + 1) * sizeof *d);
    if (!d)
        return OMPB_ENOMEM;
    size_t n = pair_differences(l, r, d);
    if (ompb__seq_due(plan, &r->seq, n)) {
        ompb__welch_result w = ompb__paired(ompb__summarize_trimmed(d, n, OMPB__COMPARE_TRIM));
        ompb__seq_look(plan, &r->seq, &w, n);
        ompb__seq_interval(plan, &r->seq, &w);
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

static void settle_row(const ompb__ab_settings *set, ompb__ab_row *r)
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
    if (r->q <= set->opts.alpha) {
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
        r->decided = !ompb__seq_open(&set->plan, &r->seq) || r->seq.futile;
        r->runs_needed = ompb__seq_runs_needed(&set->plan, &r->seq, OMPB__COMPARE_TRIM);
    }
}

/* Benjamini-Hochberg over the sequential p of every instance with a look
 * (compare's family: the judged instances). */
static int adjust(ompb__ab_rows *rows)
{
    double *p = malloc((rows->n + 1) * sizeof *p);
    if (!p)
        return OMPB_ENOMEM;
    for (size_t i = 0; i < rows->n; i++)
        p[i] = settled_by_presence(&rows->v[i]) ? NAN : rows->v[i].seq.p;
    int rc = ompb__bh_adjust(p, rows->n, p);
    for (size_t i = 0; i < rows->n && !rc; i++)
        rows->v[i].q = p[i];
    free(p);
    return rc;
}

static int pool(const ompb__compare_opts *opts, const ompb__ab_ledger *l, ompb__ab_rows *rows)
{
    if (rows->have_cmp)
        ompb__comparison_free(&rows->cmp);
    rows->have_cmp = false;
    if (!l->n_files[OMPB__AB_BASE] || !l->n_files[OMPB__AB_HEAD])
        return 0;
    ompb__compare_side base = {l->files[OMPB__AB_BASE], l->n_files[OMPB__AB_BASE]};
    ompb__compare_side head = {l->files[OMPB__AB_HEAD], l->n_files[OMPB__AB_HEAD]};
    int rc = ompb__compare_runs(&base, &head, opts, &rows->cmp);
    rows->have_cmp = rc == 0;
    return rc;
}

/* Before each pooling: nothing measured, as far as the rows know. */
static void reset_rows(ompb__ab_rows *rows)
{
    for (size_t i = 0; i < rows->n; i++) {
        ompb__compare_row *c = &rows->v[i].cmp;
        memset(c, 0, sizeof *c);
        c->name = rows->v[i].name;
        c->base_ns = c->head_ns = c->change = c->ci_low = c->ci_high = NAN;
        c->base_spread = c->head_spread = c->p = c->q = NAN;
        c->basis = OMPB__BASIS_NONE;
        c->verdict = !rows->v[i].listed[OMPB__AB_BASE]   ? OMPB__VERDICT_NEW
                     : !rows->v[i].listed[OMPB__AB_HEAD] ? OMPB__VERDICT_MISSING
                                                         : OMPB__VERDICT_UNKNOWN;
    }
}

/* compare's rows into ab's, with a look where one is due. */
static int take_looks(const ompb__ab_settings *set, const ompb__ab_ledger *l, ompb__ab_rows *rows)
{
    for (size_t i = 0; rows->have_cmp && i < rows->cmp.n; i++) {
        const ompb__compare_row *c = &rows->cmp.rows[i];
        ompb__ab_row *r = find_row(rows, c->name, i);
        int rc;
        /* An instance no --list named (the binary changed meanwhile)
         * cannot be selected again; compare's verdict is all it gets. */
        if (!r) {
            char *name = (char *)c->name;
            if ((rc = ompb__ab_rows_add_listed(rows, OMPB__AB_BASE, &name, 1)))
                return rc;
            r = find_row(rows, c->name, rows->n - 1);
            r->listed[OMPB__AB_BASE] = c->base != NULL;
            r->listed[OMPB__AB_HEAD] = c->head != NULL;
        }
        r->cmp = *c;
        if (!r->decided && r->listed[0] && r->listed[1] && (rc = take_look(&set->plan, l, r)))
            return rc;
    }
    return 0;
}

int ompb__ab_judge(const ompb__ab_settings *set, const ompb__ab_ledger *l, ompb__ab_rows *rows,
                   ompb__ab_result *res)
{
    reset_rows(rows);
    int rc = pool(&set->opts, l, rows);
    if (rc || (rc = take_looks(set, l, rows)) || (rc = adjust(rows)))
        return rc;
    memset(res->counts, 0, sizeof res->counts);
    res->judged = res->open = 0;
    for (size_t i = 0; i < rows->n; i++) {
        ompb__ab_row *r = &rows->v[i];
        settle_row(set, r);
        res->counts[r->verdict]++;
        res->judged += r->seq.looks > 0 && !settled_by_presence(r);
        res->open += ompb__ab_row_runs_again(r);
    }
    return 0;
}

void ompb__ab_check_code(ompb__ab_rows *rows)
{
    for (size_t i = 0; i < rows->n; i++) {
        ompb__ab_row *r = &rows->v[i];
        r->code_checked = ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE);
        if (r->code_checked)
            ompb__compare_code(r->cmp.base, r->cmp.head, &r->code);
    }
}

/* ---- when the runs end ------------------------------------------------------ */

bool ompb__ab_should_stop(const ompb__ab_settings *set, const ompb__ab_ledger *l, size_t pair,
                          double elapsed_s, double last_pair_s, int stop_signal,
                          ompb__ab_result *res)
{
    char *why = res->stop_reason;
    size_t cap = sizeof res->stop_reason;
    const size_t *faults = l->faults_in_a_row;
    if (stop_signal) {
        res->partial = true;
        snprintf(why, cap, "interrupted by signal %d (%s)", stop_signal, strsignal(stop_signal));
    } else if (pair > 0 && res->open == 0 && res->counts[OMPB__VERDICT_NOISY])
        snprintf(why, cap, "no instance left open; the noisy ones are undecided (their last "
                 "look taken, --max-runs %zu, or too noisy for it)", set->max_runs);
    else if (pair > 0 && res->open == 0)
        snprintf(why, cap, "every instance decided");
    else if (pair >= set->max_runs)
        snprintf(why, cap, "--max-runs %zu reached", set->max_runs);
    else if (set->time_ns && elapsed_s + last_pair_s > (double)set->time_ns / 1e9)
        snprintf(why, cap, "%s budget spent (%.0f s used, the next pair would not fit)",
                 set->time_opt ? set->time_opt : "--max-time", elapsed_s);
    else if (faults[0] >= OMPB__AB_MAX_FAULTS_IN_A_ROW ||
             faults[1] >= OMPB__AB_MAX_FAULTS_IN_A_ROW) {
        res->fault_stop = faults[1] >= OMPB__AB_MAX_FAULTS_IN_A_ROW ? 2 : 1;
        snprintf(why, cap, "%s failed %d runs in a row", res->fault_stop == 2 ? "HEAD" : "BASE",
                 OMPB__AB_MAX_FAULTS_IN_A_ROW);
    } else
        return false;
    return true;
}
