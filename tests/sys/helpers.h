/* SPDX-License-Identifier: MIT */
/* helpers.h - work with a known effect on software events, for sys tests. */
#ifndef PCTR_SYS_HELPERS_H
#define PCTR_SYS_HELPERS_H

#include <dirent.h>
#include <stdint.h>
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
 * on a busy machine the thread may wait for a CPU meanwhile).  It polls the
 * thread's CPU clock, a system call: most of its time is in the kernel, so
 * it is for counting CPU time, never for sampling a :u event (an overflow
 * that falls in the kernel is no sample of user mode).  spin_user_ns() is
 * the workload for those.
 */
static inline void
spin_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end)
		;
}

/*
 * User-mode work: a loop of arithmetic in its own section, so that tests
 * can check that a sampled PC falls inside it (__start_pctr_work and
 * __stop_pctr_work bound it).
 */
extern const char __start_pctr_work[], __stop_pctr_work[];
static volatile uint64_t spin_sink;

__attribute__((noinline, unused, section("pctr_work"))) static void
spin_iters(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		spin_sink = spin_sink * 31 + i;
}

/*
 * Run about @ns nanoseconds of this thread's CPU time in user mode: a
 * fixed number of iterations of spin_iters(), sized once per process (the
 * fastest of three runs of 2 ms or so, the one least disturbed by
 * interrupts), with no system call inside: test_overflow's
 * spin_helper_is_user_mode measures 99.9% or more of its time in user
 * mode.  The duration is approximate (a loaded machine makes the
 * calibration a few percent off); tests compare samples with the CPU time
 * really spent, read from task-clock or the thread's clock.
 *
 * Not a loop that polls the CPU clock: each poll is a system call, and
 * one every period or so phase-locks with task-clock's hrtimer, whose
 * overflows then keep landing in the kernel, where a :u event has no
 * sample (spin_ns() spends 91% of its time there).
 */
static inline void
spin_user_ns(uint64_t ns)
{
	static _Atomic double per_ns;
	double rate = per_ns;

	for (int i = 0; !rate && i < 3; i++) {
		uint64_t t0 = thread_cpu_ns(), t;
		double r;

		spin_iters(2000000);
		t = thread_cpu_ns() - t0;
		r = 2000000.0 / (double)(t ? t : 1);
		if (r > per_ns)
			per_ns = r;
		rate = i == 2 ? per_ns : 0;
	}
	spin_iters((uint64_t)(rate * (double)ns));
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
