/* SPDX-License-Identifier: MIT */
/*
 * test_overflow - overflow notification with the kernel's task-clock.
 *
 * task-clock counts nanoseconds of CPU time and overflows from a timer, so
 * a busy loop of T ns with period P gives T / P notifications.  The loop
 * lives in its own section: the linker's __start_/__stop_ symbols bound it,
 * and every notified PC must fall between them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "pctr.h"
#include "test.h"

#define WORK __attribute__((noinline, section("pctr_work")))
extern const char __start_pctr_work[], __stop_pctr_work[];

#define PERIOD_NS 1000000ull /* 1 ms of CPU */
#define MAX_NOTES 4096

static volatile uint64_t sink;

/* the work: nothing but this loop runs while counting (no calls) */
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

/* spin for about @ns of CPU, with the loop's speed measured once */
static void
spin(uint64_t ns)
{
	static double per_ns;

	if (!per_ns) {
		uint64_t t0 = thread_cpu_ns();

		spin_iters(20000000);
		per_ns = 20000000.0 / (double)(thread_cpu_ns() - t0);
	}
	spin_iters((uint64_t)(per_ns * (double)ns));
}

static struct pctr_overflow_info notes[MAX_NOTES];
static atomic_int nr_notes;

static void
record(const struct pctr_overflow_info *info, void *arg)
{
	int i = atomic_fetch_add(&nr_notes, 1);

	(void)arg;
	if (i < MAX_NOTES)
		notes[i] = *info;
}

static struct pctr_set *
overflow_set(const char *ev, uint64_t period, unsigned int flags,
	     pctr_overflow_fn fn, int signo)
{
	struct pctr_overflow o = { .size = sizeof(o), .period = period,
				   .flags = flags, .fn = fn, .signo = signo };
	struct pctr_set *set;
	int idx;

	ASSERT_OK(pctr_set_new(&set, 0));
	idx = pctr_set_add(set, ev);
	ASSERT_OK(idx);
	ASSERT_OK(pctr_set_overflow(set, idx, &o));
	return set;
}

