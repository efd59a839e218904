/* SPDX-License-Identifier: MIT */
/*
 * test_misuse.c - calls made in the wrong order or with wrong arguments
 * get a defined error and an explanation, never undefined behaviour.
 *
 * Not tested, because they are the caller's bugs with no defined result
 * (pctr(3) says so): freeing a set twice, using a freed set, and using one
 * set from two threads at once.  Freeing NULL is fine and tested.
 */
#include <errno.h>
#include <pctr.h>

#include "test.h"

static const struct pctr_target self = { .type = PCTR_TARGET_THREAD };

#define ASSERT_FAILS(call)                                                    \
	do {                                                                  \
		int r_ = (call);                                              \
		if (r_ >= 0)                                                  \
			TEST_FAIL("%s = %d, expected an error", #call, r_);   \
		if (!*pctr_strerror(r_))                                      \
			TEST_FAIL("%s: no explanation", #call);               \
	} while (0)

static int
list_cb(const struct pctr_event_info *info, void *arg)
{
	return 1;
}

TEST(null_arguments_everywhere)
{
	struct pctr_set *set;
	struct pctr_sample s;
	struct pctr_event ev = { .size = sizeof(ev) };
	struct pctr_count c = { 5, 7, 9 };
	struct pctr_stats *st;
	struct pctr_summary sum = { .size = sizeof(sum) };
	double d;
	uint64_t u;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));

	ASSERT_FAILS(pctr_event_parse(NULL, &ev));
	ASSERT_FAILS(pctr_event_parse("cycles", NULL));
	ASSERT_FAILS(pctr_event_from_x86(0x4300c0, NULL));
	ASSERT_FAILS(pctr_event_list(NULL, NULL));
	ASSERT_FAILS(pctr_machine_get(NULL));
	ASSERT_FAILS(pctr_set_new(NULL, 0));
	ASSERT_FAILS(pctr_set_add(NULL, "cycles"));
	ASSERT_FAILS(pctr_set_add(set, NULL));
	ASSERT_FAILS(pctr_set_add_event(NULL, &ev));
	ASSERT_FAILS(pctr_set_add_event(set, NULL));
	ASSERT_FAILS(pctr_set_add_list(NULL, "cycles"));
	ASSERT_FAILS(pctr_set_add_list(set, NULL));
	ASSERT_FAILS(pctr_set_nr(NULL));
	ASSERT(pctr_set_event(NULL, 0) == NULL);
	ASSERT_FAILS(pctr_set_serialize(NULL, 0));
	ASSERT_FAILS(pctr_set_open(NULL, &self));
	ASSERT_FAILS(pctr_set_open(set, NULL));
	ASSERT_FAILS(pctr_set_open_command(NULL, (char *[]){ "true", NULL },
					   &(pid_t){ 0 }));
	ASSERT_FAILS(pctr_set_open_command(set, NULL, &(pid_t){ 0 }));
	ASSERT_FAILS(pctr_set_open_command(set, (char *[]){ NULL },
					   &(pid_t){ 0 }));
	ASSERT_FAILS(pctr_set_open_command(set, (char *[]){ "true", NULL },
					   NULL));
	ASSERT_FAILS(pctr_set_enable(NULL));
	ASSERT_FAILS(pctr_set_disable(NULL));
	ASSERT_FAILS(pctr_set_reset(NULL));
	ASSERT_FAILS(pctr_set_read(NULL, &s));
	ASSERT_FAILS(pctr_set_read(set, NULL));
	ASSERT_FAILS(pctr_set_user_read(NULL));
	ASSERT_FAILS(pctr_set_nr_instances(NULL));
	ASSERT_FAILS(pctr_set_instance_id(NULL, 0));
	ASSERT_FAILS(pctr_set_read_instance(NULL, 0, &s));
	ASSERT_FAILS(pctr_set_fd(NULL, 0));
	ASSERT_DBL_NEAR(pctr_count_scaled(NULL), 0.0, 0);
	c = pctr_count_delta(NULL, &c);
	c = pctr_count_delta(&c, NULL);
	c = pctr_count_add(NULL, &c);
	c = pctr_count_add(&c, NULL);

	ASSERT_FAILS(pctr_stats_new(NULL, 1, 0));
	ASSERT_FAILS(pctr_stats_new_for_set(NULL, set, 0));
	ASSERT_FAILS(pctr_stats_new_for_set(&st, NULL, 0));
	ASSERT_FAILS(pctr_stats_name_set(NULL, 0, "x"));
	ASSERT_FAILS(pctr_stats_cycles_set(NULL, 0));
	ASSERT_FAILS(pctr_stats_nr(NULL));
	ASSERT(pctr_stats_name(NULL, 0) == NULL);
	ASSERT_FAILS(pctr_stats_add(NULL, &s, &s));
	ASSERT_FAILS(pctr_stats_add_values(NULL, 1, NULL));
	ASSERT_FAILS(pctr_stats_merge(NULL, NULL));
	ASSERT_FAILS(pctr_stats_reset(NULL));
	ASSERT_FAILS(pctr_stats_get(NULL, 0, &sum));
	ASSERT_FAILS(pctr_stats_per_second(NULL, 0, &sum));
	ASSERT_FAILS(pctr_stats_per_cycle(NULL, 0, &sum));
	ASSERT_FAILS(pctr_stats_ratio(NULL, 0, 1, &sum));
	ASSERT_FAILS(pctr_stats_percentile(NULL, 0, 50, &d));
	ASSERT_FAILS(pctr_stats_calibrate(NULL, set, 1));
	ASSERT_FAILS(pctr_stats_overhead_set(NULL, 0, NULL));
	ASSERT_FAILS(pctr_stats_overhead(NULL, 0, &u));
	ASSERT_FAILS(pctr_stats_add_diff(NULL, set, NULL, NULL, 1));
	ASSERT_FAILS(pctr_stats_write(NULL, stdout, PCTR_REPORT_TEXT, NULL));
	pctr_stats_free(NULL);

	ASSERT_OK(pctr_stats_new(&st, 1, 0));
	ASSERT_FAILS(pctr_stats_add(st, NULL, &s));
	ASSERT_FAILS(pctr_stats_add(st, &s, NULL));
	ASSERT_FAILS(pctr_stats_get(st, 0, NULL));
	ASSERT_FAILS(pctr_stats_per_second(st, 0, NULL));
	ASSERT_FAILS(pctr_stats_percentile(st, 0, 50, NULL));
	ASSERT_FAILS(pctr_stats_overhead(st, 0, NULL));
	ASSERT_FAILS(pctr_stats_merge(st, NULL));
	ASSERT_FAILS(pctr_stats_write(st, NULL, PCTR_REPORT_TEXT, NULL));
	ASSERT_FAILS(pctr_stats_calibrate(st, NULL, 1));
	ASSERT_FAILS(pctr_stats_add_diff(st, set, NULL, NULL, 1));
	pctr_stats_free(st);

	ASSERT_FAILS(pctr_region_id(NULL));
	ASSERT_FAILS(pctr_region_stats(NULL, &st));
	ASSERT_FAILS(pctr_region_stats("x", NULL));
	ASSERT_FAILS(pctr_region_write(NULL, PCTR_REPORT_TEXT));
	ASSERT_FAILS(pctr_region_write_to(NULL));

	ASSERT_FAILS(pctr_set_overflow(NULL, 0, NULL));
	ASSERT_FAILS(pctr_set_overflow(set, 0, NULL));
	ASSERT_FAILS(pctr_overflow_decode(NULL, NULL, 1));
	ASSERT_FAILS(pctr_set_overflow_pause(NULL, 0));
	ASSERT_FAILS(pctr_set_overflow_resume(NULL, 0));
	ASSERT_FAILS(pctr_set_overflow_rearm(NULL, 0));
	ASSERT_FAILS(pctr_set_overflow_stats(NULL, 0, NULL));
	ASSERT_FAILS(pctr_set_overflow_stats(set, 0, NULL));
	ASSERT_FAILS(pctr_set_sampling(NULL, 0, NULL));
	ASSERT_FAILS(pctr_set_sampling(set, 0, NULL));
	ASSERT_FAILS(pctr_set_sampling_read(NULL, NULL, NULL));
	ASSERT_FAILS(pctr_set_sampling_wait(NULL, 0));

	ASSERT(pctr_strerror(0) != NULL);
	ASSERT(pctr_errname(0) != NULL);
	ASSERT(pctr_errname(-100000) != NULL);
	ASSERT(pctr_strerror(-100000) != NULL);
	ASSERT(pctr_strerror(100000) != NULL);
	ASSERT_EQ(pctr_event_list(list_cb, NULL), 1);
	pctr_set_free(set);
	pctr_set_free(NULL);
}

