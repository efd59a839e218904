/* SPDX-License-Identifier: MIT */
/*
 * repro.h - what several reproducers share: plain perf_event_open, the
 * clocks, the thread's switches, pinning.  Nothing of libpctr.
 */
#ifndef PCTR_REPRO_H
#define PCTR_REPRO_H

#include <linux/perf_event.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* a counter of the calling thread, counting from now, user and kernel */
static inline int
repro_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/*
 * A task-clock sampler of the calling thread, counting from now: a sample
 * of the IP every @period ns of its time; @user_only: exclude_kernel
 * (the kernel's time still counts; its expiries there are dropped).
 */
static inline int
repro_task_clock_sampler(uint64_t period, int user_only)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = user_only ? 1 : 0;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* @fn on the IP of each sample in the ring of @pg (PERF_SAMPLE_IP alone) */
static inline void
repro_ring_ips(const struct perf_event_mmap_page *pg,
	       void (*fn)(uint64_t ip, void *arg), void *arg)
{
	const char *d = (const char *)pg + pg->data_offset;

	for (uint64_t pos = pg->data_tail; pos < pg->data_head;) {
		const struct perf_event_header *h =
			(const void *)(d + pos % pg->data_size);
		uint64_t ip;

		if (h->type == PERF_RECORD_SAMPLE) {
			memcpy(&ip, d + (pos + sizeof(*h)) % pg->data_size,
			       sizeof(ip));
			fn(ip, arg);
		}
		pos += h->size;
	}
}

static inline uint64_t
repro_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the calling thread's context switches so far, voluntary or not */
static inline long
repro_switches(void)
{
	struct rusage r;

	getrusage(RUSAGE_THREAD, &r);
	return r.ru_nvcsw + r.ru_nivcsw;
}

static inline void
repro_pin_cpu0(void)
{
	cpu_set_t c;

	CPU_ZERO(&c);
	CPU_SET(0, &c);
	sched_setaffinity(0, sizeof(c), &c);
}

/* a child spinning on CPU 0 until killed (SIGKILL, then waitpid) */
static inline pid_t
repro_spinner_cpu0(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		repro_pin_cpu0();
		for (;;)
			;
	}
	return pid;
}

/*
 * Running this program again: the name to give another program (valgrind)
 * that is to run it, written into @buf.  Never the path readlink() makes
 * of /proc/self/exe: the kernel spells it from the mount the file was
 * executed from, up to the caller's root, and where that root cannot be
 * reached from the mount, from the top of the mount's namespace.  After
 * unshare(CLONE_NEWNS) (repro_valgrind_own_work mounts tracefs so) the
 * program's own file is on a mount of the namespace it left: in a chroot
 * readlink() gave "/repro_valgrind_own_work" for /src/..., a file that
 * does not exist, and the exec failed with ENOENT.  So it is after a
 * rebuild ("... (deleted)").  An open descriptor of /proc/self/exe, left
 * open across exec, names this very file in the program it is handed to.
 * Call it in the child that execs; the program itself execs
 * "/proc/self/exe".
 */
static inline int
repro_self_for_exec(char *buf, size_t len)
{
	int fd = open("/proc/self/exe", O_RDONLY);

	if (fd < 0)
		return -1;
	snprintf(buf, len, "/proc/self/fd/%d", fd);
	return 0;
}

/*
 * In a child about to exec, whose @call (e.g. "execv(/proc/self/exe)")
 * failed: say why on standard output (one line, unbuffered: the child
 * leaves with _exit()) and leave with 127.
 */
static inline void
repro_exec_failed(const char *call)
{
	int e = errno;

	dprintf(1, "%s failed: %s (%s)\n", call, strerrorname_np(e),
		strerror(e));
	_exit(127);
}

/*
 * Fresh pages to touch: each first touch is a page fault, kernel mode in
 * the thread's own context and no system call, as a program filling new
 * memory does.  All touched, they are dropped (MADV_DONTNEED) and fresh
 * again.  repro_pages_map() maps 16 MiB, reserving nothing; -1 if it
 * cannot.
 */
struct repro_pages {
	char *base;
	size_t nr, next, size;
};

static inline int
repro_pages_map(struct repro_pages *p)
{
	p->size = (size_t)sysconf(_SC_PAGESIZE);
	p->nr = (16u << 20) / p->size;
	p->next = 0;
	p->base = mmap(NULL, p->nr * p->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p->base == MAP_FAILED ? -1 : 0;
}

static inline void
repro_fault_page(struct repro_pages *p)
{
	if (p->next == p->nr) {
		madvise(p->base, p->nr * p->size, MADV_DONTNEED);
		p->next = 0;
	}
	p->base[p->next++ * p->size] = 1;
}

#endif
