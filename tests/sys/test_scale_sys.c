/* SPDX-License-Identifier: MIT */
/*
 * test_scale_sys - the interval of a scaled count (pctr_scale_add(),
 * pctr_scale_bounds()) fed with real reads of software events.  The kernel
 * always puts a group of software events on (they need no counter), so
 * they are never multiplexed: every count is exact and its interval is
 * the count itself, read after read.  Multiplexed counts, whose intervals
 * are numbers apart, are tested in the emulated PMU (tests/hw/test_hw_mux.c):
 * nothing on this machine multiplexes.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <pctr.h>

#include "test.h"
#include "helpers.h"

#define NR_EV 3
#define READS 20

static struct pctr_set *
software_set(void)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, "task-clock,page-faults,"
					 "context-switches"));
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

/* READS reads around work: each one accepted, the last one's bounds exact */
TEST(software_counts_are_their_own_interval)
{
	struct pctr_set *set = software_set();
	struct pctr_scale sc[NR_EV];
	struct pctr_sample s;

	memset(sc, 0, sizeof(sc));
	for (int i = 0; i < READS; i++) {
		spin_ns(1000000);
		touch_pages(16);
		ASSERT_OK(pctr_set_read(set, &s));
		for (int e = 0; e < NR_EV; e++)
			ASSERT_OK(pctr_scale_add(&sc[e], &s.count[e]));
	}
	for (int e = 0; e < NR_EV; e++) {
		const struct pctr_count *c = &sc[e].last;
		double lo, hi;

		printf("# event %d: %llu, %llu slices ran\n", e,
		       (unsigned long long)c->value,
		       (unsigned long long)sc[e].nr_ran);
		ASSERT_UEQ(c->running, c->enabled);
		/* every slice between reads ran: the thread spun in each */
		ASSERT_UEQ(sc[e].nr_ran, READS);
		ASSERT_OK(pctr_scale_bounds(&sc[e], &lo, &hi));
		ASSERT_EQ(lo, (double)c->value);
		ASSERT_EQ(hi, (double)c->value);
	}
	/* 20 x 16 fresh pages: at least 320 faults */
	ASSERT_GE(sc[1].last.value, 320);
	pctr_set_free(set);
}

/* after pctr_set_reset() the counts go back to 0: refused, nothing lost */
TEST(reads_after_a_reset_are_refused)
{
	struct pctr_set *set = software_set();
	struct pctr_scale sc, before;
	struct pctr_sample s;

	memset(&sc, 0, sizeof(sc));
	touch_pages(64);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_OK(pctr_scale_add(&sc, &s.count[1]));
	before = sc;
	ASSERT_OK(pctr_set_reset(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_LT(s.count[1].value, before.last.value);
	ASSERT_EQ(pctr_scale_add(&sc, &s.count[1]), -EINVAL);
	ASSERT(memcmp(&sc, &before, sizeof(sc)) == 0);
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(software_counts_are_their_own_interval)
			       TEST_CASE(reads_after_a_reset_are_refused)));
}