static uint64_t
count_of(struct pctr_set *set)
{
	struct pctr_sample s;

	ASSERT_OK(pctr_set_read(set, &s));
	return s.count[0].value;
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
pc_in_work(uint64_t ip)
{
	return under_valgrind() || (ip >= (uintptr_t)__start_pctr_work &&
				    ip < (uintptr_t)__stop_pctr_work);
}

/* 300 ms of CPU at 1 ms: 300 notifications (within 5% + 2), PCs in spin() */
TEST(rate_and_pc)
{
	struct pctr_set *set = overflow_set("task-clock:u", PERIOD_NS, 0,
					    record, 0);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	uint64_t count, expect;
	int n;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(300 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	count = count_of(set);
	n = atomic_load(&nr_notes);
	expect = count / PERIOD_NS;
	printf("# %d notifications for %llu ns of CPU (expected %llu)\n", n,
	       (unsigned long long)count, (unsigned long long)expect);
	/* fewer when task-clock's hrtimer fires late and skips periods */
	ASSERT_GE(n, expect - expect / 4 - 2);
	ASSERT_LE(n, expect + expect / 20 + 2);
	/*
	 * task-clock goes on while the previous notification is handled: now
	 * and then a period ends in the handler or in the C library's signal
	 * return, and its PC is there.  Every other PC is in spin().
	 */
	int outside = 0;

	for (int i = 0; i < n; i++) {
		if (!pc_in_work(notes[i].ip) && ++outside > 2 + n / 50)
			TEST_FAIL("notification %d: PC %#llx outside spin() "
				  "[%p, %p), %d such",
				  i, (unsigned long long)notes[i].ip,
				  (void *)__start_pctr_work,
				  (void *)__stop_pctr_work, outside);
		ASSERT_EQ(notes[i].event, 0);
		ASSERT_EQ(notes[i].tid, gettid());
		ASSERT_UEQ(notes[i].seq, i + 1);
		ASSERT_UEQ(notes[i].period, PERIOD_NS);
		ASSERT_UEQ(notes[i].count, (i + 1) * PERIOD_NS);
	}
	ASSERT_OK(pctr_overflow_stats(set, 0, &st));
	ASSERT_UEQ(st.notified, n);
	ASSERT_UEQ(st.lost, 0);
	pctr_set_free(set);
}

/* the counter keeps counting across notifications */
TEST(counts_stay_exact)
{
	struct pctr_set *set = overflow_set("task-clock:u", PERIOD_NS, 0,
					    record, 0);
	uint64_t count, last;
	int n;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(50 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	count = count_of(set);
	n = atomic_load(&nr_notes);
	ASSERT_GT(n, 10);
	last = notes[n - 1].count;
	/*
	 * The counter went on past the last overflow, and the count is what
	 * the notifications imply: one period each, give or take the timer's
	 * slack and the few ticks that fall in the kernel (not sampled with
	 * :u, yet counted as CPU time), and of the hrtimer behind task-clock,
	 * which skips periods when it fires late on a loaded machine (14 in a
	 * row seen): a quarter plus 3 periods.
	 */
	ASSERT_GE(count, last);
	ASSERT_LT(count, last + 3 * PERIOD_NS + count / 4);
	pctr_set_free(set);
}

/* a preset of 2^64 - P is the period P, the libcpc way */
TEST(preset_is_a_period)
{
	struct pctr_overflow o = { .size = sizeof(o),
				   .preset = UINT64_MAX - (PERIOD_NS - 1),
				   .fn = record };
	struct pctr_set *set;
	uint64_t count;
	int n;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock:u"));
	ASSERT_OK(pctr_set_overflow(set, 0, &o));
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(40 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	count = count_of(set);
	n = atomic_load(&nr_notes);
	/* fewer when task-clock's hrtimer fires late and skips periods */
	ASSERT_GE(n, count / PERIOD_NS - count / PERIOD_NS / 4 - 3);
	ASSERT_LE(n, count / PERIOD_NS + 3);
	ASSERT_UEQ(notes[0].period, PERIOD_NS);
	pctr_set_free(set);
}

/* the program's own handler, with pctr_overflow_decode() */
static atomic_int decoded, decoded_bad;

static void
user_handler(int sig, siginfo_t *si, void *uc)
{
	struct pctr_overflow_info info[4];
	int n;

	(void)sig;
	(void)uc;
	do {
		n = pctr_overflow_decode(si, info, 4);
		for (int i = 0; i < n; i++)
			if (!pc_in_work(info[i].ip) || info[i].event != 0)
				atomic_fetch_add(&decoded_bad, 1);
		atomic_fetch_add(&decoded, n > 0 ? n : 0);
	} while (n == 4);
}

TEST(signal_of_users_choice)
{
	int sig = SIGRTMIN + 3;
	struct sigaction sa = { .sa_sigaction = user_handler,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct pctr_set *set = overflow_set("task-clock:u", PERIOD_NS, 0,
					    NULL, sig);
	struct pctr_overflow_stats st = { .size = sizeof(st) };

	ASSERT(sigaction(sig, &sa, NULL) == 0);
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(60 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_GE(atomic_load(&decoded), 50);
	ASSERT_EQ(atomic_load(&decoded_bad), 0);
	ASSERT_OK(pctr_overflow_stats(set, -1, &st));
	ASSERT_UEQ(st.notified, atomic_load(&decoded));
	/* the library installed nothing for this signal */
	ASSERT(sigaction(sig, NULL, &sa) == 0);
	ASSERT(sa.sa_sigaction == user_handler);
	pctr_set_free(set);
}

/* one shot: the counter stops at the overflow until re-armed */
TEST(oneshot_and_rearm)
{
	struct pctr_set *set = overflow_set("task-clock:u", PERIOD_NS,
					    PCTR_OVF_ONESHOT, record, 0);
	uint64_t count;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(20 * PERIOD_NS);
	ASSERT_EQ(atomic_load(&nr_notes), 1);
	count = count_of(set);
	/*
	 * Stopped soon after P, long before the 20 periods spun (the
	 * overflow's hrtimer may fire late on a loaded machine, so not
	 * exactly at P; the guest checks exactness on cycles).
	 */
	ASSERT_GE(count, PERIOD_NS);
	ASSERT_LT(count, 8 * PERIOD_NS);
	ASSERT_OK(pctr_overflow_rearm(set, 0));
	spin(20 * PERIOD_NS);
	ASSERT_EQ(atomic_load(&nr_notes), 2);
	ASSERT_LT(count_of(set), count + 8 * PERIOD_NS);
	pctr_set_free(set);
}

/*
 * Paused: no notification, but counting goes on, and the overflows not
 * notified are counted as lost.  Paused before the enable, so that no
 * overflow can come first (under valgrind, translating the code between
 * two calls takes milliseconds of CPU).
 */
TEST(pause_and_resume)
{
	struct pctr_set *set = overflow_set("task-clock:u", PERIOD_NS, 0,
					    record, 0);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	uint64_t before;
	long long expect, paused;
	int n;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_overflow_pause(set, -1));
	ASSERT_OK(pctr_set_enable(set));
	spin(30 * PERIOD_NS);
	ASSERT_EQ(atomic_load(&nr_notes), 0);
	before = count_of(set);
	ASSERT_GE(before, 30 * PERIOD_NS);
	paused = before / PERIOD_NS;
	ASSERT_OK(pctr_overflow_resume(set, -1));
	spin(30 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	expect = (count_of(set) - before) / PERIOD_NS;
	n = atomic_load(&nr_notes);
	ASSERT_OK(pctr_overflow_stats(set, 0, &st));
	printf("# paused: %llu lost, %lld periods; resumed: %d notified, "
	       "%lld periods\n",
	       (unsigned long long)st.lost, paused, n, expect);
	/* one per period of CPU since the resume: within 15% + 2 */
	/* fewer when task-clock's hrtimer fires late and skips periods */
	ASSERT_GE(n, expect - expect / 4 - 2);
	ASSERT_LE(n, expect + expect * 15 / 100 + 2);
	/* the kernel reports the paused ones with the first record after */
	ASSERT_GE(st.lost, paused - paused / 4 - 2);
	ASSERT_LE(st.lost, paused + paused * 15 / 100 + 2);
	pctr_set_free(set);
}

/* threads created after the open: every one is notified, with its tid */
#define NR_THREADS 8
static pid_t tids[NR_THREADS];
static uint64_t cpu_ns[NR_THREADS];

static void *
thread_main(void *arg)
{
	uint64_t t0 = thread_cpu_ns();

	tids[(intptr_t)arg] = gettid();
	spin(40 * PERIOD_NS);
	cpu_ns[(intptr_t)arg] = thread_cpu_ns() - t0;
	return NULL;
}

TEST(eight_new_threads)
{
	SKIP_UNDER_VALGRIND("(it runs one thread at a time: per-thread "
			    "counts are its scheduler's)");
	struct pctr_set *set = overflow_set("task-clock:u", PERIOD_NS, 0,
					    record, 0);
	pthread_t th[NR_THREADS];
	int per[NR_THREADS] = { 0 }, n, in_work = 0;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_PROCESS }));
	ASSERT_OK(pctr_set_enable(set));
	for (intptr_t i = 0; i < NR_THREADS; i++)
		ASSERT(pthread_create(&th[i], NULL, thread_main,
				      (void *)i) == 0);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	ASSERT_OK(pctr_set_disable(set));
	n = atomic_load(&nr_notes);
	for (int i = 0; i < n && i < MAX_NOTES; i++) {
		in_work += pc_in_work(notes[i].ip);
		for (int t = 0; t < NR_THREADS; t++)
			per[t] += notes[i].tid == tids[t];
	}
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	int total = 0;

	ASSERT_OK(pctr_overflow_stats(set, 0, &st));
	for (int t = 0; t < NR_THREADS; t++) {
		int expect = (int)(cpu_ns[t] / PERIOD_NS);

		printf("# thread %d (tid %d): %d notifications, %d expected\n",
		       t, tids[t], per[t], expect);
		/* every thread is heard from, none more than it ran */
		ASSERT_GE(per[t], 1);
		ASSERT_LE(per[t], expect + expect / 5 + 2);
		total += expect;
	}
	/*
	 * All of them together: on a loaded machine the notifications of
	 * eight busy threads can outrun their delivery; what does not arrive
	 * is counted as lost, never dropped silently.
	 */
	printf("# %llu notified, %llu lost, %d expected\n",
	       (unsigned long long)st.notified, (unsigned long long)st.lost,
	       total);
	/*
	 * No rate is asserted here: the kernel samples task-clock with an
	 * hrtimer per inherited counter, and with more busy threads than
	 * CPUs it generates far fewer overflows than the CPU time implies
	 * (plain perf_event_open, 8 threads of 30 ms each on 2 CPUs: 48 to
	 * 66 samples instead of 240), none of them lost.  The guest proves
	 * the exact rate on cycles.
	 */
	ASSERT_GT(st.notified, 0);

	/* thread start and exit run outside spin(): a few PCs fall there */
	ASSERT_GE(in_work, n - n / 50);
	pctr_set_free(set);
}

/* signals that are not ours reach the handler that was there before */
static atomic_int old_handler_calls;

static void
old_handler(int sig)
{
	(void)sig;
	atomic_fetch_add(&old_handler_calls, 1);
}

TEST(foreign_signals_are_chained)
{
	struct pctr_set *set = overflow_set("task-clock:u", PERIOD_NS, 0,
					    record, 0);

	signal(SIGIO, old_handler);
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	raise(SIGIO);
	ASSERT_EQ(atomic_load(&old_handler_calls), 1);
	pctr_set_free(set);
	raise(SIGIO);
	ASSERT_EQ(atomic_load(&old_handler_calls), 2);
}

TEST(bad_settings_are_refused)
{
	struct pctr_overflow o = { .size = sizeof(o), .fn = record };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EINVAL); /* no period */
	o.period = 1ull << 63;
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "2^63");
	o.period = 1000;
	o.preset = UINT64_MAX - 999;
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EINVAL); /* both */
	o.preset = 0;
	o.signo = SIGKILL;
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EINVAL);
	o.signo = 0;
	o.flags = 0x100;
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EINVAL);
	o.flags = PCTR_OVF_FREQ;
	o.period = 100000000;
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "max_sample_rate");
	o.flags = 0;
	o.period = 1000;
	ASSERT_EQ(pctr_set_overflow(set, 1, &o), -ERANGE);
	ASSERT_OK(pctr_set_overflow(set, 0, &o));
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EBUSY);
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EALREADY);
	pctr_set_free(set);
}

