/* SPDX-License-Identifier: MIT */
/*
 * test_cgroup - PCTR_TARGET_CGROUP: the tasks of one cgroup, counted on
 * every CPU, and no other task.  A child is moved into a cgroup made for
 * the test under the cgroup2 mount, then touches pages and spins in user
 * mode; the parent, outside, touches more pages at the same time.  Root
 * (making a cgroup, and whole-CPU counting) as the suite runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pctr.h>

#include "test.h"
#include "helpers.h"

#define CHILD_PAGES 1000
#define PARENT_PAGES 3000
#define CHILD_SPIN_NS 50000000

static char dir[256];

/* the cgroup2 mount point, from /proc/self/mountinfo (field 5, type) */
static int
cgroup2_mount(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[1024], mnt[512], type[64];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (dash && sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 &&
		    sscanf(dash + 3, "%63s", type) == 1 &&
		    !strcmp(type, "cgroup2"))
			found = snprintf(path, len, "%s", mnt) < (int)len;
	}
	fclose(f);
	return found;
}

static int
make_cgroup(void)
{
	char mnt[512];
	int fd;

	if (geteuid() != 0)
		SKIP("making a cgroup and whole-CPU counting need root");
	if (!cgroup2_mount(mnt, sizeof(mnt)))
		SKIP("no cgroup2 hierarchy is mounted here");
	snprintf(dir, sizeof(dir), "%s/pctr-test-%d", mnt, (int)getpid());
	ASSERT_OK(mkdir(dir, 0755));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT(fd >= 0);
	return fd;
}

static void
join(pid_t pid)
{
	char path[300], buf[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	ASSERT(fd >= 0);
	n = snprintf(buf, sizeof(buf), "%d", (int)pid);
	ASSERT_EQ(write(fd, buf, (size_t)n), n);
	close(fd);
}

/* the child: waits for "go", works, reports its spin's CPU time */
static void
child(int go, int done)
{
	char c;
	int64_t t;

	if (read(go, &c, 1) != 1)
		_exit(1);
	touch_pages(CHILD_PAGES);
	t = thread_cpu_ns();
	spin_user_ns(CHILD_SPIN_NS);
	t = thread_cpu_ns() - t;
	_exit(write(done, &t, sizeof(t)) == sizeof(t) ? 0 : 1);
}

/*
 * Page faults: the child's CHILD_PAGES and the few of its own start and
 * exit (a fork child's copy-on-write stack and data, tens of pages; the
 * sanitizers' and valgrind's runtimes add more), never the parent's
 * PARENT_PAGES, which would make it 4000 or more.  task-clock: at least
 * the CPU time the child measured around its spin, all of it in the
 * cgroup; more is the rest of its run and a host's steal.  task-clock
 * can run short of a thread's own clock at each context switch, by
 * microseconds and once by 101 us over two (tests/repro/
 * repro_cpu_clock_short); the child's CPU time outside the measured spin
 * (its CHILD_PAGES faults, its start and exit: 2.7 to 2.9 ms here) covers
 * that many times over.
 */
TEST(counts_the_cgroups_tasks_only)
{
	struct pctr_target t = { .type = PCTR_TARGET_CGROUP };
	int go[2], done[2], status;
	struct pctr_sample s;
	struct pctr_set *set;
	int64_t spun = 0;
	pid_t pid;

	spin_calibrate();
	t.pid = make_cgroup();
	ASSERT_OK(pipe(go));
	ASSERT_OK(pipe(done));
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0)
		child(go[0], done[1]);
	join(pid);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_add_list(set, "page-faults,task-clock"), 2);
	ASSERT_OK(pctr_set_open(set, &t));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_EQ(write(go[1], "g", 1), 1);
	touch_pages(PARENT_PAGES);
	ASSERT_EQ(read(done[0], &spun, sizeof(spun)), (ssize_t)sizeof(spun));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);
	ASSERT_OK(pctr_set_read(set, &s));
	printf("# %llu page faults, %llu ns task-clock; the child spun %lld "
	       "ns\n", (unsigned long long)s.count[0].value,
	       (unsigned long long)s.count[1].value, (long long)spun);
	ASSERT_GE(s.count[0].value, CHILD_PAGES);
	ASSERT_LT(s.count[0].value, CHILD_PAGES + PARENT_PAGES);
	ASSERT_GE(s.count[1].value, (uint64_t)spun);
	pctr_set_free(set);
	close(t.pid);
	ASSERT_OK(rmdir(dir));
}

TEST(not_a_cgroup)
{
	struct pctr_target t = { .type = PCTR_TARGET_CGROUP, .pid = -1 };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_add(set, "page-faults"), 0);
	ASSERT_EQ(pctr_set_open(set, &t), -EBADF);
	ASSERT_CONTAINS(pctr_strerror(-EBADF), "no open descriptor");
	t.pid = open("/tmp", O_RDONLY | O_DIRECTORY);
	ASSERT(t.pid >= 0);
	ASSERT_EQ(pctr_set_open(set, &t), -ENOTDIR);
	ASSERT_CONTAINS(pctr_strerror(-ENOTDIR), "not a cgroup's directory");
	close(t.pid);
	/* and the set opens on a real target afterwards */
	t.type = PCTR_TARGET_THREAD;
	ASSERT_OK(pctr_set_open(set, &t));
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(counts_the_cgroups_tasks_only)
			       TEST_CASE(not_a_cgroup)));
}
