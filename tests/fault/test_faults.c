/* SPDX-License-Identifier: MIT */
/*
 * test_faults.c - the kernel and libc saying no at each step.
 *
 * Linked with libpctr_fault.so (fault.h), which makes the Nth
 * perf_event_open, mmap, read, ioctl or allocation fail.  Each failure must
 * give the documented error and explanation, release every descriptor,
 * mapping and byte acquired so far (descriptors and mappings counted here,
 * memory by ASan or valgrind at exit), and leave the set usable: opened
 * again without the fault, it counts.
 */
#include <errno.h>
#include <pctr.h>
#include <pthread.h>
#include <sys/wait.h>

#include "test.h"
#include "../sys/helpers.h"
#include "fault.h"
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#include <linux/perf_event.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#define EVENTS "task-clock,page-faults,context-switches"

static const struct pctr_target self = { .type = PCTR_TARGET_THREAD };
static const struct pctr_target process = { .type = PCTR_TARGET_PROCESS };

static int base_fds, base_maps;

/* after the library's one-time detection, remember what is open */
static void
baseline(void)
{
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, EVENTS));
	ASSERT_OK(pctr_set_open(set, &self));
	pctr_set_free(set);
	fault_reset();
	base_fds = count_fds();
	base_maps = count_maps();
}

static void
assert_released(void)
{
	ASSERT_EQ(count_fds(), base_fds);
	/* valgrind maps memory for itself as the program runs */
	if (!RUNNING_ON_VALGRIND)
		ASSERT_EQ(count_maps(), base_maps);
}

/* the set opens without faults and counts page faults */
static void
assert_usable(struct pctr_set *set, const struct pctr_target *t)
{
	struct pctr_sample s;

	fault_reset();
	ASSERT_OK(pctr_set_open(set, t));
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(20);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(s.nr, (uint32_t)pctr_set_nr(set));
	ASSERT_GE(s.count[1].value, 20);
	ASSERT_GT(s.count[0].value, 0);
	pctr_set_free(set);
	assert_released();
}

static struct pctr_set *
new_set(unsigned int flags)
{
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, flags));
	ASSERT_EQ(pctr_set_add_list(set, EVENTS), 3);
	return set;
}

static const struct {
	int err;
	const char *says;
} open_errors[] = {
	{ EMFILE, "ulimit -n" },
	{ ENFILE, "ulimit -n" },
	{ ENOENT, "does not support it" },
	{ EACCES, "perf_event_paranoid" },
	{ EPERM, "CAP_PERFMON" },
	{ EBUSY, "in use by another user" },
	{ EINVAL, "refused it" },
	{ ENODEV, "no such device" },
	{ ENOSYS, "not available" },
	{ ESRCH, "no such process" },
};

/*
 * every errno at every perf_event_open of a set, on one or more threads:
 * per thread, the 3 counters and, for an inherited set, first a guard
 * (open_instance() in src/set.c), last the group's reader.  A guard that
 * cannot open is done without: the set opens.
 */
static void
open_fails_everywhere(const struct pctr_target *t, int nr_threads)
{
	int per = t == &process ? 5 : 3;

	for (size_t i = 0; i < sizeof(open_errors) / sizeof(open_errors[0]); i++) {
		for (int nth = 1; nth <= nr_threads * per; nth++) {
			struct pctr_set *set = new_set(0);
			int err = open_errors[i].err;

			fault_arm(FAULT_PERF_OPEN, nth, err, 1);
			if (t == &process && (nth - 1) % per == 0) {
				ASSERT_OK(pctr_set_open(set, t));
				ASSERT_EQ(fault_injected(FAULT_PERF_OPEN), 1);
				ASSERT_EQ(pctr_set_nr_instances(set),
					  nr_threads);
				fault_reset();
				pctr_set_free(set);
				assert_released();
				continue;
			}
			fault_arm(FAULT_PERF_OPEN, nth, err, -1);
			if (err == ESRCH && t == &process && nth > per) {
				/* threads that exit while the set opens */
				ASSERT_OK(pctr_set_open(set, t));
				ASSERT_EQ(pctr_set_nr_instances(set),
					  (nth - 1) / per);
				pctr_set_free(set);
				assert_released();
				continue;
			}
			ASSERT_EQ(pctr_set_open(set, t), -err);
			ASSERT_EQ(fault_injected(FAULT_PERF_OPEN) > 0, 1);
			ASSERT_CONTAINS(pctr_strerror(-err), open_errors[i].says);
			ASSERT_EQ(pctr_set_read(set, &(struct pctr_sample){ 0 }),
				  -EBADFD);
			assert_released();
			assert_usable(set, t);
		}
	}
}

