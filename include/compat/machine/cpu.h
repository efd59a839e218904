/* SPDX-License-Identifier: MIT */
/*
 * <machine/cpu.h> for programs written for OpenBSD/amd64 (and FreeBSD,
 * whose programs include it without using it): the CTL_MACHDEP names that
 * sysctl(3) of this layer answers.  The kernel's part of the header has no
 * meaning in user space and is not provided.
 */
#ifndef _MACHINE_CPU_H_
#define _MACHINE_CPU_H_

#include <sys/types.h>

/* CTL_MACHDEP identifiers, OpenBSD/amd64 numbering */
#define CPU_CONSDEV 1		/* console device (not answered) */
#define CPU_CPUVENDOR 6		/* string: cpuid vendor */
#define CPU_CPUID 7		/* int: cpuid leaf 1 eax */
#define CPU_CPUFEATURE 8	/* int: cpuid leaf 1 edx */
#define CPU_TSCFREQ 16		/* u_int64_t: TSC frequency in Hz */
#define CPU_INVARIANTTSC 17	/* int: TSC ticks at a constant rate */

#endif /* !_MACHINE_CPU_H_ */
