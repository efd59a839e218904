/* SPDX-License-Identifier: MIT */
/*
 * test_set.c - sets of real kernel software events on the calling thread:
 * counts grow with work, enable/disable/reset, groups, misuse.
 */
#include <errno.h>
#include <pctr.h>

#include "test.h"
#include "helpers.h"

static struct pctr_set *
open_self(const char *events, unsigned int flags)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, flags));
	ASSERT_OK(pctr_set_add_list(set, events));
	ASSERT_OK(pctr_set_open(set, &self));
	return set;
}

TEST(counts_grow_with_work)
{
	struct pctr_set *set = open_self("page-faults,task-clock", 0);
	struct pctr_sample a, b;

	ASSERT_OK(pctr_set_enable(set));
	ASSERT_OK(pctr_set_read(set, &a));
	touch_pages(1000);
	spin_ns(20 * 1000 * 1000);
	ASSERT_OK(pctr_set_read(set, &b));
	ASSERT_EQ(b.nr, 2);
	ASSERT_GE(b.count[0].value - a.count[0].value, 1000);
	ASSERT_LT(b.count[0].value - a.count[0].value, 2000);
	/* task-clock counts nanoseconds: at least the 20 ms spun */
	ASSERT_GE(b.count[1].value - a.count[1].value, 20 * 1000 * 1000);
	/* one group, never multiplexed: running == enabled */
	ASSERT_UEQ(b.count[0].running, b.count[0].enabled);
	ASSERT_GT(b.tsc, a.tsc);
	ASSERT_EQ(b.path, PCTR_PATH_SYSCALL); /* software events have no index */
	pctr_set_free(set);
}

TEST(disabled_counts_do_not_move)
{
	struct pctr_set *set = open_self("page-faults", 0);
	struct pctr_sample a, b;

	ASSERT_OK(pctr_set_read(set, &a)); /* opened stopped */
	touch_pages(200);
	ASSERT_OK(pctr_set_read(set, &b));
	ASSERT_UEQ(b.count[0].value, 0);
	ASSERT_UEQ(b.count[0].enabled, 0);
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(200);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &a));
	ASSERT_GE(a.count[0].value, 200);
	touch_pages(200);
	ASSERT_OK(pctr_set_read(set, &b));
	ASSERT_UEQ(b.count[0].value, a.count[0].value);
	pctr_set_free(set);
}

