/* SPDX-License-Identifier: MIT */
/*
 * test_header.c - <pctr.h> alone: no kernel header comes with it, and
 * struct pctr_event has its documented size whatever headers a program
 * is built with.
 *
 * This file includes nothing before <pctr.h> and declares a struct
 * perf_event_attr of its own after it: the build fails if <pctr.h> brings
 * the kernel's (a redefinition), so the check holds at compile time too.
 */
#include <pctr.h>

#if defined(_UAPI_LINUX_PERF_EVENT_H) || defined(_LINUX_PERF_EVENT_H) ||     \
	defined(PERF_ATTR_SIZE_VER0)
#error "<pctr.h> includes <linux/perf_event.h>"
#endif

struct perf_event_attr {
	int not_the_kernels;
};

#include <stddef.h>

#include "test.h"

_Static_assert(sizeof(struct pctr_event) == PCTR_EVENT_SIZE_VER0,
	       "struct pctr_event keeps its documented size");
_Static_assert(PCTR_EVENT_SIZE_VER0 == 256, "as documented");

TEST(event_layout)
{
	/* the fields at the offsets of the documented layout (64-bit) */
	ASSERT_EQ(offsetof(struct pctr_event, size), 0);
	ASSERT_EQ(offsetof(struct pctr_event, type), 8);
	ASSERT_EQ(offsetof(struct pctr_event, flags), 12);
	ASSERT_EQ(offsetof(struct pctr_event, config), 16);
	ASSERT_EQ(offsetof(struct pctr_event, config3), 40);
	ASSERT_EQ(offsetof(struct pctr_event, precise), 48);
	ASSERT_EQ(offsetof(struct pctr_event, part_type), 56);
	ASSERT_EQ(offsetof(struct pctr_event, hardware), 72);
	ASSERT_EQ(offsetof(struct pctr_event, name), 80);
	ASSERT_EQ(offsetof(struct pctr_event, reserved), 208);
	ASSERT_EQ(sizeof(struct pctr_event), 256);
}

TEST(version_0_sizes)
{
	/*
	 * each published minimum is the struct's size today (version 0),
	 * but for pctr_summary, grown once: version 0 ends at stddev, and
	 * pctr_region_config, whose version 0 ends before disturbed
	 */
	ASSERT_EQ(sizeof(struct pctr_machine), PCTR_MACHINE_SIZE_VER0);
	ASSERT_EQ(offsetof(struct pctr_summary, std_error),
		  PCTR_SUMMARY_SIZE_VER0);
	ASSERT_EQ(sizeof(struct pctr_summary), PCTR_SUMMARY_SIZE_VER1);
	ASSERT_EQ(offsetof(struct pctr_region_config, disturbed),
		  PCTR_REGION_CONFIG_SIZE_VER0);
	ASSERT_EQ(sizeof(struct pctr_region_config),
		  PCTR_REGION_CONFIG_SIZE_VER1);
	ASSERT_EQ(sizeof(struct pctr_overflow), PCTR_OVERFLOW_SIZE_VER0);
	ASSERT_EQ(sizeof(struct pctr_overflow_info),
		  PCTR_OVERFLOW_INFO_SIZE_VER0);
	ASSERT_EQ(sizeof(struct pctr_overflow_stats),
		  PCTR_OVERFLOW_STATS_SIZE_VER0);
	ASSERT_EQ(sizeof(struct pctr_sampling), PCTR_SAMPLING_SIZE_VER0);
}

TEST(own_attr_is_the_programs)
{
	struct perf_event_attr a = { 42 };

	ASSERT_EQ(a.not_the_kernels, 42);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(event_layout)
			       TEST_CASE(version_0_sizes)
			       TEST_CASE(own_attr_is_the_programs)));
}
