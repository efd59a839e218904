/* SPDX-License-Identifier: MIT */
/*
 * test_hw_pctrdev_x86.c - OpenBSD's /dev/pctr on the x86-64 guest's
 * architectural PMU: PCIOCSn with PCTR_U, PCTR_K, PCTR_E, PCTR_I and a
 * counter mask reaches IA32_PERFEVTSELx (or IA32_FIXED_CTR_CTRL) bit for
 * bit, and PCIOCRD and rdpmc() count the loop exactly.
 *
 * Linked as an OpenBSD program is (the layer's sources compiled in, its
 * --wrap flags): open(2), ioctl(2) and close(2) of /dev/pctr go to the
 * layer, everything else (/dev/cpu/0/msr) to the C library.  The MSRs
 * the kernel wrote are read back while the counter is enabled, as in
 * test_hw_x86.c.
 */
#include <machine/pctr.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "hw.h"

#define MSR_PERFEVTSEL0 0x186
#define MSR_FIXED_CTR_CTRL 0x38d
#define EVTSEL_INT (1u << 20)
#define EVTSEL_EN (1u << 22)

static uint64_t
rdmsr(uint32_t msr)
{
	static int fd = -1;
	uint64_t v;

	if (fd < 0 && access("/dev/cpu/0/msr", F_OK) < 0) {
		int mod = open("/hw/msr.ko", O_RDONLY | O_CLOEXEC);

		ASSERT(mod >= 0);
		if (syscall(SYS_finit_module, mod, "", 0) < 0 &&
		    errno != EEXIST)
			TEST_FAIL("loading msr.ko: %s", strerror(errno));
		close(mod);
	}
	if (fd < 0)
		fd = open("/dev/cpu/0/msr", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, &v, sizeof(v), msr) != sizeof(v))
		TEST_FAIL("rdmsr %#x: %s", msr, strerror(errno));
	return v;
}

/*
 * Where the kernel put the function and what it wrote there.  A general
 * counter: its IA32_PERFEVTSELx is the function without PCTR_EN (the
 * kernel sets EN itself when the counter runs), plus INT, which it
 * always asks for, plus EN.  Events 0xc0 and 0x3c with no unit mask,
 * edge, invert or counter mask may also go on fixed counters 0 and 1:
 * IA32_FIXED_CTR_CTRL then has 8 (PMI) | 2 (user) | 1 (kernel) in the
 * counter's nibble.  Which one they get depends on what was in use when
 * the kernel scheduled them (the device programs the new function before
 * it lets the old one go), so both are accepted, exactly.
 */
static void
check_msrs(unsigned int fn)
{
	unsigned int code = fn & 0xffff, flags = fn & ~0xffffu & ~PCTR_EN;
	uint64_t found = 0, fixed = rdmsr(MSR_FIXED_CTR_CTRL);
	int n = 0, fixed_idx = -1;

	for (int i = 0; i < 4; i++) {
		uint64_t v = rdmsr(MSR_PERFEVTSEL0 + i);

		printf("# IA32_PERFEVTSEL%d = %#llx\n", i,
		       (unsigned long long)v);
		if (v & EVTSEL_EN) {
			found = v;
			n++;
		}
	}
	printf("# IA32_FIXED_CTR_CTRL = %#llx\n", (unsigned long long)fixed);
	if (n == 1) {
		printf("# PCIOCS0 %#x: PerfEvtSel %#llx, expected %#llx\n", fn,
		       (unsigned long long)found,
		       (unsigned long long)(fn | EVTSEL_INT | EVTSEL_EN));
		ASSERT_HEX_EQ(found, fn | EVTSEL_INT | EVTSEL_EN);
		ASSERT_HEX_EQ(fixed, 0);
		return;
	}
	if ((flags & ~(PCTR_U | PCTR_K)) == 0 && code == 0xc0)
		fixed_idx = 0;
	if ((flags & ~(PCTR_U | PCTR_K)) == 0 && code == 0x3c)
		fixed_idx = 1;
	ASSERT_EQ(n, 0);
	ASSERT(fixed_idx >= 0);
	ASSERT_HEX_EQ(fixed, (uint64_t)(8 | (fn & PCTR_U ? 2 : 0) |
					(fn & PCTR_K ? 1 : 0))
				     << (4 * fixed_idx));
	printf("# PCIOCS0 %#x: on fixed counter %d\n", fn, fixed_idx);
}

