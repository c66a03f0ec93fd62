/* SPDX-License-Identifier: MIT */
/*
 * The bounded --filter compile. A small recursive-descent reading of the
 * ERE grammar as glibc parses it (groups, alternation, bracket expressions,
 * escapes, * + ? and {m,n}) estimates what regcomp would build: every node
 * of X is copied max(n, 1) times by X{m,n}, and the n - m optional copies
 * are nested, which costs glibc their number squared times the size of X
 * (measured: 'a{1,1000}' 10 MB, 'a{1,10000}' 790 MB). The estimate is an
 * upper bound within a small factor; patterns above the limit, nested
 * deeper than glibc's recursion survives, or with back-references are
 * refused without calling regcomp.
 */
#include "filter.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

/* Saturation point of the estimate: far above any limit. */
#define COST_CAP (UINT64_C(1) << 62)
/* Repetition counts beyond RE_DUP_MAX (32767) are refused by regcomp; read
 * them only this far. */
#define COUNT_CAP 1000000
/* Nesting of groups: glibc's parser recurses per level and overflows an
 * 8 MB stack near 50000 levels; names need a handful. */
#define MAX_DEPTH 256

typedef struct cost {
    uint64_t nodes;     /* nodes after expansion */
    uint64_t work;      /* nodes plus the closures of nested optional copies */
} cost;

typedef struct scanner {
    const char *p;
    int depth;
    bool too_deep;
    bool backref;
} scanner;

static uint64_t add(uint64_t a, uint64_t b)
{
    return a > COST_CAP - b ? COST_CAP : a + b;
}

static uint64_t mul(uint64_t a, uint64_t b)
{
    return b && a > COST_CAP / b ? COST_CAP : a * b;
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
            return (cost){COST_CAP, COST_CAP};
        }
        cost in = alternation(s);
        s->depth--;
        s->p += *s->p == ')';
        return (cost){add(in.nodes, 1), add(in.work, 1)};
    }
    if (c == '[') {
        skip_bracket(s);
        return (cost){1, 1};
    }
    if (c == '\\' && s->p[1]) {
        s->backref |= s->p[1] >= '1' && s->p[1] <= '9';
        s->p++;
    }
    s->p++;
    return (cost){1, 1};
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

/* {m}, {m,}, {m,n} or {,n} at s->p: true with the bounds (an open upper
 * bound as m + 1: glibc writes X{m,} as m copies and X*). Anything else
 * is no interval, and regcomp will say what is wrong with it. */
static bool interval(scanner *s, uint64_t *m, uint64_t *n)
{
    bool any_m, any_n = false;
    const char *p = count(s->p + 1, m, &any_m);
    *n = *m;
    if (*p == ',') {
        p = count(p + 1, n, &any_n);
        if (!any_n)
            *n = *m + 1;
    }
    if (*p != '}' || (!any_m && !any_n))
        return false;
    *n = *n > *m ? *n : *m;
    s->p = p + 1;
    return true;
}

static cost repeat(cost x, uint64_t m, uint64_t n)
{
    uint64_t copies = n ? n : 1, optional = n - m;
    cost r = {mul(x.nodes, copies), mul(x.work, copies)};
    r.work = add(r.work, mul(mul(optional, optional), x.nodes));
    return r;
}

static cost piece(scanner *s)
{
    cost x = atom(s);
    uint64_t m, n;
    for (;;) {
        char c = *s->p;
        if (c == '*' || c == '?') {
            x = (cost){add(x.nodes, 1), add(x.work, x.nodes)};
            s->p++;
        } else if (c == '+') {
            x = (cost){mul(x.nodes, 2), add(mul(x.work, 2), x.nodes)};
            s->p++;
        } else if (c == '{' && interval(s, &m, &n)) {
            x = repeat(x, m, n);
        } else {
            return x;
        }
    }
}

/* A ')' closes a group only inside one: at the top level glibc takes it
 * as a literal. */
static cost branch(scanner *s)
{
    cost sum = {0, 0};
    while (*s->p && *s->p != '|' && !(*s->p == ')' && s->depth > 0)) {
        cost x = piece(s);
        sum = (cost){add(sum.nodes, x.nodes), add(sum.work, x.work)};
    }
    return sum;
}

static cost alternation(scanner *s)
{
    cost sum = branch(s);
    while (*s->p == '|') {
        s->p++;
        cost x = branch(s);
        sum = (cost){add(sum.nodes, add(x.nodes, 1)), add(sum.work, add(x.work, 1))};
    }
    return sum;
}

static uint64_t estimate(const char *pattern, scanner *s)
{
    *s = (scanner){.p = pattern};
    cost c = alternation(s);
    while (*s->p) { /* a stray ')' at the top level: a literal, go on */
        s->p++;
        cost more = alternation(s);
        c.work = add(c.work, add(more.work, 1));
    }
    return c.work > c.nodes ? c.work : c.nodes;
}

uint64_t ompb__filter_cost(const char *pattern)
{
    scanner s;
    return estimate(pattern, &s);
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
                               "compile: its repetitions expand to about %llu states, more than "
                               "%llu (accepted: POSIX extended regex of bounded size; use smaller "
                               "or fewer nested {m,n})", opt, pattern,
                               strlen(pattern) > 80 ? "..." : "", (unsigned long long)units,
                               (unsigned long long)OMPB__FILTER_MAX_COST);
    if (s.backref)
        return ompb__error_set(err, OMPB_EINVAL, "%s: regular expression '%.80s%s' uses a "
                               "back-reference, whose matching time has no bound (accepted: POSIX "
                               "extended regex, which has none)", opt, pattern,
                               strlen(pattern) > 80 ? "..." : "");
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc == 0)
        return 0;
    char why[128];
    regerror(rc, re, why, sizeof why);
    return ompb__error_set(err, OMPB_EINVAL, "%s: invalid regular expression '%s': %s (accepted: "
                           "POSIX extended regex)", opt, pattern, why);
}
