/* SPDX-License-Identifier: MIT */
/*
 * profile_work - the CPU-bound workload of bench/profile_overhead.sh: a
 * fixed number of iterations of integer arithmetic in user mode, spread
 * over a small call tree (main -> outer -> inner_a / inner_b) so that a
 * profiler has stacks to walk, no system call inside the timed part.
 *
 *	profile_work [ITERATIONS]
 *
 * Prints "work_ns N cpu_ns M": the wall time of the timed part and the
 * process's CPU time over it (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID),
 * so that the profiler's own start-up and report are not in N.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static uint64_t
ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static uint64_t
inner_a(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

__attribute__((noinline)) static uint64_t
inner_b(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x ^= (x << 13) ^ (x >> 7) ^ (x << 17);
	return x;
}

__attribute__((noinline)) static uint64_t
outer(uint64_t x)
{
	return inner_b(inner_a(x));
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	uint64_t w0, c0, x = 1;

	w0 = ns(CLOCK_MONOTONIC);
	c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++)
		x = outer(x);
	sink = x;
	printf("work_ns %llu cpu_ns %llu\n",
	       (unsigned long long)(ns(CLOCK_MONOTONIC) - w0),
	       (unsigned long long)(ns(CLOCK_PROCESS_CPUTIME_ID) - c0));
	return 0;
}