TEST(reset_starts_from_zero)
{
	struct pctr_set *set = open_self("page-faults,task-clock", 0);
	struct pctr_sample s;

	ASSERT_OK(pctr_set_enable(set));
	touch_pages(500);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_GE(s.count[0].value, 500);
	ASSERT_OK(pctr_set_reset(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_LT(s.count[0].value, 5);
	ASSERT_LT(s.count[1].enabled, 5 * 1000 * 1000);
	touch_pages(100);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_GE(s.count[0].value, 100);
	ASSERT_LT(s.count[0].value, 150);
	pctr_set_free(set);
}

TEST(many_events_one_read)
{
	struct pctr_set *set = open_self("task-clock,cpu-clock,page-faults,"
					 "minor-faults,major-faults,"
					 "context-switches,cpu-migrations,"
					 "alignment-faults,emulation-faults",
					 0);
	struct pctr_sample s;

	ASSERT_EQ(pctr_set_nr(set), 9);
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(300);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(s.nr, 9);
	ASSERT_GE(s.count[2].value, 300);
	ASSERT_GE(s.count[3].value, 300);
	for (int i = 0; i < 9; i++)
		ASSERT_UEQ(s.count[i].running, s.count[i].enabled);
	pctr_set_free(set);
}

TEST(scaling)
{
	struct pctr_count c = { 1000, 400, 100 };

	ASSERT_DBL_NEAR(pctr_count_scaled(&c), 4000.0, 1e-9);
	c.running = 0;
	ASSERT_DBL_NEAR(pctr_count_scaled(&c), 0.0, 0);
	c.running = c.enabled;
	ASSERT_DBL_NEAR(pctr_count_scaled(&c), 1000.0, 0);
	ASSERT_DBL_NEAR(pctr_count_scaled(NULL), 0.0, 0);
	struct pctr_count a = { 10, 20, 30 }, b = { 15, 27, 39 };
	struct pctr_count d = pctr_count_delta(&b, &a);
	ASSERT_UEQ(d.value, 5);
	ASSERT_UEQ(d.enabled, 7);
	ASSERT_UEQ(d.running, 9);
	d = pctr_count_add(&b, &a);
	ASSERT_UEQ(d.value, 25);
	ASSERT_UEQ(d.enabled, 47);
	ASSERT_UEQ(d.running, 69);
	d = pctr_count_add(NULL, &a);
	ASSERT_UEQ(d.value + d.enabled + d.running, 0);
}

TEST(misuse_gives_clear_errors)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_sample s;
	struct pctr_set *set;

	ASSERT_EQ(pctr_set_new(NULL, 0), -EINVAL);
	ASSERT_EQ(pctr_set_new(&set, 0x80), -EINVAL);
	ASSERT(set == NULL);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_open(set, &self), -EINVAL); /* no events */
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "no events");
	ASSERT_EQ(pctr_set_read(set, &s), -EBADFD);
	ASSERT_CONTAINS(pctr_strerror(-EBADFD), "not open");
	ASSERT_EQ(pctr_set_enable(set), -EBADFD);
	ASSERT_EQ(pctr_set_reset(set), -EBADFD);
	ASSERT_EQ(pctr_set_add(set, "nonsense-event"), -ENOENT);
	ASSERT_EQ(pctr_set_nr(set), 0);
	/* a failing list adds nothing */
	ASSERT_EQ(pctr_set_add_list(set, "task-clock,bogus"), -ENOENT);
	ASSERT_EQ(pctr_set_nr(set), 0);
	ASSERT_EQ(pctr_set_add_list(set, " , "), -EINVAL);
	ASSERT_EQ(pctr_set_add(set, "task-clock"), 0);
	ASSERT_EQ(pctr_set_add(set, "page-faults"), 1);
	struct pctr_target bad = { .type = 99 };
	ASSERT_EQ(pctr_set_open(set, &bad), -EINVAL);
	ASSERT_EQ(pctr_set_open(set, NULL), -EINVAL);
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_EQ(pctr_set_open(set, &self), -EALREADY);
	ASSERT_EQ(pctr_set_add(set, "cpu-clock"), -EALREADY);
	ASSERT_EQ(pctr_set_read(set, NULL), -EINVAL);
	ASSERT_EQ(pctr_set_read_instance(set, 1, &s), -ERANGE);
	ASSERT_EQ(pctr_set_instance_id(set, -1), -ERANGE);
	ASSERT_EQ(pctr_set_fd(set, 2), -ERANGE);
	ASSERT_GE(pctr_set_fd(set, 1), 0);
	ASSERT(pctr_set_event(set, 2) == NULL);
	ASSERT_STR_EQ(pctr_set_event(set, 1)->name, "page-faults");
	ASSERT_EQ(pctr_set_serialize(set, 7), -EINVAL);
	ASSERT_OK(pctr_set_serialize(set, PCTR_SERIAL_RDTSCP));
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_set_free(set);
	pctr_set_free(NULL);
}

TEST(too_many_events)
{
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	for (int i = 0; i < PCTR_MAX_EVENTS; i++)
		ASSERT_EQ(pctr_set_add(set, "dummy"), i);
	ASSERT_EQ(pctr_set_add(set, "dummy"), -E2BIG);
	ASSERT_CONTAINS(pctr_strerror(-E2BIG), "at most 64");
	pctr_set_free(set);
}

TEST(hardware_event_without_pmu_is_enodev)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_machine m = { .size = sizeof(m) };
	struct pctr_sample s;
	struct pctr_set *set;

	ASSERT_OK(pctr_machine_get(&m));
	if (m.has_pmu)
		SKIP("this machine has a PMU (%s)", m.pmu[0]);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, "task-clock,instructions"));
	ASSERT_EQ(pctr_set_open(set, &self), -ENODEV);
	ASSERT_CONTAINS(pctr_strerror(-ENODEV), "'instructions'");
	ASSERT_CONTAINS(pctr_strerror(-ENODEV), "software events");
	/* nothing stays open and the set is still usable without it */
	ASSERT_EQ(pctr_set_read(set, &s), -EBADFD);
	pctr_set_free(set);
	set = open_self("task-clock", 0);
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_set_free(set);
}

