/* SPDX-License-Identifier: MIT */
/*
 * arch/aarch64/arch_bsd.h - arm64 to the BSD layers: a function word's
 * low 16 bits are the PMUv3 event number; the C library's struct stat.
 * (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_BSD_H
#define PCTR_ARCH_BSD_H

#include <sys/syscall.h>

#define PCTR_ARCH_BSD_MACHINE "arm64"
#define PCTR_ARCH_BSD_EVENT_MASK 0xffffu
#define PCTR_ARCH_SYS_FSTAT SYS_fstat

#endif
