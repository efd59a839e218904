/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - signals, threads, fork and exec around open sets.
 *
 * The rule (pctr(3), include/pctr.h): one set is used by one thread at a
 * time; different sets may be used by different threads at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <pctr.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>
#include <time.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "test.h"
#include "../sys/helpers.h"

static const struct pctr_target self = { .type = PCTR_TARGET_THREAD };
static const struct pctr_target process = { .type = PCTR_TARGET_PROCESS };

static struct pctr_set *
open_set(const char *events, const struct pctr_target *t)
{
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, events));
	ASSERT_OK(pctr_set_open(set, t));
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

/* ---- two sets, two threads -------------------------------------------- */

static void *
count_own_faults(void *arg)
{
	size_t pages = (size_t)(uintptr_t)arg;
	struct pctr_set *set = open_set("page-faults,task-clock", &self);
	struct pctr_sample s, prev = { 0 };
	uint64_t start;

	ASSERT_OK(pctr_set_read(set, &s));
	start = s.count[0].value;
	for (int i = 0; i < 200; i++) {
		touch_pages(pages);
		ASSERT_OK(pctr_set_read(set, &s));
		ASSERT_GE(s.count[0].value, prev.count[0].value + pages);
		ASSERT_GE(s.count[1].value, prev.count[1].value);
		prev = s;
	}
	pctr_set_free(set);
	return (void *)(uintptr_t)(s.count[0].value - start);
}

TEST(two_sets_in_two_threads)
{
	pthread_t a, b;
	void *fa, *fb;

	ASSERT_EQ(pthread_create(&a, NULL, count_own_faults, (void *)10), 0);
	ASSERT_EQ(pthread_create(&b, NULL, count_own_faults, (void *)30), 0);
	pthread_join(a, &fa);
	pthread_join(b, &fb);
	/* each set saw its own thread's faults and not the other's */
	ASSERT_GE((uintptr_t)fa, 200 * 10);
	ASSERT_LT((uintptr_t)fa, 200 * 10 + 200 * 5);
	ASSERT_GE((uintptr_t)fb, 200 * 30);
	ASSERT_LT((uintptr_t)fb, 200 * 30 + 200 * 5);
}

/* ---- 64 threads at a time under an inherited set ------------------------ */

#define ROUNDS (RUNNING_ON_VALGRIND ? 2 : 10)
#define THREADS 64
#define PAGES 25

static atomic_ulong known_faults;

static void *
fault_and_exit(void *arg)
{
	touch_pages(PAGES);
	atomic_fetch_add(&known_faults, PAGES);
	return NULL;
}

TEST(threads_come_and_go_under_an_inherited_set)
{
	struct pctr_set *set = open_set("page-faults,task-clock", &process);
	struct pctr_sample before, after;
	pthread_t th[THREADS];
	int fds = count_fds();

	ASSERT_OK(pctr_set_read(set, &before));
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < THREADS; i++)
			ASSERT_EQ(pthread_create(&th[i], NULL, fault_and_exit,
						 NULL),
				  0);
		for (int i = 0; i < THREADS; i++)
			ASSERT_EQ(pthread_join(th[i], NULL), 0);
		ASSERT_EQ(count_fds(), fds);
	}
	ASSERT_OK(pctr_set_read(set, &after));
	ASSERT_EQ(atomic_load(&known_faults), ROUNDS * THREADS * PAGES);
	/* exited threads' counts were folded into the set's counters */
	ASSERT_GE(after.count[0].value - before.count[0].value,
		  atomic_load(&known_faults));
	ASSERT_EQ(pctr_set_nr_instances(set), 1);
	pctr_set_free(set);
}

/* ---- signal storms -------------------------------------------------------- */

static atomic_ulong signals;

static void
on_tick(int sig)
{
	atomic_fetch_add(&signals, 1);
}

