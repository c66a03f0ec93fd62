/* SPDX-License-Identifier: MIT */
/*
 * The perf layer behind --counters: perf's generic event names, groups
 * opened per thread, one read(2) per group at each end of a timed window,
 * multiplex scaling, and one-line reasons when the kernel refuses an event
 * (and a group the kernel never schedules). libpfm4
 * (optional, OMPB_HAVE_LIBPFM) resolves the names perf's generic table does
 * not know; it is opened at run time (dlopen), so linking libompbench never
 * needs -lpfm and a machine without libpfm.so.4 runs all but named events.
 * Every system call goes through the ops table.
 */
#include "counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef OMPB_HAVE_LIBPFM
#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#endif

#include "clock.h"
#include "error.h"

/* read(2) of a group with PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING: nr, time_enabled, time_running, values[nr]. */
#define READ_HEADER 3
#define READ_WORDS (READ_HEADER + OMPB__MAX_COUNTERS)
#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
/* How long the probe lets its group run before it checks it was scheduled. */
#define PROBE_SPIN_NS 1000000

typedef struct generic_event {
    const char *name;
    const char *alias;           /* perf's other name, or NULL */
    uint32_t type;
    uint64_t config;
} generic_event;

static const generic_event generic[] = {
    {"cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
};

/* perf's cache events: <cache>-<op>s counts accesses, <cache>-<op>-misses
 * misses; config = cache | op << 8 | result << 16. */
static const char *const caches[] = {"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB",
                                     "branch", "node"};
static const char *const cache_ops[] = {"load", "store", "prefetch"};
static const char *const cache_op_plurals[] = {"loads", "stores", "prefetches"};

static const ompb__counter_ops *ops = &ompb__counter_ops_system;

/* ---- the system's ops ---------------------------------------------------- */

static int sys_open(void *attr, int tid, int group_fd)
{
    long fd = syscall(SYS_perf_event_open, attr, (pid_t)tid, -1, group_fd,
                      (unsigned long)PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

static int sys_enable(int leader_fd)
{
    return ioctl(leader_fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0 ? -errno : 0;
}

static long sys_read(int fd, void *buf, size_t len)
{
    ssize_t n = read(fd, buf, len);
    return n < 0 ? -errno : (long)n;
}

static int sys_close(int fd)
{
    return close(fd) < 0 ? -errno : 0;
}

static int sys_paranoid(void)
{
    FILE *fp = fopen(PARANOID_PATH, "r");
    int level = OMPB__PARANOID_UNKNOWN;
    if (fp) {
        if (fscanf(fp, "%d", &level) != 1)
            level = OMPB__PARANOID_UNKNOWN;
        fclose(fp);
    }
    return level;
}

const ompb__counter_ops ompb__counter_ops_system = {sys_open, sys_enable, sys_read, sys_close,
                                                    sys_paranoid};

static int paranoid_level(void)
{
    return ops->paranoid ? ops->paranoid() : sys_paranoid();
}

void ompb__counters_set_ops(const ompb__counter_ops *o)
{
    ops = o ? o : &ompb__counter_ops_system;
}

/* ---- names ----------------------------------------------------------------- */

static void set_event(ompb__counter_event *ev, const char *name, uint32_t type, uint64_t config)
{
    memset(ev, 0, sizeof *ev);
    snprintf(ev->name, sizeof ev->name, "%s", name);
    ev->type = type;
    ev->config = config;
    bool clock = type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK ||
                                                config == PERF_COUNT_SW_CPU_CLOCK);
    /* Switches and migrations happen in the kernel, with the kernel's
     * registers: counted in user space only they would read 0, a silent
     * zero column. Everything else asks for no kernel counting, which
     * kernel.perf_event_paranoid = 2 refuses to unprivileged users: the
     * clocks count the thread's whole CPU time either way, and a fault is
     * charged to the mode it was taken in, so the body's own page faults
     * count in user space (measured: 16385 of 16384 touched pages, as an
     * unprivileged user at level 2); faults the kernel takes on the
     * thread's behalf (copying into a user buffer in read(2)) do not. */
    ev->kernel = type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
                                                config == PERF_COUNT_SW_CPU_MIGRATIONS);
    ev->unit = clock ? OMPB__COUNTER_NS : OMPB__COUNTER_COUNT;
}

static bool find_generic(const char *name, ompb__counter_event *ev)
{
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++) {
        const generic_event *g = &generic[i];
        if (strcmp(name, g->name) == 0 || (g->alias && strcmp(name, g->alias) == 0)) {
            set_event(ev, name, g->type, g->config);
            return true;
        }
    }
    return false;
}

static bool find_cache(const char *name, ompb__counter_event *ev)
{
    for (size_t c = 0; c < sizeof caches / sizeof caches[0]; c++) {
        size_t len = strlen(caches[c]);
        if (strncmp(name, caches[c], len) != 0 || name[len] != '-')
            continue;
        for (size_t op = 0; op < sizeof cache_ops / sizeof cache_ops[0]; op++) {
            char miss[48];
            snprintf(miss, sizeof miss, "%s-misses", cache_ops[op]);
            int result = strcmp(name + len + 1, cache_op_plurals[op]) == 0 ? 0
                         : strcmp(name + len + 1, miss) == 0 ? 1 : -1;
            if (result >= 0) {
                set_event(ev, name, PERF_TYPE_HW_CACHE,
                          (uint64_t)c | (uint64_t)op << 8 | (uint64_t)result << 16);
                return true;
            }
        }
    }
    return false;
}

#ifdef OMPB_HAVE_LIBPFM
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

static bool find_named(const char *name, ompb__counter_event *ev)
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
    set_event(ev, name, attr.type, attr.config);
    ev->config1 = attr.config1;
    ev->config2 = attr.config2;
    ev->named = true;
    return true;
}
#else
static bool find_named(const char *name, ompb__counter_event *ev)
{
    (void)name;
    (void)ev;
    return false;
}
#endif

