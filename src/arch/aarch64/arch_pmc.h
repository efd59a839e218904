/* SPDX-License-Identifier: MIT */
/*
 * arch/aarch64/arch_pmc.h - PMU register reads, inlined into the read path.
 *
 * The mmap page's index is 1..31 for event counter PMEVCNTR<index-1>_EL0
 * and 32 for the cycle counter PMCCNTR_EL0.  mrs encodes the register in
 * the instruction, hence the switch.
 */
#ifndef PCTR_ARCH_PMC_H
#define PCTR_ARCH_PMC_H

#include <stdint.h>

#define PCTR_ARCH_USER_READ 1
/* one switch for the whole system (Linux 6.2+) */
#define PCTR_ARCH_USER_ACCESS_SYSCTL "/proc/sys/kernel/perf_user_access"
/* mrs names its register: read plans have a reader per counter number */
#define PCTR_ARCH_PMC_OPERAND 0
/* the register is read whole */
#define PCTR_ARCH_PMC_HALVES 0
/* the kernel sets cap_user_time_short with cap_user_time (56-bit timer) */
#define PCTR_ARCH_TIME_SHORT 1
/* 64 - pmc_width of a plain event (32 bits; "long" events have 64) */
#define PCTR_ARCH_PMC_SHIFT 32
/*
 * GCC branches to an indirect tail call through x16 (the register BTI
 * accepts) and copies the target there: loaded there, the copy goes.
 */
#define PCTR_ARCH_TAIL_FN(type, name, value)                                   \
	register type name __asm__("x16") = (value);                           \
	__asm__("" : "+r"(name))
/* the same, and the word after it, in one load pair (GCC 12 loads each) */
typedef unsigned __int128 pctr__arch_pair __attribute__((may_alias));
#define PCTR_ARCH_TAIL_FN_PAIR(type, name, word, at)                          \
	register type name __asm__("x16");                                     \
	uintptr_t word;                                                        \
	__asm__("ldp %0, %1, %2"                                               \
		: "=r"(name), "=r"(word)                                       \
		: "Ump"(*(const pctr__arch_pair *)(const void *)(at)))
#define PCTR_ARCH_TAIL(name) (name)
/* nothing to keep in place (x86_64/arch_pmc.h) */
#define PCTR_ARCH_KEEP_AT(at) ((void)(at))

/*
 * Read plans (generic/arch_pmc.h): the page and the baseline in one load
 * pair (ldp reaches 504 bytes past its base), a pair of times pinned in
 * a NEON register.
 */
#define PCTR_ARCH_PLAN_PAIR(x) __asm__("" : "+r"(x))
#define PCTR_ARCH_PLAN_BASE(early, late) (early)
#define PCTR_ARCH_PLAN_PIN_X2(x) __asm__ volatile("" : "+w"(x) : : "memory")

#define PCTR__MRS_EVCNTR(n)                                                    \
	case n:                                                                \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v));      \
		break

/* always inlined: the read path must not pay a call per counter */
static inline __attribute__((always_inline)) uint64_t
pctr__arch_read_pmc(uint32_t hw)
{
	uint64_t v = 0;

	/* every value of the switch has a case: no range check is emitted */
	switch (hw & 31) {
		PCTR__MRS_EVCNTR(0);
		PCTR__MRS_EVCNTR(1);
		PCTR__MRS_EVCNTR(2);
		PCTR__MRS_EVCNTR(3);
		PCTR__MRS_EVCNTR(4);
		PCTR__MRS_EVCNTR(5);
		PCTR__MRS_EVCNTR(6);
		PCTR__MRS_EVCNTR(7);
		PCTR__MRS_EVCNTR(8);
		PCTR__MRS_EVCNTR(9);
		PCTR__MRS_EVCNTR(10);
		PCTR__MRS_EVCNTR(11);
		PCTR__MRS_EVCNTR(12);
		PCTR__MRS_EVCNTR(13);
		PCTR__MRS_EVCNTR(14);
		PCTR__MRS_EVCNTR(15);
		PCTR__MRS_EVCNTR(16);
		PCTR__MRS_EVCNTR(17);
		PCTR__MRS_EVCNTR(18);
		PCTR__MRS_EVCNTR(19);
		PCTR__MRS_EVCNTR(20);
		PCTR__MRS_EVCNTR(21);
		PCTR__MRS_EVCNTR(22);
		PCTR__MRS_EVCNTR(23);
		PCTR__MRS_EVCNTR(24);
		PCTR__MRS_EVCNTR(25);
		PCTR__MRS_EVCNTR(26);
		PCTR__MRS_EVCNTR(27);
		PCTR__MRS_EVCNTR(28);
		PCTR__MRS_EVCNTR(29);
		PCTR__MRS_EVCNTR(30);
	case 31:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}

#endif
