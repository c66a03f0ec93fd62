/* SPDX-License-Identifier: MIT */
/*
 * The code identity check (tools/lib/analysis/codeid.c) on the fixtures of
 * tests/codeid/, built by CMake in variants: SAME when only the layout
 * changed (link order, an unrelated function grown, PIE and not), with
 * proof that the body moved and its raw bytes differ; CHANGED, naming the
 * function, for a change in the body, in a constant it reads from .rodata,
 * in the static helper it calls and in its OpenMP region (PIE and not);
 * UNKNOWN with a reason for a stripped copy, a file that is not ELF, a
 * missing one, truncated copies, another machine and an address in no
 * function; no crash on randomly damaged copies. And the
 * run-time locator (lib/core/libraries.c), checked against the symbol
 * tables of this test binary and of the C library.
 */
#include <gnu/libc-version.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/codeid.h"
#include "core/core.h"
#include "suite.h"

#define FIXTURE(name) OMPB_CODEID_DIR "/" name

static char tmpdir[] = "/tmp/ompb-codeid-XXXXXX";

static int suite_init(void)
{
    return mkdtemp(tmpdir) ? 0 : -1;
}

/* The files the tests write there. */
static const char *const scratch[] = {"text", "truncated", "aarch64", "damaged"};

static int suite_cleanup(void)
{
    char path[sizeof tmpdir + 16];
    for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, scratch[i]);
        unlink(path);
    }
    return rmdir(tmpdir);
}

/* The whole file at path, malloc'd, with its size; NULL on failure. */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0
        && (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    *size = buf ? (size_t)n : 0;
    return buf;
}

static int spill(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok ? 0 : -1;
}

static uint64_t body_of(const char *obj)
{
    uint64_t v = 0;
    CU_ASSERT_EQUAL(ompb__code_symbol(obj, "bench_body", &v), 0);
    return v;
}

static ompb__code_result compare(const char *a, const char *b)
{
    ompb__code_result r;
    ompb__code_compare(a, body_of(a), b, body_of(b), &r);
    return r;
}

/* Whether the raw bytes of bench_body, or of one of its callees (GCC's
 * names), differ between a and b. */
static int raw_bytes_differ(const char *a, const char *b)
{
    static const char *const names[] = {"bench_body", "helper", "step", "bench_body._omp_fn.0"};
    int differ = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        uint64_t va, vb, sa = 0, sb = 0;
        if (ompb__code_symbol(a, names[i], &va) != 0 || ompb__code_symbol(b, names[i], &vb) != 0)
            continue;
        unsigned char *pa = NULL, *pb = NULL;
        size_t na = 0, nb = 0;
        CU_ASSERT_EQUAL_FATAL(ompb__code_function_bytes(a, va, &pa, &na, &sa), 0);
        CU_ASSERT_EQUAL_FATAL(ompb__code_function_bytes(b, vb, &pb, &nb, &sb), 0);
        CU_ASSERT(sa == va && sb == vb && na > 0 && nb > 0);
        differ |= na != nb || memcmp(pa, pb, na) != 0;
        free(pa);
        free(pb);
    }
    return differ;
}

/* Only the layout changed: bench_body moved and its bytes differ, and the
 * check says SAME after following it into its callees. */
static void expect_same_layout(const char *a, const char *b)
{
    CU_ASSERT_NOT_EQUAL(body_of(a), body_of(b));
    CU_ASSERT(raw_bytes_differ(a, b));
    ompb__code_result r = compare(a, b);
    CU_ASSERT_EQUAL(r.verdict, OMPB__CODE_SAME);
    CU_ASSERT_STRING_EQUAL(r.why, "");
    CU_ASSERT(r.functions >= 4); /* the body, its helper, its switch, its region */
    if (r.verdict != OMPB__CODE_SAME)
        fprintf(stderr, "codeid: %s vs %s: %d (%s)\n", a, b, (int)r.verdict, r.why);
}

