/* SPDX-License-Identifier: MIT */
/*
 * From a record to the figures every reporter prints: statistics over the
 * per-iteration round times, mean start skew, mean imbalance and the rates;
 * and from an instance's repetitions to its summary: the median of the
 * repetitions' medians, their spread, the pooled rounds and Google
 * Benchmark's aggregates.
 */
#include "report/report.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "report/marks.h"

int ompb__result_analyze(ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    size_t n = rec->rounds;
    res->mean_skew_ns = res->mean_imbalance = res->total_time_s = 0;
    res->real_time_ns = res->cpu_time_ns = 0;
    res->bytes_per_second = res->items_per_second = 0;
    /* Without the run context (ompb__report_init adds it) no plan says
     * whether the width was oversubscribed. */
    res->marks = ompb__marks_of_record(rec, NULL);
    res->cpu_share = ompb__cpu_share(rec);
    if (ompb__result_counters(res) != 0 || ompb__result_ucounters(res) != 0)
        return OMPB_ENOMEM;
    if (n == 0 || rec->failed)
        return ompb__stats_compute(NULL, 0, &res->stats);
    double *per_iter = malloc(n * sizeof *per_iter);
    if (!per_iter)
        return OMPB_ENOMEM;
    for (size_t r = 0; r < n; r++) {
        double makespan = (double)ompb__record_makespan(rec, r);
        per_iter[r] = makespan / (double)rec->sample_size;
        res->mean_skew_ns += (double)ompb__record_start_skew(rec, r) / (double)n;
        res->total_time_s += makespan * 1e-9;
    }
    if (rec->caller_team) /* the harness timed the caller, not the code's threads */
        res->mean_skew_ns = res->mean_imbalance = NAN;
    else
        res->mean_imbalance = ompb__mean_imbalance(rec->busy_ns, n, (size_t)rec->threads);
    double iters = (double)n * (double)rec->sample_size;
    res->real_time_ns = res->total_time_s * 1e9 / iters;
    res->cpu_time_ns = (double)rec->cpu_ns / iters;
    int rc = ompb__stats_compute(per_iter, n, &res->stats);
    /* The clean rounds' statistics: the same per-iteration times, those of
     * the rounds in which every thread had its CPU. */
    res->accounted = rec->away_ns != NULL;
    res->clean_rounds = 0;
    for (size_t r = 0; res->accounted && r < n; r++)
        if (ompb__record_round_clean(rec, r))
            per_iter[res->clean_rounds++] = (double)ompb__record_makespan(rec, r)
                                            / (double)rec->sample_size;
    rc = rc ? rc : ompb__stats_compute(per_iter, res->clean_rounds, &res->clean_stats);
    free(per_iter);
    /* Rates use the median, the figure the console and compare report: a
     * mean would let one preempted round move the throughput. */
    double median = res->stats.median;
    if (rc == 0 && median > 0) {
        res->bytes_per_second = (double)rec->bytes_per_iter * 1e9 / median;
        res->items_per_second = (double)rec->items_per_iter * 1e9 / median;
    }
    return rc;
}

void ompb__rank_figures_release(ompb__rank_figures *f)
{
    free(f->median_ns);
    free(f->mean_ns);
    free(f->imbalance);
    memset(f, 0, sizeof *f);
}

int ompb__rank_figures_make(const ompb__record *rec, ompb__rank_figures *f)
{
    memset(f, 0, sizeof *f);
    if (rec->ranks <= 0 || !rec->rank_bounds || rec->failed)
        return 0;
    size_t n = rec->rounds, K = (size_t)rec->ranks;
    f->ranks = rec->ranks;
    f->rounds = n;
    f->median_ns = calloc(K, sizeof *f->median_ns);
    f->mean_ns = calloc(K, sizeof *f->mean_ns);
    f->imbalance = calloc(n ? n : 1, sizeof *f->imbalance);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!f->median_ns || !f->mean_ns || !f->imbalance || !v) {
        free(v);
        ompb__rank_figures_release(f);
        return OMPB_ENOMEM;
    }
    ompb__stats st;
    for (size_t k = 0; k < K; k++) {
        for (size_t r = 0; r < n; r++)
            v[r] = (double)ompb__record_rank_makespan(rec, (int)k, r) / (double)rec->sample_size;
        if (ompb__stats_compute(v, n, &st) == 0) {
            f->median_ns[k] = st.median;
            f->mean_ns[k] = st.mean;
        }
    }
    for (size_t r = 0; r < n; r++) {
        double sum = 0, worst = 0;
        for (size_t k = 0; k < K; k++) {
            double m = (double)ompb__record_rank_makespan(rec, (int)k, r);
            sum += m;
            worst = m > worst ? m : worst;
        }
        f->imbalance[r] = sum > 0 ? worst / (sum / (double)K) : NAN;
        f->mean_imbalance += f->imbalance[r] / (double)n;
    }
    free(v);
    return 0;
}

static bool has_rounds(const ompb__result *r)
{
    return !r->rec.failed && r->rec.rounds > 0;
}

