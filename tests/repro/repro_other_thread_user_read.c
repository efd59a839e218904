/* SPDX-License-Identifier: MIT */
/*
 * repro_other_thread_user_read - a counter's mmap page shows the counter of
 * the thread it counts, on that thread's CPU; read by another thread, the
 * counter instruction reads the other thread's own CPU.
 *
 * Thread T opens a counter of its own user-mode instructions (pid 0,
 * cpu -1), maps its page and spins in user mode.  The main thread, on
 * another CPU, reads the page with the protocol of perf_event_open(2)
 * (seqlock, index, the counter instruction on index - 1, pmc_width's sign
 * extension, offset) and right after it the counter with read(2), ROUNDS
 * times, in a child process so that a signal ends only the child:
 *   - arm64: the kernel lets user space read the PMU only while the task
 *     on the CPU has counters of its own that allow it (PMUSERENR_EL0 is
 *     set when it is switched in); the main thread has none, so its mrs
 *     of the event counter traps: SIGILL;
 *   - x86-64: rdpmc is allowed for every thread of a process with such a
 *     mapping (CR4.PCE follows the mm), so the read returns the main
 *     thread's CPU's counter plus T's offset: not T's count.
 * Reproduces (exit 0) when the child died of SIGILL, or when a read that
 * found the counter on the hardware (index != 0) disagreed with read(2)
 * right after it (a count above it, or below the read(2) before it), T's
 * own page read agreeing with read(2) all along (the protocol itself is
 * right on its own thread).  Needs two CPUs and a PMU with user access
 * (tests/hw: the guest boots with -smp 2, perf_user_access=1 on arm64).
 * Cited by struct pctr__hot's owner (src/internal.h): the library reads a
 * set's pages only on the thread that opened it, and tests/hw/hw_floor.h's
 * floor_owned*(): the floor a read any thread may call is held to.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* in an emulated guest each read(2) waits for the other CPU's turn */
#define ROUNDS 200

static volatile struct perf_event_mmap_page *page;
static int fd = -1;
static volatile int opened, stop;
static volatile long own_bad, own_reads;

static uint64_t
read_counter(uint32_t idx)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	uint64_t v = 0;

	/* the registers the kernel hands out first; the index is checked */
	switch (idx - 1) {
	case 0: __asm__ volatile("mrs %0, pmevcntr0_el0" : "=r"(v)); break;
	case 1: __asm__ volatile("mrs %0, pmevcntr1_el0" : "=r"(v)); break;
	case 2: __asm__ volatile("mrs %0, pmevcntr2_el0" : "=r"(v)); break;
	case 3: __asm__ volatile("mrs %0, pmevcntr3_el0" : "=r"(v)); break;
	case 31: __asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v)); break;
	}
	return v;
#else
	(void)idx;
	return 0;
#endif
}

/* the page read of perf_event_open(2); 0 if the counter is not on a CPU */
static int
page_read(uint64_t *out)
{
	uint32_t seq, idx;
	uint64_t v;

	do {
		seq = page->lock;
		__asm__ volatile("" ::: "memory");
		idx = page->index;
		v = page->offset;
		if (idx && page->cap_user_rdpmc) {
			unsigned int w = page->pmc_width;
			uint64_t pmc = read_counter(idx);

			pmc <<= 64 - w;
			v += (uint64_t)((int64_t)pmc >> (64 - w));
		}
		__asm__ volatile("" ::: "memory");
	} while (page->lock != seq);
	*out = v;
	return idx != 0;
}

static uint64_t
sys_read(void)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static void *
counted(void *arg)
{
	struct perf_event_attr a;

	(void)arg;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
#ifdef __aarch64__
	a.config1 = 0x2; /* ask for user access (the PMU's format "rdpmc") */
#endif
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0)
		page = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
			    fd, 0);
	opened = 1;
	if (fd < 0 || page == MAP_FAILED)
		return NULL;
	/* its own reads are right: the protocol on its own thread */
	while (!stop) {
		uint64_t before = sys_read(), v, after;

		if (page_read(&v)) {
			after = sys_read();
			own_reads++;
			if (v < before || v > after)
				own_bad++;
		}
	}
	return NULL;
}

/* the main thread's reads of T's page; the child's exit status */
static int
other_reads(void)
{
	long on_cpu = 0, wrong = 0, shown = 0;
	uint64_t prev = sys_read();

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t v, after;
		int on = page_read(&v);

		after = sys_read();
		if (on) {
			on_cpu++;
			if (v > after || v < prev) {
				wrong++;
				if (shown++ < 3)
					printf("# other thread: page read %llu, "
					       "read(2) before %llu, after %llu\n",
					       (unsigned long long)v,
					       (unsigned long long)prev,
					       (unsigned long long)after);
			}
		}
		prev = after;
	}
	printf("# other thread: %d reads, %ld with the counter on a CPU, "
	       "%ld of them wrong\n", ROUNDS, on_cpu, wrong);
	return wrong > 0 ? 0 : 1;
}

int
main(void)
{
	pthread_t t;
	pid_t pid;
	int status;

	printf("1..1\n");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("not ok 1 - needs 2 CPUs, %ld online\n",
		       sysconf(_SC_NPROCESSORS_ONLN));
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int r;

		pthread_create(&t, NULL, counted, NULL);
		while (!opened)
			;
		if (fd < 0 || page == MAP_FAILED || !page->cap_user_rdpmc) {
			printf("# no counter with user access: fd %d\n", fd);
			_exit(2);
		}
		r = other_reads();
		stop = 1;
		pthread_join(t, NULL);
		printf("# counted thread: %ld own page reads, %ld wrong\n",
		       own_reads, own_bad);
		fflush(stdout);
		_exit(own_bad == 0 && own_reads > 0 ? r : 3);
	}
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		printf("# the child died of signal %d (%s) in the other "
		       "thread's read\n", WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
	if ((WIFSIGNALED(status) && WTERMSIG(status) == SIGILL) ||
	    (WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		printf("ok 1 - another thread's user-space read of a thread's "
		       "counter is wrong or traps\n");
		return 0;
	}
	printf("not ok 1 - another thread's reads were right (status 0x%x)\n",
	       status);
	return 1;
}
