/* SPDX-License-Identifier: MIT */
/*
 * harness.h - the measurement method of every benchmark in bench/.
 *
 * After nanoBench: a case is a function that repeats one operation n times.
 * Each trial times n and 2n repetitions and keeps the difference divided by
 * n, so the fixed costs (the clock reads, the call, the loop set-up) cancel
 * and what is left is the cost of one operation.  Before the first trial
 * every case is warmed up once.  Over the trials we report the median (what
 * a run usually costs) and the minimum (what it costs when nothing else
 * interferes); both, because a busy machine moves the median first.
 *
 * As in nanoBench, the n and 2n times are each aggregated over the trials
 * first (median, minimum) and only then subtracted: a noisy trial then
 * moves one aggregate a little instead of making one difference absurd
 * (even negative).
 *
 * Cases that are compared with each other are measured round-robin, trial
 * by trial (bench_run_cases), so that a burst of noise from other programs
 * falls on all of them rather than on whichever ran at that moment.
 *
 * n is calibrated once per case: doubled until n repetitions take at least
 * BENCH_TARGET_NS, so that the clock's resolution does not matter.
 *
 * Time is CLOCK_MONOTONIC (vDSO, ~25 ns per read, cancelled by the
 * difference).  The process is pinned to one CPU (bench_pin) so that a
 * migration never lands in the middle of a trial.
 *
 * Output: one tab-separated line per case on stdout,
 *   section  method  events  median_ns  min_ns  n  trials  note
 * that bench/report.py turns into tables and plots.  A case that cannot
 * run here is printed with "n/a" figures and its reason as the note.
 */
#ifndef PCTR_BENCH_HARNESS_H
#define PCTR_BENCH_HARNESS_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_TRIALS 1001
#define BENCH_TARGET_NS 1000000.0 /* n repetitions take at least 1 ms */

typedef void (*bench_fn)(void *arg, long n);

struct bench_case {
	const char *section; /* "read", "region", "scale"... */
	const char *method; /* a key without blanks: "pctr", "raw_group" */
	int events;
	bench_fn fn;
	void *arg;
	/* filled by the harness */
	long n;
	int trials;
	double t1[BENCH_MAX_TRIALS]; /* ns for n repetitions, per trial */
	double t2[BENCH_MAX_TRIALS]; /* ns for 2n */
	double median, min; /* per operation */
};

/* trials and CPU, from the command line of every bench program */
struct bench_opts {
	int trials;
	int cpu;
	int quick;
};

static inline double
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Pin the calling thread; -1 picks the last online CPU. */
static inline int
bench_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		cpu = n > 0 ? (int)n - 1 : 0;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "bench: cannot pin to CPU %d: %s\n", cpu,
			strerror(errno));
		return -1;
	}
	return cpu;
}

static inline int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline double
bench_time(struct bench_case *c, long n)
{
	double t0 = bench_now_ns();

	c->fn(c->arg, n);
	return bench_now_ns() - t0;
}

static inline void
bench_calibrate(struct bench_case *c)
{
	long n = 1;

	c->fn(c->arg, 16); /* warm-up: caches, TLB, lazy binding, page faults */
	while (n < (1L << 30) && bench_time(c, n) < BENCH_TARGET_NS)
		n *= 2;
	c->n = n;
}

static inline void
bench_order(double *v, int t, double *median, double *min)
{
	qsort(v, t, sizeof(double), bench_cmp_double);
	*min = v[0];
	*median = t % 2 ? v[t / 2] : (v[t / 2 - 1] + v[t / 2]) / 2;
}

static inline void
bench_finish(struct bench_case *c)
{
	double med1, min1, med2, min2;

	bench_order(c->t1, c->trials, &med1, &min1);
	bench_order(c->t2, c->trials, &med2, &min2);
	c->median = (med2 - med1) / (double)c->n;
	c->min = (min2 - min1) / (double)c->n;
}

/* Measure @nr cases, trial by trial in turn: N and 2N, difference over N. */
static inline void
bench_run_cases(struct bench_case *cs, int nr, int trials)
{
	if (trials > BENCH_MAX_TRIALS)
		trials = BENCH_MAX_TRIALS;
	for (int i = 0; i < nr; i++) {
		bench_calibrate(&cs[i]);
		cs[i].trials = trials;
	}
	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < nr; i++) {
			struct bench_case *c = &cs[i];
			c->t1[t] = bench_time(c, c->n);
			c->t2[t] = bench_time(c, 2 * c->n);
		}
	}
	for (int i = 0; i < nr; i++)
		bench_finish(&cs[i]);
}

static inline void
bench_print(const struct bench_case *c, const char *note)
{
	printf("%s\t%s\t%d\t%.1f\t%.1f\t%ld\t%d\t%s\n", c->section, c->method,
	       c->events, c->median, c->min, c->n, c->trials,
	       note ? note : "");
	fflush(stdout);
}

/* A case that cannot be measured here, and why (one line). */
static inline void
bench_print_na(const char *section, const char *method, int events,
	       const char *why)
{
	char buf[512];
	size_t k = 0;

	/* the note is one field: no tabs or newlines */
	for (; why[k] && k + 1 < sizeof(buf); k++)
		buf[k] = (why[k] == '\t' || why[k] == '\n') ? ' ' : why[k];
	buf[k] = '\0';
	printf("%s\t%s\t%d\tn/a\tn/a\t0\t0\t%s\n", section, method, events,
	       buf);
	fflush(stdout);
}

static inline void
bench_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-t TRIALS] [-c CPU] [-q]\n"
		"  -t TRIALS  trials per case (default 31, at most %d)\n"
		"  -c CPU     pin to this CPU (default: the last one)\n"
		"  -q         quick: 7 trials, fewer cases\n",
		prog, BENCH_MAX_TRIALS);
	exit(2);
}

static inline struct bench_opts
bench_parse(int argc, char **argv)
{
	struct bench_opts o = { .trials = 31, .cpu = -1, .quick = 0 };
	int opt;

	while ((opt = getopt(argc, argv, "t:c:qh")) != -1) {
		char *end;
		long v;

		switch (opt) {
		case 't':
		case 'c':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < (opt == 't' ? 1 : 0) ||
			    v > (opt == 't' ? BENCH_MAX_TRIALS : 4095))
				bench_usage(argv[0]);
			if (opt == 't')
				o.trials = (int)v;
			else
				o.cpu = (int)v;
			break;
		case 'q':
			o.quick = 1;
			o.trials = 7;
			break;
		default:
			bench_usage(argv[0]);
		}
	}
	return o;
}

/* Keep the compiler from dropping a result. */
#define BENCH_KEEP(x) __asm__ volatile("" : : "r"(x) : "memory")

#endif
