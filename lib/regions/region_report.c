/* SPDX-License-Identifier: MIT */
/*
 * Reporting application regions: ompb_regions_report(), the report at
 * exit and the partial one of a process stopped by a signal. A report
 * folds every complete instance, checks what only the end of the program
 * can tell (regions still open, threads of a team that entered a region a
 * different number of times), hands the CodSpeed runner what it gets, and
 * renders every (region, team size) entry through the benchmarks'
 * reporters: the entries become ompb__result values in
 * entry_result(), the one adapter between regions and the reporters.
 */
#include "regions/region_report.h"

#include <errno.h> /* program_invocation_name */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "context/context.h"
#include "core/core.h"
#include "placement/placement.h"
#include "model/model.h"
#include "report/report.h"

/* One entry's report material, owned by the report. */
typedef struct entry_report {
    ompb__instance inst;
    ompb__record_region region;
    uint64_t *kept_index;
    double *mean_busy;
} entry_report;

typedef struct region_report {
    ompb__result *results;      /* [n] */
    entry_report *parts;        /* [n] */
    size_t n;
    bool any_failed;
} region_report;

/* The run context, made at the first report and kept (its warnings are
 * printed once each). */
static ompb__context *context;
/* Instances and misuse events the last report covered. */
static uint64_t reported_activity = UINT64_MAX;

/* ---- the adapter: an entry as reporter input ------------------------------ */

/* Kept instances in instance order. */
static void sort_kept(const ompb__region_entry *e, size_t *order)
{
    for (size_t i = 0; i < e->acc.kept; i++)
        order[i] = i;
    /* Insertion sort: the kept ones are mostly in order already. */
    for (size_t i = 1; i < e->acc.kept; i++) {
        size_t v = order[i], j = i;
        for (; j > 0 && e->acc.kept_index[order[j - 1]] > e->acc.kept_index[v]; j--)
            order[j] = order[j - 1];
        order[j] = v;
    }
}

static int fill_arrays(const ompb__region_entry *e, ompb__record *rec, uint64_t *kept_index)
{
    size_t T = (size_t)e->threads, n = e->acc.kept;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order || ompb__record_alloc(rec, n, e->threads) != 0) {
        free(order);
        return OMPB_ENOMEM;
    }
    /* Regions read no getrusage (a system call per instance): the record
     * says "not measured" rather than a count of 0. */
    free(rec->involuntary_switches);
    rec->involuntary_switches = NULL;
    sort_kept(e, order);
    for (size_t r = 0; r < n; r++) {
        size_t s = order[r];
        kept_index[r] = e->acc.kept_index[s];
        rec->start_ns[r] = e->acc.kept_start[s];
        rec->end_ns[r] = e->acc.kept_end[s];
        memcpy(rec->thread_start_ns + r * T, e->acc.kept_tstart + s * T, T * sizeof(uint64_t));
        memcpy(rec->busy_ns + r * T, e->acc.kept_busy + s * T, T * sizeof(uint64_t));
        for (size_t t = 0; t < T; t++)
            rec->thread_iters[r * T + t] = 1;
    }
    for (size_t t = 0; t < T; t++) {
        rec->os_tid[t] = e->os_tid[t];
        rec->thread_pu[t] = e->acc.last_pu[t];
    }
    free(order);
    return 0;
}

/* ompb_region_counter: each name's team total over every instance, per
 * instance, or with OMPB_COUNTER_RATE over the instances' summed
 * makespans (include/ompbench/counter.h). */
static void user_figures(const ompb__region_entry *e, ompb__result *res)
{
    double sum[OMPB__UCOUNTERS_MAX];
    for (int k = 0; k < OMPB__UCOUNTERS_MAX; k++)
        res->user[k] = NAN;
    if (e->failed || e->acc.n == 0 ||
        ompb__region_user_counters_of(e, &res->rec.ucounters, sum) == 0)
        return;
    for (int k = 0; k < res->rec.ucounters.n; k++) {
        unsigned flags = res->rec.ucounters.flags[k];
        double v = sum[k];
        if (flags & OMPB_COUNTER_AVG_THREADS)
            v /= (double)e->threads;
        if (flags & OMPB_COUNTER_RATE)
            res->user[k] = e->acc.total_ns ? v * 1e9 / (double)e->acc.total_ns : NAN;
        else
            res->user[k] = v / (double)e->acc.n;
    }
}

