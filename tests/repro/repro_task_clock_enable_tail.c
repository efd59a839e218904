/* SPDX-License-Identifier: MIT */
/*
 * repro_task_clock_enable_tail - a task-clock counter at the timer's
 * 10 us floor, started by an ioctl, overflows in the caller's next few
 * instructions: the ioctl that starts it takes most of the 10 us.
 *
 * libcpc's overflow protocol restarts a one-shot counter from the
 * program's SIGEMT handler (the libcpc seed's Example 2 rebinds there with
 * a preset 1000 events short of the wrap): DISABLE, RESET, PERIOD, then
 * PERF_EVENT_IOC_REFRESH 1, which starts it.  task-clock overflows from
 * an hrtimer of max(10 us, period) (kernel/events/core.c,
 * perf_swevent_start_hrtimer()), started inside that last ioctl.  Where
 * the ioctl itself takes most of those 10 us, the timer expires in what
 * the caller does after it: the handler's return path, before the program
 * runs again.  Such an overflow is the handler's, truly (the counter
 * counted the thread's time there), and its signal can only be delivered
 * once the handler has returned, at the program's PC.
 *
 * Shown on raw perf_event_open, nothing of libpctr: a task-clock counter
 * of this thread, counting user mode only (an expiry in the kernel is no
 * overflow), armed as the protocol arms it, REFRESH 1 timed with the
 * monotonic clock; then a "tail" of T loop steps (in a function of its
 * own), then the "body", a loop that runs until the overflow's record is
 * in the ring.  The record's IP says where the overflow came: in the tail
 * or in the body.  Printed: the REFRESH's time (median, 10th and 90th
 * percentiles) at the floor (period 1000 ns) and at 1 ms for comparison,
 * the tail's own time, and for tails of several lengths, the share of
 * arms whose overflow came in the tail.  Usage:
 * repro_task_clock_enable_tail [ARMS] (500 by default, per tail length).
 *
 * As seen on the 2-CPU x86-64 VMs that run the project's CI (no hardware
 * PMU, Debian's 6.1 kernel), quiet: the REFRESH at the floor takes 8.2 to
 * 8.4 us at the median (p10 7.2 us), and the timer runs from early in
 * it: a tail of 0.9 us got the overflow in 20 of 500 arms, 2 us in 349,
 * 3 us in 409, 5.4 us in 497; built with ASan, 1.8 us in 185 of 300.  The
 * REFRESH at 1 ms periods also takes 8.3 us at the median (p10 1.7 us).
 * ex2's handler returns through the libraries and sigreturn after its
 * rebind: under ASan 25 to 30% of its task-clock signals came in that
 * tail quiet, 52% on a CI run.  "ok" while the REFRESH at the floor takes
 * half the timer's 10 us or more at the median.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "repro.h"

#define FLOOR_NS 10000 /* perf_swevent_start_hrtimer()'s least period */

static struct perf_event_mmap_page *page;

/* the caller's few steps after the ioctl: a handler's return path */
__attribute__((noinline, section("repro_tail"))) static void
tail(long steps)
{
	for (volatile long i = 0; i < steps; i++)
		;
}

extern const char __start_repro_tail[], __stop_repro_tail[];

