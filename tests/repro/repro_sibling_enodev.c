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
 *
 * A thread that lives on is refused new siblings too: with inherit, once
 * the thread keeps creating threads, a sibling opened into its leader
 * fails with ENODEV (or EINVAL) while the leader goes on counting and the
 * thread is nowhere near exiting (PF_EXITING clear in /proc/TID/stat).  A
 * leader and sibling opened afresh right away mostly succeed.  (Asserted:
 * refusals happen, the thread is alive at each; the figures are printed.)
 * With a dummy counter that is not inherited on the thread meanwhile, a
 * fresh leader and sibling always open (guarded_case() says why).
 *
 * As seen: opening a sibling into a group whose thread has exited fails
 * with ENODEV, a new leader for that thread ESRCH; and an inherited leader
 * on a live thread that keeps creating threads refuses new siblings
 * (ENODEV, about 499 of 500 tries) while a fresh leader and sibling mostly
 * open (391 to 408 of 500); with a dummy counter that is not inherited in
 * the thread's context meanwhile, a fresh leader and sibling open 500 of
 * 500 times: the refusals come from the kernel swapping the thread's
 * context with its children's clones, which a counter that is not inherited
 * prevents.  Relied on by src/set.c (open_instance(): the dummy while a
 * thread's groups are opened; sibling_refused(): the thread's PF_EXITING
 * decides between leaving it out and opening it again).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
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

static atomic_int stop, churner_tid;

static void *
nothing(void *arg)
{
	return arg;
}

static void *
churner(void *arg)
{
	atomic_store(&churner_tid, (int)gettid());
	while (!atomic_load(&stop)) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) == 0)
			pthread_join(t, NULL);
	}
	return arg;
}

/* PF_EXITING (0x4) in field 9 of /proc/TID/stat, or no such thread */
static int
exiting(int t)
{
	char path[64], buf[512], *p, state;
	unsigned int flags;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", t);
	f = fopen(path, "r");
	if (!f)
		return 1;
	n = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	p = n ? strrchr(buf, ')') : NULL;
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", &state,
			 &flags) != 2)
		return 1;
	return state == 'Z' || state == 'X' || (flags & 0x4);
}

/* a live thread that creates threads, its inherited leader, new siblings */
static int
live_thread_case(int n)
{
	long refused[2] = { 0 }, dead = 0, fresh_ok = 0, tries = 500;
	pthread_t t;
	int leader, t_id;

	pthread_create(&t, NULL, churner, NULL);
	while (!atomic_load(&churner_tid))
		usleep(100);
	t_id = atomic_load(&churner_tid);
	leader = open_counter(PERF_COUNT_SW_TASK_CLOCK, t_id, -1, 1);
	for (long i = 0; i < tries && leader >= 0; i++) {
		int s = open_counter(PERF_COUNT_SW_PAGE_FAULTS, t_id, leader,
				     1);
		int l2, s2;

		if (s >= 0) {
			close(s);
		} else {
			refused[s == -ENODEV ? 0 : 1]++;
			dead += exiting(t_id);
		}
		l2 = open_counter(PERF_COUNT_SW_TASK_CLOCK, t_id, -1, 1);
		s2 = l2 < 0 ? l2
			    : open_counter(PERF_COUNT_SW_PAGE_FAULTS, t_id, l2,
					   1);
		fresh_ok += s2 >= 0;
		if (s2 >= 0)
			close(s2);
		if (l2 >= 0)
			close(l2);
		usleep(200);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("# live thread creating threads: %ld of %ld siblings refused "
	       "(%ld ENODEV, %ld other), the thread exiting at %ld of them; "
	       "fresh leader and sibling opened %ld of %ld times\n",
	       refused[0] + refused[1], tries, refused[0], refused[1], dead,
	       fresh_ok, tries);
	if (leader >= 0)
		close(leader);
	printf("%s %d - a live thread's inherited leader refuses siblings\n",
	       leader >= 0 && refused[0] + refused[1] > 0 && !dead ? "ok"
								   : "not ok",
	       n);
	return leader >= 0 && refused[0] + refused[1] > 0 && !dead;
}

/*
 * The refusals come from the kernel swapping the thread's context with a
 * clone's (the threads it creates inherit the leader) when they follow
 * each other on a CPU: the leader is then in the child's context, and a
 * sibling opened on the thread finds another context.  With a counter that
 * is not inherited in the thread's context, the children's contexts are
 * no clones and never swapped: every fresh leader and sibling open.
 */
static int
guarded_case(int n)
{
	struct perf_event_attr d = {
		.size = sizeof(d), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long ok_pairs = 0, tries = 500, dead = 0;
	pthread_t t;
	int t_id;

	atomic_store(&stop, 0);
	atomic_store(&churner_tid, 0);
	pthread_create(&t, NULL, churner, NULL);
	while (!atomic_load(&churner_tid))
		usleep(100);
	t_id = atomic_load(&churner_tid);
	for (long i = 0; i < tries; i++) {
		int g = (int)syscall(SYS_perf_event_open, &d, t_id, -1, -1,
				     PERF_FLAG_FD_CLOEXEC);
		int l = open_counter(PERF_COUNT_SW_TASK_CLOCK, t_id, -1, 1);
		int s2 = l < 0 ? l
			       : open_counter(PERF_COUNT_SW_PAGE_FAULTS, t_id,
					      l, 1);

		ok_pairs += g >= 0 && s2 >= 0;
		dead += s2 < 0 && exiting(t_id);
		if (s2 >= 0)
			close(s2);
		if (l >= 0)
			close(l);
		if (g >= 0)
			close(g);
		usleep(200);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("# live thread creating threads, a dummy that is not inherited "
	       "on it meanwhile: fresh leader and sibling opened %ld of %ld "
	       "times\n", ok_pairs, tries);
	printf("%s %d - with a counter that is not inherited in its context, "
	       "none is refused\n", ok_pairs == tries && !dead ? "ok" : "not ok",
	       n);
	return ok_pairs == tries;
}

int
main(void)
{
	int ok = 1;

	printf("TAP version 13\n1..4\n");
	for (int inherit = 0; inherit < 2; inherit++) {
		one_case(0, inherit, 0);
		ok &= one_case(inherit + 1, inherit, 1);
	}
	ok &= live_thread_case(3);
	ok &= guarded_case(4);
	return ok ? 0 : 1;
}