TEST(perf_event_open_fails_at_each_call)
{
	baseline();
	open_fails_everywhere(&self, 1);
}

static pthread_barrier_t park;

static void *
parked(void *arg)
{
	pthread_barrier_wait(&park);
	pthread_barrier_wait(&park);
	return NULL;
}

TEST(perf_event_open_fails_on_a_later_thread)
{
	pthread_t th[3];

	baseline();
	pthread_barrier_init(&park, NULL, 4);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, parked, NULL), 0);
	pthread_barrier_wait(&park);
	base_fds = count_fds();
	base_maps = count_maps();
	/* 4 threads x (the guard, 3 events, the group's reader) */
	open_fails_everywhere(&process, 4);
	pthread_barrier_wait(&park);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
}

/*
 * A live thread of a process set whose new sibling is refused (ENODEV or
 * EINVAL: it created a thread meanwhile, tests/repro/repro_sibling_enodev.c)
 * is opened again; ESRCH for a live thread is not taken for an exit.
 */
TEST(refused_sibling_of_a_live_thread_is_opened_again)
{
	static const int errs[] = { ENODEV, EINVAL, ESRCH };

	baseline();
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct pctr_set *set = new_set(0);

		/* the second counter of the first thread, once */
		fault_arm(FAULT_PERF_OPEN, 3, errs[i], 1);
		ASSERT_OK(pctr_set_open(set, &process));
		ASSERT_EQ(fault_injected(FAULT_PERF_OPEN), 1);
		/* the guard and two counters, then the thread's 5 opens */
		ASSERT_EQ(fault_calls(FAULT_PERF_OPEN), 3 + 5);
		ASSERT_EQ(pctr_set_nr_instances(set), 1);
		fault_reset();
		pctr_set_free(set);
		assert_released();
		assert_usable(new_set(0), &process);
	}
}

TEST(interrupted_perf_event_open_is_retried)
{
	struct pctr_set *set;

	baseline();
	set = new_set(0);
	fault_arm(FAULT_PERF_OPEN, 2, EINTR, 3);
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_EQ(fault_injected(FAULT_PERF_OPEN), 3);
	pctr_set_free(set);
	assert_usable(new_set(0), &self);
}

/* perf's fallback: kernel counting refused once, user-only accepted */
TEST(paranoid_refusal_falls_back_to_user_mode)
{
	struct pctr_set *set;

	baseline();
	set = new_set(0);
	fault_arm(FAULT_PERF_OPEN, 2, EACCES, 1);
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_STR_EQ(pctr_set_event(set, 1)->name, "page-faults");
	ASSERT_HEX_EQ(pctr_set_event(set, 1)->flags &
			      (PCTR_EVENT_EXCLUDE_KERNEL |
			       PCTR_EVENT_USER_FALLBACK),
		      PCTR_EVENT_EXCLUDE_KERNEL | PCTR_EVENT_USER_FALLBACK);
	ASSERT_HEX_EQ(pctr_set_event(set, 0)->flags &
			      (PCTR_EVENT_EXCLUDE_KERNEL |
			       PCTR_EVENT_USER_FALLBACK),
		      0);
	pctr_set_free(set);
	assert_released();
}

/* EINVAL for a sibling once: a new group, unless multiplexing is refused */
TEST(full_group_starts_another_or_fails_with_ebusy)
{
	struct pctr_set *set;
	struct pctr_sample s;

	baseline();
	set = new_set(0);
	fault_arm(FAULT_PERF_OPEN, 3, EINVAL, 1);
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(20);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_GE(s.count[1].value, 20);
	ASSERT_GT(s.count[2].enabled, 0);
	pctr_set_free(set);
	assert_released();

	set = new_set(PCTR_SET_NO_MULTIPLEX);
	fault_arm(FAULT_PERF_OPEN, 3, EINVAL, 1);
	ASSERT_EQ(pctr_set_open(set, &self), -EBUSY);
	ASSERT_CONTAINS(pctr_strerror(-EBUSY), "does not fit");
	assert_released();
	assert_usable(set, &self);
}

/*
 * Only hardware counters are mapped for user-space reads, and this machine
 * may have none: software events marked as hardware take the same path
 * (the kernel maps their pages, whose index is always 0).
 */
