/* SPDX-License-Identifier: MIT */
/*
 * test_privilege.c - an unprivileged user under each perf_event_paranoid
 * level, on every kind of target (this thread, this process, a command,
 * one thread, a CPU, another user's process, a process of its own that is
 * not dumpable) and with user-mode, unspecified and kernel-mode events,
 * gets what the kernel allows and, where it refuses, the cause and the
 * smallest fix that works, word for word.  Needs root to change the
 * sysctl and to drop to an unprivileged uid; restores the level
 * afterwards.
 */
#include <errno.h>
#include <grp.h>
#include <pctr.h>
#include <signal.h>
#include <sys/prctl.h>

#include "internal.h" /* pctr__perm_error(): the static archive has it */

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
		/*
		 * Changing uid left this process non-dumpable; a user's
		 * program, started by exec, is dumpable again.
		 */
		prctl(PR_SET_DUMPABLE, 1);
		fn();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	set_level(old);
	ASSERT_EQ(get_level(), old);
	ASSERT(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* ---- every target at every level: what opens, and the advice if not ---- */

enum target { THREAD, PROCESS, COMMAND, TID, CPU0, OTHER_USER, NOT_DUMPABLE };
static const char *const target_names[] = {
	"thread", "process", "command", "tid", "cpu", "pid 1", "non-dumpable",
};

#define SETCAP "(setcap cap_perfmon+ep PROGRAM)"
#define PTRACE_NOT_PARANOID                                                   \
	", and counting it needs ptrace access to it, which "                 \
	"kernel.perf_event_paranoid does not give"
#define OTHER "it belongs to another user (uid 0 gid 0; this process has "   \
	      "uid 65534 gid 65534)" PTRACE_NOT_PARANOID
#define NODUMP "it is not dumpable (a setuid or setgid program, or "          \
	       "prctl(PR_SET_DUMPABLE, 0))" PTRACE_NOT_PARANOID
#define KMODE "counting kernel mode needs kernel.perf_event_paranoid <= 1 " \
	      "or CAP_PERFMON, and it is {level}"

/*
 * The rules (kernel/events/core.c, src/perm.c), for an unprivileged user
 * on a kernel without Debian's level 3: NULL where the event opens, else
 * the whole message, {ev}, {who} and {level} standing for the event, the
 * target and the level.
 */
static const char *
advice(enum target t, int k, int level)
{
	switch (t) {
	case CPU0: /* kernel mode at <= 1 too: the CPU rule is the stricter */
		return level < 1 ? NULL :
		       "cannot count '{ev}' for CPU 0: counting whole CPUs "
		       "needs kernel.perf_event_paranoid <= 0 or CAP_PERFMON, "
		       "and it is {level}; run as root, grant CAP_PERFMON "
		       SETCAP ", or set sysctl kernel.perf_event_paranoid=0";
	case OTHER_USER:
		return k && level >= 2 ?
		       "cannot count '{ev}' for {who}: " KMODE "; and " OTHER
		       "; run as root, or grant CAP_PERFMON " SETCAP ", which "
		       "allows both" :
		       "cannot count '{ev}' for {who}: " OTHER "; run it as "
		       "that user or as root, or grant CAP_PERFMON or "
		       "CAP_SYS_PTRACE " SETCAP;
	case NOT_DUMPABLE:
		return k && level >= 2 ?
		       "cannot count '{ev}' for {who}: " KMODE "; and " NODUMP
		       "; run as root, or grant CAP_PERFMON " SETCAP ", which "
		       "allows both" :
		       "cannot count '{ev}' for {who}: " NODUMP "; run as "
		       "root, or grant CAP_PERFMON or CAP_SYS_PTRACE " SETCAP;
	default: /* this process's own threads, and its child */
		return !k || level < 2 ? NULL :
		       "cannot count '{ev}' for {who}: " KMODE "; count user "
		       "mode only (page-faults:u), run as root, grant "
		       "CAP_PERFMON " SETCAP ", or set sysctl "
		       "kernel.perf_event_paranoid=1";
	}
}

/* @tmpl with its {placeholders} filled in */
static void
expand(const char *tmpl, const char *ev, const char *who, int level,
       char *out, size_t len)
{
	size_t n = 0;

	while (*tmpl && n + 1 < len) {
		char num[16];
		const char *v = NULL;

		if (!strncmp(tmpl, "{ev}", 4))
			v = ev;
		else if (!strncmp(tmpl, "{who}", 5))
			v = who;
		else if (!strncmp(tmpl, "{level}", 7))
			v = (snprintf(num, sizeof(num), "%d", level), num);
		if (v) {
			n += snprintf(out + n, len - n, "%s", v);
			tmpl = strchr(tmpl, '}') + 1;
		} else {
			out[n++] = *tmpl++;
		}
		if (n >= len)
			n = len - 1;
	}
	out[n] = '\0';
}

static pid_t nodump_pid;

/* a process of our own user that made itself non-dumpable */
static void
start_nodump(void)
{
	int p[2];
	char c;

	ASSERT_OK(pipe(p));
	nodump_pid = fork();
	if (nodump_pid == 0) {
		prctl(PR_SET_DUMPABLE, 0);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(read(p[0], &c, 1), 1);
	close(p[0]);
	close(p[1]);
}

/* Open @ev on @t; the error, and the target's name in @who. */
static int
open_on(enum target t, struct pctr_set *set, char *who, size_t len)
{
	static int cpu0[1] = { 0 };
	struct pctr_target tg = { .type = PCTR_TARGET_THREAD };
	char *const argv[] = { "true", NULL };
	pid_t pid = 0;
	int r, st;

	switch (t) {
	case THREAD:
		snprintf(who, len, "this thread");
		return pctr_set_open(set, &tg);
	case PROCESS:
		tg.type = PCTR_TARGET_PROCESS;
		snprintf(who, len, "task %d", (int)getpid());
		return pctr_set_open(set, &tg);
	case COMMAND:
		r = pctr_set_open_command(set, argv, &pid);
		/* the child's pid is not returned on failure: see check() */
		snprintf(who, len, "task N");
		if (r == 0)
			waitpid(pid, &st, 0);
		return r;
	case TID:
		tg = (struct pctr_target){ .type = PCTR_TARGET_TID,
					   .pid = gettid() };
		snprintf(who, len, "thread %d", (int)gettid());
		return pctr_set_open(set, &tg);
	case CPU0:
		tg = (struct pctr_target){ .type = PCTR_TARGET_CPU,
					   .cpus = cpu0, .nr_cpus = 1 };
		snprintf(who, len, "CPU 0");
		return pctr_set_open(set, &tg);
	case OTHER_USER:
	case NOT_DUMPABLE:
		tg.type = PCTR_TARGET_PID;
		tg.pid = t == OTHER_USER ? 1 : nodump_pid;
		snprintf(who, len, "task %d", (int)tg.pid);
		return pctr_set_open(set, &tg);
	}
	return -EINVAL;
}

/* "for task 1234:" as "for task N:", for the command whose pid is unknown */
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

static int grid_level;

static void
check(enum target t, const char *ev, int k)
{
	const char *tmpl = advice(t, k, grid_level);
	char who[64], want[1024], got[1024];
	struct pctr_set *set;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, ev));
	r = open_on(t, set, who, sizeof(who));
	if (!tmpl) {
		if (r != 0)
			TEST_FAIL("level %d, %s, '%s': %s", grid_level,
				  target_names[t], ev, pctr_strerror(r));
		/*
		 * no modifier, kernel mode refused: counted as user mode,
		 * said by a flag; the name stays, perf's display adds ":u"
		 */
		if (!strchr(ev, ':') && grid_level >= 2 && t != CPU0) {
			const struct pctr_event *e = pctr_set_event(set, 0);
			char shown[PCTR_NAME_MAX + 2];

			ASSERT_STR_EQ(e->name, "page-faults");
			ASSERT_EQ(e->flags & (PCTR_EVENT_USER_FALLBACK |
					      PCTR_EVENT_EXCLUDE_KERNEL),
				  PCTR_EVENT_USER_FALLBACK |
					  PCTR_EVENT_EXCLUDE_KERNEL);
			ASSERT_EQ(pctr_event_display_name(e, shown,
							  sizeof(shown)), 13);
			ASSERT_STR_EQ(shown, "page-faults:u");
		} else {
			ASSERT_EQ(pctr_set_event(set, 0)->flags &
					  PCTR_EVENT_USER_FALLBACK, 0);
		}
		pctr_set_free(set);
		return;
	}
	if (r != -EACCES)
		TEST_FAIL("level %d, %s, '%s': %d, expected -EACCES",
			  grid_level, target_names[t], ev, r);
	expand(tmpl, ev, who, grid_level, want, sizeof(want));
	snprintf(got, sizeof(got), "%s", pctr_strerror(r));
	if (t == COMMAND)
		hide_pid(got);
	ASSERT_STR_EQ(got, want);
	pctr_set_free(set);
}

