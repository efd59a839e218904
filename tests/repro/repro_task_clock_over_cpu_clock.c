/* SPDX-License-Identifier: MIT */
/*
 * repro_task_clock_over_cpu_clock - a task-clock counter of a thread can
 * count more than the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) over a
 * window that encloses the whole interval the counter counted.
 *
 * Each window: read the thread's CPU clock, reset and enable a task-clock
 * counter of the thread, spin 3 ms of that clock in user mode, read the
 * counter, read the clock again.  The counter counted inside the window,
 * so a count above the window is a difference of the clocks, not of the
 * intervals: task-clock runs on the perf context's time (local_clock()
 * while the task is in), the CPU clock on the scheduler's sum_exec_runtime
 * (rq clock_task), and the two take a switch, an interrupt or the host's
 * steal of the VM's CPU at different points.  NR windows alone, then NR
 * beside two user-mode spinners per CPU.
 *
 * So "task-clock <= the thread's CPU time around it" is no bound a test
 * may assert (tests/compat/bsd_test.h, bsd_count_limit()); the other
 * direction is repro_cpu_clock_short.
 *
 * Passes while the behaviour reproduces: some window's count came out
 * above the window.  Printed: per phase, those windows and the worst
 * excess.  Skips where no window showed it: nothing to reproduce.
 *
 * As seen: a task-clock counter of a thread can count more than the
 * thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) over a window that encloses
 * everything it counted: task-clock runs on the perf context's time, the
 * CPU clock on the scheduler's, and a switch, an interrupt or the host's
 * steal lands in one and not the other.  400 windows of 3 ms (reset,
 * enable, spin, read inside two clock reads), alone and beside two spinners
 * per CPU: above the window in 65 and 37 (49 and 4 in a second run), worst
 * by 5.0 ms alone and 2.2 ms loaded on the x86-64 PVM guest.  Relied on by
 * tests/compat/bsd_test.h (bsd_count_limit(): the count after a reset is
 * held to the fixed 15 ms these tests always had, not to the thread's CPU
 * time around it, which it can exceed).
 */
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "repro.h"

#define NR 400
#define WINDOW_NS 3000000ull
#define MAX_SPIN 64

/* windows whose count exceeded the thread's CPU time around it */
static int
phase(int fd, int64_t *worst)
{
	int over = 0;

	*worst = 0;
	for (int n = 0; n < NR; n++) {
		uint64_t t0, t1, e, c;
		int64_t d;

		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		t0 = repro_ns(CLOCK_THREAD_CPUTIME_ID);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		e = repro_ns(CLOCK_THREAD_CPUTIME_ID) + WINDOW_NS;
		while (repro_ns(CLOCK_THREAD_CPUTIME_ID) < e)
			;
		if (read(fd, &c, 8) != 8)
			return -1;
		t1 = repro_ns(CLOCK_THREAD_CPUTIME_ID);
		d = (int64_t)c - (int64_t)(t1 - t0);
		if (d > 0)
			over++;
		if (d > *worst)
			*worst = d;
	}
	return over;
}

int
main(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), nspin = 2 * ncpu;
	int fd = repro_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int over[2];
	int64_t worst[2];
	pid_t spin[MAX_SPIN];

	printf("1..1\n");
	if (fd < 0) {
		perror("perf_event_open");
		printf("not ok 1 - task-clock could not be opened\n");
		return 1;
	}
	if (nspin > MAX_SPIN)
		nspin = MAX_SPIN;
	over[0] = phase(fd, &worst[0]);
	for (long i = 0; i < nspin; i++) {
		spin[i] = fork();
		if (spin[i] == 0)
			for (volatile uint64_t x = 0;; x++)
				;
	}
	over[1] = phase(fd, &worst[1]);
	for (long i = 0; i < nspin; i++) {
		kill(spin[i], SIGKILL);
		waitpid(spin[i], NULL, 0);
	}
	if (over[0] < 0 || over[1] < 0) {
		printf("not ok 1 - read of task-clock failed\n");
		return 1;
	}
	printf("# alone: %d of %d windows of %llu ns counted above the "
	       "thread's CPU time around them, worst by %lld ns\n",
	       over[0], NR, WINDOW_NS, (long long)worst[0]);
	printf("# beside %ld spinners on %ld CPUs: %d of %d, worst by %lld "
	       "ns\n",
	       nspin, ncpu, over[1], NR, (long long)worst[1]);
	if (over[0] + over[1] == 0) {
		printf("ok 1 # SKIP task-clock never counted above the "
		       "thread's CPU time here: nothing to reproduce\n");
		return 0;
	}
	printf("ok 1 - task-clock counted above the thread's CPU time "
	       "around it\n");
	return 0;
}
