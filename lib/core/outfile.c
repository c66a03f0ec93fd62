/* SPDX-License-Identifier: MIT */
/*
 * Output targets. A path is classified once: a descriptor alias
 * (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is duplicated; symbolic links
 * are followed to the file they name; a regular or new file is written
 * through a temporary file in the same directory so that rename(2)
 * replaces it in one step; a device or FIFO is opened and written as it is.
 * Our descriptors are never 0-2, so a closed standard stream cannot end up
 * writing into a report. Temporary files are registered in fixed slots that
 * a signal handler can read without locks or allocation.
 */
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/signals.h"

#define TMP_SUFFIX ".tmp.XXXXXX"
/* Symbolic links followed before giving up, as the kernel's limit. */
#define MAX_LINKS 40
/* Temporary files one process may have open at once with signal cleanup
 * (the tools hold at most two); more are written without it. */
#define CLEANUP_SLOTS 8

typedef enum { TARGET_REGULAR, TARGET_DIRECT, TARGET_FD } target_kind;

typedef struct target {
    target_kind kind;
    char *path;         /* regular: the final file (maybe new); direct: the node */
    int fd;             /* TARGET_FD: the descriptor named */
    bool exists;        /* regular: there is a file to keep the mode of */
    struct stat st;
} target;

/* ---- signal cleanup -------------------------------------------------------- */

enum { SLOT_FREE, SLOT_BUSY, SLOT_ARMED };
static atomic_int slot_state[CLEANUP_SLOTS];
static char slot_path[CLEANUP_SLOTS][PATH_MAX];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
static pthread_once_t cleanup_once = PTHREAD_ONCE_INIT;

/* Async-signal-safe: unlink(2) and atomics only. Passed on, the signal
 * then meets the action found, the default, which ends the process with
 * the signal's status (lib/core/signals.h). */
static bool on_fatal_signal(int sig, const siginfo_t *info, void *arg)
{
    (void)sig;
    (void)info;
    (void)arg;
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (atomic_load(&slot_state[i]) == SLOT_ARMED)
            unlink(slot_path[i]);
    return false;
}

/* A forked child must not remove its parent's temporary files. */
static void forget_slots_in_child(void)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        atomic_store(&slot_state[i], SLOT_FREE);
}

/* Only signals left at their default: one the application handles or
 * ignores stays its business. The last step before the default, after
 * any other part of the library that takes the signal. */
static void install_cleanup(void)
{
    pthread_atfork(NULL, NULL, forget_slots_in_child);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        if (ompb__signal_app_action(cleanup_signals[i]) == OMPB__SIGNAL_APP_DEFAULT)
            (void)ompb__signal_register(cleanup_signals[i], on_fatal_signal, NULL,
                                        OMPB__SIGNAL_MASK_ALL | OMPB__SIGNAL_LAST);
}

static void block_cleanup_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaddset(&set, cleanup_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Registers path for removal on a fatal signal; returns the slot or -1. */
static int arm_cleanup(const char *path)
{
    if (strlen(path) >= PATH_MAX)
        return -1;
    for (int i = 0; i < CLEANUP_SLOTS; i++) {
        int expected = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&slot_state[i], &expected, SLOT_BUSY))
            continue;
        strcpy(slot_path[i], path);
        atomic_store(&slot_state[i], SLOT_ARMED);
        return i;
    }
    return -1;
}

static void disarm_cleanup(int slot)
{
    if (slot >= 0)
        atomic_store(&slot_state[slot], SLOT_FREE);
}

/* ---- classifying the path ---------------------------------------------------- */

static int fail_errno(ompb_error *err, const char *path, int errnum)
{
    return ompb__error_set(err, OMPB_EIO, "cannot write '%s': %s", path, strerror(errnum));
}

/* The temporary file beside target could not be made: the reason is about
 * its directory, not the file (a file of /proc or /sys exists, but no new
 * file can be made beside it), so the message says which it is. */
static int fail_temp(ompb_error *err, const char *path, const char *file, int errnum)
{
    const char *slash = strrchr(file, '/'), *dir = slash ? file : ".";
    int len = !slash ? 1 : slash == file ? 1 : (int)(slash - file);
    return ompb__error_set(err, OMPB_EIO, "cannot write '%s': no temporary file can be created "
                           "beside it in '%.*s' (a file is replaced in one step): %s", path, len,
                           dir, strerror(errnum));
}

/* Digits only, at most INT_MAX; -1 otherwise. */
static int parse_fd(const char *s)
{
    long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > INT_MAX / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v <= INT_MAX ? (int)v : -1;
}

/* The descriptor a path stands for (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N, /proc/<our pid>/fd/N), or -1. Opening such a path would
 * reopen the file behind the descriptor (from offset 0, or not at all for a
 * socket); duplicating it writes where the shell pointed it. */
