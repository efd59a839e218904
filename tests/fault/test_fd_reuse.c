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
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* ---- overflow and sampling sets ---------------------------------------- */

static void
no_note(const struct pctr_overflow_info *info, void *arg)
{
	(void)info;
	(void)arg;
}

/* task-clock notified every ms (or once, @flags PCTR_OVF_ONESHOT) */
static struct pctr_set *
open_overflow(int target, unsigned int flags)
{
	struct pctr_overflow o = { .size = sizeof(o), .period = 1000000,
				   .flags = flags, .fn = no_note };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_OK(pctr_set_overflow(set, 0, &o));
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){ target }));
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

static struct pctr_set *
open_sampling(int target)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = 1000000,
				     .pages = 1 };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){ target }));
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

/* the highest-numbered perf descriptor: ring.c opens carriers last */
static int
last_perf_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[64];
	int max = -1;

	while ((e = readdir(d))) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (strstr(link, "perf_event") && atoi(e->d_name) > max)
			max = atoi(e->d_name);
	}
	closedir(d);
	return max;
}

/* a pipe with O_NONBLOCK at @fd: its read end; *@wr its write end */
static void
nonblocking_pipe_at(int fd, int *wr)
{
	int p[2];

	ASSERT_EQ(pipe2(p, O_NONBLOCK), 0);
	ASSERT_EQ(dup2(p[0], fd), fd);
	close(p[0]);
	*wr = p[1];
}

/* freeing leaves the pipe at a notified counter's number as it was */
static void
free_keeps_pipe_flags(int target)
{
	struct pctr_set *set = open_overflow(target, 0);
	int fd = pctr_set_fd(set, 0), wr, fl;

	nonblocking_pipe_at(fd, &wr);
	fl = fcntl(fd, F_GETFL);
	ASSERT(fl & O_NONBLOCK);
	pctr_set_free(set);
	ASSERT(is_open(fd));
	if (fcntl(fd, F_GETFL) != fl)
		TEST_FAIL("free changed the pipe's flags from %#x to %#x",
			  fl, fcntl(fd, F_GETFL));
	close(fd);
	close(wr);
}

TEST(overflow_free_keeps_a_pipes_flags)
{
	free_keeps_pipe_flags(PCTR_TARGET_THREAD);
}

TEST(process_overflow_free_keeps_a_pipes_flags)
{
	free_keeps_pipe_flags(PCTR_TARGET_PROCESS);
}

/* a file at a ring carrier's number stays open, and the file it was */
static void
free_keeps_file_at_carrier(struct pctr_set *set)
{
	char name[] = "/tmp/pctr-fd-reuse-XXXXXX";
	int fd = last_perf_fd(), f = mkstemp(name);
	struct stat before, after;

	ASSERT_GE(fd, 0);
	ASSERT_GE(f, 0);
	unlink(name);
	ASSERT_EQ(dup2(f, fd), fd);
	close(f);
	ASSERT_OK(fstat(fd, &before));
	pctr_set_free(set);
	if (!is_open(fd))
		TEST_FAIL("free closed the file at the carrier's number %d",
			  fd);
	ASSERT_OK(fstat(fd, &after));
	ASSERT_EQ(after.st_ino, before.st_ino);
	close(fd);
}

TEST(sampling_free_keeps_a_file_at_a_carriers_number)
{
	free_keeps_file_at_carrier(open_sampling(PCTR_TARGET_PROCESS));
}

TEST(overflow_free_keeps_a_file_at_a_carriers_number)
{
	free_keeps_file_at_carrier(open_overflow(PCTR_TARGET_PROCESS, 0));
}

/* the program's own counter: task-clock of this thread, counting */
static int
my_counter(uint64_t period, bool disabled)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK,
				     .sample_period = period,
				     .disabled = disabled,
				     .read_format =
					     PERF_FORMAT_TOTAL_TIME_ENABLED,
				     .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	ASSERT_GE(fd, 0);
	return fd;
}

/* { value, time_enabled } of the program's counter */
static void
my_read(int fd, uint64_t v[2])
{
	ASSERT_EQ(read(fd, v, 2 * sizeof(v[0])), (ssize_t)(2 * sizeof(v[0])));
}

/* put @mine at @fd */
static void
move_to(int mine, int fd)
{
	ASSERT_EQ(dup2(mine, fd), fd);
	close(mine);
}

