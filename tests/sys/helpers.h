/* SPDX-License-Identifier: MIT */
/* helpers.h - work with a known effect on software events, for sys tests. */
#ifndef PCTR_SYS_HELPERS_H
#define PCTR_SYS_HELPERS_H

#include <dirent.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include "test.h"

/* Touch @pages fresh pages: exactly @pages minor faults (test.h), or abort. */
static inline void
touch_pages(size_t pages)
{
	if (test_touch_pages(pages) < 0)
		abort();
}

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static inline uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * Spin until this thread has run @ns nanoseconds on a CPU (not wall time:
 * on a busy machine the thread may wait for a CPU meanwhile).  It polls the
 * thread's CPU clock, a system call: most of its time is in the kernel, so
 * it is for counting CPU time, never for sampling a :u event (an overflow
 * that falls in the kernel is no sample of user mode).  spin_user_ns() is
 * the workload for those.
 */
static inline void
spin_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end)
		;
}

/*
 * User-mode work: a loop of arithmetic in its own section, so that tests
 * can check that a sampled PC falls inside it (__start_pctr_work and
 * __stop_pctr_work bound it).
 */
extern const char __start_pctr_work[], __stop_pctr_work[];
static volatile uint64_t spin_sink;

/*
 * What a spin saw of its own running: its wall time, and the gaps in it,
 * the stretches of a millisecond or more between two looks at the clock
 * 1024 iterations apart (a microsecond or so).  In a gap the thread did
 * not run its loop: another thread had the CPU, or the host took the VM's
 * CPU.  The host does not always report that to the guest as steal, and
 * then the thread's CPU clock and task-clock count the time, though no
 * timer fired in it: task-clock's hrtimer, late by more than its period,
 * skips the periods it missed (hrtimer_forward_now()), one sample for
 * them all.  wall - gaps, the time the loop was seen running, is what a
 * sampler can be held to.  Shorter gaps are left in: a timer late by less
 * than a period stays on its grid and misses nothing, and those are the
 * interrupts and the signal handlers, tens of microseconds each here.
 * The tests' period is 1 ms; a test with a longer one is held no worse.
 */
struct spin_seen {
	uint64_t wall_ns, gap_ns, gaps;
	uint64_t cpu_ns; /* the thread's CPU clock over the spin */
	long switches;	 /* the thread's context switches in it */
};

#define SPIN_GAP_NS 20000
static double spin_ticks_per_ns;

/*
 * The chain lives in a register, and the empty asm keeps the compiler from
 * folding it: threads spinning at once must not share a cache line at
 * every iteration (a volatile global written by each made them 5 to 10
 * times slower than the measured speed, and their spins that much longer).
 */
__attribute__((noinline, unused, section("pctr_work"))) static void
spin_iters(uint64_t n, struct spin_seen *seen)
{
	uint64_t x = 0, t0 = ticks_now(), t = t0, gap = 0, gaps = 0;
	uint64_t min_gap = (uint64_t)(SPIN_GAP_NS * spin_ticks_per_ns);

	for (uint64_t i = 0; i < n; i++) {
		x = x * 31 + i;
		__asm__ volatile("" : "+r"(x));
		if ((i & 1023) == 1023) {
			uint64_t u = ticks_now();

			if (u - t >= min_gap) {
				gap += u - t;
				gaps++;
			}
			t = u;
		}
	}
	spin_sink = x;
	if (seen && spin_ticks_per_ns > 0) {
		seen->wall_ns = (uint64_t)((ticks_now() - t0) /
					   spin_ticks_per_ns);
		seen->gap_ns = (uint64_t)(gap / spin_ticks_per_ns);
		seen->gaps = gaps;
	}
}

/*
 * Run about @ns nanoseconds of this thread's CPU time in user mode: a
 * fixed number of iterations of spin_iters(), with no system call inside
 * (test_overflow's spin_helper_makes_no_system_call runs it under a
 * seccomp filter that kills at any).  The loop's speed is measured once, when the program
 * starts (before any test counts anything, so that no sample falls in the
 * measurement): the fastest of three runs of 2 ms or so, the one least
 * disturbed.  The duration is approximate (a loaded machine makes the
 * measurement a few percent off); tests compare samples with the CPU time
 * really spent, read from task-clock or the thread's clock.
 *
 * Not a loop that polls the CPU clock: each poll is a system call, and
 * one every period or so phase-locks with task-clock's hrtimer, whose
 * overflows then keep landing in the kernel, where a :u event has no
 * sample (spin_ns() spends 91% of its time there).
 */
static double spin_per_ns;