/* SIGUSR1 every 50 us (1 ms under valgrind); alarm() stays the test's */
static void
storm(int on)
{
	static timer_t timer;
	struct sigaction sa = { .sa_handler = on_tick }; /* no SA_RESTART */
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGUSR1 };
	long ns = RUNNING_ON_VALGRIND ? 1000000 : 50000;
	struct itimerspec its = { { 0, ns }, { 0, ns } };

	if (!on) {
		ASSERT_EQ(timer_delete(timer), 0);
		return;
	}
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &sev, &timer), 0);
	ASSERT_EQ(timer_settime(timer, 0, &its, NULL), 0);
}

static void
read_through_storm(const struct pctr_target *t, unsigned int flags)
{
	struct pctr_set *set;
	struct pctr_sample s, prev;
	uint64_t end = now_ns() + 400000000;
	unsigned long reads = 0;
	int fds = count_fds();

	atomic_store(&signals, 0);
	storm(1);
	ASSERT_OK(pctr_set_new(&set, flags));
	ASSERT_OK(pctr_set_add_list(set, "task-clock,page-faults,cs"));
	ASSERT_OK(pctr_set_open(set, t));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_OK(pctr_set_read(set, &prev));
	while (now_ns() < end) {
		if (reads % 64 == 0)
			touch_pages(1);
		ASSERT_OK(pctr_set_read(set, &s));
		for (int e = 0; e < 3; e++) {
			ASSERT_GE(s.count[e].value, prev.count[e].value);
			ASSERT_GE(s.count[e].enabled, prev.count[e].enabled);
			ASSERT_LE(s.count[e].running, s.count[e].enabled);
		}
		prev = s;
		reads++;
	}
	ASSERT_GE(s.count[1].value, reads / 64);
	pctr_set_free(set);
	/* sets opened and closed while signals land */
	for (int i = 0; i < 200; i++) {
		ASSERT_OK(pctr_set_new(&set, flags));
		ASSERT_OK(pctr_set_add_list(set, "task-clock,page-faults,cs"));
		ASSERT_OK(pctr_set_open(set, t));
		pctr_set_free(set);
	}
	storm(0);
	ASSERT_EQ(count_fds(), fds);
	printf("# %lu reads, %lu signals\n", reads, atomic_load(&signals));
	ASSERT_GT(atomic_load(&signals), 100);
}

TEST(signal_storm_during_syscall_reads)
{
	SKIP_UNDER_VALGRIND("(its signal delivery is far slower than the storm)");
	read_through_storm(&process, 0);
}

TEST(signal_storm_during_user_reads)
{
	SKIP_UNDER_VALGRIND("(its signal delivery is far slower than the storm)");
	read_through_storm(&self, 0);
}

/* the library's own overflow signal lands while the set is read */
static atomic_ulong overflows;

static void
on_overflow(const struct pctr_overflow_info *info, void *arg)
{
	atomic_fetch_add(&overflows, 1);
}

TEST(overflow_signals_during_reads)
{
	struct pctr_overflow ovf = { .size = sizeof(ovf), .period = 100000,
				     .fn = on_overflow };
	struct pctr_sample s, prev;
	struct pctr_set *set;
	uint64_t end;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, "task-clock,page-faults"));
	r = pctr_set_overflow(set, 0, &ovf);
	if (r == -EOPNOTSUPP)
		SKIP("no overflow notification for task-clock here");
	ASSERT_OK(r);
	ASSERT_OK(pctr_set_open(set, &self));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_OK(pctr_set_read(set, &prev));
	end = thread_cpu_ns() + 300000000;
	while (thread_cpu_ns() < end) {
		ASSERT_OK(pctr_set_read(set, &s));
		ASSERT_GE(s.count[0].value, prev.count[0].value);
		ASSERT_GE(s.count[1].value, prev.count[1].value);
		prev = s;
	}
	ASSERT_OK(pctr_set_disable(set));
	/* 300 ms of task-clock at one overflow per 100 us: about 3000 */
	printf("# %lu overflows\n", atomic_load(&overflows));
	ASSERT_GT(atomic_load(&overflows), 300);
	pctr_set_free(set);
}

/* ---- fork and exec -------------------------------------------------------- */

