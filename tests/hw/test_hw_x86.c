/* SPDX-License-Identifier: MIT */
/*
 * test_hw_x86.c - the x86-64 guest's Intel architectural PMU (version 2:
 * 4 general counters, 3 fixed counters, 48 bits; tests/hw/qemu/0002-*):
 * the kernel finds it, user/kernel filtering is exact, the rdpmc fast path
 * reads general and fixed counters exactly, and the seeds' counter
 * function ("fn:") reaches IA32_PERFEVTSELx bit for bit.
 *
 * The MSR values the kernel wrote are read back through /dev/cpu/0/msr
 * (the msr module, carried in the guest as /hw/msr.ko) while the events
 * are enabled: the kernel keeps a thread's counters programmed while the
 * thread runs, in the kernel too.
 *
 * What the emulation counts (QEMU, -icount shift=0): instructions retired
 * exactly; unhalted core cycles, one per instruction; every other event
 * zero.  The counter mask, invert and edge bits act as the SDM defines
 * them for events that occur once per cycle: CMASK=1 counts the same as
 * no mask, CMASK=2 never matches, INV turns that around, and an edge
 * never comes.
 */
#include <sys/klog.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "hw.h"

#define MSR_PERFEVTSEL0 0x186
#define MSR_FIXED_CTR_CTRL 0x38d
#define MSR_GLOBAL_CTRL 0x38f
#define EVTSEL_INT (1u << 20)
#define EVTSEL_EN (1u << 22)

/* ---- MSRs ------------------------------------------------------------- */

static int
msr_fd(void)
{
	static int fd = -1;
	int mod;

	if (fd >= 0)
		return fd;
	if (access("/dev/cpu/0/msr", F_OK) < 0) {
		mod = open("/hw/msr.ko", O_RDONLY | O_CLOEXEC);
		ASSERT(mod >= 0);
		if (syscall(SYS_finit_module, mod, "", 0) < 0 &&
		    errno != EEXIST)
			TEST_FAIL("loading msr.ko: %s", strerror(errno));
		close(mod);
	}
	fd = open("/dev/cpu/0/msr", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		TEST_FAIL("/dev/cpu/0/msr: %s", strerror(errno));
	return fd;
}

static uint64_t
rdmsr(uint32_t msr)
{
	uint64_t v;

	if (pread(msr_fd(), &v, sizeof(v), msr) != sizeof(v))
		TEST_FAIL("rdmsr %#x: %s", msr, strerror(errno));
	return v;
}

/* The enabled IA32_PERFEVTSELx that count event|umask @code, or 0. */
static int
find_evtsel(uint32_t code, uint64_t *evtsel)
{
	int found = 0;

	for (int i = 0; i < 4; i++) {
		uint64_t v = rdmsr(MSR_PERFEVTSEL0 + i);

		printf("# IA32_PERFEVTSEL%d = %#llx\n", i,
		       (unsigned long long)v);
		if ((v & EVTSEL_EN) && (v & 0xffff) == code) {
			*evtsel = v;
			found++;
		}
	}
	return found;
}

/* ---- detection -------------------------------------------------------- */

static void
read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		TEST_FAIL("%s: %s", path, strerror(errno));
	n = read(fd, buf, len - 1);
	ASSERT(n > 0);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	close(fd);
}

/* The kernel's own report: its log lines about the PMU, and sysfs. */
TEST(pmu_detected)
{
	static char log[1 << 20];
	char name[64], *line, *sp;
	int n, seen = 0;

	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	ASSERT(n > 0);
	log[n] = '\0';
	for (line = strtok_r(log, "\n", &sp); line;
	     line = strtok_r(NULL, "\n", &sp)) {
		if (strstr(line, "Performance Events:") ||
		    strstr(line, "... ")) {
			printf("# %s\n", strchr(line, '>') ? strchr(line, '>') + 1
						       : line);
			seen++;
		}
	}
	ASSERT(seen > 0);
	n = klogctl(3, log, sizeof(log) - 1);
	log[n] = '\0';
	ASSERT_CONTAINS(log, "Performance Events: generic architected "
			     "perfmon, Intel PMU driver.");
	ASSERT_CONTAINS(log, "... version:                2");
	ASSERT_CONTAINS(log, "... bit width:              48");
	ASSERT_CONTAINS(log, "... generic registers:      4");
	ASSERT_CONTAINS(log, "... fixed-purpose events:   3");
	read_file("/sys/bus/event_source/devices/cpu/caps/pmu_name", name,
		  sizeof(name));
	printf("# caps/pmu_name: %s\n", name);
	ASSERT_STR_EQ(name, "generic_arch_v2+");
	ASSERT_STR_EQ(hw_pmu(), "cpu");
}

