/* SPDX-License-Identifier: MIT */
/*
 * overflow_cost - what an overflow notification costs, and how fast the
 * profiler can sample before the program slows down by 5%.
 *
 * A fixed loop (about 200 ms of CPU) runs bare, then with task-clock
 * overflow signals at several periods, then with buffer sampling at
 * several rates.  Each configuration runs 7 times, alternating with the
 * bare loop, and the medians are compared:
 *   cost per notification = (median with - median bare) / notifications
 *   slowdown              = median with / median bare - 1
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pctr.h"

#define TRIALS 7
#define ITERS 200000000ull

static volatile uint64_t sink;
static volatile int notes;

static void
work(void)
{
	for (uint64_t i = 0; i < ITERS; i++)
		sink = sink * 31 + i;
}

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void
on_overflow(const struct pctr_overflow_info *info, void *arg)
{
	(void)info;
	(void)arg;
	notes++;
}

static int
cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t
timed(struct pctr_set *set)
{
	uint64_t t0, t1;

	if (set && pctr_set_enable(set) < 0)
		exit(1);
	t0 = now_ns();
	work();
	t1 = now_ns();
	if (set)
		pctr_set_disable(set);
	return t1 - t0;
}

static int
drain(const struct pctr_sample_record *r, void *arg)
{
	(void)r;
	(*(uint64_t *)arg)++;
	return 0;
}

static struct pctr_set *
make(uint64_t period, int buffer)
{
	struct pctr_overflow o = { .size = sizeof(o), .period = period,
				   .fn = on_overflow };
	struct pctr_sampling s = { .size = sizeof(s), .period = period,
				   .flags = PCTR_SAMPLE_FREQ | PCTR_SAMPLE_TID,
				   .pages = 256 };
	struct pctr_set *set;
	int r;

	if (pctr_set_new(&set, 0) < 0 || pctr_set_add(set, "task-clock:u") < 0)
		exit(1);
	r = buffer ? pctr_set_sampling(set, 0, &s)
		   : pctr_set_overflow(set, 0, &o);
	if (r < 0 || pctr_set_open(set, &(struct pctr_target){
						PCTR_TARGET_THREAD }) < 0) {
		fprintf(stderr, "%s\n", pctr_strerror(r));
		exit(1);
	}
	return set;
}

/* median of bare and of @set's runs, alternating */
static void
measure(struct pctr_set *set, uint64_t *bare, uint64_t *with)
{
	uint64_t b[TRIALS], w[TRIALS];

	for (int i = 0; i < TRIALS; i++) {
		b[i] = timed(NULL);
		w[i] = timed(set);
	}
	qsort(b, TRIALS, sizeof(*b), cmp);
	qsort(w, TRIALS, sizeof(*w), cmp);
	*bare = b[TRIALS / 2];
	*with = w[TRIALS / 2];
}

int
main(void)
{
	static const uint64_t periods[] = { 1000000, 100000, 20000 };
	static const uint64_t rates[] = { 1000, 4000, 10000, 20000 };

	timed(NULL); /* warm up */
	printf("signal\tperiod_ns\tnotifications\tcost_ns_each\n");
	for (size_t i = 0; i < sizeof(periods) / sizeof(*periods); i++) {
		struct pctr_set *set = make(periods[i], 0);
		uint64_t bare, with;
		double n;

		notes = 0;
		measure(set, &bare, &with);
		n = (double)notes / TRIALS;
		printf("signal\t%llu\t%.0f\t%.0f\n",
		       (unsigned long long)periods[i], n,
		       ((double)with - (double)bare) / n);
		pctr_set_free(set);
	}
	printf("buffer\trate_hz\tsamples\tslowdown_pct\n");
	for (size_t i = 0; i < sizeof(rates) / sizeof(*rates); i++) {
		struct pctr_set *set = make(rates[i], 1);
		uint64_t bare, with, n = 0;

		measure(set, &bare, &with);
		pctr_set_sampling_read(set, drain, &n);
		printf("buffer\t%llu\t%llu\t%.2f\n",
		       (unsigned long long)rates[i],
		       (unsigned long long)(n / TRIALS),
		       100.0 * ((double)with / (double)bare - 1));
		pctr_set_free(set);
	}
	return 0;
}
