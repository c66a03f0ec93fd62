/* SPDX-License-Identifier: MIT */
/*
 * Loading result files for `ompbench compare` and `ompbench scaling`. The
 * JSON is checked as it is read, and the first problem found becomes one
 * message "FILE: where: what is wrong", so a user with a truncated or foreign
 * file learns which one and why instead of getting a verdict built on it.
 * Entries with an "ompbench" object contribute their raw round samples;
 * plain Google Benchmark entries contribute real_time, and repeated entries
 * of one name (--benchmark_repetitions) become samples. A run reported only
 * by its aggregates (--benchmark_report_aggregates_only) contributes its
 * median, else its mean; a file that yields no instance at all is refused
 * rather than compared as empty.
 */
#include "analysis/resultfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/resultfile_read.h"
#include "analysis/units.h"
#include "core/core.h"

/* 2^64, the first value a uint64_t cannot hold: converting it or anything
 * larger (or a negative value) to uint64_t is undefined behaviour. */
#define OMPB__U64_LIMIT 18446744073709551616.0

/* A whole number of nanoseconds that a uint64_t holds. */
static bool is_ns_count(const json_t *v)
{
    double d = json_number_value(v);
    return json_is_number(v) && d >= 0.0 && d < OMPB__U64_LIMIT && d == floor(d);
}

static double median_of(const double *v, size_t n)
{
    ompb__stats st;
    return ompb__stats_compute(v, n, &st) == 0 ? st.median : NAN;
}

static int append_sample(ompb__rf_instance *in, double v)
{
    if (!ompb__grow((void **)&in->samples_ns, &in->cap_samples, in->n_samples + 1,
                    sizeof *in->samples_ns, 64))
        return OMPB_ENOMEM;
    in->samples_ns[in->n_samples++] = v;
    return 0;
}

/* The values of one iteration entry that the analysis reads (docs/json.md),
 * taken with one json_unpack per object of the schema: the entry, its
 * "ompbench", its samples and its stats. Each is NULL when absent; its type
 * is checked where it is read, so a message names the key. */
typedef struct parts {
    json_t *omp, *error, *reps, *index, *items, *bytes;           /* entry */
    json_t *sample_size, *rounds, *process, *marks, *scaling, *code, *samples,
           *stats;                                                /* ompbench */
    json_t *makespan, *busy, *clean;                              /* its samples */
    json_t *imbalance;                                            /* its stats */
} parts;

/* "{s?o}" never fails on an object: presence and type are the readers'. */
static void unpack_parts(const json_t *e, parts *p)
{
    memset(p, 0, sizeof *p);
    (void)json_unpack((json_t *)e, "{s?o, s?o, s?o, s?o, s?o, s?o}", "ompbench", &p->omp,
                      "error_occurred", &p->error, "repetitions", &p->reps,
                      "repetition_index", &p->index, "items_per_second", &p->items,
                      "bytes_per_second", &p->bytes);
    if (json_is_object(p->omp))
        (void)json_unpack(p->omp, "{s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o}", "sample_size",
                          &p->sample_size, "rounds", &p->rounds, "process", &p->process,
                          "marks", &p->marks, "scaling", &p->scaling, "code", &p->code,
                          "samples", &p->samples, "stats", &p->stats);
    if (json_is_object(p->samples))
        (void)json_unpack(p->samples, "{s?o, s?o, s?o}", "makespan_ns", &p->makespan,
                          "busy_ns", &p->busy, "clean", &p->clean);
    if (json_is_object(p->stats))
        (void)json_unpack(p->stats, "{s?o}", "mean_imbalance", &p->imbalance);
}

