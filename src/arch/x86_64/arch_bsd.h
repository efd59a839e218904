/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/arch_bsd.h - amd64 to the BSD layers: x86's function words,
 * the C library's struct stat.  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_BSD_H
#define PCTR_ARCH_BSD_H

#include <sys/syscall.h>

#define PCTR_ARCH_BSD_MACHINE "amd64"
#define PCTR_ARCH_BSD_EVENT_MASK 0u
#define PCTR_ARCH_SYS_FSTAT SYS_fstat

#endif
