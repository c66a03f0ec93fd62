/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the Slurm job step read from the environment
 * (lib/placement/slurm.c) and what the header and the warning make of it.
 * The input is split at NUL bytes into values for SLURM_JOB_ID,
 * SLURM_STEP_ID, SLURM_PROCID, SLURM_NTASKS, SLURM_CPUS_PER_TASK,
 * SLURM_LOCALID and SLURM_CPU_BIND_LIST, in that order (a missing value:
 * unset; a value of one 0x01 byte: unset too). Checked: the CPUs per task
 * are -1 (refused), 0 or 1-4096; the header line and the warning are
 * NUL-terminated within their buffers.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "core/constants.h"
#include "placement/placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"SLURM_JOB_ID",       "SLURM_STEP_ID",   "SLURM_PROCID",
                                    "SLURM_NTASKS",       "SLURM_CPUS_PER_TASK",
                                    "SLURM_LOCALID",      "SLURM_CPU_BIND_LIST"};
#define N_NAMES (sizeof names / sizeof names[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *p = text;
    for (size_t i = 0; i < N_NAMES; i++) {
        bool present = p <= text + size;
        if (present && strcmp(p, "\x01") != 0)
            setenv(names[i], p, 1);
        else
            unsetenv(names[i]);
        if (present)
            p += strlen(p) + 1;
    }
    int cpt = ompb__slurm_cpus_per_task();
    if (cpt < -1 || cpt > OMPB__MAX_THREADS)
        __builtin_trap();
    ompb__slurm_step step;
    ompb__slurm_read(&step);
    if (step.cpus_per_task < 0 || memchr(step.mask, '\0', sizeof step.mask) == NULL)
        __builtin_trap();
    hwloc_bitmap_t usable = hwloc_bitmap_alloc();
    if (usable) {
        hwloc_bitmap_set_range(usable, 0, 3);
        char line[1024], warning[1024];
        ompb__slurm_describe(&step, usable, line, sizeof line);
        if (memchr(line, '\0', sizeof line) == NULL)
            __builtin_trap();
        if (ompb__slurm_mismatch(&step, usable, warning, sizeof warning) &&
            memchr(warning, '\0', sizeof warning) == NULL)
            __builtin_trap();
        hwloc_bitmap_free(usable);
    }
    free(text);
    return 0;
}
