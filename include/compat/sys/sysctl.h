/* SPDX-License-Identifier: MIT */
/*
 * <sys/sysctl.h> for programs written for OpenBSD: sysctl(3) answering the
 * machine and CPU identification nodes from cpuid.
 *
 * The C library's own <sys/sysctl.h> is gone from current glibc; where an
 * older one exists, this header takes its place (its sysctl(2) is not
 * reachable through it).  Only names Linux's <linux/sysctl.h> does not
 * use are defined here, so the two can be included together: CTL_KERN and
 * the KERN_ names are left out on purpose.
 */
#ifndef PCTR_COMPAT_SYS_SYSCTL_H
#define PCTR_COMPAT_SYS_SYSCTL_H

#include <stddef.h>
#include <sys/types.h>

#define CTL_MAXNAME 12		/* longest name sysctl() accepts */

/* top level */
#define CTL_HW 6		/* generic CPU and hardware */
#define CTL_MACHDEP 7		/* machine dependent, <machine/cpu.h> */

/* CTL_HW */
#define HW_MACHINE 1		/* string: "amd64", "arm64" */
#define HW_MODEL 2		/* string: the processor's brand string */
#define HW_NCPU 3		/* int: CPUs configured */
#define HW_BYTEORDER 4		/* int: 1234 or 4321 */
#define HW_PAGESIZE 7		/* int: the page size */
#define HW_NCPUONLINE 25	/* int: CPUs online */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * OpenBSD's prototype.  The symbol is libpctr-openbsd's, so that it never
 * meets the C library's obsolete sysctl(2) wrapper.
 */
int sysctl(const int *name, u_int namelen, void *oldp, size_t *oldlenp,
	   void *newp, size_t newlen) __asm__("pctr_openbsd_sysctl");

#ifdef __cplusplus
}
#endif

#endif /* PCTR_COMPAT_SYS_SYSCTL_H */
