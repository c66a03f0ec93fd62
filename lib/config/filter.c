/* SPDX-License-Identifier: MIT */
/*
 * The bounded --filter compile. A small recursive-descent reading of the
 * ERE grammar as glibc parses it (groups, alternation, bracket expressions,
 * escapes, * + ? and {m,n}) estimates what regcomp would build: X{m,n}
 * becomes n copies of X, the n - m optional ones nested, and the epsilon
 * closures of the nodes (what glibc computes for every node) grow with the
 * square of the chains that optional and nullable parts make, an anchor
 * inside them with the square of its reach (measured: 'a{1,1000}' 10 MB,
 * 'a{1,10000}' 790 MB, '(((a?){1,20}){1,20}){1,20}' 1.5 GB, '($){1,300}'
 * 114 MB). The estimate is an upper bound within a small factor; patterns
 * above the limit, nested deeper than glibc's recursion survives, or with
 * back-references are refused without calling regcomp.
 */
#include "config/filter.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/core.h"

/* Saturation point of the estimate: far above any limit. */
#define COST_CAP (UINT64_C(1) << 62)
/* Repetition counts beyond RE_DUP_MAX (32767) are refused by regcomp; read
 * them only this far (and estimate them as too large). */
#define COUNT_CAP 1000000
/* glibc's RE_DUP_MAX: regcomp refuses larger counts. */
#define DUP_MAX 0x7fff
/* Nesting of groups: glibc's parser recurses per level and overflows an
 * 8 MB stack near 50000 levels; names need a handful. */
#define MAX_DEPTH 256
/* CPU seconds a trial regcomp may take (see trial_compile): ordinary
 * patterns take microseconds, the largest the estimate accepts well under
 * a second. */
#ifndef OMPB__FILTER_TRIAL_CPU_S
#define OMPB__FILTER_TRIAL_CPU_S 2 /* fuzz/fuzz_options: 1 */
#endif
#define TRIAL_CPU_S OMPB__FILTER_TRIAL_CPU_S

/* What a subexpression X costs glibc. Its parse tree is expanded (copies
 * of X for X{m,n}), and then every node gets its epsilon closure: the nodes
 * reachable from it without consuming a character. The sum of those
 * closures is what grows fastest: the nested optional copies of X{m,n}
 * chain their branch nodes ('a{1,10000}': 790 MB), and a nullable X (x?,
 * x*, a group that can match empty) repeated lets a closure run through
 * every later copy, so '(((a?){1,20}){1,20}){1,20}' takes 1.5 GB with
 * only 24000 nodes. */
typedef struct cost {
    uint64_t nodes;     /* nodes after expansion */
    uint64_t work;      /* nodes plus the sizes of their epsilon closures */
    uint64_t entry;     /* size of the closure on entering X */
    uint64_t tails;     /* nodes of X whose closure reaches X's end: they
                           continue into whatever follows X */
    /* Anchors (^ $ \b ...) among the tails, and the sum of how far their
     * closures reach. glibc copies the closure that follows an anchor with
     * the anchor's constraint attached, and the copies get closures of
     * their own: an anchor costs about its reach squared ('($){1,300}':
     * 114 MB). */
    uint64_t anchors, reach;
    bool nullable;      /* X can match the empty string */
    int loops;          /* repetitions of a part that can match empty, nested
                           in X: the depth of the deepest chain */
} cost;

static const cost EMPTY = {0, 0, 0, 0, 0, 0, true, 0};
static const cost CHAR = {1, 1, 1, 0, 0, 0, false, 0};
static const cost ANCHOR = {1, 1, 1, 1, 1, 0, true, 0};
static const cost MARK = {1, 1, 1, 1, 0, 0, true, 0};     /* a group's open or close */
static const cost TOO_LARGE = {COST_CAP, COST_CAP, COST_CAP, COST_CAP, COST_CAP, COST_CAP, false,
                               0};