/*
 * Events that the emulation marks unavailable in CPUID.0AH:EBX: the
 * kernel refuses them (it reads bit 2, reference cycles, as bus-cycles).
 * ref-cycles lives on fixed counter 2, which the kernel offers whatever
 * EBX says, and which the emulation does not model: it counts 0.
 */
TEST(unavailable_events)
{
	const char *missing[] = { "branch-misses", "cache-misses",
				  "bus-cycles" };
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *ref;
	struct pctr_sample d;

	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		struct pctr_set *set;
		int r;

		ASSERT_OK(pctr_set_new(&set, 0));
		ASSERT_OK(pctr_set_add(set, missing[i]));
		r = pctr_set_open(set, &t);
		printf("# %s: %s\n", missing[i], pctr_strerror(r));
		ASSERT_EQ(r, -ENOENT);
		pctr_set_free(set);
	}
	ref = hw_thread_set(PCTR_SET_NO_USER_READ, "instructions:u,ref-cycles");
	hw_span(ref, 1000000, &d);
	printf("# ref-cycles over hw_loop(1e6): %llu\n",
	       (unsigned long long)d.count[1].value);
	ASSERT_GT(d.count[0].value, 2000000);
	ASSERT_UEQ(d.count[1].value, 0);
	pctr_set_free(ref);
}

/* ---- exact counts ----------------------------------------------------- */

/* read(2): instructions:u exactly 2N + C, up to 1e10 instructions */
TEST(read_exact_user)
{
	struct pctr_set *set = hw_thread_set(PCTR_SET_NO_USER_READ,
					     "instructions:u");
	long long c[1];

	hw_check_exact(set, HW_ALL_POINTS, PCTR_PATH_SYSCALL, c);
	printf("# read() path, instructions:u: 2N%+lld\n", c[0]);
	pctr_set_free(set);
}

/*
 * :u, :k and both in one group, read by one read(2).  The loop runs in
 * user mode only, so :u is exact and :k is the kernel's share (the reads,
 * timer ticks); both modes together must be exactly their sum: every
 * instruction is counted at one privilege level, once.
 */
TEST(user_kernel_split)
{
	struct pctr_set *set = hw_thread_set(
		PCTR_SET_NO_USER_READ,
		"instructions:u,instructions:k,instructions:uk");
	struct pctr_sample d;
	long long c = 0;

	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		uint64_t n = hw_points[i].n, u, k, uk;

		hw_span(set, n, &d);
		u = d.count[0].value;
		k = d.count[1].value;
		uk = d.count[2].value;
		printf("# N=%llu :u %llu = 2N%+lld, :k %llu, :uk %llu "
		       "(:u + :k %+lld)\n",
		       (unsigned long long)n, (unsigned long long)u,
		       (long long)(u - 2 * n), (unsigned long long)k,
		       (unsigned long long)uk, (long long)(uk - u - k));
		if (i == 0)
			c = (long long)(u - 2 * n);
		ASSERT_EQ((long long)(u - 2 * n), c);
		/* one read(2) at least: a few thousand kernel instructions */
		ASSERT_GT(k, 1000);
		/* one read(2) (< 10k), 10k per 4 M instructions (ticks) */
		ASSERT_LT(k, 10000 + (2 * n / 4000000 + 1) * 10000);
		ASSERT_UEQ(uk, u + k);
	}
	pctr_set_free(set);
}

/*
 * Cycles: one per instruction under -icount shift=0, so a user loop's
 * cycles:u is exactly 2N + C too, and so is the fixed counter's
 * (cycles) and a general counter's (cpu/event=0x3c/ with cmask=1).
 */
TEST(cycles_exact)
{
	struct pctr_set *set = hw_thread_set(
		PCTR_SET_NO_USER_READ,
		"cycles:u,instructions:u,cpu/event=0x3c,cmask=1/u");
	long long c[3];

	hw_check_exact(set, HW_SMALL_POINTS, PCTR_PATH_SYSCALL, c);
	printf("# cycles:u 2N%+lld, instructions:u 2N%+lld, "
	       "event 0x3c on a general counter 2N%+lld\n",
	       c[0], c[1], c[2]);
	ASSERT_EQ(c[0], c[1]);
	ASSERT_EQ(c[2], c[1]);
	pctr_set_free(set);
}

/* ---- rdpmc ------------------------------------------------------------ */

