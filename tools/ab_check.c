/* SPDX-License-Identifier: MIT */
/*
 * What `ompbench ab` refuses, and what it says when a comparison compared
 * nothing. Before the first run: a report path that names an input (a
 * binary it runs, a file the benchmark options read), another report, or
 * a file ab itself writes in --keep's directory (compared by device and
 * inode, through links and other spellings, core/outfile.h); and
 * benchmark options after `--` that would change what a run is (it prints
 * and stops, writes its own report, or runs several processes that ab
 * would count as one run). After the runs: a side without one usable run,
 * a side whose faults in a row stopped the runs, or a --max-time that no
 * run fitted in, is exit status 2 with one line,
 * and runs that faulted or times of 0 get a warning: a comparison never
 * ends silently with status 0 when it could not compare.
 */
#include "ab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"
#include "config/config.h"
#include "tools.h"

#define bad(...) ompb__tool_usage_error(OMPB__AB_TOOL, __VA_ARGS__)
#define MAX_INPUTS 64

/* ---- the report paths ------------------------------------------------------- */

/* A shell command's words that name an existing regular file (the wrapper
 * and the binary it starts), into in[*n]. The words live in copy. */
static void command_files(const char *cmd, const char *label, char *copy,
                          ompb__outfile_input *in, size_t *n)
{
    strcpy(copy, cmd);
    for (char *w = strtok(copy, " \t\n\"'"); w && *n < MAX_INPUTS; w = strtok(NULL, " \t\n\"'")) {
        struct stat st;
        if (stat(w, &st) == 0 && S_ISREG(st.st_mode))
            in[(*n)++] = (ompb__outfile_input){label, w};
    }
}

/* Whether name is one of the files ab writes in its run directory:
 * base.list, head-list.log, base-001.json, head-012.log, .names,
 * .json.journal (tools/ab_run.c). */
static bool run_file_name(const char *name)
{
    if (strncmp(name, "base", 4) != 0 && strncmp(name, "head", 4) != 0)
        return false;
    name += 4;
    if (strcmp(name, ".list") == 0 || strcmp(name, "-list.log") == 0)
        return true;
    if (*name++ != '-' || !strchr("0123456789", *name) || !*name)
        return false;
    name += strspn(name, "0123456789");
    return strcmp(name, ".json") == 0 || strcmp(name, ".log") == 0 ||
           strcmp(name, ".names") == 0 || strcmp(name, ".json.journal") == 0;
}

/* Whether path lies in the directory keep (by device and inode). */
static bool in_dir(const char *path, const char *keep)
{
    char *dir = strdup(path);
    if (!dir)
        return false;
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    struct stat a, b;
    bool same = stat(slash ? dir : ".", &a) == 0 && stat(keep, &b) == 0 &&
                a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    free(dir);
    return same;
}

int ompb__ab_check_outputs(const ompb__ab_settings *set, const ompb__ab_exec *x,
                           const char *keep, const char *const *opts, const char *const *paths,
                           size_t n_out)
{
    ompb__outfile_input in[MAX_INPUTS + 8];
    size_t n = 0;
    char *copy[2] = {NULL, NULL};
    static const char *const label[2] = {"BASE", "HEAD"};
    for (int s = 0; s < 2; s++) {
        if (!set->shell[s])
            in[n++] = (ompb__outfile_input){label[s], set->cmd[s]};
        else if ((copy[s] = malloc(strlen(set->cmd[s]) + 1)))
            command_files(set->cmd[s], s ? "a file --head-cmd runs" : "a file --base-cmd runs",
                          copy[s], in, &n);
    }
    for (size_t i = 0; i + 1 < x->n_bench_args && n < MAX_INPUTS; i++)
        if (strcmp(x->bench_args[i], "--exact-file") == 0)
            in[n++] = (ompb__outfile_input){"--exact-file", x->bench_args[i + 1]};
    if (keep)
        in[n++] = (ompb__outfile_input){"--keep", keep};
    int rc = 0;
    for (size_t k = 0; k < n_out && !rc; k++) {
        ompb_error err = {0};
        if (!paths[k])
            continue;
        if (ompb__outfile_check_inputs(opts[k], paths[k], in, n, &err))
            rc = bad("%s", err.text);
        else if (keep) {
            const char *base = strrchr(paths[k], '/');
            if (run_file_name(base ? base + 1 : paths[k]) && in_dir(paths[k], keep))
                rc = bad("%s '%s': is a file ompbench ab writes in --keep '%s' (a run's JSON "
                         "file, log or list; accepted: another name, e.g. %s/report.json)",
                         opts[k], paths[k], keep, keep);
        }
        /* The reports after this one must not replace it either. */
        if (!rc && n < MAX_INPUTS + 8)
            in[n++] = (ompb__outfile_input){opts[k], paths[k]};
    }
    free(copy[0]);
    free(copy[1]);
    return rc;
}

/* ---- the benchmark options after -- ------------------------------------------- */

typedef struct refused_option {
    const char *name;
    const char *why;
} refused_option;

