/* SPDX-License-Identifier: MIT */
/*
 * repro_swevent_sample_period - a software event that counts (page-faults,
 * not the cpu-clock/task-clock timers) with a sample period of 100 and
 * PERF_SAMPLE_PERIOD in its sample_type overflows at every event, not
 * every 100: the kernel's perf_swevent_event() hands each event to the
 * overflow path with the period it carried (1) when the sample records a
 * period.  Without PERF_SAMPLE_PERIOD the same counter overflows every 100
 * events.  Shown with one-shot counters (PERF_EVENT_IOC_REFRESH 1): the
 * number of page faults between the arm and the overflow.
 *
 * Passes while the behaviour reproduces: with the flag, the first fault
 * after an arm overflows; without it, the 100th.
 *
 * As seen: a counting software event (page-faults) sampled with
 * PERF_SAMPLE_PERIOD overflows at every event, not every period: a one-shot
 * armed with period 100 fires at the first fault (kernel 6.18).  Relied on
 * by tests/compat/libcpc/seed_examples.sh (Example 2 on page-faults).
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PERIOD 100
#define PAGES 1000

static volatile sig_atomic_t fired;

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
	fired = 1;
}

static int
open_counter(uint64_t sample_type)
{
	struct perf_event_attr a;
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)gettid() };
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = PERIOD;
	a.sample_type = sample_type;
	a.wakeup_events = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0 || mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0) == MAP_FAILED)
		return -1;
	fcntl(fd, F_SETFL, O_ASYNC);
	fcntl(fd, F_SETSIG, SIGRTMIN + 2);
	fcntl(fd, F_SETOWN_EX, &owner);
	return fd;
}

/*
 * Touch pages until the overflow; uninstrumented, so that under
 * AddressSanitizer its shadow memory adds no faults of its own.
 */
__attribute__((no_sanitize_address)) static int
touch_until_fired(volatile char *p)
{
	int n = 0;

	while (!fired && n < PAGES)
		p[(n++) * 4096] = 1;
	return n;
}

/* page faults from the arm to the overflow (PAGES + 1: none) */
static int
faults_to_overflow(uint64_t sample_type)
{
	int fd = open_counter(sample_type), n = 0;
	volatile char *p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (fd < 0 || p == MAP_FAILED)
		return -1;
	fired = 0;
	ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
	n = touch_until_fired(p);
	munmap((void *)p, PAGES * 4096);
	close(fd);
	return fired ? n : PAGES + 1;
}

int
main(void)
{
	struct sigaction sa;
	int with, without;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 2, &sa, NULL);
	without = faults_to_overflow(PERF_SAMPLE_IP);
	with = faults_to_overflow(PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD);
	printf("1..2\n");
	printf("# period %d: overflow after %d faults without "
	       "PERF_SAMPLE_PERIOD, after %d with it\n",
	       PERIOD, without, with);
	/* a few faults of the loop's own stack and code may come first */
	printf("%sok 1 - without PERF_SAMPLE_PERIOD: the period is kept\n",
	       without >= PERIOD - 5 && without <= PERIOD ? "" : "not ");
	printf("%sok 2 - with PERF_SAMPLE_PERIOD: every event overflows\n",
	       with >= 0 && with <= 2 ? "" : "not ");
	return !(without >= PERIOD - 5 && without <= PERIOD &&
		 with >= 0 && with <= 2);
}
