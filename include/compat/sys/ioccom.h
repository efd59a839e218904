/* SPDX-License-Identifier: MIT */
/*
 * <sys/ioccom.h> for programs written for the BSDs.
 *
 * The BSD encoding of an ioctl request: the parameter length in bits 16-28,
 * the direction in bits 29-31 (IOC_VOID 0x20000000, out 0x40000000, in
 * 0x80000000), the group in bits 8-15 and the number in bits 0-7.
 *
 * _IO, _IOR, _IOW, _IOWR, IOC_IN and IOC_OUT stay Linux's: a program that
 * also issues real Linux ioctls (terminals, block devices) must keep getting
 * the kernel's numbers, whatever order it includes its headers in.  The
 * requests of the emulated devices (<machine/pctr.h>, <machine/perfmon.h>)
 * are built with __BSD_IOR and friends below, so they carry exactly the
 * numbers they have on OpenBSD and FreeBSD.
 */
#ifndef PCTR_COMPAT_SYS_IOCCOM_H
#define PCTR_COMPAT_SYS_IOCCOM_H

#include <sys/ioctl.h>

#define __BSD_IOCPARM_MASK 0x1fffUL
#define __BSD_IOC_VOID 0x20000000UL
#define __BSD_IOC_OUT 0x40000000UL
#define __BSD_IOC_IN 0x80000000UL
#define __BSD_IOC_INOUT (__BSD_IOC_IN | __BSD_IOC_OUT)

#define __BSD_IOC(inout, group, num, len)                                     \
	((unsigned long)((inout) | (((len) & __BSD_IOCPARM_MASK) << 16) |     \
			 ((unsigned long)(group) << 8) | (num)))
#define __BSD_IO(g, n) __BSD_IOC(__BSD_IOC_VOID, (g), (n), 0UL)
#define __BSD_IOR(g, n, t) __BSD_IOC(__BSD_IOC_OUT, (g), (n), sizeof(t))
#define __BSD_IOW(g, n, t) __BSD_IOC(__BSD_IOC_IN, (g), (n), sizeof(t))
#define __BSD_IOWR(g, n, t) __BSD_IOC(__BSD_IOC_INOUT, (g), (n), sizeof(t))

/* the BSD names Linux does not have, with their BSD meaning */
#ifndef IOCPARM_MASK
#define IOCPARM_MASK __BSD_IOCPARM_MASK
#endif
#ifndef IOCPARM_SHIFT
#define IOCPARM_SHIFT 16
#endif
#ifndef IOCGROUP_SHIFT
#define IOCGROUP_SHIFT 8
#endif
#ifndef IOCPARM_LEN
#define IOCPARM_LEN(x) (((x) >> IOCPARM_SHIFT) & IOCPARM_MASK)
#endif
#ifndef IOCBASECMD
#define IOCBASECMD(x) ((x) & ~(IOCPARM_MASK << IOCPARM_SHIFT))
#endif
#ifndef IOCGROUP
#define IOCGROUP(x) (((x) >> IOCGROUP_SHIFT) & 0xff)
#endif
#ifndef IOCPARM_MAX
#define IOCPARM_MAX (1 << 13)
#endif
#ifndef IOC_VOID
#define IOC_VOID __BSD_IOC_VOID
#endif
#ifndef IOC_DIRMASK
#define IOC_DIRMASK 0xe0000000UL
#endif

#endif /* PCTR_COMPAT_SYS_IOCCOM_H */