__attribute__((constructor, unused)) static void
spin_calibrate(void)
{
	uint64_t w0 = now_ns(), k0 = ticks_now(), w;

	for (int i = 0; i < 3; i++) {
		uint64_t t0 = thread_cpu_ns(), t;
		double r;

		spin_iters(2000000, NULL);
		t = thread_cpu_ns() - t0;
		r = 2000000.0 / (double)(t ? t : 1);
		if (r > spin_per_ns)
			spin_per_ns = r;
	}
	w = now_ns() - w0;
	spin_ticks_per_ns = (double)(ticks_now() - k0) / (double)(w ? w : 1);
}

static inline void
spin_user_ns(uint64_t ns)
{
	spin_iters((uint64_t)(spin_per_ns * (double)ns), NULL);
}

/*
 * The thread's CPU clock and switches, by system calls straight into the
 * C library (not the vDSO, not a sanitizer's interceptor), for
 * spin_user_ns_seen(): an overflow's PC in them is in the C library,
 * which the tests take for the signal's delivery; in the code around
 * them, in pctr_work.
 */
__attribute__((always_inline, unused)) static inline uint64_t
spin_cpu_ns(void)
{
	struct timespec ts = { 0, 0 };

	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((always_inline, unused)) static inline long
spin_switches(void)
{
	struct rusage r;

	memset(&r, 0, sizeof(r));
	syscall(SYS_getrusage, RUSAGE_THREAD, &r);
	return r.ru_nvcsw + r.ru_nivcsw;
}

/*
 * The same, and what it saw of its own running (struct spin_seen), with
 * the thread's CPU clock and switches around it (two system calls each
 * side of the loop, none in it).  In pctr_work as the loop is: a PC in
 * this bookkeeping is the spin's.
 */
__attribute__((noinline, unused, section("pctr_work"))) static void
spin_user_ns_seen(uint64_t ns, struct spin_seen *seen)
{
	uint64_t c0 = spin_cpu_ns();
	long s0 = spin_switches();

	spin_iters((uint64_t)(spin_per_ns * (double)ns), seen);
	seen->cpu_ns = spin_cpu_ns() - c0;
	seen->switches = spin_switches() - s0;
}

/*
 * A plain perf_event_open task-clock:u sampler on the calling thread, to
 * set beside a set of the library's: the kernel's own number of samples
 * for the same thread over the same time.  On a loaded VM the hrtimer
 * behind task-clock sometimes delivers a few percent fewer samples than
 * the whole periods of CPU time (tests/repro/repro_task_clock_inherit, modes d
 * and e: 94% to 99.6% for one thread); both samplers go through the same
 * hiccups, so the library is held to the kernel's figure rather than to
 * the arithmetic one.  Not quite the same: a :u sampler drops the expiries
 * that interrupt the kernel, and two at other phases drop others
 * (ref_open_all() below).
 */
#define REF_MAX_CPUS 64
struct ref_sampler {
	int nr; /* rings: 1, or one per CPU */
	int fd[REF_MAX_CPUS];
	void *ring[REF_MAX_CPUS];
	size_t len;
};

static inline int
ref_perf_open(struct perf_event_attr *a, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, 0, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/*
 * Opened right after pctr_set_enable() and closed right before
 * pctr_set_disable(), so that it samples within the set's window and not
 * the library's own enable and disable (slow under ASan and valgrind).
 * @inherit: follow the threads created later, as PCTR_TARGET_PROCESS does,
 * and as perf record does: one counter and ring per CPU.  (The kernel
 * maps no ring on an inherited counter of every CPU, and one shared
 * through PERF_EVENT_IOC_SET_OUTPUT is written by several CPUs at once and
 * can stop publishing: tests/repro/repro_shared_ring_head.)
 * @user: task-clock:u as the set's event, or task-clock with the kernel in
 * (ref_open_all()).
 */
static inline void
ref_open_mode(struct ref_sampler *r, uint64_t period, int inherit, int user)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = !!user,
		.exclude_hv = 1, .sample_period = period,
		.sample_type = PERF_SAMPLE_IP, .inherit = !!inherit,
	};

	r->len = 65 * (size_t)sysconf(_SC_PAGESIZE);
	r->nr = inherit ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	if (r->nr > REF_MAX_CPUS)
		abort();
	for (int i = 0; i < r->nr; i++) {
		r->fd[i] = ref_perf_open(&a, inherit ? i : -1);
		if (r->fd[i] < 0) {
			/* the kernel in needs perf_event_paranoid <= 1 */
			printf("# the plain sampler: perf_event_open: %s\n",
			       strerror(errno));
			abort();
		}
		r->ring[i] = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, r->fd[i], 0);
		if (r->ring[i] == MAP_FAILED)
			abort();
	}
}