static int
open_clock(uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* the newest record's IP (PERF_RECORD_SAMPLE with PERF_SAMPLE_IP only) */
static uint64_t
last_ip(uint64_t head)
{
	const char *data = (const char *)page + page->data_offset;
	uint64_t size = page->data_size, pos = page->data_tail, ip = 0;

	while (pos < head) {
		const struct perf_event_header *h =
			(const void *)(data + pos % size);

		if (h->type == PERF_RECORD_SAMPLE)
			memcpy(&ip, data + (pos + sizeof(*h)) % size,
			       sizeof(ip));
		pos += h->size;
	}
	__atomic_store_n(&page->data_tail, head, __ATOMIC_RELEASE);
	return ip;
}

static uint64_t
ring_head(void)
{
	return __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
}

/*
 * One arm as libcpc's protocol restarts: the REFRESH's time in *@ns;
 * returns 1 if the overflow came in the tail, 0 in the body, -1 if none
 * came within a second.
 */
static int
arm(int fd, uint64_t period, long steps, uint64_t *ns)
{
	uint64_t p = period, head = ring_head(), t0, deadline;
	uint64_t ip;

	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_PERIOD, &p);
	t0 = repro_ns(CLOCK_MONOTONIC);
	ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
	*ns = repro_ns(CLOCK_MONOTONIC) - t0;
	tail(steps);
	deadline = t0 + 1000000000u;
	while (ring_head() == head)
		if (repro_ns(CLOCK_MONOTONIC) > deadline)
			return -1;
	ip = last_ip(ring_head());
	return ip >= (uintptr_t)__start_repro_tail &&
	       ip < (uintptr_t)__stop_repro_tail;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t
tail_ns(long steps)
{
	uint64_t t0 = repro_ns(CLOCK_MONOTONIC);

	for (int i = 0; i < 100; i++)
		tail(steps);
	return (repro_ns(CLOCK_MONOTONIC) - t0) / 100;
}

/* ARMS arms at @period with @steps of tail: the REFRESH's median */
static uint64_t
round_of(int fd, uint64_t period, long steps, int arms, uint64_t *cost,
	 int *in_tail, int *none)
{
	*in_tail = *none = 0;
	for (int i = 0; i < arms; i++) {
		int r = arm(fd, period, steps, &cost[i]);

		*in_tail += r == 1;
		*none += r < 0;
	}
	qsort(cost, arms, sizeof(*cost), cmp_u64);
	return cost[arms / 2];
}

int
main(int argc, char **argv)
{
	int arms = argc > 1 ? atoi(argv[1]) : 500;
	static const long tails[] = { 0, 1000, 2000, 3000, 5000 }; /* ns */
	long per_us;
	uint64_t *cost = calloc(arms, sizeof(*cost));
	uint64_t floor_median = 0;
	int fd, in_tail, none, failed = 0;

	printf("1..1\n");
	fd = open_clock(1000);
	page = fd < 0 ? MAP_FAILED :
		mmap(NULL, 9 * (size_t)sysconf(_SC_PAGESIZE),
		     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!cost || arms < 10 || page == MAP_FAILED) {
		printf("not ok 1 - task-clock sampler: %s\n",
		       fd < 0 || page == MAP_FAILED ? strerror(errno) :
						       "bad ARMS");
		return 1;
	}
	per_us = 1000 * 100000 / (long)(tail_ns(100000) + 1);
	for (size_t s = 0; s < sizeof(tails) / sizeof(tails[0]); s++) {
		long steps = tails[s] * per_us / 1000;
		uint64_t m = round_of(fd, 1000, steps, arms, cost, &in_tail,
				      &none);

		if (s == 0)
			floor_median = m;
		failed |= none;
		printf("# period 1000 ns, tail of %ld steps (%llu ns): REFRESH "
		       "median %llu ns (p10 %llu, p90 %llu); overflow in the "
		       "tail in %d of %d arms%s\n",
		       steps, (unsigned long long)tail_ns(steps),
		       (unsigned long long)m,
		       (unsigned long long)cost[arms / 10],
		       (unsigned long long)cost[arms * 9 / 10], in_tail, arms,
		       none ? ", some with no overflow in 1 s" : "");
	}
	{
		uint64_t m = round_of(fd, 1000000, 0, arms / 10, cost,
				      &in_tail, &none);

		printf("# period 1 ms: REFRESH median %llu ns (p10 %llu, "
		       "p90 %llu)\n",
		       (unsigned long long)m,
		       (unsigned long long)cost[arms / 100],
		       (unsigned long long)cost[arms * 9 / 100]);
	}
	if (!failed && floor_median * 2 >= FLOOR_NS)
		printf("ok 1 - REFRESH of a task-clock counter at the 10 us "
		       "floor takes %llu ns at the median: its overflow "
		       "comes in the caller's next steps\n",
		       (unsigned long long)floor_median);
	else
		printf("not ok 1 - REFRESH of a task-clock counter at the "
		       "10 us floor takes %llu ns at the median, under half "
		       "the timer's period%s\n",
		       (unsigned long long)floor_median,
		       failed ? " (an arm had no overflow in 1 s)" : "");
	free(cost);
	close(fd);
	return !(!failed && floor_median * 2 >= FLOOR_NS);
}