static int fd_alias(const char *p)
{
    static const struct { const char *name; int fd; } std[] = {
        {"/dev/stdin", 0}, {"/dev/stdout", 1}, {"/dev/stderr", 2}};
    static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
    for (size_t i = 0; i < sizeof std / sizeof std[0]; i++)
        if (strcmp(p, std[i].name) == 0)
            return std[i].fd;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strncmp(p, dirs[i], strlen(dirs[i])) == 0)
            return parse_fd(p + strlen(dirs[i]));
    char own[48];
    int n = snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
    return strncmp(p, own, (size_t)n) == 0 ? parse_fd(p + n) : -1;
}

/* The path a symbolic link at link points to: its text, relative to the
 * link's directory unless absolute. NULL with errno set on failure. */
static char *follow(const char *link, size_t size_hint)
{
    size_t cap = size_hint > 0 && size_hint < PATH_MAX ? size_hint + 1 : PATH_MAX;
    char *text = malloc(cap);
    ssize_t n = text ? readlink(link, text, cap - 1) : -1;
    if (n < 0) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    const char *slash = strrchr(link, '/');
    if (text[0] == '/' || !slash)
        return text;
    size_t dir = (size_t)(slash - link) + 1;
    char *joined = malloc(dir + (size_t)n + 1);
    if (joined) {
        memcpy(joined, link, dir);
        memcpy(joined + dir, text, (size_t)n + 1);
    }
    free(text);
    errno = joined ? errno : ENOMEM;
    return joined;
}

/* Fills t for the node at t->path after links; 0 or an errno value. */
static int classify_node(target *t)
{
    if (S_ISDIR(t->st.st_mode))
        return EISDIR;
    if (S_ISREG(t->st.st_mode)) {
        t->kind = TARGET_REGULAR;
        t->exists = true;
        /* As a shell redirection: a file we may not write is not ours to replace. */
        return faccessat(AT_FDCWD, t->path, W_OK, AT_EACCESS) == 0 ? 0 : errno;
    }
    t->kind = TARGET_DIRECT;
    return 0;
}

/* Follows links from path to a descriptor alias, a node or a name that
 * does not exist yet (a dangling link creates its target, as open does). */
static int classify(const char *path, target *t)
{
    memset(t, 0, sizeof *t);
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        if ((t->fd = fd_alias(cur)) >= 0) {
            t->kind = TARGET_FD;
            t->path = cur;
            return 0;
        }
        if (lstat(cur, &t->st) != 0) {
            t->path = cur;
            t->kind = TARGET_REGULAR;
            return errno == ENOENT ? 0 : errno;
        }
        if (!S_ISLNK(t->st.st_mode)) {
            t->path = cur;
            return classify_node(t);
        }
        if (hops == MAX_LINKS) {
            free(cur);
            return ELOOP;
        }
        char *next = follow(cur, (size_t)t->st.st_size);
        free(cur);
        cur = next;
    }
    return errno ? errno : ENOMEM;
}

/* ---- opening ------------------------------------------------------------------ */

/* Moves fd to 3 or above (close-on-exec): fds 0-2 belong to the standard
 * streams, even when closed. Returns the new fd, or -1 (fd is closed). */
static int above_stdio(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int e = errno;
    close(fd);
    errno = e;
    return moved;
}


/* The stream on fd (negative: the open that failed, errno set), or the
 * error naming the path; fd is closed when no stream takes it. */
