/* SPDX-License-Identifier: MIT */
/*
 * test_arch_generic - the generic port (src/arch/generic), built here on
 * whatever machine runs the tests: its "TSC" is CLOCK_MONOTONIC_RAW in
 * nanoseconds, so its frequency is 1 GHz whatever the perf mmap page says
 * (that page converts the machine's own timebase counter: taking it made
 * pctr_tsc_to_ns() wrong by the ratio of the two clocks, 100x on a
 * riscv64 whose timebase runs at 10 MHz).  This program links src/tsc.c
 * and src/os/perf_event.c compiled for the generic port (meson.build).
 */
#include <pthread.h>
#include <time.h>

#include "arch.h"
#include "cyc_ns_check.h"
#include "internal.h"
#include "test.h"

static uint64_t
raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

TEST(contract)
{
	ASSERT_EQ(PCTR_ARCH_USER_READ, 0);
	ASSERT(PCTR_ARCH_USER_ACCESS_SYSCTL == NULL);
	ASSERT_EQ(PCTR_ARCH_TSC_IS_PERF_CLOCK, 0);
	ASSERT_EQ(pctr__arch_virtualized(), -1);
	ASSERT_STR_EQ(PCTR_ARCH_NAME, "generic");
}

TEST(tsc_counts_nanoseconds)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	uint64_t n0, t0, n1, t1, ns;

	ASSERT_UEQ(pctr_tsc_hz(), 1000000000u);
	n0 = raw_ns();
	t0 = pctr_tsc();
	nanosleep(&nap, NULL);
	t1 = pctr_tsc();
	n1 = raw_ns();
	ns = pctr_tsc_to_ns(t1 - t0);
	/* the same clock read inside the other's pair of reads */
	ASSERT_LE(ns, n1 - n0);
	ASSERT_GE(ns, 20 * 1000 * 1000);
}

/* the page's conversion, the quotient and remainder way */
TEST(cyc_ns_is_the_kernels)
{
	check_cyc_ns();
}

static void *
other_self(void *arg)
{
	*(uintptr_t *)arg = pctr__arch_thread_self();
	return NULL;
}

TEST(thread_self_is_per_thread)
{
	uintptr_t self = pctr__arch_thread_self(), other = 0;
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, other_self, &other), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	ASSERT(self == (uintptr_t)pthread_self());
	ASSERT(other != 0 && other != self);
	ASSERT(pctr__arch_thread_self() == self);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(contract)
			       TEST_CASE(tsc_counts_nanoseconds)
			       TEST_CASE(cyc_ns_is_the_kernels)
			       TEST_CASE(thread_self_is_per_thread)));
}
