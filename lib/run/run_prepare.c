/* SPDX-License-Identifier: MIT */
/*
 * Everything ompb_main does before measuring (lib/run/run.h): the options, the
 * selection, the pin plans, the paths the run will write and the counter
 * probe. All input is validated and the output file is probed here, so a
 * bad option or an unwritable path costs no benchmark time and leaves no
 * partial file; --help, --version, --list, --list-counters and --show-plan
 * print and stop here.
 */
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ompbench/run.h>
#include <ompbench/version.h>

#include "counters/counters.h"
#include "engine/engine.h"
#include "core/core.h"
#include "hooks/hooks.h"
#include "regions/region.h"
#include "report/report.h"

/* Every --exact and --filter given narrows the selection. */
static bool selected(const ompb__config *cfg, const ompb__instance *inst)
{
    for (size_t i = 0; i < cfg->n_exact; i++)
        if (strcmp(cfg->exact[i], inst->name) != 0)
            return false;
    if (cfg->exact_file.path && !ompb__names_file_has(&cfg->exact_file, inst->name))
        return false;
    for (size_t i = 0; i < cfg->n_filters; i++)
        if (regexec(&cfg->filter[i], inst->name, 0, NULL, 0) != 0)
            return false;
    return true;
}

static int select_instances(ompb__run *r, ompb_error *err)
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
    size_t given = cfg->n_exact + cfg->n_filters + (cfg->exact_file.path != NULL);
    if (given > 1)
        return ompb__error_set(err, OMPB_ENOENT, "--filter/--exact: no instance satisfies all "
                               "%zu selections given (each narrows the selection; see --list)",
                               given);
    if (cfg->exact_file.path)
        return ompb__error_set(err, OMPB_ENOENT, "--exact-file: '%s' names no instance of this "
                               "binary (one exact name per line; see --list)",
                               cfg->exact_file.path);
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
static int check_output_paths(const ompb__run *r, ompb_error *err)
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

static int make_plans(ompb__run *r, ompb_error *err)
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

/* The options that print and stop before anything is selected: returns
 * the exit status, or -1 when none was given. In a distributed run only
 * rank 0 prints. */
static int print_and_stop(const ompb__run *r, bool speak)
{
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
            ompb__counters_list(&ompb__counter_ops_system, stdout);
        return OMPB_EXIT_OK;
    }
    return -1;
}

/* The selection, the plans and the paths: -1 to go on, else the status. */
static int select_and_plan(ompb__run *r, bool speak, ompb_error *err)
{
    if (select_instances(r, err) != 0)
        return ompb__run_usage_error(r, err);
    if (r->cfg.list) {
        for (size_t i = 0; speak && i < r->n_sel; i++)
            printf("%s\n", r->sel[i].name);
        return OMPB_EXIT_OK;
    }
    if (make_plans(r, err) != 0 || check_output_paths(r, err) != 0)
        return ompb__run_usage_error(r, err);
    if (r->cfg.topology_xml && ompb__topology_export_xml(r->topo, r->cfg.topology_xml, err) != 0)
        return ompb__run_usage_error(r, err);
    if (r->cfg.show_plan) {
        if (speak)
            ompb__report_plan(stdout, r->topo, &r->cfg.pin, r->sel, r->plans, r->n_sel);
        return OMPB_EXIT_OK;
    }
    return -1;
}

int ompb__run_prepare(ompb__run *r, int argc, char **argv, ompb_error *err)
{
    if (ompb__config_parse(&r->cfg, argc, argv, err) != 0)
        return ompb__run_usage_error(r, err);
    bool speak = ompb__dist_rank() == 0;
    int status = print_and_stop(r, speak);
    if (status >= 0)
        return status;
    if (ompb__dist() && r->cfg.processes > 1)
        return ompb__run_usage_error(r, &(ompb_error){.text = "--processes: not with MPI ranks "
                                                              "(each rank is one process; "
                                                              "accepted: 1, or more ranks, or "
                                                              "--repetitions)"});
    /* A benchmark binary refuses what an application only warns about (the
     * library's constructor turned regions off, lib/regions/region_settings.c). */
    if (ompb__regions_check_settings(err) != 0 || ompb__runner_check_setting(err) != 0 ||
        ompb__crash_setting(&r->crash_handler, err) != 0)
        return ompb__run_usage_error(r, err);
    status = select_and_plan(r, speak, err);
    if (status >= 0)
        return status;
    /* A fake topology (HWLOC_SYNTHETIC, HWLOC_XMLFILE) is for previews only. */
    if (ompb__topology_check_measurable(r->topo, err) != 0)
        return ompb__run_usage_error(r, err);
    /* Every team thread will open these events: an event this machine or
     * its permissions refuse stops the run here, before anything is measured. */
    if (r->cfg.counters.n > 0 &&
        ompb__counters_probe(&ompb__counter_ops_system, &r->cfg.counters, err) != 0)
        return ompb__run_usage_error(r, err);
    if (r->cfg.output && !r->cfg.child && speak && ompb__outfile_probe(r->cfg.output, err) != 0)
        return ompb__run_usage_error(r, err);
    return -1;
}
