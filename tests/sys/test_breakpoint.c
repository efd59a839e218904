/* SPDX-License-Identifier: MIT */
/*
 * test_breakpoint - perf's "mem:ADDR[/LEN][:ACCESS]" events: hardware
 * breakpoints (the CPU's debug registers, which a VM without a PMU still
 * has), counted exactly on the calling thread.  Each write of a watched
 * variable is one count, each call of a watched function one, whatever
 * the machine's load: a breakpoint has no period and no sampling.
 *
 * Some VMs accept a breakpoint and never fire it (their debug registers are
 * not passed through: tests/repro/repro_breakpoint_silent).  Each case first
 * asks the kernel directly, with plain perf_event_open(): where a write
 * breakpoint counts 0 of its writes the library must refuse breakpoints
 * (-ENODEV) rather than report zeros, and the exact counts cannot be
 * checked there.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pctr.h>

#include "test.h"

#define N 1000

static volatile long watched, other;

__attribute__((noinline)) static void
called(void)
{
	__asm__ volatile("" ::: "memory");
}

/* writes of @var the kernel counted on a raw write breakpoint, or -1 */
static long
raw_write_breakpoint(volatile long *var, int writes)
{
	struct perf_event_attr a;
	uint64_t n = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)var;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	for (int i = 0; i < writes; i++)
		*var = i;
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		n = (uint64_t)-1;
	close(fd);
	return (long)n;
}

/* skips the case where the machine's debug registers never fire */
static void
need_working_breakpoints(void)
{
	long n = raw_write_breakpoint(&other, N);

	ASSERT(n == 0 || n == N);
	if (n == 0)
		SKIP("this machine's debug registers never fire: a raw "
		     "perf_event_open write breakpoint counted 0 of %d writes "
		     "(tests/repro/repro_breakpoint_silent)", N);
	other = 0;
}

static struct pctr_set *
open_on_self(const char *list)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_GE(pctr_set_add_list(set, list), 1);
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

TEST(writes_and_calls_counted_exactly)
{
	char list[256];
	struct pctr_sample s;
	struct pctr_set *set;

	need_working_breakpoints();
	snprintf(list, sizeof(list), "mem:%p/8:w,mem:%p:x,mem:%p/8:w",
		 (void *)&watched, (void *)called, (void *)&other);
	set = open_on_self(list);
	for (int i = 0; i < N; i++) {
		watched = i;
		if (i % 10 == 0)
			called();
	}
	(void)watched; /* a read: not a write */
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(s.count[0].value, N);
	/*
	 * valgrind runs a translation of the code, never the function's own
	 * bytes: no execution there ever hits the breakpoint (data accesses
	 * still go to the variables' own addresses)
	 */
	ASSERT_EQ(s.count[1].value, TEST_UNDER_VALGRIND() ? 0 : N / 10);
	ASSERT_EQ(s.count[2].value, 0); /* never written */
	pctr_set_free(set);
}

/* rw counts the reads too: N writes and N reads of the loop */
TEST(read_write_counts_both)
{
	char spec[64];
	struct pctr_sample s;
	struct pctr_set *set;
	long sum = 0;

	need_working_breakpoints();
	snprintf(spec, sizeof(spec), "mem:%p/8:rw", (void *)&watched);
	set = open_on_self(spec);
	for (int i = 0; i < N; i++) {
		watched = i;
		sum += watched;
	}
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(s.count[0].value, 2 * N);
	ASSERT_EQ(sum, (long)N * (N - 1) / 2);
	pctr_set_free(set);
}

/*
 * Where the kernel's own breakpoint counts nothing, the library refuses
 * with -ENODEV and says why; where it counts, the library opens and counts
 * the same writes.  Either way the library agrees with the kernel.
 */
TEST(silent_breakpoints_refused)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	long raw = raw_write_breakpoint(&other, 10);
	struct pctr_sample s;
	struct pctr_set *set;
	char spec[64];
	int r;

	printf("# a raw write breakpoint counted %ld of 10 writes\n", raw);
	ASSERT(raw == 0 || raw == 10);
	snprintf(spec, sizeof(spec), "mem:%p/8:w", (void *)&watched);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_add_list(set, spec), 1);
	r = pctr_set_open(set, &self);
	if (raw == 0) {
		ASSERT_EQ(r, -ENODEV);
		ASSERT(strstr(pctr_strerror(r), "debug registers never fire"));
		ASSERT(strstr(pctr_strerror(r), spec));
	} else {
		ASSERT_OK(r);
		ASSERT_OK(pctr_set_enable(set));
		for (int i = 0; i < 10; i++)
			watched = i;
		ASSERT_OK(pctr_set_disable(set));
		ASSERT_OK(pctr_set_read(set, &s));
		ASSERT_EQ(s.count[0].value, 10);
	}
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(writes_and_calls_counted_exactly)
			       TEST_CASE(read_write_counts_both)
			       TEST_CASE(silent_breakpoints_refused)));
}
