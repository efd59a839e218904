/* SPDX-License-Identifier: MIT */
/*
 * repro_inherit_swap_loss.c - the kernel swaps the counter context of a
 * thread with its children's clones, and the thread's counters lose no
 * page faults by it: what is lost is a thread whose group is refused.
 *
 * A child process, pinned to CPU 0, runs two threads that each create a
 * short thread, join it, and again: a short thread touches 4 new pages
 * and exits.  Its creator waits until it is gone from /proc (after
 * perf_event_exit_task() has added its counts to the counters it
 * inherited from), then counts it done.  This process opens, on every
 * thread of the child, the layout libpctr uses for a process: a group of
 * page-faults (leader), task-clock and context-switches, inherited, with
 * a dummy reader; reads the leaders a few hundred times; checks that the
 * page faults between two reads cover the threads done meanwhile (4
 * each, but for one per creator that may have run before the first
 * read); then opens a sibling into each creator's leader, which the
 * kernel refuses once the creator's context is no longer the leader's:
 * it was swapped.  Then it closes them all and opens them again, and
 * again.
 *
 * The mechanism: a short thread's context is a clone of its creator's
 * (every counter in it is inherited).  When the creator blocks in
 * pthread_join() and CPU 0 goes straight from it to the short thread,
 * perf_event_context_sched_out() finds the two contexts equivalent
 * (context_equiv()) and swaps them rather than switching the counters
 * out and in: the short thread runs on with the creator's context, the
 * creator with the clone.  The short thread exits with the creator's
 * context, and the counters opened on the creator leave with it (a read
 * of them still sums it all); the creator counts on in the clone,
 * whose counters are children of those, and the threads it creates later
 * inherit from them and add their counts to them at exit.  So no page
 * fault is lost; but a member opened on the creator after the swap is
 * refused, its context being no longer its leader's (ENODEV once that
 * short thread has exited, EINVAL before: repro_sibling_enodev).  A
 * layout opened thread by thread that leaves such a thread out misses
 * the page faults of every thread it creates in the window: opening an
 * unguarded layout at the moment a creator swaps is what fell short, and
 * only as often as the opener was held up between a leader and its
 * members (more often beside other load, hence the load effects seen
 * before).  Here a thread whose group is refused is opened again, as
 * libpctr does (src/set.c, open_retrying()).
 *
 * A dummy counter that is not inherited, held in each thread's context,
 * makes the children's contexts no clones (inherit_task_group() clears
 * inherited_all), so they are never swapped and nothing is refused:
 * libpctr holds such a guard for every thread of an inherited set
 * (src/set.c, open_instance()).
 *
 * Output: "# ..." lines with the figures, each refused open and each
 * short window.  "ok" only while (1) without the guard the creators'
 * contexts are swapped in at least half the windows that count (threads
 * done in them), (2) none of those windows falls short, and (3) with the
 * guard no open is refused, no context swapped and no window short, in as
 * many opens.  Usage: repro_inherit_swap_loss [OPENS [READS]].
 *
 * As seen (Linux 6.18, 2 CPUs, beside a load of 18 to 41 from other
 * work, and 0, 2 or 4 user-mode loops more: 15 runs of 1000 opens each
 * way, 5 to 17 s a run, 36 s at a load of 100): the creators' contexts
 * were swapped in 119 of 119 to 709 of 711 windows that counted, none
 * short; 0 to 10 opens of a creator refused a run (ENODEV), each opened
 * whole again.  With the guard: no swap, no refusal, none short.  The
 * same built with AddressSanitizer: swapped in 541 of 554, none short.
 * The earlier version of this program, which left a thread whose group
 * was refused out of its window, saw 31 short windows in 8000 opens,
 * each with a creator left out so, and none short where every thread
 * opened whole; it blamed the swap for page faults its own layout had
 * not counted.  libpctr with its guard closed once a thread's groups
 * were open (swaps then going on) passed tests/sys/test_churn 8 times of
 * 8.  Twice since (2026-12-08, two fresh containers' make check on a
 * quiet host, other tests running beside it), without the guard, one
 * window of about 1000 fell short with no thread left out: 16 page faults
 * counted of 36 needed (CPU 0: 40), and 12 of 24 (CPU 0: 28); those runs
 * refused 38 and 34 opens of a live thread (0 to 10 usually).  Not seen
 * in 8 runs alone on the same host (7,900 windows, 0 to 6 refused); the
 * cause, the kernel's or this program's reopening, is not known.  With
 * the guard (libpctr's layout) both runs had none short.
 * Relied on by src/set.c (open_instance(): the guard) and
 * tests/sys/test_churn.c.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CREATORS 2
#define PAGES 4
#define MAX_THREADS 16
#define TRIES 100 /* opens of a live thread whose group is refused */