static struct pctr_set *
new_mapped_set(void)
{
	static const char *const names[] = { "task-clock", "page-faults",
					     "context-switches" };
	struct pctr_set *set;
	struct pctr_event ev = { .size = sizeof(ev) };

	ASSERT_OK(pctr_set_new(&set, 0));
	for (int i = 0; i < 3; i++) {
		ASSERT_OK(pctr_event_parse(names[i], &ev));
		ev.hardware = 1;
		ASSERT_EQ(pctr_set_add_event(set, &ev), i);
	}
	return set;
}

TEST(mmap_failure_falls_back_to_read)
{
	struct pctr_set *set;

	baseline();
	set = new_mapped_set();
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_EQ(pctr_set_user_read(set), 1); /* offered: pages mapped */
	pctr_set_free(set);
	for (int nth = 1; nth <= 3; nth++) {
		set = new_mapped_set();
		fault_arm(FAULT_MMAP, nth, ENOMEM, 1);
		ASSERT_OK(pctr_set_open(set, &self));
		ASSERT_EQ(fault_injected(FAULT_MMAP), 1);
		ASSERT_EQ(pctr_set_user_read(set), 0);
		pctr_set_free(set);
		assert_released();
		assert_usable(new_set(0), &self);
	}
}

TEST(ioctl_failures)
{
	struct pctr_set *set;

	baseline();
	/* the first ioctl stops the new group, the next three get its ids */
	for (int nth = 1; nth <= 4; nth++) {
		set = new_set(0);
		fault_arm(FAULT_IOCTL, nth, EIO, 1);
		ASSERT_EQ(pctr_set_open(set, &self), -EIO);
		ASSERT_CONTAINS(pctr_strerror(-EIO),
				nth == 1 ? "cannot stop a new counter group"
					 : "counter's id");
		assert_released();
		assert_usable(set, &self);
	}
	set = new_set(0);
	ASSERT_OK(pctr_set_open(set, &self));
	/* the first checks the leader's descriptor is still ours */
	fault_arm(FAULT_IOCTL, 1, EIO, 1);
	ASSERT_EQ(pctr_set_enable(set), -EIO);
	ASSERT_CONTAINS(pctr_strerror(-EIO), "cannot check counter descriptor");
	fault_arm(FAULT_IOCTL, 2, EIO, 1);
	ASSERT_EQ(pctr_set_enable(set), -EIO);
	ASSERT_CONTAINS(pctr_strerror(-EIO), "cannot enable");
	ASSERT_EQ(pctr_set_disable(set), 0);
	ASSERT_OK(pctr_set_enable(set));
	pctr_set_free(set);
	assert_released();
}

TEST(read_failures)
{
	struct pctr_set *set = new_set(PCTR_SET_NO_USER_READ);
	struct pctr_sample s, t;

	baseline();
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(10);

	/* interrupted: retried, and the counts are right */
	fault_arm(FAULT_READ, 1, EINTR, 5);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(fault_injected(FAULT_READ), 5);
	ASSERT_GE(s.count[1].value, 10);

	fault_arm(FAULT_READ, 1, FAULT_SHORT, 1);
	ASSERT_EQ(pctr_set_read(set, &t), -EIO);
	ASSERT_CONTAINS(pctr_strerror(-EIO), "short or malformed");

	fault_arm(FAULT_READ, 1, FAULT_ZERO, 1);
	ASSERT_EQ(pctr_set_read(set, &t), -EBUSY);
	ASSERT_CONTAINS(pctr_strerror(-EBUSY), "pinned group");

	fault_arm(FAULT_READ, 1, EIO, 1);
	ASSERT_EQ(pctr_set_read(set, &t), -EIO);
	ASSERT_CONTAINS(pctr_strerror(-EIO), "read of a counter group failed");

	/* and the set still reads, counts still growing */
	fault_reset();
	touch_pages(10);
	ASSERT_OK(pctr_set_read(set, &t));
	ASSERT_GE(t.count[1].value, s.count[1].value + 10);
	pctr_set_free(set);
	assert_released();
}

static void
assert_same(const struct pctr_sample *a, const struct pctr_sample *b)
{
	ASSERT_EQ(a->nr, b->nr);
	for (uint32_t e = 0; e < a->nr; e++) {
		ASSERT_EQ(a->count[e].value, b->count[e].value);
		ASSERT_EQ(a->count[e].enabled, b->count[e].enabled);
		ASSERT_EQ(a->count[e].running, b->count[e].running);
	}
}

static void
assert_between(const struct pctr_sample *a, const struct pctr_sample *b,
	       const struct pctr_sample *c)
{
	for (uint32_t e = 0; e < a->nr; e++) {
		ASSERT_GE(b->count[e].value, a->count[e].value);
		ASSERT_LE(b->count[e].value, c->count[e].value);
		ASSERT_GE(b->count[e].enabled, a->count[e].enabled);
		ASSERT_LE(b->count[e].enabled, c->count[e].enabled);
	}
}

