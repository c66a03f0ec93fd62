/* SPDX-License-Identifier: MIT */
/*
 * Reading an ELF object for the code identity check
 * (tools/lib/analysis/codeid_elf.h): the file is read whole into memory and
 * handed to libelf (elfutils), which parses the headers, the symbol tables
 * and the relocations and checks their bounds; function bytes and the data
 * at targets are read from the file image here, each range checked against
 * the section and the file.
 */
#include "analysis/codeid_elf.h"

#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files larger than this are not read (no benchmark binary is near it). */
#define FILE_MAX ((size_t)1 << 30)
/* More sections than a linker makes; a crafted count past it is refused. */
#define SECTIONS_MAX 65536
/* Bytes compared at a target no symbol covers: at least, at most. */
#define CONTENT_MIN 16
#define CONTENT_MAX 256
/* Read-only data objects up to this size are compared by content too. */
#define OBJECT_CONTENT_MAX 65536
/* How far back a lookup walks over symbols or sections that start at or
 * before an address (aliases, nested symbols, overlapping sections). */
#define ALIAS_WALK 32

static void say(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

/* ---- reading an object --------------------------------------------------- */

static int read_file(ompb__elf_object *o, char *why, size_t n)
{
    int fd = open(o->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(why, n, "%s: cannot open it", o->path);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0
        || (uint64_t)st.st_size > FILE_MAX) {
        say(why, n, "%s: not a regular file of 1 byte to 1 GiB", o->path);
        close(fd);
        return -1;
    }
    o->size = (size_t)st.st_size;
    o->image = malloc(o->size);
    size_t got = 0;
    while (o->image && got < o->size) {
        ssize_t r = read(fd, o->image + got, o->size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!o->image || got != o->size) {
        say(why, n, "%s: cannot read it", o->path);
        return -1;
    }
    return 0;
}

static int by_value(const void *pa, const void *pb)
{
    const ompb__elf_sym *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int by_address(const void *pa, const void *pb)
{
    const ompb__elf_sect *a = *(const ompb__elf_sect *const *)pa;
    const ompb__elf_sect *b = *(const ompb__elf_sect *const *)pb;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int by_offset(const void *pa, const void *pb)
{
    const ompb__elf_reloc *a = pa, *b = pb;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* The sections' headers, and which are the symbol tables. */
static int load_sections(ompb__elf_object *o, Elf_Scn **symtab, Elf_Scn **dynsym)
{
    size_t nscn, shstr;
    if (elf_getshdrnum(o->elf, &nscn) != 0 || nscn > SECTIONS_MAX)
        return -1;
    if (elf_getshdrstrndx(o->elf, &shstr) != 0)
        shstr = SHN_UNDEF;
    o->sects = calloc(nscn ? nscn : 1, sizeof *o->sects);
    if (!o->sects)
        return -1;
    for (Elf_Scn *scn = elf_nextscn(o->elf, NULL); scn; scn = elf_nextscn(o->elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || o->nsects >= nscn)
            return -1;
        const char *name = shstr != SHN_UNDEF ? elf_strptr(o->elf, shstr, sh.sh_name) : NULL;
        o->sects[o->nsects++] = (ompb__elf_sect){name ? name : "", sh.sh_addr, sh.sh_size,
                                                 sh.sh_offset, sh.sh_flags, sh.sh_type};
        if (sh.sh_type == SHT_SYMTAB && !*symtab)
            *symtab = scn;
        else if (sh.sh_type == SHT_DYNSYM && !*dynsym)
            *dynsym = scn;
    }
    o->alloc = calloc(o->nsects ? o->nsects : 1, sizeof *o->alloc);
    if (!o->alloc)
        return -1;
    for (size_t i = 0; i < o->nsects; i++) /* TLS addresses are no places in memory */
        if ((o->sects[i].flags & SHF_ALLOC) && !(o->sects[i].flags & SHF_TLS) && o->sects[i].size)
            o->alloc[o->nalloc++] = &o->sects[i];
    qsort(o->alloc, o->nalloc, sizeof *o->alloc, by_address);
    return 0;
}

/* Calls fn for each symbol of a symbol table section; stops at a failure. */
static int each_symbol(ompb__elf_object *o, Elf_Scn *scn,
                       int (*fn)(ompb__elf_object *, const GElf_Sym *, const char *))
{
    GElf_Shdr sh;
    Elf_Data *d = gelf_getshdr(scn, &sh) ? elf_getdata(scn, NULL) : NULL;
    size_t ent = gelf_fsize(o->elf, ELF_T_SYM, 1, EV_CURRENT);
    if (!d || !ent)
        return -1;
    size_t count = d->d_size / sizeof(Elf64_Sym);
    for (size_t i = 1; i < count; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            return -1;
        const char *name = elf_strptr(o->elf, sh.sh_link, s.st_name);
        int rc = fn(o, &s, name ? name : "");
        if (rc)
            return rc;
    }
    return 0;
}

static int keep_symbol(ompb__elf_object *o, const GElf_Sym *s, const char *name)
{
    unsigned char type = GELF_ST_TYPE(s->st_info);
    if (!*name || s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE
        || (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE
            && type != STT_GNU_IFUNC))
        return 0;
    if (o->nsyms == o->cap)
        return -1; /* more symbols than the header said */
    o->syms[o->nsyms++] = (ompb__elf_sym){name, s->st_value, s->st_size, type};
    return 0;
}

static int load_symbols(ompb__elf_object *o, Elf_Scn *scn)
{
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
        return -1;
    size_t max = sh.sh_size / sh.sh_entsize;
    if (max > o->size / sizeof(Elf64_Sym) + 1)
        return -1;
    o->syms = calloc(max + 1, sizeof *o->syms);
    o->funcs = calloc(max + 1, sizeof *o->funcs);
    if (!o->syms || !o->funcs)
        return -1;
    o->cap = max;
    if (each_symbol(o, scn, keep_symbol) != 0)
        return -1;
    qsort(o->syms, o->nsyms, sizeof *o->syms, by_value);
    for (size_t i = 0; i < o->nsyms; i++)
        if (o->syms[i].type == STT_FUNC && o->syms[i].size > 0)
            o->funcs[o->nfuncs++] = o->syms[i];
    return 0;
}

/* The dynamic relocations (.rela.dyn, .rela.plt): GOT slots and the
 * symbols they import. */
static int load_relocs(ompb__elf_object *o)
{
    size_t cap = 0;
    for (Elf_Scn *scn = elf_nextscn(o->elf, NULL); scn; scn = elf_nextscn(o->elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_ALLOC))
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        Elf_Scn *symscn = elf_getscn(o->elf, sh.sh_link);
        GElf_Shdr symsh;
        Elf_Data *sd = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
        if (!d)
            continue;
        size_t count = d->d_size / sizeof(Elf64_Rela);
        for (size_t i = 0; i < count; i++) {
            GElf_Rela r;
            if (!gelf_getrela(d, (int)i, &r))
                break;
            if (o->nrelocs == cap) {
                size_t ncap = cap ? 2 * cap : 64;
                ompb__elf_reloc *g = realloc(o->relocs, ncap * sizeof *g);
                if (!g)
                    return -1;
                o->relocs = g;
                cap = ncap;
            }
            ompb__elf_reloc *x = &o->relocs[o->nrelocs++];
            *x = (ompb__elf_reloc){r.r_offset, NULL, (uint64_t)r.r_addend};
            GElf_Sym s;
            size_t si = GELF_R_SYM(r.r_info);
            if (si && si < INT_MAX && sd && gelf_getsym(sd, (int)si, &s)) {
                const char *name = elf_strptr(o->elf, symsh.sh_link, s.st_name);
                x->name = name && *name ? name : "?";
            }
        }
    }
    if (o->nrelocs) /* relocs is NULL without any */
        qsort(o->relocs, o->nrelocs, sizeof *o->relocs, by_offset);
    return 0;
}

void ompb__elf_close(ompb__elf_object *o)
{
    if (o->elf)
        elf_end(o->elf);
    free(o->image);
    free(o->sects);
    free(o->alloc);
    free(o->syms);
    free(o->funcs);
    free(o->relocs);
    memset(o, 0, sizeof *o);
}

int ompb__elf_open(ompb__elf_object *o, const char *path, char *why, size_t n)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (read_file(o, why, n) != 0)
        return -1;
    (void)elf_version(EV_CURRENT);
    o->elf = elf_memory(o->image, o->size);
    GElf_Ehdr eh;
    if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || !gelf_getehdr(o->elf, &eh)) {
        say(why, n, "%s: not an ELF file", path);
        return -1;
    }
    if (gelf_getclass(o->elf) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
        say(why, n, "%s: machine %u, %d-bit: only x86-64 code is interpreted", path,
            (unsigned)eh.e_machine, gelf_getclass(o->elf) == ELFCLASS64 ? 64 : 32);
        return -1;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        say(why, n, "%s: not an executable or shared library (ELF type %u)", path,
            (unsigned)eh.e_type);
        return -1;
    }
    o->absolute = eh.e_type == ET_EXEC;
    Elf_Scn *symtab = NULL, *dynsym = NULL;
    if (load_sections(o, &symtab, &dynsym) != 0) {
        say(why, n, "%s: its section headers cannot be read (truncated or damaged)", path);
        return -1;
    }
    if (!symtab && !dynsym) {
        say(why, n, "%s: no symbol table (stripped)", path);
        return -1;
    }
    o->dynsym_only = !symtab;
    if (load_symbols(o, symtab ? symtab : dynsym) != 0 || load_relocs(o) != 0) {
        say(why, n, "%s: its symbols or relocations cannot be read (truncated or damaged)", path);
        return -1;
    }
    return 0;
}

/* ---- addresses ------------------------------------------------------------- */

/* The allocated section holding addr, or NULL: the nearest start at or
 * below it that holds it (sections seldom overlap). */
const ompb__elf_sect *ompb__elf_section_at(const ompb__elf_object *o, uint64_t addr)
{
    size_t lo = 0, hi = o->nalloc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->alloc[mid]->addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t walked = 0; lo > 0 && walked < ALIAS_WALK; lo--, walked++) {
        const ompb__elf_sect *s = o->alloc[lo - 1];
        if (addr - s->addr < s->size)
            return s;
    }
    return NULL;
}

/* The file bytes of [addr, addr + len) of section s, or NULL when they are
 * not all in the file. */
const unsigned char *ompb__elf_bytes(const ompb__elf_object *o, const ompb__elf_sect *s,
                                     uint64_t addr, uint64_t len)
{
    if (s->type == SHT_NOBITS || addr < s->addr || addr - s->addr > s->size
        || len > s->size - (addr - s->addr))
        return NULL;
    uint64_t off = s->offset + (addr - s->addr);
    if (off < s->offset || off > o->size || len > o->size - off)
        return NULL;
    return (const unsigned char *)o->image + off;
}

/* Index of the first symbol of v with value > addr. */
static size_t upper(const ompb__elf_sym *v, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].value <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool covers(const ompb__elf_sym *s, uint64_t addr)
{
    return s->size ? addr - s->value < s->size : addr == s->value;
}

/* The symbol of v covering addr: of those that do, the one starting
 * nearest below it, the first by name among those starting there; or
 * NULL. A symbol of size 0 covers only its own address. */
const ompb__elf_sym *ompb__elf_covering(const ompb__elf_sym *v, size_t n, uint64_t addr)
{
    const ompb__elf_sym *best = NULL;
    size_t i = upper(v, n, addr);
    for (size_t walked = 0; i > 0 && walked < ALIAS_WALK; i--, walked++) {
        const ompb__elf_sym *s = &v[i - 1];
        if (best && s->value != best->value)
            break;
        if (covers(s, addr))
            best = s;
    }
    return best;
}

/* The function starting exactly at addr (the first by name), or -1. */
long ompb__elf_function_at(const ompb__elf_object *o, uint64_t addr)
{
    size_t i = upper(o->funcs, o->nfuncs, addr);
    if (i == 0 || o->funcs[i - 1].value != addr)
        return -1;
    while (i > 1 && o->funcs[i - 2].value == addr)
        i--;
    return (long)(i - 1);
}

static const ompb__elf_reloc *reloc_at(const ompb__elf_object *o, uint64_t addr)
{
    size_t lo = 0, hi = o->nrelocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->relocs[mid].offset < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->nrelocs && o->relocs[lo].offset == addr ? &o->relocs[lo] : NULL;
}

/* A PLT entry (16 bytes) at addr: the imported symbol of the GOT slot its
 * `jmp *slot(%rip)` (ff 25 disp32) goes through. */
static ompb__elf_target plt_target(const ompb__elf_object *o, const ompb__elf_sect *s,
                                   uint64_t addr)
{
    ompb__elf_target t = {OMPB__ELF_NONE, false, NULL, 0, NULL, 0};
    uint64_t entry = s->addr + ((addr - s->addr) & ~(uint64_t)15);
    uint64_t len = s->size - (entry - s->addr) < 16 ? s->size - (entry - s->addr) : 16;
    const unsigned char *p = ompb__elf_bytes(o, s, entry, len);
    for (uint64_t i = 0; p && i + 6 <= len; i++) {
        if (p[i] != 0xff || p[i + 1] != 0x25)
            continue;
        uint64_t slot = entry + i + 6 + (uint64_t)(int64_t)(int32_t)ompb__elf_le32(p + i + 2);
        const ompb__elf_reloc *r = reloc_at(o, slot);
        if (r && r->name)
            return (ompb__elf_target){OMPB__ELF_PLT, false, r->name, addr - entry, NULL, 0};
    }
    return t;
}

/* Content compared at a target no symbol covers in a read-only section:
 * the operand's width, or up to and including a NUL (at least CONTENT_MIN
 * bytes when the width is not known), at most CONTENT_MAX. */
static void literal_bytes(const ompb__elf_object *o, const ompb__elf_sect *s, uint64_t addr,
                          int width, ompb__elf_target *t)
{
    uint64_t left = s->size - (addr - s->addr);
    size_t max = left < CONTENT_MAX ? (size_t)left : CONTENT_MAX, n = 0;
    const unsigned char *p = ompb__elf_bytes(o, s, addr, max);
    if (!p || (width > 0 && (size_t)width > max))
        return;
    size_t least = width == OMPB__ELF_STRING ? 1 : CONTENT_MIN;
    if (width > 0)
        n = (size_t)width;
    else
        while (n < max && (n < least || p[n - 1] != '\0'))
            n++;
    t->bytes = p;
    t->nbytes = n;
}

bool ompb__elf_read_only(const ompb__elf_sect *s)
{
    return s->type == SHT_PROGBITS && !(s->flags & (SHF_WRITE | SHF_EXECINSTR));
}

/* Symbol y at addr: its name and the offset, and the content of a
 * read-only data object. */
static ompb__elf_target symbol_target(const ompb__elf_object *o, const ompb__elf_sym *y,
                                      uint64_t addr)
{
    ompb__elf_target t = {OMPB__ELF_SYM, false, y->name, addr - y->value, NULL, 0};
    const ompb__elf_sect *ys = ompb__elf_section_at(o, y->value);
    if (y->type == STT_OBJECT && ys && ompb__elf_read_only(ys) && y->size <= OBJECT_CONTENT_MAX) {
        t.bytes = ompb__elf_bytes(o, ys, y->value, y->size);
        t.nbytes = t.bytes ? (size_t)y->size : 0;
        if (!t.bytes)
            t.kind = OMPB__ELF_NONE; /* its content is not in the file */
    }
    return t;
}

ompb__elf_target ompb__elf_resolve_end(const ompb__elf_object *o, uint64_t addr)
{
    size_t i = upper(o->syms, o->nsyms, addr);
    for (size_t walked = 0; i > 0 && walked < ALIAS_WALK; i--, walked++) {
        const ompb__elf_sym *y = &o->syms[i - 1];
        if (y->size && y->value + y->size == addr)
            return symbol_target(o, y, addr);
    }
    return (ompb__elf_target){OMPB__ELF_NONE, false, NULL, 0, NULL, 0};
}

/* What addr is, without looking through a GOT slot. */
ompb__elf_target ompb__elf_resolve_local(const ompb__elf_object *o, uint64_t addr, int width)
{
    ompb__elf_target t = {OMPB__ELF_NONE, false, NULL, 0, NULL, 0};
    const ompb__elf_sect *s = ompb__elf_section_at(o, addr);
    if (s && strncmp(s->name, ".plt", 4) == 0) {
        t = plt_target(o, s, addr);
        if (t.kind != OMPB__ELF_NONE)
            return t;
    }
    const ompb__elf_sym *y = ompb__elf_covering(o->syms, o->nsyms, addr);
    if (y)
        return symbol_target(o, y, addr);
    if (!s)
        return t;
    t = (ompb__elf_target){OMPB__ELF_SECTION, false, s->name, addr - s->addr, NULL, 0};
    if (ompb__elf_read_only(s)) {
        t.off = 0; /* a literal may move inside its section */
        literal_bytes(o, s, addr, width, &t);
        if (!t.bytes)
            t.kind = OMPB__ELF_NONE;
    }
    return t;
}

/* What addr is; a GOT slot (in .got or .got.plt) is named by its
 * relocation: the imported symbol, or what its local address is. */
ompb__elf_target ompb__elf_resolve(const ompb__elf_object *o, uint64_t addr, int width)
{
    const ompb__elf_sect *s = ompb__elf_section_at(o, addr);
    const ompb__elf_reloc *r = s && strncmp(s->name, ".got", 4) == 0 ? reloc_at(o, addr) : NULL;
    if (r && r->name)
        return (ompb__elf_target){OMPB__ELF_GOT, false, r->name, 0, NULL, 0};
    if (r) {
        ompb__elf_target t = ompb__elf_resolve_local(o, r->addend, OMPB__ELF_UNSIZED);
        t.via_got = true;
        return t;
    }
    return ompb__elf_resolve_local(o, addr, width);
}

bool ompb__elf_same_target(const ompb__elf_target *a, const ompb__elf_target *b)
{
    return a->kind != OMPB__ELF_NONE && a->kind == b->kind && a->via_got == b->via_got
           && strcmp(a->name, b->name) == 0 && a->off == b->off && a->nbytes == b->nbytes
           && (a->nbytes == 0 || memcmp(a->bytes, b->bytes, a->nbytes) == 0);
}