typedef struct scanner {
    const char *p;
    int depth;
    bool too_deep;
    bool backref;
    uint64_t copies;    /* copies made by repeat(), each at least one node
                           of the expansion: past the limit, so is it */
    bool nullable_loop; /* a repetition of a part that can match empty */
    int loops;          /* the deepest nesting of such repetitions */
} scanner;

static uint64_t add(uint64_t a, uint64_t b)
{
    return a > COST_CAP - b ? COST_CAP : a + b;
}

static uint64_t mul(uint64_t a, uint64_t b)
{
    return b && a > COST_CAP / b ? COST_CAP : a * b;
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* x's anchors reach e more nodes: each one's copies grow from r to r + e,
 * their closures from r^2 to (r + e)^2. Adds to x.work and x.reach. */
static void extend_anchors(cost *x, uint64_t e)
{
    x->work = add(x->work, add(mul(mul(2, e), x->reach), mul(x->anchors, mul(e, e))));
    x->reach = add(x->reach, mul(x->anchors, e));
}

/* X then Y: X's tails reach into Y's entry closure; a nullable X lets the
 * entry run on into Y, a nullable Y lets X's tails run past it. */
static cost concat(cost x, cost y)
{
    extend_anchors(&x, y.entry);
    return (cost){add(x.nodes, y.nodes), add(add(x.work, y.work), mul(x.tails, y.entry)),
                  add(x.entry, x.nullable ? y.entry : 0),
                  add(y.tails, y.nullable ? x.tails : 0),
                  add(y.anchors, y.nullable ? x.anchors : 0),
                  add(y.reach, y.nullable ? x.reach : 0), x.nullable && y.nullable,
                  max_int(x.loops, y.loops)};
}

/* X|Y: one branching node whose closure holds both entries. */
static cost either(cost x, cost y)
{
    uint64_t entry = add(add(x.entry, y.entry), 1);
    bool nullable = x.nullable || y.nullable;
    return (cost){add(add(x.nodes, y.nodes), 1), add(add(x.work, y.work), entry), entry,
                  add(add(x.tails, y.tails), nullable ? 1 : 0), add(x.anchors, y.anchors),
                  add(x.reach, y.reach), nullable, max_int(x.loops, y.loops)};
}

/* X*: one looping node; every tail of X loops back to it. */
static cost star(cost x)
{
    uint64_t entry = add(x.entry, 1);
    extend_anchors(&x, entry);
    return (cost){add(x.nodes, 1), add(add(x.work, entry), mul(x.tails, entry)), entry,
                  add(x.tails, 1), x.anchors, x.reach, true, x.loops};
}

static cost alternation(scanner *s);

/* [...] with [:class:], [.coll.] and [=equiv=] inside; a ']' right after
 * '[' or '[^' is a member. */
static void skip_bracket(scanner *s)
{
    const char *p = s->p + 1;
    p += *p == '^';
    p += *p == ']';
    while (*p && *p != ']') {
        if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            char close[3] = {p[1], ']', '\0'};
            const char *end = strstr(p + 2, close);
            p = end ? end + 2 : p + 1;
        } else {
            p++;
        }
    }
    s->p = *p ? p + 1 : p;
}

static cost atom(scanner *s)
{
    char c = *s->p;
    if (c == '(') {
        s->p++;
        if (++s->depth > MAX_DEPTH) {
            s->too_deep = true;
            s->p += strlen(s->p);
            return TOO_LARGE;
        }
        cost in = alternation(s);
        s->depth--;
        s->p += *s->p == ')';
        return concat(concat(MARK, in), MARK);
    }
    if (c == '[') {
        skip_bracket(s);
        return CHAR;
    }
    s->p++;
    if (c == '^' || c == '$')
        return ANCHOR;
    if (c == '\\' && *s->p) {
        c = *s->p++;
        s->backref |= c >= '1' && c <= '9';
        /* Word and buffer anchors match the empty string. */
        return strchr("bB<>`'", c) ? ANCHOR : CHAR;
    }
    return CHAR;
}

