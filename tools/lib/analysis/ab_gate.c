/* SPDX-License-Identifier: MIT */
/*
 * The CI gate of `ompbench ab` (analysis/ab.h): from the rows' verdicts,
 * the code check of the regressed ones and the HEAD runs that faulted,
 * whether --fail-on-regression or --fail-on-undecided fail the comparison,
 * with one line that says what failed it.
 */
#include "analysis/ab.h"

bool ompb__ab_head_faulted(const ompb__ab_ledger *l)
{
    for (size_t i = 0; i < l->n_runs; i++)
        if (l->runs[i].side == OMPB__AB_HEAD && ompb__ab_run_is_hard_fault(&l->runs[i]))
            return true;
    return false;
}

int ompb__ab_gate(const ompb__ab_gate_opts *g, const ompb__ab_ledger *l,
                  const ompb__ab_rows *rows, const ompb__ab_result *res, FILE *err)
{
    const size_t *c = res->counts;
    size_t gating = 0, layout = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const ompb__ab_row *r = &rows->v[i];
        bool gates = ompb__verdict_is(r->verdict, OMPB__VERDICT_GATES);
        gating += gates && (!r->code_checked || r->code.verdict != OMPB__CODE_SAME ||
                            !g->allow_layout);
        layout += gates && r->code_checked && r->code.verdict == OMPB__CODE_SAME;
    }
    if (layout)
        fprintf(err, OMPB__AB_TOOL ": warning: %zu regressed instance%s the same machine "
                "code in both builds (a code-layout effect, likely)%s\n", layout,
                layout == 1 ? " has" : "s have",
                g->allow_layout ? "; --allow-layout-effects: not failing the gate on it" : "");
    /* A time of 0 compares nothing: undecided for the gate. */
    size_t no_ratio = c[OMPB__VERDICT_NO_RATIO];
    size_t undecided = ompb__verdict_count(c, OMPB__VERDICT_UNDECIDED) + no_ratio;
    bool faulted = ompb__ab_head_faulted(l);
    bool fail_changes = g->fail_on_regression && (gating || faulted);
    bool fail_open = undecided && (g->fail_on_undecided ||
                                   (g->fail_on_regression && !g->allow_undecided));
    if (!fail_changes && !fail_open)
        return 0;
    char zero[64] = "";
    if (no_ratio)
        snprintf(zero, sizeof zero, " (%zu with a time of 0: no ratio)", no_ratio);
    fprintf(err, OMPB__AB_TOOL ": the gate fails: %zu regressed or failed, %zu undecided%s%s%s\n",
            gating, undecided, zero, faulted ? ", HEAD runs that crashed, hung or wrote a bad file" : "",
            fail_open && !g->fail_on_undecided
                ? " (undecided fails --fail-on-regression unless --allow-undecided)" : "");
    return 1;
}