static void test_same_self(void)
{
    ompb__code_result r = compare(FIXTURE("base"), FIXTURE("base"));
    CU_ASSERT_EQUAL(r.verdict, OMPB__CODE_SAME);
    CU_ASSERT(r.functions >= 4);
    CU_ASSERT(r.functions < 10);
}

static void test_same_link_order(void)
{
    expect_same_layout(FIXTURE("base"), FIXTURE("link_order"));
    expect_same_layout(FIXTURE("link_order"), FIXTURE("base"));
}

static void test_same_padding(void)
{
    expect_same_layout(FIXTURE("base"), FIXTURE("padding"));
    expect_same_layout(FIXTURE("padding"), FIXTURE("base"));
}

/* Without PIE, addresses of strings and data are absolute immediates. */
static void test_same_padding_no_pie(void)
{
    expect_same_layout(FIXTURE("nopie"), FIXTURE("nopie_padding"));
}

static void expect_changed_from(const char *base, const char *variant, const char *names_a,
                                const char *names_b)
{
    ompb__code_result r = compare(base, variant);
    CU_ASSERT_EQUAL(r.verdict, OMPB__CODE_CHANGED);
    CU_ASSERT(strstr(r.why, names_a) || (names_b && strstr(r.why, names_b)));
    CU_ASSERT(r.functions >= 1);
    if (r.verdict != OMPB__CODE_CHANGED || !(strstr(r.why, names_a) || (names_b && strstr(r.why, names_b))))
        fprintf(stderr, "codeid: %s vs %s: %d (%s)\n", base, variant, (int)r.verdict, r.why);
}

static void expect_changed(const char *variant, const char *names_a, const char *names_b)
{
    expect_changed_from(FIXTURE("base"), variant, names_a, names_b);
}

static void test_changed_body(void)
{
    expect_changed(FIXTURE("body"), "bench_body", NULL);
    ompb__code_result r = compare(FIXTURE("base"), FIXTURE("body"));
    CU_ASSERT_STRING_EQUAL(r.why, "bench_body");
    CU_ASSERT_EQUAL(r.functions, 1);
}

/* Only a constant in .rodata changed: the body's bytes are equal, the
 * data they reference is not. */
static void test_changed_constant(void)
{
    unsigned char *pa = NULL, *pb = NULL;
    size_t na = 0, nb = 0;
    uint64_t sa, sb;
    CU_ASSERT_EQUAL_FATAL(ompb__code_function_bytes(FIXTURE("base"), body_of(FIXTURE("base")),
                                                    &pa, &na, &sa), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__code_function_bytes(FIXTURE("constant"),
                                                    body_of(FIXTURE("constant")), &pb, &nb, &sb), 0);
    CU_ASSERT(sa == sb && na == nb && memcmp(pa, pb, na) == 0);
    free(pa);
    free(pb);
    expect_changed(FIXTURE("constant"), "bench_body", NULL);
}

static void test_changed_helper(void)
{
    expect_changed(FIXTURE("helper"), "helper", NULL);
    ompb__code_result r = compare(FIXTURE("base"), FIXTURE("helper"));
    CU_ASSERT_PTR_NULL(strstr(r.why, "bench_body"));
}

/* GCC names the outlined region bench_body._omp_fn.N, Clang .omp_outlined. */
static void test_changed_region(void)
{
    expect_changed(FIXTURE("region"), "_omp_fn", "omp_outlined");
    ompb__code_result r = compare(FIXTURE("region"), FIXTURE("base"));
    CU_ASSERT_EQUAL(r.verdict, OMPB__CODE_CHANGED);
    CU_ASSERT(r.functions >= 2);
    /* Without PIE the region is passed as an absolute address. */
    expect_changed_from(FIXTURE("nopie"), FIXTURE("nopie_region"), "_omp_fn", "omp_outlined");
}

