/* SPDX-License-Identifier: MIT */
/*
 * Disturbance accounting (lib/counters/preempt.h): a per-thread ring of
 * context-switch records, opened once per thread and instance, read by the
 * team's master only when it moved. The records are PERF_RECORD_SWITCH
 * with a CLOCK_MONOTONIC time stamp (sample_id_all, PERF_SAMPLE_TIME), the
 * clock of the round bounds; a dummy software event carries them, so no
 * counter and no PMU is involved, and perf_event_paranoid 2 allows it for
 * one's own threads.
 */
#include "counters/preempt.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"

/* Ring pages: 2 x 4 KiB holds 512 switch records (16 bytes each), far
 * more than one round of a thread that is not lost anyway (a round with
 * more is unknown, never clean), and small against the locked-memory
 * budget perf rings count against when a team has hundreds of threads. */
#define RING_PAGES 2
#define SWITCH_RECORD_BYTES 16

static void copy_out(const unsigned char *data, uint64_t size, uint64_t pos, void *dst, size_t n)
{
    unsigned char *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = data[(pos + i) & (size - 1)];
}

/* Length of [a, b] inside [lo, hi]. */
static uint64_t overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
    uint64_t s = a > lo ? a : lo, e = b < hi ? b : hi;
    return e > s ? e - s : 0;
}

static void add_away(ompb__preempt_tally *t, uint64_t ns)
{
    if (t->away_ns != OMPB__AWAY_UNKNOWN)
        t->away_ns += ns;
}

void ompb__preempt_parse(const unsigned char *data, uint64_t size, uint64_t from, uint64_t to,
                         uint64_t start_ns, uint64_t end_ns, uint64_t *out_ns,
                         bool *out_preempt, ompb__preempt_tally *t)
{
    uint64_t p = from;
    while (p < to) {
        struct perf_event_header h;
        if (to - p < sizeof h) {
            t->away_ns = OMPB__AWAY_UNKNOWN;
            break;
        }
        copy_out(data, size, p, &h, sizeof h);
        if (h.size < sizeof h || h.size > to - p) {
            t->away_ns = OMPB__AWAY_UNKNOWN;
            break;
        }
        if (h.type == PERF_RECORD_LOST) {
            t->away_ns = OMPB__AWAY_UNKNOWN;
        } else if (h.type == PERF_RECORD_SWITCH && h.size >= SWITCH_RECORD_BYTES) {
            uint64_t ns;
            copy_out(data, size, p + h.size - sizeof ns, &ns, sizeof ns);
            if (h.misc & PERF_RECORD_MISC_SWITCH_OUT) {
                *out_ns = ns;
                *out_preempt = (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
                if (*out_preempt && ns >= start_ns && ns <= end_ns)
                    t->preemptions++;
            } else {
                if (*out_ns && *out_preempt)
                    add_away(t, overlap(*out_ns, ns, start_ns, end_ns));
                *out_ns = 0;
                *out_preempt = false;
            }
        }
        p += h.size;
    }
    /* Still out at the end of the range: away until the window's end at
     * most (its switch-in, in the next range, counts for the next window). */
    if (*out_ns && *out_preempt)
        add_away(t, overlap(*out_ns, end_ns, start_ns, end_ns));
}

int ompb__preempt_open(ompb__preempt_watch *w, ompb_error *err)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_DUMMY;
    a.context_switch = 1;
    a.sample_id_all = 1;
    a.sample_type = PERF_SAMPLE_TIME;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, (unsigned long)PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return ompb__error_set(err, OMPB_ENOTSUP,
                               "perf_event_open of the context-switch records: %s%s",
                               strerror(e), e == EACCES || e == EPERM
                                   ? " (perf_event_paranoid above 2, or a seccomp profile "
                                     "refuses it)" : "");
    }
    long page = sysconf(_SC_PAGESIZE);
    size_t len = (size_t)page * (RING_PAGES + 1);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        close((int)fd);
        return ompb__error_set(err, OMPB_ENOTSUP, "mmap of the context-switch ring: %s",
                               strerror(e));
    }
    w->fd = (int)fd;
    w->page = m;
    w->data = (const unsigned char *)m + page;
    w->size = (uint64_t)page * RING_PAGES;
    w->mark = ompb__preempt_head(w);
    return 0;
}

void ompb__preempt_close(ompb__preempt_watch *w)
{
    if (w->fd < 0)
        return;
    munmap(w->page, (size_t)w->size + (size_t)sysconf(_SC_PAGESIZE));
    close(w->fd);
    memset(w, 0, sizeof *w);
    w->fd = -1;
}

/* The reader frees the ring up to `to`: the kernel may write there again. */
static void release(ompb__preempt_watch *w, uint64_t to)
{
    struct perf_event_mmap_page *pg = w->page;
    __atomic_store_n(&pg->data_tail, to, __ATOMIC_RELEASE);
    w->mark = to;
}

void ompb__preempt_take(ompb__preempt_watch *w, uint64_t start_ns, uint64_t end_ns,
                        ompb__preempt_tally *out)
{
    *out = (ompb__preempt_tally){0};
    if (w->fd < 0) {
        out->away_ns = OMPB__AWAY_UNKNOWN;
        return;
    }
    uint64_t head = ompb__preempt_head(w);
    if (head == w->mark) {
        /* Nothing switched; a switch-out pending from the last range (the
         * thread is still away, or its switch-in was dropped) counts. */
        if (w->out_ns && w->out_preempt)
            out->away_ns = overlap(w->out_ns, end_ns, start_ns, end_ns);
        return;
    }
    /* More than the ring holds since the mark: records were overwritten
     * or dropped. */
    if (head - w->mark > w->size)
        out->away_ns = OMPB__AWAY_UNKNOWN;
    else
        ompb__preempt_parse(w->data, w->size, w->mark, head, start_ns, end_ns, &w->out_ns,
                            &w->out_preempt, out);
    release(w, head);
}

void ompb__preempt_skip(ompb__preempt_watch *w)
{
    if (w->fd < 0)
        return;
    uint64_t head = ompb__preempt_head(w);
    if (head == w->mark)
        return;
    /* Keep the pending switch-out straight: read the range without a window. */
    ompb__preempt_tally t = {0};
    if (head - w->mark <= w->size)
        ompb__preempt_parse(w->data, w->size, w->mark, head, 0, 0, &w->out_ns, &w->out_preempt,
                            &t);
    else
        w->out_ns = 0;
    release(w, head);
}
