/* SPDX-License-Identifier: MIT */
/*
 * ompb_main: the command line every benchmark binary shares. Validates all
 * input and opens the output file before running anything, so a bad option
 * or an unwritable path costs no benchmark time and leaves no partial file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ompbench/run.h>
#include <ompbench/version.h>

#include "children.h"
#include "cli.h"
#include "context.h"
#include "counters.h"
#include "dist.h"
#include "dump.h"
#include "error.h"
#include "fork_guard.h"
#include "body_guard.h"
#include "hooks/instrument.h"
#include "outfile.h"
#include "pin_plan.h"
#include "region.h"
#include "registry.h"
#include "report/plan.h"
#include "report/report.h"
#include "round.h"
#include "sampling.h"
#include "schedule.h"
#include "topology.h"

typedef struct run {
    ompb__config cfg;
    int argc;
    char **argv;
    const char *argv0;
    ompb__instance *sel;        /* the selected instances, in registration order */
    size_t n_sel;
    ompb__topology *topo;
    ompb__pin_plan **plans;     /* [n_sel] */
    ompb__context *ctx;
    uint32_t reps;              /* repetitions per instance in this run */
    uint32_t processes;         /* processes they run in (1: this one) */
    uint64_t seed;
    bool interleave;
    bool simulate;              /* CPU simulation (rank 0's mode in a distributed run) */
    ompb__result *results;      /* [n_sel * reps]: instance i, repetition r at i * reps + r */
    ompb__outfile out;
} run;

/* A distributed run's ranks usually reject the same input alike: the
 * other ranks keep their message until rank 0 has said whether it printed
 * one (agree_across_ranks), so the user reads it once. */
static char held_error[OMPB_ERROR_TEXT_MAX + 64];

static int usage_error(const run *r, const ompb_error *err)
{
    if (ompb__dist_rank() != 0)
        snprintf(held_error, sizeof held_error, "%s: rank %d: %s", r->argv0, ompb__dist_rank(),
                 err->text);
    else
        fprintf(stderr, "%s: %s\n", r->argv0, err->text);
    return OMPB_EXIT_USAGE;
}

/* Every --exact and --filter given narrows the selection. */
static bool selected(const ompb__config *cfg, const ompb__instance *inst)
{
    for (size_t i = 0; i < cfg->n_exact; i++)
        if (strcmp(cfg->exact[i], inst->name) != 0)
            return false;
    for (size_t i = 0; i < cfg->n_filters; i++)
        if (regexec(&cfg->filter[i], inst->name, 0, NULL, 0) != 0)
            return false;
    return true;
}

static int select_instances(run *r, ompb_error *err)
{
    const ompb__config *cfg = &r->cfg;
    if (ompb__registry_error())
        return ompb__error_set(err, OMPB_EINVAL, "%s", ompb__registry_error());
    size_t n_all;
    if (ompb__instances_expand(cfg->threads, cfg->n_threads, cfg->default_threads,
                               ompb__dist_ranks(), &r->sel, &n_all, err) != 0)
        return OMPB_EINVAL;
    /* Keep the selected instances, compacted to the front of the array. */
    for (size_t i = 0; i < n_all; i++)
        if (selected(cfg, &r->sel[i]))
            r->sel[r->n_sel++] = r->sel[i];
    if (r->n_sel > 0)
        return 0;
    if (cfg->n_exact + cfg->n_filters > 1)
        return ompb__error_set(err, OMPB_ENOENT, "--filter/--exact: no instance satisfies all "
                               "%zu selections given (each narrows the selection; see --list)",
                               cfg->n_exact + cfg->n_filters);
    if (cfg->n_exact)
        return ompb__error_set(err, OMPB_ENOENT, "--exact: no instance is named '%s' (see --list)", cfg->exact[0]);
    if (cfg->n_filters)
        return ompb__error_set(err, OMPB_ENOENT, "--filter: '%s' matches no instance (see --list)",
                               cfg->filter_text[0]);
    return ompb__error_set(err, OMPB_ENOENT, "this binary registers no benchmark");
}

/* Whether path is the file standard output already writes (/dev/stdout,
 * or the file stdout was redirected to): two reports would interleave. */
