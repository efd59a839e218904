/* SPDX-License-Identifier: MIT */
/*
 * repro_task_clock_inherit - how many samples an inherited task-clock:u counter
 * gives, with plain perf_event_open and nothing of libpctr.
 *
 * The layout is the library's for PCTR_TARGET_PROCESS, and perf record's:
 * one task-clock counter on this process per CPU with inherit = 1, so that
 * threads created later count on inherited copies, each with its own ring
 * (one ring written by several CPUs stops publishing:
 * repro_shared_ring_head).  Eight threads then
 * burn CPU time on two CPUs, in two ways:
 *
 *  (a) a calibrated loop of pure user-mode work (a fixed number of
 *      iterations, measured once against the thread's CPU clock);
 *  (b) a loop that polls clock_gettime(CLOCK_THREAD_CPUTIME_ID), a system
 *      call, until it has run as long.
 *
 * task-clock samples come from an hrtimer (kernel/events/core.c,
 * perf_swevent_hrtimer): when it fires with the CPU in the kernel, a :u
 * counter's sample is dropped (perf_exclude_event()) and counted nowhere,
 * not even as lost.  So (a) gets nearly one sample per period of CPU time
 * and (b), which spends most of its time in the kernel, far fewer.
 *
 * The user-mode loop also measures the time it saw itself running: it
 * reads the TSC (arm64: its virtual counter) every 1024 iterations, and
 * leaves out the gaps of 20 us or more.  In a gap the thread was in the
 * kernel, in a signal handler, off the CPU, or stopped with its CPU by the
 * host.  A VM's CPU stopped by the host is not always reported to the
 * guest as steal; task-clock (and the thread's CPU clock, when it is not)
 * counts that time, but no timer fires in it, and the hrtimer, late,
 * skips the periods it missed (hrtimer_forward_now()): one sample for
 * them all.  So the samples are held to the whole periods the loops were
 * seen running, and the CPU time, the counter, the steal of all CPUs over
 * the round (from /proc/stat) and the threads' preemptions are printed
 * beside them, with what the loops counted as running but might not be:
 * their gaps of 4 to 20 us, and the time all CPUs spent in interrupts and
 * softirqs over the round.
 *
 * Modes: (c) as (a), with a signal per sample to the main thread that
 * drains the ring (the library's overflow notification), printed; (d) the
 * calling thread alone on a counter of its own (PCTR_TARGET_THREAD), and
 * (e) the same with a signal per sample to itself, the library's
 * PCTR_TARGET_THREAD overflow notification; (f) as (e), with a plain
 * sampler (no signal) of the same thread beside it, printed: the delivery
 * of one's signals is kernel time, where the other, a :u sampler, has no
 * sample, and the two timers of one period drift in and out of phase.
 * The library's tests hold a set that signals its own thread to the time
 * its work was seen running, as (e), not to a sampler beside it.
 *
 * Output: the figures of every round as "# ..." lines.  "ok" only while
 * these hold in every round: (a) at least 95% of the whole periods seen
 * running, (b) under half of the whole periods of CPU time, (d) and (e)
 * at least 95% of the whole periods seen running.  Usage:
 * repro_task_clock_inherit [ROUNDS [PERIOD_NS]] (3 rounds, 1000000 ns by
 * default).
 *
 * As seen: task-clock:u sampled with perf_event_open alone, as the library
 * lays it out (an inherited counter per CPU, each with its ring; 8 threads
 * created after the open, 2 CPUs), against the time the work loop saw
 * itself running (it reads the TSC every 1024 iterations and leaves out
 * gaps of 20 us or more: another thread, a handler, a host that stopped the
 * VM's CPU without reporting it as steal; task-clock counts that last time,
 * but its late hrtimer skips the periods missed, one sample for them all):
 * (a) user-mode work gets at least 95% of the whole periods seen running
 * (99.8% to 106% here; against the CPU time, 97% to 99.6% in 45 rounds, and
 * once 88.9% in a CI run on a busy host); (b) work that polls
 * CLOCK_THREAD_CPUTIME_ID gets under half of its CPU time's periods (6.5%
 * to 13.5%), since an hrtimer overflow that falls in the kernel is dropped
 * for a :u event, and counted nowhere; (d) one thread on a counter of its
 * own and (e) the same signalled at each sample also get at least 95% of
 * the periods seen running (104% to 112% here; once, unexplained, 85.2%
 * for (d) in a fresh container with QEMU being built beside it: 213
 * samples, 250 periods seen running, preempted 5 times, no steal; 97.7%
 * the lowest of the 26 other rounds of those runs).  Printed, not asserted: (c)
 * (a) with a signal per sample to the main thread; (f) (e) with a plain
 * sampler beside it.  Each round prints the steal of all CPUs and the
 * threads' preemptions too.  repro_task_clock_inherit ROUNDS [PERIOD_NS]
 * runs more rounds.  Relied on by README "Known issues"; ASSERT_SEEN_RATE()
 * and the spin helper in tests/sys/helpers.h; the rate tests of
 * tests/sys/test_overflow.c, test_sampling.c, test_fork.c.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NR_THREADS 8
#define SPIN_NS 60000000ull /* per thread */
#define DATA_PAGES 64

