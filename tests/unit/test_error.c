/* SPDX-License-Identifier: MIT */
/*
 * test_error.c - error names, general explanations, and the per-thread
 * detail of the last failure.
 */
#include <errno.h>
#include <pthread.h>
#include <pctr.h>

#include "test.h"

TEST(names)
{
	ASSERT_STR_EQ(pctr_errname(-ENODEV), "ENODEV");
	ASSERT_STR_EQ(pctr_errname(EACCES), "EACCES");
	ASSERT_STR_EQ(pctr_errname(-EOPNOTSUPP), "EOPNOTSUPP");
	ASSERT_STR_EQ(pctr_errname(-EBADFD), "EBADFD");
	ASSERT_STR_EQ(pctr_errname(-12345), "E?");
}

/* a copy of the text, cut short and NUL-terminated, with its length */
TEST(strerror_r_copies)
{
	const char *msg = pctr_strerror(-EMFILE);
	char buf[256], small[8];
	int len = (int)strlen(msg);

	ASSERT_EQ(pctr_strerror_r(-EMFILE, buf, sizeof(buf)), len);
	ASSERT_STR_EQ(buf, msg);
	ASSERT_EQ(pctr_strerror_r(-EMFILE, small, sizeof(small)), len);
	ASSERT_EQ(strlen(small), sizeof(small) - 1);
	ASSERT_EQ(memcmp(small, msg, sizeof(small) - 1), 0);
	ASSERT_EQ(pctr_strerror_r(-EMFILE, NULL, 0), len);
	ASSERT_EQ(pctr_strerror_r(-EMFILE, NULL, 1), -EINVAL);
	ASSERT_EQ(pctr_strerror_r(0, buf, sizeof(buf)), 7);
	ASSERT_STR_EQ(buf, "success");
}

TEST(general_messages_say_what_to_do)
{
	ASSERT_CONTAINS(pctr_strerror(-ENODEV), "software events");
	ASSERT_CONTAINS(pctr_strerror(-EMFILE), "ulimit -n");
	ASSERT_CONTAINS(pctr_strerror(-EBUSY), "multiplexing");
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "pctr list");
	ASSERT_STR_EQ(pctr_strerror(0), "success");
	/* an errno without a table entry still gets the C library's text */
	ASSERT_STR_EQ(pctr_strerror(-EDOM), strerror(EDOM));
}

TEST(permission_message_names_the_knob)
{
	long level;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	char want[64];

	if (!f)
		SKIP("no /proc/sys/kernel/perf_event_paranoid");
	ASSERT_EQ(fscanf(f, "%ld", &level), 1);
	fclose(f);
	snprintf(want, sizeof(want), "kernel.perf_event_paranoid is %ld",
		 level);
	ASSERT_CONTAINS(pctr_strerror(-EACCES), want);
	ASSERT_CONTAINS(pctr_strerror(-EACCES), "CAP_PERFMON");
	ASSERT_CONTAINS(pctr_strerror(EPERM), "sysctl kernel.perf_event_paranoid=");
}

static void *
other_thread(void *arg)
{
	/* the detail belongs to the thread that failed */
	*(const char **)arg = strstr(pctr_strerror(-ENOENT), "frobnicate") ? "leak" : "ok";
	return NULL;
}

TEST(detail_is_per_thread_and_per_errno)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	const char *seen = NULL;
	pthread_t t;

	ASSERT_EQ(pctr_event_parse("frobnicate", &ev), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "unknown event 'frobnicate'");
	/* asking about another errno gives the general text */
	ASSERT(!strstr(pctr_strerror(-EINVAL), "frobnicate"));
	ASSERT_EQ(pthread_create(&t, NULL, other_thread, &seen), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	ASSERT_STR_EQ(seen, "ok");
	/* a later failure replaces the detail */
	ASSERT_EQ(pctr_event_parse("cycles:z", &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "modifier 'z'");
	ASSERT(!strstr(pctr_strerror(-ENOENT), "frobnicate"));
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(names) TEST_CASE(strerror_r_copies)
			       TEST_CASE(general_messages_say_what_to_do)
			       TEST_CASE(permission_message_names_the_knob)
			       TEST_CASE(detail_is_per_thread_and_per_errno)));
}
