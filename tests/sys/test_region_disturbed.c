/* SPDX-License-Identifier: MIT */
/*
 * test_region_disturbed - intervals that hold more than the region's code
 * are found and counted, with real kernel events and disturbances made to
 * happen for sure: a blocking sleep inside the region (the thread leaves
 * its CPU: a context switch, every time), and a migration
 * (sched_setaffinity() to another CPU returns only once the thread runs
 * there).  $PCTR_REGION_DISTURBED=keep keeps them in the figures, drop
 * leaves them out; the report says how many either way.
 *
 * The counts are checked against an independent witness: the thread's own
 * context switches (getrusage(RUSAGE_THREAD), voluntary and involuntary)
 * read just outside each region.  An interval whose bracket saw no switch
 * cannot have been switched, so the library may not flag more intervals
 * than had a switch in their bracket, nor fewer than were made to switch.
 * (The load on the machine may preempt any interval: those are disturbed
 * too, which is why the bounds are a range and not one number.)
 */
#include <errno.h>
#include <pctr.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "test.h"
#include "unit/json_flat.h"

#define LOOPS 40
#define SLEEP_NS 200000L /* 0.2 ms: a sleep of any length blocks */

static void
init(const char *policy)
{
	struct pctr_region_config cfg = { .size = sizeof(cfg),
					  .events = "task-clock,page-faults",
					  .calibrate = 100 };
	struct pctr_stats *st;
	uint64_t n;
	int r;
	struct pctr_machine m = { .size = sizeof(m) };

	ASSERT_OK(pctr_machine_get(&m));
	/* context switches happen in the kernel: its counting is needed */
	if (geteuid() != 0 && m.paranoid > 1)
		SKIP("the context-switch meter needs kernel counting: root "
		     "or kernel.perf_event_paranoid <= 1");
	unsetenv("PCTR_EVENTS");
	unsetenv("PCTR_REPORT");
	if (policy)
		setenv("PCTR_REGION_DISTURBED", policy, 1);
	else
		unsetenv("PCTR_REGION_DISTURBED");
	r = pctr_region_init(&cfg);
	if (r == -EACCES || r == -EPERM || r == -ENOSYS)
		SKIP("no perf_event_open here: %s", pctr_strerror(r));
	ASSERT_OK(r);
	/* the thread's first region opens the counters and calibrates */
	ASSERT_OK(pctr_region_begin("warm-up"));
	ASSERT_OK(pctr_region_end("warm-up"));
	ASSERT_OK(pctr_region_stats("warm-up", &st));
	ASSERT_GE(pctr_stats_disturbed(st, &n), 0);
	pctr_stats_free(st);
}

