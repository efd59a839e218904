/* SPDX-License-Identifier: MIT */
/*
 * fault.c - the interposer behind fault.h.
 *
 * The real functions come from dlsym(RTLD_NEXT), except the allocators,
 * which call glibc's __libc_* entry points: dlsym itself may allocate.
 * Counters are atomics: tests call the library from several threads.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"

#define EXPORT __attribute__((visibility("default")))

struct fault {
	int nth, err, times; /* armed when nth > 0 */
	int calls, injected;
};

static struct fault faults[FAULT_NR];

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

EXPORT void
fault_arm(enum fault_kind kind, int nth, int err, int times)
{
	struct fault *f = &faults[kind];

	__atomic_store_n(&f->nth, 0, __ATOMIC_SEQ_CST);
	f->err = err;
	f->times = times;
	__atomic_store_n(&f->calls, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&f->injected, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&f->nth, nth, __ATOMIC_SEQ_CST);
}

EXPORT void
fault_reset(void)
{
	for (int k = 0; k < FAULT_NR; k++)
		fault_arm(k, 0, 0, 0);
}

EXPORT int
fault_calls(enum fault_kind kind)
{
	return __atomic_load_n(&faults[kind].calls, __ATOMIC_SEQ_CST);
}

EXPORT int
fault_injected(enum fault_kind kind)
{
	return __atomic_load_n(&faults[kind].injected, __ATOMIC_SEQ_CST);
}

/* Count a call; return the error to inject, or 0 to let it through. */
static int
hit(enum fault_kind kind)
{
	struct fault *f = &faults[kind];
	int nth = __atomic_load_n(&f->nth, __ATOMIC_SEQ_CST);
	int n = __atomic_add_fetch(&f->calls, 1, __ATOMIC_SEQ_CST);

	if (nth <= 0 || n < nth || (f->times >= 0 && n >= nth + f->times))
		return 0;
	__atomic_add_fetch(&f->injected, 1, __ATOMIC_SEQ_CST);
	return f->err;
}

static int
is_perf_fd(int fd)
{
	char path[64], link[64];
	ssize_t n;
	int saved = errno;

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	errno = saved;
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[perf_event]") == 0;
}

/* ---- the interposed calls ------------------------------------------------ */

EXPORT long
syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int err;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open && (err = hit(FAULT_PERF_OPEN))) {
		errno = err;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

EXPORT void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	int err;

	if (is_perf_fd(fd) && (err = hit(FAULT_MMAP))) {
		errno = err;
		return MAP_FAILED;
	}
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(
			RTLD_NEXT, "mmap");
	return real(addr, len, prot, flags, fd, off);
}

EXPORT ssize_t
read(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);
	int err = is_perf_fd(fd) ? hit(FAULT_READ) : 0;
	ssize_t n;

	if (!real)
		real = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (err > 0) {
		errno = err;
		return -1;
	}
	if (err == FAULT_ZERO)
		return 0;
	n = real(fd, buf, len);
	if (err == FAULT_SHORT && n >= 8)
		n -= 8;
	return n;
}

EXPORT int
ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;
	int err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (is_perf_fd(fd) && (err = hit(FAULT_IOCTL))) {
		errno = err;
		return -1;
	}
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT,
							       "ioctl");
	return real(fd, req, arg);
}

EXPORT void *
malloc(size_t n)
{
	if (hit(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

EXPORT void *
calloc(size_t n, size_t size)
{
	if (hit(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

EXPORT void *
realloc(void *p, size_t n)
{
	if (hit(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

EXPORT int
fault_alloc_works(void)
{
	void *volatile p;
	int works;

	fault_arm(FAULT_ALLOC, 1, ENOMEM, 1);
	p = malloc(16);
	works = p == NULL;
	free(p);
	fault_arm(FAULT_ALLOC, 0, 0, 0);
	return works;
}

/* ---- $PCTR_FAULT ------------------------------------------------------- */

static int
parse_errno(const char *s)
{
	static const struct {
		const char *name;
		int err;
	} names[] = {
		{ "EMFILE", EMFILE }, { "ENFILE", ENFILE }, { "ENOENT", ENOENT },
		{ "EACCES", EACCES }, { "EPERM", EPERM },   { "EBUSY", EBUSY },
		{ "EINVAL", EINVAL }, { "ENOMEM", ENOMEM }, { "EINTR", EINTR },
		{ "EIO", EIO },       { "ENODEV", ENODEV }, { "ESRCH", ESRCH },
		{ "ECHILD", ECHILD },
		{ "short", FAULT_SHORT }, { "zero", FAULT_ZERO },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].err;
	return atoi(s);
}

__attribute__((constructor)) static void
fault_from_env(void)
{
	static const char *const kinds[FAULT_NR] = { "perf_open", "mmap",
						     "read", "ioctl", "alloc" };
	const char *env = getenv("PCTR_FAULT");
	char buf[256], *save = NULL;

	if (!env)
		return;
	snprintf(buf, sizeof(buf), "%s", env);
	for (char *item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char kind[32], err[32];
		int nth, times = 1;

		if (sscanf(item, "%31[^:]:%d:%31[^:]:%d", kind, &nth, err,
			   &times) < 3)
			continue;
		for (int k = 0; k < FAULT_NR; k++)
			if (!strcmp(kind, kinds[k]))
				fault_arm(k, nth, parse_errno(err), times);
	}
}