/* The adapter: entry e (its lock held) as one result of the benchmarks'
 * reporters, named region:NAME[t=T], one "round" of one iteration per kept
 * instance, statistics over every instance. `index` is e's position among
 * its region's entries. */
static int entry_result(const ompb__region_entry *e, size_t index, entry_report *part,
                        ompb__result *res)
{
    const ompb__region *r = e->region;
    ompb__instance *inst = &part->inst;
    ompb__record *rec = &res->rec;
    inst->family_index = r->id;
    inst->family_instance = index;
    inst->threads = e->threads;
    inst->thread_variant = true;
    ompb__region_entry_names(e, inst->name, sizeof inst->name, inst->uri, sizeof inst->uri);
    part->kept_index = malloc((e->acc.kept ? e->acc.kept : 1) * sizeof *part->kept_index);
    part->mean_busy = malloc((size_t)e->threads * sizeof *part->mean_busy);
    if (!part->kept_index || !part->mean_busy || fill_arrays(e, rec, part->kept_index) != 0)
        return OMPB_ENOMEM;
    rec->inst = inst;
    rec->sampling = (ompb__sampling){.mode = OMPB__SAMPLING_REGION, .threads = e->threads,
                                     .rounds = e->acc.n, .sample_size = 1};
    rec->sample_size = 1;
    rec->rounds = e->acc.kept;
    rec->migrations = e->acc.migrations;
    rec->failed = e->failed;
    snprintf(rec->error, sizeof rec->error, "%s", e->error);
    for (int t = 0; t < e->threads; t++)
        part->mean_busy[t] = e->acc.n ? (double)e->acc.busy_sum[t] / (double)e->acc.n : 0.0;
    part->region = (ompb__record_region){
        .name = r->display, .instances = e->acc.n, .sampled = e->acc.n > e->acc.kept,
        .kept_index = part->kept_index,
        .quantile_error = e->acc.hist ? OMPB__HISTOGRAM_REL_ERROR : 0,
        .mean_busy_ns = part->mean_busy, .shared_pu = e->acc.shared_pu, .misuse = e->misuse,
        .shared_pu_first = {e->acc.shared_pu_example[0], e->acc.shared_pu_example[1],
                            e->acc.shared_pu_example[2]}};
    ompb__region_phase_info ph = ompb__region_entry_phase(e);
    if (ph.instances > 0) {
        part->region.phase_width = ph.width;
        part->region.phase_instances = ph.instances;
        part->region.phase_lo = ph.lo;
        part->region.phase_hi = ph.hi;
        part->region.phase_asked_lo = ph.asked_lo;
        part->region.phase_asked_hi = ph.asked_hi;
        part->region.phase_mixed = ph.mixed;
    }
    rec->region = &part->region;
    res->mean_skew_ns = e->acc.n ? (double)e->acc.skew_sum / (double)e->acc.n : 0.0;
    res->mean_imbalance = e->acc.n ? e->acc.imbalance_sum / (double)e->acc.n : 0.0;
    res->total_time_s = (double)e->acc.total_ns * 1e-9;
    /* One iteration per instance: real_time is the mean makespan. CPU time
     * is not measured for regions (a system call per instance): 0, as
     * docs/json.md says, for Google Benchmark's readers need a number. */
    res->real_time_ns = e->acc.n ? (double)e->acc.total_ns / (double)e->acc.n : 0.0;
    res->cpu_time_ns = 0.0;
    /* Without OMPB_REGIONS_COUNTERS regions count no perf events
     * (rec->counters is empty): the figures say so (NAN, not 0, so no
     * report shows a column of zeros). With it, per instance summed over
     * the team, from each thread's sums (no rounds of counts are kept). */
    if (ompb__result_counters(res) != 0)
        return OMPB_ENOMEM;
    const ompb__counter_set *set = ompb__region_counters_set();
    double per[OMPB__MAX_COUNTERS];
    bool multiplexed;
    if (set && !e->failed && ompb__region_counters_of(e, per, &multiplexed) > 0) {
        rec->counters = *set;
        ompb__counter_figures_set(&res->counts, set, per, multiplexed);
    }
    user_figures(e, res);
    return ompb__region_acc_stats(&e->acc, &res->stats);
}

/* ---- checks ---------------------------------------------------------------- */

