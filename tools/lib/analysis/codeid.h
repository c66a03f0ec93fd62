/* SPDX-License-Identifier: MIT */
/*
 * Code identity of a benchmark between two builds (issue 29, item 4): did
 * the machine code of a benchmark's body change, or did it only move? An
 * unchanged body that landed at another address or alignment can run
 * faster or slower (a code-layout effect: Mytkowicz et al., ASPLOS 2009;
 * Curtsinger and Berger, Stabilizer, ASPLOS 2013), and compare and ab then
 * say "code unchanged: likely a code-layout or alignment effect" instead
 * of naming a regression the code did not make.
 *
 * What is compared. In each ELF object (an executable, PIE or not, or a
 * shared library, as it is on disk), the STT_FUNC symbol whose
 * [value, value + size) holds the given address, read from .symtab, or
 * from .dynsym when there is no .symtab; its bytes are those of the
 * section that holds it. Then, transitively, every function of the same
 * object it references: a 4-byte window that, read as a PC-relative
 * displacement (target = window address + 4 + displacement), or in a
 * program loaded at its link addresses (ET_EXEC, not PIE) also as an
 * absolute address, points exactly at the start of an STT_FUNC symbol
 * (calls, jumps, and the `lea` or `mov $` of GCC's outlined OpenMP
 * functions `name._omp_fn.N`), and the rel8 of a short jmp or jcc that
 * leaves the function for another one's start. Those places must name
 * functions of the same names on both sides. A window is read so only
 * where the bytes before it can start an instruction with an address
 * field there (codeid_x86.h: a rel32 call, jmp or jcc opcode, a
 * [rip + disp32] ModRM byte; mov $imm32 or push, a SIB byte without base).
 * Every real PC-relative reference passes that test, so it loses none,
 * but an unrelated pattern can still pass it and happen to point at a
 * function start: the scan can over-include a function, which only makes
 * the check more conservative (a difference there reads as CHANGED),
 * never less. At most OMPB__CODE_FUNCTIONS_MAX functions are compared.
 *
 * What is neutralized. Two functions are the same when their sizes are
 * equal and their bytes are equal except where each run of differing
 * bytes is covered by an address field (as above: a 4-byte PC-relative
 * displacement, the instruction ending 0 to 4 bytes after it for an
 * immediate, the same on both sides; a 4-byte absolute address; or the
 * 8-byte immediate of movabs) that resolves on both sides to the same
 * thing:
 *   - the same symbol name at the same offset (for a read-only data object
 *     of at most 64 KiB, also with the same bytes), or the same symbol's
 *     end (the address one past it, a loop's bound);
 *   - the same PLT entry or GOT slot of the same imported symbol (PLT
 *     entries through their `jmp *slot(%rip)`, slots through .rela.dyn
 *     and .rela.plt), or a GOT slot of a local address that resolves so;
 *   - in a read-only section, at an address no symbol covers (string
 *     literals and constants in .rodata), the same section name and the
 *     same bytes at both targets: as many as the instruction reads when
 *     codeid_x86.c knows its operand (scalar and packed SSE, mov, cmov,
 *     movzx...), up to and including a NUL for an address taken (lea,
 *     mov $imm32), else at least 16 and up to a NUL; at most 256, within
 *     the section;
 *   - a switch's jump table (an address taken in read-only data) whose
 *     entries lead to the same offsets in the function on both sides,
 *     up to the first entry that leaves it on both;
 *   - in other sections, the same section name and offset in it.
 * Anything else that differs is a change. Bytes that are equal can still
 * reference data that changed (a floating-point constant or a literal at
 * the same address with another value): where equal bytes are the address
 * field of an instruction whose operand codeid_x86.c sizes (or an address
 * taken) and reach read-only data on either side, the data must be the
 * same on both, content included. A constant read by an instruction it
 * does not know is not compared when the code's bytes are equal.
 * Known limits: a function referenced only through a data table (a
 * function pointer) is not followed; only the code's own bytes are
 * compared, not writable data's initial values. Measured on a real
 * program (this project's unit-test binary, 1,623 functions, linked in
 * two object orders): 1,602 SAME, 21 CHANGED (conservative misses), none
 * UNKNOWN.
 *
 * What UNKNOWN means: the check could not decide, and says why in one
 * line; it never guesses. A file missing or unreadable, not ELF, not a
 * 64-bit x86-64 object (only x86-64 machine code is interpreted), not an
 * executable or shared library, without a symbol table (stripped), an
 * address inside no function symbol, bytes outside the file (a truncated
 * or crafted file), more functions than the bound. Every offset and size
 * read from a file is checked against the file, so hostile input yields
 * UNKNOWN, never a crash.
 */
#ifndef OMPB_ANALYSIS_CODEID_H
#define OMPB_ANALYSIS_CODEID_H

#include <stddef.h>
#include <stdint.h>

/* The most functions one comparison follows; past it, UNKNOWN. */
#define OMPB__CODE_FUNCTIONS_MAX 4096

typedef enum ompb__code_verdict {
    OMPB__CODE_SAME,    /* the same code, possibly at other addresses */
    OMPB__CODE_CHANGED, /* a function's bytes, size, or callees differ */
    OMPB__CODE_UNKNOWN  /* undecided; why says the reason */
} ompb__code_verdict;

typedef struct ompb__code_result {
    ompb__code_verdict verdict;
    size_t functions; /* function pairs compared (the differing one included) */
    /* SAME: "". CHANGED: the name (in object a) of the first function that
     * differs, and nothing else. UNKNOWN: the reason, one line (naming the
     * file when a file is the reason). */
    char why[256];
} ompb__code_result;

/* Compares the function containing vaddr_a in ELF object obj_a with the one
 * containing vaddr_b in obj_b (ELF virtual addresses, as a benchmark
 * binary's ompb__code_locate, lib/core/libraries.h, gives them), and
 * transitively every function of the same object each references (as
 * above). Fills *out; never fails otherwise (a failure is an UNKNOWN
 * verdict). Reads both files whole into memory (at most 1 GiB each). */
void ompb__code_compare(const char *obj_a, uint64_t vaddr_a, const char *obj_b,
                        uint64_t vaddr_b, ompb__code_result *out);

/* For tests and tools: the address of the function symbol called name in
 * obj (.symtab, else .dynsym; an STT_FUNC of nonzero size; the lowest
 * address when several have that name, as static functions of different
 * files can). Returns 0, or
 * OMPB_ENOENT (no such function) or OMPB_EIO (unreadable, not an x86-64
 * ELF object). */
int ompb__code_symbol(const char *obj, const char *name, uint64_t *vaddr);

/* For tests and tools: a copy of the bytes of the function containing
 * vaddr in obj, as they are in the file, with its start address. *bytes
 * is malloc'd; the caller frees it. Returns 0, or OMPB_ENOENT (no function
 * there), OMPB_EIO (unreadable, not an x86-64 ELF object, bytes outside
 * the file) or OMPB_ENOMEM. */
int ompb__code_function_bytes(const char *obj, uint64_t vaddr, unsigned char **bytes,
                              size_t *size, uint64_t *start);

#endif
