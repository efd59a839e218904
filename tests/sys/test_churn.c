/* SPDX-License-Identifier: MIT */
/*
 * test_churn.c - process and pid sets while threads come and go.
 *
 * A thread that exits takes its inherited copy of each group apart while
 * the set may be reading it: a group read then fails with ECHILD
 * (tests/repro/repro_group_read_echild.c).  A thread that exits while a
 * set opens on it fails its leader with ESRCH and a sibling with ENODEV,
 * and a live thread that creates threads has siblings refused too
 * (tests/repro/repro_sibling_enodev.c).  Here threads are created and
 * joined without a pause while sets are opened and read thousands of
 * times: not one open or read may fail, counts never go back, and they
 * add up to what the threads are known to have done.
 */
#include <errno.h>
#include <pctr.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "test.h"
#include "helpers.h"

#define EVENTS "page-faults,task-clock,context-switches"
#define CHURNERS 2 /* threads that create and join threads, one at a time */
#define PAGES 4 /* touched by each short thread: at least 4 page faults */
/* valgrind runs one thread at a time, about 50 times slower */
#define N(n) (TEST_UNDER_VALGRIND() ? (n) / 20 : (n))

/* in shared memory, so that a forked child can churn for the parent */
struct churn {
	atomic_int stop;
	atomic_int started;
	atomic_ulong done; /* short threads gone, all PAGES touched */
};

static void *
short_thread(void *arg)
{
	*(pid_t *)arg = gettid();
	touch_pages(PAGES);
	return arg;
}

/*
 * Whether thread @tid of this process is still there.  pthread_join()
 * returns once the kernel has cleared the thread's tid, in exit_mm(),
 * which Linux 6.1's do_exit() runs before perf_event_exit_task() adds the
 * thread's counts to the counters they were inherited from: only once the
 * thread is released (gone from /proc, after both) are its page faults
 * sure to be in a read of the set.
 */
static int
thread_present(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0;
}

static void *
churner(void *arg)
{
	struct churn *ch = arg;

	atomic_fetch_add(&ch->started, 1);
	while (!atomic_load(&ch->stop)) {
		pthread_t t;
		pid_t tid = 0;

		ASSERT_EQ(pthread_create(&t, NULL, short_thread, &tid), 0);
		ASSERT_EQ(pthread_join(t, NULL), 0);
		while (thread_present(tid))
			sched_yield();
		atomic_fetch_add(&ch->done, 1);
	}
	return NULL;
}

static struct churn *
churn_new(void)
{
	struct churn *ch = mmap(NULL, sizeof(*ch), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ASSERT(ch != MAP_FAILED);
	return ch;
}

static void
churn_start(struct churn *ch, pthread_t *th)
{
	for (int i = 0; i < CHURNERS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, churner, ch), 0);
	while (atomic_load(&ch->started) < CHURNERS)
		usleep(1000);
}

static void
churn_stop(struct churn *ch, pthread_t *th)
{
	atomic_store(&ch->stop, 1);
	for (int i = 0; i < CHURNERS; i++)
		ASSERT_EQ(pthread_join(th[i], NULL), 0);
}

static struct pctr_set *
open_set(const struct pctr_target *t)
{
	struct pctr_set *set;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_add_list(set, EVENTS), 3);
	r = pctr_set_open(set, t);
	if (r < 0)
		TEST_FAIL("open: %s", pctr_strerror(r));
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

/* a read that must work and must not go back from @prev */
static void
read_on(struct pctr_set *set, struct pctr_sample *prev)
{
	struct pctr_sample s;
	int r = pctr_set_read(set, &s);

	if (r < 0)
		TEST_FAIL("read: %s", pctr_strerror(r));
	for (int e = 0; e < 3; e++) {
		ASSERT_GE(s.count[e].value, prev->count[e].value);
		ASSERT_GE(s.count[e].enabled, prev->count[e].enabled);
		ASSERT_GE(s.count[e].running, prev->count[e].running);
	}
	*prev = s;
}