TEST(wrong_order)
{
	struct pctr_set *set;
	struct pctr_sample s;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_open(set, &self), -EINVAL); /* no events yet */
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	/* before opening */
	ASSERT_EQ(pctr_set_read(set, &s), -EBADFD);
	ASSERT_CONTAINS(pctr_strerror(-EBADFD), "pctr_set_open()");
	ASSERT_EQ(pctr_set_enable(set), -EBADFD);
	ASSERT_EQ(pctr_set_disable(set), -EBADFD);
	ASSERT_EQ(pctr_set_reset(set), -EBADFD);
	ASSERT_EQ(pctr_set_read_instance(set, 0, &s), -EBADFD);
	ASSERT_EQ(pctr_set_nr_instances(set), -EBADFD);
	ASSERT_EQ(pctr_set_instance_id(set, 0), -EBADFD);
	ASSERT_EQ(pctr_set_fd(set, 0), -EBADFD);
	ASSERT_EQ(pctr_set_sampling_read(set, NULL, NULL) < 0, 1);
	/* opened twice, events added late */
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_EQ(pctr_set_open(set, &self), -EALREADY);
	ASSERT_CONTAINS(pctr_strerror(-EALREADY), "already open");
	ASSERT_EQ(pctr_set_open_command(set, (char *[]){ "true", NULL },
					&(pid_t){ 0 }),
		  -EALREADY);
	ASSERT_EQ(pctr_set_add(set, "page-faults"), -EALREADY);
	ASSERT_EQ(pctr_set_nr(set), 1);
	/* read before enable: zero, not an error */
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_UEQ(s.count[0].value, 0);
	/* enable and disable twice are harmless */
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_GT(s.count[0].value, 0);
	pctr_set_free(set);
}

