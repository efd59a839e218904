/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch_tsc.h - the timestamp counter where the CPU offers none
 * to user mode: CLOCK_MONOTONIC_RAW in nanoseconds.  (src/arch.h: the
 * contract.)
 */
#ifndef PCTR_ARCH_TSC_H
#define PCTR_ARCH_TSC_H

#include <stdint.h>
#include <time.h>

/*
 * Nanoseconds are not the clock the perf mmap page's time_mult and
 * time_shift convert (the architecture's timebase counter): the page says
 * nothing about this "TSC".
 */
#define PCTR_ARCH_TSC_IS_PERF_CLOCK 0

static inline uint64_t
pctr__arch_tsc(int serial)
{
	struct timespec ts;

	(void)serial;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
	return 1000000000u;
}

static inline int
pctr__arch_tsc_invariant(void)
{
	return 1;
}

#endif