static void
grid(void)
{
	static const char *const events[] = {
		"page-faults:u", "page-faults", "page-faults:k",
	};

	start_nodump();
	for (int t = THREAD; t <= NOT_DUMPABLE; t++)
		for (int e = 0; e < 3; e++)
			check(t, events[e], e == 2);
	kill(nodump_pid, SIGKILL);
	waitpid(nodump_pid, NULL, 0);
}

/* -1 differs from 0 only for raw tracepoint samples */
TEST(every_target_at_paranoid_minus_1)
{
	grid_level = -1;
	ASSERT_EQ(as_nobody(-1, grid), 0);
}

TEST(every_target_at_paranoid_0)
{
	grid_level = 0;
	ASSERT_EQ(as_nobody(0, grid), 0);
}

TEST(every_target_at_paranoid_1)
{
	grid_level = 1;
	ASSERT_EQ(as_nobody(1, grid), 0);
}

TEST(every_target_at_paranoid_2)
{
	grid_level = 2;
	ASSERT_EQ(as_nobody(2, grid), 0);
}

/* 3 without Debian's patch is 2; on Debian's kernels the next test */
static void
grid_at_3(void)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "page-faults:u"));
	r = pctr_set_open(set, &self);
	pctr_set_free(set);
	if (r < 0)
		_exit(TEST_SKIP_STATUS);
	grid();
}

