/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch_pmc.h - no counter reads from user mode: every read is
 * a read(2) of the counter's descriptor.  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_PMC_H
#define PCTR_ARCH_PMC_H

#include <stdint.h>

#define PCTR_ARCH_USER_READ 0

/*
 * The switch that lets user mode read counters: NULL when each PMU's sysfs
 * directory has its own ("rdpmc", x86), else the sysctl's path.
 */
#define PCTR_ARCH_USER_ACCESS_SYSCTL NULL

/*
 * How read plans (src/plan.c) address counters: 1 if the counter read
 * takes the counter's number as an operand, 0 if the instruction names
 * it (one reader is then compiled per counter); and 64 - pmc_width of the
 * usual counter, which the plans' readers are compiled for.
 */
#define PCTR_ARCH_PMC_OPERAND 1
#define PCTR_ARCH_PMC_SHIFT 0
/* 1 if the counter is read in two 32-bit halves (src/arch.h) */
#define PCTR_ARCH_PMC_HALVES 0
/* whether the kernel sets cap_user_time_short whenever cap_user_time */
#define PCTR_ARCH_TIME_SHORT 0

/* a function pointer the caller then calls as its tail: a port may pin it */
#define PCTR_ARCH_TAIL_FN(type, name, value) type name = (value)
/* the function loaded where it is called: an x86 jump takes it from memory */
#define PCTR_ARCH_TAIL_FN_PAIR(type, name, word, at)                          \
	type const *name##_at = (type const *)(const void *)(at);              \
	uintptr_t word = ((const uintptr_t *)(const void *)(at))[1]
#define PCTR_ARCH_TAIL(name) (*name##_at)
#define PCTR_ARCH_KEEP_AT(at) ((void)(at))

/*
 * Read plans (src/mmap_read.h) and the registers their readers keep:
 * PCTR_ARCH_PLAN_PAIR(x) holds @x, loaded early, where loads pair (one
 * load then gets it with its neighbour); PCTR_ARCH_PLAN_BASE(early, late)
 * is the baseline's early load where it was paired, else its late one,
 * where it is the operand of the subtraction; PCTR_ARCH_PLAN_PIN_X2(x)
 * holds a two-word vector in a vector register, no load moved before it.
 */
#define PCTR_ARCH_PLAN_PAIR(x) ((void)0)
#define PCTR_ARCH_PLAN_BASE(early, late) ((void)(early), (late))
#define PCTR_ARCH_PLAN_PIN_X2(x) __asm__ volatile("" ::: "memory")

/* never called: PCTR_ARCH_USER_READ is 0 */
static inline __attribute__((always_inline)) uint64_t
pctr__arch_read_pmc(uint32_t hw)
{
	(void)hw;
	return 0;
}

#endif
