/* SPDX-License-Identifier: MIT */
/*
 * libpfm4 for --counters (lib/counters/counters_internal.h): the processor's own
 * named events, which perf's generic table does not know. The library is
 * opened at run time (dlopen) on first use, so linking libompbench never
 * needs -lpfm and a machine without libpfm.so.4 runs all but named
 * events; without libpfm4's header at build time (OMPB_HAVE_LIBPFM unset)
 * there are no named events and the listing says how to get them.
 */
#include "counters/counters_internal.h"

#include <string.h>

#ifdef OMPB_HAVE_LIBPFM
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>

#define PFM_SONAME "libpfm.so.4"

/* libpfm4's entry points, from dlopen. */
static struct {
    pfm_err_t (*initialize)(void);
    pfm_err_t (*encode)(const char *, int, pfm_os_t, void *);
    const char *(*strerror)(int);
    pfm_err_t (*pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
    int (*event_next)(int);
    pfm_err_t (*event_info)(int, pfm_os_t, pfm_event_info_t *);
} pfm;
static int pfm_status = -1;     /* PFM_SUCCESS once usable */
static char pfm_why[160];       /* why not, for --list-counters */
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;

static void pfm_init(void)
{
    void *h = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(pfm_why, sizeof pfm_why, "%s could not be opened (install libpfm4)", PFM_SONAME);
        return;
    }
    /* POSIX lets a dlsym result be converted to a function pointer this way. */
    *(void **)&pfm.initialize = dlsym(h, "pfm_initialize");
    *(void **)&pfm.encode = dlsym(h, "pfm_get_os_event_encoding");
    *(void **)&pfm.strerror = dlsym(h, "pfm_strerror");
    *(void **)&pfm.pmu_info = dlsym(h, "pfm_get_pmu_info");
    *(void **)&pfm.event_next = dlsym(h, "pfm_get_event_next");
    *(void **)&pfm.event_info = dlsym(h, "pfm_get_event_info");
    if (!pfm.initialize || !pfm.encode || !pfm.strerror || !pfm.pmu_info || !pfm.event_next ||
        !pfm.event_info) {
        snprintf(pfm_why, sizeof pfm_why, "%s lacks libpfm4's functions", PFM_SONAME);
        return;
    }
    pfm_status = pfm.initialize();
    if (pfm_status != PFM_SUCCESS)
        snprintf(pfm_why, sizeof pfm_why, "pfm_initialize: %s", pfm.strerror(pfm_status));
}

bool ompb__counters_pfm_encode(const char *name, uint32_t *type, uint64_t config[3])
{
    pthread_once(&pfm_once, pfm_init);
    if (pfm_status != PFM_SUCCESS)
        return false;
    struct perf_event_attr attr;
    pfm_perf_encode_arg_t arg;
    memset(&attr, 0, sizeof attr);
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    if (pfm.encode(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
        return false;
    *type = attr.type;
    config[0] = attr.config;
    config[1] = attr.config1;
    config[2] = attr.config2;
    return true;
}

/* One PMU's events, "pmu::EVENT" a line. */
static void list_pmu(FILE *out, const pfm_pmu_info_t *info)
{
    fprintf(out, "Named events (libpfm4), PMU %s (%s), %d events:\n", info->name, info->desc,
            info->nevents);
    for (int e = info->first_event; e != -1; e = pfm.event_next(e)) {
        pfm_event_info_t ei;
        memset(&ei, 0, sizeof ei);
        ei.size = sizeof ei;
        if (pfm.event_info(e, PFM_OS_NONE, &ei) == PFM_SUCCESS)
            fprintf(out, "  %s::%s\n", info->name, ei.name);
    }
}

void ompb__counters_pfm_list(FILE *out)
{
    pthread_once(&pfm_once, pfm_init);
    if (pfm_status != PFM_SUCCESS) {
        fprintf(out, "Named events (libpfm4): NOT available: %s\n", pfm_why);
        return;
    }
    int pmus = 0;
    pfm_pmu_t p;
    pfm_for_all_pmus(p) {
        pfm_pmu_info_t info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        if (pfm.pmu_info(p, &info) != PFM_SUCCESS || !info.is_present ||
            strncmp(info.name, "perf", 4) == 0)
            continue;
        pmus++;
        list_pmu(out, &info);
    }
    if (pmus == 0)
        fprintf(out, "Named events (libpfm4): NOT available: libpfm4 finds no processor PMU "
                     "on this machine (virtual machines often expose none); only the "
                     "generic events above\n");
}
#else
bool ompb__counters_pfm_encode(const char *name, uint32_t *type, uint64_t config[3])
{
    (void)name;
    (void)type;
    (void)config;
    return false;
}

void ompb__counters_pfm_list(FILE *out)
{
    fprintf(out, "Named events (e.g. RETIRED_INSTRUCTIONS): NOT available: they need "
                 "libpfm4, and this ompbench was built without it (install libpfm4-dev and "
                 "rebuild)\n");
}
#endif
