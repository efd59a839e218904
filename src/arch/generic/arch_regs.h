/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch_regs.h - no user registers for an unwinder: samples
 * carry none (PCTR_SAMPLE_USER_STACK is refused) and there is no DWARF
 * numbering to give them (no PCTR_ARCH_REGS_DWARF).  (src/arch.h: the
 * contract.)
 */
#ifndef PCTR_ARCH_REGS_H
#define PCTR_ARCH_REGS_H

#define PCTR_ARCH_REGS_USER 0ull

#endif