/* Per-iteration times of every round of every repetition, pooled. */
static int pool_rounds(ompb__instance_result *ir)
{
    double *v = malloc((ir->rounds ? ir->rounds : 1) * sizeof *v);
    if (!v)
        return OMPB_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < ir->n_reps; i++) {
        const ompb__record *rec = &ir->reps[i].rec;
        for (size_t r = 0; has_rounds(&ir->reps[i]) && r < rec->rounds; r++)
            v[k++] = (double)ompb__record_makespan(rec, r) / (double)rec->sample_size;
    }
    int rc = ompb__stats_compute(v, k, &ir->pooled);
    free(v);
    return rc;
}

/* Statistics of one figure over the repetitions that have rounds. */
static int over_reps(const ompb__instance_result *ir, size_t offset, ompb__stats *st)
{
    double *v = malloc((ir->n_reps ? ir->n_reps : 1) * sizeof *v);
    if (!v)
        return OMPB_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < ir->n_reps; i++)
        if (has_rounds(&ir->reps[i]))
            memcpy(&v[k++], (const char *)&ir->reps[i] + offset, sizeof *v);
    int rc = ompb__stats_compute(v, k, st);
    free(v);
    return rc;
}

/* The instance's clean rounds: accounted when every repetition with rounds
 * was; the median of the repetitions' clean medians. */
static int clean_summary(ompb__instance_result *ir)
{
    double *v = malloc((ir->n_reps ? ir->n_reps : 1) * sizeof *v);
    size_t k = 0, with_rounds = 0;
    if (!v)
        return OMPB_ENOMEM;
    ir->accounted = true;
    ir->clean_rounds = 0;
    ir->clean_median_ns = NAN;
    for (size_t i = 0; i < ir->n_reps; i++) {
        const ompb__result *res = &ir->reps[i];
        if (!has_rounds(res))
            continue;
        with_rounds++;
        ir->accounted &= res->accounted;
        ir->clean_rounds += res->clean_rounds;
        if (res->clean_rounds > 0)
            v[k++] = res->clean_stats.median;
    }
    ir->accounted &= with_rounds > 0;
    ompb__stats st;
    int rc = ir->accounted && k > 0 ? ompb__stats_compute(v, k, &st) : 0;
    if (rc == 0 && ir->accounted && k > 0)
        ir->clean_median_ns = st.median;
    free(v);
    return rc;
}

static int summarize(const ompb__result *reps, size_t n, ompb__instance_result *ir)
{
    memset(ir, 0, sizeof *ir);
    ir->inst = reps[0].rec.inst;
    ir->reps = reps;
    ir->n_reps = n;
    size_t ok = 0;
    const ompb__record *first_ok = NULL;
    for (size_t i = 0; i < n; i++) {
        if (reps[i].rec.failed && !ir->failure)
            ir->failure = &reps[i];
        if (has_rounds(&reps[i])) {
            ok++;
            first_ok = first_ok ? first_ok : &reps[i].rec;
            ir->rounds += reps[i].rec.rounds;
            ir->total_time_s += reps[i].total_time_s;
            ir->mean_imbalance += reps[i].mean_imbalance;
        }
    }
    ir->mean_imbalance = ok ? ir->mean_imbalance / (double)ok : 0;
    if (clean_summary(ir) != 0)
        return OMPB_ENOMEM;
    ompb__stats medians, real, cpu;
    /* One repetition: its own statistics are the pool's. They may cover more
     * than its raw rounds (a region's are over every instance, its rounds
     * a kept sample) or come without them (a region's runner entry). */
    int rc = n == 1 ? 0 : pool_rounds(ir);
    if (n == 1 && has_rounds(&reps[0]))
        ir->pooled = reps[0].stats;
    rc = rc ? rc : over_reps(ir, offsetof(ompb__result, stats.median), &medians);
    rc = rc ? rc : over_reps(ir, offsetof(ompb__result, real_time_ns), &real);
    rc = rc ? rc : over_reps(ir, offsetof(ompb__result, cpu_time_ns), &cpu);
    if (rc)
        return rc;
    ir->median_ns = medians.median;
    ir->rep_cv = ok >= 2 && medians.mean > 0 ? medians.stdev / medians.mean : NAN;
    /* One repetition: Google Benchmark writes no aggregates then; ours have
     * always been over the rounds, and stay so. */
    const ompb__stats *agg = n > 1 ? &real : &ir->pooled;
    ir->agg_mean_ns = agg->mean;
    ir->agg_median_ns = agg->median;
    ir->agg_stddev_ns = agg->stdev;
    ir->agg_cv = agg->mean > 0 ? agg->stdev / agg->mean : 0;
    if (n > 1) {
        ir->agg_cpu_mean_ns = cpu.mean;
        ir->agg_cpu_median_ns = cpu.median;
        ir->agg_cpu_stddev_ns = cpu.stdev;
        ir->agg_cpu_cv = cpu.mean > 0 ? cpu.stdev / cpu.mean : 0;
    } else {
        ir->agg_cpu_mean_ns = ir->agg_mean_ns;
        ir->agg_cpu_median_ns = ir->agg_median_ns;
        ir->agg_cpu_stddev_ns = ir->agg_stddev_ns;
        ir->agg_cpu_cv = ir->agg_cv;
    }
    if (first_ok && ir->median_ns > 0) {
        ir->bytes_per_second = (double)first_ok->bytes_per_iter * 1e9 / ir->median_ns;
        ir->items_per_second = (double)first_ok->items_per_iter * 1e9 / ir->median_ns;
    }
    return 0;
}

