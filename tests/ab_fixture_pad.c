/* SPDX-License-Identifier: MIT */
/*
 * Padding for the layout fixtures (tests/integration/layout_effect.sh): an
 * unrelated function of OMPB_PAD_BYTES bytes of code (0 when undefined).
 * Linked before tests/ab_fixture.c it moves every function of the
 * fixture, whose own code stays byte for byte what it was: an A/B pair
 * that differs only in code layout.
 */
#include <stdint.h>

#ifndef OMPB_PAD_BYTES
#define OMPB_PAD_BYTES 0
#endif

#define PAD_STR_(x) #x
#define PAD_STR(x) PAD_STR_(x)

uint64_t ompb_fixture_pad(uint64_t x);

uint64_t ompb_fixture_pad(uint64_t x)
{
    __asm__ volatile(".fill " PAD_STR(OMPB_PAD_BYTES) ", 1, 0x90" : "+r"(x));
    return x + 1;
}
