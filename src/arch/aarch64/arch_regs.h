/* SPDX-License-Identifier: MIT */
/*
 * arch/aarch64/arch_regs.h - the user registers an unwinder needs, in the
 * kernel's numbering (asm/perf_regs.h, enum perf_event_arm64_regs), and
 * their DWARF numbers (AAPCS64).  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_REGS_H
#define PCTR_ARCH_REGS_H

/* X0 to X30, SP and PC */
#define PCTR_ARCH_REGS_USER ((1ull << 33) - 1)
/* DWARF's x0-x30 and sp: the kernel's order; the PC has no DWARF number */
#define PCTR_ARCH_REGS_DWARF                                                   \
	{ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,     \
	  16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 }
#define PCTR_ARCH_REG_SP 31
#define PCTR_ARCH_REG_PC 32

#endif
