/* SPDX-License-Identifier: MIT */
/* A library a user preloads already (integration/trace_faults.sh): it says
 * that it was loaded, so that the test sees `ompbench trace` chain it. */
#include <stdio.h>

__attribute__((constructor)) static void chained(void)
{
    fputs("trace_chain: loaded\n", stderr);
}
