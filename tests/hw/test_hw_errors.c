/* SPDX-License-Identifier: MIT */
/*
 * test_hw_errors.c - the kernel's refusals, on a real PMU: an unprivileged
 * user under Debian's perf_event_paranoid=3, and events the PMU lacks.
 * The library must return the errno and explain it.
 */
#include "hw.h"

#define HW_UID 1000

static int
open_one(const char *event)
{
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, event));
	r = pctr_set_open(set, &t);
	pctr_set_free(set);
	return r;
}

static void
refused(void)
{
	int r = open_one("instructions:u");

	printf("# uid %d, paranoid 3: %s\n", (int)getuid(), pctr_strerror(r));
	ASSERT_EQ(r, -EACCES);
	ASSERT_CONTAINS(pctr_strerror(r), "perf_event_paranoid is 3");
	ASSERT_CONTAINS(pctr_strerror(r), "CAP_PERFMON");
}

TEST(unprivileged_paranoid_3)
{
	hw_sysctl("kernel.perf_event_paranoid", "3");
	hw_as_user(HW_UID, refused);
}

static void
allowed(void)
{
	struct pctr_set *set;
	long long c[1];

	ASSERT_NE(getuid(), 0);
	set = hw_thread_set(PCTR_SET_NO_USER_READ, "instructions:u");
	hw_check_exact(set, 3, PCTR_PATH_SYSCALL, c);
	pctr_set_free(set);
}

/* The same user counts, exactly, once the knob allows it. */
TEST(unprivileged_paranoid_1)
{
	hw_sysctl("kernel.perf_event_paranoid", "1");
	hw_as_user(HW_UID, allowed);
	hw_sysctl("kernel.perf_event_paranoid", "3");
}

/* QEMU's PMU has no branch or cache events: the kernel says ENOENT. */
TEST(missing_event)
{
	static const char *const missing[] = { "branch-misses",
					       "cache-misses" };

	for (int i = 0; i < 2; i++) {
		int r = open_one(missing[i]);
		const char *why = pctr_strerror(r);

		printf("# %s: %s\n", missing[i], why);
		ASSERT_EQ(r, -ENOENT);
		ASSERT_CONTAINS(why, missing[i]);
		ASSERT_CONTAINS(why, "does not support");
	}
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(unprivileged_paranoid_3)
				       TEST_CASE(unprivileged_paranoid_1)
					       TEST_CASE(missing_event)));
}