static void expect_unknown(const char *a, uint64_t va, const char *b, uint64_t vb,
                           const char *reason)
{
    ompb__code_result r;
    ompb__code_compare(a, va, b, vb, &r);
    CU_ASSERT_EQUAL(r.verdict, OMPB__CODE_UNKNOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.why, reason));
    CU_ASSERT_PTR_NULL(strchr(r.why, '\n'));
    if (r.verdict != OMPB__CODE_UNKNOWN || !strstr(r.why, reason))
        fprintf(stderr, "codeid: %s vs %s: %d (%s)\n", a, b, (int)r.verdict, r.why);
}

static void test_unknown_stripped(void)
{
    uint64_t v = body_of(FIXTURE("base"));
    uint64_t none = 0;
    CU_ASSERT_NOT_EQUAL(ompb__code_symbol(FIXTURE("stripped"), "bench_body", &none), 0);
    expect_unknown(FIXTURE("base"), v, FIXTURE("stripped"), v, "stripped");
    expect_unknown(FIXTURE("stripped"), v, FIXTURE("base"), v, "stripped");
}

static void test_unknown_not_elf_or_missing(void)
{
    uint64_t v = body_of(FIXTURE("base"));
    char text[300];
    snprintf(text, sizeof text, "%s/text", tmpdir);
    CU_ASSERT_EQUAL_FATAL(spill(text, "not an object file\n", 19), 0);
    expect_unknown(FIXTURE("base"), v, text, v, "not an ELF file");
    expect_unknown(OMPB_CODEID_DIR "/no-such-file", v, FIXTURE("base"), v, "cannot open");
    expect_unknown(FIXTURE("base"), v, tmpdir, v, "not a regular file");
    CU_ASSERT_EQUAL(ompb__code_symbol(OMPB_CODEID_DIR "/no-such-file", "bench_body", &v), OMPB_EIO);
    CU_ASSERT_EQUAL(ompb__code_symbol(FIXTURE("base"), "no_such_function", &v), OMPB_ENOENT);
}

/* Cut at the ELF header, halfway (the section headers are at the end) and
 * one byte short. */
static void test_unknown_truncated(void)
{
    size_t n;
    unsigned char *img = slurp(FIXTURE("base"), &n);
    CU_ASSERT_FATAL(img && n > 4096);
    uint64_t v = body_of(FIXTURE("base"));
    const size_t cuts[] = {64, n / 2, n - 1};
    char path[300];
    snprintf(path, sizeof path, "%s/truncated", tmpdir);
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(spill(path, img, cuts[i]), 0);
        expect_unknown(FIXTURE("base"), v, path, v, path);
    }
    free(img);
}

/* The same file, claiming to be AArch64 code. */
static void test_unknown_machine(void)
{
    size_t n;
    unsigned char *img = slurp(FIXTURE("base"), &n);
    CU_ASSERT_FATAL(img && n > 64);
    img[18] = 183; /* e_machine = EM_AARCH64, little-endian */
    img[19] = 0;
    char path[300];
    snprintf(path, sizeof path, "%s/aarch64", tmpdir);
    CU_ASSERT_EQUAL_FATAL(spill(path, img, n), 0);
    uint64_t v = body_of(FIXTURE("base"));
    expect_unknown(FIXTURE("base"), v, path, v, "only x86-64");
    free(img);
}

static void test_unknown_address(void)
{
    uint64_t v = body_of(FIXTURE("base"));
    expect_unknown(FIXTURE("base"), v, FIXTURE("base"), 0, "not inside a function");
    expect_unknown(FIXTURE("base"), UINT64_MAX, FIXTURE("base"), v, "not inside a function");
}

/* Damaged copies (a few random bytes each, anywhere, a fixed seed): any
 * verdict but no crash, no read outside the file (the sanitizer build). */
