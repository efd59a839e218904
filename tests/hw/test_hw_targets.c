/* SPDX-License-Identifier: MIT */
/*
 * test_hw_targets.c - targets other than the calling thread, counted
 * exactly: a process-wide set inherited by a thread created after the
 * start, and a command started by the library, counted from its exec.
 */
#include <pthread.h>
#include <stdlib.h>

#include "hw.h"

static void *
loop_thread(void *arg)
{
	hw_loop(*(uint64_t *)arg);
	return NULL;
}

/* Create, run and join one thread; the process set is counting meanwhile. */
static __attribute__((noinline)) uint64_t
count_thread(struct pctr_set *set, uint64_t n)
{
	struct pctr_sample s;
	pthread_t t;

	ASSERT_OK(pctr_set_reset(set));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_EQ(pthread_create(&t, NULL, loop_thread, &n), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_HEX_EQ(s.path, PCTR_PATH_SYSCALL);
	return s.count[0].value;
}

/*
 * The thread does not exist when the set is opened: only inheritance can
 * count its loop.  Its count folds into the parent's counter when it
 * exits.  The rest (pthread_create, the thread's start and exit, join) is
 * the same work every time once a first thread has cached its stack, so
 * the count is 2N + C exactly, with C the same for every N.
 */
TEST(process_inherit_thread)
{
	struct pctr_target t = { .type = PCTR_TARGET_PROCESS };
	struct pctr_set *set;
	uint64_t warm = 10;
	long long c = 0;
	pthread_t th;

	ASSERT_EQ(pthread_create(&th, NULL, loop_thread, &warm), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "instructions:u"));
	ASSERT_OK(pctr_set_open(set, &t));
	ASSERT_EQ(pctr_set_nr_instances(set), 1);
	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		for (int r = 0; r < hw_points[i].repeats; r++) {
			uint64_t n = hw_points[i].n, v = count_thread(set, n);
			long long off = (long long)(v - 2 * n);

			printf("# N=%llu: %llu = 2N%+lld\n",
			       (unsigned long long)n, (unsigned long long)v,
			       off);
			if (i == 0 && r == 0)
				c = off;
			ASSERT_EQ(off, c);
		}
	}
	/* thread creation and exit are thousands of user instructions */
	ASSERT_GT(c, 1000);
	ASSERT_LT(c, 100000);
	printf("# inherited thread: 2N%+lld\n", c);
	pctr_set_free(set);
}

/*
 * hw_loop.S (hw_loop_x86_64.S) documents its own instruction count; counting starts at exec
 * (enable_on_exec) and the program has no C library, so the count is
 * known in advance, bit for bit.  hw_loop is in /hw, on PATH.
 */
static uint64_t
count_command(uint64_t n)
{
	char arg[32];
	char *argv[] = { "hw_loop", arg, NULL };
	struct pctr_set *set;
	struct pctr_sample s;
	int status;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%llu", (unsigned long long)n);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "instructions:u"));
	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_set_free(set);
	return s.count[0].value;
}

TEST(command_from_exec)
{
	static const uint64_t ns[] = { 1, 1000, 1000000, 100000000,
				       2500000000ull };

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		uint64_t want = hw_loop_exec_count(ns[i]), got;

		got = count_command(ns[i]);
		printf("# hw_loop %llu: %llu instructions, expected %llu\n",
		       (unsigned long long)ns[i], (unsigned long long)got,
		       (unsigned long long)want);
		ASSERT_UEQ(got, want);
	}
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(process_inherit_thread)
				       TEST_CASE(command_from_exec)));
}
