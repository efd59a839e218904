/* SPDX-License-Identifier: MIT */
/*
 * test_advice - pctr stat, run by an unprivileged user, gives the same
 * cause and fix as the library for each kind of target it can attach to:
 * a command, another user's process and thread, a process of the user's
 * own that is not dumpable, a CPU.  Needs root to set
 * kernel.perf_event_paranoid (restored afterwards) and to switch users.
 */
#include <grp.h>
#include <pctr.h>
#include <sys/prctl.h>

#include "tool.h"

#define KNOB "/proc/sys/kernel/perf_event_paranoid"
#define NOBODY 65534
#define SETCAP "(setcap cap_perfmon+ep PROGRAM)"
#define PTRACE_NOT_PARANOID                                                   \
	", and counting it needs ptrace access to it, which "                 \
	"kernel.perf_event_paranoid does not give"

static int
level_get(void)
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
level_set(int v)
{
	FILE *f = fopen(KNOB, "w");

	if (!f)
		return -1;
	fprintf(f, "%d\n", v);
	return fclose(f);
}

static char nobody_dir[] = "/tmp/pctr-nobody-XXXXXX";

static void
remove_nobody_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", nobody_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", nobody_dir);
}

/*
 * The command as another user may not reach the build tree (a clone under
 * /root, mode 700): a copy of it and of its library, laid out as in the
 * build (its RUNPATH is $ORIGIN/../src), in a directory anyone can enter.
 */
static const char *
reachable_pctr(void)
{
	static char path[256];
	char cmd[8192];

	if (*path)
		return path;
	if (!mkdtemp(nobody_dir))
		TEST_FAIL("cannot make a directory in /tmp");
	atexit(remove_nobody_dir);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir tools src && cp '%s' tools/pctr && "
		 "cp \"$(dirname '%s')/../src/libpctr.so.0\" src/ && "
		 "chmod -R a+rX .",
		 nobody_dir, pctr_path(), pctr_path());
	if (system(cmd) != 0)
		TEST_FAIL("cannot copy the command for another user: %s", cmd);
	snprintf(path, sizeof(path), "%s/tools/pctr", nobody_dir);
	return path;
}

/* pctr ARGS as uid 65534 with the knob at @level */
static struct result
pctr_as_nobody(int level, char *const args[])
{
	char *argv[16], o[64], e[64];
	int old = level_get(), n = 0, fo, fe, st;
	struct result r;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("changing perf_event_paranoid and the user needs root");
	argv[n++] = (char *)reachable_pctr();
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (old == -100 || level_set(level) != 0)
		SKIP("cannot write %s", KNOB);
	fo = tmp_file(o);
	fe = tmp_file(e);
	pid = fork();
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(99);
		execv(argv[0], argv);
		_exit(126);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	level_set(old);
	ASSERT_EQ(level_get(), old);
	close(fo);
	close(fe);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r.out = slurp(o);
	r.err = slurp(e);
	unlink(o);
	unlink(e);
	return r;
}

/* "for task 1234:" as "for task N:": the command's pid is not known */
static void
hide_pid(char *msg)
{
	char *p = strstr(msg, "for task ");
	char *q;

	if (!p)
		return;
	p += 9;
	q = p + strspn(p, "0123456789");
	*p++ = 'N';
	memmove(p, q, strlen(q) + 1);
}

TEST(command_kernel_mode_at_2)
{
	char *args[] = { "stat", "-e", "page-faults:k", "--", "true", NULL };
	struct result r = pctr_as_nobody(2, args);

	ASSERT_EQ(r.status, 4);
	hide_pid(r.err);
	ASSERT_STR_EQ(r.err,
		      "pctr stat: cannot count 'page-faults:k' for task N: "
		      "counting kernel mode needs kernel.perf_event_paranoid "
		      "<= 1 or CAP_PERFMON, and it is 2; count user mode only "
		      "(page-faults:u), run as root, grant CAP_PERFMON " SETCAP
		      ", or set sysctl kernel.perf_event_paranoid=1\n");
}

/* the fix works: at 1 the same command counts kernel mode too */
TEST(command_kernel_mode_at_1_counts)
{
	char *args[] = { "stat", "-x", ",", "-e", "page-faults:k", "--",
			 "true", NULL };
	struct result r = pctr_as_nobody(1, args);

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "page-faults:k");
}

