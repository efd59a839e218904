/* SPDX-License-Identifier: MIT */
/*
 * repro_sibling_enodev.c - opening a sibling into a group whose thread has
 * exited fails with ENODEV, not ESRCH.
 *
 * A group leader is opened on a thread, the thread exits, and a sibling is
 * then opened into that leader's group for the same thread: the kernel
 * answers ENODEV ("no such device"), while a new leader for the same
 * thread gets ESRCH.  A library that opens a process thread by thread
 * meets this whenever a thread exits between its leader and its siblings,
 * and must not report it as an offline CPU.
 *
 * Each case is tried with and without inherit, once after
 * /proc/self/task/TID is gone (asserted: the thread has certainly been
 * through perf_event_exit_task()) and once right after pthread_join(),
 * which can return before that point (printed only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int go, tid;

static int
open_counter(uint64_t config, pid_t pid, int group_fd, int inherit)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.inherit = inherit;
	a.disabled = group_fd < 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = syscall(SYS_perf_event_open, &a, pid, -1, group_fd,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static void *
wait_then_exit(void *arg)
{
	atomic_store(&tid, (int)gettid());
	while (!atomic_load(&go))
		usleep(100);
	return arg;
}

/* leader on a live thread; sibling and new leader once it is gone */
static int
one_case(int n, int inherit, int wait_reaped)
{
	char path[64];
	struct stat st;
	pthread_t t;
	int leader, sibling, again;

	atomic_store(&go, 0);
	atomic_store(&tid, 0);
	pthread_create(&t, NULL, wait_then_exit, NULL);
	while (!atomic_load(&tid))
		usleep(100);
	leader = open_counter(PERF_COUNT_SW_TASK_CLOCK, atomic_load(&tid), -1,
			      inherit);
	atomic_store(&go, 1);
	pthread_join(t, NULL);
	snprintf(path, sizeof(path), "/proc/self/task/%d", atomic_load(&tid));
	while (wait_reaped && stat(path, &st) == 0)
		usleep(100);
	sibling = leader < 0 ? leader
			     : open_counter(PERF_COUNT_SW_PAGE_FAULTS,
					    atomic_load(&tid), leader, inherit);
	again = open_counter(PERF_COUNT_SW_TASK_CLOCK, atomic_load(&tid), -1,
			     inherit);
	printf("# inherit %d, %s: leader %s, sibling %s, new leader %s\n",
	       inherit, wait_reaped ? "thread reaped" : "thread joined",
	       leader >= 0 ? "opened" : strerror(-leader),
	       sibling >= 0 ? "opened" : strerror(-sibling),
	       again >= 0 ? "opened" : strerror(-again));
	if (wait_reaped)
		printf("%s %d - inherit %d: sibling ENODEV, new leader "
		       "ESRCH\n",
		       leader >= 0 && sibling == -ENODEV && again == -ESRCH
			       ? "ok"
			       : "not ok",
		       n, inherit);
	if (leader >= 0)
		close(leader);
	return !wait_reaped ||
	       (leader >= 0 && sibling == -ENODEV && again == -ESRCH);
}

int
main(void)
{
	int ok = 1;

	printf("TAP version 13\n1..2\n");
	for (int inherit = 0; inherit < 2; inherit++) {
		one_case(0, inherit, 0);
		ok &= one_case(inherit + 1, inherit, 1);
	}
	return ok ? 0 : 1;
}
