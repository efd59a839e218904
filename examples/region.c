/* SPDX-License-Identifier: MIT */
/*
 * region - instrument a small multi-threaded workload with regions and
 * print the report.
 *
 *   region [THREADS [ITERATIONS [PAGES]]]      default 4 100 16
 *
 * Each thread runs ITERATIONS times: map PAGES fresh pages and touch each
 * once (region "touch": PAGES page faults each time), then add them up
 * (region "sum"); the whole loop is region "run".  Events default to
 * task-clock and page-faults; $PCTR_EVENTS chooses others without
 * recompiling.  The text report goes to standard output, unless
 * $PCTR_REPORT says where the report goes, or $PCTR_EVENTS is set (the
 * library then writes it at exit, to standard error by default).
 */
#include <errno.h>
#include <pctr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long iterations = 100, pages = 16, page_size;

/*
 * One write per page: one page fault each.  Not instrumented by
 * AddressSanitizer, whose shadow-memory reads would add faults of their own
 * (the tests check the counts exactly in sanitizer builds too).
 */
__attribute__((no_sanitize_address)) static void
touch(volatile unsigned char *p, size_t len)
{
	for (size_t off = 0; off < len; off += page_size)
		p[off] = (unsigned char)off;
}

static unsigned long
one_iteration(void)
{
	size_t len = pages * page_size;
	volatile unsigned char *p;
	unsigned long sum = 0;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	pctr_region_begin("touch");
	touch(p, len);
	pctr_region_end("touch");

	pctr_region_begin("sum");
	for (size_t off = 0; off < len; off += 64)
		sum += p[off];
	pctr_region_end("sum");
	munmap((void *)p, len);
	return sum;
}

static void *
worker(void *arg)
{
	unsigned long sum = 0;

	pctr_region_begin("run");
	for (long i = 0; i < iterations; i++)
		sum += one_iteration();
	pctr_region_end("run");
	*(unsigned long *)arg = sum;
	return NULL;
}

static long
arg(int argc, char **argv, int i, long def)
{
	char *end;
	long v;

	if (argc <= i)
		return def;
	v = strtol(argv[i], &end, 10);
	if (*end || v < 1 || v > 100000) {
		fprintf(stderr, "region: '%s': expected a number from 1 to "
				"100000\n",
			argv[i]);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	struct pctr_region_config cfg = {
		.size = sizeof(cfg),
		.events = "task-clock,page-faults",
		.keep = 1000,
		.calibrate = PCTR_REGION_CALIBRATE,
	};
	long nthreads = arg(argc, argv, 1, 4);
	pthread_t tid[256];
	unsigned long sum[256];
	int r;

	iterations = arg(argc, argv, 2, iterations);
	pages = arg(argc, argv, 3, pages);
	page_size = sysconf(_SC_PAGESIZE);
	if (nthreads > 256)
		nthreads = 256;
	r = pctr_region_init(&cfg);
	if (r < 0) {
		fprintf(stderr, "region: %s\n", pctr_strerror(r));
		return 1;
	}
	for (long t = 0; t < nthreads; t++)
		if (pthread_create(&tid[t], NULL, worker, &sum[t])) {
			fprintf(stderr, "region: cannot start a thread\n");
			return 1;
		}
	for (long t = 0; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	if (!getenv("PCTR_REPORT") && !getenv("PCTR_EVENTS"))
		r = pctr_region_write(stdout, PCTR_REPORT_TEXT);
	if (r < 0)
		fprintf(stderr, "region: %s\n", pctr_strerror(r));
	return r < 0;
}