static uint64_t
cpus_online(void)
{
	return (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * One set on this process, read without a pause while the churners run:
 * at the end, every page every short thread touched was counted, and no
 * more CPU time than the CPUs had since the set opened.
 */
TEST(process_set_read_while_threads_exit)
{
	static const struct pctr_target t = { .type = PCTR_TARGET_PROCESS };
	struct churn *ch = churn_new();
	uint64_t t0 = now_ns(), t1;
	struct pctr_sample s = { 0 };
	pthread_t th[CHURNERS];
	struct pctr_set *set = open_set(&t);
	int reads = N(5000);

	churn_start(ch, th);
	for (int i = 0; i < reads; i++)
		read_on(set, &s);
	churn_stop(ch, th);
	read_on(set, &s);
	t1 = now_ns();
	printf("# %d reads while %lu threads came and went; %llu page faults\n",
	       reads + 1, atomic_load(&ch->done),
	       (unsigned long long)s.count[0].value);
	ASSERT_GT(atomic_load(&ch->done), 0);
	/* every short thread was created after the open: all inherited */
	ASSERT_GE(s.count[0].value, atomic_load(&ch->done) * PAGES);
	/* task-clock is CPU time: no more than every CPU for the whole time */
	ASSERT_LE(s.count[1].value, (t1 - t0) * cpus_online());
	pctr_set_free(set);
}

/* Sets opened, read and freed again and again on a churning process. */
TEST(process_sets_opened_while_threads_exit)
{
	static const struct pctr_target t = { .type = PCTR_TARGET_PROCESS };
	struct churn *ch = churn_new();
	pthread_t th[CHURNERS];
	int opens = N(1000), fds = count_fds();

	churn_start(ch, th);
	for (int i = 0; i < opens; i++) {
		struct pctr_set *set = open_set(&t);
		struct pctr_sample s = { 0 };

		ASSERT_GE(pctr_set_nr_instances(set), 1);
		for (int k = 0; k < 3; k++)
			read_on(set, &s);
		pctr_set_free(set);
	}
	churn_stop(ch, th);
	printf("# %d opens and %d reads while %lu threads came and went\n",
	       opens, 3 * opens, atomic_load(&ch->done));
	ASSERT_EQ(count_fds(), fds);
}

/*
 * The page faults between two reads @s0 and @s of @set, at least PAGES for
 * each of @threads short threads.  A shortfall prints what a read 100 ms
 * later finds (late counts, or lost ones) before it fails.
 */
static void
check_pages(struct pctr_set *set, const struct pctr_sample *s0,
	    const struct pctr_sample *s, uint64_t threads)
{
	uint64_t got = s->count[0].value - s0->count[0].value;

	if (got < threads * PAGES) {
		struct pctr_sample later;

		usleep(100000);
		if (pctr_set_read(set, &later) == 0)
			printf("# %llu threads gone, %llu page faults; 100 ms "
			       "later %llu\n", (unsigned long long)threads,
			       (unsigned long long)got,
			       (unsigned long long)(later.count[0].value -
						    s0->count[0].value));
	}
	ASSERT_GE(got, threads * PAGES);
}

/* ---- another process -------------------------------------------------- */

static pid_t
churning_child(struct churn *ch)
{
	pid_t pid = fork();
	pthread_t th[CHURNERS];

	ASSERT(pid >= 0);
	if (pid > 0) {
		while (atomic_load(&ch->started) < CHURNERS)
			usleep(1000);
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves no churner */
	churn_start(ch, th);
	while (!atomic_load(&ch->stop))
		usleep(10000);
	churn_stop(ch, th);
	_exit(0);
}

static void
child_done(struct churn *ch, pid_t pid)
{
	int status;

	atomic_store(&ch->stop, 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * A pid set opened on a churning process, read READS times, then freed,
 * again and again.  Between two reads of one set, the short threads joined
 * meanwhile touched their pages while it counted, except those already
 * running at the first read: at most one per churner.
 */
TEST(pid_sets_of_a_churning_process)
{
	struct churn *ch = churn_new();
	pid_t pid = churning_child(ch);
	struct pctr_target t = { .type = PCTR_TARGET_PID, .pid = pid };
	int opens = N(400), reads = 10, fds = count_fds();
	unsigned long checked = 0;

	for (int i = 0; i < opens; i++) {
		uint64_t w0 = now_ns(), k0, k1;
		struct pctr_set *set = open_set(&t);
		struct pctr_sample s = { 0 }, s0;

		read_on(set, &s);
		s0 = s;
		k0 = atomic_load(&ch->done);
		for (int k = 0; k < reads; k++)
			read_on(set, &s);
		k1 = atomic_load(&ch->done);
		read_on(set, &s);
		if (k1 > k0 + CHURNERS) {
			check_pages(set, &s0, &s, k1 - k0 - CHURNERS);
			checked += k1 - k0 - CHURNERS;
		}
		/*
		 * CPU time: no more than every CPU had since the open.  (Not
		 * since the first read: a thread running on another CPU then
		 * may have time not yet added to its count.)
		 */
		ASSERT_LE(s.count[1].value, (now_ns() - w0) * cpus_online());
		pctr_set_free(set);
	}
	printf("# %d pid sets, %d reads, while %lu threads came and went; "
	       "%lu threads' pages checked\n",
	       opens, opens * (reads + 2), atomic_load(&ch->done), checked);
	child_done(ch, pid);
	ASSERT_EQ(count_fds(), fds);
}

/*
 * One pid set read thousands of times: threads of the child that the set
 * opened on exit meanwhile, and threads created after it come and go.
 */
TEST(pid_set_read_while_threads_exit)
{
	struct churn *ch = churn_new();
	pid_t pid = churning_child(ch);
	struct pctr_target t = { .type = PCTR_TARGET_PID, .pid = pid };
	struct pctr_set *set = open_set(&t);
	struct pctr_sample s = { 0 }, s0;
	int reads = N(5000);
	uint64_t k0, k1;

	uint64_t deadline;

	read_on(set, &s);
	s0 = s;
	k0 = atomic_load(&ch->done);
	/*
	 * At least READS reads, and on until more threads than churners
	 * have come and gone (under valgrind the child is slow), for 30 s
	 * at most: a churner that stops is a failure below.
	 */
	deadline = now_ns() + 30000000000ull;
	for (int i = 0; i < reads ||
			(atomic_load(&ch->done) <= k0 + CHURNERS &&
			 now_ns() < deadline);
	     i++)
		read_on(set, &s);
	k1 = atomic_load(&ch->done);
	read_on(set, &s);
	printf("# %llu threads came and went while the set was read\n",
	       (unsigned long long)(k1 - k0));
	ASSERT_GT(k1, k0 + CHURNERS);
	/* as above: at most one thread per churner was running at s0 */
	check_pages(set, &s0, &s, k1 - k0 - CHURNERS);
	pctr_set_free(set);
	child_done(ch, pid);
}

/* ---- processes and threads that are gone ----------------------------- */

static void *
spin_forever(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* main() returned through pthread_exit(): the process lives on */
TEST(pid_set_of_a_process_whose_main_thread_exited)
{
	struct pctr_set *set;
	struct pctr_target t = { .type = PCTR_TARGET_PID };
	char path[64];
	pid_t pid = fork();

	ASSERT(pid >= 0);
	if (pid == 0) {
		pthread_t th;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pthread_create(&th, NULL, spin_forever, NULL);
		pthread_exit(NULL);
	}
	/* the main thread is a zombie once its state says so */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)pid);
	for (int i = 0; i < 5000; i++) {
		char buf[256] = "";
		FILE *f = fopen(path, "r");

		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		if (strstr(buf, ") Z "))
			break;
		usleep(1000);
	}
	t.pid = pid;
	set = open_set(&t);
	/* the thread left, counted; the main one left out */
	ASSERT_EQ(pctr_set_nr_instances(set), 1);
	ASSERT(pctr_set_instance_id(set, 0) != pid);
	pctr_set_free(set);
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
}

/* a process that has exited (not yet reaped): ESRCH that says so */
TEST(pid_set_of_an_exited_process)
{
	struct pctr_target t = { .type = PCTR_TARGET_PID };
	struct pctr_set *set;
	siginfo_t si;
	pid_t pid = fork();

	ASSERT(pid >= 0);
	if (pid == 0)
		_exit(0);
	/* wait until it is a zombie, and leave it one */
	ASSERT_EQ(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	t.pid = pid;
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_add_list(set, EVENTS), 3);
	ASSERT_EQ(pctr_set_open(set, &t), -ESRCH);
	ASSERT_CONTAINS(pctr_strerror(-ESRCH), "no such process");
	ASSERT(!strstr(pctr_strerror(-ESRCH), "offline CPU"));
	pctr_set_free(set);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(process_set_read_while_threads_exit)
			       TEST_CASE(process_sets_opened_while_threads_exit)
			       TEST_CASE(pid_sets_of_a_churning_process)
			       TEST_CASE(pid_set_read_while_threads_exit)
			       TEST_CASE(
				       pid_set_of_a_process_whose_main_thread_exited)
			       TEST_CASE(pid_set_of_an_exited_process)));
}
