/* SPDX-License-Identifier: MIT */
/*
 * repro_signal_per_overflow_stall - a signal per overflow of a task-clock
 * sampler at its shortest period stops the thread for good when the
 * handler costs more than the period: the thread makes no headway.
 *
 * task-clock counts the thread's time, its signal handler's too, and its
 * hrtimer fires every 10 us of it at the least (perf_swevent_hrtimer()).
 * With a handler longer than that, each expiry comes while a handler
 * runs, and the thread's own code gets no time: the interrupted work
 * never goes on.  The kernel does not stop it.  (Where the time goes is
 * not measured here: the stalled runs take about 30 signals a second,
 * far fewer than their handlers' 20 us would allow.)
 *
 * Two runs of 2 ms of user-mode work under a task-clock:u sampler at
 * period 10000 ns, a signal per overflow (F_SETSIG, F_OWNER_TID, one
 * record a wakeup): the handler empties the ring and returns at once, or
 * it also spins 20 us (the TSC, or arm64's virtual counter).  The handler
 * gives up after 1 s of wall time by disabling the sampler, so the stalled
 * run ends.  Printed: each run's wall time, signals and whether the work
 * was done before the give-up.  Passes while the quick handler's work is
 * done and the slow handler's is not.
 *
 * As seen (x86-64 VM, 2 CPUs, 3 runs): the quick handler's 2 ms took 2.0
 * to 2.2 ms with 12 to 25 signals; the slow one's was not done after 1 s
 * (22 to 33 signals), and a handler of about 3 us (a few thousand
 * additions) already stalled 10 runs of 10 on that VM.  A callback at the shortest period through the
 * library's handler (AddressSanitizer made it slow enough) ran its 2 ms
 * of work for minutes.  Relied on by src/overflow.c (throttle(): the
 * period doubles while records pile up in one signal) and
 * tests/compat/libcpc/test_ovf_presets.c.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "repro.h"

#define PERIOD_NS 10000
#define WORK_NS 2000000
#define SLOW_NS 20000
#define GIVE_UP_NS 1000000000ull

static struct perf_event_mmap_page *pc;
static int fd;
static volatile sig_atomic_t signals, gave_up;
static uint64_t spin_ns, start_ns;
static double ticks_per_ns;
static volatile uint64_t sink;

static uint64_t
ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return repro_ns(CLOCK_MONOTONIC);
#endif
}

static void
calibrate(void)
{
	uint64_t t0 = ticks(), n0 = repro_ns(CLOCK_MONOTONIC), n1;

	do
		n1 = repro_ns(CLOCK_MONOTONIC);
	while (n1 - n0 < 20000000);
	ticks_per_ns = (double)(ticks() - t0) / (double)(n1 - n0);
}

static void
on_signal(int sig)
{
	uint64_t end = ticks() + (uint64_t)((double)spin_ns * ticks_per_ns);

	(void)sig;
	signals++;
	__atomic_store_n(&pc->data_tail,
			 __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	while (spin_ns && ticks() < end)
		sink++;
	if (repro_ns(CLOCK_MONOTONIC) - start_ns > GIVE_UP_NS && !gave_up) {
		gave_up = 1;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	}
}

/* one run; 0 if the work was done before the give-up, else 1; -1: failed */
static int
run(uint64_t handler_ns, const char *name)
{
	struct perf_event_attr a;
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	uint64_t t0, c0, x = sink;
	int stalled;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.sample_period = PERIOD_NS;
	a.sample_type = PERF_SAMPLE_IP;
	a.wakeup_events = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	pc = mmap(NULL, 2 * (size_t)sysconf(_SC_PAGESIZE),
		  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED || fcntl(fd, F_SETSIG, SIGIO) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
	    fcntl(fd, F_SETFL, O_ASYNC) < 0)
		return -1;
	spin_ns = handler_ns;
	signals = 0;
	gave_up = 0;
	start_ns = t0 = repro_ns(CLOCK_MONOTONIC);
	c0 = repro_ns(CLOCK_THREAD_CPUTIME_ID);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	while (!gave_up && repro_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < WORK_NS)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	sink = x;
	stalled = gave_up;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	printf("# %s: %.1f ms of wall time, %d signals, the 2 ms of work %s\n",
	       name, (double)(repro_ns(CLOCK_MONOTONIC) - t0) / 1e6,
	       (int)signals,
	       stalled ? "not done when the handler gave up after 1 s"
		       : "done");
	munmap(pc, 2 * (size_t)sysconf(_SC_PAGESIZE));
	close(fd);
	return stalled;
}

int
main(void)
{
	struct sigaction sa;
	int quick, slow;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGIO, &sa, NULL);
	calibrate();
	printf("1..1\n# task-clock:u at period %d ns, a signal per overflow, "
	       "2 ms of user-mode work\n", PERIOD_NS);
	quick = run(0, "a handler that returns at once");
	slow = run(SLOW_NS, "a handler of 20 us");
	if (quick < 0 || slow < 0) {
		printf("not ok 1 - the sampler could not be set up: %s\n",
		       strerror(errno));
		return 1;
	}
	printf("%s 1 - with a handler longer than the period the thread "
	       "makes no headway; with a short one it does\n",
	       quick == 0 && slow == 1 ? "ok" : "not ok");
	return quick == 0 && slow == 1 ? 0 : 1;
}
