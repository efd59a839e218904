/* SPDX-License-Identifier: MIT */
/*
 * test_privilege.c - an unprivileged user under each perf_event_paranoid
 * level gets what the kernel allows and, where it refuses, the library's
 * explanation with the fix.  Needs root to change the sysctl and to drop
 * to an unprivileged uid; restores the level afterwards.
 */
#include <errno.h>
#include <grp.h>
#include <pctr.h>

#include "test.h"

#define KNOB "/proc/sys/kernel/perf_event_paranoid"
#define NOBODY 65534

static int
get_level(void)
{
	FILE *f = fopen(KNOB, "r");
	int v = -100;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

static int
set_level(int v)
{
	FILE *f = fopen(KNOB, "w");

	if (!f)
		return -1;
	fprintf(f, "%d\n", v);
	return fclose(f);
}

/* Run @fn as uid/gid 65534 with the knob at @level; its exit status. */
static int
as_nobody(int level, void (*fn)(void))
{
	int old = get_level(), status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("changing perf_event_paranoid needs root");
	if (old == -100 || set_level(level) != 0)
		SKIP("cannot write %s", KNOB);
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(99);
		fn();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	set_level(old);
	ASSERT_EQ(get_level(), old);
	ASSERT(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void
kernel_refused_at_3(void)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock:k"));
	ASSERT_EQ(pctr_set_open(set, &self), -EACCES);
	ASSERT_CONTAINS(pctr_strerror(-EACCES),
			"kernel.perf_event_paranoid is 3");
	ASSERT_CONTAINS(pctr_strerror(-EACCES), "CAP_PERFMON");
	ASSERT_CONTAINS(pctr_strerror(-EACCES), "'task-clock:k'");
	pctr_set_free(set);
}

TEST(paranoid_3_refuses_kernel_counting_with_explanation)
{
	ASSERT_EQ(as_nobody(3, kernel_refused_at_3), 0);
}

/*
 * Level 3 (no unprivileged use at all) is a Debian kernel patch; upstream
 * kernels treat it as 2.  The arm64 guest runs Debian's kernel and checks
 * the full refusal there too.
 */
static void
user_refused_at_3(void)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock:u"));
	r = pctr_set_open(set, &self);
	pctr_set_free(set);
	if (r == 0)
		_exit(TEST_SKIP_STATUS);
	ASSERT_EQ(r, -EACCES);
	ASSERT_CONTAINS(pctr_strerror(-EACCES),
			"kernel.perf_event_paranoid is 3");
}

TEST(paranoid_3_refuses_everything_on_debian_kernels)
{
	int st = as_nobody(3, user_refused_at_3);

	if (st == TEST_SKIP_STATUS)
		SKIP("this kernel treats perf_event_paranoid=3 as 2 (no "
		     "Debian patch)");
	ASSERT_EQ(st, 0);
}

static void
user_only_at_2(void)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	struct pctr_sample s;

	/* no privilege level asked: narrowed to user mode, and named so */
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "page-faults"));
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_STR_EQ(pctr_set_event(set, 0)->name, "page-faults:u");
	ASSERT_EQ(pctr_set_event(set, 0)->attr.exclude_kernel, 1);
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_set_free(set);
	/* kernel counting asked for explicitly: refused, explained */
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "page-faults:k"));
	ASSERT_EQ(pctr_set_open(set, &self), -EACCES);
	ASSERT_CONTAINS(pctr_strerror(-EACCES),
			"kernel.perf_event_paranoid is 2");
	pctr_set_free(set);
}

TEST(paranoid_2_counts_user_mode_only)
{
	ASSERT_EQ(as_nobody(2, user_only_at_2), 0);
}

static void
other_users_process(void)
{
	struct pctr_target t = { .type = PCTR_TARGET_PID, .pid = 1 };
	struct pctr_set *set;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock:u"));
	r = pctr_set_open(set, &t);
	ASSERT(r == -EACCES || r == -EPERM);
	ASSERT_CONTAINS(pctr_strerror(r), "task 1");
	pctr_set_free(set);
}

TEST(another_users_process_is_refused)
{
	ASSERT_EQ(as_nobody(1, other_users_process), 0);
}

static void
cpu_wide_refused(void)
{
	struct pctr_target t = { .type = PCTR_TARGET_CPU };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "cpu-clock"));
	ASSERT_EQ(pctr_set_open(set, &t), -EACCES);
	ASSERT_CONTAINS(pctr_strerror(-EACCES), "CPU 0");
	ASSERT_CONTAINS(pctr_strerror(-EACCES), "perf_event_paranoid=0");
	pctr_set_free(set);
}

TEST(whole_cpu_needs_paranoid_0)
{
	ASSERT_EQ(as_nobody(1, cpu_wide_refused), 0);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(paranoid_3_refuses_kernel_counting_with_explanation)
			       TEST_CASE(paranoid_3_refuses_everything_on_debian_kernels)
			       TEST_CASE(paranoid_2_counts_user_mode_only)
			       TEST_CASE(another_users_process_is_refused)
			       TEST_CASE(whole_cpu_needs_paranoid_0)));
}
