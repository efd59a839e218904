/* SPDX-License-Identifier: MIT */
/* arch/aarch64/arch_tsc.h - the generic timer's virtual count. */
#ifndef PCTR_ARCH_TSC_H
#define PCTR_ARCH_TSC_H

#include <stdint.h>

/* the perf mmap page's time_mult and time_shift convert CNTVCT ticks */
#define PCTR_ARCH_TSC_IS_PERF_CLOCK 1

static inline uint64_t
pctr__arch_tsc(int serial)
{
	uint64_t v;

	if (serial != PCTR_SERIAL_NONE)
		__asm__ volatile("isb" ::: "memory");
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/* every mode is what it says here (pctr_set_serialize()) */
static inline int
pctr__arch_tsc_serial(int mode)
{
	return mode;
}

static inline uint64_t
pctr__arch_tsc_hz_hint(void)
{
	uint64_t f;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
}

static inline int
pctr__arch_tsc_invariant(void)
{
	return 1; /* the generic timer runs at a fixed frequency */
}

#endif