/*
 * The fast path on both kinds of counter: instructions:u first takes
 * fixed counter 0 (the kernel prefers fixed counters), cycles:u fixed
 * counter 1, and the second instructions:u a general counter; rdpmc
 * reads each exactly.  The MSRs show the placement.
 */
TEST(rdpmc_fixed_and_general)
{
	struct pctr_set *set;
	uint64_t evtsel = 0, fixed;
	char buf[16];
	long long c[3];

	read_file("/sys/bus/event_source/devices/cpu/rdpmc", buf,
		  sizeof(buf));
	printf("# cpu/rdpmc: %s\n", buf);
	ASSERT_STR_EQ(buf, "1");
	set = hw_thread_set(0, "instructions:u,cycles:u,instructions:u");
	ASSERT_EQ(pctr_set_user_read(set), 1);
	fixed = rdmsr(MSR_FIXED_CTR_CTRL);
	printf("# IA32_FIXED_CTR_CTRL = %#llx, IA32_PERF_GLOBAL_CTRL = %#llx\n",
	       (unsigned long long)fixed,
	       (unsigned long long)rdmsr(MSR_GLOBAL_CTRL));
	/* fixed 0 and 1: user mode (2) and PMI (8) each */
	ASSERT_HEX_EQ(fixed, 0xaa);
	ASSERT_EQ(find_evtsel(0x00c0, &evtsel), 1);
	ASSERT_HEX_EQ(evtsel, 0xc0 | 1u << 16 | EVTSEL_INT | EVTSEL_EN);
	hw_check_exact(set, HW_ALL_POINTS, PCTR_PATH_USER, c);
	printf("# rdpmc: fixed 0 2N%+lld, fixed 1 2N%+lld, general 2N%+lld\n",
	       c[0], c[1], c[2]);
	ASSERT_EQ(pctr_set_user_read(set), 1);
	pctr_set_free(set);
}

/* cpu/rdpmc=0: no user-space reads, the same exact counts by read(2) */
TEST(rdpmc_disabled_fallback)
{
	struct pctr_set *set;
	int fd = open("/sys/bus/event_source/devices/cpu/rdpmc",
		      O_WRONLY | O_CLOEXEC);
	long long c[1];

	ASSERT(fd >= 0);
	ASSERT_EQ(write(fd, "0", 1), 1);
	set = hw_thread_set(0, "instructions:u");
	hw_check_exact(set, HW_SMALL_POINTS, PCTR_PATH_SYSCALL, c);
	printf("# rdpmc off: read() path 2N%+lld\n", c[0]);
	pctr_set_free(set);
	ASSERT_EQ(pwrite(fd, "1", 1, 0), 1);
	close(fd);
}

/* ---- the counter function --------------------------------------------- */

struct fn_case {
	uint32_t fn;
	int counts; /* 1: 2N + C exactly, 0: exactly 0 */
	const char *why;
};

static const struct fn_case fn_cases[] = {
	{ 0x004100c0, 1, "instructions, user" },
	{ 0x014100c0, 1, "CMASK=1: cycles retiring >= 1 instruction" },
	{ 0x024100c0, 0, "CMASK=2: never 2 in one cycle" },
	{ 0x02c100c0, 1, "INV CMASK=2: cycles retiring < 2" },
	{ 0x01c100c0, 0, "INV CMASK=1: cycles retiring none (running)" },
	{ 0x014500c0, 0, "EDGE CMASK=1: the condition never deasserts" },
	{ 0x0041003c, 1, "core cycles, user" },
	{ 0x004100c4, 0, "branch instructions: not modelled" },
	{ 0x004201c2, 0, "kernel only, not modelled" },
};

/*
 * The kernel's PerfEvtSel for a counting event: the function's event,
 * unit mask, edge, invert and counter mask, USR/OS as asked, INT (the
 * kernel always asks for the PMI) and EN.
 */
static uint64_t
expected_evtsel(uint32_t fn)
{
	return (fn & 0xff87ffffu) | EVTSEL_INT | EVTSEL_EN;
}