#ifdef OMPB_HAVE_LIBPFM
#define NAMED_HINT " or a processor event libpfm4 knows on this machine"
#else
#define NAMED_HINT "; processor events by name need libpfm4 at build time"
#endif

static int parse_one(const char *name, ompb__counter_set *set, ompb_error *err)
{
    if (!*name)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: empty event name in the list "
                               "(accepted: event names separated by commas, e.g. "
                               "task-clock,page-faults)");
    if (strlen(name) >= OMPB__COUNTER_NAME_MAX)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event name '%.40s...' is longer "
                               "than %d characters", name, OMPB__COUNTER_NAME_MAX - 1);
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->ev[i].name, name) == 0)
            return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is listed twice "
                                   "(accepted: each event once)", name);
    if (set->n == OMPB__MAX_COUNTERS)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: more than %d events: '%s' is "
                               "event %d (accepted: at most %d per run, one group)",
                               OMPB__MAX_COUNTERS, name, OMPB__MAX_COUNTERS + 1,
                               OMPB__MAX_COUNTERS);
    ompb__counter_event *ev = &set->ev[set->n];
    if (!find_generic(name, ev) && !find_cache(name, ev) && !find_named(name, ev))
        return ompb__error_set(err, OMPB_EINVAL, "--counters: unknown event '%s' (accepted: "
                               "perf's generic names such as instructions, cycles, "
                               "cache-misses, task-clock, context-switches, page-faults, "
                               "L1-dcache-load-misses" NAMED_HINT "; see --list-counters)",
                               name);
    set->n++;
    return 0;
}

int ompb__counters_parse(const char *list, ompb__counter_set *set, ompb_error *err)
{
    memset(set, 0, sizeof *set);
    const char *p = list;
    for (;;) {
        char name[OMPB__COUNTER_NAME_MAX + 8];
        size_t len = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1), p);
        if (len >= sizeof name - 1)
            name[sizeof name - 2] = 'x'; /* too long: parse_one says so */
        int rc = parse_one(name, set, err);
        if (rc)
            return rc;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* ---- groups ---------------------------------------------------------------- */

