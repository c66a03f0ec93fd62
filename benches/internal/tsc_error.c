/* SPDX-License-Identifier: MIT */
/*
 * The region markers' TSC-to-CLOCK_MONOTONIC map (lib/core/tsc.h) against
 * clock_gettime over a long run (docs/performance.md, "Region markers"):
 * every spacing, a clock read, a marker stamp, a clock read; the figure is
 * how far a stamp fell outside its two clock reads (0 when inside), next to
 * the clock's own spread (two reads apart, median). Calibrations happen as
 * they do under region markers: in the stamp that ends an instance.
 *
 * Usage: tsc_error [--quick | SECONDS [SPACING_US]]   (default 60 s, 1000 us)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench.h>

#include "core/tsc.h"

int main(int argc, char **argv)
{
    double seconds = 60, spacing_us = 1000;
    if (argc > 1 && strcmp(argv[1], "--quick") == 0)
        seconds = 0.5;
    else if (argc > 1 && (seconds = atof(argv[1])) <= 0) {
        fprintf(stderr, "usage: %s [--quick | SECONDS [SPACING_US]]\n", argv[0]);
        return 2;
    }
    if (argc > 2 && (spacing_us = atof(argv[2])) < 0) {
        fprintf(stderr, "tsc_error: invalid spacing '%s' (accepted: microseconds >= 0)\n",
                argv[2]);
        return 2;
    }
    ompb__tsc_start(getenv("OMPB_REGIONS_CLOCK") == NULL
                    || strcmp(getenv("OMPB_REGIONS_CLOCK"), "clock_gettime") != 0);
    ompb__tsc_check c;
    if (ompb__tsc_measure((uint64_t)(seconds * 1e9), (uint64_t)(spacing_us * 1e3), &c) != 0) {
        fprintf(stderr, "tsc_error: out of memory\n");
        return 1;
    }
    char source[256];
    ompb__tsc_describe(source, sizeof source);
    printf("ompbench %s marker clock: %s\n", ompb_version(), source);
    printf("%.1f s, %llu samples every %.0f us: stamps outside their two clock reads %llu, "
           "by at most %llu ns; two clock reads apart (median) %llu ns; %llu calibrations, "
           "largest error at one %llu ns\n", seconds, (unsigned long long)c.samples, spacing_us,
           (unsigned long long)c.outside, (unsigned long long)c.max_outside_ns,
           (unsigned long long)c.median_bracket_ns, (unsigned long long)c.calibrations,
           (unsigned long long)c.max_calibration_err_ns);
    return 0;
}
