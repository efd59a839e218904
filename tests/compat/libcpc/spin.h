/* SPDX-License-Identifier: MIT */
/*
 * spin.h - the libcpc tests' workload (test_libcpc, test_libcpc_ovf).
 */
#ifndef PCTR_TEST_CPC_SPIN_H
#define PCTR_TEST_CPC_SPIN_H

#include <stdint.h>
#include <time.h>

/*
 * The workload: arithmetic in user mode for @ms of this thread's CPU time.
 * The overflow tests count task-clock in user mode: the kernel drops an
 * hrtimer sample that lands in the kernel, so the loop must spend its time
 * in user mode.  It reads the thread's CPU clock (a system call, a few
 * microseconds in a VM) once per chunk of about a millisecond of
 * arithmetic.  The overflow-rate tests use spin_counted() instead, which
 * makes no system call at all (workload_makes_no_system_call).
 */
#define SPIN_CHUNK 1000000 /* multiply-adds, a dependent chain: ~1.2 ms */

static volatile uint64_t spin_sink;

static int64_t
thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void
spin_ms(int ms)
{
	int64_t end = thread_cpu_ns() + (int64_t)ms * 1000000;
	uint64_t x = spin_sink;

	do {
		for (int i = 0; i < SPIN_CHUNK; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		spin_sink = x;
	} while (thread_cpu_ns() < end);
}

#endif
