/* SPDX-License-Identifier: MIT */
/*
 * test_command.c - a command started by the library is counted from its
 * exec, with its threads and children; a command that cannot run says so
 * and leaves no child behind.
 */
#include <errno.h>
#include <pctr.h>

#include "test.h"
#include "helpers.h"
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>

static struct pctr_set *
new_set(const char *events)
{
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, events));
	return set;
}

static uint64_t
count_command(char *const argv[], int *status)
{
	struct pctr_set *set = new_set("page-faults");
	struct pctr_sample s;
	pid_t pid;

	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	ASSERT_EQ(waitpid(pid, status, 0), pid);
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_set_free(set);
	return s.count[0].value;
}

/*
 * The difference between a shell touching 4000 pages more and one that
 * does not is the 4000 pages: what happens before exec is not counted
 * (the library's own work and fork would add to both).
 */
TEST(counts_from_exec)
{
	char *small[] = { "sh", "-c", "exit 3", NULL };
	char *big[] = { "sh", "-c",
			"head -c 16384000 /dev/zero | tr '\\0' x >/dev/null; "
			"exit 4",
			NULL };
	int status;
	uint64_t a = count_command(small, &status);

	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 3);
	uint64_t b = count_command(big, &status);
	ASSERT_EQ(WEXITSTATUS(status), 4);
	/* sh alone takes some tens of faults, a pipeline many more */
	ASSERT_GT(a, 10);
	ASSERT_GT(b, a);
}

TEST(children_of_the_command_are_counted)
{
	struct pctr_set *set = new_set("task-clock,page-faults");
	char self[64];
	char *argv[] = { "sh", "-c", "sh -c 'i=0; while [ $i -lt 20000 ]; do "
				     "i=$((i+1)); done'",
			 NULL };
	struct pctr_sample s;
	pid_t pid;
	int status;

	(void)self;
	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_OK(pctr_set_read(set, &s));
	/* the inner shell's loop takes milliseconds of CPU */
	ASSERT_GT(s.count[0].value, 1000000);
	pctr_set_free(set);
}

/*
 * PCTR_SET_NO_INHERIT (perf stat -i): the command's own thread only, not
 * the children it starts.  The inner shell's loop takes tens of ms of CPU
 * (an inherited set's count), the outer shell's start and wait one or two.
 */
TEST(no_inherit_counts_the_command_alone)
{
	char *argv[] = { "sh", "-c", "sh -c 'i=0; while [ $i -lt 100000 ]; do "
				     "i=$((i+1)); done'",
			 NULL };
	uint64_t v[2];

	for (int k = 0; k < 2; k++) {
		struct pctr_set *set;
		struct pctr_sample s;
		pid_t pid;
		int status;

		ASSERT_OK(pctr_set_new(&set, k ? PCTR_SET_NO_INHERIT : 0));
		ASSERT_OK(pctr_set_add_list(set, "task-clock"));
		ASSERT_OK(pctr_set_open_command(set, argv, &pid));
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_OK(pctr_set_read(set, &s));
		v[k] = s.count[0].value;
		pctr_set_free(set);
	}
	printf("# task-clock: %.3f ms inherited, %.3f ms the command alone\n",
	       v[0] / 1e6, v[1] / 1e6);
	ASSERT_GT(v[0], 20000000);
	ASSERT_GT(v[1], 0);
	ASSERT_LT(v[1], v[0] / 4);
}

/* the library's child, between its fork and its exec: below the caller */
static void
child_below_caller(void)
{
	struct sched_param low = { .sched_priority = 1 };

	if (sched_setscheduler(0, SCHED_FIFO, &low) < 0)
		_exit(125);
}

/*
 * Nothing of the caller's is counted in the command: the caller is not
 * woken while the command counts.  The worst case for it: both on one CPU,
 * the caller at a higher real-time priority than the command (so a wake of
 * the caller switches the command out at once, and nothing else can).
 * Counting starts at the exec; a caller woken by the exec (a pipe it
 * sleeps on, closed there) was switched in before the command's first
 * instruction, every run, and that switch was counted in the command's
 * context-switches and kernel mode.  The command's exit wakes the caller
 * too, after its counters have stopped.
 *
 * The command may also sleep on its own: it reads its file when that is
 * not in the page cache (these machines page cold pages out themselves:
 * DAMON's pageout, kdamond).  Recorded with sched:sched_switch, such a
 * switch is true's, in state D, to the idle task.  So each switch counted
 * must be one of the command's own sleeps, and the command must never
 * have been switched out while it could run, which only the caller could
 * do: the kernel's counts of the command's voluntary and involuntary
 * switches (/proc/PID/status, read when the call returns, the command
 * still before its exec and below the caller, and at its exit, not yet
 * reaped) judge each run.  The command's exit is one voluntary switch
 * more, after its counters stopped.  true's pages are dropped first
 * (posix_fadvise()), so that the first run has a read of its own.
 */