static __attribute__((noinline)) uint64_t
pcioc_span(int fd, uint64_t n)
{
	struct pctrst a, b;
	int ra, rb;

	ra = ioctl(fd, PCIOCRD, &a);
	hw_loop(n);
	rb = ioctl(fd, PCIOCRD, &b);
	ASSERT_EQ(ra, 0);
	ASSERT_EQ(rb, 0);
	return b.pctr_hwc[0] - a.pctr_hwc[0];
}

static __attribute__((noinline)) uint64_t
rdpmc_span(uint64_t n)
{
	pctrval a, b;

	a = rdpmc(0);
	hw_loop(n);
	b = rdpmc(0);
	return b - a;
}

struct fn_case {
	unsigned int fn;
	int counts; /* 1: 2N + C, one C for all N; 2: 2N + the kernel's;
		     * 3: the kernel's only; 0: nothing */
	const char *why;
};

/*
 * Instructions retired (0xc0) under every flag the device takes.  The
 * loop runs in user mode; PCTR_K alone sees none of it.
 */
static const struct fn_case cases[] = {
	{ 0xc0 | PCTR_U | PCTR_EN, 1, "user" },
	{ 0xc0 | PCTR_U | PCTR_K | PCTR_EN, 2, "user and kernel" },
	{ 0xc0 | PCTR_K | PCTR_EN, 3, "kernel only" },
	{ 0xc0 | PCTR_U | PCTR_EN | 1u << PCTR_CM_SHIFT, 1, "cmask 1" },
	{ 0xc0 | PCTR_U | PCTR_EN | 2u << PCTR_CM_SHIFT, 0, "cmask 2" },
	{ 0xc0 | PCTR_U | PCTR_I | PCTR_EN | 2u << PCTR_CM_SHIFT, 1,
	  "inverted cmask 2" },
	{ 0xc0 | PCTR_U | PCTR_E | PCTR_EN | 1u << PCTR_CM_SHIFT, 0,
	  "edge, cmask 1" },
	{ 0x3c | PCTR_U | PCTR_EN, 1, "core cycles, user" },
	{ 0x3c | PCTR_U | PCTR_EN | 1u << PCTR_CM_SHIFT, 1,
	  "core cycles, cmask 1: a general counter" },
};

static void
check(int fd, const struct fn_case *fc)
{
	unsigned int fn = fc->fn;
	long long c = 0;

	ASSERT_EQ(ioctl(fd, PCIOCS0, &fn), 0);
	printf("# PCIOCS0 %#x: %s\n", fc->fn, fc->why);
	check_msrs(fc->fn);
	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		uint64_t n = hw_points[i].n;
		uint64_t d = pcioc_span(fd, n), r = rdpmc_span(n);

		printf("# N=%llu: PCIOCRD %llu (2N%+lld), rdpmc(0) %llu "
		       "(2N%+lld)\n",
		       (unsigned long long)n, (unsigned long long)d,
		       (long long)(d - 2 * n), (unsigned long long)r,
		       (long long)(r - 2 * n));
		if (fc->counts == 0) {
			ASSERT_UEQ(d, 0);
			ASSERT_UEQ(r, 0);
			continue;
		}
		if (fc->counts == 3) {
			/* the reads' kernel side only, and ticks: none of
			 * the loop (a read's two system calls < 2 x 12k, as
			 * below; 10k per 4 M) */
			ASSERT_GT(d, 0);
			ASSERT_LT(d, 2 * 12000 + (2 * n / 4000000 + 1) * 10000);
			continue;
		}
		if (i == 0)
			c = (long long)(r - 2 * n);
		if (fc->counts == 1) {
			/* the user-mode reads' share, the same every time */
			ASSERT_EQ((long long)(r - 2 * n), c);
			ASSERT_GT(d, 2 * n);
			ASSERT_LT(d, 2 * n + 5000);
		} else {
			/*
			 * With the kernel: at least the loop, plus the
			 * library's read on each side of it and ticks (10k
			 * per 4 M instructions).  A read is two system calls
			 * since the library checks that the descriptor is
			 * still its own (PERF_EVENT_IOC_ID, then read(2)):
			 * 20,939 instructions beyond the loop at N=1000 in
			 * this guest, against under 10,000 with the read
			 * alone; 12,000 a call leaves the ticks' room.
			 */
			ASSERT_GT(d, 2 * n + 1000);
			ASSERT_LT(d, 2 * n + 2 * 12000 +
					     (2 * n / 4000000 + 1) * 10000);
		}
	}
}

TEST(pciocs_perfevtsel)
{
	int fd = open(_PATH_PCTR, O_RDWR);

	ASSERT(fd >= 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(fd, &cases[i]);
	ASSERT_EQ(close(fd), 0);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(pciocs_perfevtsel)));
}
