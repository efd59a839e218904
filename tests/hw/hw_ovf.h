/* SPDX-License-Identifier: MIT */
/*
 * hw_ovf.h - what the overflow and sampling hardware tests share: the
 * loop's length for a given period and PCs inside hw_loop().
 *
 * The loop: hw_loop(N) executes 2N user instructions, and under
 * "-icount shift=0" a user-mode cycle is an instruction.  With a period P
 * the test runs 2N = K * P + P / 2: the count between enable and disable
 * is 2N plus a few hundred instructions of the ioctls' user side (and, for
 * signal notifications, the handler's), so there are exactly K overflows
 * as long as that extra stays under P / 2, and every one of them falls
 * inside the loop, which goes on for P / 2 after the last.  The tests
 * assert floor(count / P) notifications exactly, every PC inside the loop.
 *
 * On instructions this needs tests/hw/qemu's patched QEMU: stock QEMU 7.2
 * arms the INST_RETIRED overflow timer one count short, so its overflow
 * interrupt comes at the next timer tick and most overflows are never
 * notified (tests/hw/qemu/0001-*.patch says why).  tests/hw/run.sh boots
 * that build.
 */
#ifndef PCTR_HW_OVF_H
#define PCTR_HW_OVF_H

#include "hw.h"

#define HW_OVF_PERIOD 1000000ull /* 1 ms of the guest's virtual time */
#define HW_OVF_K 100ull		 /* overflows in the loop */

/* iterations of hw_loop() for K periods and a half */
static inline uint64_t
hw_ovf_iterations(uint64_t period, uint64_t k)
{
	return (k * period + period / 2) / 2;
}

/*
 * hw_loop() is 4 instructions, 16 bytes: cbz, subs, b.ne, ret (hw_asm.S);
 * on x86-64 5, 11 bytes: test, jz, dec, jnz, ret (hw_asm_x86_64.S)
 */
static inline int
hw_in_loop(uint64_t ip)
{
	uintptr_t lo = (uintptr_t)hw_loop;

	return ip >= lo && ip < lo + 16;
}

#endif