static int read_makespans(const parts *p, const entry_ref *ref, ompb__rf_instance *in,
                          ompb_error *err)
{
    long long size = ompb__rf_positive(p->sample_size);
    if (size <= 0)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"ompbench.sample_size\" is missing or not a positive integer",
                     ref->where);
    const json_t *mk = p->makespan;
    if (!json_is_array(mk) || json_array_size(mk) == 0)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"ompbench.samples.makespan_ns\" is missing or empty", ref->where);
    size_t i;
    const json_t *v;
    json_array_foreach(mk, i, v) {
        if (!is_ns_count(v))
            return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                         "%s: ompbench.samples.makespan_ns[%zu] is not a whole number of "
                         "nanoseconds below 2^64", ref->where, i);
        if (append_sample(in, json_number_value(v) / (double)size))
            return OMPB_ENOMEM;
    }
    long long rounds = ompb__rf_positive(p->rounds);
    if (rounds != 0 && (rounds < 0 || (size_t)rounds != json_array_size(mk)))
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"ompbench.rounds\" says %lld but makespan_ns holds %zu values",
                     ref->where, rounds, json_array_size(mk));
    return 0;
}

static int read_busy_round(const json_t *row, size_t r, const entry_ref *ref,
                           double *imbalance, ompb_error *err)
{
    size_t t, threads = json_array_size(row);
    if (!json_is_array(row) || threads == 0)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: busy_ns[%zu] is not an array of per-thread times", ref->where, r);
    uint64_t *b = malloc(threads * sizeof *b);
    const json_t *v;
    if (!b)
        return OMPB_ENOMEM;
    json_array_foreach(row, t, v) {
        if (!is_ns_count(v)) {
            free(b);
            return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                         "%s: ompbench.samples.busy_ns[%zu][%zu] is not a whole number of "
                         "nanoseconds below 2^64", ref->where, r, t);
        }
        b[t] = (uint64_t)json_number_value(v); /* in range: checked above */
    }
    *imbalance = ompb__round_imbalance(b, threads);
    free(b);
    return 0;
}

/* Mean imbalance from samples.busy_ns: [[busy of thread 0, 1, ...] per round]. */
static int read_busy(const json_t *busy, size_t rounds, const entry_ref *ref,
                     double *imbalance, ompb_error *err)
{
    if (!json_is_array(busy) || json_array_size(busy) != rounds)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"ompbench.samples.busy_ns\" is not an array of %zu rounds",
                     ref->where, rounds);
    double sum = 0.0;
    for (size_t r = 0; r < rounds; r++) {
        double one = 1.0;
        int rc = read_busy_round(json_array_get(busy, r), r, ref, &one, err);
        if (rc)
            return rc;
        sum += one;
    }
    *imbalance = sum / (double)rounds;
    return 0;
}

/* samples.clean, when the rounds were accounted: one boolean per round;
 * the clean rounds' median per-iteration time into rep. */
static int read_clean(const json_t *clean, const double *v, size_t n, const entry_ref *ref,
                      ompb__rf_rep *rep, ompb_error *err)
{
    rep->rounds = n;
    rep->clean_ns = NAN;
    if (!clean)
        return 0;
    if (!json_is_array(clean) || json_array_size(clean) != n)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"ompbench.samples.clean\" is not an array of %zu booleans (one "
                     "per round)", ref->where, n);
    double *kept = malloc((n ? n : 1) * sizeof *kept);
    if (!kept)
        return OMPB_ENOMEM;
    size_t k = 0;
    for (size_t r = 0; r < n; r++) {
        const json_t *b = json_array_get(clean, r);
        if (!json_is_boolean(b)) {
            free(kept);
            return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                         "%s: ompbench.samples.clean[%zu] is not a boolean", ref->where, r);
        }
        if (json_is_true(b))
            kept[k++] = v[r];
    }
    rep->accounted = true;
    rep->clean_rounds = k;
    rep->clean_ns = k ? median_of(kept, k) : NAN;
    free(kept);
    return 0;
}

/* One ompbench repetition: its rounds join the instance's samples, its
 * median is the repetition's value, its imbalance joins the sum. */
static int read_ompbench(const parts *p, const entry_ref *ref, ompb__rf_instance *in,
                         double *value, double *imbalance, ompb__rf_rep *rep, ompb_error *err)
{
    if (!json_is_object(p->samples))
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"ompbench.samples\" is missing or not an object", ref->where);
    size_t first = in->n_samples;
    int rc = read_makespans(p, ref, in, err);
    if (rc)
        return rc;
    *value = median_of(in->samples_ns + first, in->n_samples - first);
    rc = read_clean(p->clean, in->samples_ns + first, in->n_samples - first, ref, rep, err);
    if (rc)
        return rc;
    if (json_is_number(p->imbalance)) {
        *imbalance = json_number_value(p->imbalance);
        return 0;
    }
    *imbalance = NAN;
    return p->busy ? read_busy(p->busy, in->n_samples - first, ref, imbalance, err) : 0;
}

