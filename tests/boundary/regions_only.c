/* SPDX-License-Identifier: MIT */
/*
 * An OpenMP application that links libompbench only for region markers
 * (tests/boundary/side_effects.sh): a team of two threads each marks a
 * region three times. It checks its own result and prints "done", so that a
 * run that a library constructor ended early, or whose forks went astray,
 * cannot pass.
 */
#include <stdio.h>

#include <omp.h>
#include <ompbench/region.h>

int main(void)
{
    int sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
    for (int i = 0; i < 3; i++) {
        ompb_region_begin("step");
        sum += i;
        ompb_region_end("step");
    }
    /* Each of the team's threads adds 0 + 1 + 2; one thread if the runtime
     * gave fewer. */
    int threads = sum / 3;
    if (sum % 3 != 0 || threads < 1 || threads > 2) {
        fprintf(stderr, "regions_only: sum %d\n", sum);
        return 1;
    }
    printf("done\n");
    return 0;
}