TEST(fork_with_a_thread_set_open)
{
	struct pctr_set *set = open_set("page-faults,task-clock", &self);
	struct pctr_sample s0, s1;
	int status;
	pid_t pid;

	touch_pages(10);
	ASSERT_OK(pctr_set_read(set, &s0));
	pid = fork();
	if (pid == 0) {
		struct pctr_sample c;

		/* the child holds copies of the parent's counters: they read
		 * the parent's thread, never the child's own work */
		touch_pages(500);
		if (pctr_set_read(set, &c) < 0)
			TEST_FAIL("read in the child: %s", pctr_strerror(-1));
		if (c.count[0].value < s0.count[0].value ||
		    c.count[0].value >= s0.count[0].value + 500)
			TEST_FAIL("child read %llu, parent had %llu",
				  (unsigned long long)c.count[0].value,
				  (unsigned long long)s0.count[0].value);
		pctr_set_free(set);
		_exit(0);
	}
	ASSERT_GT(pid, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);
	/* the child's close did not close the parent's counters */
	touch_pages(50);
	ASSERT_OK(pctr_set_read(set, &s1));
	ASSERT_GE(s1.count[0].value, s0.count[0].value + 50);
	ASSERT_GT(s1.count[1].value, s0.count[1].value);
	pctr_set_free(set);
}

/*
 * The set is reachable from a static: the child leaves through _exit()
 * with the parent's set still allocated, and under valgrind a pointer
 * kept only in a register the child's code reused reads as a leak, which
 * fails the child (--error-exitcode).  volatile: a store that nothing
 * reads would be dropped.
 */
static struct pctr_set *volatile forked_set;

TEST(fork_with_a_process_set_open)
{
	struct pctr_set *set = forked_set = open_set("page-faults", &process);
	struct pctr_sample s0, s1;
	int status;
	pid_t pid;

	ASSERT_OK(pctr_set_read(set, &s0));
	pid = fork();
	if (pid == 0) {
		touch_pages(300);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the child inherited the counters; its faults came back at exit */
	ASSERT_OK(pctr_set_read(set, &s1));
	ASSERT_GE(s1.count[0].value, s0.count[0].value + 300);
	pctr_set_free(set);
}

static int
perf_fds(int *cloexec)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[64];
	int n = 0;

	*cloexec = 0;
	while ((e = readdir(d))) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (strcmp(link, "anon_inode:[perf_event]"))
			continue;
		n++;
		*cloexec += (fcntl(atoi(e->d_name), F_GETFD) & FD_CLOEXEC) != 0;
	}
	closedir(d);
	return n;
}

TEST(exec_leaves_no_counter_behind)
{
	struct pctr_set *a = open_set("task-clock,page-faults,cs", &self);
	struct pctr_set *b = open_set("task-clock,page-faults", &process);
	char out[4096] = "";
	int n, cloexec;
	size_t len;
	FILE *p;

	n = perf_fds(&cloexec);
	ASSERT_GE(n, 5);
	ASSERT_EQ(cloexec, n);
	p = popen("ls -l /proc/$$/fd", "r");
	ASSERT(p != NULL);
	len = fread(out, 1, sizeof(out) - 1, p);
	out[len] = '\0';
	ASSERT_EQ(pclose(p), 0);
	ASSERT_CONTAINS(out, "total");
	if (strstr(out, "perf_event"))
		TEST_FAIL("a counter survived exec:\n%s", out);
	pctr_set_free(a);
	pctr_set_free(b);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(two_sets_in_two_threads)
			       TEST_CASE(threads_come_and_go_under_an_inherited_set)
			       TEST_CASE(signal_storm_during_syscall_reads)
			       TEST_CASE(signal_storm_during_user_reads)
			       TEST_CASE(overflow_signals_during_reads)
			       TEST_CASE(fork_with_a_thread_set_open)
			       TEST_CASE(fork_with_a_process_set_open)
			       TEST_CASE(exec_leaves_no_counter_behind)));
}