static int stream_on(ompb__outfile *of, int fd, ompb_error *err)
{
    if (fd < 0 || !(of->fp = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return fail_errno(err, of->path, e);
    }
    return 0;
}
static int open_fd_alias(ompb__outfile *of, const target *t, ompb_error *err)
{
    int flags = fcntl(t->fd, F_GETFL);
    if (flags < 0)
        return fail_errno(err, of->path, errno);
    if ((flags & O_ACCMODE) == O_RDONLY)
        return ompb__error_set(err, OMPB_EIO, "cannot write '%s': descriptor %d is open for "
                               "reading only", of->path, t->fd);
    return stream_on(of, fcntl(t->fd, F_DUPFD_CLOEXEC, 3), err);
}

static int open_direct(ompb__outfile *of, const target *t, ompb_error *err)
{
    int fd = open(t->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == ENXIO && S_ISSOCK(t->st.st_mode))
        return ompb__error_set(err, OMPB_EIO, "cannot write '%s': it is a socket (accepted: a "
                               "file, a device, a FIFO or a descriptor such as /dev/stdout)",
                               of->path);
    return stream_on(of, above_stdio(fd), err);
}

/* target + ".tmp.XXXXXX", the name part cut so that it fits NAME_MAX. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    size_t base = strlen(path) - dir;
    size_t keep = base + strlen(TMP_SUFFIX) > NAME_MAX ? NAME_MAX - strlen(TMP_SUFFIX) : base;
    char *tmp = malloc(dir + keep + sizeof TMP_SUFFIX);
    if (tmp) {
        memcpy(tmp, path, dir + keep);
        memcpy(tmp + dir + keep, TMP_SUFFIX, sizeof TMP_SUFFIX);
    }
    return tmp;
}

/* The new file gets the old one's owner and mode, or what open(2) gives. */
static void set_mode(int fd, const target *t)
{
    if (t->exists) {
        /* A (void) cast does not quiet the warn_unused_result that
         * _FORTIFY_SOURCE puts on fchown (Debian's package build). */
        if ((t->st.st_uid != geteuid() || t->st.st_gid != getegid())
            && fchown(fd, t->st.st_uid, t->st.st_gid) != 0) {
            /* Only root may give a file away: it keeps its new owner. */
        }
        (void)fchmod(fd, t->st.st_mode & 07777);
        return;
    }
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
}

/* mkstemp and arming under blocked signals: no window in which a signal
 * would leave the file behind. */
static int make_temp(ompb__outfile *of)
{
    sigset_t old;
    pthread_once(&cleanup_once, install_cleanup);
    block_cleanup_signals(&old);
    int fd = mkstemp(of->tmp);
    if (fd >= 0)
        of->slot = arm_cleanup(of->tmp);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

static int open_regular(ompb__outfile *of, target *t, ompb_error *err)
{
    of->target = t->path;
    t->path = NULL;
    if (!(of->tmp = temp_name(of->target)))
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    int fd = make_temp(of);
    if (fd < 0) {
        int e = errno;
        free(of->tmp);
        of->tmp = NULL;
        return fail_temp(err, of->path, of->target, e);
    }
    set_mode(fd, t);
    return stream_on(of, above_stdio(fd), err);
}

static int open_target(ompb__outfile *of, target *t, ompb_error *err)
{
    switch (t->kind) {
    case TARGET_FD: return open_fd_alias(of, t, err);
    case TARGET_DIRECT: return open_direct(of, t, err);
    default: return open_regular(of, t, err);
    }
}

static int start(ompb__outfile *of, const char *path, target *t, ompb_error *err)
{
    memset(of, 0, sizeof *of);
    memset(t, 0, sizeof *t);
    of->slot = -1;
    if (!*path)
        return ompb__error_set(err, OMPB_EIO, "output path is empty (accepted: a file path)");
    if (!(of->path = strdup(path)))
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    int e = classify(path, t);
    if (e == EISDIR)
        return ompb__error_set(err, OMPB_EIO, "cannot write '%s': is a directory", path);
    return e ? fail_errno(err, path, e) : 0;
}

/* ---- public functions ------------------------------------------------------- */

int ompb__outfile_open(ompb__outfile *of, const char *path, ompb_error *err)
{
    target t;
    int rc = start(of, path, &t, err);
    if (rc == 0)
        rc = open_target(of, &t, err);
    free(t.path);
    if (rc)
        ompb__outfile_abort(of);
    return rc;
}

static int commit_regular(ompb__outfile *of, int *errnum)
{
    bool failed = ferror(of->fp) != 0;
    *errnum = failed ? EIO : 0;
    if (fflush(of->fp) != 0 || fsync(fileno(of->fp)) != 0) {
        *errnum = errno;
        failed = true;
    }
    if (fclose(of->fp) != 0 && !failed) {
        *errnum = errno;
        failed = true;
    }
    of->fp = NULL;
    if (!failed && rename(of->tmp, of->target) != 0) {
        *errnum = errno;
        failed = true;
    }
    return failed;
}

/* Devices, FIFOs, descriptors: no fsync (a pipe has none); every buffered
 * byte must reach the target, so /dev/full is an error. */
static int commit_direct(ompb__outfile *of, int *errnum)
{
    bool failed = ferror(of->fp) != 0;
    *errnum = failed ? EIO : 0;
    if (fflush(of->fp) != 0) {
        *errnum = errno;
        failed = true;
    }
    if (fclose(of->fp) != 0 && !failed) {
        *errnum = errno;
        failed = true;
    }
    of->fp = NULL;
    return failed;
}

int ompb__outfile_commit(ompb__outfile *of, ompb_error *err)
{
    int e;
    bool failed = of->tmp ? commit_regular(of, &e) : commit_direct(of, &e);
    if (failed) {
        fail_errno(err, of->path, e);
        ompb__outfile_abort(of);
        return OMPB_EIO;
    }
    disarm_cleanup(of->slot);
    free(of->tmp);
    free(of->target);
    free(of->path);
    memset(of, 0, sizeof *of);
    of->slot = -1;
    return 0;
}

static int probe_target(const char *path, const target *t, ompb_error *err)
{
    if (t->kind == TARGET_FD) {
        int flags = fcntl(t->fd, F_GETFL);
        if (flags < 0)
            return fail_errno(err, path, errno);
        return (flags & O_ACCMODE) == O_RDONLY ? fail_errno(err, path, EBADF) : 0;
    }
    if (faccessat(AT_FDCWD, t->path, W_OK, AT_EACCESS) != 0)
        return fail_errno(err, path, errno);
    return 0;
}

bool ompb__outfile_is_regular(const char *path)
{
    target t;
    bool regular = classify(path, &t) == 0 && t.kind == TARGET_REGULAR;
    free(t.path);
    return regular;
}

int ompb__outfile_probe(const char *path, ompb_error *err)
{
    ompb__outfile of;
    target t;
    int rc = start(&of, path, &t, err);
    if (rc == 0 && t.kind != TARGET_REGULAR)
        rc = probe_target(path, &t, err);
    else if (rc == 0)
        rc = open_target(&of, &t, err);
    free(t.path);
    ompb__outfile_abort(&of);
    return rc;
}

/* The name of the file path would create, once symbolic links (dangling
 * ones too) are followed, its directory made absolute: two names of one
 * file that does not exist yet give one string. NULL when path names an
 * existing node or cannot be resolved. Caller frees. */
static char *new_file_name(const char *path)
{
    target t;
    char *dir = NULL, *real = NULL, *name = NULL;
    if (classify(path, &t) == 0 && t.kind == TARGET_REGULAR && !t.exists) {
        const char *slash = strrchr(t.path, '/');
        dir = slash ? strndup(t.path, slash == t.path ? 1 : (size_t)(slash - t.path)) : strdup(".");
        real = dir ? realpath(dir, NULL) : NULL;
        if (real && asprintf(&name, "%s/%s", real, slash ? slash + 1 : t.path) < 0)
            name = NULL;
    }
    free(t.path);
    free(dir);
    free(real);
    return name;
}

/* Whether input names the file at path: by device and inode when path
 * exists (out), else by the name both would create (an output not
 * written yet, checked against another output). */
static bool same_file(const struct stat *out, const char *out_name, const char *input)
{
    struct stat in;
    if (!input)
        return false;
    if (out)
        return stat(input, &in) == 0 && in.st_dev == out->st_dev && in.st_ino == out->st_ino;
    char *in_name = out_name ? new_file_name(input) : NULL;
    bool same = in_name && strcmp(in_name, out_name) == 0;
    free(in_name);
    return same;
}

int ompb__outfile_check_inputs(const char *opt, const char *path,
                               const ompb__outfile_input *inputs, size_t n, ompb_error *err)
{
    struct stat out;
    bool exists = stat(path, &out) == 0;
    /* A terminal or /dev/null may well be both: writing it replaces nothing. */
    if (exists && (S_ISCHR(out.st_mode) || S_ISBLK(out.st_mode)))
        return 0;
    char *out_name = exists ? NULL : new_file_name(path);
    size_t i = 0;
    while (i < n && !same_file(exists ? &out : NULL, out_name, inputs[i].path))
        i++;
    free(out_name);
    if (i == n)
        return 0;
    return ompb__error_set(err, OMPB_EINVAL, "%s: '%s' is the same file as %s '%s', which "
                           "would be replaced (accepted: a file that is none of the inputs)",
                           opt, path, inputs[i].label, inputs[i].path);
}

void ompb__outfile_abort(ompb__outfile *of)
{
    if (of->fp)
        fclose(of->fp);
    if (of->tmp)
        unlink(of->tmp);
    disarm_cleanup(of->slot);
    free(of->tmp);
    free(of->target);
    free(of->path);
    memset(of, 0, sizeof *of);
    of->slot = -1;
}

int ompb__outfile_flush_stdout(ompb_error *err)
{
    bool failed = ferror(stdout) != 0;
    int e = failed ? EIO : 0;
    if (fflush(stdout) != 0) {
        e = errno;
        failed = true;
    }
    if (!failed)
        return 0;
    /* An earlier failed write left only the error flag: a closed stdout
     * (EBADF) is worth saying in words. */
    if (e == EBADF || fcntl(STDOUT_FILENO, F_GETFD) < 0)
        return ompb__error_set(err, OMPB_EIO, "cannot write standard output: it is closed");
    return ompb__error_set(err, OMPB_EIO, "cannot write standard output: %s", strerror(e));
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

void ompb__outfile_c_locale(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    if (c_locale)
        uselocale(c_locale);
}