TEST(every_target_at_paranoid_3)
{
	int st;

	grid_level = 3;
	st = as_nobody(3, grid_at_3);
	if (st == TEST_SKIP_STATUS)
		SKIP("this kernel refuses everything at 3 (Debian's patch): "
		     "the next test checks that");
	ASSERT_EQ(st, 0);
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
	ASSERT_STR_EQ(pctr_strerror(-EACCES),
		      "cannot count 'task-clock:u' for this thread: "
		      "kernel.perf_event_paranoid is 3, which on this kernel "
		      "refuses all counting without CAP_PERFMON; run as root, "
		      "grant CAP_PERFMON " SETCAP ", or set sysctl "
		      "kernel.perf_event_paranoid=2");
}

TEST(paranoid_3_refuses_everything_on_debian_kernels)
{
	int st = as_nobody(3, user_refused_at_3);

	if (st == TEST_SKIP_STATUS)
		SKIP("this kernel treats perf_event_paranoid=3 as 2 (no "
		     "Debian patch)");
	ASSERT_EQ(st, 0);
}

/*
 * A process that dropped root's privileges (setuid() without exec) is not
 * dumpable, and neither is its child before exec: the command cannot be
 * counted, and the message says why.
 */
static void
command_after_dropping_privileges(void)
{
	char *const argv[] = { "true", NULL };
	struct pctr_set *set;
	char got[1024];
	pid_t pid;

	prctl(PR_SET_DUMPABLE, 0);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "page-faults:u"));
	ASSERT_EQ(pctr_set_open_command(set, argv, &pid), -EACCES);
	snprintf(got, sizeof(got), "%s", pctr_strerror(-EACCES));
	hide_pid(got);
	ASSERT_STR_EQ(got, "cannot count 'page-faults:u' for task N: " NODUMP
			   "; run as root, or grant CAP_PERFMON or "
			   "CAP_SYS_PTRACE " SETCAP);
	pctr_set_free(set);
}

TEST(command_of_a_process_that_dropped_privileges)
{
	ASSERT_EQ(as_nobody(2, command_after_dropping_privileges), 0);
}

/* Without the call's detail: the rules at the current level. */
static void
general_message(void)
{
	ASSERT_STR_EQ(pctr_strerror(-EACCES),
		      "permission denied: kernel.perf_event_paranoid is 2; "
		      "CAP_PERFMON allows everything; without it kernel mode "
		      "needs sysctl kernel.perf_event_paranoid=1 (or count "
		      "user mode only, :u), whole CPUs need sysctl "
		      "kernel.perf_event_paranoid=0, another user's process "
		      "needs ptrace access to it (the same user, or "
		      "CAP_SYS_PTRACE)");
}

TEST(general_permission_message_at_2)
{
	ASSERT_EQ(as_nobody(2, general_message), 0);
}

/* Root refused by something else: not the paranoid level's fault. */
TEST(root_is_not_told_to_lower_the_level)
{
	struct pctr__perm p = {
		.event = "page-faults:k", .who = "this thread", .pid = 0,
		.kernel = true,
	};

	if (geteuid() != 0)
		SKIP("needs CAP_PERFMON: runs as root");
	ASSERT_EQ(pctr__perm_error(EACCES, &p), -EACCES);
	ASSERT_STR_EQ(pctr_strerror(-EACCES),
		      "cannot count 'page-faults:k' for this thread: the "
		      "kernel refused it although this process has "
		      "CAP_PERFMON, so kernel.perf_event_paranoid does not "
		      "apply: a security module (SELinux, AppArmor, lockdown) "
		      "or a seccomp filter is the cause; see the audit log");
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(every_target_at_paranoid_minus_1)
			       TEST_CASE(every_target_at_paranoid_0)
			       TEST_CASE(every_target_at_paranoid_1)
			       TEST_CASE(every_target_at_paranoid_2)
			       TEST_CASE(every_target_at_paranoid_3)
			       TEST_CASE(paranoid_3_refuses_everything_on_debian_kernels)
			       TEST_CASE(command_of_a_process_that_dropped_privileges)
			       TEST_CASE(general_permission_message_at_2)
			       TEST_CASE(root_is_not_told_to_lower_the_level)));
}