static const refused_option refused[] = {
    {"--help", "it prints and stops: there would be nothing to compare (ompbench ab --help "
               "gives ab's options)"},
    {"-h", "it prints and stops: there would be nothing to compare"},
    {"--version", "it prints and stops: there would be nothing to compare"},
    {"--list", "ab lists the instances itself"},
    {"--list-counters", "it prints and stops: there would be nothing to compare"},
    {"--show-plan", "it prints and stops: there would be nothing to compare"},
    {"--topology-xml", "every run would write the same file"},
    {"--format", "ab sets each run's output; give --format to ab itself"},
    {"--output", "ab sets each run's output; give --output to ab itself"},
    {"--output-format", "ab sets each run's output"},
    {"--processes", "ab runs each build in fresh processes itself and counts its runs "
                    "(--min-runs, --max-runs): a run of P processes would count as P"},
    {"--repetitions", "ab counts runs (processes), one value each (--min-runs, --max-runs); "
                      "repetitions within a run are not independent runs"},
    {"--timeout", "give --timeout to ab itself: it passes it to every run and bounds the run"},
    {OMPB__CHILD_OPTION, "it is the harness's own, between its processes"},
    {OMPB__JOURNAL_OPTION, "it is the harness's own, between its processes"},
    {OMPB__JOURNAL_JSON_OPTION, "it is the harness's own, between its processes"},
};

int ompb__ab_check_bench_args(const ompb__ab_exec *x)
{
    for (size_t i = 0; i < x->n_bench_args; i++) {
        const char *arg = x->bench_args[i];
        /* The value of a selection option is a pattern or a name. */
        if (i > 0 && (strcmp(x->bench_args[i - 1], "--filter") == 0 ||
                      strcmp(x->bench_args[i - 1], "--exact") == 0))
            continue;
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
            size_t len = strlen(refused[k].name);
            if (strncmp(arg, refused[k].name, len) == 0 && (!arg[len] || arg[len] == '='))
                return bad("benchmark option '%s' after --: refused, %s (accepted after --: "
                           "the options that shape a run, such as --threads, --filter, "
                           "--sample-count, --counters)", arg, refused[k].why);
        }
    }
    return 0;
}

/* ---- after the runs ----------------------------------------------------------- */

/* The last fault of side, or NULL. */
static const ompb__ab_run *last_fault(const ompb__ab_ledger *l, int side)
{
    const ompb__ab_run *f = NULL;
    for (size_t i = 0; i < l->n_runs; i++)
        if (l->runs[i].side == side && l->runs[i].outcome != OMPB__AB_RUN_OK &&
            l->runs[i].outcome != OMPB__AB_RUN_FAILED)
            f = &l->runs[i];
    return f;
}

int ompb__ab_check_compared(const ompb__ab_settings *set, const ompb__ab_exec *x,
                            const ompb__ab_ledger *l, const ompb__ab_result *res)
{
    static const char *const name[2] = {"BASE", "HEAD"};
    for (int s = 0; s < 2; s++) {
        if (l->side_runs[s] == 0) {
            /* The other side's first run, when it took the rest. */
            const ompb__ab_run *o = l->n_runs ? &l->runs[0] : NULL;
            char took[240] = "";
            if (o)
                snprintf(took, sizeof took, ", %s's first run %.1f s%s%.160s", name[o->side],
                         o->seconds, o->detail[0] ? ": " : "", o->detail);
            return bad("%s %s: the budget ended before %s's first run (the two --list "
                       "runs took %.1f s%s; accepted: a budget that fits at least one run of "
                       "each build); nothing was compared",
                       set->time_opt ? set->time_opt : "--max-time",
                       set->time_text ? set->time_text : "10m (the default)", name[s],
                       x->list_seconds, took);
        }
        if (res->fault_stop == s + 1 && l->pooled[s] > 0) {
            const ompb__ab_run *f = last_fault(l, s);
            return bad("%s failed %d runs in a row (the last: %s%s%s); the comparison stopped "
                       "before its budget, with what the runs before gave (see the report)",
                       name[s], OMPB__AB_MAX_FAULTS_IN_A_ROW,
                       f ? ompb__ab_outcome_name(f->outcome) : "?", f && f->detail[0] ? ", " : "",
                       f ? f->detail : "");
        }
        if (l->pooled[s] == 0) {
            const ompb__ab_run *f = last_fault(l, s);
            return bad("%s: none of its %zu run%s gave a usable result file (the last: %s%s%s); "
                       "nothing was compared (see the report's faults)", name[s],
                       l->side_runs[s], l->side_runs[s] == 1 ? "" : "s",
                       f ? ompb__ab_outcome_name(f->outcome) : "no file",
                       f && f->detail[0] ? ", " : "", f ? f->detail : "");
        }
    }
    return 0;
}

void ompb__ab_warn(const ompb__ab_settings *set, const ompb__ab_ledger *l,
                   const ompb__ab_rows *rows)
{
    size_t faulty = 0, zero[2] = {0, 0};
    for (size_t i = 0; i < l->n_runs; i++)
        faulty += ompb__ab_run_is_hard_fault(&l->runs[i]);
    for (size_t i = 0; i < rows->n; i++) {
        const ompb__ab_row *r = &rows->v[i];
        if (r->verdict != OMPB__VERDICT_NO_RATIO)
            continue;
        zero[0] += !(r->cmp.base_ns > 0.0);
        zero[1] += !(r->cmp.head_ns > 0.0);
    }
    if (faulty)
        fprintf(stderr, OMPB__AB_TOOL ": warning: %zu of %zu runs crashed, failed to run, hung "
                "or wrote no usable file; their results are not pooled (the report lists them)\n", faulty, l->n_runs);
    for (int s = 0; s < 2; s++)
        if (zero[s])
            fprintf(stderr, OMPB__AB_TOOL ": warning: %s gave a %s of 0 (or none) for %zu "
                    "instance%s: nothing to compare (no ratio); a body the compiler removed "
                    "measures nothing\n", s ? "HEAD" : "BASE", set->metric ? set->metric : "time",
                    zero[s], zero[s] == 1 ? "" : "s");
}
