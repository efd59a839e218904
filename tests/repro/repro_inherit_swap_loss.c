/* SPDX-License-Identifier: MIT */
/*
 * repro_inherit_swap_loss.c - inherited counters lose the page faults of
 * threads created after the kernel swapped counter contexts.
 *
 * A child process, pinned to CPU 0, runs two threads that each create a
 * short thread, join it, and again: a short thread touches 4 new pages
 * and exits.  Its creator waits until it is gone from /proc (after
 * perf_event_exit_task() has added its counts to the counters it
 * inherited from), then counts it done.  This process opens, on every
 * thread of the child, the layout libpctr uses for a process: a group of
 * page-faults (leader), task-clock and context-switches, inherited, with
 * a dummy reader; reads the leaders a few hundred times; and checks that
 * the page faults between two reads cover the threads done meanwhile (4
 * each, but for one per creator that may have run before the first
 * read).  Then it closes them and opens them again, and again.
 *
 * With a creator and its short threads taking turns on one CPU, the
 * kernel swaps their counter contexts, which are clones of each other
 * (perf_event_context_sched_out()); now and then a window counts far
 * fewer page faults than its threads made, and they never show up later:
 * a counter on CPU 0 itself has them all.  A dummy counter that is not
 * inherited, held in each thread's context, makes the children's
 * contexts no clones (inherit_task_group() clears inherited_all), so
 * they are never swapped, and nothing is lost.  libpctr holds such a
 * guard for every thread of an inherited set (src/set.c,
 * open_instance()).
 *
 * Output: "# ..." lines with each short window and the totals.  "ok" only
 * while (1) without the guard some window falls short (the opens go on
 * until 3 have, at most MAX_OPENS), and (2) with it none does in as many
 * opens, and at least 1000.  A user-mode loop per CPU runs beside both
 * phases (start_spinners()).  Usage: repro_inherit_swap_loss [MAX_OPENS
 * [READS]].
 *
 * As seen: inherited counters lose the page faults of threads created after
 * the kernel swapped counter contexts: a child pinned to one CPU whose two
 * threads keep creating short threads (4 new pages each, counted once gone
 * from /proc), counted with the library's layout for a process (an
 * inherited group of page-faults, task-clock and context-switches with a
 * dummy reader on every thread, opened afresh again and again): a creator
 * and its children take turns on the CPU, the kernel swaps their clone
 * contexts (perf_event_context_sched_out()), and now and then a window
 * counts far fewer faults than its threads made (here 3 short windows in
 * 270 to 650 opens; e.g. 4 of 8 needed, while a counter on CPU 0 had 20);
 * they never show up later.  With a non-inherited dummy held in each
 * thread's context (the children's contexts are then no clones) none is
 * short in 1000 opens.  Under valgrind, which runs a process's threads one
 * at a time, test_churn met it without pinning.  A user-mode loop per CPU
 * runs beside both phases: on an idle machine the loss did not show in 3000
 * opens (a CI run), with the loops 3 times within 95 to 706 opens (three
 * runs, 40 to 50 s each); a soak's run beside its own load once saw 0 of
 * 687 windows short in 3000 opens, so the unguarded opens go on up to 10000
 * (they stop at the third short window) and the guarded phase takes as
 * many, between 1000 and 3000.  Run by the normal build only: built with
 * AddressSanitizer the child's threads start and exit so differently that
 * none was short in 5000 opens.  Relied on by src/set.c (open_instance():
 * the guard is held as long as the set); tests/sys/test_churn.c.
 */
#include <dirent.h>
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

