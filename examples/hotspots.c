/* SPDX-License-Identifier: MIT */
/*
 * hotspots - two hot functions of known relative cost, for profilers:
 * hot_three() does three times the work of hot_one(), in the same loop,
 * so a profile must give hot_three about 75% of the samples and hot_one
 * about 25%.
 *
 *   hotspots [ROUNDS]      ROUNDS (default 200) of 1.5M + 0.5M iterations
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long long sink;

static __attribute__((noinline)) void
hot_one(unsigned long n)
{
	unsigned long long s = sink;

	for (unsigned long i = 0; i < n; i++)
		s = s * 6364136223846793005ull + i;
	sink = s;
}

static __attribute__((noinline)) void
hot_three(unsigned long n)
{
	unsigned long long s = sink;

	for (unsigned long i = 0; i < 3 * n; i++)
		s = s * 6364136223846793005ull + i;
	sink = s;
}

int
main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 200;

	for (long r = 0; r < rounds; r++) {
		hot_one(500000);
		hot_three(500000);
	}
	printf("%llu\n", sink);
	return 0;
}
