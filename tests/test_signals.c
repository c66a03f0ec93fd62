/* SPDX-License-Identifier: MIT */
/*
 * The signal owner (lib/core/signals.c): the order of the registered
 * handlers and of the action found, two owners registering at once, the
 * action put back, someone else's sigaction, SA_RESETHAND's semantics,
 * the flags, ignoring for good, and a fork child. The signals used get a
 * handler of the test's own as the action found, so a stray delivery
 * cannot end the test process; each test puts back what it found.
 */
#include "core/signals.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.h"
#include "suite.h"

/* Who was called, in order: letters, appended by the handlers. */
#define LOG_CAP 64
static char log_buf[LOG_CAP];
static atomic_int log_len;

static void note(char c)
{
    int i = atomic_fetch_add(&log_len, 1);
    if (i < LOG_CAP - 1)
        log_buf[i] = c;
}

static const char *take_log(void)
{
    static char out[LOG_CAP];
    int n = atomic_exchange(&log_len, 0);
    n = n < LOG_CAP - 1 ? n : LOG_CAP - 1;
    memcpy(out, log_buf, (size_t)n);
    out[n] = '\0';
    return out;
}

static void prior(int sig)
{
    (void)sig;
    note('P');
}

static void other(int sig)
{
    (void)sig;
    note('X');
}

/* Registered handlers: arg is the letter; 'pass' ones hand it on. */
static bool pass(int sig, const siginfo_t *info, void *arg)
{
    (void)sig;
    (void)info;
    note(*(const char *)arg);
    return false;
}

static bool take(int sig, const siginfo_t *info, void *arg)
{
    (void)sig;
    (void)info;
    note(*(const char *)arg);
    return true;
}

/* Newest first, the LAST class after the others, then the action found;
 * a handler that takes the signal ends the chain; the last
 * unregistration puts the action found back. */
static void test_order_and_put_back(void)
{
    struct sigaction old;
    ompb_test_set_action(SIGUSR1, prior, &old);
    take_log();
    int a = ompb__signal_register(SIGUSR1, pass, "A", 0);
    int l = ompb__signal_register(SIGUSR1, pass, "L", OMPB__SIGNAL_LAST);
    int b = ompb__signal_register(SIGUSR1, pass, "B", 0);
    CU_ASSERT_FATAL(a >= 0 && b >= 0 && l >= 0);
    CU_ASSERT_PTR_NULL(ompb_test_handler_of(SIGUSR1)); /* the dispatcher */
    CU_ASSERT_EQUAL(ompb__signal_app_action(SIGUSR1), OMPB__SIGNAL_APP_HANDLED);
    raise(SIGUSR1);
    CU_ASSERT_STRING_EQUAL(take_log(), "BALP");
    int t = ompb__signal_register(SIGUSR1, take, "T", 0);
    raise(SIGUSR1);
    CU_ASSERT_STRING_EQUAL(take_log(), "T");
    ompb__signal_unregister(t);
    ompb__signal_unregister(a);
    raise(SIGUSR1);
    CU_ASSERT_STRING_EQUAL(take_log(), "BLP");
    ompb__signal_unregister(b);
    CU_ASSERT_PTR_NULL(ompb_test_handler_of(SIGUSR1));
    ompb__signal_unregister(l);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR1), prior);
    ompb__signal_unregister(l); /* twice, and -1: harmless */
    ompb__signal_unregister(-1);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR1), prior);
    errno = 0;
    CU_ASSERT_EQUAL(ompb__signal_register(SIGKILL, pass, "K", 0), -1);
    CU_ASSERT_EQUAL(errno, EINVAL);
    sigaction(SIGUSR1, &old, NULL);
}

/* ---- two owners at once ---------------------------------------------------- */

typedef struct owner {
    char letter[2];
    pthread_barrier_t *start;
    int rounds;
    atomic_bool *failed;
} owner;

/* Registers and unregisters SIGINT and SIGTERM, as two parts of the
 * library do when they start and end at the same time. */
static void *churn(void *arg)
{
    owner *o = arg;
    pthread_barrier_wait(o->start);
    for (int i = 0; i < o->rounds; i++) {
        int a = ompb__signal_register(SIGINT, pass, o->letter, 0);
        int b = ompb__signal_register(SIGTERM, pass, o->letter, OMPB__SIGNAL_RESTART);
        if (a < 0 || b < 0)
            atomic_store(o->failed, true);
        ompb__signal_unregister(b);
        ompb__signal_unregister(a);
    }
    return NULL;
}