static void
check_fn(const struct fn_case *fc)
{
	char spec[1][32];
	struct pctr_set *set;
	struct pctr_sample d;
	uint64_t evtsel = 0;
	char list[96];

	/* instructions:u and cycles:u first: they take fixed counters 0
	 * and 1, the function a general counter even when it could go on
	 * a fixed one (0xc0 and 0x3c without flags); under shift=0 both
	 * count the loop's instructions */
	snprintf(spec[0], sizeof(spec[0]), "fn:%#x", fc->fn);
	snprintf(list, sizeof(list), "instructions:u,cycles:u,%s", spec[0]);
	set = hw_thread_set(PCTR_SET_NO_USER_READ, list);
	ASSERT_EQ(find_evtsel(fc->fn & 0xffff, &evtsel), 1);
	printf("# %s (%s): PerfEvtSel %#llx, expected %#llx\n", spec[0],
	       fc->why, (unsigned long long)evtsel,
	       (unsigned long long)expected_evtsel(fc->fn));
	ASSERT_HEX_EQ(evtsel, expected_evtsel(fc->fn));
	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		uint64_t n = hw_points[i].n;

		hw_span(set, n, &d);
		printf("# N=%llu: instructions:u %llu, cycles:u %llu, %s "
		       "%llu\n",
		       (unsigned long long)n,
		       (unsigned long long)d.count[0].value,
		       (unsigned long long)d.count[1].value, spec[0],
		       (unsigned long long)d.count[2].value);
		ASSERT_UEQ(d.count[1].value, d.count[0].value);
		if (fc->counts)
			ASSERT_UEQ(d.count[2].value, d.count[0].value);
		else
			ASSERT_UEQ(d.count[2].value, 0);
	}
	pctr_set_free(set);
}

TEST(counter_function)
{
	for (size_t i = 0; i < sizeof(fn_cases) / sizeof(fn_cases[0]); i++)
		check_fn(&fn_cases[i]);
}

/*
 * The emulator itself: CMPXCHG16B and CMPXCHG8B change ZF only, and keep
 * the flags an ADD before them in the same translation block set.  QEMU
 * 7.2's helpers computed those from a cc_op the translator had not
 * stored, and took the ADD's operand for the flags (0x5a5a5a42: reserved
 * bits, VM, DF); an interrupt after a CMPXCHG16B of Linux's slab
 * allocator then killed the two-CPU guest at boot (tests/hw/qemu/0004-*).
 * Before that patch: 1000 of 1000 wrong here.
 */
#define FLAGS_ARITH 0x8d5 /* CF PF AF ZF SF OF */
#define FLAGS_ZF 0x40

/* EFLAGS after "add b, a; INSN m" with m == rdx:rax (ZF set) */
#define ADD_THEN(insn, flags, m)                                               \
	do {                                                                   \
		unsigned long a = 1, b = 0x5a5a5a5a5a5a5a00ul, lo = 0, hi = 0; \
                                                                               \
		__asm__ volatile("pushq $0x202\n\tpopfq\n\t"                   \
				 "add %[b], %[a]\n\t" insn " %[m]\n\t"         \
				 "pushfq\n\tpopq %[f]"                          \
				 : [f] "=&r"(flags), [a] "+r"(a), [m] "+m"(m), \
				   "+a"(lo), "+d"(hi)                          \
				 : [b] "r"(b), "b"(0ul), "c"(0ul)              \
				 : "cc", "memory");                            \
	} while (0)

static unsigned long
add_cmpxchg(int wide)
{
	static unsigned __int128 m __attribute__((aligned(16)));
	unsigned long flags;

	m = 0;
	if (wide)
		ADD_THEN("cmpxchg16b", flags, m);
	else
		ADD_THEN("cmpxchg8b", flags, m);
	return flags;
}

TEST(cmpxchg_keeps_the_flags)
{
	for (int wide = 0; wide < 2; wide++) {
		int bad = 0;
		unsigned long first = 0;

		for (int i = 0; i < 1000; i++) {
			unsigned long f = add_cmpxchg(wide);

			/* the ADD's flags (all clear), ZF set, no reserved bit */
			if ((f & FLAGS_ARITH) != FLAGS_ZF || (f >> 22) != 0)
				if (!bad++)
					first = f;
		}
		printf("# %s after an add: %d of 1000 with wrong flags\n",
		       wide ? "cmpxchg16b" : "cmpxchg8b", bad);
		if (bad)
			TEST_FAIL("%s after an add left the flags %#lx (want "
				  "ZF alone of CF PF AF ZF SF OF, no reserved "
				  "bit) in %d of 1000",
				  wide ? "cmpxchg16b" : "cmpxchg8b", first,
				  bad);
	}
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(pmu_detected)
				       TEST_CASE(unavailable_events)
					       TEST_CASE(read_exact_user)
						       TEST_CASE(user_kernel_split)
							       TEST_CASE(cycles_exact)
								       TEST_CASE(rdpmc_fixed_and_general)
									       TEST_CASE(rdpmc_disabled_fallback)
										       TEST_CASE(counter_function)
											       TEST_CASE(cmpxchg_keeps_the_flags)));
}