static const char *count(const char *p, uint64_t *v, bool *any)
{
    *v = 0;
    *any = false;
    for (; *p >= '0' && *p <= '9'; p++) {
        *any = true;
        *v = *v >= COUNT_CAP ? COUNT_CAP : *v * 10 + (uint64_t)(*p - '0');
    }
    return p;
}

/* {m}, {m,}, {m,n} or {,n} at s->p: true with the bounds (*open for {m,}).
 * Anything else is no interval, and regcomp will say what is wrong with
 * it. */
static bool interval(scanner *s, uint64_t *m, uint64_t *n, bool *open)
{
    bool any_m, any_n = false;
    const char *p = count(s->p + 1, m, &any_m);
    *n = *m;
    *open = false;
    if (*p == ',') {
        p = count(p + 1, n, &any_n);
        *open = !any_n;
    }
    if (*p != '}' || (!any_m && !any_n))
        return false;
    *n = *n > *m ? *n : *m;
    s->p = p + 1;
    return true;
}

/* X{m,n} as glibc builds it: m copies of X, then n - m optional copies
 * nested as (((X?)X)?X)?; X{m,} is m copies and X*. Built copy by copy, and
 * saturated as soon as it passes the limit (work only grows, so the pattern
 * is refused anyway); so are more copies in all than the limit, which
 * keeps the estimate under a few million steps for any pattern. regcomp
 * accepts counts up to DUP_MAX, larger ones are estimated too large. */
static bool past_limit(scanner *s, cost c)
{
    return c.work > OMPB__FILTER_MAX_COST || ++s->copies > OMPB__FILTER_MAX_COST;
}

static cost repeat(scanner *s, cost x, uint64_t m, uint64_t n, bool open)
{
    if (m > DUP_MAX || n > DUP_MAX)
        return TOO_LARGE;
    cost r = EMPTY;
    for (uint64_t i = 0; i < m; i++)
        if (past_limit(s, r = concat(r, x)))
            return TOO_LARGE;
    if (open)
        return concat(r, star(x));
    if (n == m)
        return r;
    cost opt = either(x, EMPTY);
    for (uint64_t i = m + 1; i < n; i++)
        if (past_limit(s, opt = either(concat(opt, x), EMPTY)))
            return TOO_LARGE;
    return concat(r, opt);
}

static cost piece(scanner *s)
{
    cost x = atom(s);
    uint64_t m, n;
    bool open;
    for (;;) {
        char c = *s->p;
        bool loop = true, nullable = x.nullable;
        int inner = x.loops;
        if (c == '*') {
            x = star(x);
            s->p++;
        } else if (c == '?') {
            x = either(x, EMPTY);
            s->p++;
            loop = false;
        } else if (c == '+') {
            x = concat(x, star(x));   /* glibc: X X* */
            s->p++;
        } else if (c == '{' && interval(s, &m, &n, &open)) {
            x = repeat(s, x, m, n, open);
            loop = open || n > 1;
        } else {
            return x;
        }
        /* A loop over a part that can match empty nests one level deeper. */
        if (loop && nullable) {
            s->nullable_loop = true;
            x.loops = inner + 1;
            s->loops = max_int(s->loops, x.loops);
        }
    }
}

/* A ')' closes a group only inside one: at the top level glibc takes it
 * as a literal. */
static cost branch(scanner *s)
{
    cost sum = EMPTY;
    while (*s->p && *s->p != '|' && !(*s->p == ')' && s->depth > 0))
        sum = concat(sum, piece(s));
    return sum;
}

static cost alternation(scanner *s)
{
    cost sum = branch(s);
    while (*s->p == '|') {
        s->p++;
        sum = either(sum, branch(s));
    }
    return sum;
}

static uint64_t estimate(const char *pattern, scanner *s)
{
    *s = (scanner){.p = pattern};
    cost c = alternation(s);
    while (*s->p) { /* a stray ')' at the top level: a literal, go on */
        s->p++;
        c = concat(concat(c, CHAR), alternation(s));
    }
    return c.work > c.nodes ? c.work : c.nodes;
}