/*
 * No modifier at 2: counted in user mode, as perf does, and named
 * "page-faults:u" in the report so that nobody takes it for kernel and
 * user counts (the library flags it, PCTR_EVENT_USER_FALLBACK)
 */
TEST(command_no_modifier_at_2_says_user_mode)
{
	char *args[] = { "stat", "-x", ",", "-e", "page-faults", "--",
			 "true", NULL };
	struct result r = pctr_as_nobody(2, args);

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, ",page-faults:u,");
}

TEST(whole_cpu_at_1)
{
	char *args[] = { "stat", "-a", "-C", "0", "-e", "cpu-clock", "--",
			 "true", NULL };
	struct result r = pctr_as_nobody(1, args);

	ASSERT_EQ(r.status, 4);
	ASSERT_STR_EQ(r.err,
		      "pctr stat: cannot count 'cpu-clock' for CPU 0: counting "
		      "whole CPUs needs kernel.perf_event_paranoid <= 0 or "
		      "CAP_PERFMON, and it is 1; run as root, grant "
		      "CAP_PERFMON " SETCAP ", or set sysctl "
		      "kernel.perf_event_paranoid=0\n");
}

/* another user's process: ptrace access, whatever the level */
TEST(another_users_process_at_0)
{
	char *args[] = { "stat", "-p", "1", "-e", "page-faults", NULL };
	struct result r = pctr_as_nobody(0, args);

	ASSERT_EQ(r.status, 4);
	ASSERT_STR_EQ(r.err,
		      "pctr stat: cannot count 'page-faults' for task 1: it "
		      "belongs to another user (uid 0 gid 0; this process has "
		      "uid 65534 gid 65534)" PTRACE_NOT_PARANOID "; run it as "
		      "that user or as root, or grant CAP_PERFMON or "
		      "CAP_SYS_PTRACE " SETCAP "\n");
}

TEST(another_users_thread_kernel_mode_at_2)
{
	char *args[] = { "stat", "-t", "1", "-e", "page-faults:k", NULL };
	struct result r = pctr_as_nobody(2, args);

	ASSERT_EQ(r.status, 4);
	ASSERT_STR_EQ(r.err,
		      "pctr stat: cannot count 'page-faults:k' for thread 1: "
		      "counting kernel mode needs kernel.perf_event_paranoid "
		      "<= 1 or CAP_PERFMON, and it is 2; and it belongs to "
		      "another user (uid 0 gid 0; this process has uid 65534 "
		      "gid 65534)" PTRACE_NOT_PARANOID "; run as root, or "
		      "grant CAP_PERFMON " SETCAP ", which allows both\n");
}

/* the user's own process, made non-dumpable */
TEST(own_non_dumpable_process)
{
	char pid_s[16], want[1024];
	char *args[] = { "stat", "-p", pid_s, "-e", "page-faults", NULL };
	struct result r;
	int p[2];
	pid_t pid;
	char c;

	ASSERT_OK(pipe(p));
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(99);
		prctl(PR_SET_DUMPABLE, 0);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(read(p[0], &c, 1), 1);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	r = pctr_as_nobody(2, args);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(r.status, 4);
	snprintf(want, sizeof(want),
		 "pctr stat: cannot count 'page-faults' for task %d: it is "
		 "not dumpable (a setuid or setgid program, or "
		 "prctl(PR_SET_DUMPABLE, 0))" PTRACE_NOT_PARANOID "; run as "
		 "root, or grant CAP_PERFMON or CAP_SYS_PTRACE " SETCAP "\n",
		 (int)pid);
	ASSERT_STR_EQ(r.err, want);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(command_kernel_mode_at_2)
			       TEST_CASE(command_kernel_mode_at_1_counts)
			       TEST_CASE(whole_cpu_at_1)
			       TEST_CASE(another_users_process_at_0)
			       TEST_CASE(another_users_thread_kernel_mode_at_2)
			       TEST_CASE(own_non_dumpable_process)
			       TEST_CASE(command_no_modifier_at_2_says_user_mode)));
}
