/* SPDX-License-Identifier: MIT */
/*
 * test_headers.c - the native header and every compatibility header in
 * one file, and the legacy structures and ioctl numbers checked against
 * the originals'.
 *
 * The expected numbers are computed here from the BSD encoding (direction
 * in bits 29-31, parameter length in 16-28, group in 8-15, number in 0-7)
 * and the sizes the structures have on OpenBSD/amd64 and FreeBSD, not
 * from the headers under test.  Linux headers are included after the BSD
 * ones to show that they still compile and keep the kernel's numbers.
 */
#include "pctr.h"

#include <sys/cdefs.h>
#include <sys/types.h>
#include <sys/ioccom.h>
#include <sys/sysctl.h>
#include <stdlib.h>
#include <machine/cpu.h>
#include <machine/specialreg.h>
#include <machine/pctr.h>
#include <machine/perfmon.h>
#if __has_include(<libcpc.h>)
#include <libcpc.h>
#endif
#if __has_include(<pmc_lib.h>)
#include <pmc_lib.h>
#endif

#include <linux/fs.h>
#include <linux/sysctl.h>
#include <sys/ioctl.h>
#include <stddef.h>

#include "test.h"

#define BSD_OUT 0x40000000UL
#define BSD_IN 0x80000000UL
#define BSD_IOC(dir, g, n, len)                                              \
	((dir) | ((unsigned long)(len) & 0x1fff) << 16 |                      \
	 (unsigned long)(g) << 8 | (n))

TEST(openbsd_pctrst_layout)
{
	ASSERT_EQ(PCTR_NUM, 4);
	ASSERT_EQ(sizeof(pctrval), 8);
	ASSERT_EQ(sizeof(struct pctrst), 56);
	ASSERT_EQ(offsetof(struct pctrst, pctr_fn), 0);
	ASSERT_EQ(offsetof(struct pctrst, pctr_tsc), 16);
	ASSERT_EQ(offsetof(struct pctrst, pctr_hwc), 24);
	ASSERT_EQ(sizeof(((struct pctrst *)0)->pctr_fn[0]), 4);
}

TEST(openbsd_ioctl_numbers)
{
	ASSERT_HEX_EQ(PCIOCRD, BSD_IOC(BSD_OUT, 'c', 1, 56));
	ASSERT_HEX_EQ(PCIOCRD, 0x40386301UL);
	ASSERT_HEX_EQ(PCIOCS0, BSD_IOC(BSD_IN, 'c', 8, 4));
	ASSERT_HEX_EQ(PCIOCS0, 0x80046308UL);
	ASSERT_HEX_EQ(PCIOCS1, PCIOCS0 + 1);
	ASSERT_HEX_EQ(PCIOCS2, PCIOCS0 + 2);
	ASSERT_HEX_EQ(PCIOCS3, PCIOCS0 + 3);
	ASSERT_STR_EQ(_PATH_PCTR, "/dev/pctr");
}

TEST(openbsd_function_bits)
{
	ASSERT_HEX_EQ(PCTR_U, 0x010000);
	ASSERT_HEX_EQ(PCTR_K, 0x020000);
	ASSERT_HEX_EQ(PCTR_E, 0x040000);
	ASSERT_HEX_EQ(PCTR_EN, 0x400000);
	ASSERT_HEX_EQ(PCTR_I, 0x800000);
	ASSERT_HEX_EQ(PCTR_UM_MESI, 0x0f00);
	ASSERT_HEX_EQ(PCTR_UM_A, 0x2000);
	ASSERT_EQ(PCTR_UM_SHIFT, 8);
	ASSERT_EQ(PCTR_CM_SHIFT, 24);
	/* the native names mean the same bits */
	ASSERT_HEX_EQ(PCTR_FN_USR, PCTR_U);
	ASSERT_HEX_EQ(PCTR_FN_OS, PCTR_K);
	ASSERT_HEX_EQ(PCTR_FN_EDGE, PCTR_E);
	ASSERT_HEX_EQ(PCTR_FN_EN, PCTR_EN);
	ASSERT_HEX_EQ(PCTR_FN_INV, PCTR_I);
}