/* in shared memory: the child creates, this process reads */
struct churn {
	atomic_int stop, started;
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
	(void)arg;
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
	for (int i = 0; i < CREATORS; i++)
		if (pthread_create(&th[i], NULL, creator, NULL) != 0)
			_exit(2);
	while (!atomic_load(&ch->stop))
		usleep(10000);
	for (int i = 0; i < CREATORS; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/*
 * A user-mode loop per CPU beside it all, both phases alike: on an idle
 * machine the loss did not show in 3000 opens (a CI run), while beside a
 * busy suite it showed 3 times within 71 to 139.  Competing for CPU 0
 * breaks up the creators' and short threads' turns there.
 */
static pid_t spinner[64];
static int nr_spinners;

static void
start_spinners(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	for (long i = 0; i < n && nr_spinners < 64; i++) {
		pid_t p = fork();

		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (volatile uint64_t x = 0;; x++)
				;
		}
		if (p > 0)
			spinner[nr_spinners++] = p;
	}
}

static void
stop_spinners(void)
{
	for (int i = 0; i < nr_spinners; i++) {
		kill(spinner[i], SIGKILL);
		waitpid(spinner[i], NULL, 0);
	}
}

/* ---- this process: the counters ---------------------------------------- */

struct thread_fds {
	int guard, leader, member[2], reader;
};

static struct thread_fds fds[MAX_THREADS];
static int nr_fds;

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

/* libpctr's layout on one thread: 0, or -1 if the thread is gone */
static int
open_thread(pid_t tid, int guard, struct thread_fds *f)
{
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
		close_thread(f);
		return -1;
	}
	ioctl(f->leader, PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

static void
open_all(pid_t pid, int guard)
{
	char path[64];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	nr_fds = 0;
	while (d && (e = readdir(d)) && nr_fds < MAX_THREADS)
		if (e->d_name[0] != '.' &&
		    open_thread(atoi(e->d_name), guard, &fds[nr_fds]) == 0)
			nr_fds++;
	if (d)
		closedir(d);
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

/*
 * Up to @max_opens opens, each read @reads times; stops once @stop_at
 * windows have fallen short.  Returns the number of short windows.
 */
static int
run(pid_t pid, int guard, int max_opens, int reads, int stop_at,
    int *opens, int *windows)
{
	int cpu_fd = open_counter(PERF_COUNT_SW_PAGE_FAULTS, -1, 0, -1, 0, 0);
	int shorts = 0;

	ioctl(cpu_fd, PERF_EVENT_IOC_ENABLE, 0);
	*windows = 0;
	for (*opens = 0; *opens < max_opens && shorts < stop_at; ++*opens) {
		uint64_t s0, s1, c0, c1;
		unsigned long k0, k1;

		open_all(pid, guard);
		c0 = cpu_faults(cpu_fd);
		s0 = faults();
		k0 = atomic_load(&ch->done);
		for (int r = 0; r < reads; r++)
			faults();
		k1 = atomic_load(&ch->done);
		s1 = faults();
		c1 = cpu_faults(cpu_fd);
		for (int i = 0; i < nr_fds; i++)
			close_thread(&fds[i]);
		if (k1 <= k0 + CREATORS)
			continue;
		++*windows;
		if (s1 - s0 >= (k1 - k0 - CREATORS) * PAGES)
			continue;
		shorts++;
		printf("# %s guard, open %d: %lu threads gone, %llu page "
		       "faults counted, %d needed; CPU 0 counted %llu\n",
		       guard ? "with" : "without", *opens, k1 - k0,
		       (unsigned long long)(s1 - s0),
		       (int)((k1 - k0 - CREATORS) * PAGES),
		       (unsigned long long)(c1 - c0));
	}
	if (cpu_fd >= 0)
		close(cpu_fd);
	return shorts;
}

int
main(int argc, char **argv)
{
	/*
	 * 10000: a soak's run beside its own load saw 0 of 687 windows short
	 * in 3000 opens (its threads seldom finished within a window), where
	 * other runs met 3 within 71 to 706; the opens stop at the third
	 */
	int max_opens = argc > 1 ? atoi(argv[1]) : 10000;
	int reads = argc > 2 ? atoi(argv[2]) : 300;
	int opens, windows, lost, guarded, opens_g, windows_g;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..2\n");
	ch = mmap(NULL, sizeof(*ch), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ch == MAP_FAILED)
		return 1;
	pid = start_child();
	start_spinners();
	while (atomic_load(&ch->started) < CREATORS)
		usleep(1000);
	lost = run(pid, 0, max_opens, reads, 3, &opens, &windows);
	/*
	 * as many opens, at least 1000 (3 short in 270 here without) and
	 * at most 3000 (none short in 3000 before the limit above rose)
	 */
	guarded = run(pid, 1, opens < 1000 ? 1000 : opens > 3000 ? 3000 : opens,
		      reads, 1, &opens_g, &windows_g);
	atomic_store(&ch->stop, 1);
	waitpid(pid, NULL, 0);
	stop_spinners();
	printf("# without a guard: %d of %d windows short, in %d opens\n",
	       lost, windows, opens);
	printf("# with a guard: %d of %d windows short, in %d opens\n",
	       guarded, windows_g, opens_g);
	printf("%sok 1 - without a guard, inherited counters lose page "
	       "faults\n", lost > 0 ? "" : "not ");
	printf("%sok 2 - with a guard in each thread's context, none\n",
	       guarded == 0 && windows_g > 0 ? "" : "not ");
	return lost > 0 && guarded == 0 && windows_g > 0 ? 0 : 1;
}
