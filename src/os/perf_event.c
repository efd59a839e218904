/* SPDX-License-Identifier: MIT */
/*
 * os/perf_event.c - every call into the kernel goes through here.
 *
 * Each wrapper returns a value or a negative errno, so the core never looks
 * at errno.  They use the ordinary libc entry points (syscall, read, ioctl,
 * mmap), so a test can interpose them with LD_PRELOAD to inject failures.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../internal.h"

int
pctr__sys_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags)
{
	long fd;

	do
		fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			     flags | PERF_FLAG_FD_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : (int)fd;
}

int
pctr__sys_close(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

ssize_t
pctr__sys_read(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int
pctr__sys_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int
pctr__sys_fstat(int fd, uint64_t *dev, uint64_t *ino, unsigned int *mode)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*dev = st.st_dev;
	*ino = st.st_ino;
	*mode = st.st_mode;
	return 0;
}

void *
pctr__sys_mmap(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int
pctr__sys_munmap(void *addr, size_t len)
{
	return munmap(addr, len) < 0 ? -errno : 0;
}
