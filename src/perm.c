/* SPDX-License-Identifier: MIT */
/*
 * perm.c - why the kernel refused a counter, and the smallest fix that
 * works.
 *
 * perf_event_open(2) refuses an unprivileged caller (one without
 * CAP_PERFMON or CAP_SYS_ADMIN) with EACCES for these reasons, checked in
 * this order by kernel/events/core.c:
 *
 *   kernel.perf_event_paranoid >= 3   everything, on kernels that carry
 *                                     Debian's patch (upstream treats 3
 *                                     as 2; we ask the kernel which)
 *   >= 2 and exclude_kernel == 0      kernel-mode counting
 *                                     (perf_allow_kernel)
 *   the target is another process     unless ptrace_may_access(task,
 *                                     PTRACE_MODE_READ_REALCREDS): the
 *                                     caller's real uid and gid equal the
 *                                     task's real, effective and saved
 *                                     ones and the task is dumpable, or
 *                                     the caller has CAP_SYS_PTRACE (or
 *                                     CAP_PERFMON, perf_check_permission);
 *                                     perf_event_paranoid plays no part,
 *                                     nor does Yama's ptrace_scope, which
 *                                     only governs PTRACE_MODE_ATTACH
 *   >= 1 and pid == -1                whole-CPU counting (perf_allow_cpu)
 *
 * (-1 differs from 0 only for raw tracepoint samples, which the library
 * does not take.)  The library asks for no privilege level as perf does:
 * refused, it retries counting user mode only; so a refusal of an event
 * without a modifier is never about kernel mode.  When none of these
 * applies, a security module or a seccomp filter refused it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "internal.h"

#define CAP_SYS_PTRACE_BIT 19
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

enum cause {
	ALL = 1 << 0, /* Debian's level 3 */
	KERNEL = 1 << 1,
	CPU = 1 << 2,
	OTHER_USER = 1 << 3,
	NOT_DUMPABLE = 1 << 4,
};

struct task {
	int tgid;
	unsigned int uid[3], gid[3]; /* real, effective, saved */
	unsigned int owner; /* of /proc/PID/status: root when not dumpable */
};

/* A "Name:\tvalues" line of /proc/@pid/status into @fmt's arguments. */
static int
status_line(FILE *f, const char *name, const char *fmt, void *a, void *b,
	    void *c)
{
	char line[256];
	size_t n = strlen(name);

	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			return sscanf(line + n + 1, fmt, a, b, c) > 0 ? 0 : -1;
	return -1;
}

/*
 * The task's ids from /proc/PID/status, and the file's owner: the kernel
 * gives a task's /proc files (all but its directory) to root while the
 * task is not dumpable (task_dump_owner()), which no status line shows.
 */
static int
read_task(int pid, struct task *t)
{
	char path[64];
	struct stat st;
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	r = fstat(fileno(f), &st);
	if (r == 0)
		t->owner = st.st_uid;
	if (r == 0)
		r = status_line(f, "Tgid", "%d", &t->tgid, NULL, NULL);
	if (r == 0)
		r = status_line(f, "Uid", "%u %u %u", &t->uid[0], &t->uid[1],
				&t->uid[2]);
	if (r == 0)
		r = status_line(f, "Gid", "%u %u %u", &t->gid[0], &t->gid[1],
				&t->gid[2]);
	fclose(f);
	return r;
}

static bool
has_cap(int bit)
{
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "re");
	int r = f ? status_line(f, "CapEff", "%llx", &eff, NULL, NULL) : -1;

	if (f)
		fclose(f);
	return r == 0 && (eff >> bit & 1);
}

/* perfmon_capable() */
static bool
perfmon(void)
{
	return has_cap(CAP_PERFMON_BIT) || has_cap(CAP_SYS_ADMIN_BIT);
}

/* At level 3 and above: does this kernel still let us count ourselves? */
static bool
user_counting_refused(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = pctr__sys_perf_open(&attr, 0, -1, -1, 0);

	if (fd >= 0)
		pctr__sys_close(fd);
	return fd == -EACCES || fd == -EPERM;
}

/* ptrace_may_access(PTRACE_MODE_READ_REALCREDS) as the kernel decides it */
static unsigned int
ptrace_refusal(int pid, struct task *t)
{
	unsigned int uid = getuid(), gid = getgid();

	if (read_task(pid, t) < 0 || t->tgid == getpid() ||
	    has_cap(CAP_SYS_PTRACE_BIT))
		return 0;
	for (int i = 0; i < 3; i++)
		if (t->uid[i] != uid || t->gid[i] != gid)
			return OTHER_USER;
	return t->owner != t->uid[1] ? NOT_DUMPABLE : 0;
}

static unsigned int
causes(const struct pctr__perm *p, long level, struct task *t)
{
	unsigned int c = 0;

	if (perfmon())
		return 0;
	if (level >= 3 && user_counting_refused())
		c |= ALL;
	if (p->pid < 0 && level >= 1)
		c |= CPU;
	else if (p->kernel && level >= 2)
		c |= KERNEL;
	if (p->pid > 0)
		c |= ptrace_refusal(p->pid, t);
	return c;
}