static void fold_all(void)
{
    size_t n;
    ompb__region *const *all = ompb__regions_all(&n);
    for (size_t i = 0; i < n; i++)
        for (ompb__region_group *g = atomic_load(&all[i]->groups); g; g = g->next)
            ompb__region_group_reduce_all(g);
}

/* At exit: a lane still occupied began an instance that never ended; lanes
 * with different counts mean a thread skipped instances. */
static void check_group_at_exit(ompb__region_group *g)
{
    uint64_t most = 0, least = UINT64_MAX;
    int hi = 0, lo = 0;
    for (int t = 0; t < g->threads; t++) {
        ompb__region_lane *ln = &g->lanes[t];
        uint64_t p = atomic_load(&ln->published);
        if (atomic_load(&ln->occupant)) {
            char site[OMPB__REGION_SITE_MAX];
            const char *file = ompb__region_site_file(atomic_load(&ln->begin_file), site,
                                                      sizeof site);
            ompb__region_entry_fail(g->entry, "began at %s:%d by thread %d of a team of %d "
                                    "(OS thread %d) and never ended (still open at process "
                                    "exit)", file, atomic_load(&ln->begin_line),
                                    t, g->threads, atomic_load(&ln->os_tid));
        }
        if (p > most)
            most = p, hi = t;
        if (p < least)
            least = p, lo = t;
    }
    if (most != least && !atomic_load(&g->dead))
        ompb__region_entry_fail(g->entry, "thread %d of a team of %d ended it %llu times, "
                                "thread %d %llu times: every thread of the team must begin and "
                                "end each instance (collective form); a region that only one "
                                "thread runs (single, master, a test of the thread number) "
                                "belongs outside the parallel region", hi, g->threads,
                                (unsigned long long)most, lo, (unsigned long long)least);
}

static void check_at_exit(void)
{
    size_t n;
    ompb__region *const *all = ompb__regions_all(&n);
    for (size_t i = 0; i < n; i++)
        for (ompb__region_group *g = atomic_load(&all[i]->groups); g; g = g->next)
            check_group_at_exit(g);
}

void ompb__regions_final_check(void)
{
    ompb__regions_lock();
    fold_all();
    check_at_exit();
    ompb__regions_unlock();
}

/* ---- building and writing ------------------------------------------------- */

static void report_free(region_report *rr)
{
    for (size_t i = 0; i < rr->n; i++) {
        ompb__record_free(&rr->results[i].rec);
        free(rr->parts[i].kept_index);
        free(rr->parts[i].mean_busy);
    }
    free(rr->results);
    free(rr->parts);
    memset(rr, 0, sizeof *rr);
}

/* Entries with something to say: completed instances or a failure. */
static bool reportable(const ompb__region_entry *e)
{
    return e->acc.n > 0 || e->failed;
}

static size_t index_in_region(const ompb__region_entry *e)
{
    size_t k = 0;
    for (ompb__region_entry *o = atomic_load(&e->region->entries); o; o = o->next)
        k += o->order < e->order;
    return k;
}

static int build(region_report *rr)
{
    size_t cap = 0;
    for (ompb__region_entry *e = ompb__regions_entries(); e; e = e->next_all)
        cap++;
    rr->results = calloc(cap ? cap : 1, sizeof *rr->results);
    rr->parts = calloc(cap ? cap : 1, sizeof *rr->parts);
    if (!rr->results || !rr->parts)
        return OMPB_ENOMEM;
    for (ompb__region_entry *e = ompb__regions_entries(); e; e = e->next_all) {
        pthread_mutex_lock(&e->lock);
        int rc = 0;
        if (reportable(e)) {
            rc = entry_result(e, index_in_region(e), &rr->parts[rr->n], &rr->results[rr->n]);
            rr->any_failed |= e->failed;
            rr->n++;
        }
        pthread_mutex_unlock(&e->lock);
        if (rc)
            return rc;
    }
    return 0;
}

