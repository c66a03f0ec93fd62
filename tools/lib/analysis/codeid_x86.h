/* SPDX-License-Identifier: MIT */
/*
 * What the code identity check (tools/lib/analysis/codeid.h) knows of
 * x86-64 instructions, private to it: whether the 4 or 8 bytes at an
 * offset of a function's code can be an address field (from the bytes
 * before them: an opcode, a ModRM or SIB byte), and how wide the operand
 * an instruction reads there is, for comparing a constant's content. No
 * instruction is decoded whole: each answer reads at most the five bytes
 * before the field, all inside the function's bytes.
 */
#ifndef OMPB_ANALYSIS_CODEID_X86_H
#define OMPB_ANALYSIS_CODEID_X86_H

#include <stdbool.h>
#include <stddef.h>

/* The 4 bytes at w of code p can be a PC-relative displacement: they
 * follow a rel32 call, jmp or jcc opcode, or a [rip + disp32] ModRM byte.
 * Every PC-relative address field of x86-64 code passes. */
bool ompb__x86_pcrel_field(const unsigned char *p, size_t w);

/* The 4 bytes at w can be an absolute address (code not built as PIE):
 * the immediate of mov $imm32 to a register or of push, or the disp32 of
 * a SIB byte without base (a table indexed by a register). */
bool ompb__x86_abs_field(const unsigned char *p, size_t w);

/* The 8 bytes at w can be an absolute address: movabs $imm64. */
bool ompb__x86_abs64_field(const unsigned char *p, size_t w);

/* The width in bytes of the memory operand of the instruction whose
 * [rip + disp32] displacement is at w, for the reads of constants it
 * knows (scalar and packed SSE, cmov, mov/add/sub/cmp, movzx/movsx);
 * OMPB__ELF_STRING for lea (an address taken); else OMPB__ELF_UNSIZED. */
int ompb__x86_operand_width(const unsigned char *p, size_t w);

/* The same for an absolute address at w: OMPB__ELF_STRING for an
 * immediate moved into a register or pushed, else OMPB__ELF_UNSIZED. */
int ompb__x86_immediate_width(const unsigned char *p, size_t w);

#endif
