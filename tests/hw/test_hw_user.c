/* SPDX-License-Identifier: MIT */
/*
 * test_hw_user.c - the user-space fast path: counters read with mrs
 * through the perf mmap page, exact past 2^32 for 32-bit and 64-bit
 * counters, and its fallback to read(2) when the kernel refuses user access.
 *
 * kernel.perf_user_access gates EL0 counter access on arm64; the library
 * must also set the PMU's "rdpmc" format bit (config1 bit 1) on hardware
 * events, or the mmap page's index stays 0 and no read is done in user
 * space.  Each case sets perf_user_access itself.
 */
#include "hw.h"

static struct pctr_set *
user_set(void)
{
	char events[2 * PCTR_NAME_MAX];

	snprintf(events, sizeof(events), "instructions:u,%s", HW_INST64);
	return hw_thread_set(0, events);
}

/* Both counters read in user space: exactly 2N + C up to 5e9 iterations. */
TEST(user_path_exact)
{
	struct pctr_set *set;
	long long c[2];

	hw_sysctl("kernel.perf_user_access", "1");
	set = user_set();
	ASSERT_EQ(pctr_set_user_read(set), 1);
	hw_check_exact(set, HW_ALL_POINTS, PCTR_PATH_USER, c);
	ASSERT_EQ(pctr_set_user_read(set), 1);
	printf("# user path: 2N%+lld (32-bit counter), 2N%+lld (64-bit)\n",
	       c[0], c[1]);
	pctr_set_free(set);
}

/*
 * cycles go on the cycle counter, mmap index 32, read with mrs of
 * PMCCNTR_EL0.  Under -icount shift=0 a cycle is a nanosecond of virtual
 * time and an instruction takes one, so the loop's cycles are close to 2N.
 */
TEST(user_path_cycle_counter)
{
	struct pctr_set *set;
	struct pctr_sample d;

	hw_sysctl("kernel.perf_user_access", "1");
	set = hw_thread_set(0, "cycles:u,instructions:u");
	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		uint64_t n = hw_points[i].n;

		hw_span(set, n, &d);
		printf("# N=%llu cycles %llu instructions %llu\n",
		       (unsigned long long)n,
		       (unsigned long long)d.count[0].value,
		       (unsigned long long)d.count[1].value);
		ASSERT_HEX_EQ(d.path, PCTR_PATH_USER);
		ASSERT_DBL_NEAR((double)d.count[0].value / (2.0 * n), 1.0,
				n < 100000 ? 0.5 : 0.01);
	}
	ASSERT_EQ(pctr_set_user_read(set), 1);
	pctr_set_free(set);
}

/*
 * With kernel counting included the fast path still applies: the count
 * can only grow by the kernel's share, which between two user-space reads
 * is interrupts alone (no syscall).
 */
TEST(user_path_kernel_included)
{
	struct pctr_set *set;
	struct pctr_sample d;

	hw_sysctl("kernel.perf_user_access", "1");
	set = hw_thread_set(0, "instructions:u,instructions");
	ASSERT_HEX_EQ(pctr_set_event(set, 1)->flags & PCTR_EVENT_EXCLUDE_KERNEL,
		      0);
	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		uint64_t n = hw_points[i].n, u, uk;

		hw_span(set, n, &d);
		ASSERT_HEX_EQ(d.path, PCTR_PATH_USER);
		u = d.count[0].value;
		uk = d.count[1].value;
		printf("# N=%llu user %llu, user+kernel %llu (+%llu)\n",
		       (unsigned long long)n, (unsigned long long)u,
		       (unsigned long long)uk, (unsigned long long)(uk - u));
		ASSERT_GE(u, 2 * n);
		ASSERT_GE(uk, u);
		/* timer ticks: ~3300 instructions every 4 M instructions */
		ASSERT_LT(uk - u, 1000 + (2 * n / 4000000 + 1) * 10000);
	}
	pctr_set_free(set);
}

/*
 * perf_user_access=0: the page offers rdpmc but its index is 0, so every
 * read falls back to read(2), with counts just as exact.  The fallback's
 * constant is the read() path's plus the failed user attempt.
 */
TEST(fallback_exact)
{
	struct pctr_set *set, *plain;
	long long c[2], c_read[2];

	/* 4.4e9 instructions: past 2^32, in half the time of HW_BIG */
	static const struct hw_point pts[] = {
		{ 1000, 3 }, { 1000000, 2 }, { 2200000000ull, 1 }
	};

	hw_sysctl("kernel.perf_user_access", "0");
	set = user_set();
	ASSERT_EQ(pctr_set_user_read(set), 1); /* offered, before any read */
	hw_check_exact_at(set, pts, 3, PCTR_PATH_SYSCALL, c);
	ASSERT_EQ(pctr_set_user_read(set), 0);
	pctr_set_free(set);

	plain = hw_thread_set(PCTR_SET_NO_USER_READ, "instructions:u");
	hw_check_exact(plain, 1, PCTR_PATH_SYSCALL, c_read);
	pctr_set_free(plain);
	printf("# fallback path: 2N%+lld, 2N%+lld; read() path 2N%+lld\n",
	       c[0], c[1], c_read[0]);
	ASSERT_EQ(c[1], c[0]);
	ASSERT_GE(c[0], c_read[0]);
	ASSERT_LT(c[0], c_read[0] + 200);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(user_path_exact)
				       TEST_CASE(user_path_cycle_counter)
					       TEST_CASE(user_path_kernel_included)
					       TEST_CASE(fallback_exact)));
}
