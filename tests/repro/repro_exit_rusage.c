/* SPDX-License-Identifier: MIT */
/*
 * repro_exit_rusage - a process's rusage (wait4()) counts its exit, which
 * the process's own CPU clock can never show: the last value it can read
 * comes before exit_group(), and the kernel then tears the address space
 * down (exit_mmap()) on the process's time.  The teardown grows with the
 * memory mapped: a process that touched 100 MB pays several ms more.
 *
 * A child touches PAGES pages (or none), prints its CLOCK_PROCESS_CPUTIME_ID
 * and calls _exit(); the parent reaps it with wait4() and takes user +
 * system less the printed time, 7 times each way.  Passes while the big
 * child's median exceeds the small one's.  Printed: both medians and
 * ranges.  Cited by tests/tool/test_stat_flags.c (user_and_system_seconds:
 * the allowance for the helper's exit is measured, an AddressSanitizer
 * build's exit costing 3 to 6.5 ms on a VM with slow page-table updates).
 *
 * As seen: a process's rusage (wait4()) counts its exit, past the last
 * moment it can read its own CPU clock: the kernel tears the address space
 * down (exit_mmap()) on its time, more for more memory.  A child prints its
 * CLOCK_PROCESS_CPUTIME_ID and calls _exit(), 7 times with nothing touched
 * and 7 with 100 MB touched: medians 0.27 and 7.0 to 7.6 ms here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "repro.h"

#define PAGES 25600 /* 100 MB */
#define RUNS 7

/* the child's exit cost in ns, or -1 */
static double
exit_cost(long pages)
{
	struct rusage ru;
	uint64_t printed = 0;
	int fd[2], st;
	pid_t pid;

	if (pipe(fd) < 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		char *p = pages ? mmap(NULL, pages * 4096, PROT_READ |
				       PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				       -1, 0) : NULL;
		uint64_t t;

		for (long i = 0; p && p != MAP_FAILED && i < pages; i++)
			p[i * 4096] = 1;
		t = repro_ns(CLOCK_PROCESS_CPUTIME_ID);
		if (write(fd[1], &t, sizeof(t)) != sizeof(t))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &printed, sizeof(printed)) != sizeof(printed))
		printed = 0;
	close(fd[0]);
	if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) || !printed)
		return -1;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3 -
	       (double)printed;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(void)
{
	double small[RUNS], big[RUNS];

	printf("1..1\n");
	for (int i = 0; i < RUNS; i++) {
		small[i] = exit_cost(0);
		big[i] = exit_cost(PAGES);
		if (small[i] < -1e3 || big[i] < -1e3) {
			printf("not ok 1 - a child failed\n");
			return 1;
		}
	}
	qsort(small, RUNS, sizeof(double), cmp);
	qsort(big, RUNS, sizeof(double), cmp);
	printf("# rusage past the last CPU clock read: nothing touched median "
	       "%.2f ms (%.2f to %.2f), %d MB touched median %.2f ms (%.2f "
	       "to %.2f)\n",
	       small[RUNS / 2] / 1e6, small[0] / 1e6, small[RUNS - 1] / 1e6,
	       PAGES / 256, big[RUNS / 2] / 1e6, big[0] / 1e6,
	       big[RUNS - 1] / 1e6);
	printf("%s 1 - rusage counts the exit's teardown, more for more "
	       "memory\n",
	       big[RUNS / 2] > small[RUNS / 2] ? "ok" : "not ok");
	return 0;
}
