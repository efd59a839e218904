/* SPDX-License-Identifier: MIT */
/*
 * report_file.c - the one rule of a report's file (text.h), for
 * libpctr's region report and libpctr-mpi's job report: never through a
 * symbolic link, a regular file only, and the sentence that says why not.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"

static const char *
kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFLNK:
		return "a symbolic link";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFDIR:
		return "a directory";
	}
	return "not a regular file";
}

/* @path, of mode @mode, refused: its errno, and why in @why */
static int
not_regular(const char *path, mode_t mode, char *why, size_t len)
{
	snprintf(why, len, "cannot write the report to '%s': it is %s; "
			   "reports are written to regular files only, never "
			   "through a symbolic link",
		 path, kind(mode));
	return S_ISLNK(mode) ? -ELOOP : S_ISDIR(mode) ? -EISDIR : -EINVAL;
}

/* @path could not be opened or written: -@err, and why in @why */
static int
cannot(const char *path, int err, char *why, size_t len)
{
	snprintf(why, len, "cannot write the report to '%s': %s", path,
		 strerror(err));
	return -err;
}

int
pctr__report_file_check(const char *path, char *why, size_t len)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return not_regular(path, st.st_mode, why, len);
	return 0;
}

int
pctr__report_file_open(const char *path, FILE **fp, char *why, size_t len)
{
	struct stat st;
	int fd, r = pctr__report_file_check(path, why, len);

	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
				O_NOCTTY | O_CLOEXEC,
		  0666);
	if (fd < 0 && errno == ELOOP)
		return not_regular(path, S_IFLNK, why, len);
	if (fd < 0)
		return cannot(path, errno, why, len);
	if (fstat(fd, &st) < 0)
		st.st_mode = 0; /* "not a regular file" */
	if (!S_ISREG(st.st_mode))
		r = not_regular(path, st.st_mode, why, len);
	else if (ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, 0) < 0 ||
		 !(*fp = fdopen(fd, "w")))
		r = cannot(path, errno, why, len);
	if (r < 0)
		close(fd);
	return r;
}
