/* SPDX-License-Identifier: MIT */
/*
 * test_hw_threads.c - a set counting one thread, read by another while that
 * thread runs on another CPU (hw-smp: 2, the guest has two CPUs).
 *
 * A page shows the counter of the thread it counts, on that thread's CPU:
 * another thread's counter instruction reads its own CPU, which traps on
 * arm64 (SIGILL) and reads a wrong count on x86 (other_thread_raw_repro:
 * tests/repro/repro_other_thread_user_read.c, raw perf_event_open).  So
 * libpctr reads a set's pages only on the thread that opened it; any other
 * thread's read takes read(2), with the right count.  The opener spins in
 * user mode meanwhile, so its counter is on its CPU nearly all the time.
 * OpenBSD's rdpmc() reads a counter's page the same way, for the thread
 * that set the counter only (compat/openbsd/rdpmc.c).
 */
#include <machine/pctr.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "hw.h"
#include "hw_prog.h"

HW_BLOB(repro_other_thread_user_read);

/*
 * Each read(2) of a counter running on the other CPU waits for that CPU
 * (an interprocessor call), which the guest's CPUs, run in turn, answer
 * at their next turn: about half a million instructions of the opener
 * per read(2) (tests/hw/qemu/0003 shares each turn out; before it, the
 * opener ran about 27 million per read(2) on arm64, and the x86-64 guest
 * did not boot with two CPUs).  200 reads take seconds.
 */
#define READS 200

static struct pctr_set *set;
static volatile int opened, stop;
static volatile long own_user, own_reads;

/*
 * The opener: counts itself and spins in user mode while the main thread
 * reads its set (a set is used by one thread at a time: it does not read
 * it then); once told to stop, it reads its set itself, which must still
 * be done in user space.
 */
static void *
opener(void *arg)
{
	(void)arg;
	set = hw_thread_set(0, "instructions:u");
	opened = 1;
	while (!stop)
		;
	for (int i = 0; i < 100; i++) {
		uint64_t v;

		own_user += pctr_set_read_values(set, &v) == PCTR_PATH_USER;
		own_reads++;
	}
	return NULL;
}

static pthread_t
start_opener(void)
{
	pthread_t t;

	hw_user_read("1");
	opened = stop = 0;
	own_user = own_reads = 0;
	ASSERT_EQ(pthread_create(&t, NULL, opener, NULL), 0);
	while (!opened)
		;
	return t;
}

static void
stop_opener(pthread_t t)
{
	stop = 1;
	ASSERT_EQ(pthread_join(t, NULL), 0);
	printf("# the opener after: %ld of its %ld reads in user space\n",
	       own_user, own_reads);
	/* its plan stands after the other thread's reads (the first may
	   make it again) */
	ASSERT_EQ(own_reads, 100);
	ASSERT_GE(own_user, 99);
}

/* the count read(2) gives now: pctr_set_read_instance() is always read(2) */
static uint64_t
syscall_count(void)
{
	struct pctr_sample s;

	ASSERT_OK(pctr_set_read_instance(set, 0, &s));
	return s.count[0].value;
}

/*
 * The behaviour the library guards against, on raw perf_event_open: the
 * reproducer, run as its own program.
 */
TEST(other_thread_raw_repro)
{
	char *argv[] = { "/tmp/repro_other_thread_user_read", NULL };
	struct hw_run r;

	hw_user_read("1");
	hw_prog_install("/tmp/repro_other_thread_user_read",
			hw_blob_repro_other_thread_user_read,
			hw_blob_repro_other_thread_user_read_end);
	hw_run(argv, NULL, &r);
	hw_run_show(&r, 20);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "\nok 1 - ");
}

/*
 * pctr_set_read_values() from the main thread while the opener runs: no
 * trap, the read(2) path, and every value between the read(2) before it
 * and the one after.
 */