static ompb__context *region_context(void)
{
    if (context)
        return context;
    ompb__pin_spec none;
    ompb_error err = {0};
    if (ompb__pin_parse("none", &none, &err) != 0)
        return NULL;
    context = ompb__context_new(&none, 0, program_invocation_name);
    ompb__pin_spec_release(&none);
    if (!context)
        return NULL;
    ompb__topology *topo;
    if (ompb__topology_open(&topo, &err) == 0) {
        ompb__context_set_topology(context, topo);
        ompb__topology_close(topo);
    }
    free(context->pin_policy);
    context->pin_policy = strdup("application");
    context->pin_given = false;
    snprintf(context->placement, sizeof context->placement, "%s",
             context->binder == OMPB__BINDER_RUNTIME
             ? "application regions: the OpenMP runtime binds the application's threads "
               "(OMP_PLACES/OMP_PROC_BIND set); ompbench binds nothing"
             : "application regions: ompbench binds nothing; the application's threads are "
               "pinned only if the application or its runtime pins them");
    return context;
}

static const ompb__reporter *reporter_for(const char *format, const char *path, int *rc)
{
    *rc = 0;
    if (!format)
        format = ompb__regions_format();
    if (format) {
        const ompb__reporter *rep = ompb__reporter_find(format);
        if (!rep) {
            ompb__error_print(stderr, "ompbench: ompb_regions_report: invalid format '%s' "
                              "(accepted: %s)", format, ompb__reporter_names());
            *rc = OMPB_EINVAL;
        }
        return rep;
    }
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (dot && (strcmp(dot, ".json") == 0 || strcmp(dot, ".csv") == 0))
        return ompb__reporter_find(dot + 1);
    return ompb__reporter_default();
}

/* A path that is the running program (ompb_regions_report's, or a binary
 * replaced since the settings were read) is refused with one line; the
 * report goes to standard error instead. */
static const char *not_running_program(const char *path)
{
    const ompb__outfile_input self = {"the running program", "/proc/self/exe"};
    ompb_error err = {0};
    if (!path || strcmp(path, "-") == 0 ||
        ompb__outfile_check_inputs("region report", path, &self, 1, &err) == 0)
        return path;
    ompb__error_print(stderr, "ompbench: warning: %s; the report goes to standard error",
                      err.text);
    return NULL;
}

static int write_to(const char *path, const ompb__reporter *rep, const ompb__report *report)
{
    ompb_error err = {0};
    path = not_running_program(path);
    if (!path || strcmp(path, "-") == 0) {
        FILE *fp = path ? stdout : stderr;
        int rc = rep->write(fp, report);
        return rc == 0 && fflush(fp) == 0 ? 0 : OMPB_EIO;
    }
    ompb__outfile of;
    if (ompb__outfile_open(&of, path, &err) != 0) {
        fprintf(stderr, "ompbench: region report: %s\n", err.text);
        return OMPB_EIO;
    }
    errno = 0; /* what a failed write leaves here is the reason */
    if (rep->write(of.fp, report) != 0) {
        int e = errno ? errno : EIO;
        ompb__outfile_abort(&of);
        ompb__error_print(stderr, "ompbench: region report: cannot write '%s': %s", path,
                          strerror(e));
        return OMPB_EIO;
    }
    if (ompb__outfile_commit(&of, &err) != 0) {
        fprintf(stderr, "ompbench: region report: %s\n", err.text);
        return OMPB_EIO;
    }
    return 0;
}

static uint64_t activity(void)
{
    uint64_t a = 0;
    for (ompb__region_entry *e = ompb__regions_entries(); e; e = e->next_all) {
        pthread_mutex_lock(&e->lock);
        a += e->acc.n + e->misuse;
        pthread_mutex_unlock(&e->lock);
    }
    return a;
}

/* The whole report; global lock held. final: at exit. runner: hand the
 * CodSpeed runner what is buffered (not from inside a region). */
static int report_locked(const char *path, const ompb__reporter *rep, bool final, bool runner)
{
    region_report rr = {0};
    fold_all();
    if (final)
        check_at_exit();
    ompb__context *ctx = region_context();
    if (runner)
        ompb__region_runner_flush(&ompb__region_runner_process, ompb__regions_entries(), final,
                                  ctx);
    int rc = ctx ? build(&rr) : OMPB_ENOMEM;
    if (rc == 0) {
        ompb__region_warnings(ctx, rr.results, rr.n);
        ompb__report report = {.ctx = ctx, .results = rr.results, .n = rr.n};
        rc = write_to(path, rep, &report);
    } else {
        fprintf(stderr, "ompbench: region report: out of memory\n");
    }
    if (rc == 0 && rr.any_failed)
        rc = OMPB_ERUN;
    reported_activity = activity();
    report_free(&rr);
    return rc;
}

