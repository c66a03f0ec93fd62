/* SPDX-License-Identifier: MIT */
/*
 * The x86-64 knowledge of the code identity check
 * (tools/lib/analysis/codeid_x86.h): a few opcode, ModRM and SIB patterns,
 * read backwards from an address field. A pattern that does not match only
 * means the field is not read as an address or a sized operand, which the
 * caller treats conservatively.
 */
#include "analysis/codeid_x86.h"

#include "analysis/codeid_elf.h"

/* Scalar SSE operations with a memory operand (0F xx after F2: double,
 * F3: float): mov, cvtsi2, cvtt, cvt, sqrt, add, mul, cvt, sub, min,
 * div, max. */
static bool scalar_sse(unsigned char op)
{
    return op == 0x10 || op == 0x2a || op == 0x2c || op == 0x2d || op == 0x51 || op == 0x58
           || op == 0x59 || op == 0x5a || op == 0x5c || op == 0x5d || op == 0x5e || op == 0x5f;
}

/* Packed SSE operations that read 16 bytes (after 66 or no prefix): mov,
 * mova, and, andn, or, xor, movdqa, pand, por, pxor. */
static bool packed_sse(unsigned char op)
{
    return op == 0x10 || op == 0x28 || (op >= 0x54 && op <= 0x57) || op == 0x6f || op == 0xdb
           || op == 0xeb || op == 0xef;
}

static bool rex(unsigned char b)
{
    return (b & 0xf0) == 0x40;
}

bool ompb__x86_pcrel_field(const unsigned char *p, size_t w)
{
    if (w < 1)
        return false;
    unsigned char b = p[w - 1];
    return b == 0xe8 || b == 0xe9 || (b & 0xc7) == 0x05
           || (w >= 2 && p[w - 2] == 0x0f && (b & 0xf0) == 0x80);
}

bool ompb__x86_abs_field(const unsigned char *p, size_t w)
{
    if (w < 1)
        return false;
    unsigned char b = p[w - 1];
    return (b & 0xf8) == 0xb8 || b == 0x68
           || (w >= 2 && (p[w - 2] & 0xc7) == 0x04 && (b & 0x07) == 0x05);
}

bool ompb__x86_abs64_field(const unsigned char *p, size_t w)
{
    return w >= 2 && (p[w - 1] & 0xf8) == 0xb8 && (p[w - 2] & 0xf8) == 0x48;
}

/* After the two-byte escape 0F op at p[at], with what precedes it. */
static int escaped_width(const unsigned char *p, size_t at, unsigned char op)
{
    size_t pre = at >= 1 && rex(p[at - 1]) ? at - 1 : at;
    bool wide = pre < at && (p[at - 1] & 0x08);
    unsigned char mand = pre >= 1 ? p[pre - 1] : 0;
    if ((mand == 0xf2 || mand == 0xf3) && scalar_sse(op))
        return mand == 0xf2 ? 8 : 4;
    if (mand == 0xf3 && op == 0x6f) /* movdqu */
        return 16;
    if (mand == 0xf3 && op == 0x7e) /* movq */
        return 8;
    if (mand != 0xf2 && mand != 0xf3 && (op == 0x12 || op == 0x16)) /* movl/movh ps/pd */
        return 8;
    if (op == 0x2e || op == 0x2f) /* (u)comisd, (u)comiss */
        return mand == 0x66 ? 8 : 4;
    if (op >= 0x40 && op <= 0x4f) /* cmovcc */
        return wide ? 8 : mand == 0x66 ? 2 : 4;
    if (op == 0xb6 || op == 0xbe) /* movzb, movsb */
        return 1;
    if (op == 0xb7 || op == 0xbf) /* movzw, movsw */
        return 2;
    if (mand != 0xf2 && mand != 0xf3 && packed_sse(op))
        return 16;
    return OMPB__ELF_UNSIZED;
}

int ompb__x86_operand_width(const unsigned char *p, size_t w)
{
    if (w < 2 || (p[w - 1] & 0xc7) != 0x05) /* ModRM: not [rip + disp32] */
        return OMPB__ELF_UNSIZED;
    unsigned char op = p[w - 2];
    size_t at = w - 2; /* the opcode's first byte */
    if (at >= 1 && p[at - 1] == 0x0f)
        return escaped_width(p, at - 1, op);
    if (op == 0x8d)
        return OMPB__ELF_STRING;
    if (op == 0x8b || op == 0x03 || op == 0x2b || op == 0x3b) { /* mov, add, sub, cmp */
        size_t pre = at >= 1 && rex(p[at - 1]) ? at - 1 : at;
        bool wide = pre < at && (p[at - 1] & 0x08);
        return wide ? 8 : pre >= 1 && p[pre - 1] == 0x66 ? 2 : 4;
    }
    if (op == 0x8a || op == 0x02 || op == 0x2a || op == 0x3a) /* the same on bytes */
        return 1;
    return OMPB__ELF_UNSIZED;
}

int ompb__x86_immediate_width(const unsigned char *p, size_t w)
{
    return w >= 1 && ((p[w - 1] & 0xf8) == 0xb8 || p[w - 1] == 0x68) ? OMPB__ELF_STRING
                                                                     : OMPB__ELF_UNSIZED;
}
