/* SPDX-License-Identifier: MIT */
/*
 * util.c - what every subcommand needs: messages with the subcommand's
 * name, option values checked against their range, command lookup as a
 * shell does it, the outputs and their errors, and running statistics.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

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

const struct option *
option_by_val(const struct option *t, int val)
{
	while (t->name && t->val != val)
		t++;
	return t->name ? t : NULL;
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


/* ---- outputs ------------------------------------------------------------ */

/*
 * Each output is a stream of ours over a descriptor (fopencookie): it
 * keeps the errno of its first failed write, which stdio itself forgets
 * (after a failed write it drops the buffer, and the next fflush() and
 * fclose() succeed with only the stream's error flag left).  A full disk
 * is then said with its reason, once, at out_close().
 */
struct out {
	FILE *f;
	int fd;
	int err; /* the first write's, fsync()'s or close()'s errno */
	bool said; /* the error was said */
	bool own; /* ours to close (not standard output) */
	char name[PATH_MAX + 32]; /* "--svg FILE", "standard output" */
};

#define MAX_OUTS 8
static struct out *outs[MAX_OUTS];

static ssize_t
out_write(void *cookie, const char *buf, size_t len)
{
	struct out *o = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(o->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* a write of none: no room (as write(2) says) */
			if (!o->err)
				o->err = n < 0 ? errno : ENOSPC;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int
out_seek(void *cookie, off64_t *off, int whence)
{
	struct out *o = cookie;
	off_t at = lseek(o->fd, (off_t)*off, whence);

	if (at < 0)
		return -1;
	*off = at;
	return 0;
}

static int
out_close_fd(void *cookie)
{
	struct out *o = cookie;

	if (o->own && close(o->fd) < 0 && !o->err)
		o->err = errno;
	return 0;
}

static struct out *
out_find(FILE *f)
{
	for (int i = 0; i < MAX_OUTS; i++)
		if (outs[i] && outs[i]->f == f)
			return outs[i];
	return NULL;
}

static FILE *
out_wrap(int fd, bool own, const char *name)
{
	static const cookie_io_functions_t io = {
		.write = out_write, .seek = out_seek, .close = out_close_fd
	};
	struct out *o = calloc(1, sizeof(*o));
	int i;

	for (i = 0; i < MAX_OUTS && outs[i]; i++)
		;
	if (!o || i == MAX_OUTS || !(o->f = fopencookie(o, "w", io))) {
		free(o);
		errno = ENOMEM;
		return NULL;
	}
	o->fd = fd;
	o->own = own;
	snprintf(o->name, sizeof(o->name), "%s", name);
	outs[i] = o;
	return o->f;
}

void
out_stdout_init(void)
{
	FILE *f;

	fflush(stdout);
	f = out_wrap(STDOUT_FILENO, false, "standard output");
	if (!f)
		return; /* stdio's own stdout, errors without their reason */
	if (isatty(STDOUT_FILENO))
		setvbuf(f, NULL, _IOLBF, 0);
	stdout = f;
}

FILE *
out_open(const char *opt, const char *path, bool append)
{
	char name[PATH_MAX + 32];
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdout;
	/* close-on-exec: the command never holds pctr's outputs */
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY |
				(append ? O_APPEND : O_TRUNC),
		  0666);
	snprintf(name, sizeof(name), "%s %s", opt, path);
	if (fd < 0) {
		tool_err("%s: %s", name, strerror(errno));
		return NULL;
	}
	f = out_wrap(fd, true, name);
	if (!f) {
		tool_err("%s: %s", name, strerror(errno));
		close(fd);
	}
	return f;
}

FILE *
out_open_fd(const char *opt, int fd)
{
	char name[64];
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	FILE *f = NULL;

	snprintf(name, sizeof(name), "%s %d", opt, fd);
	if (own >= 0)
		f = out_wrap(own, true, name);
	if (!f)
		tool_err("%s: %s", name, strerror(errno));
	if (!f && own >= 0)
		close(own);
	return f;
}

/*
 * Everything written reached the file: flushed, and on a disk (fsync(),
 * where a file system reports the space it could not find only then);
 * said once otherwise.  Standard output stays open.
 */
int
out_close(FILE *f)
{
	struct out *o = out_find(f);
	struct stat st;
	int err = 0;

	if (!f)
		return 0;
	if (!o) { /* standard error: nowhere to say it */
		err = fflush(f) != 0 || ferror(f);
		if (f != stderr && f != stdout)
			err |= fclose(f) != 0;
		return err ? -1 : 0;
	}
	if (fflush(f) != 0 && !o->err)
		o->err = errno;
	if (!o->err && ferror(f))
		o->err = EIO; /* a write error of stdio's own */
	if (!o->err && o->own && fstat(o->fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && fsync(o->fd) < 0)
		o->err = errno;
	if (o->own)
		fclose(f); /* close(): in o->err */
	err = o->err;
	if (err && !o->said)
		tool_err("%s: %s", o->name, strerror(err));
	o->said = err != 0;
	if (o->own) {
		for (int i = 0; i < MAX_OUTS; i++)
			if (outs[i] == o)
				outs[i] = NULL;
		free(o);
	}
	return err ? -1 : 0;
}

/* ---- perf's tool events ----------------------------------------------- */

const struct tool_event_name tool_events[NR_TOOL_EVENTS] = {
	[TOOL_DURATION] = { "duration_time", "software/config=9/" },
	[TOOL_USER] = { "user_time", "software/config=9,config1=1/" },
	[TOOL_SYSTEM] = { "system_time", "software/config=9,config1=2/" },
};

enum tool_event
tool_event_of(const struct pctr_event *ev)
{
	const struct tool_event_name *t;

	if (ev->type != PERF_TYPE_SOFTWARE ||
	    ev->config != PERF_COUNT_SW_DUMMY || ev->config1 >= NR_TOOL_EVENTS)
		return TOOL_NONE;
	t = &tool_events[ev->config1];
	if (!strcmp(ev->name, t->name) ||
	    !strncmp(ev->name, t->spec, strlen(t->spec)))
		return (enum tool_event)ev->config1;
	return TOOL_NONE;
}
