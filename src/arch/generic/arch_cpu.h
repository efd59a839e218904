/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch_cpu.h - what the CPU says of itself, where it says
 * nothing to user mode.  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_CPU_H
#define PCTR_ARCH_CPU_H

#include <stdint.h>

/* no cpuid instruction: no leaf */
static inline int
pctr__arch_cpuid_leaf(uint32_t leaf, uint32_t r[4])
{
	(void)leaf, (void)r;
	return 0;
}

/* 1 under a hypervisor, 0 on bare metal, -1 if the CPU does not say */
static inline int
pctr__arch_virtualized(void)
{
	return -1;
}

#endif
