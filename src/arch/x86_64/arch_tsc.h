/* SPDX-License-Identifier: MIT */
/* arch/x86_64/arch_tsc.h - rdtsc, and the TSC's frequency from cpuid. */
#ifndef PCTR_ARCH_TSC_H
#define PCTR_ARCH_TSC_H

#include <stdint.h>

#include "arch_cpu.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h> /* RUNNING_ON_VALGRIND: 0 natively */
#define PCTR__UNDER_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#endif
#endif
#ifndef PCTR__UNDER_VALGRIND
#define PCTR__UNDER_VALGRIND() 0
#endif

/* the perf mmap page's time_mult and time_shift convert TSC ticks */
#define PCTR_ARCH_TSC_IS_PERF_CLOCK 1

static inline uint64_t
pctr__arch_tsc(int serial)
{
	/* eax and edx, zero-extended into rax and rdx: no move to join them */
	uint64_t lo, hi;
	uint32_t aux;

	if (serial == PCTR_SERIAL_RDTSCP) {
		__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
		return lo | hi << 32;
	}
	if (serial == PCTR_SERIAL_FENCE)
		__asm__ volatile("lfence" ::: "memory");
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | hi << 32;
}

/*
 * The @serial pctr__arch_tsc() is given for the mode a program asked for
 * (pctr_set_serialize() keeps it): rdtscp only where the CPU says it has
 * it (CPUID 0x80000001 EDX bit 27), else lfence; rdtsc, the same order
 * (rdtscp waits for every earlier instruction and load, as lfence does;
 * Linux's rdtsc_ordered() takes either).  A hypervisor may hide rdtscp
 * (its TSC_AUX would be the host's CPU): there the instruction may still
 * run, or fault.  Under valgrind, lfence; rdtsc as well: valgrind (3.19)
 * translates rdtscp only where the host's CPUID has it, while the CPUID it
 * shows the program (a Core i7's) has it on any host, so its SIGILL cannot
 * be told in advance (tests/repro/repro_valgrind_rdtscp); the ordering
 * is valgrind's own there anyway.
 */
static inline int
pctr__arch_tsc_serial(int mode)
{
	uint32_t r[4];

	if (mode != PCTR_SERIAL_RDTSCP)
		return mode;
	pctr__arch_cpuid(0x80000000, 0, r);
	if (r[0] < 0x80000001)
		return PCTR_SERIAL_FENCE;
	pctr__arch_cpuid(0x80000001, 0, r);
	if (!((r[3] >> 27) & 1) || PCTR__UNDER_VALGRIND())
		return PCTR_SERIAL_FENCE;
	return mode;
}

/* The TSC's frequency as the CPU states it, 0 if it does not. */
static inline uint64_t
pctr__arch_tsc_hz_hint(void)
{
	uint32_t r[4];

	pctr__arch_cpuid(0, 0, r);
	if (r[0] >= 0x15) {
		pctr__arch_cpuid(0x15, 0, r); /* TSC/crystal ratio */
		if (r[0] && r[1] && r[2])
			return (uint64_t)r[2] * r[1] / r[0];
	}
	pctr__arch_cpuid(1, 0, r);
	if (r[2] & (1u << 31)) { /* hypervisor: its timing leaf */
		pctr__arch_cpuid(0x40000000, 0, r);
		if (r[0] >= 0x40000010) {
			pctr__arch_cpuid(0x40000010, 0, r);
			if (r[0])
				return (uint64_t)r[0] * 1000;
		}
	}
	return 0;
}

static inline int
pctr__arch_tsc_invariant(void)
{
	uint32_t r[4];

	pctr__arch_cpuid(0x80000000, 0, r);
	if (r[0] < 0x80000007)
		return -1;
	pctr__arch_cpuid(0x80000007, 0, r);
	return (r[3] >> 8) & 1;
}

#endif
