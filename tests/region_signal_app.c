/* SPDX-License-Identifier: MIT */
/*
 * An application with region markers that the test stops with a signal
 * (tests/integration/region_signal.sh): "done" x5 serially and "team" x4 in
 * a team of 2, then it creates the file MARK and runs "spin" (10 ms each)
 * until the signal arrives (at most a minute). With `blocked`, every thread
 * blocks every signal first (only the library's watcher can take them);
 * with `handled`, the application installs its own SIGTERM handler before
 * its first region (which then stays its own: it ends the loop and main
 * returns, and the report at exit is complete). With `fork`, a fork child
 * made after the regions writes its process id to MARK and sleeps: a
 * SIGTERM must end it as it would any process (status 0 when it did).
 *
 * Usage: region_signal_app MARK [blocked|handled|fork]
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ompbench.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The child sleeps until a signal ends it (at most a minute). */
static int forked(const char *mark)
{
    pid_t pid = fork();
    if (pid == 0) {
        char tmp[4200], text[24];
        snprintf(tmp, sizeof tmp, "%s.tmp", mark);
        FILE *fp = fopen(tmp, "w");
        snprintf(text, sizeof text, "%ld\n", (long)getpid());
        if (fp && fputs(text, fp) >= 0 && fclose(fp) == 0)
            rename(tmp, mark);
        for (int i = 0; i < 6000; i++)
            nap_ms(10);
        _exit(1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 1;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: region_signal_app MARK [blocked|handled]\n");
        return 2;
    }
    const char *how = argc > 2 ? argv[2] : "";
    sigset_t all;
    sigfillset(&all);
    if (strcmp(how, "blocked") == 0)
        pthread_sigmask(SIG_BLOCK, &all, NULL); /* inherited by every thread made later */
    if (strcmp(how, "handled") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
    }
    for (int i = 0; i < 5; i++) {
        ompb_region_begin("done");
        nap_ms(1);
        ompb_region_end("done");
    }
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 4; i++) {
        ompb_region_begin("team");
        nap_ms(1);
#pragma omp barrier
        ompb_region_end("team");
    }
    if (strcmp(how, "fork") == 0)
        return forked(argv[1]);
    close(open(argv[1], O_WRONLY | O_CREAT, 0644));
    for (int i = 0; i < 6000 && !stop; i++) {
        ompb_region_begin("spin");
        nap_ms(10);
        ompb_region_end("spin");
    }
    return 0;
}
