/* SPDX-License-Identifier: MIT */
/*
 * Functions unrelated to the fixture's benchmark body (tests/codeid/bench.c).
 * -DCODEID_PADDING gives other_work more code, so that whatever the linker
 * places after this file moves.
 */
#include <stdio.h>

long other_work(long n);
long other_more(long n);

long other_work(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i * i;
#ifdef CODEID_PADDING
    for (long i = 0; i < n; i++)
        s ^= (s << 3) + i * 7 - (s >> 5);
    if (s == 42)
        puts("other_work: padding");
#endif
    return s;
}

long other_more(long n)
{
    return n > 2 ? other_work(n - 1) + other_work(n - 2) : n;
}
