/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch_pmc.h - no counter reads from user mode: every read is
 * a read(2) of the counter's descriptor.  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_PMC_H
#define PCTR_ARCH_PMC_H

#include <stdint.h>

#define PCTR_ARCH_USER_READ 0

/*
 * The switch that lets user mode read counters: NULL when each PMU's sysfs
 * directory has its own ("rdpmc", x86), else the sysctl's path.
 */
#define PCTR_ARCH_USER_ACCESS_SYSCTL NULL

/* never called: PCTR_ARCH_USER_READ is 0 */
static inline __attribute__((always_inline)) uint64_t
pctr__arch_read_pmc(uint32_t hw)
{
	(void)hw;
	return 0;
}

#endif