static void make_attr(struct perf_event_attr *attr, const ompb__counter_event *ev, bool leader)
{
    memset(attr, 0, sizeof *attr);
    attr->size = sizeof *attr;
    attr->type = ev->type;
    attr->config = ev->config;
    attr->config1 = ev->config1;
    attr->config2 = ev->config2;
    attr->disabled = leader;   /* members follow their leader */
    attr->exclude_kernel = !ev->kernel;
    attr->exclude_hv = 1;
    attr->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* EACCES/EPERM. The paranoid level that lets an unprivileged user open
 * the event: 2 for user-space counting, 1 for an event that counts in the
 * kernel. At or below it, the level is not what refuses: a seccomp filter
 * (a container's default profile) or a security module does. */
static int permission_error(ompb_error *err, const ompb__counter_event *ev, int paranoid)
{
    int allows = ev->kernel ? 1 : 2;
    const char *where = ev->kernel ? " and this event counts in the kernel" : "";
    if (paranoid == OMPB__PARANOID_UNKNOWN)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is not permitted, and "
                               "kernel.perf_event_paranoid cannot be read (fix: set it to %d "
                               "or lower, allow perf_event_open in the container's seccomp "
                               "profile, or give the binary CAP_PERFMON)", ev->name, allows);
    if (paranoid > allows)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is not permitted: "
                               "kernel.perf_event_paranoid is %d%s (fix: sysctl -w "
                               "kernel.perf_event_paranoid=%d, or give the binary "
                               "CAP_PERFMON)", ev->name, paranoid, where, allows);
    return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is not permitted although "
                           "kernel.perf_event_paranoid is %d, which allows it: a seccomp filter "
                           "(containers) or a security module refuses perf_event_open (fix: "
                           "allow it in the seccomp profile, or give the binary CAP_PERFMON)",
                           ev->name, paranoid);
}

/* The one line for a refused event: which, why, and how to fix it. */
static int open_error(ompb_error *err, const ompb__counter_set *set, int i, int e)
{
    const ompb__counter_event *ev = &set->ev[i];
    int paranoid = paranoid_level();
    switch (e) {
    case ENOENT:
    case EOPNOTSUPP:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is not available on "
                               "this machine (perf_event_open: %s: no PMU here exposes it; "
                               "virtual machines often have no hardware counters; fix: run on "
                               "a machine or VM with a PMU, or use software events such as "
                               "task-clock; see --list-counters)", ev->name, strerror(e));
    case EACCES:
    case EPERM:
        return permission_error(err, ev, paranoid);
    case EBUSY:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s': the PMU is busy "
                               "(perf_event_open: %s: another user holds its counters "
                               "exclusively, e.g. another profiler or perf session; fix: stop "
                               "that user, then run again)", ev->name, strerror(e));
    case EINVAL:
        if (i > 0)
            return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' does not fit in "
                                   "one group with the %d event%s before it: too many events "
                                   "for the PMU's counters (fix: count fewer events per run)",
                                   ev->name, i, i == 1 ? "" : "s");
        return ompb__error_set(err, OMPB_EINVAL, "--counters: the kernel rejects event '%s' "
                               "(perf_event_open: %s; see --list-counters)", ev->name,
                               strerror(e));
    case EMFILE:
    case ENFILE:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s': out of file "
                               "descriptors (%s; one per event and thread; fix: raise "
                               "ulimit -n)", ev->name, strerror(e));
    case ENOSYS:
    case ENODEV:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s': perf_event_open is "
                               "not available (%s: a kernel without perf events, or a "
                               "container's seccomp policy)", ev->name, strerror(e));
    default:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s': perf_event_open "
                               "failed: %s", ev->name, strerror(e));
    }
}

/* One read of the group: raw cumulative values. */
static int read_group(const ompb__counter_group *g, ompb__counter_reading *r)
{
    uint64_t buf[READ_WORDS];
    if (g->n == 0)
        return -EBADF; /* never opened: fd[0] is not ours */
    size_t want = (size_t)(READ_HEADER + g->n) * sizeof buf[0];
    long got = ops->read(g->fd[0], buf, sizeof buf);
    if (got < 0)
        return (int)got;
    if ((size_t)got != want || buf[0] != (uint64_t)g->n)
        return -EIO;
    r->enabled_ns = buf[1];
    r->running_ns = buf[2];
    for (int i = 0; i < g->n; i++)
        r->value[i] = buf[READ_HEADER + i];
    return 0;
}

void ompb__counter_group_close(ompb__counter_group *g)
{
    for (int i = g->n - 1; i >= 0; i--)
        if (g->fd[i] >= 0)
            (void)ops->close(g->fd[i]);
    g->n = 0;
}

