/* SPDX-License-Identifier: MIT */
/*
 * The fault cases of `ompbench trace` (tests/integration/trace_faults.sh):
 * N parallel regions (two threads), then an end chosen by MODE:
 *   exit   return from main (status 3)
 *   _exit  _exit(4)
 *   kill   raise SIGKILL
 *   segv   raise SIGSEGV
 *   fork   a child execs this program in mode exit with 2 regions (its
 *          own process, which inherits the preload); the parent waits for
 *          it and returns 0. (A fork child that opens a parallel region
 *          itself hangs in libgomp, traced or not, once the parent has
 *          threads: GNU OpenMP does not support it.)
 *   deaf   ignores SIGINT, SIGTERM and SIGHUP, creates the file READY
 *          (the third argument) and waits for a signal it cannot ignore:
 *          the command's --kill-after
 * Before kill and segv the program sleeps 1.5 s after its last region,
 * three times the trace's snapshot interval (0.5 s), so that every region
 * is in a snapshot.
 *
 * Usage: trace_faults MODE [N [READY]]
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int sink;

static void region(void)
{
#pragma omp parallel num_threads(2)
    sink += omp_get_thread_num();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "exit";
    int n = argc > 2 ? atoi(argv[2]) : 5;
    for (int i = 0; i < n; i++)
        region();
    if (strcmp(mode, "kill") == 0 || strcmp(mode, "segv") == 0 || strcmp(mode, "deaf") == 0) {
        struct timespec ts = {1, 500000000};
        nanosleep(&ts, NULL);
    }
    if (strcmp(mode, "_exit") == 0)
        _exit(4);
    if (strcmp(mode, "deaf") == 0 && argc > 3) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            close(fd);
        for (;;)
            pause();
    }
    if (strcmp(mode, "kill") == 0)
        raise(SIGKILL);
    if (strcmp(mode, "segv") == 0)
        raise(SIGSEGV);
    if (strcmp(mode, "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            execl(argv[0], argv[0], "exit", "2", (char *)NULL);
            _exit(127);
        }
        int status;
        waitpid(pid, &status, 0);
        return 0;
    }
    return 3;
}
