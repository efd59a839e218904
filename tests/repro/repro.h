/* SPDX-License-Identifier: MIT */
/*
 * repro.h - what several reproducers share: plain perf_event_open, the
 * clocks, the thread's switches, pinning.  Nothing of libpctr.
 */
#ifndef PCTR_REPRO_H
#define PCTR_REPRO_H

#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* a counter of the calling thread, counting from now, user and kernel */
static inline int
repro_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static inline uint64_t
repro_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the calling thread's context switches so far, voluntary or not */
static inline long
repro_switches(void)
{
	struct rusage r;

	getrusage(RUSAGE_THREAD, &r);
	return r.ru_nvcsw + r.ru_nivcsw;
}

static inline void
repro_pin_cpu0(void)
{
	cpu_set_t c;

	CPU_ZERO(&c);
	CPU_SET(0, &c);
	sched_setaffinity(0, sizeof(c), &c);
}

#endif