static long
switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		TEST_FAIL("getrusage: %s", strerror(errno));
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void
nap(void)
{
	struct timespec ts = { 0, SLEEP_NS };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * LOOPS regions "r", every other one with a sleep inside.  Return the
 * intervals whose bracket saw a context switch.
 */
static int
regions_with_sleeps(void)
{
	int switched = 0;

	for (int i = 0; i < LOOPS; i++) {
		long before = switches();

		ASSERT_OK(pctr_region_begin("r"));
		if (i % 2 == 0)
			nap();
		ASSERT_OK(pctr_region_end("r"));
		switched += switches() != before;
	}
	/* the witness saw every sleep: else the test proves nothing */
	ASSERT_GE(switched, LOOPS / 2);
	return switched;
}

struct result {
	uint64_t n, disturbed;
	double ticks;
	int dropped;
};

static struct result
result(const char *name)
{
	struct pctr_summary s = { .size = sizeof(s) };
	struct pctr_stats *st;
	struct result res;

	ASSERT_OK(pctr_region_stats(name, &st));
	ASSERT_OK(pctr_stats_get(st, PCTR_STATS_TIME, &s));
	res.n = s.n;
	res.ticks = s.total;
	res.dropped = pctr_stats_disturbed(st, &res.disturbed);
	ASSERT_GE(res.dropped, 0);
	pctr_stats_free(st);
	printf("# %s: %llu intervals in the figures, %llu disturbed%s\n", name,
	       (unsigned long long)res.n, (unsigned long long)res.disturbed,
	       res.dropped ? " (left out)" : "");
	return res;
}

TEST(sleeping_regions_are_disturbed_and_kept)
{
	struct result res;
	int switched;

	init("keep");
	switched = regions_with_sleeps();
	res = result("r");
	ASSERT_EQ(res.dropped, 0);
	/* every sleep switched; no more than the witness saw switch */
	ASSERT_GE(res.disturbed, LOOPS / 2);
	ASSERT_LE(res.disturbed, switched);
	/* kept: every interval is in the figures, the sleeps' time too
	 * (a sleep lasts at least what it asked for) */
	ASSERT_EQ(res.n, LOOPS);
	ASSERT_GE(res.ticks, LOOPS / 2 * (SLEEP_NS * 1e-9) * pctr_tsc_hz());
}

TEST(sleeping_regions_are_disturbed_and_dropped)
{
	struct result res;
	int switched;

	init("drop");
	switched = regions_with_sleeps();
	res = result("r");
	ASSERT_EQ(res.dropped, 1);
	ASSERT_GE(res.disturbed, LOOPS / 2);
	ASSERT_LE(res.disturbed, switched);
	/* left out: exactly the ones found disturbed are missing */
	ASSERT_EQ(res.n + res.disturbed, LOOPS);
}

/* the program's own choice, when the environment makes none */
TEST(config_drops_without_the_environment)
{
	struct pctr_region_config cfg = {
		.size = sizeof(cfg),
		.events = "task-clock",
		.calibrate = 100,
		.disturbed = PCTR_REGION_DISTURBED_DROP,
	};
	struct result res;

	unsetenv("PCTR_EVENTS");
	unsetenv("PCTR_REGION_DISTURBED");
	ASSERT_OK(pctr_region_init(&cfg));
	regions_with_sleeps();
	res = result("r");
	ASSERT_EQ(res.dropped, 1);
	ASSERT_GE(res.disturbed, LOOPS / 2);
	ASSERT_EQ(res.n + res.disturbed, LOOPS);
}

static int
other_cpu(int cpu, const cpu_set_t *allowed)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != cpu && CPU_ISSET(c, allowed))
			return c;
	return -1;
}

static void
pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ASSERT_OK(sched_setaffinity(0, sizeof(one), &one));
	/* it returns once the thread runs on an allowed CPU */
	ASSERT_EQ(sched_getcpu(), cpu);
}

TEST(migrating_regions_are_disturbed)
{
	cpu_set_t allowed;
	int cpu[2];
	struct result res;

	ASSERT_OK(sched_getaffinity(0, sizeof(allowed), &allowed));
	cpu[0] = sched_getcpu();
	cpu[1] = other_cpu(cpu[0], &allowed);
	if (cpu[1] < 0)
		SKIP("one CPU allowed: no migration possible");
	init("drop");
	pin(cpu[0]);
	/* each region moves the thread to the other CPU */
	for (int i = 0; i < LOOPS; i++) {
		ASSERT_OK(pctr_region_begin("move"));
		pin(cpu[(i + 1) % 2]);
		ASSERT_OK(pctr_region_end("move"));
	}
	res = result("move");
	/* every interval migrated: every one is disturbed, none left */
	ASSERT_EQ(res.disturbed, LOOPS);
	ASSERT_EQ(res.n, 0);
}

static void *
sleeper(void *arg)
{
	(void)arg;
	for (int i = 0; i < LOOPS / 2; i++) {
		ASSERT_OK(pctr_region_begin("nap"));
		nap();
		ASSERT_OK(pctr_region_end("nap"));
	}
	return NULL;
}

