/* SPDX-License-Identifier: MIT */
/*
 * repro_task_clock_kernel_samples - a task-clock sampler that counts the
 * kernel too, of a thread that runs a user-mode loop and makes no system
 * call, takes some of its samples at kernel PCs: the timer's expiries
 * that interrupt kernel work done in the thread's time (interrupts,
 * softirqs, the switches of a CPU shared with other tasks).  A :u
 * sampler drops those expiries instead (repro_task_clock_user_drops).
 *
 * Shown on raw perf_event_open, nothing of libpctr: task-clock, kernel
 * in, 1 ms period, PERF_SAMPLE_IP, over ROUNDS rounds of 300 ms of the
 * loop, each beside two spinning children on the same CPU (pinned to
 * CPU 0).  Printed: the samples and those at kernel PCs per round.
 * "ok" while some sample in the rounds was at a kernel PC.  Relied on
 * by tests/tool/test_profile.c, whose shares of the program's own code
 * sample task-clock:u.  Usage: repro_task_clock_kernel_samples [ROUNDS]
 * (5 by default).
 *
 * As seen on the 2-CPU x86-64 VMs of the project's CI: 3 to 11 of 299
 * samples a round at kernel PCs (1 to 3.7%), 29 in 5 rounds.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <sys/ioctl.h>

#include "repro.h"

/* @arg: the samples, and those at kernel PCs */
static void
count_ip(uint64_t ip, void *arg)
{
	uint64_t *nk = arg;

	nk[0]++;
	nk[1] += ip >> 63;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5, kernel_total = 0;
	size_t len = 65 * (size_t)sysconf(_SC_PAGESIZE);

	printf("1..1\n");
	repro_pin_cpu0();
	for (int r = 0; r < rounds; r++) {
		pid_t s1 = repro_spinner_cpu0(), s2 = repro_spinner_cpu0();
		struct perf_event_mmap_page *pg;
		uint64_t end, nk[2] = { 0, 0 };
		volatile unsigned long x = 0;
		int fd;

		fd = repro_task_clock_sampler(1000000, 0);
		pg = fd < 0 ? MAP_FAILED :
			mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			     fd, 0);
		if (pg == MAP_FAILED) {
			printf("not ok 1 - task-clock sampler: %s\n",
			       strerror(errno));
			return 1;
		}
		end = repro_ns(CLOCK_THREAD_CPUTIME_ID) + 300000000u;
		while (repro_ns(CLOCK_THREAD_CPUTIME_ID) < end)
			for (int i = 0; i < 100000; i++)
				x = x * 3 + 1;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		kill(s1, SIGKILL);
		kill(s2, SIGKILL);
		waitpid(s1, NULL, 0);
		waitpid(s2, NULL, 0);
		repro_ring_ips(pg, count_ip, nk);
		printf("# round %d: %llu samples, %llu at kernel PCs\n", r,
		       (unsigned long long)nk[0], (unsigned long long)nk[1]);
		kernel_total += (int)nk[1];
		munmap(pg, len);
		close(fd);
	}
	printf("%sok 1 - task-clock with the kernel in samples kernel PCs of "
	       "a user-mode loop: %d\n", kernel_total ? "" : "not ",
	       kernel_total);
	return kernel_total ? 0 : 1;
}