TEST(indexes_out_of_range)
{
	struct pctr_set *set;
	struct pctr_sample s;
	struct pctr_overflow ovf = { .size = sizeof(ovf), .period = 1000 };
	struct pctr_sampling smp = { .size = sizeof(smp), .period = 1000 };
	const int bad[] = { -1, 1, 2, PCTR_MAX_EVENTS, 1 << 30, -(1 << 30) };

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT(pctr_set_event(set, bad[i]) == NULL);
		ASSERT_FAILS(pctr_set_overflow(set, bad[i], &ovf));
		ASSERT_FAILS(pctr_set_sampling(set, bad[i], &smp));
	}
	ASSERT_OK(pctr_set_open(set, &self));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(pctr_set_read_instance(set, bad[i], &s), -ERANGE);
		ASSERT_EQ(pctr_set_instance_id(set, bad[i]), -ERANGE);
		ASSERT_EQ(pctr_set_fd(set, bad[i]), -ERANGE);
		ASSERT_FAILS(pctr_set_overflow_pause(set, bad[i] == -1 ? 5 : bad[i]));
		ASSERT_FAILS(pctr_set_overflow_stats(
			set, bad[i] == -1 ? 7 : bad[i],
			&(struct pctr_overflow_stats){ .size = sizeof(
							       struct pctr_overflow_stats) }));
	}
	ASSERT_CONTAINS(pctr_strerror(-ERANGE), "out of range");
	ASSERT_OK(pctr_set_read_instance(set, 0, &s));
	pctr_set_free(set);
}

TEST(bad_values)
{
	struct pctr_set *set;
	struct pctr_event ev = { .size = sizeof(ev) };
	struct pctr_stats *st;
	struct pctr_target t = { .type = PCTR_TARGET_CPU, .nr_cpus = 1,
				 .cpus = (int[]){ 100000 } };

	ASSERT_EQ(pctr_set_new(&set, ~0u), -EINVAL);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_event_parse("task-clock", &ev));
	ev.size = 3;
	ASSERT_EQ(pctr_set_add_event(set, &ev), -EINVAL);
	ev.size = sizeof(ev);
	ev.nr_parts = 0;
	ASSERT_EQ(pctr_set_add_event(set, &ev), -EINVAL);
	ev.nr_parts = PCTR_MAX_PARTS + 1;
	ASSERT_EQ(pctr_set_add_event(set, &ev), -EINVAL);
	ASSERT_EQ(pctr_set_nr(set), 0);
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_EQ(pctr_set_serialize(set, -1), -EINVAL);
	ASSERT_EQ(pctr_set_open(set, &(struct pctr_target){ .type = -1 }),
		  -EINVAL);
	ASSERT_EQ(pctr_set_open(set, &(struct pctr_target){
					     .type = PCTR_TARGET_PID, .pid = -5 }),
		  -EINVAL);
	ASSERT_EQ(pctr_set_open(set, &(struct pctr_target){
					     .type = PCTR_TARGET_CPU, .nr_cpus = -1 }),
		  -EINVAL);
	ASSERT_FAILS(pctr_set_open(set, &t));
	ASSERT_OK(pctr_set_open(set, &self));
	pctr_set_free(set);

	ASSERT_FAILS(pctr_stats_new(&st, 0, 0));
	ASSERT_FAILS(pctr_stats_new(&st, PCTR_MAX_EVENTS + 1, 0));
	ASSERT_FAILS(pctr_stats_new(&st, -1, 0));
	ASSERT_FAILS(pctr_machine_get(&(struct pctr_machine){ .size = 0 }));
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(null_arguments_everywhere)
			       TEST_CASE(wrong_order)
			       TEST_CASE(indexes_out_of_range)
			       TEST_CASE(bad_values)));
}