/* signals go to threads of this process: not CPUs, not other processes */
TEST(foreign_targets_are_refused)
{
	struct pctr_set *set = overflow_set("task-clock", PERIOD_NS, 0,
					    record, 0);
	char *argv[] = { "sleep", "1", NULL };
	int cpus[] = { 0 };
	pid_t pid;
	int r;

	r = pctr_set_open(set, &(struct pctr_target){ PCTR_TARGET_CPU, 0, 1,
						       cpus });
	ASSERT_EQ(r, -EOPNOTSUPP);
	ASSERT_CONTAINS(pctr_strerror(r), "pctr_set_sampling");
	pctr_set_free(set);

	set = overflow_set("task-clock", PERIOD_NS, 0, record, 0);
	r = pctr_set_open_command(set, argv, &pid);
	ASSERT_EQ(r, -EOPNOTSUPP);
	ASSERT_CONTAINS(pctr_strerror(r), "not one");
	pctr_set_free(set);

	set = overflow_set("task-clock", PERIOD_NS, PCTR_OVF_ONESHOT, record,
			   0);
	r = pctr_set_open(set, &(struct pctr_target){ PCTR_TARGET_PROCESS });
	ASSERT_EQ(r, -EOPNOTSUPP);
	ASSERT_CONTAINS(pctr_strerror(r), "ONESHOT");
	/* a failed open keeps the settings: refused again, for this process
	 * named by its pid too (inherited counters either way) */
	r = pctr_set_open(set, &(struct pctr_target){ PCTR_TARGET_PID,
						       getpid() });
	ASSERT_EQ(r, -EOPNOTSUPP);
	ASSERT_CONTAINS(pctr_strerror(r), "ONESHOT");
	/* ... and in force on the calling thread: one shot, one notification */
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(20 * PERIOD_NS);
	ASSERT_EQ(atomic_load(&nr_notes), 1);
	ASSERT(pc_in_work(notes[0].ip));
	/* stopped soon after the period (its hrtimer may fire late) */
	ASSERT_LT(count_of(set), 8 * PERIOD_NS);
	pctr_set_free(set);
}