int ompb__counter_group_open(ompb__counter_group *g, const ompb__counter_set *set, int tid,
                             ompb_error *err)
{
    memset(g, 0, sizeof *g);
    for (int i = 0; i < set->n; i++) {
        struct perf_event_attr attr;
        make_attr(&attr, &set->ev[i], i == 0);
        int fd = ops->open(&attr, tid, i == 0 ? -1 : g->fd[0]);
        if (fd < 0) {
            ompb__counter_group_close(g);
            return open_error(err, set, i, -fd);
        }
        g->fd[g->n++] = fd;
    }
    int rc = ops->enable(g->fd[0]);
    if (rc == 0)
        rc = read_group(g, &g->last);
    if (rc < 0) {
        ompb__counter_group_close(g);
        return ompb__error_set(err, OMPB_EIO, "--counters: cannot start the group of %s: %s",
                               set->ev[0].name, strerror(-rc));
    }
    return 0;
}

int ompb__counter_group_read(ompb__counter_group *g)
{
    ompb__counter_reading now;
    int rc = read_group(g, &now);
    if (rc < 0) {
        g->read_errno = -rc;
        memset(&g->delta, 0, sizeof g->delta);
        return rc;
    }
    g->delta.enabled_ns = now.enabled_ns - g->last.enabled_ns;
    g->delta.running_ns = now.running_ns - g->last.running_ns;
    for (int i = 0; i < g->n; i++)
        g->delta.value[i] = now.value[i] - g->last.value[i];
    g->last = now;
    return 0;
}

int ompb__counter_group_mark(ompb__counter_group *g)
{
    int rc = read_group(g, &g->last);
    if (rc < 0)
        g->read_errno = -rc;
    return rc;
}

void ompb__counters_window_begin(ompb__counter_group *g, int n)
{
    for (int i = 0; i < n; i++)
        (void)ompb__counter_group_mark(&g[i]);
}

void ompb__counters_window_end(ompb__counter_group *g, int n)
{
    for (int i = 0; i < n; i++)
        (void)ompb__counter_group_read(&g[i]);
}

/* The calling thread runs for ns, so that its group has had the chance to
 * be on the PMU (a per-thread counter counts only while its thread runs). */
static void spin_for(uint64_t ns)
{
    uint64_t until = ompb__now_ns() + ns;
    while (ompb__now_ns() < until)
        __asm__ volatile("");
}

int ompb__counters_probe(const ompb__counter_set *set, ompb_error *err)
{
    ompb__counter_group g;
    int rc = ompb__counter_group_open(&g, set, 0, err);
    if (rc != 0)
        return rc;
    spin_for(PROBE_SPIN_NS);
    rc = ompb__counter_group_read(&g);
    ompb__counter_group_close(&g);
    char names[OMPB__MAX_COUNTERS * OMPB__COUNTER_NAME_MAX];
    ompb__counters_names(set, names, sizeof names);
    if (rc < 0)
        return ompb__error_set(err, OMPB_EIO, "--counters: the group of %s opens but cannot "
                               "be read: %s", names, strerror(-rc));
    /* A group that opens but is never scheduled (more hardware events than
     * free counters, or a counter held by someone else, such as the NMI
     * watchdog) would count nothing in every round: refuse it now. */
    if (g.delta.running_ns == 0 && g.delta.enabled_ns > 0)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: events '%s' open but are never "
                               "on the PMU (time_running 0 after %.0f us enabled: fewer free "
                               "counters than events, e.g. one held by the NMI watchdog; fix: "
                               "count fewer events, or sysctl -w kernel.nmi_watchdog=0)", names,
                               (double)g.delta.enabled_ns / 1e3);
    return 0;
}

double ompb__counter_scale(uint64_t value, uint64_t enabled_ns, uint64_t running_ns)
{
    if (running_ns == enabled_ns)
        return (double)value;
    if (running_ns == 0)
        return NAN;
    return (double)value * ((double)enabled_ns / (double)running_ns);
}

/* ---- listing ---------------------------------------------------------------- */

/* Opens one event alone on the calling thread; 0 or the errno. */
static int try_event(const ompb__counter_event *ev)
{
    struct perf_event_attr attr;
    make_attr(&attr, ev, true);
    int fd = ops->open(&attr, 0, -1);
    if (fd < 0)
        return -fd;
    (void)ops->close(fd);
    return 0;
}

/* Why an event cannot be listed as available, in a few words; the errors of
 * --counters itself give the fix. */
