/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/arch_time.h - timestamp ticks to nanoseconds, (cyc * mult)
 * >> shift with the product in 128 bits: two instructions, mul and shrd
 * (generic/arch_time.h says why that is the page's conversion).
 * (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_TIME_H
#define PCTR_ARCH_TIME_H

#include <stdint.h>

static inline __attribute__((always_inline)) uint64_t
pctr__arch_cyc_ns(uint64_t cyc, uint64_t mult, uint16_t shift)
{
	uint64_t ns = mult, hi = cyc;

	/*
	 * rdx:rax = mult * cyc, then rax = rdx:rax >> (shift & 63).  mul
	 * multiplies rax by its operand, here rdx, where the readers get
	 * @cyc (their third argument): neither value is moved.
	 */
	__asm__("mulq %%rdx\n\tshrdq %%cl, %%rdx, %%rax"
		: "+a"(ns), "+d"(hi)
		: "c"((uint32_t)shift)
		: "cc");
	return ns;
}

#endif
