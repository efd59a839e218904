/* SPDX-License-Identifier: MIT */
/*
 * repro_task_clock_fault_storm - a task-clock:u sampler at the kernel's
 * 10 us floor makes the thread's page faults many times slower on a VM:
 * the timer fires every 10 us of the thread's time, kernel work included,
 * and each expiry (dropped in the kernel, as :u asks) costs the guest
 * about as much as its period.  Ten times the period, and the faults run
 * at nearly their own speed.  Under a busy host the expiries cost more
 * still, and a run of faults that takes 25 ms alone can take seconds.
 *
 * Shown on raw perf_event_open, nothing of libpctr: task-clock,
 * exclude_kernel, sample_period 10 us then 100 us, no signal, no ring;
 * the work is libcpc's seed Example 2's computation as its harness gives
 * it (tests/compat/libcpc/seed_examples.sh): 20 calls, each mapping 500
 * fresh pages, touching each, unmapping them.  RUNS runs of it each way
 * (10 by default), alternating, the thread pinned to CPU 0.  Printed:
 * the median and longest run of each.  "ok" while the median at 10 us is
 * at least 3 times the median without the sampler.  Relied on by the
 * seed examples' task-clock cases, whose computation touches no new page.
 * Usage: repro_task_clock_fault_storm [RUNS]
 *
 * As seen on the 2-CPU x86-64 VMs of the project's CI: 400,000 faults
 * took 0.9 s alone, 18 to 24 s under `perf record -e task-clock:u -c
 * 10000`, 1.1 s at -c 100000.
 */
#include <stdlib.h>
#include <sys/ioctl.h>

#include "repro.h"

#define MAX_RUNS 100

static void
computation(void)
{
	size_t len = 500 * (size_t)sysconf(_SC_PAGESIZE);

	for (int call = 0; call < 20; call++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return;
		for (size_t i = 0; i < len; i += (size_t)sysconf(_SC_PAGESIZE))
			((volatile char *)p)[i] = 1;
		munmap(p, len);
	}
}

/* one run of the computation under a sampler of @period ns (0: none) */
static int
timed_run(uint64_t period, uint64_t *ns)
{
	uint64_t t0;
	int fd = period ? repro_task_clock_sampler(period, 1) : -1;

	if (period && fd < 0)
		return -errno;
	t0 = repro_ns(CLOCK_MONOTONIC);
	computation();
	*ns = repro_ns(CLOCK_MONOTONIC) - t0;
	if (fd >= 0)
		close(fd);
	return 0;
}

static int
by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	static const uint64_t period[] = { 0, 10000, 100000 };
	static const char *const name[] = { "alone", "under a 10 us sampler",
					    "under a 100 us sampler" };
	uint64_t t[3][MAX_RUNS], median[3];
	int runs = argc > 1 ? atoi(argv[1]) : 10;

	if (runs < 1 || runs > MAX_RUNS)
		runs = 10;
	printf("1..1\n");
	repro_pin_cpu0();
	computation(); /* the first calls' own costs (the heap, the page tables) */
	for (int r = 0; r < runs; r++)
		for (int m = 0; m < 3; m++) {
			int e = timed_run(period[m], &t[m][r]);

			if (e < 0) {
				printf("not ok 1 - task-clock sampler: %s\n",
				       strerror(-e));
				return 1;
			}
		}
	for (int m = 0; m < 3; m++) {
		qsort(t[m], (size_t)runs, sizeof(t[m][0]), by_value);
		median[m] = t[m][runs / 2];
		printf("# 10,000 page faults %s: median %.1f ms, longest "
		       "%.1f ms over %d runs\n", name[m], median[m] / 1e6,
		       t[m][runs - 1] / 1e6, runs);
	}
	printf("%sok 1 - page faults under a task-clock:u sampler at the 10 us "
	       "floor: %.1f times slower (at 100 us: %.1f)\n",
	       median[1] >= 3 * median[0] ? "" : "not ",
	       (double)median[1] / (double)median[0],
	       (double)median[2] / (double)median[0]);
	return median[1] >= 3 * median[0] ? 0 : 1;
}