static volatile uint64_t sink;
static double iters_per_ns;
static int syscall_spin;
static uint64_t period_ns = 1000000; /* one sample per ms of CPU */
static uint64_t user_us, sys_us; /* of the threads, from getrusage */
static uint64_t preempted;     /* the threads' involuntary context switches */
static uint64_t whole_periods; /* of the threads' CPU time, each floored */
static uint64_t seen_periods; /* of the time the loops saw themselves run */
/* the loops' gaps of 4 to 20 us, counted as running (printed only) */
static _Atomic uint64_t short_gaps_ns;
static double ticks_per_ns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t
thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static uint64_t
mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* a clock read in user mode by one instruction: TSC, arm64's counter */
static inline uint64_t
ticks(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

/*
 * The chain stays in a register (the empty asm keeps it from being
 * folded): threads writing one shared variable at every iteration would
 * fight over its cache line and spin many times longer than calibrated.
 *
 * Returns the time the loop saw itself running, in ns: its wall time
 * less the gaps of 20 us or more between two looks at the clock 1024
 * iterations (a microsecond or so) apart.  In a gap the thread was in the
 * kernel (an interrupt, a signal's delivery), in a signal handler, not
 * running (another thread had the CPU) or stopped with its CPU by the
 * host; a timer that fires there finds no user-mode context, or fires
 * late and skips the periods it missed (hrtimer_forward_now()).  Outside
 * the gaps the thread is in user mode but for short interrupts.
 */
static uint64_t __attribute__((noinline))
user_iters(uint64_t n)
{
	uint64_t x = 0, t0 = ticks(), t = t0, gap = 0, small = 0;
	uint64_t min_gap = (uint64_t)(20000 * ticks_per_ns);
	uint64_t min_small = (uint64_t)(4000 * ticks_per_ns);

	for (uint64_t i = 0; i < n; i++) {
		x = x * 31 + i;
		__asm__ volatile("" : "+r"(x));
		if ((i & 1023) == 1023) {
			uint64_t u = ticks();

			if (u - t >= min_gap)
				gap += u - t;
			else if (u - t >= min_small)
				small += u - t;
			t = u;
		}
	}
	sink = x;
	if (ticks_per_ns > 0)
		atomic_fetch_add(&short_gaps_ns,
				 (uint64_t)((double)small / ticks_per_ns));
	return ticks_per_ns > 0 ? (uint64_t)((ticks() - t0 - gap) /
					     ticks_per_ns)
				: 0;
}

static void
calibrate(void)
{
	uint64_t t0 = thread_cpu_ns(), w0 = mono_ns(), k0 = ticks();

	user_iters(50000000);
	iters_per_ns = 50000000.0 / (double)(thread_cpu_ns() - t0);
	ticks_per_ns = (double)(ticks() - k0) / (double)(mono_ns() - w0);
}

static void *
worker(void *arg)
{
	uint64_t t0 = thread_cpu_ns(), seen = 0;
	struct rusage ru;

	(void)arg;
	if (syscall_spin) {
		uint64_t end = thread_cpu_ns() + SPIN_NS;

		while (thread_cpu_ns() < end)
			;
	} else {
		seen = user_iters((uint64_t)(iters_per_ns * SPIN_NS));
	}
	getrusage(RUSAGE_THREAD, &ru);
	t0 = thread_cpu_ns() - t0;
	pthread_mutex_lock(&lock);
	whole_periods += t0 / period_ns;
	seen_periods += seen / period_ns;
	user_us += ru.ru_utime.tv_sec * 1000000ull + ru.ru_utime.tv_usec;
	sys_us += ru.ru_stime.tv_sec * 1000000ull + ru.ru_stime.tv_usec;
	preempted += ru.ru_nivcsw;
	pthread_mutex_unlock(&lock);
	return NULL;
}

/*
 * Column @col of /proc/stat's "cpu" line (all CPUs), in ns: 7 the time
 * the host took, 5 and 6 the interrupts' and softirqs' (with tick-based
 * accounting, the ticks that found a CPU there)
 */
static uint64_t
cpu_stat_ns(int col)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 ? v[col] * (1000000000ull / sysconf(_SC_CLK_TCK)) : 0;
}

