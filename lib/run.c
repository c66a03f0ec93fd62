/* SPDX-License-Identifier: MIT */
/*
 * ompb_main: the command line every benchmark binary shares. Validates all
 * input and opens the output file before running anything, so a bad option
 * or an unwritable path costs no benchmark time and leaves no partial file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ompbench/run.h>
#include <ompbench/version.h>

#include "cli.h"
#include "context.h"
#include "counters.h"
#include "error.h"
#include "hooks/instrument.h"
#include "outfile.h"
#include "pin_plan.h"
#include "registry.h"
#include "report/plan.h"
#include "report/report.h"
#include "round.h"
#include "topology.h"

typedef struct run {
    ompb__config cfg;
    const char *argv0;
    ompb__instance *sel;        /* the selected instances, in registration order */
    size_t n_sel;
    ompb__topology *topo;
    ompb__pin_plan **plans;     /* [n_sel] */
    ompb__context *ctx;
    ompb__result *results;      /* [n_sel] */
    ompb__outfile out;
} run;

static int usage_error(const run *r, const ompb_error *err)
{
    fprintf(stderr, "%s: %s\n", r->argv0, err->text);
    return OMPB_EXIT_USAGE;
}

static bool selected(const ompb__config *cfg, const ompb__instance *inst)
{
    if (cfg->exact && strcmp(cfg->exact, inst->name) != 0)
        return false;
    return !cfg->has_filter || regexec(&cfg->filter, inst->name, 0, NULL, 0) == 0;
}

