/* SPDX-License-Identifier: MIT */
/*
 * The shared test fixtures (tests/fixtures.h). They assert through CUnit,
 * so they are called only from inside a test.
 */
#include "fixtures.h"

#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

ompb__instance ompb_test_instance(const ompb_benchmark *b, int threads)
{
    ompb__instance inst;
    memset(&inst, 0, sizeof inst);
    inst.bench = b;
    inst.threads = threads;
    snprintf(inst.name, sizeof inst.name, "%s", b->name);
    snprintf(inst.uri, sizeof inst.uri, "tests::%s", b->name);
    return inst;
}

ompb__instance ompb_test_instance_named(const char *name, const char *uri)
{
    ompb__instance inst;
    memset(&inst, 0, sizeof inst);
    snprintf(inst.name, sizeof inst.name, "%s", name);
    snprintf(inst.uri, sizeof inst.uri, "%s", uri);
    return inst;
}

ompb__result ompb_test_result(const ompb__instance *inst, const ompb_test_rounds *r)
{
    ompb__result res;
    memset(&res, 0, sizeof res);
    res.rec.inst = inst;
    res.rec.threads = r->threads;
    res.rec.sample_size = r->sample_size;
    res.rec.rounds = r->rounds;
    res.rec.start_ns = r->start;
    res.rec.end_ns = r->end;
    res.rec.thread_start_ns = r->thread_start;
    res.rec.busy_ns = r->busy;
    res.rec.thread_iters = r->iters;
    res.rec.thread_pu = r->pus;
    return res;
}

char *ompb_test_slurp(FILE *f)
{
    long len = ftell(f);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    rewind(f);
    CU_ASSERT_EQUAL(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

void ompb_test_set_action(int sig, void (*fn)(int), struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    CU_ASSERT_EQUAL_FATAL(sigaction(sig, &sa, old), 0);
}

void (*ompb_test_handler_of(int sig))(int)
{
    struct sigaction now;
    sigaction(sig, NULL, &now);
    return (now.sa_flags & SA_SIGINFO) ? NULL : now.sa_handler;
}
