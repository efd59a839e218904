/* SPDX-License-Identifier: MIT */
/*
 * sysfs.c - the kernel's files that describe its PMUs and tracepoints, read
 * and walked; what they say is parsed above this file (pmu_syntax.c).
 *
 * Each PMU directory under /sys/bus/event_source/devices has "type" (the
 * perf_event_attr.type), "format/<term>" ("config:0-7,21" says where a
 * term's bits go) and "events/<name>" (a term list such as
 * "event=0xc0,umask=0x1").  The kernel's tracepoints live in tracefs:
 * events/SUBSYSTEM/NAME/id holds the number perf_event_attr.config takes
 * with PERF_TYPE_TRACEPOINT.  $PCTR_SYSFS_ROOT replaces /sys, so tests can
 * describe a machine they are not running on.
 *
 * Everything here returns -errno and says nothing: the messages belong to
 * the parser, which knows what the caller asked for.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define DEVICES "/bus/event_source/devices"

const char *
pctr__sysfs_root(void)
{
	const char *root = secure_getenv("PCTR_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

const char *
pctr__sysfs_devices(void)
{
	return DEVICES;
}

/* Read a small file, strip the trailing newline.  Return length or -errno. */
int
pctr__sysfs_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return (int)n;
}

int
pctr__sysfs_pmu_read(const char *pmu, const char *file, char *buf,
		     size_t len)
{
	char path[512];

	if (strchr(pmu, '/') || strstr(file, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s" DEVICES "/%s/%s", pctr__sysfs_root(),
		 pmu, file);
	return pctr__sysfs_read(path, buf, len);
}

int
pctr__sysfs_pmu_type(const char *pmu, uint32_t *type)
{
	char buf[32], *end;
	unsigned long v;
	int r = pctr__sysfs_pmu_read(pmu, "type", buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || *end || end == buf || v > UINT32_MAX)
		return -EINVAL;
	*type = (uint32_t)v;
	return 0;
}

/* the entries of @path but "." files, sorted, to @cb until it returns != 0 */
static int
walk_dir(const char *path, int (*cb)(const char *, void *), void *arg)
{
	struct dirent **names;
	int n, r = 0;

	n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!r && names[i]->d_name[0] != '.')
			r = cb(names[i]->d_name, arg);
		free(names[i]);
	}
	free(names);
	return r;
}

/* every PMU directory's name; none if there is no such directory */
int
pctr__sysfs_walk_pmus(int (*cb)(const char *pmu, void *), void *arg)
{
	char path[512];

	snprintf(path, sizeof(path), "%s" DEVICES, pctr__sysfs_root());
	return walk_dir(path, cb, arg);
}

/* the names in a PMU's events directory (scale and unit files too) */
int
pctr__sysfs_walk_events(const char *pmu, int (*cb)(const char *, void *),
			void *arg)
{
	char path[512];

	if (strchr(pmu, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s" DEVICES "/%s/events",
		 pctr__sysfs_root(), pmu);
	return walk_dir(path, cb, arg);
}

/* ---- tracefs ------------------------------------------------------------ */

/*
 * tracefs is mounted at /sys/kernel/tracing, or seen through debugfs at
 * /sys/kernel/debug/tracing on older systems; mounting it is root's
 * business, and its files are often readable by root only.
 */
static const char *const tracefs_dirs[] = { "/kernel/tracing",
					    "/kernel/debug/tracing" };

/* the events directory into @dir; -ENOENT not mounted, -EACCES unreadable */
int
pctr__tracefs_events(char *dir, size_t len)
{
	int err = -ENOENT;

	for (size_t i = 0; i < PCTR_ARRAY_SIZE(tracefs_dirs); i++) {
		snprintf(dir, len, "%s%s/events", pctr__sysfs_root(),
			 tracefs_dirs[i]);
		if (access(dir, R_OK | X_OK) == 0)
			return 0;
		if (errno == EACCES || errno == EPERM)
			err = -EACCES;
	}
	snprintf(dir, len, "%s%s/events", pctr__sysfs_root(), tracefs_dirs[0]);
	return err;
}

/* why tracepoints cannot be used here, for messages; "" if they can */
const char *
pctr__tracefs_problem(void)
{
	char dir[512];
	int r = pctr__tracefs_events(dir, sizeof(dir));

	if (r == -EACCES)
		return "tracefs is readable by root only here";
	if (r < 0)
		return "tracefs is not mounted (as root: mount -t tracefs "
		       "nodev /sys/kernel/tracing)";
	return "";
}

PCTR_EXPORT int
pctr_tracefs_check(void)
{
	char dir[512];
	int r = pctr__tracefs_events(dir, sizeof(dir));

	return r < 0 ? pctr__error(-r, "%s", pctr__tracefs_problem()) : 0;
}

/* the text of SUBSYSTEM/NAME/id into @buf (its path into @path) */
int
pctr__tracefs_read_id(const char *sys, const char *name, char *buf,
		      size_t len, char *path, size_t path_len)
{
	char dir[512];
	int r = pctr__tracefs_events(dir, sizeof(dir));

	if (r < 0)
		return r;
	if (strchr(sys, '/') || strchr(name, '/'))
		return -EINVAL;
	snprintf(path, path_len, "%s/%s/%s/id", dir, sys, name);
	r = pctr__sysfs_read(path, buf, len);
	return r == -ENOTDIR ? -ENOENT : r;
}

struct tp_walk {
	const char *dir, *sys;
	int (*cb)(const char *sys, const char *name, void *arg);
	void *arg;
};

static int
walk_tracepoint(const char *name, void *arg)
{
	struct tp_walk *w = arg;
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s/%s/id", w->dir, w->sys, name);
	return access(path, F_OK) == 0 ? w->cb(w->sys, name, w->arg) : 0;
}

static int
walk_subsystem(const char *sys, void *arg)
{
	struct tp_walk *w = arg;
	char path[1024];

	w->sys = sys;
	snprintf(path, sizeof(path), "%s/%s", w->dir, sys);
	return walk_dir(path, walk_tracepoint, w);
}

/* every tracepoint (a directory with an id), sorted; none if closed */
int
pctr__tracefs_walk(int (*cb)(const char *sys, const char *name, void *),
		   void *arg)
{
	char dir[512];
	struct tp_walk w = { dir, NULL, cb, arg };

	if (pctr__tracefs_events(dir, sizeof(dir)) < 0)
		return 0;
	return walk_dir(dir, walk_subsystem, &w);
}
