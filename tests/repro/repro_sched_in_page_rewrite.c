/* SPDX-License-Identifier: MIT */
/*
 * repro_sched_in_page_rewrite - the kernel rewrites a counter's mmap page
 * (perf_event_mmap_page: its seqlock "lock" goes up by 2) each time it puts
 * the counting thread back on a CPU, so a user-space read that overlaps a
 * switch starts again; at real-time priority the same thread is not
 * switched out for an ordinary one, and the page stays as it is.
 *
 * A thread pinned to CPU 0 counts its own task-clock with a counter mapped
 * read-only, and for ROUND_MS reads the page in a loop with the seqlock
 * protocol of perf_event_open(2) (lock, index, offset, time_running, lock
 * again; a changed lock means "read again"), beside a user-mode spinner
 * pinned to the same CPU:
 *   (a) the thread at SCHED_OTHER: the scheduler shares the CPU, switching
 *       the thread out and in; the lock rises at every switch back in
 *       (getrusage(RUSAGE_THREAD) counts the switches), and the reads that
 *       overlapped a rewrite are counted;
 *   (b) the thread at SCHED_FIFO (the highest priority: above the kernel's
 *       interrupt threads, at 50): the spinner never gets the CPU, nor does
 *       any other ordinary task.  ROUND_MS stays under the real-time
 *       throttle's 950 ms of each second (kernel.sched_rt_runtime_us), past
 *       which the kernel would switch the thread out anyway.  On a busy
 *       host the kernel's stop-class work (migration/N) still switches it
 *       out now and then (1 switch in 2 rounds of 30 beside two QEMU
 *       guests); the spinner gets none of that time.
 *
 * Passes while all hold: in both rounds the lock rose by exactly 2 for each
 * switch; in (a) the thread was switched at least MIN_SWITCHES times (CFS
 * gives two spinners on one CPU slices of a few ms: 37 to 41 switches in
 * 300 ms here); in (b) the spinner ran not at all (its CPU clock, which it
 * had advanced in (a)).  Round (a) goes on past ROUND_MS, up to
 * MAX_ROUNDS_A times as long, until the thread has been switched
 * MIN_SWITCHES times: on a busy machine (a load of 28 on 2 CPUs) the CPU
 * is shared by many more tasks, each slice comes later, and 300 ms held
 * only 8 switches.  Cited by the hardware tests
 * (tests/hw/hw.h, hw_fifo_begin()): they measure exact counts at
 * real-time priority, because a read of the counters overlapping a switch
 * counts its own instructions again (in the arm64 guest a span of
 * pctr_set_read(), hw_loop(1000), pctr_set_read() once counted 2N+172
 * against 2N+77 in every other span: the console's writes wake kernel
 * threads that switch the test out at the next tick).  Needs
 * CAP_SYS_NICE (make check runs as root in CI).
 *
 * As seen: the kernel rewrites a counter's mmap page each time it puts the
 * counting thread back on a CPU (its seqlock lock rises by 2 per switch
 * back in, getrusage() counting the switches), so a user-space read that
 * overlaps a switch reads again; at SCHED_FIFO no ordinary task gets the
 * thread's CPU.  A thread reading its task-clock page in a loop for 300 ms
 * beside a spinner on the same CPU: at SCHED_OTHER the lock rose by 74 to
 * 82 with 37 to 41 switches, 0 to 2 reads read again; at SCHED_FIFO the
 * spinner ran 0 ns, the lock rose by 0 (by 2, with one switch by the
 * kernel's own stop-class work, in 3 rounds of 50 beside two QEMU guests).
 * Passes while the lock rises by exactly 2 per switch in both rounds, there
 * are 10 switches or more at SCHED_OTHER and the spinner gets no time at
 * SCHED_FIFO.  Needs CAP_SYS_NICE (root in CI).
 */
#include <linux/perf_event.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "repro.h"

#define ROUND_MS 300
#define MIN_SWITCHES 10
#define MAX_ROUNDS_A 20

static clockid_t spin_clock;

struct round {
	uint32_t lock0, lock1;
	long switches;
	uint64_t reads, retried, spin_ns;
	double ms;
};

/*
 * read the page as perf_event_open(2) says, for ROUND_MS at a time, up to
 * ROUNDS times, until the thread has been switched MIN_SWITCHES times
 */