TEST(other_thread_values_right)
{
	pthread_t t = start_opener();
	uint64_t prev = syscall_count();
	long user = 0;

	for (int i = 0; i < READS; i++) {
		uint64_t v, next;
		int path = pctr_set_read_values(set, &v);

		next = syscall_count();
		ASSERT_GE(path, 0);
		user += path == PCTR_PATH_USER;
		ASSERT_LE(prev, v);
		ASSERT_LE(v, next);
		prev = next;
	}
	printf("# main thread: %d reads, %ld in user space, last %llu\n",
	       READS, user, (unsigned long long)prev);
	ASSERT_EQ(user, 0);
	/* the opener counted meanwhile: the reads saw a moving count */
	ASSERT_GT(prev, (uint64_t)READS);
	stop_opener(t);
	pctr_set_free(set);
}

/* the same for pctr_set_read(): counts, times and the path */
TEST(other_thread_sample_right)
{
	pthread_t t = start_opener();
	uint64_t prev = syscall_count();
	long user = 0;

	for (int i = 0; i < READS; i++) {
		struct pctr_sample s;
		uint64_t next;

		ASSERT_OK(pctr_set_read(set, &s));
		next = syscall_count();
		user += s.path == PCTR_PATH_USER;
		ASSERT_EQ(s.nr, 1);
		ASSERT_LE(prev, s.count[0].value);
		ASSERT_LE(s.count[0].value, next);
		ASSERT_LE(s.count[0].running, s.count[0].enabled);
		ASSERT_GT(s.count[0].running, 0);
		prev = next;
	}
	printf("# main thread: %d samples, %ld in user space\n", READS, user);
	ASSERT_EQ(user, 0);
	stop_opener(t);
	pctr_set_free(set);
}

/*
 * OpenBSD's rdpmc(0) from the main thread while the thread that set the
 * counter (PCTR_BSD_TARGET=thread) runs: no trap, every value between the
 * PCIOCRD before it and the one after; the setter's own reads afterwards
 * in user space (a pair of reads under 60 user instructions, against
 * hundreds for the read(2) path: test_hw_compat's openbsd_rdpmc_thread).
 */
static int pctr_fd;
static volatile pctrval own_pair;

static void *
setter(void *arg)
{
	unsigned int fn = RAW_INST | PCTR_U | PCTR_EN;
	pctrval a;

	(void)arg;
	ASSERT_EQ(ioctl(pctr_fd, PCIOCS0, &fn), 0);
	opened = 1;
	while (!stop)
		;
	a = rdpmc(0);
	own_pair = rdpmc(0) - a;
	return NULL;
}

static pctrval
pciocrd0(void)
{
	struct pctrst st;

	ASSERT_EQ(ioctl(pctr_fd, PCIOCRD, &st), 0);
	return st.pctr_hwc[0];
}

TEST(other_thread_rdpmc_right)
{
	pctrval prev;
	pthread_t t;

	hw_user_read("1");
	ASSERT_EQ(setenv("PCTR_BSD_TARGET", "thread", 1), 0);
	pctr_fd = open(_PATH_PCTR, O_RDWR);
	ASSERT(pctr_fd >= 0);
	opened = stop = 0;
	ASSERT_EQ(pthread_create(&t, NULL, setter, NULL), 0);
	while (!opened)
		;
	prev = pciocrd0();
	for (int i = 0; i < READS; i++) {
		pctrval v = rdpmc(0), next = pciocrd0();

		ASSERT_LE(prev, v);
		ASSERT_LE(v, next);
		prev = next;
	}
	printf("# main thread: %d rdpmc(0), last %llu\n", READS,
	       (unsigned long long)prev);
	ASSERT_GT(prev, (pctrval)READS);
	stop = 1;
	ASSERT_EQ(pthread_join(t, NULL), 0);
	printf("# the setter's own pair of reads: %llu\n",
	       (unsigned long long)own_pair);
	ASSERT_LT(own_pair, 60);
	ASSERT_EQ(close(pctr_fd), 0);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(other_thread_raw_repro)
				       TEST_CASE(other_thread_values_right)
					       TEST_CASE(other_thread_sample_right)
						       TEST_CASE(other_thread_rdpmc_right)));
}