static bool is_stdout(const char *path)
{
    struct stat a, b;
    return stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The files a run writes must not be the ones it reads (issue 19): the
 * binary itself, the HWLOC_XMLFILE topology, and --output and
 * --topology-xml each other. */
static int check_output_paths(const run *r, ompb_error *err)
{
    const ompb__outfile_input inputs[] = {{"this benchmark binary", "/proc/self/exe"},
                                          {"HWLOC_XMLFILE", getenv("HWLOC_XMLFILE")},
                                          {"--topology-xml", r->cfg.topology_xml}};
    const char *xml = r->cfg.topology_xml, *out = r->cfg.output;
    if (xml && ompb__outfile_check_inputs("--topology-xml", xml, inputs, 2, err) != 0)
        return OMPB_EINVAL;
    if (out && r->cfg.output_reporter && is_stdout(out))
        return ompb__error_set(err, OMPB_EINVAL, "--output '%s': is standard output itself, "
                               "which gets the --format report with --output-format (accepted: "
                               "another file; or --format %s without --output-format)", out,
                               r->cfg.output_reporter->name);
    return out ? ompb__outfile_check_inputs("--output", out, inputs, 3, err) : 0;
}

static int make_plans(run *r, ompb_error *err)
{
    if (ompb__topology_open(&r->topo, err) != 0)
        return OMPB_EIO;
    r->plans = calloc(r->n_sel, sizeof *r->plans);
    if (!r->plans)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->n_sel; i++)
        if (ompb__pin_plan_new(r->topo, &r->cfg.pin, r->sel[i].threads, &r->plans[i], err) != 0)
            return OMPB_EINVAL;
    return 0;
}

