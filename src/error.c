/* SPDX-License-Identifier: MIT */
/*
 * error.c - negative errno values and the sentences that explain them.
 *
 * One X-macro gives both the name table and the general message table.
 * A failing call may record a specific detail (the event's name, the knob's
 * value) for the calling thread; pctr_strerror() prefers it when asked about
 * the same errno.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define PCTR_ERRNO_MAP(X)                                                     \
	X(EPERM, "operation not permitted on performance counters")           \
	X(ENOENT, "no such event on this machine ('pctr list' shows them)")  \
	X(ESRCH, "no such process or thread")                                 \
	X(EINTR, "interrupted by a signal; try again")                        \
	X(EBADF, "bad file descriptor")                                       \
	X(EAGAIN, "resource temporarily unavailable; try again")              \
	X(ENOMEM, "out of memory")                                            \
	X(EACCES, "permission denied")                                        \
	X(EFAULT, "bad address")                                              \
	X(EBUSY, "the events do not fit on the counters together and "       \
		 "multiplexing was refused, or the counters are in use; "     \
		 "count fewer events at once")                                \
	X(EEXIST, "already exists")                                           \
	X(ENODEV, "no hardware performance counters here (a virtual machine " \
		  "without PMU passthrough, or a CPU the kernel does not "    \
		  "know); software events and the timestamp counter still "   \
		  "work")                                                     \
	X(EINVAL, "invalid argument or event specification")                  \
	X(EMFILE, "too many open files: raise the limit with 'ulimit -n'")   \
	X(ENOSPC, "no room left in the set")                                  \
	X(ERANGE, "index out of range")                                       \
	X(E2BIG, "too many events: a set holds at most 64")                  \
	X(EOPNOTSUPP, "not supported for this event or target")               \
	X(EALREADY, "the set is already open: add events before opening it") \
	X(EBADFD, "the set is not open: call pctr_set_open() first")         \
	X(EOVERFLOW, "value too large")                                       \
	X(ECHILD, "no child process; or a set opened before fork() used "    \
		  "in the child, which may only read and free its copy")      \
	X(EDEADLK, "a set cannot be freed from a callback reading its "      \
		   "notifications or samples: free it after the callback")  \
	X(ELOOP, "a symbolic link where a file was expected")               \
	X(EISDIR, "a directory where a file was expected")                    \
	X(ENOSYS, "perf_event_open is not available in this kernel or "      \
		  "sandbox (seccomp)")

static __thread int last_err;
static __thread char detail[1024];
static __thread char general[512];

int
pctr__error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	last_err = err < 0 ? -err : err;
	return -last_err;
}

void
pctr__error_clear(void)
{
	last_err = 0;
	detail[0] = '\0';
}

PCTR_EXPORT const char *
pctr_errname(int err)
{
	switch (err < 0 ? -err : err) {
#define X(e, msg)                                                             \
	case e:                                                               \
		return #e;
		PCTR_ERRNO_MAP(X)
#undef X
	}
	return "E?";
}

static const char *
generic_message(int err)
{
	switch (err) {
#define X(e, msg)                                                             \
	case e:                                                               \
		return msg;
		PCTR_ERRNO_MAP(X)
#undef X
	}
	return NULL;
}

/*
 * Without the failing call's detail the target is unknown: the rules of
 * each kind of target, at the current level (see perm.c).
 */
static const char *
permission_message(int err)
{
	long level;
	int n;

	if (pctr__read_int_file("/proc/sys/kernel/perf_event_paranoid",
				&level) < 0)
		return generic_message(err);
	n = snprintf(general, sizeof(general),
		     "permission denied: kernel.perf_event_paranoid is %ld; "
		     "CAP_PERFMON allows everything; without it ", level);
	if (level >= 2)
		n += snprintf(general + n, sizeof(general) - n,
			      "kernel mode needs sysctl "
			      "kernel.perf_event_paranoid=1 (or count user "
			      "mode only, :u), ");
	if (level >= 1)
		snprintf(general + n, sizeof(general) - n,
			 "whole CPUs need sysctl "
			 "kernel.perf_event_paranoid=0, ");
	n = strlen(general);
	snprintf(general + n, sizeof(general) - n,
		 "another user's process needs ptrace access to it (the same "
		 "user, or CAP_SYS_PTRACE)%s",
		 level >= 3 ? ", and some kernels refuse everything at 3 "
			      "(sysctl kernel.perf_event_paranoid=2)" : "");
	return general;
}

PCTR_EXPORT int
pctr_strerror_r(int err, char *buf, size_t len)
{
	if (!buf && len > 0)
		return -EINVAL;
	return snprintf(buf, len, "%s", pctr_strerror(err));
}

PCTR_EXPORT const char *
pctr_strerror(int err)
{
	const char *msg;

	if (err < 0)
		err = -err;
	if (err != 0 && err == last_err && detail[0])
		return detail;
	if (err == 0)
		return "success";
	if (err == EACCES || err == EPERM)
		return permission_message(err);
	msg = generic_message(err);
	if (msg)
		return msg;
	snprintf(general, sizeof(general), "%s", strerror(err));
	return general;
}