static uint64_t
steal_ns(void)
{
	return cpu_stat_ns(7);
}

static uint64_t
irq_ns(void)
{
	return cpu_stat_ns(5) + cpu_stat_ns(6);
}

static int
perf_open(struct perf_event_attr *a, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, 0, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

struct round {
	uint64_t samples, lost, cpu_ns;
	uint64_t beside; /* mode (f): the plain sampler's samples */
};

#define MAX_CPUS 64
static struct perf_event_mmap_page *volatile signal_ring[MAX_CPUS];
static struct round *signal_round;
static void drain(struct perf_event_mmap_page *pc, struct round *r);

/* mode (c): the records are read as they come, as the library does */
static void
on_sigio(int sig)
{
	(void)sig;
	for (int i = 0; i < MAX_CPUS; i++)
		if (signal_ring[i])
			drain(signal_ring[i], signal_round);
}

static void
stop_signals(void)
{
	signal(SIGIO, SIG_IGN);
	for (int i = 0; i < MAX_CPUS; i++)
		signal_ring[i] = NULL;
}

/* a signal per sample (wakeup_events = 1) to this thread */
static int
route_signals(int fd)
{
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };

	signal(SIGIO, on_sigio);
	return fcntl(fd, F_SETSIG, SIGIO) || fcntl(fd, F_SETOWN_EX, &owner) ||
	       fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
}

