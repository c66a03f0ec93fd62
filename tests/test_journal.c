/* SPDX-License-Identifier: MIT */
/* Journal: repetitions appended as they complete and read back whole, the
 * crash line a handler finishes (naming the slot running, or none), a
 * journal left behind never overwritten, a last line cut mid-write skipped
 * (and said), a malformed line refused in one line after the records
 * before it. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ompbench/bench.h>
#include <ompbench/error.h>

#include "model/record.h"
#include "model/registry.h"
#include "run/journal.h"
#include "suite.h"

#define ROUNDS 3
#define THREADS 2

static void body(ompb_state *s) { (void)s; }

static const ompb_benchmark bench = {.name = "crash", .file = "tests/x.c", .fn = body};
static ompb__instance inst[2];

static void make_instances(void)
{
    memset(inst, 0, sizeof inst);
    for (int i = 0; i < 2; i++) {
        inst[i].bench = &bench;
        inst[i].threads = THREADS;
        snprintf(inst[i].name, sizeof inst[i].name, "crash[%d, \"t\"=2]", i + 1);
    }
}

static void make_record(ompb__record *rec, const ompb__instance *in, uint32_t rep)
{
    memset(rec, 0, sizeof *rec);
    CU_ASSERT_EQUAL_FATAL(ompb__record_alloc(rec, ROUNDS, THREADS), 0);
    rec->inst = in;
    rec->threads = THREADS;
    rec->rounds = ROUNDS;
    rec->sampling = (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = THREADS,
                                     .rounds = ROUNDS, .repetition = rep, .repetitions = 2};
    rec->sample_size = 100 + rep;
    for (size_t r = 0; r < ROUNDS; r++) {
        rec->start_ns[r] = 1000 * (r + 1);
        rec->end_ns[r] = rec->start_ns[r] + 500 + rep;
    }
}

typedef struct taken {
    size_t n, instance[8];
    uint64_t sample_size[8];
} taken;

static int take(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    (void)err;
    taken *t = arg;
    if (t->n < 8) {
        t->instance[t->n] = instance;
        t->sample_size[t->n] = rec->sample_size;
    }
    t->n++;
    ompb__record_free(rec);
    return 0;
}

/* A journal of two records in dir, the second slot crashed when `crash`. */
static void write_journal(const char *path, bool crash)
{
    ompb__journal j;
    ompb_error err = {0};
    char *argv[] = {"bench", "--output", "r.json"};
    CU_ASSERT_EQUAL_FATAL(ompb__journal_open(&j, path, false, 42, 3, argv, &err), 0);
    for (uint32_t k = 0; k < 2; k++) {
        ompb__record rec;
        make_record(&rec, &inst[k], k);
        ompb__journal_slot(&j, k, inst[k].name, k);
        CU_ASSERT_EQUAL(ompb__journal_add(&j, &rec, k), 0);
        ompb__record_free(&rec);
    }
    ompb__journal_slot(&j, 1, inst[1].name, 1);
    if (crash)
        ompb__journal_crash(&j, SIGSEGV);
    ompb__journal_close(&j, true);
}

/* A crash after a slot's record is in names no instance: that record is
 * whole, not the crash's. */
