/* SPDX-License-Identifier: MIT */
/*
 * How often the region hot path allocates after a name's first use
 * (tests/integration/region_alloc.sh): linked with -Wl,--wrap for malloc,
 * calloc, realloc and aligned_alloc, so every allocation of the (static)
 * library is counted. Documented bound (include/ompbench/region.h,
 * docs/guide.md "Cost, and turning it off"), per entry: at most 4 for the
 * kept instances, 1 for the histogram, and per thread 1 when its buffer
 * grows at the 512th instance (no thread runs ahead here: a barrier per
 * instance). Prints the counts; exit 1 when above the bound, 77 when the
 * library's allocations are not seen (a shared library: nothing to count).
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <ompbench.h>

#define INSTANCES 5000

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);

static atomic_long allocations;

void *__wrap_malloc(size_t n)
{
    allocations++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    allocations++;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    allocations++;
    return __real_realloc(p, n);
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
    allocations++;
    return __real_aligned_alloc(align, n);
}

static int check(const char *what, long got, long bound)
{
    printf("%s: %ld allocations after the first use (bound %ld)\n", what, got, bound);
    return got <= bound ? 0 : 1;
}

int main(void)
{
    long first = allocations;
    ompb_region_begin("serial");
    ompb_region_end("serial");
    if (allocations == first) {
        printf("the library's allocations are not counted (shared library?)\n");
        return 77;
    }
    long before = allocations;
    for (int i = 0; i < INSTANCES; i++) {
        ompb_region_begin("serial");
        ompb_region_end("serial");
    }
    int bad = check("serial", allocations - before, 4 + 1 + 1);

    long team = 0, threads = 0;
#pragma omp parallel num_threads(2)
    {
        ompb_region_begin("team");
        ompb_region_end("team");
#pragma omp barrier
#pragma omp single
        {
            threads = omp_get_num_threads();
            team = allocations;
        }
        for (int i = 0; i < INSTANCES; i++) {
            ompb_region_begin("team");
            ompb_region_end("team");
#pragma omp barrier
        }
#pragma omp single
        team = allocations - team;
    }
    bad |= check("team", team, 4 + 1 + threads);
    return bad;
}
