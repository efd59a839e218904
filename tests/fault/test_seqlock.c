/* SPDX-License-Identifier: MIT */
/*
 * test_seqlock.c - the user-space read (src/mmap_read.h) against a writer
 * that changes the page the way the kernel does: bump ->lock, write the
 * fields, bump ->lock again.  Every value the reader returns must come
 * from one generation of the page: count, enabled and running agree.
 *
 * The kernel updates a self-monitoring page on the CPU the reader runs on,
 * interrupting it at any instruction, and is never interrupted by it in
 * turn.  The test does the same: the writer is a real-time thread on the
 * reader's CPU that wakes every few microseconds, preempts the reader
 * wherever it is, writes one generation and sleeps again.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "test.h"
#include "mmap_read.h"

static struct perf_event_mmap_page page;
static volatile uint64_t hw_counter; /* what "rdpmc" returns */
static atomic_int stop, writer_ready;
static atomic_ulong generations, pmc_reads;

#define WIDTH 48

static uint64_t
fake_pmc(uint32_t idx)
{
	atomic_fetch_add_explicit(&pmc_reads, 1, memory_order_relaxed);
	return hw_counter;
}

/* generation g: count 1000 g split between offset and a 48-bit counter */
static void
write_generation(uint64_t g)
{
	uint64_t hw = (g * 7919) & ((1ull << WIDTH) - 1);

	page.lock++;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	page.index = 1 + g % 4;
	page.offset = (int64_t)(g * 1000 - hw);
	hw_counter = hw;
	page.time_enabled = g * 10;
	page.time_running = g * 10;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	page.lock++;
}

static void *
writer(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct timespec nap = { 0, 5000 };
	uint64_t g = 1;

	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		atomic_store(&writer_ready, -1);
		return NULL;
	}
	atomic_store(&writer_ready, 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		nanosleep(&nap, NULL);
		write_generation(++g);
	}
	atomic_store(&generations, g);
	return NULL;
}

static void
pin(pthread_t th, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(pthread_setaffinity_np(th, sizeof(set), &set), 0);
}

TEST(reads_under_the_kernel_writing_are_consistent)
{
	unsigned long ok = 0, again = 0;
	uint64_t end;
	pthread_t th;

	SKIP_UNDER_VALGRIND("(it runs one thread at a time: no concurrent writer)");
	struct timespec ts;

	if (RUNNING_ON_VALGRIND)
		SKIP("valgrind switches threads inside the writer's update");
	memset(&page, 0, sizeof(page));
	page.cap_user_rdpmc = 1;
	page.cap_user_time = 1;
	page.pmc_width = WIDTH;
	page.time_mult = 0; /* no time passes: enabled is exactly 10 g */
	write_generation(1);
	pin(pthread_self(), sched_getcpu());
	ASSERT_EQ(pthread_create(&th, NULL, writer, NULL), 0);
	while (!atomic_load(&writer_ready))
		sched_yield();
	if (atomic_load(&writer_ready) < 0) {
		pthread_join(th, NULL);
		SKIP("a real-time writer thread needs CAP_SYS_NICE");
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + 1;
	for (;;) {
		struct pctr_count c;

		for (int i = 0; i < 10000; i++) {
			if (pctr__mmap_read(&page, 0, fake_pmc, &c) < 0) {
				again++;
				continue;
			}
			ok++;
			if (c.enabled != c.running ||
			    c.value != c.enabled * 100)
				TEST_FAIL("torn read: value %llu enabled %llu "
					  "running %llu",
					  (unsigned long long)c.value,
					  (unsigned long long)c.enabled,
					  (unsigned long long)c.running);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((uint64_t)ts.tv_sec > end)
			break;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("# %lu consistent reads, %lu gave up, %lu counter reads "
	       "(retries: %lu), %lu generations written\n",
	       ok, again, atomic_load(&pmc_reads),
	       atomic_load(&pmc_reads) - ok, atomic_load(&generations));
	ASSERT_GT(ok, 0);
	/* the writer did interrupt the reader, many times */
	ASSERT_GT(atomic_load(&generations), 1000);
}

/* the "kernel" writes during every read: the reader gives up, not hangs */
static uint64_t
busy_pmc(uint32_t idx)
{
	page.lock += 2;
	return 5;
}

TEST(a_page_that_never_settles_gives_eagain)
{
	struct pctr_count c;

	memset(&page, 0, sizeof(page));
	page.cap_user_rdpmc = page.cap_user_time = 1;
	page.index = 1;
	ASSERT_EQ(pctr__mmap_read(&page, 0, busy_pmc, &c), -EAGAIN);
	ASSERT_EQ(page.lock, 2 * PCTR__MMAP_RETRIES);
	hw_counter = 5;
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), 0);
	ASSERT_UEQ(c.value, 5);
	page.index = 0; /* not on a counter now: read(2) instead */
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), -EAGAIN);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(reads_under_the_kernel_writing_are_consistent)
			       TEST_CASE(a_page_that_never_settles_gives_eagain)));
}
