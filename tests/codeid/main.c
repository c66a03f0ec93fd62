/* SPDX-License-Identifier: MIT */
/*
 * The fixtures' main(): runs the body and the unrelated functions once, so
 * that the program is a real one (tests/test_codeid.c only reads its file).
 */
#include <stdio.h>

long bench_body(const long *x, long n);
long other_work(long n);
long other_more(long n);

int main(void)
{
    long x[64];
    for (long i = 0; i < 64; i++)
        x[i] = i;
    printf("%ld %ld %ld\n", bench_body(x, 64), other_work(10), other_more(6));
    return 0;
}