static void
read_round(volatile struct perf_event_mmap_page *pg, struct round *r,
	   int rounds)
{
	uint64_t start = repro_ns(CLOCK_MONOTONIC), now, sink = 0;
	uint64_t end = start + ROUND_MS * 1000000ull;
	uint64_t spin0 = repro_ns(spin_clock);
	long s0 = repro_switches();

	r->lock0 = pg->lock;
	for (;;) {
		uint32_t seq;
		int again = 0;

		do {
			seq = pg->lock;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			sink += pg->index + (uint64_t)pg->offset +
				pg->time_running;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (pg->lock != seq)
				again = 1;
		} while (pg->lock != seq);
		r->reads++;
		r->retried += again;
		if ((now = repro_ns(CLOCK_MONOTONIC)) < end)
			continue;
		if (--rounds == 0 || repro_switches() - s0 >= MIN_SWITCHES)
			break;
		end = now + ROUND_MS * 1000000ull;
	}
	r->lock1 = pg->lock;
	r->ms = (double)(now - start) / 1e6;
	r->switches = repro_switches() - s0;
	r->spin_ns = repro_ns(spin_clock) - spin0;
	if (sink == 1)
		printf("# %llu\n", (unsigned long long)sink);
}

/* NULL when the rounds show the claim, else the first reason it fails */
static const char *
verdict(const struct round *r)
{
	if (r[0].switches < MIN_SWITCHES)
		return "(a) the thread was switched fewer than 10 times in "
		       "20 rounds of 300 ms";
	if (r[0].spin_ns == 0)
		return "(a) the spinner never ran beside the thread";
	if (r[1].spin_ns != 0)
		return "(b) the spinner ran beside the real-time thread";
	for (int k = 0; k < 2; k++)
		if (r[k].lock1 - r[k].lock0 != 2 * (uint32_t)r[k].switches)
			return k ? "(b) the lock did not rise by 2 a switch"
				 : "(a) the lock did not rise by 2 a switch";
	return NULL;
}

int
main(void)
{
	struct perf_event_attr a;
	struct sched_param fifo = {.sched_priority =
					   sched_get_priority_max(SCHED_FIFO)},
			   other = {.sched_priority = 0};
	struct round r[2];
	volatile struct perf_event_mmap_page *pg;
	pid_t spin;
	const char *why;
	int fd;

	printf("1..1\n");
	memset(&a, 0, sizeof(a));
	memset(r, 0, sizeof(r));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	repro_pin_cpu0();
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("not ok 1 - perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	pg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		  fd, 0);
	if (pg == MAP_FAILED) {
		printf("not ok 1 - mmap: %s\n", strerror(errno));
		return 1;
	}
	spin = fork();
	if (spin == 0) {
		repro_pin_cpu0();
		for (volatile uint64_t x = 0;; x++)
			;
	}
	if (clock_getcpuclockid(spin, &spin_clock) != 0) {
		printf("not ok 1 - the spinner's CPU clock\n");
		kill(spin, SIGKILL);
		return 1;
	}
	read_round(pg, &r[0], MAX_ROUNDS_A);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo) < 0) {
		printf("not ok 1 - SCHED_FIFO: %s (needs CAP_SYS_NICE)\n",
		       strerror(errno));
		kill(spin, SIGKILL);
		return 1;
	}
	read_round(pg, &r[1], 1);
	sched_setscheduler(0, SCHED_OTHER, &other);
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	for (int k = 0; k < 2; k++)
		printf("# (%c) %s beside a spinner on CPU 0, %.0f ms: lock %u -> "
		       "%u (+%u), %ld switches of the thread, %llu reads, %llu "
		       "of them read again; the spinner ran %.3f ms\n",
		       'a' + k, k ? "SCHED_FIFO" : "SCHED_OTHER", r[k].ms,
		       r[k].lock0, r[k].lock1, r[k].lock1 - r[k].lock0,
		       r[k].switches, (unsigned long long)r[k].reads,
		       (unsigned long long)r[k].retried, r[k].spin_ns / 1e6);
	why = verdict(r);
	printf("%s 1 - the page is rewritten at every switch back in; at "
	       "real-time priority no ordinary task gets the CPU%s%s\n",
	       why ? "not ok" : "ok", why ? ": " : "", why ? why : "");
	return why ? 1 : 0;
}