TEST(tracepoint_and_msr_events)
{
	struct pctr_set *set;
	struct pctr_sample s;
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	r = pctr_set_add(set, "msr/tsc/");
	if (r == -ENOENT)
		SKIP("no msr PMU here");
	ASSERT_OK(r);
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	spin_ns(5 * 1000 * 1000);
	ASSERT_OK(pctr_set_read(set, &s));
	/* the TSC ticks at hundreds of MHz at least */
	ASSERT_GT(s.count[0].value, 500000);
	pctr_set_free(set);
}

TEST(no_user_read_flag)
{
	struct pctr_set *set = open_self("task-clock", PCTR_SET_NO_USER_READ);
	struct pctr_sample s;

	ASSERT_EQ(pctr_set_user_read(set), 0);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(s.path, PCTR_PATH_SYSCALL);
	pctr_set_free(set);
}

TEST(no_multiplex_flag_with_software_events)
{
	struct pctr_set *set = open_self("task-clock,page-faults",
					 PCTR_SET_NO_MULTIPLEX);
	struct pctr_sample s;

	ASSERT_OK(pctr_set_enable(set));
	touch_pages(10);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_GE(s.count[1].value, 10);
	pctr_set_free(set);
}

TEST(time_conversion)
{
	uint64_t hz = pctr_tsc_hz(), t0, t1, ns0, ns1;

	SKIP_UNDER_VALGRIND("(translating the clock reads takes milliseconds)");
	ASSERT_GT(hz, 1000000);
	ASSERT_LT(hz, 20000000000ull);
	ns0 = now_ns();
	t0 = pctr_tsc();
	usleep(50 * 1000);
	t1 = pctr_tsc();
	ns1 = now_ns();
	/* within 2% of the monotonic clock over 50 ms */
	ASSERT_DBL_NEAR((double)pctr_tsc_to_ns(t1 - t0), (double)(ns1 - ns0),
			(ns1 - ns0) * 0.02);
}

TEST(read_values)
{
	struct pctr_set *set = open_self("page-faults,task-clock", 0);
	struct pctr_sample s;
	uint64_t v[2], w[2];

	ASSERT_OK(pctr_set_enable(set));
	ASSERT_EQ(pctr_set_read_values(set, v), PCTR_PATH_SYSCALL);
	touch_pages(300);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(pctr_set_read_values(set, w), PCTR_PATH_SYSCALL);
	ASSERT_GE(s.count[0].value - v[0], 300);
	ASSERT_GE(w[0], s.count[0].value);
	ASSERT_LT(w[0] - s.count[0].value, 5);
	ASSERT_GT(w[1], v[1]);
	/* the reset baseline applies to the values too */
	ASSERT_OK(pctr_set_reset(set));
	ASSERT_EQ(pctr_set_read_values(set, w), PCTR_PATH_SYSCALL);
	ASSERT_LT(w[0], 5);
	ASSERT_EQ(pctr_set_read_values(set, NULL), -EINVAL);
	ASSERT_EQ(pctr_set_read_values(NULL, w), -EINVAL);
	pctr_set_free(set);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_EQ(pctr_set_read_values(set, w), -EBADFD);
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(counts_grow_with_work)
			       TEST_CASE(disabled_counts_do_not_move)
			       TEST_CASE(reset_starts_from_zero)
			       TEST_CASE(many_events_one_read)
			       TEST_CASE(scaling)
			       TEST_CASE(misuse_gives_clear_errors)
			       TEST_CASE(too_many_events)
			       TEST_CASE(hardware_event_without_pmu_is_enodev)
			       TEST_CASE(tracepoint_and_msr_events)
			       TEST_CASE(no_user_read_flag)
			       TEST_CASE(no_multiplex_flag_with_software_events)
			       TEST_CASE(time_conversion)
			       TEST_CASE(read_values)));
}
