/* SPDX-License-Identifier: MIT */
/*
 * <machine/pctr.h> - the OpenBSD pctr(4) interface, served by libpctr.
 *
 * Same names, values, layout and ioctl numbers as on OpenBSD/amd64.  A
 * program linked with the layer (pkg-config pctr-openbsd) opens _PATH_PCTR
 * and issues these ioctls unchanged; see pctr_openbsd(4) for what differs.
 */
#ifndef _MACHINE_PCTR_H_
#define _MACHINE_PCTR_H_

#include <sys/types.h>
#include <sys/ioccom.h>

typedef unsigned long long pctrval;	/* u_int64_t on OpenBSD/amd64 */

#define PCTR_NUM 4

struct pctrst {
	u_int pctr_fn[PCTR_NUM];	/* functions, as last set */
	pctrval pctr_tsc;		/* timestamp counter */
	pctrval pctr_hwc[PCTR_NUM];	/* the counters */
};

/* flags of a counter function */
#define PCTR_U 0x010000		/* count in user mode */
#define PCTR_K 0x020000		/* count in kernel mode */
#define PCTR_E 0x040000		/* edge detect */
#define PCTR_EN 0x400000	/* counter enabled */
#define PCTR_I 0x800000		/* invert the counter mask comparison */

/* the Pentium's 9-bit function (i386 only; kept for old sources) */
#define P5CTR_K 0x40		/* count in kernel mode */
#define P5CTR_U 0x80		/* count in user mode */
#define P5CTR_C 0x100		/* count cycles, not events */

/* unit mask bits of the cache coherency and bus events */
#define PCTR_UM_M 0x0800	/* modified lines */
#define PCTR_UM_E 0x0400	/* exclusive lines */
#define PCTR_UM_S 0x0200	/* shared lines */
#define PCTR_UM_I 0x0100	/* invalid lines */
#define PCTR_UM_MESI (PCTR_UM_M | PCTR_UM_E | PCTR_UM_S | PCTR_UM_I)
#define PCTR_UM_A 0x2000	/* any initiator */

#define PCTR_UM_SHIFT 8		/* unit mask position */
#define PCTR_CM_SHIFT 24	/* counter mask position */

#define PCIOCRD __BSD_IOR('c', 1, struct pctrst)	/* read all */
#define PCIOCS0 __BSD_IOW('c', 8, unsigned int)	/* set counter 0 */
#define PCIOCS1 __BSD_IOW('c', 9, unsigned int)	/* set counter 1 */
#define PCIOCS2 __BSD_IOW('c', 10, unsigned int)	/* set counter 2 */
#define PCIOCS3 __BSD_IOW('c', 11, unsigned int)	/* set counter 3 */

#define _PATH_PCTR "/dev/pctr"

#ifdef __cplusplus
extern "C" {
#endif

/* libpctr's timestamp counter read (x86 TSC, arm64 CNTVCT_EL0) */
__UINT64_TYPE__ pctr_tsc(void);
/* counter @ctr of this process as PCIOCRD returns it; 0 if not set */
pctrval pctr_openbsd_rdpmc(unsigned int ctr);

#ifdef __cplusplus
}
#endif

#define rdtsc() ((pctrval)pctr_tsc())
#define rdpmc(ctr) pctr_openbsd_rdpmc(ctr)

#endif /* !_MACHINE_PCTR_H_ */
