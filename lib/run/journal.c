/* SPDX-License-Identifier: MIT */
/*
 * The run's journal (lib/run/journal.h): written with write(2) on a
 * descriptor opened O_APPEND, one whole line per call, so that what a
 * crash or a SIGKILL leaves is whole lines and at most one cut line at the
 * end; read back line by line with the dump's own record reader. The crash
 * line is built when its slot begins and finished by the handler with
 * nothing but digits and one write.
 */
#include "run/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "core/core.h"

/* Writes all of text[len]; false on failure. */
static bool write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        text += n;
        len -= (size_t)n;
    }
    return true;
}

/* o as one compact line with its newline; consumes o. */
static int write_line(int fd, json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!text)
        return OMPB_ENOMEM;
    size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (!line) {
        free(text);
        return OMPB_ENOMEM;
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    int rc = write_all(fd, line, len + 1) ? 0 : OMPB_EIO;
    free(line);
    return rc;
}

static json_t *header_json(uint64_t seed, int argc, char **argv)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    json_t *args = json_array();
    for (int i = 0; args && i < argc; i++)
        if (json_array_append_new(args, json_string(argv[i])) != 0) {
            json_decref(args);
            return NULL;
        }
    return json_pack("{s:i, s:s, s:I, s:I, s:o*}", "ompbench_journal", 1, "exe", exe, "pid",
                     (json_int_t)getpid(), "seed", (json_int_t)seed, "argv", args);
}

/* The crash line of no slot (between two, or after the last). */
static void no_slot(ompb__journal *j)
{
    static const char prefix[] = "{\"crash\":{\"signal\":";
    memcpy(j->crash, prefix, sizeof prefix);
    j->crash_len = sizeof prefix - 1;
}

int ompb__journal_open(ompb__journal *j, const char *path, bool unique, uint64_t seed,
                       int argc, char **argv, ompb_error *err)
{
    j->fd = -1;
    j->crash_len = 0;
    if (snprintf(j->path, sizeof j->path, "%s", path) >= (int)sizeof j->path)
        return ompb__error_set(err, OMPB_EIO, "%s: the journal's name is too long", path);
    path = j->path;
    int fd = unique ? mkostemps(j->path, (int)strlen(OMPB__JOURNAL_SUFFIX), O_APPEND | O_CLOEXEC)
                    : open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0 && fd <= STDERR_FILENO) {
        /* A closed standard stream's number is not the journal's: a report
         * written there must fail as it would without a journal. */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1), e = errno;
        close(fd);
        if (high < 0)
            unlink(j->path);
        fd = high;
        errno = e;
    }
    if (fd < 0 && errno == EEXIST)
        return ompb__error_set(err, OMPB_EIO, "%s: a journal left by a run that did not end "
                               "(turn it into its report with: ompbench convert %s --format "
                               "json --output FILE; or remove it)", path, path);
    if (fd < 0)
        return ompb__error_set(err, OMPB_EIO, "%s: cannot create the journal: %s", path,
                               strerror(errno));
    int rc = write_line(fd, header_json(seed, argc, argv));
    if (rc) {
        close(fd);
        unlink(path);
        return ompb__error_set(err, OMPB_EIO, "%s: cannot write the journal", path);
    }
    j->fd = fd;
    no_slot(j);
    return 0;
}

int ompb__journal_add(ompb__journal *j, const ompb__record *rec, size_t instance)
{
    if (j->fd < 0)
        return 0;
    json_t *r = ompb__dump_record_to_json(rec, instance);
    json_t *o = r ? json_object() : NULL;
    if (!o || json_object_set_new(o, "record", r) != 0) {
        json_decref(o);
        return OMPB_ENOMEM;
    }
    no_slot(j); /* its slot is done: a crash now is in none */
    return write_line(j->fd, o);
}

void ompb__journal_slot(ompb__journal *j, size_t instance, const char *name,
                        uint32_t repetition)
{
    char escaped[OMPB__DUMP_ESCAPED_MAX + 256];
    if (j->fd < 0)
        return;
    no_slot(j);
    ompb__utf8_escape(name, escaped, sizeof escaped);
    json_t *o = json_pack("{s:I, s:s, s:I}", "instance", (json_int_t)instance, "name",
                          escaped, "repetition", (json_int_t)repetition);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    /* The started line goes out before the slot runs, so that a SIGKILL
     * (which no handler sees) still leaves the slot it ended named. */
    json_t *started = o ? json_pack("{s:O}", "started", o) : NULL;
    json_decref(o);
    if (started)
        (void)write_line(j->fd, started);
    /* {"instance":..,"repetition":R} becomes {"crash":{...,"signal": */
    if (text && strlen(text) + 32 < sizeof j->crash) {
        size_t len = strlen(text) - 1;
        int n = snprintf(j->crash, sizeof j->crash, "{\"crash\":%.*s,\"signal\":", (int)len, text);
        j->crash_len = n > 0 ? (size_t)n : 0;
    }
    free(text);
}