TEST(freebsd_layouts)
{
	struct pmc p;

	ASSERT_EQ(NPMC, 2);
	ASSERT_EQ(sizeof(struct pmc), 8);
	ASSERT_EQ(offsetof(struct pmc, pmc_pmcu), 4);
	ASSERT_EQ(sizeof(struct pmc_data), 16);
	ASSERT_EQ(offsetof(struct pmc_data, pmcd_value), 8);
	ASSERT_EQ(sizeof(struct pmc_tstamp), 16);
	ASSERT_EQ(offsetof(struct pmc_tstamp, pmct_value), 8);
	ASSERT_EQ(sizeof(quad_t), 8);
	memset(&p, 0, sizeof(p));
	p.pmc_event = 0xc0;
	p.pmc_unit = 0x01;
	p.pmc_flags = PMCF_USR | PMCF_OS;
	p.pmc_mask = 2;
	/* the union is the x86 event select register */
	ASSERT_HEX_EQ(p.pmc_val, 0x020301c0);
	ASSERT_HEX_EQ(PMCF_USR << 16, PCTR_U);
	ASSERT_HEX_EQ(PMCF_EN << 16, PCTR_EN);
	ASSERT_HEX_EQ(PMCF_INV << 16, PCTR_I);
}

TEST(freebsd_ioctl_numbers)
{
	ASSERT_HEX_EQ(PMIOSETUP, BSD_IOC(BSD_IN, '5', 1, 8));
	ASSERT_HEX_EQ(PMIOSETUP, 0x80083501UL);
	ASSERT_HEX_EQ(PMIOGET, BSD_IOC(BSD_IN | BSD_OUT, '5', 7, 8));
	ASSERT_HEX_EQ(PMIOSTART, BSD_IOC(BSD_IN, '5', 2, 4));
	ASSERT_HEX_EQ(PMIOSTOP, BSD_IOC(BSD_IN, '5', 3, 4));
	ASSERT_HEX_EQ(PMIOREAD, BSD_IOC(BSD_IN | BSD_OUT, '5', 4, 16));
	ASSERT_HEX_EQ(PMIORESET, BSD_IOC(BSD_IN, '5', 5, 4));
	ASSERT_HEX_EQ(PMIOTSTAMP, BSD_IOC(BSD_OUT, '5', 6, 16));
	ASSERT_HEX_EQ(PMIOTSTAMP, 0x40103506UL);
	ASSERT_STR_EQ(_PATH_PERFMON, "/dev/perfmon");
}

TEST(sysctl_names)
{
	ASSERT_EQ(CTL_HW, 6);
	ASSERT_EQ(HW_MACHINE, 1);
	ASSERT_EQ(CTL_MACHDEP, 7);
	ASSERT_EQ(CPU_CPUVENDOR, 6);
	ASSERT_EQ(CPU_CPUID, 7);
	ASSERT_EQ(CPU_CPUFEATURE, 8);
	ASSERT_HEX_EQ(CPUID_TSC, 0x10);
	/* Linux's own sysctl names are untouched */
	ASSERT_EQ(CTL_KERN, 1);
	ASSERT_EQ(KERN_OSTYPE, 1);
}

TEST(linux_ioctls_keep_their_numbers)
{
	ASSERT_HEX_EQ(BLKGETSIZE64, 0x80081272UL);
	ASSERT_HEX_EQ(_IOR('x', 1, int), 0x80047801UL);
	ASSERT_HEX_EQ(FIONREAD, 0x541b);
	ASSERT_EQ(IOCPARM_LEN(PCIOCRD), sizeof(struct pctrst));
	ASSERT_EQ(IOCGROUP(PMIOSETUP), '5');
}

static void fail_now(void) __dead2;
static void fail_too(void) __dead;

static void
fail_now(void)
{
	exit(3);
}

static void
fail_too(void)
{
	exit(4);
}

TEST(bsd_attributes)
{
	const char *err = NULL;

	ASSERT_EQ(strtonum("7", 0, 9, &err), 7);
	ASSERT(err == NULL);
	if (getpid() == 0)
		fail_now();
	if (getpid() == 0)
		fail_too();
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(openbsd_pctrst_layout)
		TEST_CASE(openbsd_ioctl_numbers)
		TEST_CASE(openbsd_function_bits)
		TEST_CASE(freebsd_layouts)
		TEST_CASE(freebsd_ioctl_numbers)
		TEST_CASE(sysctl_names)
		TEST_CASE(linux_ioctls_keep_their_numbers)
		TEST_CASE(bsd_attributes)));
}