/*
 * An inherited group read failing with ECHILD (a thread taking its copy
 * apart on exit, tests/repro/repro_group_read_echild.c) is tried three
 * times, then read counter by counter: the same counts as the group read.
 */
TEST(inherited_group_read_echild_falls_back)
{
	struct pctr_set *set = new_set(0);
	struct pctr_sample a, b, c;

	baseline();
	ASSERT_OK(pctr_set_open(set, &process));
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(50);
	ASSERT_OK(pctr_set_disable(set)); /* counts and times stand still */
	ASSERT_OK(pctr_set_read(set, &a));
	ASSERT_GE(a.count[1].value, 50);

	/* twice: the third group read works */
	fault_arm(FAULT_READ, 1, ECHILD, 2);
	ASSERT_OK(pctr_set_read(set, &b));
	ASSERT_EQ(fault_calls(FAULT_READ), 3);
	assert_same(&a, &b);

	/* three times: then the three counters one by one */
	fault_arm(FAULT_READ, 1, ECHILD, 3);
	ASSERT_OK(pctr_set_read(set, &b));
	ASSERT_EQ(fault_injected(FAULT_READ), 3);
	ASSERT_EQ(fault_calls(FAULT_READ), 3 + 3);
	assert_same(&a, &b);

	/* after a reset, the baseline comes off the same way */
	fault_reset();
	ASSERT_OK(pctr_set_reset(set));
	ASSERT_OK(pctr_set_read(set, &a));
	fault_arm(FAULT_READ, 1, ECHILD, 3);
	ASSERT_OK(pctr_set_read(set, &b));
	ASSERT_EQ(fault_calls(FAULT_READ), 6);
	assert_same(&a, &b);

	/* counting: between the group reads before and after */
	fault_reset();
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(20);
	ASSERT_OK(pctr_set_read(set, &a));
	touch_pages(20);
	fault_arm(FAULT_READ, 1, ECHILD, 3);
	ASSERT_OK(pctr_set_read(set, &b));
	ASSERT_EQ(fault_calls(FAULT_READ), 6);
	fault_reset();
	touch_pages(20);
	ASSERT_OK(pctr_set_read(set, &c));
	assert_between(&a, &b, &c);
	ASSERT_GE(b.count[1].value, a.count[1].value + 20);
	ASSERT_GE(c.count[1].value, b.count[1].value + 20);

	/* a read that fails counter by counter too is an error, explained */
	fault_arm(FAULT_READ, 1, ECHILD, -1);
	ASSERT_EQ(pctr_set_read(set, &b), -ECHILD);
	ASSERT_CONTAINS(pctr_strerror(-ECHILD), "read of a counter failed");
	fault_reset();
	pctr_set_free(set);
	assert_released();
}

/* A thread's set is not inherited: one group read, ECHILD is an error. */
TEST(thread_group_read_is_not_retried)
{
	struct pctr_set *set = new_set(PCTR_SET_NO_USER_READ);
	struct pctr_sample s;

	baseline();
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	fault_arm(FAULT_READ, 1, ECHILD, 1);
	ASSERT_EQ(pctr_set_read(set, &s), -ECHILD);
	ASSERT_EQ(fault_calls(FAULT_READ), 1);
	ASSERT_CONTAINS(pctr_strerror(-ECHILD),
			"read of a counter group failed");
	fault_reset();
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_set_free(set);
	assert_released();
}

/* a reset that cannot read keeps the previous baseline */
TEST(failed_reset_keeps_the_baseline)
{
	struct pctr_set *set = new_set(PCTR_SET_NO_USER_READ);
	struct pctr_sample s;

	baseline();
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(1000);
	ASSERT_OK(pctr_set_reset(set));
	touch_pages(10);
	fault_arm(FAULT_READ, 1, EIO, 1);
	ASSERT_EQ(pctr_set_reset(set), -EIO);
	fault_reset();
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_GE(s.count[1].value, 10);
	ASSERT_LT(s.count[1].value, 500);
	pctr_set_free(set);
}