/* every record from tail to head: samples and lost ones */
static void
drain(struct perf_event_mmap_page *pc, struct round *r)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *data = (unsigned char *)pc + page;
	uint64_t size = (uint64_t)DATA_PAGES * page;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t v[2];
		uint64_t off = tail % size;

		/* records are 8-byte aligned and the ring a multiple of 8 */
		memcpy(&h, data + off, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE)
			r->samples++;
		if (h.type == PERF_RECORD_LOST) {
			for (int i = 0; i < 2; i++)
				memcpy(&v[i], data + (off + 8 + 8 * i) % size,
				       8);
			r->lost += v[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

static int
run_round(int spin_kind, struct round *r)
{
	struct perf_event_attr clk = {
		.size = sizeof(clk), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK, .disabled = 1,
		.inherit = 1, .exclude_kernel = 1, .exclude_hv = 1,
		.sample_period = period_ns,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(1 + DATA_PAGES) * page;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), fd[MAX_CPUS];
	pthread_t th[NR_THREADS];
	void *p[MAX_CPUS];

	memset(r, 0, sizeof(*r));
	syscall_spin = spin_kind == 1;
	clk.wakeup_events = spin_kind == 2;
	if (ncpu > MAX_CPUS)
		return -1;
	signal_round = r;
	for (int i = 0; i < ncpu; i++) {
		fd[i] = perf_open(&clk, i);
		if (fd[i] < 0)
			return -1;
		p[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    fd[i], 0);
		if (p[i] == MAP_FAILED)
			return -1;
		if (spin_kind == 2 && route_signals(fd[i]))
			return -1;
		if (spin_kind == 2)
			signal_ring[i] = p[i];
	}
	for (int i = 0; i < ncpu; i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < ncpu; i++)
		ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
	stop_signals();
	for (int i = 0; i < ncpu; i++) {
		uint64_t ns;

		/* the threads' counts came back as they exited */
		if (read(fd[i], &ns, sizeof(ns)) != sizeof(ns))
			return -1;
		r->cpu_ns += ns;
		drain(p[i], r);
		munmap(p[i], len);
		close(fd[i]);
	}
	return 0;
}

/*
 * Modes (d), (e) and (f): the calling thread alone, on a counter of its
 * own with its own ring (PCTR_TARGET_THREAD), 300 ms of user-mode work;
 * (e) and (f) with a signal per sample to this same thread, drained by the
 * handler, (f) with a plain sampler beside it.
 */
static int
run_self(int signals, int beside, struct round *r)
{
	struct perf_event_attr clk = {
		.size = sizeof(clk), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
		.sample_period = period_ns, .wakeup_events = signals,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	size_t len = (size_t)(1 + DATA_PAGES) * sysconf(_SC_PAGESIZE);
	struct rusage u0, u1;
	uint64_t t0;
	int fd, fd2 = -1;
	void *p, *p2 = NULL;

	memset(r, 0, sizeof(*r));
	fd = perf_open(&clk, -1);
	if (fd < 0)
		return -1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	if (beside) {
		clk.wakeup_events = 0;
		fd2 = perf_open(&clk, -1);
		if (fd2 < 0)
			return -1;
		p2 = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd2,
			  0);
		if (p2 == MAP_FAILED)
			return -1;
		ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0);
	}
	signal_round = r;
	signal_ring[0] = p;
	if (signals && route_signals(fd))
		return -1;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	getrusage(RUSAGE_THREAD, &u0);
	t0 = thread_cpu_ns();
	seen_periods = user_iters((uint64_t)(iters_per_ns * 5 * SPIN_NS)) /
		       period_ns;
	t0 = thread_cpu_ns() - t0;
	getrusage(RUSAGE_THREAD, &u1);
	user_us = (u1.ru_utime.tv_sec - u0.ru_utime.tv_sec) * 1000000ull +
		  u1.ru_utime.tv_usec - u0.ru_utime.tv_usec;
	sys_us = (u1.ru_stime.tv_sec - u0.ru_stime.tv_sec) * 1000000ull +
		 u1.ru_stime.tv_usec - u0.ru_stime.tv_usec;
	preempted = u1.ru_nivcsw - u0.ru_nivcsw;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	stop_signals();
	if (beside) {
		struct round b = {0};

		ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0);
		drain(p2, &b);
		r->beside = b.samples;
		munmap(p2, len);
		close(fd2);
	}
	whole_periods = t0 / period_ns;
	if (read(fd, &r->cpu_ns, sizeof(r->cpu_ns)) != sizeof(r->cpu_ns))
		return -1;
	drain(p, r);
	munmap(p, len);
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3, ok_a = 1, ok_b = 1, ok_e = 1;

	if (argc > 2)
		period_ns = strtoull(argv[2], NULL, 0);
	double min_a = 1e9, max_a = 0, max_b = 0, min_c = 1e9, max_c = 0;
	static const char *const names[] = { "user-mode", "syscall",
					     "user-mode, signal per sample,",
					     "one thread, user-mode",
					     "one thread, user-mode, signal "
					     "per sample to itself,",
					     "one thread, user-mode, signal "
					     "per sample to itself, plain "
					     "sampler beside it," };

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..3\n");
	calibrate();
	for (int k = 0; k < rounds; k++) {
		for (int kind = 0; kind < 6; kind++) {
			struct round r;
			double expect, pct;
			uint64_t stolen = steal_ns(), irq = irq_ns();

			user_us = sys_us = whole_periods = seen_periods = 0;
			preempted = 0;
			atomic_store(&short_gaps_ns, 0);
			if ((kind < 3 ? run_round(kind, &r)
				      : run_self(kind >= 4, kind == 5, &r)) < 0) {
				printf("not ok 1 - perf_event_open: %m\n");
				return 1;
			}
			stolen = steal_ns() - stolen;
			irq = irq_ns() - irq;
			/*
			 * one sample per whole period each thread ran (a
			 * thread's last, partial period has none)
			 */
			expect = (double)whole_periods;
			pct = 100.0 * r.samples / expect;
			printf("# round %d, %s spin: %llu samples, %llu lost, "
			       "%.0f expected (%.1f%%); seen running %llu "
			       "periods (%.1f%%); threads %.1f%% user mode, "
			       "preempted %llu times; counter %.1f periods; "
			       "host steal %.0f periods; gaps of 4 to 20 us "
			       "%.1f periods; interrupts and softirqs of all "
			       "CPUs %.0f periods\n",
			       k, names[kind], (unsigned long long)r.samples,
			       (unsigned long long)r.lost, expect, pct,
			       (unsigned long long)seen_periods,
			       seen_periods ? 100.0 * r.samples / seen_periods : 0.0,
			       100.0 * user_us / (user_us + sys_us + 1),
			       (unsigned long long)preempted,
			       (double)r.cpu_ns / period_ns,
			       (double)stolen / period_ns,
			       (double)atomic_load(&short_gaps_ns) / period_ns,
			       (double)irq / period_ns);
			if (kind == 0) {
				pct = 100.0 * r.samples / seen_periods;
				min_a = pct < min_a ? pct : min_a;
				max_a = pct > max_a ? pct : max_a;
				ok_a &= r.samples * 100 >= seen_periods * 95;
			} else if (kind == 1) {
				max_b = pct > max_b ? pct : max_b;
				ok_b &= pct < 50.0;
			} else if (kind == 3 || kind == 4) {
				ok_e &= r.samples * 100 >= seen_periods * 95;
			} else if (kind == 5) {
				printf("#   the plain sampler beside it: %llu "
				       "samples (%.1f%%)\n",
				       (unsigned long long)r.beside,
				       100.0 * r.beside / expect);
			} else if (kind == 2) {
				min_c = pct < min_c ? pct : min_c;
				max_c = pct > max_c ? pct : max_c;
			}
		}
	}
	printf("# user-mode spin: %.1f%% to %.1f%% of the periods seen "
	       "running; syscall spin: at most %.1f%% of the expected; "
	       "user-mode spin with a signal per sample: %.1f%% to %.1f%% of "
	       "the expected\n", min_a, max_a, max_b, min_c, max_c);
	printf("%sok 1 - user-mode work: at least 95%% of the periods seen "
	       "running\n",
	       ok_a ? "" : "not ");
	printf("%sok 2 - syscall-polling work: under half of them\n",
	       ok_b ? "" : "not ");
	printf("%sok 3 - one thread, with or without a signal at each "
	       "sample: at least 95%% of the periods seen running\n",
	       ok_e ? "" : "not ");
	return ok_a && ok_b && ok_e ? 0 : 1;
}