static void
ctxt_switches(pid_t pid, long long *vol, long long *invol)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	ASSERT(f != NULL);
	*vol = *invol = -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "voluntary_ctxt_switches: %lld", vol);
		sscanf(line, "nonvoluntary_ctxt_switches: %lld", invol);
	}
	fclose(f);
	ASSERT(*vol >= 0 && *invol >= 0);
}

static void
drop_from_page_cache(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

TEST(caller_is_not_woken_during_the_command)
{
	struct sched_param high = { .sched_priority = 2 };
	char *argv[] = { "true", NULL };
	cpu_set_t one;
	int runs = 20, preempted = 0, not_own = 0;
	long long own = 0;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	ASSERT_OK(sched_setaffinity(0, sizeof(one), &one));
	if (sched_setscheduler(0, SCHED_FIFO, &high) < 0)
		SKIP("real-time priority refused (%s): the caller cannot be "
		     "put above the command", strerror(errno));
	ASSERT_OK(pthread_atfork(NULL, NULL, child_below_caller));
	drop_from_page_cache("/usr/bin/true");
	for (int i = 0; i < runs; i++) {
		struct pctr_set *set = new_set("context-switches");
		long long vol0, invol0, vol1, invol1;
		struct pctr_sample s;
		siginfo_t si;
		int status;
		pid_t pid;

		ASSERT_OK(pctr_set_open_command(set, argv, &pid));
		ctxt_switches(pid, &vol0, &invol0);
		ASSERT_OK(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT));
		ctxt_switches(pid, &vol1, &invol1);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_EQ(status, 0);
		ASSERT_OK(pctr_set_read(set, &s));
		preempted += invol1 > invol0;
		/* its sleeps: the voluntary switches but its exit's */
		not_own += (long long)s.count[0].value > vol1 - vol0 - 1;
		own += vol1 - vol0 - 1;
		pctr_set_free(set);
	}
	printf("# %d runs: %lld sleeps of the command's own\n", runs, own);
	if (preempted || not_own)
		TEST_FAIL("the command was switched out while it could run in "
			  "%d of %d runs, and counted more switches than its "
			  "own sleeps in %d",
			  preempted, runs, not_own);
}

/*
 * The call returns before the command's exec, where its counters start: a
 * disable at once must still hold after the exec (the exec would enable
 * counters it had not yet reached).  The command stops itself after its
 * start, and its loop after that must not be counted.
 */
TEST(disable_at_once_holds_after_the_exec)
{
	char *argv[] = { "sh", "-c", "kill -STOP $$; i=0; "
				     "while [ $i -lt 20000 ]; do i=$((i+1)); "
				     "done", NULL };
	uint64_t ns[2];

	for (int disable = 0; disable < 2; disable++) {
		struct pctr_set *set = new_set("task-clock");
		struct pctr_sample s;
		int status;
		pid_t pid;

		ASSERT_OK(pctr_set_open_command(set, argv, &pid));
		if (disable)
			ASSERT_OK(pctr_set_disable(set));
		ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
		ASSERT(WIFSTOPPED(status));
		ASSERT_OK(kill(pid, SIGCONT));
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_EQ(status, 0);
		ASSERT_OK(pctr_set_read(set, &s));
		ns[disable] = s.count[0].value;
		pctr_set_free(set);
	}
	/* the shell's start (a millisecond) against it and its loop */
	printf("# task-clock: %llu ns counted, %llu ns disabled at once\n",
	       (unsigned long long)ns[0], (unsigned long long)ns[1]);
	ASSERT_LT(ns[1] * 2, ns[0]);
}

TEST(command_not_found)
{
	struct pctr_set *set = new_set("task-clock");
	char *argv[] = { "/no/such/program", NULL };
	char *argv2[] = { "no-such-program-anywhere", NULL };
	struct pctr_sample s;
	pid_t pid = 12345;
	int fds = count_fds();

	ASSERT_EQ(pctr_set_open_command(set, argv, &pid), -ENOENT);
	ASSERT_EQ(pid, 12345);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "cannot execute "
						"'/no/such/program'");
	ASSERT_EQ(pctr_set_open_command(set, argv2, &pid), -ENOENT);
	/* the child was reaped and nothing stays open */
	ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ASSERT_EQ(errno, ECHILD);
	ASSERT_EQ(count_fds(), fds);
	ASSERT_EQ(pctr_set_read(set, &s), -EBADFD);
	pctr_set_free(set);
}

TEST(command_not_executable)
{
	struct pctr_set *set = new_set("task-clock");
	char path[] = "/tmp/pctr-noexec-XXXXXX";
	char *argv[] = { path, NULL };
	int fd = mkstemp(path);
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	ASSERT_EQ(chmod(path, 0644), 0);
	ASSERT_EQ(pctr_set_open_command(set, argv, &pid), -EACCES);
	ASSERT_CONTAINS(pctr_strerror(-EACCES), "Permission denied");
	unlink(path);
	pctr_set_free(set);
}

