/* SPDX-License-Identifier: MIT */
/* arch/x86_64/arch_pmc.h - rdpmc, inlined into the read path. */
#ifndef PCTR_ARCH_PMC_H
#define PCTR_ARCH_PMC_H

#include <stdint.h>

#define PCTR_ARCH_USER_READ 1
/* each PMU's sysfs directory has its "rdpmc" switch */
#define PCTR_ARCH_USER_ACCESS_SYSCTL NULL
/* rdpmc takes the counter in ecx (fixed counters with bit 30 set) */
#define PCTR_ARCH_PMC_OPERAND 1
/* the TSC is 64 bits: the kernel never sets cap_user_time_short */
#define PCTR_ARCH_TIME_SHORT 0
/* 64 - pmc_width of Intel's and AMD's counters (48 bits), general and fixed */
#define PCTR_ARCH_PMC_SHIFT 16
/* an indirect tail call jumps through memory: nothing to pin */
#define PCTR_ARCH_TAIL_FN(type, name, value) type name = (value)
/* the function loaded where it is called: an x86 jump takes it from memory */
#define PCTR_ARCH_TAIL_FN_PAIR(type, name, word, at)                          \
	type const *name##_at = (type const *)(const void *)(at);              \
	uintptr_t word = ((const uintptr_t *)(const void *)(at))[1]
#define PCTR_ARCH_TAIL(name) (*name##_at)
/*
 * A sample reader's address of the sample (its second argument, rsi),
 * wanted there at its end: GCC 12 otherwise copies it to another register
 * first and gives rsi to the pages (one instruction more per read).
 */
#define PCTR_ARCH_KEEP_AT(at) __asm__("" ::"S"(at))

/*
 * Read plans (generic/arch_pmc.h): the baseline is the subtraction's
 * operand, loaded where it is taken off; a pair of times is pinned in an
 * SSE register.
 */
#define PCTR_ARCH_PLAN_PAIR(x) ((void)0)
#define PCTR_ARCH_PLAN_BASE(early, late) ((void)(early), (late))
#define PCTR_ARCH_PLAN_PIN_X2(x) __asm__ volatile("" : "+x"(x) : : "memory")

/*
 * @hw is the mmap page's index minus one: the rdpmc counter number.  rdpmc
 * writes eax and edx, which zero-extends them into rax and rdx: the halves
 * are returned as they are, for read plans to join with the sign
 * extension (mmap_read.h, pctr__plan_join()).
 */
#define PCTR_ARCH_PMC_HALVES 1
/* always inlined: the read path must not pay a call per counter */
static inline __attribute__((always_inline)) void
pctr__arch_read_pmc_halves(uint32_t hw, uint64_t *lo, uint64_t *hi)
{
	__asm__ volatile("rdpmc" : "=a"(*lo), "=d"(*hi) : "c"(hw));
}

static inline __attribute__((always_inline)) uint64_t
pctr__arch_read_pmc(uint32_t hw)
{
	uint64_t lo, hi;

	pctr__arch_read_pmc_halves(hw, &lo, &hi);
	return lo | hi << 32;
}

#endif
