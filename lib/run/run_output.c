/* SPDX-License-Identifier: MIT */
/*
 * What a run hands on (lib/run/run.h): a child of --processes writes its
 * records to the dump its parent reads; any other process writes the
 * report (to standard output, to --output atomically, or both with
 * --output-format) and the CodSpeed results files.
 */
#include "run/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/run.h>

#include "run/dump.h"
#include "core/core.h"
#include "hooks/hooks.h"

/* The child of --processes: its records go to the parent, nothing to stdout. */
static int write_dump(const ompb__run *r, const ompb__result *results, size_t total,
                      ompb_error *err)
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
static int write_file(ompb__run *r, const ompb__reporter *rp, const ompb__report *report,
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
static int write_report(ompb__run *r, const ompb__report *report, ompb_error *err)
{
    if (!r->cfg.output)
        return write_stdout(r->cfg.reporter, report, err);
    if (!r->cfg.output_reporter)
        return write_file(r, r->cfg.reporter, report, err);
    int rc = write_file(r, r->cfg.output_reporter, report, err);
    return rc ? rc : write_stdout(r->cfg.reporter, report, err);
}

/* What the CodSpeed files depend on, from the instrument: the report layer
 * sits below the hooks and is handed it. */
static ompb__report_runner runner_facts(void)
{
    return (ompb__report_runner){.taken = ompb__instrument_runner_taken(),
                                 .walltime = ompb__instrument_runner_walltime(),
                                 .simulation = ompb__instrument_mode() == OMPB__MODE_SIMULATION,
                                 .off = ompb__runner_use_now() == OMPB__RUNNER_USE_OFF};
}

int ompb__run_hand_on(ompb__run *r, const ompb__result *results, size_t n, int status,
                      ompb_error *err)
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
    report.runner = runner_facts();
    if (ompb__report_codspeed(&report, err) != 0)
        fprintf(stderr, "%s: warning: %s\n", r->argv0, err->text);
    ompb__report_release(&report);
    return status;
}
