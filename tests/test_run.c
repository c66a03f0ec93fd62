/* SPDX-License-Identifier: MIT */
/*
 * The run's agreement across ranks (lib/run/run_ranks.c), without MPI: a fake
 * distribution of two ranks plays them one after the other in this
 * process. Rank 1 agrees first, and the fake keeps what it sent; then rank
 * 0 agrees, and the fake's maximum combines both, as the real reduction
 * does. Checked: every decision (go on, the highest failure, a rank that
 * stopped early while others would run, ranks that would run different
 * things, all stopping early) on rank 0, with the rank named in the
 * message, and a held message printed once.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ompbench/distribution.h>
#include <ompbench/run.h>

#include "run/run.h"
#include "suite.h"

#define MAX_FIELDS 16

/* What the rank that agreed first sent to the maximum, for the second's. */
static struct {
    int64_t first[MAX_FIELDS];
    int n, calls;
    bool have;
} fk;

static int fake_max(void *ctx, int64_t *v, int n, uint64_t hint)
{
    (void)ctx;
    (void)hint;
    CU_ASSERT_FATAL(n <= MAX_FIELDS);
    fk.calls++;
    if (!fk.have) {
        memcpy(fk.first, v, (size_t)n * sizeof *v);
        fk.n = n;
        fk.have = true;
        return 0;
    }
    CU_ASSERT_EQUAL(n, fk.n);
    for (int i = 0; i < n && i < fk.n; i++)
        v[i] = fk.first[i] > v[i] ? fk.first[i] : v[i];
    return 0;
}

static int fake_gather(void *ctx, const void *send, size_t bytes, void *recv)
{
    (void)ctx;
    (void)send;
    (void)bytes;
    (void)recv;
    return 0;
}

static void fake_abort(void *ctx, int status)
{
    (void)ctx;
    fprintf(stderr, "fake distribution: abort %d\n", status);
    abort();
}

/* What ompb__run_agree returns on rank `rank` and writes to stderr (into
 * said), for that rank's prepare status; reps shapes its run hash. A rank
 * other than 0 that failed holds its message, as ompb__run_usage_error
 * leaves it. */
static int agree_as(int rank, int status, uint32_t reps, char *said, size_t len)
{
    ompb__run r;
    memset(&r, 0, sizeof r);
    r.argv0 = "bench";
    r.cfg.repetitions = reps;
    if (status == OMPB_EXIT_USAGE && rank != 0)
        snprintf(r.held_error, sizeof r.held_error, "bench: rank %d: bad option", rank);
    ompb_distribution d = {.rank = rank, .size = 2, .max_i64 = fake_max,
                           .gather = fake_gather, .abort = fake_abort};
    CU_ASSERT_EQUAL_FATAL(ompb_set_distribution(&d), 0);
    fflush(stderr);
    FILE *tmp = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
    int saved = dup(STDERR_FILENO);
    dup2(fileno(tmp), STDERR_FILENO);
    int rc = ompb__run_agree(&r, status);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(tmp);
    size_t n = fread(said, 1, len - 1, tmp);
    said[n] = '\0';
    fclose(tmp);
    ompb_set_distribution(NULL);
    CU_ASSERT_STRING_EQUAL(r.held_error, ""); /* said or dropped, never kept */
    return rc;
}

/* The other rank says (status1, reps1) first, then this rank (rank,
 * status, reps): this rank's answer and message. */
static int agree(int status1, uint32_t reps1, int rank, int status, uint32_t reps, char *said,
                 size_t len)
{
    char ignored[512];
    memset(&fk, 0, sizeof fk);
    (void)agree_as(1 - rank, status1, reps1, ignored, sizeof ignored);
    return agree_as(rank, status, reps, said, len);
}

static void test_agreement(void)
{
    char said[1024];
    /* Both would run the same: go on, silently. */
    CU_ASSERT_EQUAL(agree(-1, 1, 0, -1, 1, said, sizeof said), -1);
    CU_ASSERT_STRING_EQUAL(said, "");
    CU_ASSERT_EQUAL(fk.calls, 2);
    /* The other rank failed: its status everywhere, the highest one. */
    CU_ASSERT_EQUAL(agree(OMPB_EXIT_USAGE, 1, 0, -1, 1, said, sizeof said), OMPB_EXIT_USAGE);
    CU_ASSERT_EQUAL(agree(OMPB_EXIT_FAILED, 1, 0, OMPB_EXIT_USAGE, 1, said, sizeof said),
                    OMPB_EXIT_USAGE);
    CU_ASSERT_EQUAL(agree(OMPB_EXIT_USAGE, 1, 0, OMPB_EXIT_FAILED, 1, said, sizeof said),
                    OMPB_EXIT_USAGE);
    /* Rank 1 stopped early (--list) while rank 0 would run: exit 2, and
     * rank 0 names rank 1; the other way round, rank 0 names itself. */
    CU_ASSERT_EQUAL(agree(OMPB_EXIT_OK, 1, 0, -1, 1, said, sizeof said), OMPB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(said, "bench: the 2 ranks disagree: rank 1 stopped early"));
    CU_ASSERT_EQUAL(agree(-1, 1, 0, OMPB_EXIT_OK, 1, said, sizeof said), OMPB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(said, "bench: the 2 ranks disagree: rank 0 stopped early"));
    /* Rank 1 answers the same, and only rank 0 speaks. */
    CU_ASSERT_EQUAL(agree(-1, 1, 1, OMPB_EXIT_OK, 1, said, sizeof said), OMPB_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(said, "");
    /* Both stopped early: done, exit 0. */
    CU_ASSERT_EQUAL(agree(OMPB_EXIT_OK, 1, 0, OMPB_EXIT_OK, 1, said, sizeof said), OMPB_EXIT_OK);
    /* Different runs (another --repetitions): exit 2, one message. */
    CU_ASSERT_EQUAL(agree(-1, 3, 0, -1, 1, said, sizeof said), OMPB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(said, "bench: the 2 ranks disagree on the instances or on "
                                        "the options that shape their rounds"));
}

/* A rank other than 0 holds its message until the agreement: it prints it
 * when rank 0 printed none, and drops it when rank 0 said its own. */
static void test_held_message(void)
{
    char said[1024];
    CU_ASSERT_EQUAL(agree(-1, 1, 1, OMPB_EXIT_USAGE, 1, said, sizeof said), OMPB_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(said, "bench: rank 1: bad option\n");
    CU_ASSERT_EQUAL(agree(OMPB_EXIT_OK, 1, 1, OMPB_EXIT_USAGE, 1, said, sizeof said),
                    OMPB_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(said, "bench: rank 1: bad option\n");
    CU_ASSERT_EQUAL(agree(OMPB_EXIT_USAGE, 1, 1, OMPB_EXIT_USAGE, 1, said, sizeof said),
                    OMPB_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(said, "");
}

static const ompb_test_case cases[] = {
    {"agreement", test_agreement},
    {"held_message", test_held_message},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_run = {"run", NULL, NULL, cases};