/* threads' counts add up when they exit, and a region all dropped stays */
TEST(threads_disturbed_add_up)
{
	struct pctr_regions *all;
	pthread_t th[2];
	struct result res;
	int k = -1;

	init("drop");
	for (int i = 0; i < 2; i++)
		ASSERT_OK(pthread_create(&th[i], NULL, sleeper, NULL));
	for (int i = 0; i < 2; i++)
		ASSERT_OK(pthread_join(th[i], NULL));
	res = result("nap");
	/* every interval slept: all flagged, all left out */
	ASSERT_EQ(res.disturbed, LOOPS);
	ASSERT_EQ(res.n, 0);
	ASSERT_OK(pctr_regions_get(&all));
	for (int i = 0; i < pctr_regions_nr(all); i++)
		if (!strcmp(pctr_regions_name(all, i), "nap"))
			k = i;
	ASSERT_GE(k, 0);
	ASSERT_EQ(pctr_regions_threads(all, k), 2);
	pctr_regions_free(all);
}

/* figures read back from the JSON, CSV and text reports */
static char *
report(int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT(f != NULL);
	ASSERT_OK(pctr_region_write(f, format));
	fclose(f);
	return buf;
}

static double
spread(const char *name, int idx)
{
	struct pctr_stats *st;
	double sd;

	ASSERT_OK(pctr_region_stats(name, &st));
	ASSERT_OK(pctr_stats_overhead_spread(st, idx, &sd));
	pctr_stats_free(st);
	return sd;
}

static void
check_json(const struct result *res)
{
	static char flat[1 << 17];
	char v[128], *text = report(PCTR_REPORT_JSON);
	int r = -1;

	if (json_flatten(text, flat, sizeof(flat)) < 0)
		TEST_FAIL("not JSON:\n%s", text);
	for (int i = 0; i < 2 && r < 0; i++) {
		char key[64];

		snprintf(key, sizeof(key), "regions[%d].name", i);
		if (json_get(flat, key, v, sizeof(v)) && !strcmp(v, "r"))
			r = i;
	}
	ASSERT_GE(r, 0);
#define RG(member) (snprintf(v, sizeof(v), "regions[%d].%s", r, member), \
		    json_get(flat, v, v, sizeof(v)))
	ASSERT_EQ(strtoull(RG("disturbed.intervals"), NULL, 10),
		  res->disturbed);
	ASSERT_STR_EQ(RG("disturbed.dropped"), "true");
	ASSERT_STR_EQ(RG("disturbed.detectors[0]"), "switch");
	ASSERT_STR_EQ(RG("disturbed.detectors[1]"), "mux");
	ASSERT_EQ(strtoull(RG("intervals"), NULL, 10), res->n);
	/* the spreads as the library has them, in digits that read back */
	ASSERT_DBL_NEAR(strtod(RG("tsc_ticks.overhead_stddev"), NULL),
			spread("r", PCTR_STATS_TIME), 0);
	ASSERT_DBL_NEAR(strtod(RG("events[1].overhead_stddev"), NULL),
			spread("r", 1), 0);
#undef RG
	free(text);
}

static void
check_csv(const struct result *res)
{
	char *text = report(PCTR_REPORT_CSV), *line, want[32];
	int rows = 0;

	ASSERT_CONTAINS(text, ",ci95_high,overhead_stddev,disturbed\n");
	snprintf(want, sizeof(want), ",%llu", (unsigned long long)res->disturbed);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "r,1,", 4))
			continue;
		/* the region's count on each of its rows, last */
		ASSERT_STR_EQ(strrchr(line, ','), want);
		rows++;
	}
	/* ticks, and count, per_second, per_cycle of 2 events, 2 ratios */
	ASSERT_EQ(rows, 1 + 2 * 3 + 2);
	free(text);
}

