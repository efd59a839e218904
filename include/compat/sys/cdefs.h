/* SPDX-License-Identifier: MIT */
/*
 * <sys/cdefs.h> for programs written for the BSDs: the C library's own
 * header, plus the few attribute macros BSD programs take for granted
 * (__dead, __dead2, __pure2, __FBSDID).  Nothing of the C library's header
 * is changed or hidden.
 */
#ifndef PCTR_COMPAT_SYS_CDEFS_H
#define PCTR_COMPAT_SYS_CDEFS_H

#include_next <sys/cdefs.h>

#ifndef __dead
#define __dead __attribute__((__noreturn__))		/* OpenBSD */
#endif
#ifndef __dead2
#define __dead2 __attribute__((__noreturn__))		/* FreeBSD */
#endif
#ifndef __pure2
#define __pure2 __attribute__((__const__))		/* FreeBSD */
#endif
#ifndef __FBSDID
#define __FBSDID(s) struct __hack
#endif

#endif /* PCTR_COMPAT_SYS_CDEFS_H */