/* @name counting user mode only: its modifiers without k and h, with u */
static void
user_only(const char *name, char *out, size_t len)
{
	const char *sep = strrchr(name, ':');
	const char *slash = strrchr(name, '/');
	size_t n;

	if (!sep || (slash && slash > sep))
		sep = slash && slash[1] ? slash : NULL;
	if (!sep || strspn(sep + 1, "ukhpGHIDSW") != strlen(sep + 1)) {
		snprintf(out, len, "%s:u", name);
		return;
	}
	n = (size_t)(sep - name) + 1;
	snprintf(out, len, "%.*s", (int)n, name);
	if (!strchr(sep + 1, 'u'))
		strncat(out, "u", len - strlen(out) - 1);
	for (const char *m = sep + 1; *m && strlen(out) + 1 < len; m++)
		if (*m != 'k' && *m != 'h')
			strncat(out, m, 1);
}

static void
say_causes(unsigned int c, const struct pctr__perm *p, long level,
	   const struct task *t, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
#define SAY(...) (n += snprintf(out + n, n < len ? len - n : 0, __VA_ARGS__))
	if (c & ALL)
		SAY("kernel.perf_event_paranoid is %ld, which on this kernel "
		    "refuses all counting without CAP_PERFMON", level);
	if (c & (CPU | KERNEL))
		SAY("%scounting %s needs kernel.perf_event_paranoid <= %d or "
		    "CAP_PERFMON, and it is %ld", n ? "; and " : "",
		    c & CPU ? "whole CPUs" : "kernel mode", c & CPU ? 0 : 1,
		    level);
	if (c & OTHER_USER)
		SAY("%sit belongs to another user (uid %u gid %u; this "
		    "process has uid %u gid %u), and counting it needs ptrace "
		    "access to it, which kernel.perf_event_paranoid does not "
		    "give", n ? "; and " : "", t->uid[1], t->gid[1],
		    (unsigned int)getuid(), (unsigned int)getgid());
	if (c & NOT_DUMPABLE)
		SAY("%sit is not dumpable (a setuid or setgid program, or "
		    "prctl(PR_SET_DUMPABLE, 0)), and counting it needs ptrace "
		    "access to it, which kernel.perf_event_paranoid does not "
		    "give", n ? "; and " : "");
#undef SAY
}

/* The smallest change that removes every cause in @c. */
static void
say_fix(unsigned int c, const struct pctr__perm *p, char *out, size_t len)
{
	static const char setcap[] = "(setcap cap_perfmon+ep PROGRAM)";
	unsigned int paranoid = c & (ALL | KERNEL | CPU);
	char u[PCTR_NAME_MAX + 4];

	if (c & OTHER_USER && !paranoid)
		snprintf(out, len, "run it as that user or as root, or grant "
			 "CAP_PERFMON or CAP_SYS_PTRACE %s", setcap);
	else if (c & NOT_DUMPABLE && !paranoid)
		snprintf(out, len, "run as root, or grant CAP_PERFMON or "
			 "CAP_SYS_PTRACE %s", setcap);
	else if (c & (OTHER_USER | NOT_DUMPABLE))
		snprintf(out, len, "run as root, or grant CAP_PERFMON %s, "
			 "which allows both", setcap);
	else if (c == KERNEL) {
		user_only(p->event, u, sizeof(u));
		snprintf(out, len, "count user mode only (%s), run as root, "
			 "grant CAP_PERFMON %s, or set sysctl "
			 "kernel.perf_event_paranoid=1", u, setcap);
	} else
		snprintf(out, len, "run as root, grant CAP_PERFMON %s, or set "
			 "sysctl kernel.perf_event_paranoid=%d", setcap,
			 c & CPU ? 0 : c & KERNEL ? 1 : 2);
}

int
pctr__perm_error(int err, const struct pctr__perm *p)
{
	char cause[768], fix[256];
	struct task t = { 0 };
	long level = 2; /* the kernel's default, if the knob is unreadable */
	unsigned int c;

	pctr__read_int_file("/proc/sys/kernel/perf_event_paranoid", &level);
	c = causes(p, level, &t);
	if (c) {
		say_causes(c, p, level, &t, cause, sizeof(cause));
		say_fix(c, p, fix, sizeof(fix));
		return pctr__error(err, "cannot count '%s' for %s: %s; %s",
				   p->event, p->who, cause, fix);
	}
	return pctr__error(err, "cannot count '%s' for %s: the kernel refused "
				"it although %s: a security module (SELinux, "
				"AppArmor, lockdown) or a seccomp filter is "
				"the cause; see the audit log",
			   p->event, p->who,
			   perfmon() ? "this process has CAP_PERFMON, so "
				       "kernel.perf_event_paranoid does not "
				       "apply"
				     : "kernel.perf_event_paranoid allows it "
				       "for this target without CAP_PERFMON");
}
