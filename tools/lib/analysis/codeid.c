/* SPDX-License-Identifier: MIT */
/*
 * Code identity (tools/lib/analysis/codeid.h): functions are compared pair
 * by pair from a queue, starting at the two given addresses; each run of
 * differing bytes must be explained by an address window that resolves to
 * the same thing on both sides (codeid_elf.c resolves), the read-only data
 * that equal bytes reference must be the same, and the functions each
 * references must pair up by name and join the queue.
 */
#include "analysis/codeid.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"
#include "analysis/codeid_elf.h"
#include "analysis/codeid_x86.h"

/* The most entries of a jump table compared. */
#define TABLE_MAX 4096

static void say(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

/* ---- comparing functions --------------------------------------------------- */

typedef struct side {
    const ompb__elf_object *o;
    const ompb__elf_sym *f;
    const unsigned char *bytes;
} side;

static bool same_at(const side *a, const side *b, uint64_t ta, uint64_t tb, int width)
{
    ompb__elf_target x = ompb__elf_resolve(a->o, ta, width);
    ompb__elf_target y = ompb__elf_resolve(b->o, tb, width);
    if (ompb__elf_same_target(&x, &y))
        return true;
    x = ompb__elf_resolve_end(a->o, ta);
    y = ompb__elf_resolve_end(b->o, tb);
    return ompb__elf_same_target(&x, &y);
}

/* Jump tables of a switch, at ta and tb: GCC's position-independent ones
 * hold int32 distances from the table to labels inside the function, the
 * absolute ones (not PIE) 8-byte addresses. The same when every entry up
 * to the first that leaves the function on both sides at once names the
 * same offset in the function, and there is at least one. */
static bool jump_tables_same(const side *a, const side *b, uint64_t ta, uint64_t tb,
                             bool absolute)
{
    const ompb__elf_sect *sa = ompb__elf_section_at(a->o, ta);
    const ompb__elf_sect *sb = ompb__elf_section_at(b->o, tb);
    if (!sa || !sb || !ompb__elf_read_only(sa) || !ompb__elf_read_only(sb))
        return false;
    uint64_t size = absolute ? 8 : 4, n = 0;
    for (; n < TABLE_MAX; n++) {
        const unsigned char *pa = ompb__elf_bytes(a->o, sa, ta + n * size, size);
        const unsigned char *pb = ompb__elf_bytes(b->o, sb, tb + n * size, size);
        if (!pa || !pb)
            break;
        uint64_t oa = absolute ? ompb__elf_le64(pa)
                               : ta + (uint64_t)(int64_t)(int32_t)ompb__elf_le32(pa);
        uint64_t ob = absolute ? ompb__elf_le64(pb)
                               : tb + (uint64_t)(int64_t)(int32_t)ompb__elf_le32(pb);
        oa -= a->f->value;
        ob -= b->f->value;
        bool ina = oa < a->f->size, inb = ob < b->f->size;
        if (!ina && !inb)
            break;
        if (ina != inb || oa != ob)
            return false;
    }
    return n > 0;
}

/* Whether the window [w, w + len) is an address field on both sides that
 * names the same thing (PC-relative with an immediate of 0-4 bytes after
 * it, or absolute). */
static bool window_explained(const side *a, const side *b, size_t w, size_t len)
{
    if (len == 8)
        return ompb__x86_abs64_field(a->bytes, w) && ompb__x86_abs64_field(b->bytes, w)
               && same_at(a, b, ompb__elf_le64(a->bytes + w), ompb__elf_le64(b->bytes + w),
                          OMPB__ELF_UNSIZED);
    uint32_t da = ompb__elf_le32(a->bytes + w), db = ompb__elf_le32(b->bytes + w);
    if (ompb__x86_pcrel_field(a->bytes, w) && ompb__x86_pcrel_field(b->bytes, w)) {
        int width = ompb__x86_operand_width(a->bytes, w);
        for (uint64_t k = 0; k <= 4; k++) {
            uint64_t ta = a->f->value + w + 4 + k + (uint64_t)(int64_t)(int32_t)da;
            uint64_t tb = b->f->value + w + 4 + k + (uint64_t)(int64_t)(int32_t)db;
            if (same_at(a, b, ta, tb, k == 0 ? width : OMPB__ELF_UNSIZED)
                || (k == 0 && width == OMPB__ELF_STRING && jump_tables_same(a, b, ta, tb, false)))
                return true;
        }
    }
    return ompb__x86_abs_field(a->bytes, w) && ompb__x86_abs_field(b->bytes, w)
           && (same_at(a, b, da, db, ompb__x86_immediate_width(a->bytes, w))
               || jump_tables_same(a, b, da, db, true));
}

/* Every differing byte lies in an explained window. */
static bool bytes_explained(const side *a, const side *b, size_t n)
{
    static const size_t lens[] = {4, 8};
    size_t i = 0;
    while (i < n) {
        if (a->bytes[i] == b->bytes[i]) {
            i++;
            continue;
        }
        bool ok = false;
        for (size_t l = 0; l < 2 && !ok; l++)
            for (size_t back = 0; back < lens[l] && back <= i && !ok; back++) {
                size_t w = i - back;
                if (w + lens[l] <= n && window_explained(a, b, w, lens[l])) {
                    i = w + lens[l];
                    ok = true;
                }
            }
        if (!ok)
            return false;
    }
    return true;
}

typedef struct walk {
    const ompb__elf_object *a, *b;
    long *partner; /* a's function index -> b's + 1; 0: not queued */
    long (*queue)[2];
    size_t head, tail;
    ompb__code_result *out;
} walk;

static void verdict(walk *k, ompb__code_verdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    k->out->verdict = v;
    vsnprintf(k->out->why, sizeof k->out->why, fmt, ap);
    va_end(ap);
}

/* Queues the pair (ia, ib) once; false (and the verdict) when a's function
 * is already paired with another, or the bound is reached. */
static bool enqueue(walk *k, long ia, long ib, const char *from)
{
    if (k->partner[ia]) {
        if (k->partner[ia] == ib + 1)
            return true;
        verdict(k, OMPB__CODE_CHANGED, "%s", from);
        return false;
    }
    if (k->tail == OMPB__CODE_FUNCTIONS_MAX) {
        verdict(k, OMPB__CODE_UNKNOWN, "%s: more than %d functions reached from %s", k->a->path,
                OMPB__CODE_FUNCTIONS_MAX, k->a->funcs[k->queue[0][0]].name);
        return false;
    }
    k->partner[ia] = ib + 1;
    k->queue[k->tail][0] = ia;
    k->queue[k->tail][1] = ib;
    k->tail++;
    return true;
}

/* The address window w of a side reads as: PC-relative (abs 0), or
 * absolute (abs 1). */
static uint64_t reference(const side *x, size_t w, int abs)
{
    uint32_t v = ompb__elf_le32(x->bytes + w);
    return abs ? v : x->f->value + w + 4 + (uint64_t)(int64_t)(int32_t)v;
}

/* Read-only data that unchanged bytes reference (a constant or a literal
 * whose address stayed and whose content changed) is the same on both
 * sides. Only the instructions codeid_x86.c sizes are read so: any 4
 * bytes read as an address would reach read-only data somewhere, at other
 * places when the function moved. */
static bool data_same(const side *a, const side *b, size_t n, int modes)
{
    for (size_t w = 0; w + 4 <= n; w++) {
        if (memcmp(a->bytes + w, b->bytes + w, 4) != 0)
            continue; /* bytes_explained's */
        for (int abs = 0; abs < modes; abs++) {
            int width = abs ? ompb__x86_immediate_width(a->bytes, w)
                            : ompb__x86_operand_width(a->bytes, w);
            if (width == OMPB__ELF_UNSIZED)
                continue;
            uint64_t ta = reference(a, w, abs), tb = reference(b, w, abs);
            const ompb__elf_sect *sa = ompb__elf_section_at(a->o, ta);
            const ompb__elf_sect *sb = ompb__elf_section_at(b->o, tb);
            if ((!sa || !ompb__elf_read_only(sa)) && (!sb || !ompb__elf_read_only(sb)))
                continue;
            ompb__elf_target x = ompb__elf_resolve_local(a->o, ta, width);
            ompb__elf_target y = ompb__elf_resolve_local(b->o, tb, width);
            if (!ompb__elf_same_target(&x, &y)
                && !(width == OMPB__ELF_STRING && jump_tables_same(a, b, ta, tb, abs)))
                return false;
        }
    }
    return true;
}

/* The function a reference at w of a side names, or -1: PC-relative
 * (abs 0: a rel32 field, abs 2: the rel8 of a short jmp or jcc to outside
 * the function) or absolute (abs 1). */
static long callee_at(const side *x, size_t w, int abs)
{
    const unsigned char *p = x->bytes;
    if (abs == 2) {
        if (w < 1 || (p[w - 1] != 0xeb && (p[w - 1] & 0xf0) != 0x70))
            return -1;
        uint64_t off = w + 1 + (uint64_t)(int64_t)(int8_t)p[w];
        return off < x->f->size ? -1 : ompb__elf_function_at(x->o, x->f->value + off);
    }
    bool field = abs ? ompb__x86_abs_field(p, w) : ompb__x86_pcrel_field(p, w);
    return field ? ompb__elf_function_at(x->o, reference(x, w, abs)) : -1;
}

/* The functions both reference at the same places, PC-relatively or, in
 * a program loaded at its addresses, absolutely; false with the verdict
 * when they do not match. */
static bool callees(walk *k, const side *a, const side *b, size_t n, int modes)
{
    for (size_t w = 0; w < n; w++)
        for (int abs = 0; abs < 3; abs++) {
            if ((abs == 1 && modes < 2) || (abs < 2 && w + 4 > n))
                continue;
            /* A rel8 that differs is a difference bytes_explained finds. */
            if (abs == 2 && (w < 1 || memcmp(a->bytes + w - 1, b->bytes + w - 1, 2) != 0))
                continue;
            long ia = callee_at(a, w, abs), ib = callee_at(b, w, abs);
            if (ia < 0 && ib < 0)
                continue;
            if (ia < 0 || ib < 0 || strcmp(a->o->funcs[ia].name, b->o->funcs[ib].name) != 0) {
                verdict(k, OMPB__CODE_CHANGED, "%s", a->f->name);
                return false;
            }
            if (!enqueue(k, ia, ib, a->f->name))
                return false;
        }
    return true;
}

/* Compares one queued pair; false once a verdict is set. */
static bool compare_pair(walk *k, long ia, long ib)
{
    const ompb__elf_sym *fa = &k->a->funcs[ia], *fb = &k->b->funcs[ib];
    const ompb__elf_sect *sa = ompb__elf_section_at(k->a, fa->value);
    const ompb__elf_sect *sb = ompb__elf_section_at(k->b, fb->value);
    side a = {k->a, fa, sa ? ompb__elf_bytes(k->a, sa, fa->value, fa->size) : NULL};
    side b = {k->b, fb, sb ? ompb__elf_bytes(k->b, sb, fb->value, fb->size) : NULL};
    k->out->functions++;
    if (!a.bytes || !b.bytes) {
        const side *bad = a.bytes ? &b : &a;
        verdict(k, OMPB__CODE_UNKNOWN, "%s: the bytes of %s are not in the file", bad->o->path,
                bad->f->name);
        return false;
    }
    int modes = k->a->absolute || k->b->absolute ? 2 : 1;
    if (strcmp(fa->name, fb->name) != 0 || fa->size != fb->size
        || !bytes_explained(&a, &b, (size_t)fa->size)
        || !data_same(&a, &b, (size_t)fa->size, modes)) {
        verdict(k, OMPB__CODE_CHANGED, "%s", fa->name);
        return false;
    }
    return callees(k, &a, &b, (size_t)fa->size, modes);
}

/* The function of o holding vaddr, or -1 with the reason. */
static long function_containing(const ompb__elf_object *o, uint64_t vaddr, char *why, size_t n)
{
    const ompb__elf_sym *f = ompb__elf_covering(o->funcs, o->nfuncs, vaddr);
    if (f)
        return (long)(f - o->funcs);
    if (o->dynsym_only)
        say(why, n, "%s: no .symtab (stripped), and 0x%llx is in no .dynsym function", o->path,
            (unsigned long long)vaddr);
    else
        say(why, n, "%s: 0x%llx is not inside a function symbol", o->path,
            (unsigned long long)vaddr);
    return -1;
}

/* Compares from the pair (ia, ib) on; sets the verdict. */
static void compare_from(const ompb__elf_object *a, const ompb__elf_object *b, long ia, long ib,
                         ompb__code_result *out)
{
    walk k = {a, b, calloc(a->nfuncs, sizeof(long)),
              calloc(OMPB__CODE_FUNCTIONS_MAX, sizeof(long[2])), 0, 0, out};
    if (!k.partner || !k.queue)
        snprintf(out->why, sizeof out->why, "out of memory");
    else if (enqueue(&k, ia, ib, a->funcs[ia].name)) {
        while (k.head < k.tail && compare_pair(&k, k.queue[k.head][0], k.queue[k.head][1]))
            k.head++;
        if (k.head == k.tail) {
            out->verdict = OMPB__CODE_SAME;
            out->why[0] = '\0';
        }
    }
    free(k.partner);
    free(k.queue);
}

void ompb__code_compare(const char *obj_a, uint64_t vaddr_a, const char *obj_b,
                        uint64_t vaddr_b, ompb__code_result *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = OMPB__CODE_UNKNOWN;
    ompb__elf_object a, b;
    memset(&b, 0, sizeof b);
    long ia = -1, ib = -1;
    if (ompb__elf_open(&a, obj_a, out->why, sizeof out->why) == 0
        && ompb__elf_open(&b, obj_b, out->why, sizeof out->why) == 0
        && (ia = function_containing(&a, vaddr_a, out->why, sizeof out->why)) >= 0
        && (ib = function_containing(&b, vaddr_b, out->why, sizeof out->why)) >= 0)
        compare_from(&a, &b, ia, ib, out);
    ompb__elf_close(&a);
    ompb__elf_close(&b);
    /* The names in why come from the files read, which anyone may have
     * built: their control characters and broken UTF-8 are escaped, so
     * that the verdict stays one line of text in every report. */
    char raw[sizeof out->why];
    memcpy(raw, out->why, sizeof raw);
    ompb__utf8_escape_controls(raw, out->why, sizeof out->why);
}

int ompb__code_symbol(const char *obj, const char *name, uint64_t *vaddr)
{
    ompb__elf_object o;
    char why[256];
    if (ompb__elf_open(&o, obj, why, sizeof why) != 0) {
        ompb__elf_close(&o);
        return OMPB_EIO;
    }
    int rc = OMPB_ENOENT;
    for (size_t i = 0; i < o.nfuncs && rc != 0; i++)
        if (strcmp(o.funcs[i].name, name) == 0) {
            *vaddr = o.funcs[i].value;
            rc = 0;
        }
    ompb__elf_close(&o);
    return rc;
}

int ompb__code_function_bytes(const char *obj, uint64_t vaddr, unsigned char **bytes,
                              size_t *size, uint64_t *start)
{
    ompb__elf_object o;
    char why[256];
    int rc = OMPB_EIO;
    if (ompb__elf_open(&o, obj, why, sizeof why) == 0) {
        long i = function_containing(&o, vaddr, why, sizeof why);
        const ompb__elf_sym *f = i >= 0 ? &o.funcs[i] : NULL;
        const ompb__elf_sect *s = f ? ompb__elf_section_at(&o, f->value) : NULL;
        const unsigned char *p = s ? ompb__elf_bytes(&o, s, f->value, f->size) : NULL;
        rc = !f ? OMPB_ENOENT : !p ? OMPB_EIO : 0;
        if (p) {
            *bytes = malloc(f->size);
            rc = *bytes ? 0 : OMPB_ENOMEM;
            if (*bytes) {
                memcpy(*bytes, p, f->size);
                *size = (size_t)f->size;
                *start = f->value;
            }
        }
    }
    ompb__elf_close(&o);
    return rc;
}