static int append_rep(ompb__rf_instance *in, double value, double imbalance, long long process,
                      long long index, unsigned marks, const ompb__rf_rep *clean)
{
    if (!ompb__grow((void **)&in->reps, &in->cap_reps, in->n_reps + 1, sizeof *in->reps, 8))
        return OMPB_ENOMEM;
    ompb__rf_rep rep = {value, imbalance, process, index, marks, false, 0, 0, NAN};
    if (clean) {
        rep.accounted = clean->accounted;
        rep.rounds = clean->rounds;
        rep.clean_rounds = clean->clean_rounds;
        rep.clean_ns = clean->clean_ns;
    }
    in->reps[in->n_reps++] = rep;
    in->marks |= marks;
    in->marked_reps += marks != 0;
    return 0;
}

/* "ompbench.code": where the body's code is, {"object": path, "address":
 * n}; the first repetition's that has one stands for the instance. */
static int read_code(const json_t *code, const entry_ref *ref, ompb__rf_instance *in,
                     ompb_error *err)
{
    const char *obj = NULL;
    json_int_t addr = -1;
    if (!code)
        return 0;
    if (json_unpack((json_t *)code, "{s:s, s:I}", "object", &obj, "address", &addr) != 0 ||
        !obj[0] || addr < 0)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label, "%s: \"ompbench.code\" is not {\"object\": "
                     "a path, \"address\": a non-negative integer}", ref->where);
    if (in->code_object)
        return 0;
    in->code_object = strdup(obj);
    in->code_address = (unsigned long long)addr;
    return in->code_object ? 0 : OMPB_ENOMEM;
}

/* "ompbench.marks": absent is no mark; anything but an array of strings is
 * refused, so a broken file is not read as an unmarked one. */
static int read_marks(const json_t *codes, const entry_ref *ref, unsigned *marks,
                      ompb_error *err)
{
    if (ompb__marks_of_json(codes, marks) == 0)
        return 0;
    return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                 "%s: \"ompbench.marks\" is not an array of mark codes (strings such as "
                 "\"oversubscribed\")", ref->where);
}

/* "repetitions" and "repetition_index" of one entry: the count must agree
 * with the earlier entries of the name, the index be new and below it. */
static int read_rep_place(const parts *p, const entry_ref *ref, ompb__rf_instance *in,
                          long long *index, ompb_error *err)
{
    long long reps = ompb__rf_positive(p->reps);
    const json_t *idx = p->index;
    if (reps < 0)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"repetitions\" is not a positive integer", ref->where);
    if (in->n_reps > 0 && reps != in->repetitions)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: mixed repetition counts: \"repetitions\" is %lld here, %lld in an "
                     "earlier entry of the same name", ref->where, reps, in->repetitions);
    in->repetitions = reps;
    *index = (long long)in->n_reps;
    if (idx && (!json_is_integer(idx) || json_integer_value(idx) < 0 ||
                (reps > 0 && json_integer_value(idx) >= reps)))
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"repetition_index\" is not an integer from 0 to \"repetitions\" - 1",
                     ref->where);
    if (idx)
        *index = json_integer_value(idx);
    for (size_t i = 0; i < in->n_reps; i++)
        if (in->reps[i].index == *index)
            return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                         "%s: the name occurs twice with repetition_index %lld", ref->where,
                         *index);
    return 0;
}

static int read_process(const json_t *v, const entry_ref *ref, long long *process,
                        ompb_error *err)
{
    *process = 0;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"ompbench.process\" is not a non-negative integer", ref->where);
    *process = json_integer_value(v);
    return 0;
}

/* One iteration entry: a repetition of in (new or not). The entries of one
 * name are all ompbench entries or all plain ones; once one repetition
 * failed the instance has no value, but its entries are still checked. */
