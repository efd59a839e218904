/* SPDX-License-Identifier: MIT */
/*
 * devsw.c - open/ioctl/close interposition for the emulated BSD devices.
 *
 * Protocol (see devsw.h):
 *  - open() of a device (the path's directory is /dev by identity, its
 *    last component the device's name: "/dev//pctr" and "../dev/pctr"
 *    from /tmp are the device too) creates a memfd and records its inode,
 *    the open flags and the device in a slot.  The inode is the identity
 *    of that open file: dup(), dup2() and fork share it, as a BSD device's
 *    descriptors share their file.
 *  - ioctl() and close() of any descriptor first read one counter (how
 *    many slots are live); while it is zero they go straight to the C
 *    library.  Otherwise fstat() of the descriptor is compared with the
 *    slots claimed so far.  No lock, no allocation: async-signal-safe, and
 *    a child forked while another thread was inside cannot find anything
 *    held.  That fstat() is the one system call the identity needs: only
 *    the kernel knows what a descriptor refers to now (the program may
 *    have closed it behind our back and opened something else under its
 *    number), so a device ioctl is never free of system calls; rdpmc() is
 *    the read without one (pctr_openbsd(4)).
 *  - close() of the device's last descriptor closes the device: after the
 *    C library's close, the process's descriptors (/proc/self/fd, read
 *    with getdents64) are searched for the same inode.  Files the program
 *    closed behind our back (fclose of an fdopen'ed stream, dup2 over it)
 *    are found the same way at the next open of a device.
 *  - Slots are claimed and freed with compare-and-swap: FREE -> BUSY (being
 *    filled or emptied, never matched) -> LIVE -> BUSY -> FREE.  The state
 *    word also counts the slot's lives: a thread that saw a slot live
 *    releases it only if it is still the same life (the word it saw), and
 *    reads its file's identity only between two equal readings of the
 *    word.  Otherwise a thread that saw file X's slot, found X closed and
 *    released the slot when another thread had meanwhile reused it for a
 *    new open of the device: that thread's next ioctl was ENOTTY (a
 *    threaded program opening and closing /dev/pctr: 13 runs in 30).
 *  - On BSD an ioctl is one system call: a signal lands before or after
 *    it, never inside.  Here the driver runs in user space, so a handler
 *    that closes the device's last descriptor while its own thread is in
 *    a device ioctl closes the descriptor at once (the program's next call
 *    sees EBADF) but the driver's close waits until that ioctl returns,
 *    as if the signal had come after it.
 *  - An argument the request's BSD encoding says is read or written is
 *    copied in and out as the BSD kernel's ioctl does, with
 *    process_vm_readv/writev: NULL or unmapped memory is EFAULT, as the
 *    drivers' copyin/copyout say, not a crash.
 */
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sys/ioccom.h>

#include "arch_bsd.h"

#include "devsw.h"

#define PCTR_EXPORT __attribute__((visibility("default")))
#define MAX_OPEN 64

/* a slot's word: the state in the low bits, above them its lives */
enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE, SLOT_STATE = 3, SLOT_LIFE = 4 };

struct slot {
	atomic_uint word;
	atomic_ulong dev; /* the open file's identity, set while BUSY */
	atomic_ulong ino;
	int oflags;
	const struct pctr_bsd_dev *d;
};

/* what a thread saw of a live slot */
struct seen {
	struct slot *s;
	unsigned int word;
	unsigned long dev, ino;
};

/* this thread's device ioctls in progress, and closes waiting for them */
#define MAX_PENDING 8
#define PER_THREAD static __thread __attribute__((tls_model("initial-exec")))
PER_THREAD volatile sig_atomic_t in_call;
PER_THREAD struct seen pending[MAX_PENDING];
PER_THREAD volatile sig_atomic_t nr_pending;

static struct slot slots[MAX_OPEN];
static atomic_int nr_live;
/* slots ever claimed: [0, nr_used); the first free slot is claimed first */
static atomic_int nr_used;