static void
alloc_fails_everywhere(const struct pctr_target *t)
{
	int nth, r;

	for (nth = 1;; nth++) {
		struct pctr_set *set = new_set(0);

		fault_arm(FAULT_ALLOC, nth, ENOMEM, 1);
		r = pctr_set_open(set, t);
		fault_arm(FAULT_ALLOC, 0, 0, 0);
		if (r == 0 && fault_calls(FAULT_ALLOC) < nth) {
			pctr_set_free(set);
			break;
		}
		if (r < 0) {
			if (r != -ENOMEM)
				TEST_FAIL("allocation %d failed: %d (%s)", nth,
					  r, pctr_strerror(r));
			assert_released();
		}
		pctr_set_free(set);
		assert_released();
	}
	ASSERT_GT(nth, 1);
	printf("# %d allocations in pctr_set_open\n", nth - 1);
}

TEST(out_of_memory)
{
	struct pctr_set *set = (void *)1;

	if (!fault_alloc_works())
		SKIP("malloc is the sanitizer's or valgrind's in this run");
	baseline();
	fault_arm(FAULT_ALLOC, 1, ENOMEM, 1);
	ASSERT_EQ(pctr_set_new(&set, 0), -ENOMEM);
	fault_reset();
	ASSERT(set == NULL);
	ASSERT_CONTAINS(pctr_strerror(-ENOMEM), "out of memory");
	alloc_fails_everywhere(&self);
	alloc_fails_everywhere(&process);
	assert_usable(new_set(0), &process);
}

/* the child is reaped whatever fails; no zombie, no descriptor left */
TEST(command_start_failures)
{
	char *argv[] = { "true", NULL };
	pid_t pid;

	baseline();
	/* 3 counters and the group's reader */
	for (int nth = 1; nth <= 4; nth++) {
		struct pctr_set *set = new_set(0);

		fault_arm(FAULT_PERF_OPEN, nth, EMFILE, -1);
		ASSERT_EQ(pctr_set_open_command(set, argv, &pid), -EMFILE);
		fault_reset();
		ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
		ASSERT_EQ(errno, ECHILD);
		assert_released();
		ASSERT_OK(pctr_set_open_command(set, argv, &pid));
		ASSERT_EQ(waitpid(pid, NULL, 0), pid);
		pctr_set_free(set);
		assert_released();
	}
}

/*
 * An allocation that fails while a command's two sets are opened, at each
 * allocation in turn: -ENOMEM, the child reaped, and neither set left
 * open.  Once a failed allocation before the second set's open returned
 * at once and left the first set's counters open.
 */
TEST(command_sets_out_of_memory)
{
	char *argv[] = { "true", NULL };
	pid_t pid;
	int nth, r;

	if (!fault_alloc_works())
		SKIP("malloc is the sanitizer's or valgrind's in this run");
	baseline();
	for (nth = 1;; nth++) {
		struct pctr_set *sets[2] = { new_set(0), new_set(0) };

		fault_arm(FAULT_ALLOC, nth, ENOMEM, 1);
		r = pctr_set_open_command_sets(sets, 2, argv, &pid);
		fault_arm(FAULT_ALLOC, 0, 0, 0);
		if (r == 0)
			ASSERT_EQ(waitpid(pid, NULL, 0), pid);
		if (r == 0 && fault_calls(FAULT_ALLOC) < nth) {
			pctr_set_free(sets[0]);
			pctr_set_free(sets[1]);
			break;
		}
		if (r < 0) {
			if (r != -ENOMEM)
				TEST_FAIL("allocation %d failed: %d (%s)", nth,
					  r, pctr_strerror(r));
			ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
			assert_released();
		}
		pctr_set_free(sets[0]);
		pctr_set_free(sets[1]);
		assert_released();
	}
	ASSERT_GT(nth, 1);
	printf("# %d allocations in pctr_set_open_command_sets\n", nth - 1);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(perf_event_open_fails_at_each_call)
			       TEST_CASE(perf_event_open_fails_on_a_later_thread)
			       TEST_CASE(
				       refused_sibling_of_a_live_thread_is_opened_again)
			       TEST_CASE(interrupted_perf_event_open_is_retried)
			       TEST_CASE(paranoid_refusal_falls_back_to_user_mode)
			       TEST_CASE(full_group_starts_another_or_fails_with_ebusy)
			       TEST_CASE(mmap_failure_falls_back_to_read)
			       TEST_CASE(ioctl_failures)
			       TEST_CASE(read_failures)
			       TEST_CASE(inherited_group_read_echild_falls_back)
			       TEST_CASE(thread_group_read_is_not_retried)
			       TEST_CASE(failed_reset_keeps_the_baseline)
			       TEST_CASE(out_of_memory)
			       TEST_CASE(command_start_failures)
			       TEST_CASE(command_sets_out_of_memory)));
}
