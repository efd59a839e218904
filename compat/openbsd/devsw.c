/* SPDX-License-Identifier: MIT */
/*
 * devsw.c - open/ioctl/close interposition for the emulated BSD devices.
 *
 * Protocol (see devsw.h): a program's open() of a device path creates a
 * memfd and records (fd, its inode, the flags, the device) in a table.
 * ioctl() and close() look the fd up; a hit is trusted only if the fd
 * still refers to the same inode, because the program may have closed it
 * behind our back (fclose of an fdopen'ed stream, dup2 over it) and the
 * number may now belong to an unrelated file.  A stale entry is dropped and
 * the call goes to the C library, so nothing but our own descriptors is
 * ever touched.
 *
 * Thread-safe: the table is protected by one mutex, never held across a
 * device call.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devsw.h"

#define PCTR_EXPORT __attribute__((visibility("default")))
#define MAX_OPEN 64

struct slot {
	int fd; /* -1: free */
	dev_t dev;
	ino_t ino;
	int oflags;
	const struct pctr_bsd_dev *d;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[MAX_OPEN] = { [0 ... MAX_OPEN - 1] = { .fd = -1 } };

int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real___open_2(const char *path, int flags);
int __real___open64_2(const char *path, int flags);
int __real_openat(int dirfd, const char *path, int flags, ...);
int __real_openat64(int dirfd, const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
int __real_close(int fd);

static const struct pctr_bsd_dev *
find_dev(const char *path)
{
	const struct pctr_bsd_dev *devs[] = { &pctr_openbsd_dev,
					      &pctr_freebsd_dev };

	if (!path)
		return NULL;
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (devs[i] && !strcmp(path, devs[i]->path))
			return devs[i];
	return NULL;
}

/* record @fd as a descriptor of @d: 0 or ENFILE */
static int
remember(int fd, const struct stat *sb, int flags,
	 const struct pctr_bsd_dev *d)
{
	int err = ENFILE;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_OPEN; i++) {
		if (slots[i].fd < 0) {
			slots[i] = (struct slot){ fd, sb->st_dev, sb->st_ino,
						  flags, d };
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return err;
}

static int
dev_open(const struct pctr_bsd_dev *d, int flags)
{
	struct stat sb;
	int fd, err;

	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) ||
	    (flags & O_DIRECTORY)) {
		errno = flags & O_DIRECTORY ? ENOTDIR : EEXIST;
		return -1;
	}
	fd = memfd_create(d->path, flags & O_CLOEXEC ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	err = fstat(fd, &sb) < 0 ? errno : d->open(flags);
	if (!err) {
		err = remember(fd, &sb, flags, d);
		if (err)
			d->close(flags);
	}
	if (err) {
		__real_close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/*
 * The slot of @fd if it is still the descriptor we made, else NULL (a
 * stale entry is freed on the way).  Called with the lock held.
 */
static struct slot *
lookup(int fd)
{
	struct stat sb;

	if (fd < 0)
		return NULL;
	for (int i = 0; i < MAX_OPEN; i++) {
		if (slots[i].fd != fd)
			continue;
		if (fstat(fd, &sb) == 0 && sb.st_dev == slots[i].dev &&
		    sb.st_ino == slots[i].ino)
			return &slots[i];
		slots[i].d->close(slots[i].oflags);
		slots[i].fd = -1;
	}
	return NULL;
}

static int
mode_arg(int flags, va_list ap)
{
	return flags & (O_CREAT | __O_TMPFILE) ? va_arg(ap, int) : 0;
}

PCTR_EXPORT int
__wrap_open(const char *path, int flags, ...)
{
	const struct pctr_bsd_dev *d = find_dev(path);
	va_list ap;
	int mode;

	if (d)
		return dev_open(d, flags);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return __real_open(path, flags, mode);
}

PCTR_EXPORT int
__wrap_open64(const char *path, int flags, ...)
{
	const struct pctr_bsd_dev *d = find_dev(path);
	va_list ap;
	int mode;

	if (d)
		return dev_open(d, flags);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return __real_open64(path, flags, mode);
}

PCTR_EXPORT int
__wrap___open_2(const char *path, int flags)
{
	const struct pctr_bsd_dev *d = find_dev(path);

	return d ? dev_open(d, flags) : __real___open_2(path, flags);
}

PCTR_EXPORT int
__wrap___open64_2(const char *path, int flags)
{
	const struct pctr_bsd_dev *d = find_dev(path);

	return d ? dev_open(d, flags) : __real___open64_2(path, flags);
}

PCTR_EXPORT int
__wrap_openat(int dirfd, const char *path, int flags, ...)
{
	const struct pctr_bsd_dev *d = find_dev(path);
	va_list ap;
	int mode;

	if (d)
		return dev_open(d, flags);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return __real_openat(dirfd, path, flags, mode);
}

PCTR_EXPORT int
__wrap_openat64(int dirfd, const char *path, int flags, ...)
{
	const struct pctr_bsd_dev *d = find_dev(path);
	va_list ap;
	int mode;

	if (d)
		return dev_open(d, flags);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return __real_openat64(dirfd, path, flags, mode);
}

PCTR_EXPORT int
__wrap_ioctl(int fd, unsigned long req, ...)
{
	const struct pctr_bsd_dev *d = NULL;
	struct slot *s;
	void *arg;
	va_list ap;
	int oflags = 0, err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	pthread_mutex_lock(&lock);
	s = lookup(fd);
	if (s) {
		d = s->d;
		oflags = s->oflags;
	}
	pthread_mutex_unlock(&lock);
	if (!d)
		return __real_ioctl(fd, req, arg);
	/* BSD requests are 32 bits: ignore a sign extension by the caller */
	err = d->ioctl(oflags, req & 0xffffffffUL, arg);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

PCTR_EXPORT int
__wrap_close(int fd)
{
	const struct pctr_bsd_dev *d = NULL;
	struct slot *s;
	int oflags = 0;

	pthread_mutex_lock(&lock);
	s = lookup(fd);
	if (s) {
		d = s->d;
		oflags = s->oflags;
		s->fd = -1;
	}
	pthread_mutex_unlock(&lock);
	if (d)
		d->close(oflags);
	return __real_close(fd);
}
