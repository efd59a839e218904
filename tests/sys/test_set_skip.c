/* SPDX-License-Identifier: MIT */
/*
 * test_set_skip.c - PCTR_SET_SKIP_UNSUPPORTED: a set opened once with the
 * events the kernel refuses left out, each keeping its index, reading 0
 * and saying why (pctr_set_skipped()); the rest of a group still one
 * kernel group (read through the leader's descriptor); the open failing
 * when nothing is left, or without the flag.  "software/config=999/" is
 * an event that parses and that every kernel refuses (no such software
 * event: ENOENT), so these run alike with or without a PMU.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pctr.h>

#include "test.h"
#include "helpers.h"

#define BOGUS "software/config=999/"

static const struct pctr_target self = { .type = PCTR_TARGET_THREAD };

static struct pctr_set *
new_set(const char *events, unsigned int flags)
{
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, flags));
	ASSERT_OK(pctr_set_add_list(set, events));
	return set;
}

/* the members of the kernel group event @idx leads (PERF_FORMAT_GROUP) */
static int
group_size(const struct pctr_set *set, int idx)
{
	uint64_t buf[64];
	int fd = pctr_set_fd(set, idx);

	ASSERT_GE(fd, 0);
	ASSERT_GT(read(fd, buf, sizeof(buf)), 0);
	return (int)buf[0];
}

static void
assert_skipped(const struct pctr_set *set, int idx, bool skipped)
{
	int err = 1;

	ASSERT_EQ(pctr_set_skipped(set, idx, &err, NULL, 0), skipped ? 1 : 0);
	if (skipped)
		ASSERT_LT(err, 0);
	else
		ASSERT_EQ(err, 0);
}

TEST(refused_event_is_left_out_and_keeps_its_index)
{
	struct pctr_set *set = new_set("page-faults," BOGUS ",task-clock",
				       PCTR_SET_SKIP_UNSUPPORTED);
	struct pctr_sample s;
	char why[256], small[8];
	int err = 0;

	ASSERT_OK(pctr_set_open(set, &self));
	assert_skipped(set, 0, false);
	assert_skipped(set, 1, true);
	assert_skipped(set, 2, false);
	ASSERT_EQ(pctr_set_skipped(set, 1, &err, why, sizeof(why)), 1);
	ASSERT_EQ(err, -ENOENT);
	/* the text of the refusal itself, not its errno's general one */
	ASSERT_CONTAINS(why, "cannot count '" BOGUS "'");
	ASSERT_EQ(pctr_set_skipped(set, 1, NULL, small, sizeof(small)), 1);
	ASSERT_EQ(strlen(small), sizeof(small) - 1);
	ASSERT_EQ(pctr_set_skipped(set, 0, NULL, why, sizeof(why)), 0);
	ASSERT_STR_EQ(why, "");
	ASSERT_EQ(pctr_set_skipped(set, 0, NULL, NULL, 4), -EINVAL);
	ASSERT_EQ(pctr_set_fd(set, 1), -ENOENT);
	ASSERT_EQ(pctr_set_nr(set), 3);
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(500);
	spin_ns(10 * 1000 * 1000);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(s.nr, 3);
	ASSERT_GE(s.count[0].value, 500);
	ASSERT_GE(s.count[2].value, 10 * 1000 * 1000);
	ASSERT_UEQ(s.count[1].value, 0);
	ASSERT_UEQ(s.count[1].enabled, 0);
	ASSERT_UEQ(s.count[1].running, 0);
	ASSERT_OK(pctr_set_read_instance(set, 0, &s));
	ASSERT_UEQ(s.count[1].value + s.count[1].enabled, 0);
	ASSERT_GE(s.count[0].value, 500);
	/* the two left form one group, as they would have with it */
	ASSERT_EQ(group_size(set, 0), 2);
	ASSERT_OK(pctr_set_free(set));
}

/*
 * A group whose leader is left out: its other members are still one
 * group, and not joined to the group before it.
 */
TEST(group_without_its_leader_stays_a_group)
{
	struct pctr_set *set = new_set("{task-clock},{" BOGUS
				       ",page-faults,context-switches}",
				       PCTR_SET_SKIP_UNSUPPORTED);

	ASSERT_OK(pctr_set_open(set, &self));
	assert_skipped(set, 1, true);
	ASSERT_EQ(group_size(set, 0), 1);
	ASSERT_EQ(group_size(set, 2), 2);
	ASSERT_OK(pctr_set_free(set));
}

TEST(without_the_flag_the_open_fails)
{
	struct pctr_set *set = new_set("task-clock," BOGUS, 0);

	ASSERT_EQ(pctr_set_open(set, &self), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "config=999");
	assert_skipped(set, 1, false);
	ASSERT_OK(pctr_set_free(set));
}

TEST(nothing_left_fails_with_the_refusal)
{
	struct pctr_set *set = new_set(BOGUS "," BOGUS,
				       PCTR_SET_SKIP_UNSUPPORTED);

	ASSERT_EQ(pctr_set_open(set, &self), -ENOENT);
	/* nothing stays marked after a failed open */
	assert_skipped(set, 0, false);
	assert_skipped(set, 1, false);
	ASSERT_EQ(pctr_set_skipped(set, 2, NULL, NULL, 0), -ERANGE);
	ASSERT_EQ(pctr_set_skipped(NULL, 0, NULL, NULL, 0), -EINVAL);
	ASSERT_OK(pctr_set_free(set));
}

/* a command's set: left out the same way, the command counted */
TEST(command_target_leaves_out_too)
{
	struct pctr_set *set = new_set(BOGUS ",task-clock",
				       PCTR_SET_SKIP_UNSUPPORTED);
	char *argv[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 2000 ]; do "
			 "i=$((i+1)); done", NULL };
	struct pctr_sample s;
	pid_t pid;
	int st;

	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_EQ(WEXITSTATUS(st), 0);
	assert_skipped(set, 0, true);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_UEQ(s.count[0].value, 0);
	ASSERT_GT(s.count[1].value, 0);
	ASSERT_OK(pctr_set_free(set));
}

/*
 * A command's set whose first event was left out: a control waits for the
 * command's exec by the events kept, not until the command has ended.
 */
TEST(command_control_does_not_wait_for_the_end)
{
	struct pctr_set *set = new_set(BOGUS ",task-clock",
				       PCTR_SET_SKIP_UNSUPPORTED);
	char *argv[] = { "sleep", "30", NULL };
	pid_t pid;
	int st;

	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	assert_skipped(set, 0, true);
	ASSERT_OK(pctr_set_disable(set));
	/* the command still runs: the disable did not wait for its end */
	ASSERT_EQ(waitpid(pid, &st, WNOHANG), 0);
	ASSERT_OK(kill(pid, SIGKILL));
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_OK(pctr_set_free(set));
}

TEST(unknown_flags_are_refused)
{
	struct pctr_set *set;

	ASSERT_EQ(pctr_set_new(&set, 0x80), -EINVAL);
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(refused_event_is_left_out_and_keeps_its_index)
		TEST_CASE(group_without_its_leader_stays_a_group)
		TEST_CASE(without_the_flag_the_open_fails)
		TEST_CASE(nothing_left_fails_with_the_refusal)
		TEST_CASE(command_target_leaves_out_too)
		TEST_CASE(command_control_does_not_wait_for_the_end)
		TEST_CASE(unknown_flags_are_refused)));
}
