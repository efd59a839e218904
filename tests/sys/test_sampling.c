/* SPDX-License-Identifier: MIT */
/*
 * test_sampling - sampling into a buffer with the kernel's task-clock:
 * IPs inside the loop that did the work, thread ids of threads created
 * after the open, call chains through the caller, lost samples counted.
 */
/* the kernel walks user call chains by frame pointer: keep them, no tail calls */
#pragma GCC optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "pctr.h"
#include "test.h"

#define WORK __attribute__((noinline, section("pctr_work")))
#define CALLER __attribute__((noinline, section("pctr_caller")))
extern const char __start_pctr_work[], __stop_pctr_work[];
extern const char __start_pctr_caller[], __stop_pctr_caller[];

#define PERIOD_NS 1000000ull

static volatile uint64_t sink;

WORK static void
spin_iters(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink = sink * 31 + i;
}

static uint64_t
thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void
spin(uint64_t ns)
{
	static _Atomic double per_ns;

	if (!per_ns) {
		uint64_t t0 = thread_cpu_ns();

		spin_iters(20000000);
		per_ns = 20000000.0 / (double)(thread_cpu_ns() - t0);
	}
	spin_iters((uint64_t)(per_ns * (double)ns));
}

/* a caller of the work, so that call chains have something to show */
CALLER static void
call_spin(uint64_t ns)
{
	spin(ns);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

/*
 * Under valgrind the program runs from valgrind's translation cache: the
 * PCs and call chains the kernel records are valgrind's, not the
 * program's, so where a sample fell is not checked there (counts are).
 * Valgrind puts its vgpreload libraries in LD_PRELOAD.
 */
static int
under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
}

static int
in(uint64_t ip, const char *lo, const char *hi)
{
	if (under_valgrind())
		return 1;
	return ip >= (uintptr_t)lo && ip < (uintptr_t)hi;
}

struct tally {
	int n, in_work, chains_through_caller;
	pid_t tid[64];
	int per_tid[64];
	int nr_tid;
	uint64_t last_time;
	int time_backwards;
	pid_t pid;
	int other_pid;
};

static int
count_record(const struct pctr_sample_record *r, void *arg)
{
	struct tally *t = arg;
	int k;

	t->n++;
	t->in_work += in(r->ip, __start_pctr_work, __stop_pctr_work);
	for (uint32_t i = 0; i < r->nr_callchain; i++)
		if (in(r->callchain[i], __start_pctr_caller,
		       __stop_pctr_caller)) {
			t->chains_through_caller++;
			break;
		}
	if (r->time < t->last_time)
		t->time_backwards++;
	t->last_time = r->time;
	t->other_pid += t->pid && r->pid != t->pid;
	for (k = 0; k < t->nr_tid && t->tid[k] != r->tid; k++)
		;
	if (k == t->nr_tid && k < 64)
		t->tid[t->nr_tid++] = r->tid;
	if (k < 64)
		t->per_tid[k]++;
	return 0;
}

static struct pctr_set *
sampling_set(const char *ev, uint64_t period, unsigned int flags,
	     unsigned int pages)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = period,
				     .flags = flags, .pages = pages };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, ev));
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	return set;
}

/* 200 ms of CPU at 1 ms: 200 samples within 5% + 2, all in the loop */
TEST(samples_in_buffer)
{
	struct pctr_set *set = sampling_set("task-clock:u", PERIOD_NS,
					    PCTR_SAMPLE_TID | PCTR_SAMPLE_TIME,
					    0);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct tally t = { .pid = getpid() };
	struct pctr_sample s;
	uint64_t expect;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(200 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(pctr_sampling_read(set, count_record, &t), t.n);
	expect = s.count[0].value / PERIOD_NS;
	printf("# %d samples, %llu expected\n", t.n,
	       (unsigned long long)expect);
	/* fewer when task-clock's hrtimer fires late and skips periods */
	ASSERT_GE(t.n, expect - expect / 4 - 2);
	ASSERT_LE(t.n, expect + expect / 20 + 2);
	/* all in spin() but one or two: the enable and disable calls */
	ASSERT_GE(t.in_work, t.n - 2);
	ASSERT_EQ(t.nr_tid, 1);
	ASSERT_EQ(t.tid[0], gettid());
	ASSERT_EQ(t.other_pid, 0);
	ASSERT_EQ(t.time_backwards, 0);
	ASSERT_OK(pctr_overflow_stats(set, 0, &st));
	ASSERT_UEQ(st.notified, t.n);
	ASSERT_UEQ(st.lost, 0);
	/* everything was read: a second read finds nothing */
	ASSERT_EQ(pctr_sampling_read(set, count_record, &t), 0);
	pctr_set_free(set);
}

/*
 * A one-page buffer that nobody reads fills up.  The kernel reports the
 * samples it dropped in the first record it writes once there is room
 * again, so the test reads, lets a few more samples come, and reads again.
 */
TEST(full_buffer_counts_losses)
{
	SKIP_UNDER_VALGRIND("(too slow to fill the buffer as the test plans)");
	struct pctr_set *set = sampling_set("task-clock:u", 20000,
					    PCTR_SAMPLE_TID | PCTR_SAMPLE_TIME,
					    1);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct tally t = { 0 };
	struct pctr_sample s;
	uint64_t expect;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(100 * PERIOD_NS);
	pctr_sampling_read(set, count_record, &t);
	spin(PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_sampling_read(set, count_record, &t);
	ASSERT_OK(pctr_overflow_stats(set, 0, &st));
	expect = s.count[0].value / 20000;
	printf("# %llu read, %llu lost, %llu overflows\n",
	       (unsigned long long)st.notified, (unsigned long long)st.lost,
	       (unsigned long long)expect);
	/* 4 KiB holds about 120 samples of 32 bytes; 5000 happened */
	ASSERT_LT(st.notified, 300);
	ASSERT_GT(st.lost, 0);
	/*
	 * read + lost accounts for the overflows, never more.  Not all of
	 * them: task-clock samples from an hrtimer, and a timer that fires
	 * late (a loaded machine, a sanitizer build) skips the periods it
	 * missed instead of sampling each, so at 20 us a good share can pass
	 * without a record to lose.
	 */
	ASSERT_GE(st.notified + st.lost, expect / 2);
	ASSERT_LE(st.notified + st.lost, expect + expect / 10);
	pctr_set_free(set);
}

/* another process: samples carry its pid, not ours */
TEST(command_is_sampled)
{
	struct pctr_set *set = sampling_set("task-clock:u", PERIOD_NS,
					    PCTR_SAMPLE_TID, 0);
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 30000 ]; do "
				     "i=$((i+1)); done", NULL };
	struct tally t = { 0 };
	pid_t pid;
	int status;

	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	t.pid = pid;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		int r = pctr_sampling_wait(set, 50);

		ASSERT(r >= 0 || r == -ESRCH); /* ESRCH: it has exited */
		ASSERT(pctr_sampling_read(set, count_record, &t) >= 0);
		if (r == -ESRCH)
			ASSERT(waitpid(pid, &status, 0) == pid);
	}
	ASSERT(pctr_sampling_read(set, count_record, &t) >= 0);
	printf("# %d samples of pid %d\n", t.n, (int)pid);
	ASSERT_GT(t.n, 5);
	ASSERT_EQ(t.other_pid, 0);
	pctr_set_free(set);
}