void ompb__journal_crash(const ompb__journal *j, int sig)
{
    char line[OMPB__JOURNAL_CRASH_MAX + 16];
    if (j->fd < 0 || j->crash_len == 0)
        return;
    memcpy(line, j->crash, j->crash_len);
    size_t n = j->crash_len;
    char digits[8];
    int d = 0;
    unsigned v = sig > 0 ? (unsigned)sig : 0;
    do
        digits[d++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && d < (int)sizeof digits);
    while (d > 0)
        line[n++] = digits[--d];
    memcpy(line + n, "}}\n", 3);
    (void)write_all(j->fd, line, n + 3);
}

void ompb__journal_close(ompb__journal *j, bool keep)
{
    if (j->fd < 0)
        return;
    close(j->fd);
    j->fd = -1;
    if (!keep)
        unlink(j->path);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct jreader {
    const char *path;
    size_t line;
    const ompb__instance *inst;
    size_t n_inst;
    ompb__journal_info *info;
    ompb_error *err;
    bool running;               /* a slot started and not complete */
    size_t running_instance;
    uint32_t running_repetition;
} jreader;

static int jbad(const jreader *jr, const char *what)
{
    return ompb__error_set(jr->err, OMPB_EINVAL, "%s: line %zu: %s", jr->path, jr->line, what);
}

static int read_header(const jreader *jr, const json_t *o)
{
    const json_t *v = json_object_get(o, "ompbench_journal");
    const json_t *seed = json_object_get(o, "seed");
    if (!json_is_integer(v))
        return jbad(jr, "not an ompbench journal (its first line has no \"ompbench_journal\")");
    if (json_integer_value(v) != 1)
        return jbad(jr, "a journal of another version (accepted: 1)");
    if (!json_is_integer(seed) || !json_is_array(json_object_get(o, "argv")))
        return jbad(jr, "the header has no \"seed\" or \"argv\"");
    jr->info->seed = (uint64_t)json_integer_value(seed);
    return 0;
}

/* Whether name is instance k's, as the writer escaped it. */
static bool names_instance(const jreader *jr, size_t k, const json_t *name)
{
    char text[OMPB__DUMP_ESCAPED_MAX + 256];
    ompb__utf8_escape(jr->inst[k].name, text, sizeof text);
    return strcmp(text, json_string_value(name)) == 0;
}

static int read_crash(const jreader *jr, const json_t *c)
{
    const json_t *sig = json_object_get(c, "signal"), *i = json_object_get(c, "instance");
    const json_t *rep = json_object_get(c, "repetition"), *name = json_object_get(c, "name");
    if (json_is_object(c) && json_object_size(c) == 1 && json_is_integer(sig) &&
        json_integer_value(sig) >= 1 && json_integer_value(sig) <= 64) {
        jr->info->crash_signal = (int)json_integer_value(sig); /* outside every slot */
        jr->info->crash_instance = SIZE_MAX;
        return 0;
    }
    if (!json_is_integer(sig) || json_integer_value(sig) < 1 || json_integer_value(sig) > 64 ||
        !json_is_integer(i) || json_integer_value(i) < 0 ||
        (uint64_t)json_integer_value(i) >= jr->n_inst || !json_is_integer(rep) ||
        json_integer_value(rep) < 0 || json_integer_value(rep) >= OMPB__MAX_REPETITIONS ||
        !json_is_string(name))
        return jbad(jr, "\"crash\" is not {instance, name, repetition, signal} of this run, "
                        "nor {signal}");
    size_t k = (size_t)json_integer_value(i);
    if (!names_instance(jr, k, name))
        return jbad(jr, "\"crash\" names another instance than this run's (a different "
                        "selection?)");
    jr->info->crash_signal = (int)json_integer_value(sig);
    jr->info->crash_instance = k;
    jr->info->crash_repetition = (uint32_t)json_integer_value(rep);
    return 0;
}

/* {"started": {instance, name, repetition}}: the slot that begins. */
static int read_started(jreader *jr, const json_t *s)
{
    const json_t *i = json_object_get(s, "instance"), *rep = json_object_get(s, "repetition");
    const json_t *name = json_object_get(s, "name");
    if (!json_is_object(s) || json_object_size(s) != 3 || !json_is_integer(i) ||
        json_integer_value(i) < 0 || (uint64_t)json_integer_value(i) >= jr->n_inst ||
        !json_is_integer(rep) || json_integer_value(rep) < 0 ||
        json_integer_value(rep) >= OMPB__MAX_REPETITIONS || !json_is_string(name))
        return jbad(jr, "\"started\" is not {instance, name, repetition} of this run");
    size_t k = (size_t)json_integer_value(i);
    if (!names_instance(jr, k, name))
        return jbad(jr, "\"started\" names another instance than this run's (a different "
                        "selection?)");
    jr->running = true;
    jr->running_instance = k;
    jr->running_repetition = (uint32_t)json_integer_value(rep);
    return 0;
}

static int read_entry(jreader *jr, const json_t *o, ompb__dump_record_fn fn, void *arg)
{
    const json_t *rec = json_object_get(o, "record"), *crash = json_object_get(o, "crash");
    const json_t *started = json_object_get(o, "started");
    if (!json_is_object(o) || json_object_size(o) != 1 || (!rec && !crash && !started))
        return jbad(jr, "neither {\"started\": ...}, {\"record\": ...} nor {\"crash\": ...}");
    if (jr->info->crash_signal)
        return jbad(jr, "a line after the crash line");
    if (crash)
        return read_crash(jr, crash);
    if (started)
        return read_started(jr, started);
    char where[OMPB__JOURNAL_PATH_MAX + 32];
    snprintf(where, sizeof where, "%s: line %zu", jr->path, jr->line);
    ompb__record r;
    size_t index = 0;
    memset(&r, 0, sizeof r);
    int rc = ompb__dump_record_from_json(rec, where, jr->info->records, jr->inst, jr->n_inst,
                                         &index, &r, jr->err);
    if (rc) {
        ompb__record_free(&r);
        return rc;
    }
    jr->info->records++;
    if (jr->running && index == jr->running_instance &&
        r.sampling.repetition == jr->running_repetition)
        jr->running = false; /* the slot started last is complete */
    return fn(arg, index, &r, jr->err);
}

/* Every whole line of text[len]; a cut last one is noted. */
static int read_lines(jreader *jr, const char *text, size_t len, ompb__dump_record_fn fn,
                      void *arg)
{
    size_t at = 0;
    int rc = 0;
    while (!rc && at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        jr->line++;
        if (!nl) {
            if (jr->line == 1)
                return jbad(jr, "not an ompbench journal (its first line is cut)");
            jr->info->truncated = true;
            break;
        }
        json_error_t jerr;
        json_t *o = json_loadb(text + at, (size_t)(nl - (text + at)), JSON_REJECT_DUPLICATES,
                               &jerr);
        if (!o) {
            char what[240];
            snprintf(what, sizeof what, "not a JSON object: %s", jerr.text);
            return jbad(jr, what);
        }
        rc = jr->line == 1 ? read_header(jr, o) : read_entry(jr, o, fn, arg);
        json_decref(o);
        at = (size_t)(nl - text) + 1;
    }
    if (!rc && jr->line == 0)
        return ompb__error_set(jr->err, OMPB_EINVAL, "%s: not an ompbench journal (empty)",
                               jr->path);
    return rc;
}

int ompb__journal_read(const char *path, const ompb__instance *inst, size_t n_inst,
                       ompb__dump_record_fn fn, void *arg, ompb__journal_info *info,
                       ompb_error *err)
{
    memset(info, 0, sizeof *info);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return ompb__error_set(err, OMPB_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (len == cap && !ompb__grow((void **)&text, &cap, len + 1, 1, 65536)) {
            rc = OMPB_ENOMEM;
            break;
        }
        size_t n = fread(text + len, 1, cap - len, fp);
        len += n;
        if (n == 0)
            break;
    }
    if (!rc && ferror(fp))
        rc = ompb__error_set(err, OMPB_EIO, "%s: cannot read: %s", path, strerror(errno));
    fclose(fp);
    info->crash_instance = SIZE_MAX;
    info->lost_instance = SIZE_MAX;
    jreader jr = {path, 0, inst, n_inst, info, err, false, 0, 0};
    if (!rc)
        rc = read_lines(&jr, text ? text : "", len, fn, arg);
    if (jr.running && !info->crash_signal) {
        info->lost_instance = jr.running_instance;
        info->lost_repetition = jr.running_repetition;
    }
    free(text);
    return rc;
}