/* The marks of each repetition, then of the instance over them. */
static void mark_instance(ompb__result *reps, size_t n, const ompb__context *ctx,
                          bool as_read, ompb__instance_result *ir)
{
    ir->marks = 0;
    ir->cpu_share = NAN;
    for (size_t i = 0; i < n; i++) {
        if (!as_read) {
            reps[i].marks = ompb__marks_of_record(&reps[i].rec, ctx);
            /* A region's user figures come over its sums, not rounds. */
            for (int k = 0; reps[i].rec.region && k < reps[i].rec.ucounters.n; k++)
                if (isinf(reps[i].user[k]))
                    reps[i].marks |= OMPB__MARK_OVERFLOW;
            reps[i].cpu_share = ompb__cpu_share(&reps[i].rec);
        }
        ir->marks |= reps[i].marks;
        if (!isnan(reps[i].cpu_share) && !(ir->cpu_share <= reps[i].cpu_share))
            ir->cpu_share = reps[i].cpu_share;
    }
    /* Read from a file, the repetitions' marks are all there is (an
     * instance short of rounds has short repetitions). */
    bool measured = n > 0 && reps[0].rec.sampling.mode == OMPB__SAMPLING_MEASURE && !as_read;
    if (measured && !ir->failure && ir->rounds < OMPB__MARK_MIN_ROUNDS)
        ir->marks |= OMPB__MARK_FEW_ROUNDS;
}

static int report_init(ompb__report *rep, const ompb__context *ctx,
                       const ompb__result *given, size_t n, bool as_read)
{
    memset(rep, 0, sizeof *rep);
    rep->ctx = ctx;
    rep->n = n;
    /* Zeroed: ompb__report_release frees each one's rank figures. */
    rep->own = calloc(n ? n : 1, sizeof *rep->own);
    rep->instances = malloc((n ? n : 1) * sizeof *rep->instances);
    if (!rep->own || !rep->instances) {
        ompb__report_release(rep);
        return OMPB_ENOMEM;
    }
    if (n)
        memcpy(rep->own, given, n * sizeof *rep->own);
    for (size_t i = 0; i < n; i++)
        memset(&rep->own[i].ranks, 0, sizeof rep->own[i].ranks); /* not the caller's */
    ompb__result *results = rep->own;
    rep->results = results;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && results[j].rec.inst == results[i].rec.inst)
            j++;
        ompb__instance_result *ir = &rep->instances[rep->n_instances++];
        if (summarize(&results[i], j - i, ir) != 0 || ompb__instance_counters(ir) != 0
            || ompb__instance_ucounters(ir) != 0) {
            ompb__report_release(rep);
            return OMPB_ENOMEM;
        }
        mark_instance(&results[i], j - i, ctx, as_read, ir);
        i = j;
    }
    for (size_t i = 0; i < n; i++)
        if (ompb__rank_figures_make(&results[i].rec, &results[i].ranks) != 0) {
            ompb__report_release(rep);
            return OMPB_ENOMEM;
        }
    ompb__report_figures(rep);
    return 0;
}

int ompb__report_init(ompb__report *rep, const ompb__context *ctx,
                      const ompb__result *given, size_t n)
{
    return report_init(rep, ctx, given, n, false);
}

int ompb__report_init_read(ompb__report *rep, const ompb__result *results, size_t n)
{
    return report_init(rep, NULL, results, n, true);
}

void ompb__report_release(ompb__report *rep)
{
    for (size_t i = 0; rep->own && i < rep->n; i++)
        ompb__rank_figures_release(&rep->own[i].ranks);
    free(rep->instances);
    free(rep->own);
    rep->instances = NULL;
    rep->own = NULL;
    rep->n_instances = 0;
}

const ompb__report *ompb__report_view(const ompb__report *rep, ompb__report *tmp)
{
    if (rep->instances || rep->n == 0)
        return rep;
    return ompb__report_init(tmp, rep->ctx, rep->results, rep->n) == 0 ? tmp : NULL;
}

void ompb__report_view_release(const ompb__report *view, ompb__report *tmp)
{
    if (view == tmp)
        ompb__report_release(tmp);
}

bool ompb__result_one_value(const ompb__result *res)
{
    return res->rec.region && res->rec.region->instances == 1;
}

const ompb__stats *ompb__result_shown_stats(const ompb__result *res, ompb__stats *buf)
{
    *buf = res->stats;
    if (ompb__result_one_value(res))
        buf->stdev = buf->ci_low = buf->ci_high = NAN;
    return buf;
}
