/* SPDX-License-Identifier: MIT */
/* arch/x86_64/arch_pmc.h - rdpmc, inlined into the read path. */
#ifndef PCTR_ARCH_PMC_H
#define PCTR_ARCH_PMC_H

#include <stdint.h>

#define PCTR_ARCH_USER_READ 1
/* each PMU's sysfs directory has its "rdpmc" switch */
#define PCTR_ARCH_USER_ACCESS_SYSCTL NULL

/* @hw is the mmap page's index minus one: the rdpmc counter number. */
/* always inlined: the read path must not pay a call per counter */
static inline __attribute__((always_inline)) uint64_t
pctr__arch_read_pmc(uint32_t hw)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(hw));
	return lo | (uint64_t)hi << 32;
}

#endif
