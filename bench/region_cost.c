/* SPDX-License-Identifier: MIT */
/*
 * region_cost - what an empty region costs, against the two counter reads
 * it must make.
 *
 *   region_cost [-t TRIALS] [-c CPU] [-q]
 *
 * Events: $PCTR_EVENTS, default "task-clock" (software events work on any
 * machine).  Cases, each an operation repeated n times (bench/harness.h:
 * n and 2n repetitions, difference over n, median and minimum of trials):
 *
 *   read_pair     pctr_set_read() twice: the floor a region cannot beat
 *   read_add      the same plus pctr_stats_add(): pmc_lib's read, read,
 *                 accumulate
 *   region_id     pctr_region_begin_id() + pctr_region_end_id()
 *   region_name   pctr_region_begin("name") + pctr_region_end("name")
 *   nested_2      an empty region inside another one, per inner pair
 *   region_off    begin + end while measurement is switched off
 */
#include <pctr.h>

#include "harness.h"

static struct pctr_set *set;
static struct pctr_stats *stats;
static int id;

static void
read_pair(void *arg, long n)
{
	struct pctr_sample a, b;

	for (long i = 0; i < n; i++) {
		pctr_set_read(set, &a);
		pctr_set_read(set, &b);
	}
	BENCH_KEEP(b.tsc);
}

static void
read_add(void *arg, long n)
{
	struct pctr_sample a, b;

	for (long i = 0; i < n; i++) {
		pctr_set_read(set, &a);
		pctr_set_read(set, &b);
		pctr_stats_add(stats, &b, &a);
	}
}

static void
region_id(void *arg, long n)
{
	for (long i = 0; i < n; i++) {
		pctr_region_begin_id(id);
		pctr_region_end_id(id);
	}
}

static void
region_name(void *arg, long n)
{
	for (long i = 0; i < n; i++) {
		pctr_region_begin("name");
		pctr_region_end("name");
	}
}

static void
nested_2(void *arg, long n)
{
	pctr_region_begin("outer");
	for (long i = 0; i < n; i++) {
		pctr_region_begin_id(id);
		pctr_region_end_id(id);
	}
	pctr_region_end("outer");
}

static void
region_off(void *arg, long n)
{
	pctr_region_enable(0);
	for (long i = 0; i < n; i++) {
		pctr_region_begin_id(id);
		pctr_region_end_id(id);
	}
	pctr_region_enable(1);
}

static int
setup(const char *events, char *why, size_t len)
{
	struct pctr_target me = { .type = PCTR_TARGET_THREAD };
	struct pctr_region_config cfg = { .size = sizeof(cfg),
					  .events = events,
					  .calibrate = PCTR_REGION_CALIBRATE };
	int r = pctr_set_new(&set, 0);

	if (r == 0)
		r = pctr_set_add_list(set, events);
	if (r >= 0)
		r = pctr_set_open(set, &me);
	if (r == 0)
		r = pctr_set_enable(set);
	if (r == 0)
		r = pctr_stats_new_for_set(&stats, set, 0);
	if (r == 0)
		r = pctr_region_init(&cfg);
	if (r == 0)
		r = id = pctr_region_id("empty");
	if (r >= 0)
		r = pctr_region_begin("warm-up");
	if (r == 0)
		r = pctr_region_end("warm-up");
	if (r < 0)
		snprintf(why, len, "%s", pctr_strerror(r));
	return r;
}

int
main(int argc, char **argv)
{
	struct bench_opts o = bench_parse(argc, argv);
	const char *events = getenv("PCTR_EVENTS");
	static struct bench_case cs[] = {
		{ "region", "read_pair", 0, read_pair },
		{ "region", "read_add", 0, read_add },
		{ "region", "region_id", 0, region_id },
		{ "region", "region_name", 0, region_name },
		{ "region", "nested_2", 0, nested_2 },
		{ "region", "region_off", 0, region_off },
	};
	int nr = sizeof(cs) / sizeof(cs[0]);
	char why[512], note[64];

	events = events && *events ? events : "task-clock";
	bench_pin(o.cpu);
	if (setup(events, why, sizeof(why)) < 0) {
		for (int i = 0; i < nr; i++)
			bench_print_na(cs[i].section, cs[i].method, 0, why);
		return 0;
	}
	for (int i = 0; i < nr; i++)
		cs[i].events = pctr_set_nr(set);
	bench_run_cases(cs, nr, o.trials);
	snprintf(note, sizeof(note), "%s, %s read", events,
		 pctr_set_user_read(set) ? "user-space" : "syscall");
	for (int i = 0; i < nr; i++)
		bench_print(&cs[i], note);
	pctr_stats_free(stats);
	pctr_set_free(set);
	return 0;
}
