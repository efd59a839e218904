/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch_thread.h - the calling thread's identity, from
 * pthread_self().  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_THREAD_H
#define PCTR_ARCH_THREAD_H

#include <pthread.h>
#include <stdint.h>

#define pctr__arch_thread_self() ((uintptr_t)pthread_self())

#endif
