/* SPDX-License-Identifier: MIT */
/*
 * test_leaks.c - no file descriptor or mapping survives a set, whether it
 * was opened, failed half-way, or was never opened.
 */
#include <errno.h>
#include <pctr.h>

#include "test.h"
#include "helpers.h"
#include <sys/resource.h>

static void
cycle_sets(int n, const char *events, int type, int expect)
{
	struct pctr_target t = { .type = type };
	struct pctr_sample s;

	for (int i = 0; i < n; i++) {
		struct pctr_set *set;

		ASSERT_OK(pctr_set_new(&set, 0));
		ASSERT_OK(pctr_set_add_list(set, events));
		ASSERT_EQ(pctr_set_open(set, &t), expect);
		if (expect == 0) {
			ASSERT_OK(pctr_set_enable(set));
			ASSERT_OK(pctr_set_read(set, &s));
			ASSERT_OK(pctr_set_reset(set));
		}
		pctr_set_free(set);
	}
}

TEST(opened_sets_release_everything)
{
	int fds, maps;

	/* warm up: the library's one-time detection opens and maps once */
	cycle_sets(1, "task-clock", PCTR_TARGET_THREAD, 0);
	fds = count_fds();
	maps = count_maps();
	cycle_sets(300, "task-clock,page-faults,context-switches",
		   PCTR_TARGET_THREAD, 0);
	cycle_sets(100, "task-clock,page-faults", PCTR_TARGET_PROCESS, 0);
	ASSERT_EQ(count_fds(), fds);
	ASSERT_EQ(count_maps(), maps);
}

TEST(failed_opens_release_everything)
{
	struct pctr_machine m = { .size = sizeof(m) };
	int fds, maps;

	ASSERT_OK(pctr_machine_get(&m));
	cycle_sets(1, "task-clock", PCTR_TARGET_THREAD, 0);
	fds = count_fds();
	maps = count_maps();
	if (!m.has_pmu) /* two opened, the third fails */
		cycle_sets(200, "task-clock,page-faults,cycles",
			   PCTR_TARGET_THREAD, -ENODEV);
	cycle_sets(50, "task-clock", 99, -EINVAL);
	ASSERT_EQ(count_fds(), fds);
	ASSERT_EQ(count_maps(), maps);
}

TEST(running_out_of_descriptors)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct rlimit rl, low;
	struct pctr_set *set;
	int fds;

	SKIP_UNDER_VALGRIND("(it keeps descriptors of its own)");
	cycle_sets(1, "task-clock", PCTR_TARGET_THREAD, 0);
	fds = count_fds();
	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = fds + 5;
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
	ASSERT_OK(pctr_set_new(&set, 0));
	for (int i = 0; i < 10; i++)
		ASSERT_OK(pctr_set_add(set, "page-faults"));
	ASSERT_EQ(pctr_set_open(set, &self), -EMFILE);
	ASSERT_CONTAINS(pctr_strerror(-EMFILE), "ulimit -n");
	ASSERT_EQ(count_fds(), fds);
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
	/* with the limit back the same set opens */
	ASSERT_OK(pctr_set_open(set, &self));
	pctr_set_free(set);
	ASSERT_EQ(count_fds(), fds);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(opened_sets_release_everything)
			       TEST_CASE(failed_opens_release_everything)
			       TEST_CASE(running_out_of_descriptors)));
}