int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real___open_2(const char *path, int flags);
int __real___open64_2(const char *path, int flags);
int __real_openat(int dirfd, const char *path, int flags, ...);
int __real_openat64(int dirfd, const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
int __real_close(int fd);

/* ---- which path is a device ---------------------------------------------- */

/* @path's last component, past trailing slashes: [*@name, *@name + *@len) */
static void
last_component(const char *path, const char **name, size_t *len)
{
	size_t end = strlen(path), start;

	while (end > 1 && path[end - 1] == '/')
		end--;
	start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	*name = path + start;
	*len = end - start;
}

/* is the directory part of @path (from @dirfd) the same directory as /dev */
static int
in_dev_dir(int dirfd, const char *path, size_t dirlen)
{
	char dir[4096];
	struct stat a, b;

	if (dirlen >= sizeof(dir))
		return 0;
	memcpy(dir, path, dirlen);
	dir[dirlen] = '\0';
	if (dirlen == 0)
		strcpy(dir, ".");
	return fstatat(dirfd, dir, &a, 0) == 0 && stat("/dev", &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static const struct pctr_bsd_dev *
find_dev(int dirfd, const char *path)
{
	const struct pctr_bsd_dev *devs[] = { &pctr_openbsd_dev,
					      &pctr_freebsd_dev };
	const char *name;
	size_t len;

	if (!path || !*path)
		return NULL;
	last_component(path, &name, &len);
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		const char *base;

		if (!devs[i])
			continue;
		base = strrchr(devs[i]->path, '/') + 1;
		if (len == strlen(base) && !strncmp(name, base, len) &&
		    in_dev_dir(dirfd, path, (size_t)(name - path)))
			return devs[i];
	}
	return NULL;
}

/* ---- which descriptor is a device ---------------------------------------- */

/*
 * The identity of @fd's open file.  The fstat system call itself: glibc
 * 2.33 and later implement fstat() as fstatat(fd, "", AT_EMPTY_PATH),
 * which the kernel (6.1) treats as a path lookup of an empty name, a name
 * buffer allocated and freed for every ioctl().  The port says where the
 * kernel's struct stat is the C library's (arch_bsd.h: 32-bit systems
 * have an older layout behind SYS_fstat; riscv64 has no such call).
 */
static int
identity(int fd, struct stat *sb)
{
	if (PCTR_ARCH_SYS_FSTAT < 0)
		return fstat(fd, sb);
	return (int)syscall(PCTR_ARCH_SYS_FSTAT, fd, sb);
}

/* @s, if live: its word and identity, read between two equal words */
static int
see(struct slot *s, struct seen *v)
{
	v->s = s;
	v->word = atomic_load(&s->word);
	if ((v->word & SLOT_STATE) != SLOT_LIVE)
		return 0;
	v->dev = atomic_load(&s->dev);
	v->ino = atomic_load(&s->ino);
	return atomic_load(&s->word) == v->word;
}

/* the live slot whose open file @fd is; lock-free */
static int
lookup(int fd, struct seen *v)
{
	struct stat sb;

	if (fd < 0 || atomic_load(&nr_live) == 0 || identity(fd, &sb) < 0)
		return 0;
	for (int i = 0, n = atomic_load(&nr_used); i < n; i++)
		if (see(&slots[i], v) && v->dev == sb.st_dev &&
		    v->ino == sb.st_ino)
			return 1;
	return 0;
}

/*
 * Does any descriptor of the process still refer to the file @v saw?
 * Reads /proc/self/fd with the raw system calls (opendir allocates).  If
 * /proc cannot be read, the answer is yes: the device stays open.
 */
static int
still_open(const struct seen *v)
{
	char buf[4096];
	int dfd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd",
			       O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;
	int found = dfd < 0;

	while (!found && (n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) >
				 0) {
		for (long off = 0; off < n && !found;) {
			struct dirent64 *e = (struct dirent64 *)(buf + off);
			struct stat sb;
			int fd = 0;

			for (const char *c = e->d_name; *c >= '0' && *c <= '9';
			     c++)
				fd = fd * 10 + (*c - '0');
			found = e->d_name[0] != '.' && fd != dfd &&
				identity(fd, &sb) == 0 && sb.st_dev == v->dev &&
				sb.st_ino == v->ino;
			off += e->d_reclen;
		}
	}
	if (dfd >= 0)
		syscall(SYS_close, dfd);
	return found;
}

/*
 * Close the device behind the slot @v saw if no descriptor refers to its
 * file any more, and if the slot is still in the life @v saw.
 */
static void
release_if_closed(const struct seen *v)
{
	unsigned int live = v->word, life = v->word & ~SLOT_STATE;

	if (still_open(v) || !atomic_compare_exchange_strong(
				     &v->s->word, &live, life | SLOT_BUSY))
		return;
	atomic_fetch_sub(&nr_live, 1);
	v->s->d->close(v->s->oflags);
	atomic_store(&v->s->word, life | SLOT_FREE);
}

/* files closed where we could not see it: dup2 over them, fclose */
static void
sweep(void)
{
	struct seen v;

	for (int i = 0; atomic_load(&nr_live) && i < MAX_OPEN; i++)
		if (see(&slots[i], &v))
			release_if_closed(&v);
}

/* lookup() scans [0, @n) from now on; before the slot goes live */
static void
raise_used(int n)
{
	int used = atomic_load(&nr_used);

	while (used < n && !atomic_compare_exchange_weak(&nr_used, &used, n))
		;
}

/* record @sb's file as an open file of @d: 0 or ENFILE */
static int
remember(const struct stat *sb, int flags, const struct pctr_bsd_dev *d)
{
	for (int i = 0; i < MAX_OPEN; i++) {
		unsigned int w = atomic_load(&slots[i].word);
		unsigned int life = (w & ~SLOT_STATE) + SLOT_LIFE;

		if ((w & SLOT_STATE) != SLOT_FREE ||
		    !atomic_compare_exchange_strong(&slots[i].word, &w,
						    life | SLOT_BUSY))
			continue;
		raise_used(i + 1);
		atomic_store(&slots[i].dev, sb->st_dev);
		atomic_store(&slots[i].ino, sb->st_ino);
		slots[i].oflags = flags;
		slots[i].d = d;
		atomic_fetch_add(&nr_live, 1);
		atomic_store(&slots[i].word, life | SLOT_LIVE);
		return 0;
	}
	return ENFILE;
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
	sweep();
	fd = memfd_create(d->path, flags & O_CLOEXEC ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	err = fstat(fd, &sb) < 0 ? errno : d->open(flags);
	if (!err) {
		err = remember(&sb, flags, d);
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

/* ---- arguments ------------------------------------------------------------ */

/*
 * This process's id for process_vm_readv/writev, without a system call
 * per ioctl (glibc's getpid() makes one); the child of fork() learns its own.
 */
static pid_t my_pid;

static void
learn_pid(void)
{
	my_pid = getpid();
}

__attribute__((constructor)) static void
pid_atfork(void)
{
	learn_pid();
	pthread_atfork(NULL, NULL, learn_pid);
}

static pid_t
self(void)
{
	return my_pid ? my_pid : getpid();
}

/* copy @len bytes between this process's @to and @from; 0 or EFAULT */
static int
copy(void *to, const void *from, size_t len, int out)
{
	struct iovec mine = { out ? (void *)from : to, len };
	struct iovec theirs = { out ? to : (void *)from, len };
	ssize_t n = out ? process_vm_writev(self(), &mine, 1, &theirs, 1, 0)
			: process_vm_readv(self(), &mine, 1, &theirs, 1, 0);

	return n == (ssize_t)len ? 0 : EFAULT;
}

/*
 * Run BSD request @req of device @v on a copy of its argument, as the BSD
 * kernel's ioctl does: copyin for IOC_IN, a zeroed buffer for IOC_OUT
 * alone, the driver, then copyout for IOC_OUT if the driver succeeded.  A
 * NULL or unmapped argument is EFAULT, not a crash.  One system call for
 * IOC_IN or IOC_OUT (PCIOCRD, PCIOCSn), two for both (PMIOREAD).
 */
static int
dev_ioctl(const struct seen *v, unsigned long req, void *arg)
{
	size_t len = (req >> 16) & __BSD_IOCPARM_MASK;
	unsigned char buf[__BSD_IOCPARM_MASK + 1];
	int err;

	if (!(req & __BSD_IOC_INOUT) || len == 0)
		return v->s->d->ioctl(v->s->oflags, req, arg);
	if (!arg)
		return EFAULT;
	if (req & __BSD_IOC_IN)
		err = copy(buf, arg, len, 0);
	else
		err = (memset(buf, 0, len), 0);
	if (!err)
		err = v->s->d->ioctl(v->s->oflags, req, buf);
	/*
	 * The kernel's copy proves the buffer writable; memcpy() then writes
	 * it again where a memory checker sees it (valgrind does not know
	 * that process_vm_writev() wrote this process's own memory).
	 */
	if (!err && (req & __BSD_IOC_OUT)) {
		err = copy(arg, buf, len, 1);
		if (!err)
			memcpy(arg, buf, len);
	}
	return err;
}

static int
mode_arg(int flags, va_list ap)
{
	return flags & (O_CREAT | __O_TMPFILE) ? va_arg(ap, int) : 0;
}

PCTR_EXPORT int
__wrap_open(const char *path, int flags, ...)
{
	const struct pctr_bsd_dev *d = find_dev(AT_FDCWD, path);
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
	const struct pctr_bsd_dev *d = find_dev(AT_FDCWD, path);
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
	const struct pctr_bsd_dev *d = find_dev(AT_FDCWD, path);

	return d ? dev_open(d, flags) : __real___open_2(path, flags);
}

PCTR_EXPORT int
__wrap___open64_2(const char *path, int flags)
{
	const struct pctr_bsd_dev *d = find_dev(AT_FDCWD, path);

	return d ? dev_open(d, flags) : __real___open64_2(path, flags);
}

PCTR_EXPORT int
__wrap_openat(int dirfd, const char *path, int flags, ...)
{
	const struct pctr_bsd_dev *d = find_dev(dirfd, path);
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
	const struct pctr_bsd_dev *d = find_dev(dirfd, path);
	va_list ap;
	int mode;

	if (d)
		return dev_open(d, flags);
	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return __real_openat64(dirfd, path, flags, mode);
}

/* the closes a signal handler made while this thread was in an ioctl */
static void
run_pending(void)
{
	while (nr_pending > 0) {
		struct seen v = pending[nr_pending - 1];

		nr_pending--;
		release_if_closed(&v);
	}
}

PCTR_EXPORT int
__wrap_ioctl(int fd, unsigned long req, ...)
{
	struct seen v;
	void *arg;
	va_list ap;
	int err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	/*
	 * In the call from before the lookup: a handler's close() that comes
	 * after it waits for this ioctl, as if the signal had come after the
	 * system call; one that comes before it leaves the lookup nothing
	 * (the descriptor is gone: EBADF, as if before).  Counted only from
	 * after the lookup, a close between the two ran the driver's close
	 * under this ioctl, which then found the device closed (fbsd_sigread:
	 * PMIOREAD failed with EBUSY in 1 run of 150).
	 */
	in_call++;
	if (!lookup(fd, &v)) {
		if (--in_call == 0)
			run_pending();
		return __real_ioctl(fd, req, arg);
	}
	/* BSD requests are 32 bits: ignore a sign extension by the caller */
	req &= 0xffffffffUL;
	err = dev_ioctl(&v, req, arg);
	if (--in_call == 0)
		run_pending();
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

PCTR_EXPORT int
__wrap_close(int fd)
{
	struct seen v;
	int ours = lookup(fd, &v);
	int r = __real_close(fd), saved = errno;

	if (ours && in_call && nr_pending < MAX_PENDING)
		pending[nr_pending++] = v;
	else if (ours)
		release_if_closed(&v);
	errno = saved;
	return r;
}
