/* SPDX-License-Identifier: MIT */
/*
 * repro_preempted_interval - an interval of nothing but two read(2)s of a
 * counter, timed by the clock, lasts microseconds, unless the thread is
 * switched out inside it: then it lasts as long as the other task ran,
 * milliseconds, and one such interval dominates the mean of hundreds.
 *
 * The thread and a user-mode spinner are pinned to CPU 0, so the
 * scheduler switches between them every few milliseconds.  The thread
 * times back-to-back pairs of read(2) of a task-clock counter with
 * CLOCK_MONOTONIC, and counts its switches around each pair with
 * getrusage(RUSAGE_THREAD), until 20 pairs had a switch or 5 s passed.
 * A switch counted around a pair may have fallen just outside its timed
 * part (in getrusage() or the clock's read), so the worst switched pair is
 * compared, not the least.  Printed: the median and worst of the pairs
 * without a switch and with one, and the mean of the first 200 pairs
 * after a switched one, which takes it in (as a test's mean over 200
 * intervals would).
 *
 * Passes while the worst switched pair lasts more than 100 times the
 * median unswitched one.  Here, three runs: a median of 1.46 us, the worst
 * switched pair 12 to 20 ms, and the mean of 200 pairs with one switched
 * 22 to 102 us, 15 to 70 times the median.  Cited by
 * tests/compat/pmclib/test_pmclib.c (clean_subtracts_overhead_clamped holds the
 * median net interval to a bound, not the mean).
 */
#include <linux/perf_event.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "repro.h"

#define MAX_PAIRS 2000000
#define WANT_SWITCHED 20

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int
main(void)
{
	static uint64_t ns[MAX_PAIRS], plain[MAX_PAIRS];
	static char sw[MAX_PAIRS];
	struct perf_event_attr a;
	uint64_t end, c, worst_sw = 0, mean = 0;
	long n = 0, nplain = 0, nsw = 0, first_sw = -1;
	pid_t spin;
	int fd, ok;

	printf("1..1\n");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	repro_pin_cpu0();
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("not ok 1 - perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	spin = fork();
	if (spin == 0) {
		repro_pin_cpu0();
		for (volatile uint64_t x = 0;; x++)
			;
	}
	end = repro_ns(CLOCK_MONOTONIC) + 5000000000ull;
	while (n < MAX_PAIRS && nsw < WANT_SWITCHED &&
	       repro_ns(CLOCK_MONOTONIC) < end) {
		long s0 = repro_switches();
		uint64_t t0 = repro_ns(CLOCK_MONOTONIC), t1;

		if (read(fd, &c, 8) != 8 || read(fd, &c, 8) != 8)
			break;
		t1 = repro_ns(CLOCK_MONOTONIC);
		ns[n] = t1 - t0;
		sw[n] = repro_switches() != s0;
		if (sw[n]) {
			nsw++;
			worst_sw = ns[n] > worst_sw ? ns[n] : worst_sw;
			if (first_sw < 0 && n >= 200)
				first_sw = n;
		} else {
			plain[nplain++] = ns[n];
		}
		n++;
	}
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	if (!nplain) {
		printf("not ok 1 - no pair without a switch\n");
		return 1;
	}
	qsort(plain, (size_t)nplain, sizeof(plain[0]), cmp_u64);
	if (first_sw >= 0) {
		for (long i = first_sw - 199; i <= first_sw; i++)
			mean += ns[i];
		mean /= 200;
	}
	printf("# %ld pairs of read(2) beside a spinner on CPU 0: %ld without "
	       "a switch (median %llu ns, worst %llu ns), %ld with one (worst "
	       "%llu ns); the mean of 200 pairs ending with a switched one: "
	       "%llu ns\n",
	       n, nplain, (unsigned long long)plain[nplain / 2],
	       (unsigned long long)plain[nplain - 1], nsw,
	       (unsigned long long)worst_sw, (unsigned long long)mean);
	ok = nsw > 0 && worst_sw > 100 * plain[nplain / 2];
	printf("%s 1 - a pair the thread was switched out in lasts more than "
	       "100 times the median\n",
	       ok ? "ok" : "not ok");
	return !ok;
}
