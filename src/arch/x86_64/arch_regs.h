/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/arch_regs.h - the user registers an unwinder needs, in the
 * kernel's numbering (asm/perf_regs.h, enum perf_event_x86_regs), and
 * their DWARF numbers (x86-64 psABI).  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_REGS_H
#define PCTR_ARCH_REGS_H

/*
 * AX to SS and R8 to R15.  DS, ES, FS and GS (bits 12 to 15) are refused
 * by the kernel for 64-bit tasks.
 */
#define PCTR_ARCH_REGS_USER (0xfffull | 0xff0000ull)
/* DWARF's rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, rip */
#define PCTR_ARCH_REGS_DWARF                                                   \
	{ 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 }
#define PCTR_ARCH_REG_SP 7
#define PCTR_ARCH_REG_PC 8

#endif