static int
count_sample(const struct pctr_sample_record *r, void *arg)
{
	int *in_work = arg;

	*in_work += pc_in_work(r->ip) && r->tid == gettid();
	return 0;
}

/*
 * Sampling settings survive a failed open too: event 0 samples into a
 * buffer, event 1 notifies once (ONESHOT), which the process target
 * refuses; on the thread both are in force.
 */
TEST(failed_open_keeps_sampling)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = PERIOD_NS,
				     .flags = PCTR_SAMPLE_TID };
	struct pctr_overflow o = { .size = sizeof(o), .period = PERIOD_NS,
				   .flags = PCTR_OVF_ONESHOT, .fn = record };
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct pctr_set *set;
	int n, in_work = 0;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, "task-clock:u,task-clock:u"));
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	ASSERT_OK(pctr_set_overflow(set, 1, &o));
	ASSERT_EQ(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_PROCESS }),
		  -EOPNOTSUPP);
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	spin(30 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	n = pctr_sampling_read(set, count_sample, &in_work);
	printf("# %d samples, %d in spin() on this thread; %d notifications\n",
	       n, in_work, atomic_load(&nr_notes));
	/*
	 * 30 ms of CPU at one sample per ms: at least 20 of them, in spin()
	 * but for one or two that fall in the other event's notification
	 */
	ASSERT_GE(n, 20);
	ASSERT_GE(in_work, n - 2);
	ASSERT_EQ(atomic_load(&nr_notes), 1);
	ASSERT_EQ(notes[0].event, 1);
	ASSERT_OK(pctr_overflow_stats(set, 0, &st));
	ASSERT_UEQ(st.notified, n);
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(rate_and_pc)
			       TEST_CASE(counts_stay_exact)
			       TEST_CASE(preset_is_a_period)
			       TEST_CASE(signal_of_users_choice)
			       TEST_CASE(oneshot_and_rearm)
			       TEST_CASE(pause_and_resume)
			       TEST_CASE(eight_new_threads)
			       TEST_CASE(foreign_signals_are_chained)
			       TEST_CASE(bad_settings_are_refused)
			       TEST_CASE(foreign_targets_are_refused)
			       TEST_CASE(failed_open_keeps_sampling)));
}
