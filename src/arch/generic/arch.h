/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch.h - no user-space counter reads; time from
 * CLOCK_MONOTONIC_RAW in nanoseconds.
 */
#ifndef PCTR_ARCH_H
#define PCTR_ARCH_H

#include <stdint.h>
#include <time.h>

#define PCTR_ARCH_NAME "generic"
#define PCTR_ARCH_USER_READ 0

static inline uint64_t
pctr__arch_tsc(int serial)
{
	struct timespec ts;

	(void)serial;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* always inlined: the read path must not pay a call per counter */
static inline __attribute__((always_inline)) uint64_t
pctr__arch_read_pmc(uint32_t hw)
{
	(void)hw;
	return 0;
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

static inline int
pctr__arch_virtualized(void)
{
	return -1;
}

#endif
