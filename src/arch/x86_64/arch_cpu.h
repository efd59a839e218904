/* SPDX-License-Identifier: MIT */
/* arch/x86_64/arch_cpu.h - cpuid.  (src/arch.h: the contract.) */
#ifndef PCTR_ARCH_CPU_H
#define PCTR_ARCH_CPU_H

#include <stdint.h>

static inline void
pctr__arch_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

/*
 * Leaf @leaf into @r and 1 if the CPU has it (the highest leaf of its
 * range, basic or extended, is at least @leaf), else 0: <cpuid.h>'s
 * __get_cpuid().
 */
static inline int
pctr__arch_cpuid_leaf(uint32_t leaf, uint32_t r[4])
{
	pctr__arch_cpuid(leaf & 0x80000000u, 0, r);
	if (r[0] < leaf)
		return 0;
	pctr__arch_cpuid(leaf, 0, r);
	return 1;
}

static inline int
pctr__arch_virtualized(void)
{
	uint32_t r[4];

	pctr__arch_cpuid(1, 0, r);
	return (r[2] >> 31) & 1;
}

#endif
