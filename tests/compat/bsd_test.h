/* SPDX-License-Identifier: MIT */
/*
 * bsd_test.h - helpers the BSD compat tests share: run a program and
 * capture what it prints, and know whether this machine has a PMU.
 */
#ifndef PCTR_BSD_TEST_H
#define PCTR_BSD_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"

/* run "$env $tool $args", stdout and stderr into @out; the exit status */
static inline int
bsd_run(const char *env, const char *tool, const char *args, char *out,
	size_t len)
{
	char cmd[1024], path[] = "/tmp/pctr-bsd-test-XXXXXX";
	int fd = mkstemp(path), st;
	size_t n = 0;
	FILE *f;

	if (fd < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "env %s %s %s >%s 2>&1", env ? env : "",
		 tool, args, path);
	st = system(cmd);
	f = fdopen(fd, "r");
	if (f) {
		n = fread(out, 1, len - 1, f);
		fclose(f);
	}
	out[n] = '\0';
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline int
bsd_has_pmu(void)
{
	struct pctr_machine m = { .size = sizeof(m) };

	return pctr_machine_get(&m) == 0 && m.has_pmu;
}

/* burn about @ms milliseconds of CPU */
static inline void
bsd_spin(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 +
		       (b.tv_nsec - a.tv_nsec) / 1000000 <
	       ms);
}

/*
 * The most a task-clock counter may count in a window that started at
 * bsd_thread_cpu_ns() @since and ends now: the 15 ms these tests always
 * allowed after a short spin, or the thread's CPU time over the window
 * where that is more.  Not the thread's CPU time alone: task-clock can
 * count more than it around the interval it counted
 * (tests/repro/repro_task_clock_over_cpu_clock: by up to 5 ms on a VM).
 * Only valgrind makes the CPU time more than 15 ms: its core works in the
 * client's thread and the thread's counters count it
 * (tests/repro/repro_valgrind_own_work); a window of start, a 5 ms spin
 * and a read took 25 to 46 ms of the thread's CPU there, counted right
 * (25.59 ms in 25.94 ms).
 */
static inline long long
bsd_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline long long
bsd_count_limit(long long since)
{
	long long t = bsd_thread_cpu_ns() - since;

	return t > 15000000 ? t : 15000000;
}

#endif