/* Two owners registering SIGINT and SIGTERM concurrently while signals
 * arrive: every signal reaches the end of the chain (the action found),
 * none is lost or ends the process, and the action found comes back.
 * Then both registered: both are called, the newer first, and either may
 * go first. */
static void test_two_owners(void)
{
    struct sigaction old_int, old_term;
    ompb_test_set_action(SIGINT, prior, &old_int);
    ompb_test_set_action(SIGTERM, prior, &old_term);
    take_log();
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 3);
    atomic_bool failed = false;
    owner o[2] = {{"A", &start, 2000, &failed}, {"B", &start, 2000, &failed}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, churn, &o[i]), 0);
    pthread_barrier_wait(&start);
    int raised = 0;
    for (; raised < 400; raised++) {
        raise(raised % 2 ? SIGTERM : SIGINT);
        /* Each delivery ends with one P: count them as they come. */
        const char *got = take_log();
        if (strchr(got, 'P') == NULL || strchr(got, 'P') != strrchr(got, 'P') ||
            got[strlen(got) - 1] != 'P') {
            CU_FAIL("a signal did not end at the action found exactly once");
            break;
        }
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    CU_ASSERT_FALSE(atomic_load(&failed));
    CU_ASSERT_EQUAL(raised, 400);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGINT), prior);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGTERM), prior);

    int a = ompb__signal_register(SIGINT, pass, "A", 0);
    int b = ompb__signal_register(SIGINT, pass, "B", 0);
    raise(SIGINT);
    CU_ASSERT_STRING_EQUAL(take_log(), "BAP");
    ompb__signal_unregister(a); /* out of order */
    raise(SIGINT);
    CU_ASSERT_STRING_EQUAL(take_log(), "BP");
    ompb__signal_unregister(b);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGINT), prior);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
}

/* ---- someone else's sigaction ------------------------------------------------ */

/* A handler installed over the dispatcher stands (the registration is not
 * live); the next registration adopts it as the action found and shadows
 * the older one; the last live unregistration puts it back. */
static void test_replaced_then_adopted(void)
{
    struct sigaction old;
    ompb_test_set_action(SIGUSR1, prior, &old);
    take_log();
    int a = ompb__signal_register(SIGUSR1, pass, "A", 0);
    CU_ASSERT_TRUE(ompb__signal_live(a));
    ompb_test_set_action(SIGUSR1, other, NULL);
    CU_ASSERT_FALSE(ompb__signal_live(a));
    raise(SIGUSR1);
    CU_ASSERT_STRING_EQUAL(take_log(), "X");
    int b = ompb__signal_register(SIGUSR1, pass, "B", 0);
    CU_ASSERT_TRUE(ompb__signal_live(b));
    CU_ASSERT_FALSE(ompb__signal_live(a));
    raise(SIGUSR1);
    CU_ASSERT_STRING_EQUAL(take_log(), "BX");
    ompb__signal_unregister(b);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR1), other);
    ompb__signal_unregister(a);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR1), other);
    sigaction(SIGUSR1, &old, NULL);
}

/* Two live registrations and a handler installed over them: it stands
 * until one of them goes, when the dispatcher comes back for the other. */
static void test_replaced_then_unregistered(void)
{
    struct sigaction old;
    ompb_test_set_action(SIGUSR1, prior, &old);
    take_log();
    int a = ompb__signal_register(SIGUSR1, pass, "A", 0);
    int b = ompb__signal_register(SIGUSR1, pass, "B", 0);
    ompb_test_set_action(SIGUSR1, other, NULL);
    raise(SIGUSR1);
    CU_ASSERT_STRING_EQUAL(take_log(), "X");
    ompb__signal_unregister(b);
    CU_ASSERT_PTR_NULL(ompb_test_handler_of(SIGUSR1));
    CU_ASSERT_TRUE(ompb__signal_live(a));
    raise(SIGUSR1);
    CU_ASSERT_STRING_EQUAL(take_log(), "AP");
    ompb__signal_unregister(a);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR1), prior);
    sigaction(SIGUSR1, &old, NULL);
}

