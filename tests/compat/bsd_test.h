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
 * The thread's CPU time: a window of it around a counter's interval
 * bounds what task-clock counts in it (it never counts more,
 * tests/repro/repro_cpu_clock_short), whatever else ran in the thread
 * (valgrind's core: tests/repro/repro_valgrind_own_work).
 */
static inline long long
bsd_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
