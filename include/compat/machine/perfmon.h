/* SPDX-License-Identifier: MIT */
/*
 * <machine/perfmon.h> - the FreeBSD perfmon(4) interface, served by libpctr.
 *
 * Same names, values, layout and ioctl numbers as on FreeBSD/i386 and
 * amd64.  A program linked with the layer (pkg-config pctr-freebsd) opens
 * _PATH_PERFMON and issues these ioctls unchanged; see pctr_freebsd(4) for
 * what differs.
 */
#ifndef _MACHINE_PERFMON_H_
#define _MACHINE_PERFMON_H_

#include <sys/types.h>
#include <sys/ioccom.h>

#define NPMC 2

#define PMIOSETUP __BSD_IOW('5', 1, struct pmc)
#define PMIOGET __BSD_IOWR('5', 7, struct pmc)
#define PMIOSTART __BSD_IOW('5', 2, int)
#define PMIOSTOP __BSD_IOW('5', 3, int)
#define PMIOREAD __BSD_IOWR('5', 4, struct pmc_data)
#define PMIORESET __BSD_IOW('5', 5, int)
#define PMIOTSTAMP __BSD_IOR('5', 6, struct pmc_tstamp)

/* a counter's setup: its x86 event select register, byte by byte */
struct pmc {
	int pmc_num;
	union {
		struct {
			unsigned char pmcus_event;
			unsigned char pmcus_unit;
			unsigned char pmcus_flags;
			unsigned char pmcus_mask;
		} pmcu_s;
		unsigned int pmcu_val;
	} pmc_pmcu;
};

#define PMC_ALL (-1)

#define pmc_event pmc_pmcu.pmcu_s.pmcus_event
#define pmc_unit pmc_pmcu.pmcu_s.pmcus_unit
#define pmc_flags pmc_pmcu.pmcu_s.pmcus_flags
#define pmc_mask pmc_pmcu.pmcu_s.pmcus_mask
#define pmc_val pmc_pmcu.pmcu_val

#define PMCF_USR 0x01		/* count in user mode */
#define PMCF_OS 0x02		/* count in kernel mode */
#define PMCF_E 0x04		/* edge detect */
#define PMCF_PC 0x08		/* pin control (refused here) */
#define PMCF_INT 0x10		/* APIC interrupt (ignored, as on FreeBSD) */
#define PMCF_EN 0x40		/* enabled (set by PMIOSTART) */
#define PMCF_INV 0x80		/* invert the counter mask comparison */

#define PMCF_SYS_FLAGS (PMCF_INT | PMCF_EN)	/* the user cannot set */

struct pmc_data {
	int pmcd_num;
	quad_t pmcd_value;
};

struct pmc_tstamp {
	int pmct_rate;		/* approximate rate in MHz: a hint */
	quad_t pmct_value;
};

#define _PATH_PERFMON "/dev/perfmon"

/* Pentium Pro (P6 family) event numbers most programs use */
#define PMC6_DATA_MEM_REFS 0x43
#define PMC6_DCU_LINES_IN 0x45
#define PMC6_DCU_M_LINES_IN 0x46
#define PMC6_DCU_M_LINES_OUT 0x47
#define PMC6_IFU_IFETCH 0x80
#define PMC6_IFU_IFETCH_MISS 0x81
#define PMC6_ITLB_MISS 0x85
#define PMC6_L2_IFETCH 0x28
#define PMC6_L2_LD 0x29
#define PMC6_L2_ST 0x2a
#define PMC6_L2_RQSTS 0x2e
#define PMC6_L2_LINES_IN 0x24
#define PMC6_L2_LINES_OUT 0x26
#define PMC6_CPU_CLK_UNHALTED 0x79
#define PMC6_FLOPS 0xc1
#define PMC6_INST_RETIRED 0xc0
#define PMC6_UOPS_RETIRED 0xc2
#define PMC6_HW_INT_RX 0xc8
#define PMC6_BR_INST_RETIRED 0xc4
#define PMC6_BR_MISS_PRED_RETIRED 0xc5
#define PMC6_BR_TAKEN_RETIRED 0xc9
#define PMC6_BR_MISS_PRED_TAKEN_RET 0xca
#define PMC6_RESOURCE_STALLS 0xa2
#define PMC6_PARTIAL_RAT_STALLS 0xd2
#define PMC6_MISALIGN_MEM_REF 0x05

#endif /* !_MACHINE_PERFMON_H_ */
