/* SPDX-License-Identifier: MIT */
/*
 * cyc_ns_check.h - a port's pctr__arch_cyc_ns() against the kernel's
 * conversion of timestamp ticks to nanoseconds, (cyc * mult) >> shift with
 * the product in 128 bits (which is what perf_event.h spells quot * mult +
 * ((rem * mult) >> shift) while shift is at most 32), for every shift the
 * kernel makes (0 to 32) and the largest multipliers and counts, wrapping
 * included.  test_plan checks this machine's port, test_arch_generic the
 * generic one.
 */
#ifndef PCTR_TEST_CYC_NS_CHECK_H
#define PCTR_TEST_CYC_NS_CHECK_H

#include <stdint.h>

#include "test.h"

static inline void
check_cyc_ns(void)
{
	static const uint64_t cyc[] = { 0, 1, 1000, 0xffffffffull,
					(uint64_t)1 << 40, 0x123456789abcdefull,
					(uint64_t)1 << 63, ~0ull };
	static const uint32_t mult[] = { 0, 1, 3u << 9, 0x80000000u,
					 0xffffffffu };

	for (uint16_t shift = 0; shift <= 32; shift++)
		for (size_t i = 0; i < sizeof(cyc) / sizeof(cyc[0]); i++)
			for (size_t k = 0; k < sizeof(mult) / sizeof(mult[0]);
			     k++) {
				unsigned __int128 p =
					(unsigned __int128)cyc[i] * mult[k];

				ASSERT_HEX_EQ(pctr__arch_cyc_ns(cyc[i], mult[k],
								shift),
					      (uint64_t)(p >> shift));
			}
}

#endif