/* Set when the report at exit begins: a signal then only ends the process
 * (lib/regions/region_signal.c), it does not write a partial report over it,
 * and a later ompb_regions_report (the trace's snapshot thread) writes
 * nothing: the report at exit is the last. */
static atomic_bool exiting;

int ompb_regions_report(const char *path, const char *format)
{
    /* OMPB_REGIONS=0: nothing recorded, nothing reported (no file). */
    if (ompb__regions_forked() || !ompb__regions_enabled())
        return 0;
    if (!path)
        path = ompb__regions_output();
    int rc;
    const ompb__reporter *rep = reporter_for(format, path, &rc);
    if (!rep)
        return rc;
    /* A report from inside a region is inside its instance; the runner's
     * round trips are kept out of it (they go at the next report made
     * outside every region, or at exit). */
    char open[OMPB__REGION_ERROR_MAX];
    bool inside = ompb__regions_open_here(open, sizeof open);
    if (inside)
        fprintf(stderr, "ompbench: warning: ompb_regions_report() called inside region %s on "
                "the calling thread: that instance includes the report's time%s\n", open,
                atomic_load(&ompb__region_runner_process.watch)
                    ? "; the CodSpeed runner gets its buffered markers at the next report "
                      "made outside every region, or at exit"
                    : "");
    ompb__regions_lock();
    /* Checked under the lock, which the report at exit takes after setting
     * it. A report after that one would overwrite it with a non-final one,
     * and would make the context again (region_context, freed at the end
     * of the report at exit) while the OpenMP runtime shuts down: the
     * context asks the runtime (omp_get_max_threads), whose shutdown holds
     * its own lock while it joins workers that take the regions' lock as
     * they exit (region_thread.c). A traced program hung so under ASan. */
    rc = atomic_load(&exiting) ? 0 : report_locked(path, rep, false, !inside);
    ompb__regions_unlock();
    return rc;
}

_Noreturn void ompb__regions_stop_on_signal(int sig)
{
    size_t n;
    ompb__regions_all(&n);
    const char *path = ompb__regions_output();
    int rc;
    const ompb__reporter *rep = reporter_for(NULL, path, &rc);
    bool report = !atomic_load(&exiting) && !ompb__regions_forked() && n > 0 && rep;
    ompb__signal_ignore_repeats(sig);
    if (report)
        fprintf(stderr, "ompbench: interrupted by %s; the region report of the completed "
                "instances is written, marked partial\n", ompb__signal_name(sig));
    /* Held until the process ends: no report at exit starts meanwhile. */
    ompb__regions_lock();
    ompb__context *ctx = report ? region_context() : NULL;
    if (ctx) {
        ompb__context_set_partial(ctx, ompb__signal_name(sig), NULL, 0);
        /* The runner's last window closes with what it has; no other opens. */
        ompb__region_runner_flush(&ompb__region_runner_process, ompb__regions_entries(), true, ctx);
        rc = report_locked(path, rep, false, false);
        if (rc == OMPB_EIO && path)
            report_locked(NULL, ompb__reporter_default(), false, false);
    }
    ompb__signal_die_of(sig);
}

void ompb__regions_exit_report(void)
{
    size_t n;
    int rc;
    ompb__regions_all(&n);
    if (ompb__regions_forked() || n == 0)
        return;
    atomic_store(&exiting, true);
    ompb__regions_close_own_frames();
    const char *path = ompb__regions_output();
    const ompb__reporter *rep = reporter_for(NULL, path, &rc);
    ompb__regions_lock();
    fold_all();
    check_at_exit();
    if (activity() != reported_activity && rep)
        rc = report_locked(path, rep, true, true);
    else
        ompb__region_runner_flush(&ompb__region_runner_process, ompb__regions_entries(), true,
                                  region_context());
    ompb__regions_unlock();
    /* A report that cannot be written at exit is not lost: it goes to the
     * console instead. */
    if (rc == OMPB_EIO && path) {
        fprintf(stderr, "ompbench: the region report follows on standard error instead\n");
        ompb__regions_lock();
        report_locked(NULL, ompb__reporter_default(), true, true);
        ompb__regions_unlock();
    }
    if (context) {
        ompb__context_free(context);
        context = NULL;
    }
}

void ompb__regions_report_reset(void)
{
    ompb__region_warnings_reset();
    if (context)
        ompb__context_free(context);
    context = NULL;
    reported_activity = UINT64_MAX;
}
