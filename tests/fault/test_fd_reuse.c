/* SPDX-License-Identifier: MIT */
/*
 * test_fd_reuse.c - a program that closes a set's descriptor and gets the
 * number back for something else.
 *
 * The library checks a descriptor is still its perf event before it reads,
 * stops, starts or closes it (src/set.c, pctr__ctr_check): a pipe's data
 * stays unread, an empty pipe does not block the read, the program's own
 * files and perf events stay open after pctr_set_free(), and the set's
 * other descriptors are closed all the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pctr.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

#include "test.h"
#include "../sys/helpers.h"

static const struct pctr_target self = { .type = PCTR_TARGET_THREAD };
static const struct pctr_target process = { .type = PCTR_TARGET_PROCESS };

static struct pctr_set *
open_set(const struct pctr_target *t)
{
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_add_list(set, "task-clock,page-faults"), 2);
	ASSERT_OK(pctr_set_open(set, t));
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

static int
is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* the read fails, says what happened, and the set is freed around it */
static void
read_refused(struct pctr_set *set, const char *what)
{
	struct pctr_sample s;

	ASSERT_EQ(pctr_set_read(set, &s), -EBADF);
	ASSERT_CONTAINS(pctr_strerror(-EBADF), "closed behind the library's "
					       "back");
	ASSERT_CONTAINS(pctr_strerror(-EBADF), what);
}

/* A pipe at the number the set reads: its data stays, then it stays open */
static void
pipe_in_place_of(const struct pctr_target *t)
{
	int fds = count_fds(), p[2], fd;
	struct pctr_set *set = open_set(t);
	char buf[8] = "";

	fd = pctr_set_fd(set, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(dup2(p[0], fd), fd);
	close(p[0]);
	/* empty: a read of it would block for ever */
	read_refused(set, "a pipe");
	ASSERT_EQ(write(p[1], "data", 4), 4);
	read_refused(set, "a pipe");
	ASSERT_EQ(pctr_set_reset(set), -EBADF);
	ASSERT_EQ(read(fd, buf, sizeof(buf)), 4);
	ASSERT_EQ(memcmp(buf, "data", 4), 0);
	pctr_set_free(set);
	ASSERT(is_open(fd));
	/* the set's other descriptors are gone; the pipe's two are left */
	ASSERT_EQ(count_fds(), fds + 2);
	close(fd);
	close(p[1]);
}

TEST(pipe_reusing_a_thread_sets_number)
{
	pipe_in_place_of(&self);
}

/* the process set reads through its group's reader, checks the members */
TEST(pipe_reusing_a_process_sets_number)
{
	pipe_in_place_of(&process);
}

/* eventfd shares the perf events' inode: the counter id tells them apart */
TEST(eventfd_reusing_the_number)
{
	int fds = count_fds(), fd, efd;
	struct pctr_set *set = open_set(&self);
	uint64_t v = 0;

	fd = pctr_set_fd(set, 0);
	efd = eventfd(7, 0);
	ASSERT_GE(efd, 0);
	ASSERT_EQ(dup2(efd, fd), fd);
	close(efd);
	read_refused(set, "anonymous file");
	ASSERT_EQ(pctr_set_disable(set), -EBADF);
	/* the eventfd's count was not consumed */
	ASSERT_EQ(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	ASSERT_EQ(v, 7);
	pctr_set_free(set);
	ASSERT(is_open(fd));
	ASSERT_EQ(count_fds(), fds + 1);
	close(fd);
}

/* the program's own perf event at the number: not read, stopped or closed */
TEST(another_perf_event_reusing_the_number)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK,
				     .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fds = count_fds(), fd, mine;
	struct pctr_set *set = open_set(&self);
	uint64_t before, after;

	fd = pctr_set_fd(set, 0);
	mine = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	ASSERT_GE(mine, 0);
	ASSERT_EQ(dup2(mine, fd), fd);
	close(mine);
	read_refused(set, "another perf event");
	ASSERT_EQ(pctr_set_disable(set), -EBADF);
	ASSERT_EQ(read(fd, &before, sizeof(before)), (ssize_t)sizeof(before));
	spin_ns(2000000);
	ASSERT_EQ(read(fd, &after, sizeof(after)), (ssize_t)sizeof(after));
	ASSERT_GT(after, before); /* still counting: not stopped */
	pctr_set_free(set);
	ASSERT(is_open(fd));
	ASSERT_EQ(count_fds(), fds + 1);
	close(fd);
}

/* closed and not reused: EBADF, and free closes the rest only */
TEST(closed_descriptor)
{
	int fds = count_fds(), fd;
	struct pctr_set *set = open_set(&self);

	fd = pctr_set_fd(set, 0);
	ASSERT_EQ(close(fd), 0);
	read_refused(set, "pctr_set_free() leaves that number alone");
	ASSERT_EQ(pctr_set_enable(set), -EBADF);
	pctr_set_free(set);
	ASSERT(!is_open(fd));
	ASSERT_EQ(count_fds(), fds);
}

/* a sibling's number reused: the group read of the process set sees it */
TEST(sibling_number_reused_in_a_process_set)
{
	int fds = count_fds(), p[2], fd;
	struct pctr_set *set = open_set(&process);

	fd = pctr_set_fd(set, 1);
	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(dup2(p[0], fd), fd);
	close(p[0]);
	read_refused(set, "a pipe");
	pctr_set_free(set);
	ASSERT(is_open(fd));
	ASSERT_EQ(count_fds(), fds + 2);
	close(fd);
	close(p[1]);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(pipe_reusing_a_thread_sets_number)
			       TEST_CASE(pipe_reusing_a_process_sets_number)
			       TEST_CASE(eventfd_reusing_the_number)
			       TEST_CASE(another_perf_event_reusing_the_number)
			       TEST_CASE(closed_descriptor)
			       TEST_CASE(
				       sibling_number_reused_in_a_process_set)));
}