uint64_t ompb__filter_cost(const char *pattern)
{
    scanner s;
    return estimate(pattern, &s);
}

/*
 * glibc computes epsilon closures by a recursion that is not memoized
 * across loops: repeating a part that can match empty inside another
 * repetition costs time exponential in the nesting, with little memory
 * ('^f*+++++' and '(f*|g*)++++' run for minutes, '^f*++++' 0.04 s), which
 * the estimate above does not model. Such a pattern is first compiled in a
 * child process limited to TRIAL_CPU_S seconds of CPU (load does not
 * count, CPU time does). False when the child ran out of time; true when
 * it finished, or when no child could be made (then regcomp runs here).
 */
static bool trial_compile(const char *pattern)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit cpu = {TRIAL_CPU_S, TRIAL_CPU_S + 1}, core = {0, 0};
        regex_t re;
        setrlimit(RLIMIT_CORE, &core);
        setrlimit(RLIMIT_CPU, &cpu);
        _exit(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) == 0 ? 0 : 1);
    }
    int status = 0;
    if (pid < 0)
        return true;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    return !(WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL));
}

int ompb__filter_compile(regex_t *re, const char *pattern, const char *opt, ompb_error *err)
{
    scanner s;
    uint64_t units = estimate(pattern, &s);
    if (s.too_deep)
        return ompb__error_set(err, OMPB_EINVAL, "%s: regular expression '%.80s%s' nests groups "
                               "deeper than %d levels (accepted: POSIX extended regex of bounded "
                               "size)", opt, pattern, strlen(pattern) > 80 ? "..." : "",
                               MAX_DEPTH);
    if (units > OMPB__FILTER_MAX_COST)
        return ompb__error_set(err, OMPB_EINVAL, "%s: regular expression '%.80s%s' is too large to "
                               "compile: its repetitions expand to more than %llu states "
                               "(accepted: POSIX extended regex of bounded size; use smaller or "
                               "fewer nested {m,n}, and fewer optional parts x? x* inside them)",
                               opt, pattern, strlen(pattern) > 80 ? "..." : "",
                               (unsigned long long)OMPB__FILTER_MAX_COST);
    if (s.loops > OMPB__FILTER_MAX_LOOPS)
        return ompb__error_set(err, OMPB_EINVAL, "%s: regular expression '%.80s%s' nests "
                               "repetitions of parts that can match empty %d deep (accepted: "
                               "POSIX extended regex with such repetitions, as (a*)+, nested at "
                               "most %d deep: regcomp's time grows exponentially with the depth)",
                               opt, pattern, strlen(pattern) > 80 ? "..." : "", s.loops,
                               OMPB__FILTER_MAX_LOOPS);
    if (s.backref)
        return ompb__error_set(err, OMPB_EINVAL, "%s: regular expression '%.80s%s' uses a "
                               "back-reference, whose matching time has no bound (accepted: POSIX "
                               "extended regex, which has none)", opt, pattern,
                               strlen(pattern) > 80 ? "..." : "");
    if (s.nullable_loop && !trial_compile(pattern))
        return ompb__error_set(err, OMPB_EINVAL, "%s: regular expression '%.80s%s' takes regcomp "
                               "more than %d s of CPU to compile (accepted: POSIX extended regex "
                               "with few repetitions of parts that can match empty, such as "
                               "(a*)+ or (a|b*){2,}, nested in other repetitions)", opt, pattern,
                               strlen(pattern) > 80 ? "..." : "", TRIAL_CPU_S);
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc == 0)
        return 0;
    char why[128];
    regerror(rc, re, why, sizeof why);
    return ompb__error_set(err, OMPB_EINVAL, "%s: invalid regular expression '%s': %s (accepted: "
                           "POSIX extended regex)", opt, pattern, why);
}