/* The declared scaling kind and work rates, from the first repetition
 * that says: they belong to the benchmark, not to one repetition. */
static int read_scaling(const parts *p, const entry_ref *ref, ompb__rf_instance *in,
                        ompb_error *err)
{
    const json_t *k = p->scaling, *items = p->items, *bytes = p->bytes;
    const char *v = json_string_value(k);
    if (k && (!v || (strcmp(v, "weak") != 0 && strcmp(v, "strong") != 0)))
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label, "%s: \"ompbench.scaling\" is not "
                     "\"weak\" or \"strong\"", ref->where);
    if (v && in->scaling == OMPB__RF_SCALING_UNKNOWN)
        in->scaling = strcmp(v, "weak") == 0 ? OMPB__RF_SCALING_WEAK : OMPB__RF_SCALING_STRONG;
    if (isnan(in->items_per_second) && json_is_number(items))
        in->items_per_second = json_number_value(items);
    if (isnan(in->bytes_per_second) && json_is_number(bytes))
        in->bytes_per_second = json_number_value(bytes);
    return 0;
}

static int read_repetition(const json_t *e, const entry_ref *ref, ompb__rf_instance *in,
                           ompb_error *err)
{
    parts p;
    unpack_parts(e, &p);
    const json_t *omp = p.omp;
    long long index = 0, process = 0;
    unsigned marks = 0;
    int threads = 0;
    if (omp && !json_is_object(omp))
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label, "%s: \"ompbench\" is not an object",
                     ref->where);
    if (in->n_reps > 0 && in->rounds != (omp != NULL))
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: the name occurs twice, once with and once without \"ompbench\"",
                     ref->where);
    int rc = ompb__rf_read_threads(e, omp, ref, &threads, err);
    rc = rc ? rc : read_rep_place(&p, ref, in, &index, err);
    rc = rc ? rc : read_process(p.process, ref, &process, err);
    rc = rc ? rc : read_marks(p.marks, ref, &marks, err);
    rc = rc ? rc : read_scaling(&p, ref, in, err);
    rc = rc ? rc : read_code(p.code, ref, in, err);
    if (rc)
        return rc;
    if (in->n_reps == 0)
        in->threads = threads;
    in->rounds = omp != NULL;
    if (json_is_true(p.error)) {
        if (!in->failed && (rc = ompb__rf_read_failure(e, in)))
            return rc;
        return append_rep(in, NAN, NAN, process, index, marks, NULL);
    }
    double real_ns = 0.0, value = NAN, imbalance = NAN;
    ompb__rf_rep clean = {.clean_ns = NAN};
    if ((rc = ompb__rf_read_real_time(e, ref, &real_ns, err)))
        return rc;
    if (omp)
        rc = read_ompbench(&p, ref, in, &value, &imbalance, &clean, err);
    else
        rc = append_sample(in, (value = real_ns));
    if (rc)
        return rc;
    if (in->failed) {
        ompb__rf_drop_samples(in);
        value = imbalance = NAN;
        clean = (ompb__rf_rep){.clean_ns = NAN};
    }
    return append_rep(in, value, imbalance, process, index, marks, &clean);
}

static void instance_release(ompb__rf_instance *in)
{
    free(in->name);
    free(in->code_object);
    free(in->reps);
    free(in->samples_ns);
    free(in->error_message);
}

static ompb__rf_instance *find_mut(ompb__resultfile *rf, const char *name)
{
    return (ompb__rf_instance *)ompb__resultfile_find(rf, name);
}

/* "iteration" (or absent: files older than run_type) is read, "aggregate"
 * skipped; anything else is not Google Benchmark JSON. */
static int check_run_type(const json_t *rt, const entry_ref *ref, bool *skip, ompb_error *err)
{
    const char *s = json_is_string(rt) ? json_string_value(rt) : NULL;
    *skip = s && strcmp(s, "aggregate") == 0;
    if (!rt || *skip || (s && strcmp(s, "iteration") == 0))
        return 0;
    return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                 "%s: \"run_type\" is %s%s%s (accepted: iteration, aggregate)", ref->where,
                 s ? "\"" : "", s ? s : "not a string", s ? "\"" : "");
}