static void list_one(FILE *out, const char *name, const char *alias, unsigned *seen)
{
    ompb__counter_event ev;
    if (!find_generic(name, &ev) && !find_cache(name, &ev))
        return;
    char label[80];
    snprintf(label, sizeof label, "%s%s%s%s", name, alias ? " (" : "", alias ? alias : "",
             alias ? ")" : "");
    int e = try_event(&ev);
    if (e == 0)
        fprintf(out, "  %-34s available%s\n", label, ev.kernel ? "" : " (user space)");
    else if (e == ENOENT || e == EOPNOTSUPP)
        fprintf(out, "  %-34s NOT available: no PMU here exposes it (%s)\n", label, strerror(e));
    else if (e == EACCES || e == EPERM)
        fprintf(out, "  %-34s NOT permitted: kernel.perf_event_paranoid\n", label);
    else
        fprintf(out, "  %-34s NOT available: %s\n", label, strerror(e));
    *seen |= e == ENOENT || e == EOPNOTSUPP ? 1u : e == EACCES || e == EPERM ? 2u : 0u;
}

#ifdef OMPB_HAVE_LIBPFM
static void list_named(FILE *out)
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
        fprintf(out, "Named events (libpfm4), PMU %s (%s), %d events:\n", info.name, info.desc,
                info.nevents);
        for (int e = info.first_event; e != -1; e = pfm.event_next(e)) {
            pfm_event_info_t ei;
            memset(&ei, 0, sizeof ei);
            ei.size = sizeof ei;
            if (pfm.event_info(e, PFM_OS_NONE, &ei) == PFM_SUCCESS)
                fprintf(out, "  %s::%s\n", info.name, ei.name);
        }
    }
    if (pmus == 0)
        fprintf(out, "Named events (libpfm4): NOT available: libpfm4 finds no processor PMU "
                     "on this machine (virtual machines often expose none); only the "
                     "generic events above\n");
}
#else
static void list_named(FILE *out)
{
    fprintf(out, "Named events (e.g. RETIRED_INSTRUCTIONS): NOT available: they need "
                 "libpfm4, and this ompbench was built without it (install libpfm4-dev and "
                 "rebuild)\n");
}
#endif

void ompb__counters_list(FILE *out)
{
    fprintf(out, "Counters for --counters on this machine (kernel.perf_event_paranoid = %d); "
                 "each team thread counts its own events, user space only for hardware and "
                 "cache events:\n", paranoid_level());
    unsigned seen = 0;
    fprintf(out, "Hardware and software events:\n");
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++)
        list_one(out, generic[i].name, generic[i].alias, &seen);
    fprintf(out, "Cache events:\n");
    for (size_t c = 0; c < sizeof caches / sizeof caches[0]; c++)
        for (size_t op = 0; op < sizeof cache_ops / sizeof cache_ops[0]; op++) {
            char name[64];
            snprintf(name, sizeof name, "%s-%s", caches[c], cache_op_plurals[op]);
            list_one(out, name, NULL, &seen);
            snprintf(name, sizeof name, "%s-%s-misses", caches[c], cache_ops[op]);
            list_one(out, name, NULL, &seen);
        }
    list_named(out);
    if (seen & 1u)
        fprintf(out, "Not available: the kernel has no PMU for these events here (virtual "
                     "machines often expose none); run on a machine or VM with one.\n");
    int paranoid = paranoid_level();
    if ((seen & 2u) && paranoid > 1)
        fprintf(out, "Not permitted: kernel.perf_event_paranoid = %d refuses events that "
                     "count in the kernel (fix: sysctl -w kernel.perf_event_paranoid=1, or "
                     "CAP_PERFMON).\n", paranoid);
    else if (seen & 2u)
        fprintf(out, "Not permitted although kernel.perf_event_paranoid = %d allows them: a "
                     "seccomp filter (a container's) or a security module refuses "
                     "perf_event_open (fix: allow it in the seccomp profile, or "
                     "CAP_PERFMON).\n", paranoid);
}

void ompb__counters_names(const ompb__counter_set *set, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < set->n && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s", i ? "," : "", set->ev[i].name);
        at += w > 0 ? (size_t)w : 0;
    }
}

const char *ompb__counter_unit_name(ompb__counter_unit unit)
{
    return unit == OMPB__COUNTER_NS ? "ns" : "count";
}
