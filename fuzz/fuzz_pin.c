/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the --pin parser (lib/placement/pin.c, with the
 * cpus:LIST lists of lib/placement/cpulist.c and the LIKWID domain
 * expressions of lib/placement/pin_domain.c) and the plan made from what
 * it accepts. The first byte is the team width (1-64), the rest the --pin
 * value (up to a NUL). The plan is made on a synthetic machine of two
 * packages, two NUMA nodes each, 4 cores of 2 PUs per node (32 PUs), loaded
 * once. A refusal must be one line with no control character; a plan gives
 * every thread a PU of the machine.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "placement/placement.h"

#define SYNTHETIC "pack:2 numa:2 core:4 pu:2"
#define PUS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ompb__topology *machine(void)
{
    static ompb__topology *topo;
    ompb_error err = {0};
    if (!topo && ompb__topology_open_synthetic(SYNTHETIC, &topo, &err) != 0)
        __builtin_trap();
    return topo;
}

static void check_refusal(const ompb_error *err)
{
    if (!err->text[0])
        __builtin_trap();
    for (const unsigned char *p = (const unsigned char *)err->text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int threads = 1 + data[0] % 64;
    char *value = malloc(size);
    if (!value)
        return 0;
    memcpy(value, data + 1, size - 1);
    value[size - 1] = '\0';
    ompb__pin_spec spec;
    ompb_error err = {0};
    if (ompb__pin_parse(value, &spec, &err) != 0) {
        check_refusal(&err);
        free(value);
        return 0;
    }
    ompb__pin_plan *plan = NULL;
    ompb_error perr = {0};
    int rc = ompb__pin_plan_new(machine(), &spec, threads, &plan, &perr);
    if (rc == 0) {
        for (int t = 0; t < plan->threads; t++)
            if (plan->pu[t] < -1 || plan->pu[t] >= PUS)
                __builtin_trap();
        ompb__pin_plan_free(plan);
    } else if (rc == OMPB_EINVAL) {
        check_refusal(&perr);
    }
    ompb__pin_spec_release(&spec);
    free(value);
    return 0;
}
