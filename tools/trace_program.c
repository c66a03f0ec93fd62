/* SPDX-License-Identifier: MIT */
/*
 * What `ompbench trace` checks before it runs a program: that it is found
 * and executable, that it is a dynamically linked ELF program (a static one
 * ignores LD_PRELOAD, a script runs its programs in other processes), and
 * which OpenMP runtime it loads (one: libgomp, or libomp or Intel's
 * libiomp5, traced through OMPT), from the dynamic loader's own list
 * (LD_TRACE_LOADED_OBJECTS=1, what ldd does: the loader lists the
 * libraries and exits without running the program). A runtime the program
 * would dlopen later is not seen.
 */
#include "trace.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools.h"

#define bad(...) ompb__tool_usage_error(OMPB__TRACE_TOOL, __VA_ARGS__)
#define ACCEPTED "accepted: a dynamically linked ELF program that uses libgomp or libomp"
#define LIST_TIMEOUT_MS 10000
#define LIST_MAX 65536

/* program as execvp finds it: itself with a '/', else the first
 * executable regular file of that name in PATH. */
static int find(const char *program, char *path, size_t size)
{
    if (strchr(program, '/')) {
        snprintf(path, size, "%s", program);
        return 0;
    }
    const char *dirs = getenv("PATH");
    for (const char *p = dirs && *dirs ? dirs : "/usr/bin:/bin"; p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(path, size, "%.*s%s%s", (int)n, p, n ? "/" : "", program);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return 0;
        p = colon ? colon + 1 : NULL;
    }
    return -1;
}

/* 1 when the ELF file has a PT_INTERP (dynamically linked), 0 when not,
 * -1 when it is no ELF file this machine's class reads. */
static int dynamic_elf(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    Elf64_Ehdr eh;
    int rc = -1;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh
        && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64
        && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        rc = 0;
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            off_t at = (off_t)(eh.e_phoff + i * sizeof ph);
            if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph)
                break;
            if (ph.p_type == PT_INTERP)
                rc = 1;
        }
    }
    close(fd);
    return rc;
}

/* The loader's list of what path loads, into buf (NUL-terminated); 0 or
 * -1 (no list within LIST_TIMEOUT_MS). */
static int loaded_list(const char *path, char *buf, size_t size)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = LIST_TIMEOUT_MS - (long)((t.tv_sec - t0.tv_sec) * 1000
                                             + (t.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        if (pid < 0 || left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            break;
        ssize_t r = read(fds[0], buf + n, size - 1 - n);
        if (r <= 0 || (n += (size_t)r) >= size - 1)
            break;
    }
    buf[n] = '\0';
    close(fds[0]);
    int status = 0;
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    return pid > 0 ? 0 : -1;
}

/* The first library name in list that starts with prefix, into out. */
static void runtime(const char *list, const char *prefix, char *out, size_t size)
{
    out[0] = '\0';
    for (const char *line = list; line && *line;) {
        while (*line == '\t' || *line == ' ')
            line++;
        size_t n = strcspn(line, " \n");
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            snprintf(out, size, "%.*s", (int)n, line);
            return;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
}

int ompb__trace_check_program(const char *program, char *path, size_t path_size,
                              ompb__trace_runtimes *rt)
{
    struct stat st;
    if (find(program, path, path_size) != 0 || stat(path, &st) != 0)
        return bad("program '%s' not found (%s)", program, ACCEPTED);
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return bad("program '%s' is not executable (%s)", path, ACCEPTED);
    int dyn = dynamic_elf(path);
    if (dyn < 0)
        return bad("program '%s' is not a 64-bit ELF program (%s; a script's programs run "
                   "in other processes, which are not traced)", path, ACCEPTED);
    if (dyn == 0)
        return bad("program '%s' is statically linked: it ignores the preloaded tracing "
                   "library (%s)", path, ACCEPTED);
    char *list = malloc(LIST_MAX);
    if (!list || loaded_list(path, list, LIST_MAX) != 0) {
        free(list);
        return bad("program '%s': its dynamic loader listed no libraries (%s)", path, ACCEPTED);
    }
    runtime(list, "libgomp.so", rt->gomp, sizeof rt->gomp);
    runtime(list, "libomp.so", rt->omp, sizeof rt->omp);
    if (!rt->omp[0])
        runtime(list, "libiomp5.so", rt->omp, sizeof rt->omp);
    free(list);
    if (rt->gomp[0] && rt->omp[0])
        return bad("program '%s' loads two OpenMP runtimes, %s and %s (%s)", path, rt->gomp,
                   rt->omp, ACCEPTED);
    const char *tool = getenv("OMP_TOOL");
    if (rt->omp[0] && tool && strcmp(tool, "disabled") == 0)
        return bad("program '%s' uses %s, whose regions trace sees through OMPT, and "
                   "OMP_TOOL=disabled turns OMPT off (%s; unset OMP_TOOL)", path, rt->omp,
                   ACCEPTED);
    if (!rt->gomp[0] && !rt->omp[0])
        return bad("program '%s' loads no OpenMP runtime (%s)", path, ACCEPTED);
    return 0;
}