static inline void
ref_open(struct ref_sampler *r, uint64_t period, int inherit)
{
	ref_open_mode(r, period, inherit, 1);
}

/*
 * task-clock with the kernel in: every expiry of its hrtimer is a sample.
 * A :u sampler drops an expiry that interrupts the kernel
 * (tests/repro/repro_task_clock_user_drops, on a user-mode loop), so two :u
 * samplers of one thread opened at other moments (other phases) lose other
 * samples:
 * under AddressSanitizer on a busy machine a set's and a plain one differed
 * by 4 of 60 and 11 of 174.  Without the filter they lose none of them.
 */
static inline void
ref_open_all(struct ref_sampler *r, uint64_t period, int inherit)
{
	ref_open_mode(r, period, inherit, 0);
}

/* stop it and count its samples (64 pages hold 16384 of them) */
static inline uint64_t
ref_close(struct ref_sampler *r)
{
	uint64_t size = r->len - sysconf(_SC_PAGESIZE), n = 0;

	for (int i = 0; i < r->nr; i++)
		ioctl(r->fd[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < r->nr; i++) {
		struct perf_event_mmap_page *pc = r->ring[i];
		unsigned char *data = (unsigned char *)pc +
				      sysconf(_SC_PAGESIZE);
		uint64_t head = __atomic_load_n(&pc->data_head,
						__ATOMIC_ACQUIRE);

		for (uint64_t tail = pc->data_tail; tail < head;) {
			struct perf_event_header h;

			memcpy(&h, data + tail % size, sizeof(h));
			n += h.type == PERF_RECORD_SAMPLE;
			tail += h.size ? h.size : head - tail;
		}
		munmap(r->ring[i], r->len);
		close(r->fd[i]);
	}
	return n;
}

/*
 * The samples or notifications @n of a set on the calling thread (which
 * may take the set's signals) over a spin that saw itself running @seen
 * (spin_user_ns_seen()): at least 95% of the whole periods of the time
 * it was seen running, spin_ran_ns().  A failure prints the thread's CPU
 * clock and switches beside it, to show which figure was short.
 * The kernel's own figure for that layout on plain perf_event_open,
 * asserted by tests/repro/repro_task_clock_inherit (modes d and e).  Not
 * the whole periods of the set's count: a host that stops the VM's CPU
 * unreported leaves task-clock counting and no timer firing.  Not a
 * sampler beside a set that signals the thread either: the delivery of
 * the set's signals is kernel time, where a :u sampler has no sample, and
 * the two timers, of one period, drift in and out of phase (mode f prints
 * both).
 *
 * Not under valgrind, where neither premise holds: its core makes system
 * calls of its own in the thread (6,757 in a loop of 3e8 iterations that
 * makes none: tests/repro/repro_valgrind_own_work;
 * spin_helper_makes_no_system_call is not run there), in which a :u
 * expiry is dropped (repro_task_clock_user_drops; a soak's valgrind stage:
 * 91 samples for 104 periods seen), and the steps of its translated loop
 * are long enough to count as gaps, so that less is seen than ran (132
 * samples for 105 periods seen).  There the figures are printed.
 */
static inline uint64_t
spin_ran_ns(const struct spin_seen *seen)
{
	return seen->wall_ns - seen->gap_ns;
}

#define ASSERT_SEEN_RATE(n, seen, period)                                     \
	do {                                                                  \
		long long ran_ = (long long)(spin_ran_ns(&(seen)) /           \
					     (period));                       \
		if (TEST_UNDER_VALGRIND())                                    \
			printf("# under valgrind: %lld for %lld periods the " \
			       "spin ran, not held to 95%%\n",               \
			       (long long)(n), ran_);                         \
		else if ((long long)(n) * 100 < ran_ * 95)                    \
			TEST_FAIL("%lld, under 95%% of the %lld periods the " \
				  "spin ran (seen running %.2f ms: wall "     \
				  "%.2f less %llu gaps of %.2f; the "         \
				  "thread's CPU clock %.2f ms; %ld "          \
				  "switches)",                                \
				  (long long)(n), ran_,                       \
				  ((seen).wall_ns - (seen).gap_ns) / 1e6,     \
				  (seen).wall_ns / 1e6,                       \
				  (unsigned long long)(seen).gaps,            \
				  (seen).gap_ns / 1e6, (seen).cpu_ns / 1e6,   \
				  (seen).switches);                           \
	} while (0)

static inline int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own fd */
}

/*
 * Mappings of this process; -1 under AddressSanitizer or valgrind, which map
 * memory as they like (and check leaks themselves).
 */
static inline int
count_maps(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return -1;
#endif
	if (TEST_UNDER_VALGRIND())
		return -1; /* valgrind maps memory of its own */
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

#endif
