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

static int
spinner(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		repro_pin_cpu0();
		for (;;)
			;
	}
	return pid;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5, kernel_total = 0;
	size_t len = 65 * (size_t)sysconf(_SC_PAGESIZE);

	printf("1..1\n");
	repro_pin_cpu0();
	for (int r = 0; r < rounds; r++) {
		struct perf_event_attr a;
		pid_t s1 = spinner(), s2 = spinner();
		struct perf_event_mmap_page *pg;
		uint64_t end, pos, n = 0, k = 0;
		volatile unsigned long x = 0;
		int fd;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.sample_period = 1000000;
		a.sample_type = PERF_SAMPLE_IP;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
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
		for (pos = pg->data_tail; pos < pg->data_head;) {
			const char *d = (const char *)pg + pg->data_offset;
			const struct perf_event_header *h =
				(const void *)(d + pos % pg->data_size);
			uint64_t ip;

			if (h->type == PERF_RECORD_SAMPLE) {
				memcpy(&ip, d + (pos + sizeof(*h)) % pg->data_size,
				       sizeof(ip));
				n++;
				k += ip >> 63;
			}
			pos += h->size;
		}
		printf("# round %d: %llu samples, %llu at kernel PCs\n", r,
		       (unsigned long long)n, (unsigned long long)k);
		kernel_total += (int)k;
		munmap(pg, len);
		close(fd);
	}
	printf("%sok 1 - task-clock with the kernel in samples kernel PCs of "
	       "a user-mode loop: %d\n", kernel_total ? "" : "not ",
	       kernel_total);
	return kernel_total ? 0 : 1;
}