static void test_crash_between_slots(void)
{
    char dir[] = "/tmp/ompb-journal-XXXXXX", path[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r.json.journal", dir);
    make_instances();
    ompb__journal j;
    ompb_error err = {0};
    char *argv[] = {"bench"};
    CU_ASSERT_EQUAL_FATAL(ompb__journal_open(&j, path, false, 1, 1, argv, &err), 0);
    ompb__record rec;
    make_record(&rec, &inst[0], 0);
    ompb__journal_slot(&j, 0, inst[0].name, 0);
    CU_ASSERT_EQUAL(ompb__journal_add(&j, &rec, 0), 0);
    ompb__record_free(&rec);
    ompb__journal_crash(&j, SIGABRT);
    ompb__journal_close(&j, true);
    taken t = {0};
    ompb__journal_info info;
    CU_ASSERT_EQUAL(ompb__journal_read(path, inst, 2, take, &t, &info, &err), 0);
    CU_ASSERT_EQUAL(t.n, 1);
    CU_ASSERT_EQUAL(info.crash_signal, SIGABRT);
    CU_ASSERT_EQUAL(info.crash_instance, SIZE_MAX);
    unlink(path);
    rmdir(dir);
}

static void test_round_trip(void)
{
    char dir[] = "/tmp/ompb-journal-XXXXXX", path[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r.json.journal", dir);
    make_instances();
    write_journal(path, true);
    taken t = {0};
    ompb__journal_info info;
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__journal_read(path, inst, 2, take, &t, &info, &err), 0);
    CU_ASSERT_EQUAL(t.n, 2);
    CU_ASSERT_EQUAL(t.instance[1], 1);
    CU_ASSERT_EQUAL(t.sample_size[1], 101);
    CU_ASSERT_EQUAL(info.records, 2);
    CU_ASSERT_EQUAL(info.seed, 42);
    CU_ASSERT_FALSE(info.truncated);
    CU_ASSERT_EQUAL(info.crash_signal, SIGSEGV);
    CU_ASSERT_EQUAL(info.crash_instance, 1);
    CU_ASSERT_EQUAL(info.crash_repetition, 1);
    CU_ASSERT_EQUAL(info.lost_instance, SIZE_MAX); /* the crash line names it */
    /* A journal left behind is never overwritten. */
    ompb__journal j;
    char *argv[] = {"bench"};
    CU_ASSERT_EQUAL(ompb__journal_open(&j, path, false, 1, 1, argv, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "a journal left by a run that did not end"));
    /* Without --output: a name of its own, whatever is there already. */
    char tmpl[80];
    snprintf(tmpl, sizeof tmpl, "%s/ompbench.1.XXXXXX" OMPB__JOURNAL_SUFFIX, dir);
    CU_ASSERT_EQUAL_FATAL(ompb__journal_open(&j, tmpl, true, 1, 1, argv, &err), 0);
    CU_ASSERT_STRING_NOT_EQUAL(j.path, tmpl);
    CU_ASSERT_EQUAL(access(j.path, F_OK), 0);
    ompb__journal_close(&j, false);
    CU_ASSERT_NOT_EQUAL(access(j.path, F_OK), 0);
    /* Another selection's journal is refused, naming the line. */
    ompb__instance other[2];
    memcpy(other, inst, sizeof other);
    snprintf(other[1].name, sizeof other[1].name, "else");
    CU_ASSERT_EQUAL(ompb__journal_read(path, other, 2, take, &t, &info, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "line 4: \"started\" names another instance"));
    unlink(path);
    rmdir(dir);
}

static void test_cut_and_malformed(void)
{
    char dir[] = "/tmp/ompb-journal-XXXXXX", path[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r.json.journal", dir);
    make_instances();
    write_journal(path, false);
    /* Cut in the middle of the second record, as a SIGKILL mid-write. */
    FILE *fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char text[16384];
    size_t len = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[len] = '\0';
    char *second = strstr(strstr(text, "{\"record\"") + 1, "{\"record\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(second);
    CU_ASSERT_EQUAL_FATAL(truncate(path, (second - text) + 30), 0);
    taken t = {0};
    ompb__journal_info info;
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__journal_read(path, inst, 2, take, &t, &info, &err), 0);
    CU_ASSERT_EQUAL(t.n, 1);
    CU_ASSERT_TRUE(info.truncated);
    CU_ASSERT_EQUAL(info.crash_signal, 0);
    /* Its started line is whole and its record is not: it was running. */
    CU_ASSERT_EQUAL(info.lost_instance, 1);
    CU_ASSERT_EQUAL(info.lost_repetition, 1);
    /* A whole line that is not a record: refused after the one before it. */
    fp = fopen(path, "a");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("\n{\"record\": 1}\n", fp);
    fclose(fp);
    t.n = 0;
    CU_ASSERT_EQUAL(ompb__journal_read(path, inst, 2, take, &t, &info, &err), OMPB_EINVAL);
    CU_ASSERT_EQUAL(t.n, 1);
    CU_ASSERT_PTR_NULL(strchr(err.text, '\n'));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "r.json.journal: line 5"));
    /* Not a journal at all, and an empty file. */
    fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\"benchmarks\": []}\n", fp);
    fclose(fp);
    CU_ASSERT_EQUAL(ompb__journal_read(path, inst, 2, take, &t, &info, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "line 1: not an ompbench journal"));
    CU_ASSERT_EQUAL_FATAL(truncate(path, 0), 0);
    CU_ASSERT_EQUAL(ompb__journal_read(path, inst, 2, take, &t, &info, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "not an ompbench journal (empty)"));
    unlink(path);
    rmdir(dir);
}

static const ompb_test_case cases[] = {
    {"round_trip", test_round_trip},
    {"cut_and_malformed", test_cut_and_malformed},
    {"crash_between_slots", test_crash_between_slots},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_journal = {"journal", NULL, NULL, cases};
