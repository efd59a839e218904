/* SPDX-License-Identifier: MIT */
/*
 * test_stat_churn - pctr stat on programs whose threads come and go: with
 * -I on a command and with -p on a running process it runs to the end,
 * exits 0 and prints every interval (group reads of inherited counters
 * fail with ECHILD while threads exit, tests/repro/).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/prctl.h>

#include "tool.h"

#define CHURNERS 2
#define PAGES 4

static atomic_int stop;
static atomic_long threads;

static void *
short_thread(void *arg)
{
	touch_pages(PAGES);
	return arg;
}

static void *
churner(void *arg)
{
	while (!atomic_load(&stop)) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_thread, NULL) != 0)
			return NULL;
		pthread_join(t, NULL);
		atomic_fetch_add(&threads, 1);
	}
	return arg;
}

/* "churn MS": threads created and joined for MS ms; prints how many */
static int
churn(long ms)
{
	pthread_t th[CHURNERS];
	uint64_t end;
	struct timespec ts;

	for (int i = 0; i < CHURNERS; i++)
		pthread_create(&th[i], NULL, churner, NULL);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + ms;
	do {
		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while ((uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 < end);
	atomic_store(&stop, 1);
	for (int i = 0; i < CHURNERS; i++)
		pthread_join(th[i], NULL);
	printf("threads %ld\n", atomic_load(&threads));
	return 0;
}

/*
 * -I 10 over a command that churns for 1.5 s: an interval row per event
 * every 10 ms, none missing (the rows are timed by the clock, and a late
 * tick is caught up), and every short thread's pages in the total.
 */
TEST(interval_on_a_churning_command)
{
	static const char *check =
		"import csv,sys\n"
		"lines=[l for l in sys.stdin if not l.startswith('threads ')]\n"
		"rows=list(csv.DictReader(lines))\n"
		"iv=[r for r in rows if r['kind']=='interval' and\n"
		"    r['event']=='page-faults']\n"
		"tot=[int(r['value']) for r in rows if r['kind']=='total' and\n"
		"     r['event']=='page-faults'][0]\n"
		"t=[int(r['time_ns']) for r in iv]\n"
		"ok=(len(iv)>=149 and t==sorted(t) and tot>=%ld and\n"
		"    sum(int(r['value']) for r in iv)<=tot)\n"
		"print(1 if ok else 0)\n";
	char script[1024];
	struct result r = pctr("stat", "-I", "10", "--format=pctr-csv", "-o",
			       "-", "-e", "task-clock,page-faults", "--",
			       self_exe, "churn", "1500", NULL);
	long n = 0;

	ASSERT_EQ(r.status, 0);
	ASSERT(strstr(r.out, "threads "));
	ASSERT_EQ(sscanf(strstr(r.out, "threads "), "threads %ld", &n), 1);
	printf("# %ld threads came and went\n", n);
	ASSERT_GT(n, 0);
	/* 1.5 s at least: 150 ticks, the last one maybe after the exit */
	snprintf(script, sizeof(script), check, n * PAGES);
	ASSERT_EQ(python_num(script, r.out), 1);
}

/*
 * -p -I 50 -d 1 on a process that churns all that time: 20 intervals
 * (the last one may land on the deadline), a total, exit 0.
 */
TEST(attach_to_a_churning_process)
{
	/* columns kind,run,time_ns,id,event,value (no header here) */
	static const char *check =
		"import csv,sys\n"
		"rows=[r for r in csv.reader(sys.stdin) if r[0]!='kind']\n"
		"iv=[r for r in rows if r[0]=='interval' and\n"
		"    r[4]=='page-faults']\n"
		"tot=[int(r[5]) for r in rows if r[0]=='total' and\n"
		"     r[4]=='page-faults']\n"
		"ok=(len(iv)==20 and len(tot)==1 and tot[0]>0)\n"
		"print(1 if ok else 0)\n";
	pid_t child = fork();
	char pid[16];
	struct result r;

	ASSERT(child >= 0);
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(churn(60000));
	}
	usleep(100000); /* the churners are running */
	snprintf(pid, sizeof(pid), "%d", (int)child);
	r = pctr("stat", "-p", pid, "-I", "50", "--duration", "1",
		 "--format=pctr-csv", "-o", "-", "-e", "task-clock,page-faults",
		 NULL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (r.status != 0)
		printf("# %s", r.err);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

int
main(int argc, char **argv)
{
	int h;

	if (argc == 3 && !strcmp(argv[1], "churn"))
		return churn(atol(argv[2]));
	h = helper_main(argc, argv);
	if (h >= 0)
		return h;
	find_self(argv[0]);
	return test_main(TESTS(TEST_CASE(interval_on_a_churning_command)
			       TEST_CASE(attach_to_a_churning_process)));
}