static void test_hostile_copies(void)
{
    size_t n;
    unsigned char *img = slurp(FIXTURE("base"), &n);
    CU_ASSERT_FATAL(img && n > 0);
    unsigned char *copy = malloc(n);
    CU_ASSERT_FATAL(copy != NULL);
    uint64_t v = body_of(FIXTURE("base")), state = 0x9e3779b97f4a7c15u;
    char path[300];
    snprintf(path, sizeof path, "%s/damaged", tmpdir);
    size_t verdicts[3] = {0, 0, 0};
    for (int round = 0; round < 300; round++) {
        memcpy(copy, img, n);
        for (int k = 0; k < 1 + round % 8; k++) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            /* a third of the damage in the ELF header and tables' likely places */
            size_t at = (size_t)(state >> 33) % (round % 3 == 0 ? (n < 4096 ? n : 4096) : n);
            copy[at] = (unsigned char)(state >> 24);
        }
        CU_ASSERT_EQUAL_FATAL(spill(path, copy, n), 0);
        ompb__code_result r;
        ompb__code_compare(FIXTURE("base"), v, path, v, &r);
        CU_ASSERT(r.verdict <= OMPB__CODE_UNKNOWN);
        CU_ASSERT(memchr(r.why, '\0', sizeof r.why) != NULL);
        verdicts[r.verdict <= OMPB__CODE_UNKNOWN ? r.verdict : 0]++;
    }
    /* Some damage misses the compared code, some hits it. */
    CU_ASSERT(verdicts[OMPB__CODE_SAME] > 0);
    CU_ASSERT(verdicts[OMPB__CODE_CHANGED] + verdicts[OMPB__CODE_UNKNOWN] > 0);
    free(copy);
    free(img);
}

static __attribute__((noinline, used)) int codeid_probe(int x)
{
    return x * 3 + 1;
}

static void test_locate_static_function(void)
{
    char path[4096], self[4096];
    uint64_t at = 0, sym = 1;
    CU_ASSERT_EQUAL_FATAL(ompb__code_locate((const void *)(uintptr_t)codeid_probe, path,
                                            sizeof path, &at), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath("/proc/self/exe", self));
    CU_ASSERT_STRING_EQUAL(path, self);
    CU_ASSERT_EQUAL(ompb__code_symbol(path, "codeid_probe", &sym), 0);
    CU_ASSERT_EQUAL(at, sym);
    CU_ASSERT_EQUAL(codeid_probe(2), 7);
    /* Too short a buffer; an address no object holds. */
    char small[4];
    CU_ASSERT_EQUAL(ompb__code_locate((const void *)(uintptr_t)codeid_probe, small,
                                      sizeof small, &at), OMPB_EINVAL);
    int local = 0;
    CU_ASSERT_EQUAL(ompb__code_locate(&local, path, sizeof path, &at), OMPB_ENOENT);
}

/* A shared library's function: the path is the library's, the address its
 * own (load bias removed), found again in its .dynsym. */
static void test_locate_library_function(void)
{
    char path[4096];
    uint64_t at = 0, sym = 1;
    CU_ASSERT_EQUAL_FATAL(ompb__code_locate((const void *)(uintptr_t)gnu_get_libc_version,
                                            path, sizeof path, &at), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(path, "libc"));
    CU_ASSERT_EQUAL(path[0], '/');
    CU_ASSERT_EQUAL(ompb__code_symbol(path, "gnu_get_libc_version", &sym), 0);
    CU_ASSERT_EQUAL(at, sym);
    CU_ASSERT(at < (uint64_t)(uintptr_t)gnu_get_libc_version);
}

static const ompb_test_case cases[] = {
    {"same_self", test_same_self},
    {"same_link_order", test_same_link_order},
    {"same_padding", test_same_padding},
    {"same_padding_no_pie", test_same_padding_no_pie},
    {"changed_body", test_changed_body},
    {"changed_constant", test_changed_constant},
    {"changed_helper", test_changed_helper},
    {"changed_region", test_changed_region},
    {"unknown_stripped", test_unknown_stripped},
    {"unknown_not_elf_or_missing", test_unknown_not_elf_or_missing},
    {"unknown_truncated", test_unknown_truncated},
    {"unknown_machine", test_unknown_machine},
    {"unknown_address", test_unknown_address},
    {"hostile_copies", test_hostile_copies},
    {"locate_static_function", test_locate_static_function},
    {"locate_library_function", test_locate_library_function},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_codeid = {"codeid", suite_init, suite_cleanup, cases};
