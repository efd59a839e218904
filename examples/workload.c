/* SPDX-License-Identifier: MIT */
/*
 * workload - a small, deterministic program to count: it sums a vector,
 * touches fresh memory page by page, and sorts an array.
 *
 *   workload [SCALE]      SCALE (default 8) multiplies the work
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long
sum_vector(unsigned int n)
{
	unsigned long long s = 0;

	for (unsigned int i = 0; i < n; i++)
		s += (unsigned long long)i * i ^ (s >> 3);
	return s;
}

/* not instrumented by AddressSanitizer: one fault per page, as it says */
__attribute__((no_sanitize_address)) static size_t
touch_pages(size_t mib)
{
	size_t len = mib << 20, touched = 0;
	char *p = malloc(len);

	if (!p)
		return 0;
	for (size_t i = 0; i < len; i += 4096, touched++)
		p[i] = (char)i;
	free(p);
	return touched;
}

static int
cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

static unsigned int
sort_array(unsigned int n)
{
	unsigned int *a = malloc(n * sizeof(*a)), seed = 12345, mid;

	if (!a)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		a[i] = seed = seed * 1103515245u + 12345u;
	qsort(a, n, sizeof(*a), cmp);
	mid = a[n / 2];
	free(a);
	return mid;
}

int
main(int argc, char **argv)
{
	long scale = argc > 1 ? strtol(argv[1], NULL, 10) : 8;

	if (scale < 1 || scale > 10000) {
		fprintf(stderr, "workload: SCALE must be 1..10000\n");
		return 2;
	}
	printf("workload: sum %llu, %zu pages, median %u\n",
	       sum_vector((unsigned int)scale * 1000000u),
	       touch_pages((size_t)scale * 4), sort_array((unsigned)scale * 50000u));
	return 0;
}
