/* SPDX-License-Identifier: MIT */
/*
 * The benchmark registry. OMPB_BENCH registers descriptors from constructors,
 * before main(), in link order; expansion turns each descriptor into its
 * instances (argument x thread count) with names that stay the same from run
 * to run, so results can be compared by name.
 */
#include "model/registry.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

static const ompb_benchmark **benches;
static size_t n_benches, cap_benches;
/* What OMPB_BENCH noted about the translation units of descriptors: built
 * without optimization (ompb_note_unoptimized), without OpenMP
 * (ompb_note_no_openmp). Few, so a list searched linearly. */
enum { NOTE_UNOPTIMIZED = 1u, NOTE_NO_OPENMP = 2u };
typedef struct build_note {
    const ompb_benchmark *bench;
    unsigned what;
} build_note;
static build_note *notes;
static size_t n_notes, cap_notes;
/* The first rejected registration: constructors cannot report, so
 * ompb_main() does (exit 2). */
static char first_error[256];

static int reject(const ompb_benchmark *b, const char *why)
{
    if (!first_error[0])
        snprintf(first_error, sizeof first_error, "benchmark '%s' (%s): %s",
                 b && b->name ? b->name : "(null)", b && b->file ? b->file : "?", why);
    return OMPB_EINVAL;
}

static int validate(const ompb_benchmark *b)
{
    if (!b || !b->name || !b->name[0] || !b->fn)
        return reject(b, "a benchmark needs a name and a body");
    /* Names and files end up in JSON and in runner frames, both UTF-8. */
    if (!ompb__utf8_valid(b->name, strlen(b->name))
        || (b->file && !ompb__utf8_valid(b->file, strlen(b->file))))
        return reject(b, "name and file must be valid UTF-8");
    if (b->n_args && !b->args && !b->tuples)
        return reject(b, "n_args is set but there is no argument list");
    if (b->tuples && (b->arity < 1 || b->arity > OMPB_MAX_ARITY))
        return reject(b, "tuple arity must be 1 to 4 (OMPB_TUPLES(arity, ...))");
    if (b->n_threads && !b->threads)
        return reject(b, "n_threads is set but there is no thread list");
    for (size_t i = 0; i < b->n_threads; i++)
        if (b->threads[i] < 1 || b->threads[i] > OMPB__MAX_THREADS)
            return reject(b, "thread counts must be 1 to " OMPB__STR(OMPB__MAX_THREADS) " (OMPB_THREADS)");
    /* The engine's counters and --sample-size share this limit; a larger
     * fixed size would run for ages, or overflow, before anyone noticed. */
    if (b->sample_size > OMPB__MAX_SAMPLE_SIZE)
        return reject(b, ".sample_size must be 0 (calibrate) to 2^40 = 1099511627776 "
                      "(OMPB__MAX_SAMPLE_SIZE)");
    if (b->scaling != OMPB_SCALING_AUTO && b->scaling != OMPB_SCALING_STRONG
        && b->scaling != OMPB_SCALING_WEAK)
        return reject(b, ".scaling must be OMPB_SCALING_AUTO, OMPB_SCALING_STRONG or "
                      "OMPB_SCALING_WEAK");
    return 0;
}

const char *ompb__registry_error(void)
{
    return first_error[0] ? first_error : NULL;
}

int ompb_register(const ompb_benchmark *bench)
{
    if (validate(bench) != 0)
        return OMPB_EINVAL;
    if (!ompb__grow((void **)&benches, &cap_benches, n_benches + 1, sizeof *benches, 64))
        return OMPB_ENOMEM;
    benches[n_benches++] = bench;
    return 0;
}

static unsigned noted(const ompb_benchmark *bench)
{
    for (size_t i = 0; i < n_notes; i++)
        if (notes[i].bench == bench)
            return notes[i].what;
    return 0;
}

static void note(const ompb_benchmark *bench, unsigned what)
{
    /* A rejected or unknown descriptor has no instance to mark. Out of
     * memory loses the note only, never the benchmark. */
    bool known = false;
    for (size_t i = n_benches; i > 0 && !known; i--)
        known = benches[i - 1] == bench;
    if (!known)
        return;
    for (size_t i = 0; i < n_notes; i++)
        if (notes[i].bench == bench) {
            notes[i].what |= what;
            return;
        }
    if (!ompb__grow((void **)&notes, &cap_notes, n_notes + 1, sizeof *notes, 8))
        return;
    notes[n_notes++] = (build_note){bench, what};
}

void ompb_note_unoptimized(const ompb_benchmark *bench)
{
    note(bench, NOTE_UNOPTIMIZED);
}

void ompb_note_no_openmp(const ompb_benchmark *bench)
{
    note(bench, NOTE_NO_OPENMP);
}

bool ompb__registry_unoptimized(const ompb_benchmark *bench)
{
    return noted(bench) & NOTE_UNOPTIMIZED;
}

bool ompb__registry_no_openmp(const ompb_benchmark *bench)
{
    return noted(bench) & NOTE_NO_OPENMP;
}

size_t ompb__registry_count(void)
{
    return n_benches;
}

const ompb_benchmark *ompb__registry_get(size_t i)
{
    return i < n_benches ? benches[i] : NULL;
}

void ompb__registry_clear(void)
{
    first_error[0] = '\0';
    free(benches);
    benches = NULL;
    n_benches = cap_benches = 0;
    free(notes);
    notes = NULL;
    n_notes = cap_notes = 0;
}

const char *ompb__uri_file(const char *file)
{
    if (!file)
        return "unknown";
    if (file[0] != '/')
        return file;
    /* Absolute path (no -fmacro-prefix-map): keep the last two components,
     * which is "benches/x.c" for the usual layout. */
    const char *last = strrchr(file, '/');
    const char *p = last;
    while (p > file && p[-1] != '/')
        p--;
    return p > file ? p : last + 1;
}