static int select_instances(run *r, ompb_error *err)
{
    const ompb__config *cfg = &r->cfg;
    if (ompb__registry_error())
        return ompb__error_set(err, OMPB_EINVAL, "%s", ompb__registry_error());
    size_t n_all;
    if (ompb__instances_expand(cfg->threads, cfg->n_threads, cfg->default_threads, &r->sel,
                               &n_all, err) != 0)
        return OMPB_EINVAL;
    /* Keep the selected instances, compacted to the front of the array. */
    for (size_t i = 0; i < n_all; i++)
        if (selected(cfg, &r->sel[i]))
            r->sel[r->n_sel++] = r->sel[i];
    if (r->n_sel > 0)
        return 0;
    if (cfg->exact)
        return ompb__error_set(err, OMPB_ENOENT, "--exact: no instance is named '%s' (see --list)", cfg->exact);
    if (cfg->has_filter)
        return ompb__error_set(err, OMPB_ENOENT, "--filter: '%s' matches no instance (see --list)",
                               cfg->filter_text);
    return ompb__error_set(err, OMPB_ENOENT, "this binary registers no benchmark");
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

/* A progress line on stderr, only when it is a terminal. */
static void progress(const run *r, size_t i, bool done)
{
    if (!isatty(STDERR_FILENO))
        return;
    if (done)
        fprintf(stderr, "\r\033[K");
    else
        fprintf(stderr, "\r\033[K[%zu/%zu] %s", i + 1, r->n_sel, r->sel[i].name);
    fflush(stderr);
}

static int run_all(run *r)
{
    int failures = 0;
    bool simulate = ompb__instrument_mode() == OMPB__MODE_SIMULATION;
    r->results = calloc(r->n_sel, sizeof *r->results);
    if (!r->results)
        return -1;
    for (size_t i = 0; i < r->n_sel; i++) {
        ompb__result *res = &r->results[i];
        progress(r, i, false);
        ompb__context_add_plan(r->ctx, r->plans[i]);
        ompb__sampling sampling = ompb__sampling_resolve(&r->cfg, &r->sel[i], simulate);
        int rc = ompb__round_run(&r->sel[i], &sampling, r->plans[i], &res->rec);
        if (rc == OMPB_ENOMEM) {
            res->rec.failed = true;
            snprintf(res->rec.error, sizeof res->rec.error, "%.200s: out of memory for %llu rounds",
                     r->sel[i].name, (unsigned long long)sampling.rounds);
        }
        if (res->rec.failed) {
            fprintf(stderr, "%s: %s\n", r->argv0, res->rec.error);
            failures++;
        } else if (res->rec.migrations > 0) {
            ompb__context_warn(r->ctx, "%s: %llu thread migrations observed between rounds",
                               r->sel[i].name, (unsigned long long)res->rec.migrations);
        }
        for (size_t w = 0; w < res->rec.n_warnings; w++)
            ompb__context_warn(r->ctx, "%s", res->rec.warnings[w]);
        res->rec.inst = &r->sel[i];
        if (ompb__result_analyze(res) != 0 && !res->rec.failed) {
            res->rec.failed = true;
            snprintf(res->rec.error, sizeof res->rec.error, "%.200s: out of memory computing statistics",
                     r->sel[i].name);
            fprintf(stderr, "%s: %s\n", r->argv0, res->rec.error);
            failures++;
        }
    }
    progress(r, 0, true);
    return failures;
}

static int write_report(run *r, ompb_error *err)
{
    if (r->cfg.output && ompb__outfile_open(&r->out, r->cfg.output, err) != 0)
        return OMPB_EIO;
    FILE *fp = r->cfg.output ? r->out.fp : stdout;
    ompb__report report = {.ctx = r->ctx, .results = r->results, .n = r->n_sel};
    if (r->cfg.reporter->write(fp, &report) != 0) {
        if (r->cfg.output)
            ompb__outfile_abort(&r->out);
        return ompb__error_set(err, OMPB_EIO, "cannot write the report to %s",
                               r->cfg.output ? r->cfg.output : "standard output");
    }
    if (r->cfg.output)
        return ompb__outfile_commit(&r->out, err);
    return fflush(stdout) == 0 ? 0 : ompb__error_set(err, OMPB_EIO, "cannot write standard output");
}

static void run_free(run *r)
{
    if (r->out.fp)
        ompb__outfile_abort(&r->out);
    for (size_t i = 0; r->results && i < r->n_sel; i++)
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

/* Everything up to running: returns -1 to go on, else an exit status. */
static int prepare(run *r, int argc, char **argv, ompb_error *err)
{
    if (ompb__config_parse(&r->cfg, argc, argv, err) != 0)
        return usage_error(r, err);
    if (r->cfg.help) {
        ompb__config_usage(r->argv0, stdout);
        return OMPB_EXIT_OK;
    }
    if (r->cfg.version) {
        printf("ompbench %s\n", ompb_version());
        return OMPB_EXIT_OK;
    }
    if (r->cfg.list_counters) {
        ompb__counters_list(stdout);
        return OMPB_EXIT_OK;
    }
    if (select_instances(r, err) != 0)
        return usage_error(r, err);
    if (r->cfg.list) {
        for (size_t i = 0; i < r->n_sel; i++)
            printf("%s\n", r->sel[i].name);
        return OMPB_EXIT_OK;
    }
    if (make_plans(r, err) != 0)
        return usage_error(r, err);
    if (r->cfg.topology_xml && ompb__topology_export_xml(r->topo, r->cfg.topology_xml, err) != 0)
        return usage_error(r, err);
    if (r->cfg.show_plan) {
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
    if (r->cfg.output && ompb__outfile_probe(r->cfg.output, err) != 0)
        return usage_error(r, err);
    return -1;
}

int ompb_main(int argc, char **argv)
{
    run r;
    memset(&r, 0, sizeof r);
    r.argv0 = argc > 0 ? argv[0] : "ompbench";
    ompb_error err = {0};
    int status = prepare(&r, argc, argv, &err);
    if (status >= 0) {
        run_free(&r);
        return status;
    }
    ompb__instrument_init();
    r.ctx = ompb__context_new(&r.cfg.pin, r.cfg.default_threads, r.argv0);
    ompb__context_set_topology(r.ctx, r.topo);
    int failures = run_all(&r);
    status = failures ? OMPB_EXIT_FAILED : OMPB_EXIT_OK;
    if (failures < 0) {
        fprintf(stderr, "%s: out of memory\n", r.argv0);
        status = OMPB_EXIT_FAILED;
    } else if (write_report(&r, &err) != 0) {
        /* The path was checked before the run: this is an I/O failure such
         * as a full disk, reported like a bad path (exit 2), no file left. */
        fprintf(stderr, "%s: %s\n", r.argv0, err.text);
        status = OMPB_EXIT_USAGE;
    }
    ompb__report report = {.ctx = r.ctx, .results = r.results, .n = r.n_sel};
    if (r.results && ompb__report_codspeed(&report, &err) != 0)
        fprintf(stderr, "%s: warning: %s\n", r.argv0, err.text);
    run_free(&r);
    return status;
}
