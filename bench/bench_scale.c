/* SPDX-License-Identifier: MIT */
/*
 * bench_scale.c - what counting a whole process costs the process, as its
 * thread count grows.
 *
 * The workload: a fixed amount of work (spin loops with a sched_yield()
 * between them, so the threads really switch) split over T threads that
 * are created and joined each time.  It runs bare, and with a set of four
 * software events counting the process (PCTR_TARGET_PROCESS: inherited by
 * every new thread, folded back into the parent's counters when a thread
 * exits).  The cost shows at thread creation and exit (the kernel copies
 * and then sums each inherited counter) and at every context switch.
 *
 * Both variants are measured trial by trial in turn (n runs of the
 * workload, median and minimum over the trials).  The counted variant's task-clock is
 * checked against the threads' own CPU time so the numbers are known to
 * be counting something.
 */
#include <pthread.h>

#include "pctr.h"
#include "harness.h"

#define WORK_UNITS 1024 /* spin blocks per run, split over the threads */
#define SPIN 20000

struct work {
	int threads;
	struct pctr_set *set; /* NULL: bare */
	struct pctr_sample s;
};

static void *
worker(void *arg)
{
	long units = (long)arg;
	volatile unsigned long x = 0;

	for (long u = 0; u < units; u++) {
		for (int i = 0; i < SPIN; i++)
			x += i;
		sched_yield();
	}
	return NULL;
}

static void
run_once(int threads)
{
	pthread_t t[64];

	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker,
				   (void *)(long)(WORK_UNITS / threads)))
			abort();
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
}

static void
m_workload(void *arg, long n)
{
	struct work *w = arg;

	while (n--)
		run_once(w->threads);
}

static struct pctr_set *
open_process(void)
{
	static const char *const ev[] = { "task-clock", "context-switches",
					  "page-faults", "cpu-migrations" };
	struct pctr_target t = { .type = PCTR_TARGET_PROCESS };
	struct pctr_set *set;
	int r = pctr_set_new(&set, 0);

	for (int i = 0; r >= 0 && i < 4; i++)
		r = pctr_set_add(set, ev[i]);
	if (r >= 0)
		r = pctr_set_open(set, &t);
	if (r >= 0)
		r = pctr_set_enable(set);
	if (r < 0) {
		fprintf(stderr, "bench_scale: %s\n", pctr_strerror(r));
		exit(1);
	}
	return set;
}

static double
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Does the inherited task-clock see the threads' CPU time? */
static void
check_counts(struct work *w)
{
	struct pctr_sample a, b;
	double c0, c1, counted;
	char note[160];

	pctr_set_read(w->set, &a);
	c0 = cpu_ns();
	run_once(w->threads);
	c1 = cpu_ns();
	/*
	 * pthread_join() returns when the kernel clears the thread's tid,
	 * before the exiting thread's counts are added to its parent's: give
	 * them a moment to land.
	 */
	usleep(20000);
	pctr_set_read(w->set, &b);
	counted = (double)(b.count[0].value - a.count[0].value);
	snprintf(note, sizeof(note),
		 "task-clock counted %.2f ms of %.2f ms CPU time; "
		 "%llu context switches",
		 counted / 1e6, (c1 - c0) / 1e6,
		 (unsigned long long)(b.count[1].value - a.count[1].value));
	printf("check\tpctr_inherit\t%d\t%.0f\t%.0f\t1\t1\t%s\n", w->threads,
	       counted, c1 - c0, note);
}

static void
run_trial(struct bench_case *c, int t)
{
	c->t1[t] = bench_time(c, c->n);
}

int
main(int argc, char **argv)
{
	static const int ts[] = { 1, 8, 64 };
	struct bench_opts o = bench_parse(argc, argv);
	struct pctr_set *set;
	struct work bare[3], counted[3];
	struct bench_case cs[6];

	/* no pinning: the threads are meant to spread over the CPUs */
	if (o.trials > 15)
		o.trials = 15; /* each case takes milliseconds */
	for (int i = 0; i < 3; i++) {
		bare[i] = (struct work){ .threads = ts[i] };
		counted[i] = (struct work){ .threads = ts[i] };
		cs[2 * i] = (struct bench_case){ .section = "scale",
						 .method = "bare",
						 .events = ts[i],
						 .fn = m_workload,
						 .arg = &bare[i] };
		cs[2 * i + 1] = (struct bench_case){ .section = "scale",
						     .method = "pctr_inherit",
						     .events = ts[i],
						     .fn = m_workload,
						     .arg = &counted[i] };
	}
	/*
	 * Bare must mean no counter at all: a disabled inherited counter is
	 * still copied to every new thread.  So each trial runs the bare
	 * cases, opens the set, runs the counted cases and closes it again;
	 * the calibration (and warm-up) is done the same way first.
	 */
	for (int t = -1; t < o.trials; t++) {
		for (int i = 0; i < 3; i++) {
			if (t < 0)
				bench_calibrate(&cs[2 * i]);
			else
				run_trial(&cs[2 * i], t);
		}
		set = open_process();
		for (int i = 0; i < 3; i++) {
			counted[i].set = set;
			if (t < 0) {
				cs[2 * i + 1].n = cs[2 * i].n;
				bench_time(&cs[2 * i + 1], 1);
			} else {
				run_trial(&cs[2 * i + 1], t);
			}
		}
		if (t == o.trials - 1)
			break; /* keep the last set for the check */
		pctr_set_free(set);
	}
	/*
	 * A run takes milliseconds: its fixed costs are negligible and the
	 * n/2n difference would only add the noise of two runs, so the
	 * figure is the time of n runs over n.
	 */
	for (int i = 0; i < 6; i++) {
		cs[i].trials = o.trials;
		bench_order(cs[i].t1, o.trials, &cs[i].median, &cs[i].min);
		cs[i].median /= (double)cs[i].n;
		cs[i].min /= (double)cs[i].n;
	}
	for (int i = 0; i < 6; i++)
		bench_print(&cs[i], "ns per run of the workload");
	for (int i = 0; i < 3; i++)
		check_counts(&counted[i]);
	pctr_set_free(set);
	return 0;
}