/* Appends text, with an optional int64 in it, to buf at *pos; returns -1
 * once it no longer fits. */
static int append(char *buf, size_t len, size_t *pos, const char *fmt, int64_t v)
{
    if (*pos >= len)
        return -1;
    int w = strchr(fmt, '%') ? snprintf(buf + *pos, len - *pos, fmt, v)
                             : snprintf(buf + *pos, len - *pos, "%s", fmt);
    if (w < 0 || (size_t)w >= len - *pos)
        return -1;
    *pos += (size_t)w;
    return 0;
}

int ompb__instance_format_name(const ompb__instance *inst, int ranks, char *buf, size_t len)
{
    int bad = 0;
    int w = snprintf(buf, len, "%s", inst->bench->name);
    if (w < 0 || (size_t)w >= len)
        return OMPB_EINVAL;
    size_t pos = (size_t)w;
    /* A distributed run names the rank count, and then always the threads
     * per rank too, so that runs at other shapes line up (name[r=2, t=4]). */
    if (inst->arity == 0 && !inst->thread_variant && ranks == 0)
        return 0;
    bad |= append(buf, len, &pos, "[", 0);
    if (inst->arity == 1) {
        bad |= append(buf, len, &pos, "%" PRId64, inst->argv[0]);
    } else if (inst->arity > 1) {
        for (int k = 0; k < inst->arity; k++)
            bad |= append(buf, len, &pos, k ? ", %" PRId64 : "(%" PRId64, inst->argv[k]);
        bad |= append(buf, len, &pos, ")", 0);
    }
    if (ranks > 0)
        bad |= append(buf, len, &pos, inst->arity ? ", r=%" PRId64 : "r=%" PRId64, ranks);
    if (inst->thread_variant || ranks > 0)
        bad |= append(buf, len, &pos, inst->arity || ranks ? ", t=%" PRId64 : "t=%" PRId64,
                      inst->threads);
    bad |= append(buf, len, &pos, "]", 0);
    return bad ? OMPB_EINVAL : 0;
}

static int fill_instance(ompb__instance *inst, const ompb_benchmark *b, size_t arg,
                         int threads, int variant, int ranks)
{
    memset(inst, 0, sizeof *inst);
    inst->bench = b;
    inst->threads = threads;
    inst->thread_variant = variant;
    inst->unoptimized = ompb__registry_unoptimized(b);
    inst->no_openmp = ompb__registry_no_openmp(b);
    if (b->n_args > 0) {
        if (b->tuples) {
            inst->arity = b->arity < 1 ? 1 : b->arity > OMPB_MAX_ARITY ? OMPB_MAX_ARITY : b->arity;
            memcpy(inst->argv, b->tuples[arg], sizeof(int64_t) * (size_t)inst->arity);
        } else if (b->args) {
            inst->arity = 1;
            inst->argv[0] = b->args[arg];
        }
    }
    if (ompb__instance_format_name(inst, ranks, inst->name, sizeof inst->name) != 0)
        return OMPB_EINVAL;
    int w = snprintf(inst->uri, sizeof inst->uri, "%s::%s", ompb__uri_file(b->file), inst->name);
    return w < 0 || (size_t)w >= sizeof inst->uri ? OMPB_EINVAL : 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp((*(const ompb__instance *const *)a)->name, (*(const ompb__instance *const *)b)->name);
}

/* Names must be unique: results, URIs and comparisons are keyed by name. */
static const char *find_duplicate(ompb__instance *list, size_t n)
{
    ompb__instance **sorted = malloc((n ? n : 1) * sizeof *sorted);
    const char *dup = NULL;
    if (!sorted)
        return NULL;
    for (size_t i = 0; i < n; i++)
        sorted[i] = &list[i];
    qsort(sorted, n, sizeof *sorted, cmp_name);
    for (size_t i = 1; i < n && !dup; i++)
        if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0)
            dup = sorted[i]->name;
    free(sorted);
    return dup;
}

int ompb__instances_expand(const int *threads, size_t n_threads, int default_threads,
                           int ranks, ompb__instance **out, size_t *n, ompb_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < n_benches; i++) {
        const ompb_benchmark *b = benches[i];
        size_t nt = n_threads ? n_threads : b->n_threads ? b->n_threads : 1;
        total += (b->n_args ? b->n_args : 1) * nt;
    }
    ompb__instance *list = calloc(total ? total : 1, sizeof *list);
    if (!list)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n_benches; i++) {
        const ompb_benchmark *b = benches[i];
        const int *tl = n_threads ? threads : b->n_threads ? b->threads : &default_threads;
        size_t nt = n_threads ? n_threads : b->n_threads ? b->n_threads : 1;
        int variant = n_threads > 0 || b->n_threads > 0;
        size_t na = b->n_args ? b->n_args : 1, fi = 0;
        for (size_t a = 0; a < na; a++) {
            for (size_t t = 0; t < nt; t++, k++, fi++) {
                if (fill_instance(&list[k], b, a, tl[t], variant, ranks) != 0) {
                    free(list);
                    return ompb__error_set(err, OMPB_EINVAL, "benchmark '%s': instance name longer "
                                           "than %d bytes", b->name, OMPB__NAME_MAX - 1);
                }
                list[k].family_index = i;
                list[k].family_instance = fi;
            }
        }
    }
    const char *dup = find_duplicate(list, total);
    if (dup) {
        ompb__error_set(err, OMPB_EINVAL, "two instances are named '%s' (repeated argument, thread "
                        "count or benchmark name; names must be unique)", dup);
        free(list);
        return OMPB_EINVAL;
    }
    *out = list;
    *n = total;
    return 0;
}