TEST(bad_arguments)
{
	struct pctr_set *set = new_set("task-clock");
	char *empty[] = { NULL };
	pid_t pid;

	ASSERT_EQ(pctr_set_open_command(set, NULL, &pid), -EINVAL);
	ASSERT_EQ(pctr_set_open_command(set, empty, &pid), -EINVAL);
	ASSERT_EQ(pctr_set_open_command(set, (char *[]){ "true", NULL }, NULL),
		  -EINVAL);
	pctr_set_free(set);
}

TEST(hardware_event_fails_before_the_command_runs)
{
	struct pctr_machine m = { .size = sizeof(m) };
	struct pctr_set *set;
	char *argv[] = { "sh", "-c", "touch /tmp/pctr-must-not-exist", NULL };
	pid_t pid;

	ASSERT_OK(pctr_machine_get(&m));
	if (m.has_pmu)
		SKIP("this machine has a PMU");
	unlink("/tmp/pctr-must-not-exist");
	set = new_set("cycles");
	ASSERT_EQ(pctr_set_open_command(set, argv, &pid), -ENODEV);
	ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ASSERT(access("/tmp/pctr-must-not-exist", F_OK) != 0);
	pctr_set_free(set);
}

/*
 * More events than a set holds, in several sets on one command: it runs
 * once (its one line in the file), and every set counts that run from its
 * exec (each page-faults the same).
 */
TEST(several_sets_count_one_run)
{
	char path[] = "/tmp/pctr-sets-XXXXXX", sh[128], line[16];
	char *argv[] = { "sh", "-c", sh, NULL };
	struct pctr_set *sets[3];
	struct pctr_sample s[3];
	char many[64 * 12 + 1] = "";
	int fd = mkstemp(path), status, lines = 0;
	pid_t pid;
	FILE *f;

	ASSERT_GE(fd, 0);
	close(fd);
	snprintf(sh, sizeof(sh), "echo ran >>%s", path);
	for (int i = 0; i < 64; i++)
		strcat(many, "page-faults,");
	sets[0] = new_set(many);
	sets[1] = new_set(many);
	sets[2] = new_set("task-clock,page-faults");
	ASSERT_OK(pctr_set_open_command_sets(sets, 3, argv, &pid));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(WEXITSTATUS(status), 0);
	for (int k = 0; k < 3; k++)
		ASSERT_OK(pctr_set_read(sets[k], &s[k]));
	ASSERT_GT(s[0].count[0].value, 10);
	for (int e = 0; e < 64; e++) {
		ASSERT_EQ(s[0].count[e].value, s[0].count[0].value);
		ASSERT_EQ(s[1].count[e].value, s[0].count[0].value);
	}
	ASSERT_EQ(s[2].count[1].value, s[0].count[0].value);
	ASSERT_GT(s[2].count[0].value, 0);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		lines++;
	ASSERT_EQ(lines, 1);
	fclose(f);
	unlink(path);
	for (int k = 0; k < 3; k++)
		pctr_set_free(sets[k]);
}

/* one set that cannot open: none is open, and the command never ran */
TEST(several_sets_fail_together)
{
	struct pctr_machine m = { .size = sizeof(m) };
	char *argv[] = { "sh", "-c", "touch /tmp/pctr-sets-must-not-exist",
			 NULL };
	struct pctr_set *sets[2];
	struct pctr_sample s;
	pid_t pid = 12345;
	int fds = count_fds();

	ASSERT_OK(pctr_machine_get(&m));
	if (m.has_pmu)
		SKIP("this machine has a PMU: cycles would open");
	unlink("/tmp/pctr-sets-must-not-exist");
	sets[0] = new_set("task-clock,page-faults");
	sets[1] = new_set("cycles");
	ASSERT_EQ(pctr_set_open_command_sets(sets, 2, argv, &pid), -ENODEV);
	ASSERT_EQ(pid, 12345);
	ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ASSERT(access("/tmp/pctr-sets-must-not-exist", F_OK) != 0);
	ASSERT_EQ(pctr_set_read(sets[0], &s), -EBADFD);
	ASSERT_EQ(count_fds(), fds);
	ASSERT_EQ(pctr_set_open_command_sets(sets, 0, argv, &pid), -EINVAL);
	ASSERT_EQ(pctr_set_open_command_sets(NULL, 1, argv, &pid), -EINVAL);
	for (int k = 0; k < 2; k++)
		pctr_set_free(sets[k]);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(counts_from_exec)
			       TEST_CASE(children_of_the_command_are_counted)
			       TEST_CASE(caller_is_not_woken_during_the_command)
			       TEST_CASE(disable_at_once_holds_after_the_exec)
			       TEST_CASE(command_not_found)
			       TEST_CASE(command_not_executable)
			       TEST_CASE(bad_arguments)
			       TEST_CASE(hardware_event_fails_before_the_command_runs)
			       TEST_CASE(several_sets_count_one_run)
			       TEST_CASE(several_sets_fail_together)
			       TEST_CASE(no_inherit_counts_the_command_alone)));
}
