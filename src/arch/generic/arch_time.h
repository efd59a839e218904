/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch_time.h - timestamp ticks to nanoseconds by a perf mmap
 * page's time_mult and time_shift.  (src/arch.h: the contract.)
 *
 * perf_event.h spells it quot * mult + ((rem * mult) >> shift) (quot and
 * rem: @cyc divided by 1 << shift), which is (cyc * mult) >> shift with
 * the product in 128 bits while time_shift is at most 32 (rem * mult then
 * fits 64 bits): the kernel makes the page's shift with
 * clocks_calc_mult_shift(), which tries 32 down, and computes its own
 * clock the 128-bit way (mul_u64_u32_shr(), as libperf's
 * perf_mmap__read_self() does too).  A port whose CPU multiplies into two
 * registers and shifts a register pair by a count may do that instead
 * (x86_64/arch_time.h); elsewhere the quotient and remainder are cheaper.
 */
#ifndef PCTR_ARCH_TIME_H
#define PCTR_ARCH_TIME_H

#include <stdint.h>

static inline __attribute__((always_inline)) uint64_t
pctr__arch_cyc_ns(uint64_t cyc, uint64_t mult, uint16_t shift)
{
	uint64_t quot = cyc >> shift;
	uint64_t rem = cyc - (quot << shift);

	return quot * mult + ((rem * mult) >> shift);
}

#endif