/* A progress line on stderr, only when it is a terminal; slot NULL clears it. */
static void progress(const run *r, size_t done, size_t total, const ompb__slot *slot)
{
    if (!isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\r\033[K");
    if (slot && r->cfg.child)
        fprintf(stderr, "process %u/%u: ", r->cfg.child_index + 1, r->processes);
    if (slot)
        fprintf(stderr, "[%zu/%zu] %s", done + 1, total, r->sel[slot->instance].name);
    if (slot && r->reps > 1)
        fprintf(stderr, " (repetition %u/%u)", slot->repetition + 1, r->reps);
    fflush(stderr);
}

static ompb__result *result_at(const run *r, size_t instance, uint32_t repetition)
{
    return &r->results[instance * r->reps + repetition];
}

/* Marks res failed with a message, keeping the instance and repetition. */
static void fail_result(ompb__result *res, const ompb__instance *inst, uint32_t repetition,
                        uint32_t process, const char *why)
{
    ompb__record_free(&res->rec);
    res->rec.inst = inst;
    res->rec.threads = inst->threads;
    res->rec.sampling.repetition = repetition;
    res->process = process;
    res->rec.failed = true;
    snprintf(res->rec.error, sizeof res->rec.error, "%.100s: %.150s", inst->name, why);
    ompb__result_analyze(res);
}

/* Derived figures of a measured repetition; false when they cannot be had. */
static bool analyze(const run *r, ompb__result *res)
{
    if (ompb__result_analyze(res) == 0 || res->rec.failed)
        return true;
    res->rec.failed = true;
    snprintf(res->rec.error, sizeof res->rec.error, "%.200s: out of memory computing statistics",
             res->rec.inst->name);
    fprintf(stderr, "%s: %s\n", r->argv0, res->rec.error);
    return false;
}

/* last[i]: the index of instance i's last slot in this process's order. */
static size_t *last_slots(const ompb__slot *slots, size_t n, size_t instances)
{
    size_t *last = calloc(instances ? instances : 1, sizeof *last);
    for (size_t j = 0; last && j < n; j++)
        last[slots[j].instance] = j;
    return last;
}

static _Noreturn void stop_on_signal(struct run *r, int sig);

/* Runs one repetition into its result; returns 1 when it failed. */
static int run_slot(run *r, const ompb__slot *slot, uint64_t *calibrated, bool keep_open,
                    uint32_t process)
{
    const ompb__instance *inst = &r->sel[slot->instance];
    ompb__result *res = result_at(r, slot->instance, slot->repetition);
    ompb__sampling sampling = ompb__sampling_resolve(&r->cfg, inst, r->simulate, slot->repetition);
    ompb__sampling_reuse_size(&sampling, *calibrated);
    sampling.window_keep_open = keep_open;
    bool calibrates = sampling.sample_size == 0;
    ompb__body_guard_slot_begin(slot->instance * r->reps + slot->repetition);
    ompb__engine_env env = ompb__engine_env_default();
    int rc = ompb__round_run(&env, inst, &sampling, r->plans[slot->instance], &res->rec);
    /* From here to slot_done no stop (lib/body_guard.h) reads the result. */
    ompb__body_guard_slot_end();
    res->process = process;
    if (rc == OMPB_ENOMEM) {
        res->rec.failed = true;
        snprintf(res->rec.error, sizeof res->rec.error, "%.200s: out of memory for %llu rounds",
                 inst->name, (unsigned long long)sampling.rounds);
    }
    res->rec.inst = inst;
    if (res->rec.interrupted) {
        /* Said once, with what did not run, when the run stops. */
    } else if (res->rec.failed) {
        fprintf(stderr, "%s: %s\n", r->argv0, res->rec.error);
    } else {
        if (calibrates)
            *calibrated = res->rec.sample_size;
        if (res->rec.migrations > 0)
            ompb__context_warn(r->ctx, "%s: %llu thread migrations observed between rounds",
                               inst->name, (unsigned long long)res->rec.migrations);
    }
    for (size_t w = 0; w < res->rec.n_warnings; w++)
        ompb__context_warn(r->ctx, "%s", res->rec.warnings[w]);
    int replaced = ompb__body_guard_handler_replaced();
    if (replaced)
        ompb__context_warn(r->ctx, "%s: the benchmark installed its own %s handler: that signal "
                           "is the benchmark's until the run ends (it no longer stops the run)",
                           inst->name, ompb__body_guard_signal_name(replaced));
    int failed = !analyze(r, res) || res->rec.failed;
    ompb__body_guard_slot_done();
    return failed;
}

/* Runs this process's share of the repetitions in schedule order. Returns
 * the failed repetitions, or -1 when out of memory. */
static int run_share(run *r, uint32_t process)
{
    ompb__schedule_spec spec = {
        .instances = r->n_sel, .repetitions = r->reps, .processes = r->processes,
        .process = process, .seed = ompb__seed_for_process(r->seed, process),
        .interleave = r->interleave,
    };
    ompb__slot *slots = NULL;
    size_t n, *last = NULL;
    uint64_t *calibrated = calloc(r->n_sel, sizeof *calibrated);
    if (!calibrated || ompb__schedule_make(&spec, &slots, &n) != 0 ||
        !(last = last_slots(slots, n, r->n_sel))) {
        free(calibrated);
        free(slots);
        return -1;
    }
    int failures = 0;
    for (size_t j = 0; j < n && !ompb__body_guard_signal(); j++) {
        bool is_last = last[slots[j].instance] == j;
        progress(r, j, n, &slots[j]);
        /* Back to back (one CodSpeed window per instance), the window stays
         * open until the instance's last repetition. */
        failures += run_slot(r, &slots[j], &calibrated[slots[j].instance],
                             !r->interleave && !is_last, process);
        /* Interrupted: the instance's window closes now, with what it has. */
        if (is_last || ompb__body_guard_signal())
            ompb__instrument_window_close(&r->sel[slots[j].instance]);
    }
    progress(r, 0, 0, NULL);
    free(last);
    free(slots);
    free(calibrated);
    return failures;
}

/* Takes a record read back from a child (lib/children) into its result. */
static int take_record(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    run *r = arg;
    ompb__result *res = result_at(r, instance, rec->sampling.repetition);
    if (res->rec.inst) {
        ompb__record_free(rec);
        return ompb__error_set(err, OMPB_EINVAL, "%s: repetition %u appears twice",
                               r->sel[instance].name, rec->sampling.repetition);
    }
    res->rec = *rec;
    res->process = rec->sampling.repetition % r->processes;
    analyze(r, res);
    return 0;
}

/* The repetitions of process k that it did not hand over, or all of them
 * when its records are unusable (why set, not partial). */
static void mark_lost(run *r, uint32_t k, const char *why, bool partial)
{
    for (size_t i = 0; i < r->n_sel; i++)
        for (uint32_t rep = k; rep < r->reps; rep += r->processes) {
            ompb__result *res = result_at(r, i, rep);
            if ((why[0] && !partial) || !res->rec.inst) {
                char text[OMPB__CHILDREN_WHY_MAX + 64];
                snprintf(text, sizeof text, "process %u of %u %s", k + 1, r->processes,
                         why[0] ? why : "handed over no result for it");
                fail_result(res, &r->sel[i], rep, k, text);
            }
        }
}

/* Process-level repetitions: the children run, this process collects. */
static int run_processes(run *r, ompb_error *err)
{
    char (*why)[OMPB__CHILDREN_WHY_MAX] = calloc(r->processes, sizeof *why);
    bool *partial = calloc(r->processes, sizeof *partial);
    if (!why || !partial) {
        free(why);
        free(partial);
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    }
    ompb__children sp = {
        .argc = r->argc, .argv = r->argv, .processes = r->processes, .repetitions = r->reps,
        .seed = r->seed, .sel = r->sel, .n_sel = r->n_sel, .ctx = r->ctx, .take = take_record,
        .arg = r, .why = why, .partial = partial,
    };
    int rc = ompb__children_run(&sp, err);
    int failures = 0;
    if (rc == 0 && sp.interrupted) {
        free(why);
        free(partial);
        stop_on_signal(r, sp.interrupted);
    }
    for (uint32_t k = 0; rc == 0 && k < r->processes; k++)
        mark_lost(r, k, why[k], partial[k]);
    for (size_t i = 0; rc == 0 && i < r->n_sel * r->reps; i++)
        failures += r->results[i].rec.failed;
    free(why);
    free(partial);
    return rc ? rc : failures;
}

/* The child of --processes: its records go to the parent, nothing to stdout. */
static int write_dump(run *r, const ompb__result *results, size_t total, ompb_error *err)
{
    size_t n = 0;
    const ompb__record **recs = malloc((total ? total : 1) * sizeof *recs);
    if (!recs)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    for (size_t i = 0; i < total; i++)
        if (results[i].rec.inst)
            recs[n++] = &results[i].rec;
    ompb__dump_out d = {.process = r->cfg.child_index, .sel = r->sel, .records = recs, .n = n,
                        .ctx = r->ctx};
    int rc = ompb__dump_write(r->cfg.child_path, &d, err);
    free(recs);
    return rc;
}

static int write_stdout(const ompb__reporter *rp, const ompb__report *report, ompb_error *err)
{
    errno = 0; /* what a failed write leaves here is the reason */
    if (rp->write(stdout, report) != 0) {
        int e = errno ? errno : EIO;
        return ompb__error_set(err, OMPB_EIO, "cannot write standard output: %s",
                               e == EBADF ? "it is closed" : strerror(e));
    }
    return ompb__outfile_flush_stdout(err);
}

/* Atomically: a failed write leaves no partial file. */
static int write_file(run *r, const ompb__reporter *rp, const ompb__report *report,
                      ompb_error *err)
{
    if (ompb__outfile_open(&r->out, r->cfg.output, err) != 0)
        return OMPB_EIO;
    errno = 0;
    if (rp->write(r->out.fp, report) != 0) {
        int e = errno ? errno : EIO;
        ompb__outfile_abort(&r->out);
        return ompb__error_set(err, OMPB_EIO, "cannot write the report to %s: %s",
                               r->cfg.output, strerror(e));
    }
    return ompb__outfile_commit(&r->out, err);
}

/* --output alone: the file gets --format's report; with --output-format
 * the file gets that one first (the data is kept even if standard output
 * is gone), then standard output gets --format's. */
static int write_report(run *r, const ompb__report *report, ompb_error *err)
{
    if (!r->cfg.output)
        return write_stdout(r->cfg.reporter, report, err);
    if (!r->cfg.output_reporter)
        return write_file(r, r->cfg.reporter, report, err);
    int rc = write_file(r, r->cfg.output_reporter, report, err);
    return rc ? rc : write_stdout(r->cfg.reporter, report, err);
}

static void run_free(run *r)
{
    if (r->out.fp)
        ompb__outfile_abort(&r->out);
    for (size_t i = 0; r->results && i < r->n_sel * r->reps; i++)
        ompb__record_free(&r->results[i].rec);
    for (size_t i = 0; r->plans && i < r->n_sel; i++)
        ompb__pin_plan_free(r->plans[i]);
    free(r->results);
    free(r->plans);
    if (r->ctx)
        ompb__context_free(r->ctx);
    if (r->topo)
        ompb__topology_close(r->topo);
    free(r->sel);
    ompb__config_release(&r->cfg);
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* What must be the same on every rank: the instances, and the sampling
 * each will be run with (which holds every option that shapes a round). */
static uint64_t run_hash(const run *r)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint32_t reps = r->cfg.repetitions;
    h = fnv1a(h, &reps, sizeof reps);
    for (size_t i = 0; i < r->n_sel; i++) {
        const ompb__instance *inst = &r->sel[i];
        ompb__sampling sp = ompb__sampling_resolve(&r->cfg, inst, false, 0);
        uint64_t v[] = {(uint64_t)inst->threads, (uint64_t)sp.mode, (uint64_t)sp.threads,
                        sp.rounds, sp.sample_size, sp.min_round_ns, sp.warmup_ns, sp.budget_ns,
                        sp.counters ? (uint64_t)sp.counters->n : 0};
        h = fnv1a(h, inst->name, strlen(inst->name) + 1);
        h = fnv1a(h, v, sizeof v);
    }
    return h;
}

/* A distributed run goes on only when every rank would: a rank that
 * stopped (bad option: it said why) stops all with its status, a rank
 * that stopped early without error (--list, --help, ...) while others
 * would run stops all with exit 2, and ranks that disagree on what to run
 * stop with one message from rank 0. Returns -1 to go on, else the exit
 * status, the same on every rank. */
static int agree_across_ranks(const run *r, int status)
{
    if (!ompb__dist())
        return status;
    uint64_t h = status < 0 ? run_hash(r) & ((UINT64_C(1) << 62) - 1) : 0;
    int rank = ompb__dist_rank(), ranks = ompb__dist_ranks();
    int64_t v[7] = {status >= 0, status > 0 ? status : 0, (int64_t)h, -(int64_t)h,
                    rank == 0 && status > 0, status < 0,
                    /* the lowest rank that stopped early, as ranks - rank */
                    status == 0 ? ranks - rank : 0};
    ompb__dist_max(v, 7, 0);
    if (held_error[0] && !v[4])
        fprintf(stderr, "%s\n", held_error);
    held_error[0] = '\0';
    if (v[1])
        return (int)v[1];
    if (v[0] && v[5]) {
        if (rank == 0)
            fprintf(stderr, "%s: the %d ranks disagree: rank %d stopped early (--list, --help, "
                    "--version and --list-counters print and stop) while others would run "
                    "(accepted: the same options on every rank)\n", r->argv0, ranks,
                    ranks - (int)v[6]);
        return OMPB_EXIT_USAGE;
    }
    if (v[0])
        return OMPB_EXIT_OK;
    if (v[2] == -v[3])
        return -1;
    if (rank == 0)
        fprintf(stderr, "%s: the %d ranks disagree on the instances or on the options that "
                "shape their rounds (accepted: the same binary with the same options on every "
                "rank)\n", r->argv0, ranks);
    return OMPB_EXIT_USAGE;
}

/* Everything up to running: returns -1 to go on, else an exit status. */
static int prepare(run *r, int argc, char **argv, ompb_error *err)
{
    if (ompb__config_parse(&r->cfg, argc, argv, err) != 0)
        return usage_error(r, err);
    /* In a distributed run only rank 0 prints. */
    bool speak = ompb__dist_rank() == 0;
    if (r->cfg.help) {
        if (speak)
            ompb__config_usage(r->argv0, stdout);
        return OMPB_EXIT_OK;
    }
    if (r->cfg.version) {
        if (speak)
            printf("ompbench %s\n", ompb_version());
        return OMPB_EXIT_OK;
    }
    if (r->cfg.list_counters) {
        if (speak)
            ompb__counters_list(stdout);
        return OMPB_EXIT_OK;
    }
    if (ompb__dist() && r->cfg.processes > 1)
        return usage_error(r, &(ompb_error){.text = "--processes: not with MPI ranks (each rank "
                                                    "is one process; accepted: 1, or more ranks, "
                                                    "or --repetitions)"});
    /* A benchmark binary refuses what an application only warns about (the
     * library's constructor turned regions off, lib/region.c). */
    if (ompb__regions_check_settings(err) != 0)
        return usage_error(r, err);
    if (select_instances(r, err) != 0)
        return usage_error(r, err);
    if (r->cfg.list) {
        for (size_t i = 0; speak && i < r->n_sel; i++)
            printf("%s\n", r->sel[i].name);
        return OMPB_EXIT_OK;
    }
    if (make_plans(r, err) != 0 || check_output_paths(r, err) != 0)
        return usage_error(r, err);
    if (r->cfg.topology_xml && ompb__topology_export_xml(r->topo, r->cfg.topology_xml, err) != 0)
        return usage_error(r, err);
    if (r->cfg.show_plan) {
        if (speak)
            ompb__report_plan(stdout, r->topo, &r->cfg.pin, r->sel, r->plans, r->n_sel);
        return OMPB_EXIT_OK;
    }
    /* A fake topology (HWLOC_SYNTHETIC, HWLOC_XMLFILE) is for previews only. */
    if (ompb__topology_check_measurable(r->topo, err) != 0)
        return usage_error(r, err);
    /* Every team thread will open these events: an event this machine or
     * its permissions refuse stops the run here, before anything is measured. */
    if (r->cfg.counters.n > 0 && ompb__counters_probe(&r->cfg.counters, err) != 0)
        return usage_error(r, err);
    if (r->cfg.output && !r->cfg.child && speak && ompb__outfile_probe(r->cfg.output, err) != 0)
        return usage_error(r, err);
    return -1;
}

/* How this run repeats, once the instrument mode is known. Under the
 * CodSpeed runner each instance gets one benchmark window (windows cannot
 * interleave, and children would be processes the runner does not know), so
 * its repetitions run back to back in this process; CPU simulation counts
 * instructions, which do not vary, so once, and without --counters (the
 * sampling drops them: callgrind is the counter there). */
static void plan_repetitions(run *r)
{
    ompb__mode mode = ompb__instrument_mode();
    /* Every rank runs rank 0's shape: only rank 0 knows the instrument. */
    bool simulate = ompb__dist_from_rank0(mode == OMPB__MODE_SIMULATION) != 0;
    r->simulate = simulate;
    r->reps = ompb__sampling_repetitions(&r->cfg, simulate);
    r->processes = r->cfg.processes;
    r->interleave = mode == OMPB__MODE_NONE;
    r->seed = r->cfg.seed_given ? r->cfg.seed : ompb__seed_from_clock();
    if (simulate && r->cfg.repetitions > 1)
        ompb__context_warn(r->ctx, "CPU simulation: each instance runs once (instruction counts "
                           "do not vary between repetitions); --repetitions %u ignored",
                           r->cfg.repetitions);
    if (simulate && r->cfg.counters.n > 0)
        ompb__context_warn(r->ctx, "CPU simulation: callgrind counts the instructions, the "
                           "thread runs alone; --counters ignored");
    if (mode != OMPB__MODE_NONE && r->processes > 1 && !r->cfg.child)
        ompb__context_warn(r->ctx, "under the CodSpeed runner all repetitions run in this "
                           "process (one benchmark window per instance); --processes %u ignored",
                           r->processes);
    if (mode != OMPB__MODE_NONE)
        r->processes = 1;
    /* Every rank runs rank 0's schedule (rank 0 alone knows the CodSpeed
     * runner, and seeds from its clock). */
    if (ompb__dist()) {
        uint64_t hi = (uint64_t)ompb__dist_from_rank0((int64_t)(r->seed >> 32));
        uint64_t lo = (uint64_t)ompb__dist_from_rank0((int64_t)(r->seed & UINT32_MAX));
        r->seed = hi << 32 | lo;
        r->interleave = ompb__dist_from_rank0(r->interleave) != 0;
    }
    ompb__context_set_repetitions(r->ctx, r->reps, r->processes, r->interleave && r->reps > 1,
                                  r->seed);
}

/* Rank 0 records every rank's pu map of each plan width, in plan order
 * (the same on every rank: the instances agree). */
static void gather_pin_maps(run *r)
{
    if (!ompb__dist())
        return;
    for (size_t i = 0; i < r->n_sel; i++) {
        const ompb__pin_plan *p = r->plans[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = r->plans[j]->threads == p->threads;
        if (seen)
            continue;
        int64_t *own = malloc((size_t)p->threads * sizeof *own), *all;
        if (!own) {
            fprintf(stderr, "%s: out of memory\n", r->argv0);
            ompb__dist_abort(OMPB_EXIT_FAILED);
        }
        for (int t = 0; t < p->threads; t++)
            own[t] = p->pu[t];
        ompb__dist_gather_i64(own, (size_t)p->threads, &all);
        if (all)
            ompb__context_set_rank_pus(r->ctx, p->threads, all, ompb__dist_ranks());
        free(own);
        free(all);
    }
}

/* What this process hands on: a child's records to its parent, else the
 * report and the CodSpeed results. Returns status, or the exit status of
 * the failure (message printed). */
static int hand_on(run *r, const ompb__result *results, size_t n, int status, ompb_error *err)
{
    if (r->cfg.child) {
        if (write_dump(r, results, n, err) != 0) {
            fprintf(stderr, "%s: %s\n", r->argv0, err->text);
            return OMPB_EXIT_USAGE;
        }
        return status;
    }
    ompb__report report;
    if (ompb__report_init(&report, r->ctx, results, n) != 0) {
        fprintf(stderr, "%s: out of memory\n", r->argv0);
        return OMPB_EXIT_FAILED;
    }
    if (write_report(r, &report, err) != 0) {
        /* The path was checked before the run: this is an I/O failure such
         * as a full disk, reported like a bad path (exit 2), no file left. */
        fprintf(stderr, "%s: %s\n", r->argv0, err->text);
        status = OMPB_EXIT_USAGE;
    }
    if (ompb__report_codspeed(&report, err) != 0)
        fprintf(stderr, "%s: warning: %s\n", r->argv0, err->text);
    ompb__report_release(&report);
    return status;
}

/* A run stopped early (`by`, lib/body_guard.h): hands on every completed
 * repetition, with `failed` in place of slot `at` (none: SIZE_MAX), and
 * names the instances left without any result in the context. */
static int hand_on_partial(run *r, const char *by, size_t at, const ompb__result *failed,
                           const char *said, ompb_error *err)
{
    size_t total = r->n_sel * r->reps, n = 0, n_missing = 0;
    ompb__result *res = malloc((total ? total : 1) * sizeof *res);
    const char **missing = malloc((r->n_sel ? r->n_sel : 1) * sizeof *missing);
    int status = OMPB_EXIT_FAILED;
    for (size_t i = 0; res && missing && i < r->n_sel; i++) {
        size_t before = n;
        for (uint32_t rep = 0; rep < r->reps; rep++) {
            size_t k = i * r->reps + rep;
            if (k == at && failed)
                res[n++] = *failed;
            else if (k != at && r->results[k].rec.inst && !r->results[k].rec.interrupted)
                res[n++] = r->results[k];
        }
        if (n == before)
            missing[n_missing++] = r->sel[i].name;
    }
    /* One line: what happened (said), and what has no result. */
    fprintf(stderr, "%s", said);
    for (size_t i = 0; res && missing && !r->cfg.child && i < n_missing; i++)
        fprintf(stderr, "%s%s", i ? ", " : "; not run: ", missing[i]);
    fputc('\n', stderr);
    if (res && missing) {
        ompb__context_set_partial(r->ctx, by, missing, n_missing);
        status = hand_on(r, res, n, OMPB_EXIT_FAILED, err);
        ompb__context_set_partial(r->ctx, NULL, NULL, 0);
    } else {
        fprintf(stderr, "%s: out of memory\n", r->argv0);
    }
    free(missing);
    free(res);
    return status;
}

/* The guard's stop (lib/body_guard.h), on the thread that called exit() or on
 * the guard's own (a timeout, a signal the master did not answer): the
 * slot being measured fails with why (cut short by a signal, it is left
 * out); the completed ones are handed on. */
static void stop_run(void *arg, const char *by, const char *why)
{
    run *r = arg;
    size_t at = ompb__body_guard_slot();
    progress(r, 0, 0, NULL); /* the line of the slot that stopped */
    ompb__result failed;
    memset(&failed, 0, sizeof failed);
    if (at != SIZE_MAX) {
        const ompb__instance *inst = &r->sel[at / r->reps];
        uint32_t rep = (uint32_t)(at % r->reps);
        fail_result(&failed, inst, rep, r->cfg.child ? r->cfg.child_index : 0, why);
        /* Shaped as the engine's failed records are (the parent of
         * --processes checks the shape): what it was asked, no rounds. */
        ompb__record *rec = &failed.rec;
        rec->sampling = ompb__sampling_resolve(&r->cfg, inst, r->simulate, rep);
        rec->caller_team = inst->bench->team == OMPB_TEAM_CALLER;
        if (rec->sampling.counters)
            rec->counters = *rec->sampling.counters;
        if (ompb__record_alloc(rec, 1, inst->threads) == 0)
            for (int t = 0; t < inst->threads; t++)
                rec->thread_pu[t] = -1;
    }
    /* A signal's slot did not fail: it was cut short, and is left out. */
    bool fails = at != SIZE_MAX && strncmp(by, "SIG", 3) != 0;
    char said[OMPB_ERROR_TEXT_MAX + 1024];
    char rank[32] = "";
    if (ompb__dist_rank() != 0)
        snprintf(rank, sizeof rank, "rank %d: ", ompb__dist_rank());
    snprintf(said, sizeof said, "%s: %s%s%s%s; %s", r->argv0, rank,
             at != SIZE_MAX ? r->sel[at / r->reps].name : "", at != SIZE_MAX ? ": " : "", why,
             ompb__dist_rank() != 0 ? "this rank ends, and the launcher ends the job with it "
                                      "(only rank 0 writes the report: none this time)"
             : r->cfg.child ? "the completed repetitions go to the parent"
                            : "the completed instances are written, marked partial");
    ompb_error err = {0};
    ompb__outfile_c_locale(); /* this thread's: bodies may have called setlocale() */
    if (ompb__dist_rank() != 0)
        fprintf(stderr, "%s\n", said);
    else
        (void)hand_on_partial(r, by, at, fails ? &failed : NULL, said, &err);
    ompb__record_free(&failed.rec);
}

/* The master stopped measuring on a signal: it says so once, hands on the
 * completed repetitions and ends the process of the signal. */
static _Noreturn void stop_on_signal(run *r, int sig)
{
    const char *name = ompb__body_guard_signal_name(sig);
    char said[256];
    snprintf(said, sizeof said, "%s: interrupted by %s; %s", r->argv0, name,
             r->cfg.child ? "the completed repetitions go to the parent"
                          : "the completed instances are written, marked partial");
    ompb_error err = {0};
    ompb__body_guard_ignore_repeats(sig);
    if (ompb__dist_rank() == 0)
        (void)hand_on_partial(r, name, SIZE_MAX, NULL, said, &err);
    run_free(r);
    ompb__body_guard_die_of(sig);
}

/* Measures (here, or in child processes), then reports. Returns the exit status. */
/* Once per run, like Google Benchmark's warning about its own debug build,
 * but about the benchmark code: the library's build in the header says
 * nothing of how the file that holds OMPB_BENCH was compiled (a CMake
 * project without CMAKE_BUILD_TYPE builds it at -O0). */
static void unoptimized_warning(const run *r)
{
    size_t n = 0, first = 0;
    for (size_t i = 0; i < r->n_sel; i++)
        if (r->sel[i].unoptimized && n++ == 0)
            first = i;
    if (n == 0)
        return;
    const ompb_benchmark *b = r->sel[first].bench;
    ompb__context_warn(r->ctx, "benchmark code compiled without optimization (no -O where "
                       "OMPB_BENCH expands): %zu instance%s, the first %s in %s; its figures "
                       "are not an optimized build's (often several times slower): compile "
                       "the benchmark file with -O2 (CMake: -DCMAKE_BUILD_TYPE=Release); "
                       "marked unoptimized", n, ompb__plural((int)n), r->sel[first].name,
                       ompb__uri_file(b->file));
}

static int measure_and_report(run *r, ompb_error *err)
{
    r->results = calloc(r->n_sel * r->reps, sizeof *r->results);
    if (!r->results) {
        fprintf(stderr, "%s: out of memory\n", r->argv0);
        return OMPB_EXIT_FAILED;
    }
    for (size_t i = 0; i < r->n_sel; i++)
        ompb__context_add_plan(r->ctx, r->plans[i]);
    gather_pin_maps(r);
    unoptimized_warning(r);
    bool parent = r->processes > 1 && !r->cfg.child;
    int failures;
    if (parent) {
        failures = run_processes(r, err);
    } else {
        /* Bodies run in this process: an exit() in one must not pass for
         * success, a signal stops the run between rounds. The ranks of a
         * distributed run must stop alike: there mpirun handles signals. */
        int widest = 1;
        for (size_t i = 0; i < r->n_sel; i++)
            widest = r->sel[i].threads > widest ? r->sel[i].threads : widest;
        ompb__body_guard_run_begin(stop_run, r, !ompb__dist(), r->cfg.timeout_ns, widest);
        failures = run_share(r, r->cfg.child ? r->cfg.child_index : 0);
        int sig = ompb__body_guard_claim();
        ompb__body_guard_run_end();
        ompb__outfile_c_locale(); /* bodies may have called setlocale() */
        if (sig)
            stop_on_signal(r, sig);
    }
    ompb__outfile_c_locale();
    if (failures < 0) {
        fprintf(stderr, "%s: %s\n", r->argv0, failures == OMPB_EIO ? err->text : "out of memory");
        return failures == OMPB_EIO ? OMPB_EXIT_USAGE : OMPB_EXIT_FAILED;
    }
    int status = failures ? OMPB_EXIT_FAILED : OMPB_EXIT_OK;
    if (ompb__dist_rank() != 0)
        return status; /* rank 0 reports for all */
    return hand_on(r, r->results, r->n_sel * r->reps, status, err);
}

int ompb_main(int argc, char **argv)
{
    run r;
    memset(&r, 0, sizeof r);
    r.argc = argc;
    r.argv = argv;
    r.argv0 = argc > 0 ? argv[0] : "ompbench";
    ompb_error err = {0};
    int status = agree_across_ranks(&r, prepare(&r, argc, argv, &err));
    if (status >= 0) {
        if (status == OMPB_EXIT_OK && ompb__outfile_flush_stdout(&err) != 0) {
            status = usage_error(&r, &err);
            if (held_error[0]) /* this rank's own stdout: its own message */
                fprintf(stderr, "%s\n", held_error);
            held_error[0] = '\0';
        }
        run_free(&r);
        return status;
    }
    /* Only rank 0 talks to the CodSpeed runner and prints warnings. A child
     * of --processes never looks for one: its parent made children only
     * because it found none (plan_repetitions), and a runner that appeared
     * since would make the child re-decide its share of the repetitions
     * (all of them, back to back) and talk to a runner its parent does not. */
    if (ompb__dist_rank() == 0 && !r.cfg.child)
        ompb__instrument_init();
    /* A child's warnings reach the user through its parent, once. */
    ompb__context_set_quiet(r.cfg.child || ompb__dist_rank() != 0);
    r.ctx = ompb__context_new(&r.cfg.pin, r.cfg.default_threads, r.argv0);
    if (!r.ctx) {
        fprintf(stderr, "%s: out of memory\n", r.argv0);
        run_free(&r);
        return OMPB_EXIT_FAILED;
    }
    /* The guard matters to rounds only: a region report's context (an
     * application, which has no guard) does not warn about it. */
    const char *guard = ompb__fork_guard_warning(ompb__fork_guard_coverage());
    if (guard)
        ompb__context_warn(r.ctx, "%s", guard);
    ompb__context_set_topology(r.ctx, r.topo);
    ompb__context_set_distribution(r.ctx, ompb__dist());
    plan_repetitions(&r);
    status = measure_and_report(&r, &err);
    run_free(&r);
    return status;
}