/* in shared memory: the child creates, this process reads */
struct churn {
	atomic_int stop, started;
	atomic_int creator[CREATORS]; /* their thread ids */
	atomic_ulong done; /* short threads gone */
};

static struct churn *ch;

/* ---- the child ---------------------------------------------------------- */

static void *
short_thread(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*(pid_t *)arg = gettid();
	if (p == MAP_FAILED)
		abort();
	for (int i = 0; i < PAGES; i++)
		p[i * page] = 1;
	munmap((void *)p, PAGES * page);
	return NULL;
}

static int
gone(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) != 0;
}

static void *
creator(void *arg)
{
	atomic_store(&ch->creator[(long)arg], gettid());
	atomic_fetch_add(&ch->started, 1);
	while (!atomic_load(&ch->stop)) {
		pthread_t t;
		pid_t tid = 0;

		if (pthread_create(&t, NULL, short_thread, &tid) != 0 ||
		    pthread_join(t, NULL) != 0)
			abort();
		while (!gone(tid))
			sched_yield();
		atomic_fetch_add(&ch->done, 1);
	}
	return NULL;
}

static pid_t
start_child(void)
{
	pid_t pid = fork();
	cpu_set_t one;
	pthread_t th[CREATORS];

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		_exit(2);
	for (long i = 0; i < CREATORS; i++)
		if (pthread_create(&th[i], NULL, creator, (void *)i) != 0)
			_exit(2);
	while (!atomic_load(&ch->stop))
		usleep(10000);
	for (int i = 0; i < CREATORS; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/* ---- this process: the counters ---------------------------------------- */

struct thread_fds {
	pid_t tid;
	int guard, leader, member[2], reader;
};

static struct thread_fds fds[MAX_THREADS];
static int nr_fds;

/* what one phase saw */
struct tally {
	int opens, windows, shorts, swapped, refused, left_out;
};

static int
open_counter(uint64_t config, pid_t tid, int cpu, int group, int inherit,
	     uint64_t read_format)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.inherit = inherit;
	a.disabled = group < 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = read_format;
	return (int)syscall(SYS_perf_event_open, &a, tid, cpu, group,
			    PERF_FLAG_FD_CLOEXEC);
}

static void
close_thread(struct thread_fds *f)
{
	int all[] = { f->reader, f->member[1], f->member[0], f->leader,
		      f->guard };

	for (int i = 0; i < 5; i++)
		if (all[i] >= 0)
			close(all[i]);
}

/* libpctr's layout on one thread: 0, or -errno (its fds closed) */
static int
open_thread(pid_t tid, int guard, struct thread_fds *f)
{
	int err;

	f->tid = tid;
	f->guard = guard ? open_counter(PERF_COUNT_SW_DUMMY, tid, -1, -1, 0,
					0)
			 : -1;
	f->leader = open_counter(PERF_COUNT_SW_PAGE_FAULTS, tid, -1, -1, 1, 0);
	f->member[0] = f->member[1] = f->reader = -1;
	if (f->leader >= 0) {
		f->member[0] = open_counter(PERF_COUNT_SW_TASK_CLOCK, tid, -1,
					    f->leader, 1, 0);
		f->member[1] = open_counter(PERF_COUNT_SW_CONTEXT_SWITCHES,
					    tid, -1, f->leader, 1, 0);
		f->reader = open_counter(PERF_COUNT_SW_DUMMY, tid, -1,
					 f->leader, 1, PERF_FORMAT_GROUP);
	}
	if (f->leader < 0 || f->member[0] < 0 || f->member[1] < 0 ||
	    f->reader < 0 || (guard && f->guard < 0)) {
		err = errno;
		close_thread(f);
		return -err;
	}
	ioctl(f->leader, PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

static int
creator_index(pid_t tid)
{
	for (int i = 0; i < CREATORS; i++)
		if (tid == atomic_load(&ch->creator[i]))
			return i;
	return -1;
}

/*
 * Every thread of @pid: a short thread that fails is left out (it exits),
 * the main thread or a creator whose group is refused is opened again.
 * Returns the number of those left out all the same.
 */
static int
open_all(pid_t pid, int guard, struct tally *t)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	int left_out = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	nr_fds = 0;
	while (d && (e = readdir(d)) && nr_fds < MAX_THREADS) {
		pid_t tid = atoi(e->d_name);
		int live = tid == pid || creator_index(tid) >= 0, r = -1;

		if (e->d_name[0] == '.')
			continue;
		for (int i = 0; i < (live ? TRIES : 1) && r < 0; i++) {
			r = open_thread(tid, guard, &fds[nr_fds]);
			if (r < 0 && live) {
				t->refused++;
				printf("# %s guard, open %d: thread %d "
				       "refused (%s)\n",
				       guard ? "with" : "without", t->opens,
				       (int)tid, strerror(-r));
			}
		}
		if (r == 0)
			nr_fds++;
		else if (live)
			left_out++;
	}
	if (d)
		closedir(d);
	return left_out;
}

/* the page faults of all the threads' counters */
static uint64_t
faults(void)
{
	uint64_t sum = 0, v;

	for (int i = 0; i < nr_fds; i++)
		if (read(fds[i].leader, &v, sizeof(v)) == sizeof(v))
			sum += v;
	return sum;
}

static uint64_t
cpu_faults(int fd)
{
	uint64_t v = 0;

	if (fd >= 0 && read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	return v;
}

/* whether a creator's context is no longer its leader's: swapped */
static int
swapped(void)
{
	int n = 0;

	for (int i = 0; i < nr_fds; i++) {
		int fd;

		if (creator_index(fds[i].tid) < 0)
			continue;
		fd = open_counter(PERF_COUNT_SW_DUMMY, fds[i].tid, -1,
				  fds[i].leader, 1, 0);
		if (fd < 0)
			n++;
		else
			close(fd);
	}
	return n > 0;
}

/* @opens opens, each read @reads times */
static void
run(pid_t pid, int guard, int opens, int reads, struct tally *t)
{
	int cpu_fd = open_counter(PERF_COUNT_SW_PAGE_FAULTS, -1, 0, -1, 0, 0);

	ioctl(cpu_fd, PERF_EVENT_IOC_ENABLE, 0);
	memset(t, 0, sizeof(*t));
	for (t->opens = 0; t->opens < opens; t->opens++) {
		uint64_t s0, s1, c0, c1;
		unsigned long k0, k1;
		int left_out = open_all(pid, guard, t), sw;

		c0 = cpu_faults(cpu_fd);
		s0 = faults();
		k0 = atomic_load(&ch->done);
		for (int r = 0; r < reads; r++)
			faults();
		k1 = atomic_load(&ch->done);
		s1 = faults();
		c1 = cpu_faults(cpu_fd);
		sw = swapped();
		for (int i = 0; i < nr_fds; i++)
			close_thread(&fds[i]);
		t->left_out += left_out > 0;
		if (left_out || k1 <= k0 + CREATORS)
			continue;
		t->windows++;
		t->swapped += sw;
		if (s1 - s0 >= (k1 - k0 - CREATORS) * PAGES)
			continue;
		t->shorts++;
		printf("# %s guard, open %d: %lu threads gone, %llu page "
		       "faults counted, %d needed; CPU 0 counted %llu\n",
		       guard ? "with" : "without", t->opens, k1 - k0,
		       (unsigned long long)(s1 - s0),
		       (int)((k1 - k0 - CREATORS) * PAGES),
		       (unsigned long long)(c1 - c0));
	}
	if (cpu_fd >= 0)
		close(cpu_fd);
}

static void
report(const char *what, const struct tally *t)
{
	printf("# %s: %d opens, %d windows counted (threads done in them, "
	       "no thread left out), %d short; a creator's context swapped "
	       "in %d; %d opens of a live thread refused, %d left it out\n",
	       what, t->opens, t->windows, t->shorts, t->swapped, t->refused,
	       t->left_out);
}

int
main(int argc, char **argv)
{
	int opens = argc > 1 ? atoi(argv[1]) : 1000;
	int reads = argc > 2 ? atoi(argv[2]) : 300;
	struct tally bare, guarded;
	pid_t pid;
	int ok1, ok2, ok3;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..3\n");
	ch = mmap(NULL, sizeof(*ch), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ch == MAP_FAILED)
		return 1;
	pid = start_child();
	while (atomic_load(&ch->started) < CREATORS)
		usleep(1000);
	run(pid, 0, opens, reads, &bare);
	run(pid, 1, opens, reads, &guarded);
	atomic_store(&ch->stop, 1);
	waitpid(pid, NULL, 0);
	report("without a guard", &bare);
	report("with a guard", &guarded);
	ok1 = bare.windows > 0 && 2 * bare.swapped >= bare.windows;
	ok2 = bare.windows > 0 && bare.shorts == 0;
	ok3 = guarded.windows > 0 && guarded.shorts == 0 &&
	      guarded.swapped == 0 && guarded.refused == 0;
	printf("%sok 1 - without a guard, the creators' contexts are swapped "
	       "with their threads'\n", ok1 ? "" : "not ");
	printf("%sok 2 - and no page fault is lost by it\n", ok2 ? "" : "not ");
	printf("%sok 3 - with a guard in each thread's context, no swap, none "
	       "lost\n", ok3 ? "" : "not ");
	return ok1 && ok2 && ok3 ? 0 : 1;
}
