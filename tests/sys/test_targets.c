/* SPDX-License-Identifier: MIT */
/*
 * test_targets.c - counting other targets with real kernel events: the
 * whole process and the threads it creates later (inherit), another
 * process, one thread, whole CPUs.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <pctr.h>

#include "test.h"
#include "helpers.h"

#define PAGES 2000

static void *
toucher(void *arg)
{
	touch_pages((size_t)arg);
	return NULL;
}

TEST(process_inherit_counts_later_threads)
{
	struct pctr_target proc = { .type = PCTR_TARGET_PROCESS };
	struct pctr_set *set;
	struct pctr_sample s;
	pthread_t t[4];

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "page-faults"));
	ASSERT_OK(pctr_set_open(set, &proc));
	ASSERT_EQ(pctr_set_user_read(set), 0);
	ASSERT_OK(pctr_set_enable(set));
	/* the main thread touches nothing: the threads do all the work */
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, toucher,
					 (void *)(size_t)PAGES), 0);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(pthread_join(t[i], NULL), 0);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_GE(s.count[0].value, 4 * PAGES);
	ASSERT_LT(s.count[0].value, 8 * PAGES);
	pctr_set_free(set);
}

/*
 * PCTR_SET_NO_INHERIT: the process's threads at the open, each counting
 * on its own; a thread made later is not counted.  The main thread
 * touches PAGES, a later thread 4 * PAGES.
 */
TEST(process_no_inherit_leaves_later_threads_out)
{
	struct pctr_target proc = { .type = PCTR_TARGET_PROCESS };
	struct pctr_set *set;
	struct pctr_sample s;
	pthread_t t;

	ASSERT_OK(pctr_set_new(&set, PCTR_SET_NO_INHERIT));
	ASSERT_OK(pctr_set_add(set, "page-faults"));
	ASSERT_OK(pctr_set_open(set, &proc));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_EQ(pthread_create(&t, NULL, toucher, (void *)(size_t)(4 * PAGES)),
		  0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	touch_pages(PAGES);
	ASSERT_OK(pctr_set_read(set, &s));
	printf("# %llu page faults counted\n",
	       (unsigned long long)s.count[0].value);
	ASSERT_GE(s.count[0].value, PAGES);
	ASSERT_LT(s.count[0].value, 2 * PAGES);
	pctr_set_free(set);
	ASSERT_EQ(pctr_set_new(&set, PCTR_SET_NO_INHERIT | 0x80), -EINVAL);
}

TEST(thread_target_does_not_see_other_threads)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	struct pctr_sample s;
	pthread_t t;

	SKIP_UNDER_VALGRIND("(it translates every thread's code on its own)");
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "page-faults"));
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_EQ(pthread_create(&t, NULL, toucher, (void *)(size_t)PAGES), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_LT(s.count[0].value, 100);
	pctr_set_free(set);
}

/* a child that touches PAGES pages each time it reads a byte */
static pid_t
start_worker(int *cmd)
{
	int p[2];
	pid_t pid;
	char c;

	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) == 1)
			touch_pages(PAGES);
		_exit(0);
	}
	close(p[0]);
	*cmd = p[1];
	return pid;
}

TEST(attach_to_another_process)
{
	struct pctr_target t = { .type = PCTR_TARGET_PID };
	struct pctr_set *set;
	struct pctr_sample s;
	int cmd, status;

	t.pid = start_worker(&cmd);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, "page-faults,task-clock"));
	ASSERT_OK(pctr_set_open(set, &t));
	ASSERT_EQ(pctr_set_nr_instances(set), 1);
	ASSERT_EQ(pctr_set_instance_id(set, 0), t.pid);
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_EQ(write(cmd, "xx", 2), 2);
	close(cmd);
	ASSERT_EQ(waitpid(t.pid, &status, 0), t.pid);
	/* counts survive the target's exit */
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_GE(s.count[0].value, 2 * PAGES);
	ASSERT_LT(s.count[0].value, 2 * PAGES + 400);
	ASSERT_GT(s.count[1].value, 0);
	pctr_set_free(set);
}

TEST(attach_to_one_thread)
{
	struct pctr_target t = { .type = PCTR_TARGET_TID };
	struct pctr_set *set;
	struct pctr_sample s;
	int cmd, status;

	t.pid = start_worker(&cmd);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "page-faults"));
	ASSERT_OK(pctr_set_open(set, &t));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_EQ(write(cmd, "x", 1), 1);
	close(cmd);
	ASSERT_EQ(waitpid(t.pid, &status, 0), t.pid);
	ASSERT_OK(pctr_set_read_instance(set, 0, &s));
	ASSERT_GE(s.count[0].value, PAGES);
	pctr_set_free(set);
}

TEST(no_such_process)
{
	struct pctr_target t = { .type = PCTR_TARGET_PID, .pid = 0x3ffffff0 };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_EQ(pctr_set_open(set, &t), -ESRCH);
	ASSERT_CONTAINS(pctr_strerror(-ESRCH), "no process");
	t.type = PCTR_TARGET_TID;
	ASSERT_EQ(pctr_set_open(set, &t), -ESRCH);
	t.pid = -5;
	ASSERT_EQ(pctr_set_open(set, &t), -EINVAL);
	pctr_set_free(set);
}

TEST(whole_cpus_as_root)
{
	struct pctr_target t = { .type = PCTR_TARGET_CPU };
	struct pctr_set *set;
	struct pctr_sample s, one;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t sum = 0;

	if (geteuid() != 0)
		SKIP("counting whole CPUs needs root here");
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, "cpu-clock,context-switches"));
	ASSERT_OK(pctr_set_open(set, &t));
	ASSERT_EQ(pctr_set_nr_instances(set), ncpu);
	ASSERT_OK(pctr_set_enable(set));
	usleep(100 * 1000);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	/* cpu-clock on every CPU: about 100 ms each, idle or not */
	ASSERT_GE(s.count[0].value, (uint64_t)ncpu * 90 * 1000 * 1000);
	for (int i = 0; i < ncpu; i++) {
		ASSERT_EQ(pctr_set_instance_id(set, i), i);
		ASSERT_OK(pctr_set_read_instance(set, i, &one));
		sum += one.count[0].value;
	}
	ASSERT_UEQ(sum, s.count[0].value);
	pctr_set_free(set);
}

TEST(chosen_cpus)
{
	int cpus[] = { 0 };
	struct pctr_target t = { PCTR_TARGET_CPU, 0, 1, cpus };
	struct pctr_set *set;

	if (geteuid() != 0)
		SKIP("counting whole CPUs needs root here");
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "cpu-clock"));
	ASSERT_OK(pctr_set_open(set, &t));
	ASSERT_EQ(pctr_set_nr_instances(set), 1);
	pctr_set_free(set);
	cpus[0] = 4096;
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "cpu-clock"));
	ASSERT_EQ(pctr_set_open(set, &t), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "no CPU 4096");
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(process_inherit_counts_later_threads)
			       TEST_CASE(process_no_inherit_leaves_later_threads_out)
			       TEST_CASE(thread_target_does_not_see_other_threads)
			       TEST_CASE(attach_to_another_process)
			       TEST_CASE(attach_to_one_thread)
			       TEST_CASE(no_such_process)
			       TEST_CASE(whole_cpus_as_root)
			       TEST_CASE(chosen_cpus)));
}