/* threads created after the open: samples of all 8, read while they run */
#define NR_THREADS 8
static pid_t tids[NR_THREADS];

static void *
thread_main(void *arg)
{
	tids[(intptr_t)arg] = gettid();
	spin(60 * PERIOD_NS); /* enough that none goes unsampled */
	return NULL;
}

TEST(eight_new_threads)
{
	SKIP_UNDER_VALGRIND("(it runs one thread at a time: per-thread "
			    "samples are its scheduler's)");
	struct pctr_set *set = sampling_set("task-clock:u", PERIOD_NS,
					    PCTR_SAMPLE_TID, 0);
	struct tally t = { .pid = getpid() };
	pthread_t th[NR_THREADS];
	int reads_with_samples = 0;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_PROCESS }));
	ASSERT_OK(pctr_set_enable(set));
	for (intptr_t i = 0; i < NR_THREADS; i++)
		ASSERT(pthread_create(&th[i], NULL, thread_main,
				      (void *)i) == 0);
	/* the threads keep running while their samples are read */
	for (int k = 0; k < 10; k++) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
		reads_with_samples += pctr_sampling_read(set, count_record,
							 &t) > 0;
	}
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	pctr_sampling_read(set, count_record, &t);
	ASSERT_EQ(t.other_pid, 0);
	for (int i = 0; i < NR_THREADS; i++) {
		int k;

		for (k = 0; k < t.nr_tid && t.tid[k] != tids[i]; k++)
			;
		ASSERT(k < t.nr_tid);
		printf("# thread %d (tid %d): %d samples\n", i, tids[i],
		       t.per_tid[k]);
		/*
		 * every thread is sampled; no rate: with more busy threads
		 * than CPUs the kernel's task-clock hrtimer generates far
		 * fewer samples than the CPU time implies (see test_overflow)
		 */
		ASSERT_GE(t.per_tid[k], 1);
	}
	printf("# %d of 10 reads found samples\n", reads_with_samples);
	ASSERT_GE(reads_with_samples, 1);
	pctr_set_free(set);
}

/* call chains go through the caller of the hot loop */
TEST(callchains)
{
	struct pctr_set *set;
	struct tally t = { 0 };

	if (under_valgrind())
		SKIP("under valgrind the kernel walks valgrind's stack frames");
	set = sampling_set("task-clock:u", PERIOD_NS, PCTR_SAMPLE_CALLCHAIN, 0);

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	call_spin(50 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	pctr_sampling_read(set, count_record, &t);
	printf("# %d samples, %d through call_spin()\n", t.n,
	       t.chains_through_caller);
	ASSERT_GT(t.n, 30);
	/* frame pointers may be absent: the kernel's user unwinder needs them */
	ASSERT_GE(t.chains_through_caller, t.n * 9 / 10);
	pctr_set_free(set);
}

TEST(bad_settings_are_refused)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = 1000 };
	struct pctr_overflow o = { .size = sizeof(o), .period = 1000 };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	cfg.pages = 3;
	ASSERT_EQ(pctr_set_sampling(set, 0, &cfg), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "power of two");
	cfg.pages = 0;
	cfg.period = 0;
	ASSERT_EQ(pctr_set_sampling(set, 0, &cfg), -EINVAL);
	cfg.period = 1000;
	cfg.flags = 0x80;
	ASSERT_EQ(pctr_set_sampling(set, 0, &cfg), -EINVAL);
	cfg.flags = 0;
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EBUSY);
	ASSERT_EQ(pctr_sampling_read(set, count_record, NULL), -EBADFD);
	pctr_set_free(set);

	/* a set without sampling has no buffer to read */
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_EQ(pctr_sampling_read(set, count_record, NULL), -EINVAL);
	ASSERT_EQ(pctr_sampling_wait(set, 0), -EINVAL);
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(samples_in_buffer)
			       TEST_CASE(full_buffer_counts_losses)
			       TEST_CASE(command_is_sampled)
			       TEST_CASE(eight_new_threads)
			       TEST_CASE(callchains)
			       TEST_CASE(bad_settings_are_refused)));
}
