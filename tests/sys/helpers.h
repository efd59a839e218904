/* SPDX-License-Identifier: MIT */
/* helpers.h - work with a known effect on software events, for sys tests. */
#ifndef PCTR_SYS_HELPERS_H
#define PCTR_SYS_HELPERS_H

#include <dirent.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

/* Touch @pages fresh anonymous pages: at least @pages minor faults. */
/* uninstrumented: AddressSanitizer's shadow reads would fault too */
__attribute__((no_sanitize_address)) static inline void
touch_pages(size_t pages)
{
	size_t len = pages * 4096;
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	munmap((void *)p, len);
}

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static inline uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * Spin until this thread has run @ns nanoseconds on a CPU (not wall time:
 * on a busy machine the thread may wait for a CPU meanwhile).
 */
static inline void
spin_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end)
		;
}

static inline int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own fd */
}

/*
 * Mappings of this process; -1 under AddressSanitizer or valgrind, which map
 * memory as they like (and check leaks themselves).
 */
static inline int
count_maps(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return -1;
#endif
	if (TEST_UNDER_VALGRIND())
		return -1; /* valgrind maps memory of its own */
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

#endif
