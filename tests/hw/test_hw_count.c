/* SPDX-License-Identifier: MIT */
/*
 * test_hw_count.c - exact instruction counts through the syscall read
 * paths: one event read(2) alone, several events in one group read, 32-bit
 * and 64-bit counters past 2^32, and counting with the kernel included.
 */
#include "hw.h"

/* The read() path: one event, PCTR_SET_NO_USER_READ. */
TEST(read_path_exact)
{
	struct pctr_set *set = hw_thread_set(PCTR_SET_NO_USER_READ,
					     "instructions:u");
	long long c[1];

	ASSERT_EQ(pctr_set_user_read(set), 0);
	hw_check_exact(set, HW_ALL_POINTS, PCTR_PATH_SYSCALL, c);
	printf("# read() path: 2N%+lld\n", c[0]);
	ASSERT_EQ(pctr_set_user_read(set), 0);
	pctr_set_free(set);
}

/*
 * The group read path: a 32-bit generic event, a 64-bit ("long") one and a
 * 32-bit sysfs one, all read by one read(2) of the group leader.  The
 * kernel takes the values while user counting is stopped, so every event
 * sees the very same count.
 */
TEST(group_path_exact)
{
	char events[3 * PCTR_NAME_MAX];
	struct pctr_set *set;
	long long c[3];

	snprintf(events, sizeof(events), "instructions:u,%s,%s", HW_INST64,
		 HW_INST32);
	set = hw_thread_set(PCTR_SET_NO_USER_READ, events);

	ASSERT_EQ(pctr_set_nr(set), 3);
	ASSERT_HEX_EQ(pctr_set_event(set, 0)->config1 & 1, 0);
	ASSERT_HEX_EQ(pctr_set_event(set, 1)->config1 & 1, HW_LONG_BIT);
	ASSERT_HEX_EQ(pctr_set_event(set, 2)->config1 & 1, 0);
	hw_check_exact(set, HW_ALL_POINTS, PCTR_PATH_SYSCALL, c);
	ASSERT_EQ(c[1], c[0]);
	ASSERT_EQ(c[2], c[0]);
	printf("# group read path: 2N%+lld for 32-bit and 64-bit counters\n",
	       c[0]);
	pctr_set_free(set);
}

/*
 * Kernel counting included: instructions (user and kernel) against
 * instructions:u in one group.  The difference is the kernel's work
 * between the two readings: the read(2) itself and the timer ticks (a
 * few thousand instructions each, 250 per virtual second).  It must be
 * positive and no more than that.
 */
TEST(kernel_included)
{
	struct pctr_set *set = hw_thread_set(PCTR_SET_NO_USER_READ,
					     "instructions:u,instructions");
	struct pctr_sample d;

	ASSERT_HEX_EQ(pctr_set_event(set, 1)->flags & PCTR_EVENT_EXCLUDE_KERNEL,
		      0);
	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		uint64_t n = hw_points[i].n, u, uk, bound;

		hw_span(set, n, &d);
		u = d.count[0].value;
		uk = d.count[1].value;
		/* one read(2) (< 10k), 10k per 4 M instructions (ticks) */
		bound = 10000 + (2 * n / 4000000 + 1) * 10000;
		printf("# N=%llu user %llu, user+kernel %llu (+%llu)\n",
		       (unsigned long long)n, (unsigned long long)u,
		       (unsigned long long)uk, (unsigned long long)(uk - u));
		ASSERT_GE(u, 2 * n);
		ASSERT_GT(uk, u + 100);
		ASSERT_LT(uk - u, bound);
	}
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(read_path_exact)
				       TEST_CASE(group_path_exact)
					       TEST_CASE(kernel_included)));
}