static int read_entry(const json_t *e, size_t idx, const char *label, ompb__resultfile *rf,
                      ompb_error *err)
{
    entry_ref ref = {label, ""};
    json_t *name = NULL, *rt = NULL;
    /* Fails only on a non-object e, refused below; the types are checked here. */
    (void)json_unpack((json_t *)e, "{s?o, s?o}", "name", &name, "run_type", &rt);
    if (!json_is_object(e) || !json_is_string(name) || !json_string_value(name)[0])
        return ompb__rf_failf(err, OMPB_EINVAL, label,
                     "benchmarks[%zu] is not an object with a non-empty \"name\"", idx);
    ompb__rf_set_where(&ref, idx, json_string_value(name));
    bool skip;
    int rc = check_run_type(rt, &ref, &skip, err);
    if (rc || skip)
        return rc;
    ompb__rf_instance *in = find_mut(rf, json_string_value(name));
    if (!in && (rc = ompb__rf_new_instance(rf, json_string_value(name), &in)))
        return rc;
    return read_repetition(e, &ref, in, err);
}

/* Median of the repetitions' values; NAN when out of memory. */
bool ompb__rf_rep_clean(const ompb__rf_rep *rep)
{
    return rep->accounted && rep->clean_rounds > 0 &&
           (rep->clean_rounds >= OMPB__CLEAN_MIN_ROUNDS || rep->clean_rounds == rep->rounds) &&
           rep->clean_ns > 0.0 && isfinite(rep->clean_ns);
}

static double median_of_reps(const ompb__rf_instance *in)
{
    double *v = malloc((in->n_reps ? in->n_reps : 1) * sizeof *v);
    if (!v)
        return NAN;
    for (size_t i = 0; i < in->n_reps; i++)
        v[i] = in->reps[i].value_ns;
    double m = in->n_reps ? median_of(v, in->n_reps) : NAN;
    free(v);
    return m;
}

/* Every repetition a count announced must be there: a file cut short or
 * assembled by hand would otherwise pass for fewer, tighter runs. */
static int check_counts(const ompb__resultfile *rf, const char *label, ompb_error *err)
{
    for (size_t i = 0; i < rf->n; i++) {
        const ompb__rf_instance *in = &rf->inst[i];
        if (in->repetitions > 0 && (size_t)in->repetitions != in->n_reps)
            return ompb__rf_failf(err, OMPB_EINVAL, label,
                         "\"%.100s\" holds %zu of its %lld repetitions (\"repetitions\" says %lld)",
                         in->name, in->n_reps, in->repetitions, in->repetitions);
    }
    return 0;
}

/* The value of an instance is the median of its repetitions' values; a
 * single Google Benchmark run is one value, not a sample to test. */
static void settle_repetitions(ompb__resultfile *rf)
{
    for (size_t i = 0; i < rf->n; i++) {
        ompb__rf_instance *in = &rf->inst[i];
        if (in->failed)
            continue;
        in->value_ns = median_of_reps(in);
        /* The mean of the repetitions' imbalances, over those that say. */
        double sum = 0.0;
        size_t k = 0;
        for (size_t r = 0; r < in->n_reps; r++)
            if (!isnan(in->reps[r].imbalance)) {
                sum += in->reps[r].imbalance;
                k++;
            }
        in->imbalance = k ? sum / (double)k : NAN;
        if (in->rounds || in->n_samples >= 2)
            continue;
        ompb__rf_drop_samples(in);
    }
}

/* The top-level keys the reader uses, NULL when absent; each type is
 * checked where it is read. */
typedef struct root_keys {
    json_t *context, *benchmarks, *creator, *instrument;
} root_keys;

static int check_context(const json_t *ctx, const char *label, ompb_error *err)
{
    json_t *ver = NULL;
    if (!ctx)
        return 0;
    if (!json_is_object(ctx))
        return ompb__rf_failf(err, OMPB_EINVAL, label, "\"context\" is not an object");
    (void)json_unpack((json_t *)ctx, "{s?o}", "json_schema_version", &ver);
    if (ver && (!json_is_integer(ver) || json_integer_value(ver) != OMPB__JSON_SCHEMA_VERSION))
        return ompb__rf_failf(err, OMPB_EINVAL, label,
                     "unsupported \"context.json_schema_version\" (accepted: %d)",
                     OMPB__JSON_SCHEMA_VERSION);
    return 0;
}