/* the restart neither stops nor zeroes the program's counter */
TEST(restart_leaves_the_programs_counter_alone)
{
	struct pctr_set *set = open_overflow(PCTR_TARGET_THREAD, 0);
	int fd = pctr_set_fd(set, 0);
	uint64_t a[2], b[2], c[2];

	move_to(my_counter(0, false), fd);
	spin_ns(3000000);
	my_read(fd, a);
	ASSERT_EQ(pctr_set_overflow_restart(set, NULL, 0), -EBADF);
	my_read(fd, b);
	spin_ns(3000000);
	my_read(fd, c);
	printf("# the program's count %llu, after the restart %llu, then "
	       "%llu\n", (unsigned long long)a[0], (unsigned long long)b[0],
	       (unsigned long long)c[0]);
	if (b[0] < a[0])
		TEST_FAIL("the restart reset the program's counter");
	if (c[0] < b[0] + 1000000)
		TEST_FAIL("the restart stopped the program's counter");
	ASSERT_EQ(pctr_set_overflow_restart(set, NULL, PCTR_OVF_STOP),
		  -EBADF);
	my_read(fd, a);
	spin_ns(2000000);
	my_read(fd, b);
	ASSERT_GE(b[0], a[0] + 1000000);
	pctr_set_free(set);
	ASSERT(is_open(fd));
	close(fd);
}

/* the rearm does not enable the program's stopped sampling counter */
TEST(rearm_leaves_the_programs_counter_alone)
{
	struct pctr_set *set = open_overflow(PCTR_TARGET_THREAD,
					     PCTR_OVF_ONESHOT);
	int fd = pctr_set_fd(set, 0);
	uint64_t v[2];

	move_to(my_counter(1000000, true), fd);
	ASSERT_EQ(pctr_set_overflow_rearm(set, -1), -EBADF);
	spin_ns(2000000);
	my_read(fd, v);
	printf("# the program's stopped counter: %llu, enabled %llu ns\n",
	       (unsigned long long)v[0], (unsigned long long)v[1]);
	if (v[1] != 0)
		TEST_FAIL("the rearm enabled the program's counter");
	pctr_set_free(set);
	ASSERT(is_open(fd));
	close(fd);
}

/* the pause does not stop the program's own ring from filling */
TEST(pause_leaves_the_programs_ring_alone)
{
	struct pctr_set *set = open_overflow(PCTR_TARGET_THREAD, 0);
	long page = sysconf(_SC_PAGESIZE);
	int fd = pctr_set_fd(set, 0), mine = my_counter(100000, false);
	struct perf_event_mmap_page *pc;
	uint64_t head;

	pc = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_SHARED, mine,
		  0);
	ASSERT(pc != MAP_FAILED);
	move_to(mine, fd);
	ASSERT_EQ(pctr_set_overflow_pause(set, -1), -EBADF);
	ASSERT_CONTAINS(pctr_strerror(-EBADF), "another perf event");
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	/*
	 * User-mode work: the program's counter is task-clock:u, and
	 * spin_ns() polls the CPU clock, a system call, where its expiries
	 * land and are dropped (helpers.h): at a loaded suite's side no
	 * sample came in its 3 ms, once in 8 runs.
	 */
	spin_user_ns(3000000);
	if (__atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE) == head)
		TEST_FAIL("the pause stopped the program's samples");
	ASSERT_EQ(pctr_set_overflow_resume(set, -1), -EBADF);
	pctr_set_free(set);
	ASSERT(is_open(fd));
	munmap(pc, 3 * page);
	close(fd);
}

/* the wait does not take the program's readable pipe for samples */
TEST(sampling_wait_refuses_a_pipe_at_the_counters_number)
{
	struct pctr_set *set = open_sampling(PCTR_TARGET_THREAD);
	int fd = pctr_set_fd(set, 0), wr;
	char c;

	nonblocking_pipe_at(fd, &wr);
	ASSERT_EQ(write(wr, "x", 1), 1);
	ASSERT_EQ(pctr_set_sampling_wait(set, 0), -EBADF);
	ASSERT_CONTAINS(pctr_strerror(-EBADF), "a pipe");
	ASSERT_EQ(read(fd, &c, 1), 1);
	pctr_set_free(set);
	ASSERT(is_open(fd));
	close(fd);
	close(wr);
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
				       sibling_number_reused_in_a_process_set)
			       TEST_CASE(overflow_free_keeps_a_pipes_flags)
			       TEST_CASE(
				       process_overflow_free_keeps_a_pipes_flags)
			       TEST_CASE(
				       sampling_free_keeps_a_file_at_a_carriers_number)
			       TEST_CASE(
				       overflow_free_keeps_a_file_at_a_carriers_number)
			       TEST_CASE(
				       restart_leaves_the_programs_counter_alone)
			       TEST_CASE(rearm_leaves_the_programs_counter_alone)
			       TEST_CASE(pause_leaves_the_programs_ring_alone)
			       TEST_CASE(
				       sampling_wait_refuses_a_pipe_at_the_counters_number)));
}