TEST(reports_say_how_many)
{
	char line[160], *text;
	struct result res;

	init("drop");
	regions_with_sleeps();
	res = result("r");
	check_json(&res);
	check_csv(&res);
	text = report(PCTR_REPORT_TEXT);
	snprintf(line, sizeof(line),
		 "\nDisturbed: %llu intervals, left out of the figures "
		 "above; looked for: context switches, multiplexing\n",
		 (unsigned long long)res.disturbed);
	ASSERT_CONTAINS(text, line);
	ASSERT_CONTAINS(text, "\noverhead sd ");
	free(text);
}

/* a pack (another rank's statistics) carries the count and the spread */
TEST(pack_carries_disturbed)
{
	struct pctr_stats *st, *back;
	uint64_t n, m;
	double a, b;
	ssize_t len;
	void *buf;

	init("drop");
	regions_with_sleeps();
	ASSERT_OK(pctr_region_stats("r", &st));
	len = pctr_stats_pack(st, NULL, 0);
	ASSERT_GT(len, 0);
	buf = malloc((size_t)len);
	ASSERT(buf != NULL);
	ASSERT_EQ(pctr_stats_pack(st, buf, (size_t)len), len);
	ASSERT_OK(pctr_stats_unpack(&back, buf, (size_t)len));
	ASSERT_EQ(pctr_stats_disturbed(back, &m), 1);
	ASSERT_EQ(pctr_stats_disturbed(st, &n), 1);
	ASSERT_EQ(m, n);
	ASSERT_GE(m, LOOPS / 2);
	ASSERT_OK(pctr_stats_overhead_spread(st, PCTR_STATS_TIME, &a));
	ASSERT_OK(pctr_stats_overhead_spread(back, PCTR_STATS_TIME, &b));
	ASSERT_DBL_NEAR(a, b, 0);
	/* merged on the other side, as the MPI layer does: they add up */
	ASSERT_OK(pctr_stats_merge(back, st));
	ASSERT_EQ(pctr_stats_disturbed(back, &m), 1);
	ASSERT_EQ(m, 2 * n);
	free(buf);
	pctr_stats_free(back);
	pctr_stats_free(st);
}

TEST(bad_value_is_refused_and_loses_nothing)
{
	struct pctr_region_config cfg = { .size = sizeof(cfg),
					  .events = "task-clock",
					  .calibrate = 10,
					  .disturbed = 2 };
	int r;

	unsetenv("PCTR_EVENTS");
	setenv("PCTR_REGION_DISTURBED", "sometimes", 1);
	r = pctr_region_init(NULL);
	ASSERT_EQ(r, -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(r), "PCTR_REGION_DISTURBED='sometimes'");
	ASSERT_CONTAINS(pctr_strerror(r), "'keep'");
	ASSERT_CONTAINS(pctr_strerror(r), "'drop'");
	/* nothing was configured: measurement is still off */
	ASSERT_EQ(pctr_region_enable(1), -EBADFD);
	unsetenv("PCTR_REGION_DISTURBED");
	ASSERT_EQ(pctr_region_init(&cfg), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "disturbed is 2");
	ASSERT_EQ(pctr_region_enable(1), -EBADFD);
	/* a good value afterwards configures as if nothing had happened */
	cfg.disturbed = PCTR_REGION_DISTURBED_KEEP;
	ASSERT_OK(pctr_region_init(&cfg));
	ASSERT_OK(pctr_region_begin("r"));
	ASSERT_OK(pctr_region_end("r"));
	/* kept (the default): the one interval is in the figures */
	ASSERT_EQ(result("r").n, 1);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(sleeping_regions_are_disturbed_and_kept)
			       TEST_CASE(sleeping_regions_are_disturbed_and_dropped)
			       TEST_CASE(config_drops_without_the_environment)
			       TEST_CASE(migrating_regions_are_disturbed)
			       TEST_CASE(threads_disturbed_add_up)
			       TEST_CASE(reports_say_how_many)
			       TEST_CASE(pack_carries_disturbed)
			       TEST_CASE(bad_value_is_refused_and_loses_nothing)));
}