static int check_root(const json_t *root, const root_keys *t, const char *label, ompb_error *err)
{
    if (!json_is_object(root))
        return ompb__rf_failf(err, OMPB_EINVAL, label,
                     "the top level is not an object (expected {\"context\", \"benchmarks\"})");
    if (t->creator && t->instrument)
        return ompb__rf_failf(err, OMPB_EINVAL, label,
                     "this is a CodSpeed runner results file, not a benchmark result "
                     "(write one with --format json)");
    if (!json_is_array(t->benchmarks))
        return ompb__rf_failf(err, OMPB_EINVAL, label,
                     "no \"benchmarks\" array: not an ompbench or Google Benchmark JSON "
                     "result");
    return check_context(t->context, label, err);
}

static int read_root(json_t *root, const char *label, ompb__resultfile *rf,
                     ompb_error *err)
{
    root_keys t = {NULL, NULL, NULL, NULL};
    /* Fails only on a non-object root, which check_root refuses. */
    (void)json_unpack(root, "{s?o, s?o, s?o, s?o}", "context", &t.context, "benchmarks",
                      &t.benchmarks, "creator", &t.creator, "instrument", &t.instrument);
    int rc = check_root(root, &t, label, err);
    if (rc)
        return rc;
    size_t i;
    json_t *e;
    json_array_foreach(t.benchmarks, i, e) {
        if ((rc = read_entry(e, i, label, rf, err)))
            return rc;
    }
    if ((rc = check_counts(rf, label, err)))
        return rc;
    settle_repetitions(rf);
    if ((rc = ompb__rf_read_aggregates(t.benchmarks, label, rf, err)))
        return rc;
    if (rf->n == 0)
        return ompb__rf_failf(err, OMPB_EINVAL, label,
                     "no benchmark results: \"benchmarks\" holds no iteration entry and "
                     "no \"median\" or \"mean\" aggregate with a \"run_name\"");
    rf->context = json_incref(t.context);
    return (rf->path = strdup(label)) ? 0 : OMPB_ENOMEM;
}

static int from_json(json_t *root, const json_error_t *jerr, const char *label,
                     ompb__resultfile *rf, ompb_error *err)
{
    memset(rf, 0, sizeof *rf);
    if (!root)
        return ompb__rf_failf(err, OMPB_EINVAL, label,
                     "not valid JSON (truncated?) at line %d, column %d: %s", jerr->line,
                     jerr->column, jerr->text);
    int rc = read_root(root, label, rf, err);
    json_decref(root);
    if (rc) {
        if (rc == OMPB_ENOMEM)
            ompb__rf_failf(err, rc, label, "out of memory");
        ompb__resultfile_free(rf);
    }
    return rc;
}

int ompb__resultfile_parse(const char *text, const char *label, ompb__resultfile *rf,
                           ompb_error *err)
{
    json_error_t jerr;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    return from_json(root, &jerr, label, rf, err);
}

int ompb__resultfile_load(const char *path, ompb__resultfile *rf, ompb_error *err)
{
    memset(rf, 0, sizeof *rf);
    FILE *fp = fopen(path, "r");
    struct stat st;
    if (!fp)
        return ompb__rf_failf(err, OMPB_EIO, path, "cannot open: %s", strerror(errno));
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        return ompb__rf_failf(err, OMPB_EIO, path, "is a directory, expected a JSON result file");
    }
    json_error_t jerr;
    json_t *root = json_loadf(fp, JSON_REJECT_DUPLICATES, &jerr);
    fclose(fp);
    return from_json(root, &jerr, path, rf, err);
}

void ompb__resultfile_free(ompb__resultfile *rf)
{
    for (size_t i = 0; i < rf->n; i++)
        instance_release(&rf->inst[i]);
    free(rf->inst);
    free(rf->path);
    json_decref(rf->context);
    ompb__name_index_free(&rf->index);
    memset(rf, 0, sizeof *rf);
}

