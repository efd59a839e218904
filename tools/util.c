/* SPDX-License-Identifier: MIT */
/*
 * util.c - what every subcommand needs: messages with the subcommand's
 * name, option values checked against their range, command lookup as a
 * shell does it, and running statistics.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "util.h"

static const char *tool_name = "pctr";

void
tool_set_name(const char *name)
{
	tool_name = name;
}

void
tool_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
tool_exit_status(int err)
{
	switch (err < 0 ? -err : err) {
	case EACCES:
	case EPERM:
		return EXIT_PERM;
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
	case EINVAL:
	case EBUSY:
	case E2BIG:
		return EXIT_EVENT;
	default:
		return 1;
	}
}

/* ---- option values ------------------------------------------------------ */

int
parse_long(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (end == s || *end) {
		tool_err("%s: '%s' is not a whole number", opt, s);
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		tool_err("%s: %s is out of range (%ld to %ld)", opt, s, min,
			 max);
		return -1;
	}
	*out = v;
	return 0;
}

int
parse_double(const char *opt, const char *s, double min, double max,
	     double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || isnan(v)) {
		tool_err("%s: '%s' is not a number", opt, s);
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		tool_err("%s: %s is out of range (%g to %g)", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* a CPU named twice ("0,0", "0-3,2") is counted once */
static int
push_cpu(int **cpus, int *nr, long c)
{
	int *n;

	for (int i = 0; i < *nr; i++)
		if ((*cpus)[i] == c)
			return 0;
	n = realloc(*cpus, (*nr + 1) * sizeof(int));

	if (!n)
		return -1;
	*cpus = n;
	n[(*nr)++] = (int)c;
	return 0;
}

/* one "N" or "N-M" item; returns the end of the item or NULL */
static const char *
cpu_item(const char *opt, const char *p, long ncpu, int **cpus, int *nr)
{
	char *end;
	long lo, hi;

	errno = 0;
	lo = hi = strtol(p, &end, 10);
	if (end != p && *end == '-')
		hi = strtol(end + 1, &end, 10);
	if (end == p || (*end && *end != ',') || errno || lo < 0 || hi < lo) {
		tool_err("%s: bad CPU list near '%s' (expected N, N-M, "
			 "separated by commas)", opt, p);
		return NULL;
	}
	if (hi >= ncpu) {
		tool_err("%s: no CPU %ld (this machine has CPUs 0 to %ld)",
			 opt, hi, ncpu - 1);
		return NULL;
	}
	for (long c = lo; c <= hi; c++)
		if (push_cpu(cpus, nr, c) < 0)
			return NULL;
	return end;
}

int
parse_cpu_list(const char *opt, const char *s, int **cpus, int *nr)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	const char *p = s;

	*cpus = NULL;
	*nr = 0;
	do {
		p = cpu_item(opt, p, ncpu, cpus, nr);
		if (!p) {
			free(*cpus);
			*cpus = NULL;
			return -1;
		}
	} while (*p++ == ',');
	return 0;
}

/* ---- commands ----------------------------------------------------------- */

static int
check_file(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -ENOENT;
	if (S_ISDIR(st.st_mode) || access(path, X_OK) < 0)
		return -EACCES;
	return 0;
}

int
find_command(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int found = -ENOENT;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/'))
		return check_file(name);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		int r;

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n,
			 n ? path : ".", "/", name);
		r = check_file(buf);
		if (r == 0)
			return 0;
		if (r == -EACCES)
			found = -EACCES;
		path += n + (path[n] == ':');
	}
	return found;
}

int
wait_status_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