/* Ignoring for good shadows every registration: unregistering them keeps
 * the signal ignored. */
static void test_ignore_repeats(void)
{
    struct sigaction old;
    ompb_test_set_action(SIGUSR1, prior, &old);
    int a = ompb__signal_register(SIGUSR1, take, "A", 0);
    ompb__signal_ignore_repeats(SIGUSR1);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR1), SIG_IGN);
    CU_ASSERT_FALSE(ompb__signal_live(a));
    CU_ASSERT_EQUAL(ompb__signal_app_action(SIGUSR1), OMPB__SIGNAL_APP_IGNORED);
    ompb__signal_unregister(a);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR1), SIG_IGN);
    sigaction(SIGUSR1, &old, NULL);
}

/* ---- flags ---------------------------------------------------------------------- */

/* The dispatcher's flags are the union of the live registrations'; a
 * RESETHAND registration that passes puts the action found back for good
 * and hands the signal to it. */
static void test_flags_and_resethand(void)
{
    struct sigaction old, now;
    ompb_test_set_action(SIGUSR2, prior, &old);
    take_log();
    int a = ompb__signal_register(SIGUSR2, pass, "A", OMPB__SIGNAL_RESTART);
    int b = ompb__signal_register(SIGUSR2, pass, "B",
                                  OMPB__SIGNAL_ONSTACK | OMPB__SIGNAL_MASK_ALL);
    sigaction(SIGUSR2, NULL, &now);
    CU_ASSERT_TRUE(now.sa_flags & SA_SIGINFO);
    CU_ASSERT_TRUE(now.sa_flags & SA_RESTART);
    CU_ASSERT_TRUE(now.sa_flags & SA_ONSTACK);
    CU_ASSERT_EQUAL(sigismember(&now.sa_mask, SIGINT), 1);
    ompb__signal_unregister(b);
    sigaction(SIGUSR2, NULL, &now);
    CU_ASSERT_FALSE(now.sa_flags & SA_ONSTACK);
    CU_ASSERT_EQUAL(sigismember(&now.sa_mask, SIGINT), 0);
    ompb__signal_unregister(a);

    int r = ompb__signal_register(SIGUSR2, pass, "R", OMPB__SIGNAL_RESETHAND);
    raise(SIGUSR2);
    CU_ASSERT_STRING_EQUAL(take_log(), "RP"); /* raised again, to the action found */
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR2), prior);
    CU_ASSERT_FALSE(ompb__signal_live(r));
    ompb__signal_unregister(r);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR2), prior);
    /* Not the dispatcher's: putting back leaves someone else's action. */
    ompb_test_set_action(SIGUSR2, SIG_IGN, NULL);
    ompb__signal_put_back(SIGUSR2);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR2), SIG_IGN);
    sigaction(SIGUSR2, &old, NULL);
}

/* ---- fork -------------------------------------------------------------------------- */

/* A registration belongs to its process: in a fork child the signal goes
 * to the action found (the default: the child dies of it), while the
 * parent's registration still takes it. */
static void test_fork_child(void)
{
    struct sigaction old, dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGUSR2, &dfl, &old);
    take_log();
    int a = ompb__signal_register(SIGUSR2, take, "A", 0);
    CU_ASSERT_EQUAL(ompb__signal_app_action(SIGUSR2), OMPB__SIGNAL_APP_DEFAULT);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        raise(SIGUSR2);
        _exit(0);
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR2);
    raise(SIGUSR2);
    CU_ASSERT_STRING_EQUAL(take_log(), "A");
    ompb__signal_unregister(a);
    CU_ASSERT_PTR_EQUAL(ompb_test_handler_of(SIGUSR2), SIG_DFL);
    sigaction(SIGUSR2, &old, NULL);
}

static const ompb_test_case cases[] = {
    {"order_and_put_back", test_order_and_put_back},
    {"two_owners", test_two_owners},
    {"replaced_then_adopted", test_replaced_then_adopted},
    {"replaced_then_unregistered", test_replaced_then_unregistered},
    {"ignore_repeats", test_ignore_repeats},
    {"flags_and_resethand", test_flags_and_resethand},
    {"fork_child", test_fork_child},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_signals = {"signals", NULL, NULL, cases};
