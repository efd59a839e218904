/* SPDX-License-Identifier: MIT */
/*
 * test_breakpoint - perf's "mem:ADDR[/LEN][:ACCESS]" events: hardware
 * breakpoints (the CPU's debug registers, which a VM without a PMU still
 * has), counted exactly on the calling thread.  Each write of a watched
 * variable is one count, each call of a watched function one, whatever
 * the machine's load: a breakpoint has no period and no sampling.
 */
#include <errno.h>
#include <stdio.h>
#include <pctr.h>

#include "test.h"

#define N 1000

static volatile long watched, other;

__attribute__((noinline)) static void
called(void)
{
	__asm__ volatile("" ::: "memory");
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

int
main(void)
{
	return test_main(TESTS(TEST_CASE(writes_and_calls_counted_exactly)
			       TEST_CASE(read_write_counts_both)));
}
