/* SPDX-License-Identifier: MIT */
/*
 * arch/aarch64/arch_thread.h - the calling thread's identity: its thread
 * pointer (tpidr_el0), one instruction where the compiler reads it, unique
 * among the live threads.  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_THREAD_H
#define PCTR_ARCH_THREAD_H

#include <stdint.h>

#define pctr__arch_thread_self() ((uintptr_t)__builtin_thread_pointer())

#endif
