/* SPDX-License-Identifier: MIT */
/*
 * The ELF side of the code identity check (tools/lib/analysis/codeid.h),
 * private to it: an object read whole and parsed by libelf (sections, the
 * defined symbols sorted by address, the dynamic relocations that name GOT
 * slots), byte ranges checked against the file, and what an address in the
 * object is (a symbol and offset, a PLT entry or GOT slot of an import, a
 * place in a section), which codeid.c compares across two objects.
 */
#ifndef OMPB_ANALYSIS_CODEID_ELF_H
#define OMPB_ANALYSIS_CODEID_ELF_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ompb__elf_sym {
    const char *name;
    uint64_t value, size;
    unsigned char type; /* STT_* */
} ompb__elf_sym;

typedef struct ompb__elf_sect {
    const char *name;
    uint64_t addr, size, offset, flags;
    uint32_t type;
} ompb__elf_sect;

typedef struct ompb__elf_reloc {
    uint64_t offset;
    const char *name; /* the imported symbol; NULL: addend is a local address */
    uint64_t addend;
} ompb__elf_reloc;

typedef struct ompb__elf_object {
    const char *path;
    char *image;
    size_t size;
    Elf *elf;
    ompb__elf_sect *sects;
    size_t nsects;
    const ompb__elf_sect **alloc; /* the allocated ones with an address, by address */
    size_t nalloc;
    ompb__elf_sym *syms, *funcs; /* defined named symbols, and the functions among them */
    size_t nsyms, nfuncs, cap;
    ompb__elf_reloc *relocs;
    size_t nrelocs;
    bool dynsym_only;
    bool absolute; /* ET_EXEC: loaded at its addresses, which code may hold */
} ompb__elf_object;

typedef enum ompb__elf_tkind {
    OMPB__ELF_NONE,   /* nothing this check can name */
    OMPB__ELF_SYM,    /* a symbol, at an offset */
    OMPB__ELF_PLT,    /* a PLT entry of an imported symbol */
    OMPB__ELF_GOT,    /* a GOT slot of an imported symbol */
    OMPB__ELF_SECTION /* a place in a section that no symbol covers */
} ompb__elf_tkind;

/* What an address resolves to, as compared across the two objects. */
typedef struct ompb__elf_target {
    ompb__elf_tkind kind;
    bool via_got; /* a GOT slot holding a local address, resolved once */
    const char *name;
    uint64_t off;
    const unsigned char *bytes; /* content compared too, or NULL */
    size_t nbytes;
} ompb__elf_target;

/* Reads and parses path into *o; -1 with a one-line reason (naming the
 * file) in why when it is not an x86-64 ELF executable or shared library
 * with a symbol table, or cannot be read. ompb__elf_close frees it either way. */
int ompb__elf_open(ompb__elf_object *o, const char *path, char *why, size_t n);
void ompb__elf_close(ompb__elf_object *o);

/* The allocated section holding addr, or NULL. */
const ompb__elf_sect *ompb__elf_section_at(const ompb__elf_object *o, uint64_t addr);
/* The file bytes of [addr, addr + len) of section s, or NULL when they are
 * not all in it and in the file. */
const unsigned char *ompb__elf_bytes(const ompb__elf_object *o, const ompb__elf_sect *s,
                                     uint64_t addr, uint64_t len);
/* Read-only data: PROGBITS neither writable nor executable. */
bool ompb__elf_read_only(const ompb__elf_sect *s);

/* The symbol of v (sorted by address, then name) covering addr: of those
 * that do, the one starting nearest below it, the first by name among
 * those starting there; or NULL. A symbol of size 0 covers only its own
 * address. */
const ompb__elf_sym *ompb__elf_covering(const ompb__elf_sym *v, size_t n, uint64_t addr);
/* The index in o->funcs of the function starting exactly at addr (the
 * first by name), or -1. */
long ompb__elf_function_at(const ompb__elf_object *o, uint64_t addr);

/* The bytes of a literal (read-only data no symbol covers) that a target
 * includes: width > 0, the operand an instruction reads there; or up to
 * and including a NUL: OMPB__ELF_STRING (an address taken, as by lea),
 * OMPB__ELF_UNSIZED at least 16 bytes (the width is not known). At most
 * 256, within the section. */
#define OMPB__ELF_UNSIZED 0
#define OMPB__ELF_STRING (-1)

/* What addr is (a GOT slot by its relocation), and without looking through
 * a GOT slot; width as above. */
ompb__elf_target ompb__elf_resolve(const ompb__elf_object *o, uint64_t addr, int width);
ompb__elf_target ompb__elf_resolve_local(const ompb__elf_object *o, uint64_t addr, int width);
/* addr as the end of a symbol (the first byte past it, as a loop's bound
 * over an array), or OMPB__ELF_NONE. Another symbol may start there. */
ompb__elf_target ompb__elf_resolve_end(const ompb__elf_object *o, uint64_t addr);
/* Both name the same thing (never two OMPB__ELF_NONE). */
bool ompb__elf_same_target(const ompb__elf_target *a, const ompb__elf_target *b);

static inline uint32_t ompb__elf_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ompb__elf_le64(const unsigned char *p)
{
    return (uint64_t)ompb__elf_le32(p) | (uint64_t)ompb__elf_le32(p + 4) << 32;
}

#endif
