/* SPDX-License-Identifier: MIT */
/*
 * test_region - statistics and regions on real software events: figures
 * recomputed here from raw reads, page faults of known fresh pages, 16
 * threads at once, and $PCTR_EVENTS/$PCTR_REPORT end to end through
 * examples/region.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pctr.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "test.h"
#include "unit/json_flat.h"

#define NTHREADS 16

static long page;

/* map @n fresh pages: touching each costs exactly one page fault */
static volatile char *
fresh(long n)
{
	void *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		TEST_FAIL("mmap of %ld pages failed", n);
	return p;
}

/* uninstrumented: AddressSanitizer's shadow reads would fault too */
__attribute__((no_sanitize_address)) static void
touch(volatile char *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
}

/* plain perf_event_open of task-clock:u on this thread fails */
static int
kernel_refuses_task_clock(void)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK,
				     .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd >= 0)
		close(fd);
	return fd < 0;
}

static struct pctr_set *
open_self(const char *events)
{
	struct pctr_target me = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, events));
	r = pctr_set_open(set, &me);
	/* a skip only when the kernel itself refuses, never for a bug */
	if ((r == -EACCES || r == -EPERM || r == -ENOSYS) &&
	    kernel_refuses_task_clock())
		SKIP("no perf_event_open here: %s", pctr_strerror(r));
	ASSERT_OK(r);
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

static struct pctr_summary
get(const struct pctr_stats *st, int idx)
{
	struct pctr_summary s = { .size = sizeof(s) };

	if (pctr_stats_get(st, idx, &s) < 0)
		TEST_FAIL("pctr_stats_get(%d)", idx);
	return s;
}

/* two passes, the textbook way, to check the one-pass figures */
static void
check_series(const struct pctr_stats *st, int idx, const double *x, int n)
{
	struct pctr_summary s = get(st, idx);
	double sum = 0, lo = x[0], hi = x[0], ss = 0, mean;

	for (int i = 0; i < n; i++) {
		sum += x[i];
		lo = x[i] < lo ? x[i] : lo;
		hi = x[i] > hi ? x[i] : hi;
	}
	mean = sum / n;
	for (int i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	ASSERT_EQ(s.n, n);
	ASSERT_DBL_NEAR(s.total, sum, 0);
	ASSERT_DBL_NEAR(s.min, lo, 0);
	ASSERT_DBL_NEAR(s.max, hi, 0);
	/* no libm here: compare the variance */
	ASSERT_DBL_NEAR(s.mean, mean, 1e-6 * (1 + (mean < 0 ? -mean : mean)));
	ASSERT_DBL_NEAR(s.stddev * s.stddev, ss / (n - 1), 1e-6 * (1 + ss));
}

TEST(stats_match_raw_reads)
{
	struct pctr_set *set = open_self("task-clock,page-faults");
	struct pctr_sample t0, t1;
	struct pctr_stats *st;
	double ticks[40], clk[40], pf[40];
	int n = 40;

	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");

	ASSERT_OK(pctr_stats_new_for_set(&st, set, 0));
	ASSERT_STR_EQ(pctr_stats_name(st, 1), "page-faults");
	for (int i = 0; i < n; i++) {
		volatile char *p = fresh(i % 7 + 1);

		ASSERT_OK(pctr_set_read(set, &t0));
		touch(p, i % 7 + 1);
		ASSERT_OK(pctr_set_read(set, &t1));
		ASSERT_OK(pctr_stats_add(st, &t1, &t0));
		ticks[i] = (double)(t1.tsc - t0.tsc);
		clk[i] = (double)(t1.count[0].value - t0.count[0].value);
		pf[i] = (double)(t1.count[1].value - t0.count[1].value);
		ASSERT_DBL_NEAR(pf[i], i % 7 + 1, 0);
		munmap((void *)p, (i % 7 + 1) * page);
	}
	check_series(st, PCTR_STATS_TIME, ticks, n);
	check_series(st, 0, clk, n);
	check_series(st, 1, pf, n);
	pctr_stats_free(st);
	pctr_set_free(set);
}

TEST(calibration_finds_and_removes_read_cost)
{
	struct pctr_set *set = open_self("task-clock,page-faults");
	struct pctr_sample t0, t1;
	struct pctr_stats *st;
	uint64_t oh_clk, oh_pf, oh_t;
	double want_clk = 0, want_t = 0;

	ASSERT_OK(pctr_stats_new_for_set(&st, set, 0));
	ASSERT_EQ(pctr_stats_calibrate(st, set, 0), -EINVAL);
	ASSERT_OK(pctr_stats_calibrate(st, set, 200));
	ASSERT_OK(pctr_stats_overhead(st, 0, &oh_clk));
	ASSERT_OK(pctr_stats_overhead(st, 1, &oh_pf));
	ASSERT_OK(pctr_stats_overhead(st, PCTR_STATS_TIME, &oh_t));
	ASSERT_EQ(oh_pf, 0); /* reading does not fault */
	ASSERT_GT(oh_t, 0); /* two reads take time */
	for (int i = 0; i < 50; i++) {
		uint64_t clk, t;

		ASSERT_OK(pctr_set_read(set, &t0));
		ASSERT_OK(pctr_set_read(set, &t1));
		ASSERT_OK(pctr_stats_add(st, &t1, &t0));
		clk = t1.count[0].value - t0.count[0].value;
		t = t1.tsc - t0.tsc;
		want_clk += clk > oh_clk ? clk - oh_clk : 0;
		want_t += t > oh_t ? t - oh_t : 0;
	}
	ASSERT_DBL_NEAR(get(st, 0).total, want_clk, 0);
	ASSERT_DBL_NEAR(get(st, PCTR_STATS_TIME).total, want_t, 0);
	pctr_stats_free(st);
	pctr_set_free(set);
}

static void
touch_three(void *arg)
{
	static long k;
	volatile char *p = arg;

	touch(p + (k++ % 64) * 3 * page, 3);
}

/* N and 2N runs of a body that faults 3 pages each: 3N faults remain */
TEST(differencing_cancels_the_reads)
{
	struct pctr_set *set = open_self("page-faults");
	volatile char *p = fresh(64 * 3 * 4);
	struct pctr_stats *st;
	struct pctr_summary s;

	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");

	ASSERT_OK(pctr_stats_new_for_set(&st, set, 0));
	ASSERT_EQ(pctr_stats_add_diff(st, set, NULL, NULL, 1), -EINVAL);
	/* 16 + 16 + 32 = 64 runs: every run touches 3 fresh pages */
	ASSERT_OK(pctr_stats_add_diff(st, set, touch_three, (void *)p, 16));
	s = get(st, 0);
	ASSERT_EQ(s.n, 1);
	ASSERT_DBL_NEAR(s.total, 3 * 16, 0);
	pctr_stats_free(st);
	pctr_set_free(set);
}

static void
init_regions(const char *events, unsigned int keep)
{
	struct pctr_region_config cfg = { .size = sizeof(cfg),
					  .events = events,
					  .keep = keep,
					  .calibrate = 200 };
	int r;

	unsetenv("PCTR_EVENTS");
	unsetenv("PCTR_REPORT");
	r = pctr_region_init(&cfg);
	ASSERT_OK(r);
	/* skip early if this machine cannot count at all */
	pctr_set_free(open_self(events));
}

TEST(region_counts_fresh_pages)
{
	volatile char *p;
	struct pctr_stats *st;
	uint64_t oh;

	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");

	init_regions("page-faults,task-clock", 0);
	for (int i = 1; i <= 10; i++) {
		p = fresh(i);
		ASSERT_OK(pctr_region_begin("touch"));
		touch(p, i);
		ASSERT_OK(pctr_region_end("touch"));
		munmap((void *)p, i * page);
	}
	ASSERT_OK(pctr_region_stats("touch", &st));
	ASSERT_EQ(get(st, 0).n, 10);
	ASSERT_EQ(get(st, 0).total, 55);
	ASSERT_EQ(get(st, 0).min, 1);
	ASSERT_EQ(get(st, 0).max, 10);
	ASSERT_DBL_NEAR(get(st, 0).stddev * get(st, 0).stddev, 55.0 / 6,
			1e-9);
	ASSERT_OK(pctr_stats_overhead(st, 0, &oh));
	ASSERT_EQ(oh, 0);
	ASSERT_OK(pctr_stats_overhead(st, PCTR_STATS_TIME, &oh));
	ASSERT_GT(oh, 0);
	ASSERT_STR_EQ(pctr_stats_name(st, 1), "task-clock");
	pctr_stats_free(st);
	ASSERT_EQ(pctr_region_stats("never", &st), -ENOENT);
}

/*
 * Regions @outer and @inner nested over 8 fresh pages, with the misuses in
 * between: 2 faults in outer, 5 in inner, then 1 more in outer.
 */
static void
nest(const char *outer, const char *inner)
{
	volatile char *p = fresh(8);
	int id = pctr_region_id(outer);

	ASSERT_GE(id, 1);
	ASSERT_EQ(pctr_region_id(outer), id);
	ASSERT_OK(pctr_region_begin_id(id));
	touch(p, 2);
	ASSERT_OK(pctr_region_begin(inner));
	touch(p + 2 * page, 5);
	ASSERT_EQ(pctr_region_end_id(id), -EINVAL); /* inner is open */
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "innermost");
	ASSERT_EQ(pctr_region_flush(), -EBUSY);
	ASSERT_OK(pctr_region_end(inner));
	touch(p + 7 * page, 1);
	ASSERT_OK(pctr_region_end_id(id));
}

/*
 * A region's end adds sums alone: a rate's mean is the ratio of sums, and
 * its single intervals' extremes are those of the kept intervals, so NaN
 * without keep; with every interval kept they bracket the mean (a ratio of
 * sums is a weighted mean of the single ratios).
 */
static void
rate_extremes(unsigned int keep)
{
	struct pctr_summary s = { .size = sizeof(s) };
	struct pctr_stats *st;
	volatile char *p;

	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");
	init_regions("page-faults", keep);
	for (int i = 1; i <= 4; i++) {
		p = fresh(i);
		ASSERT_OK(pctr_region_begin("touch"));
		touch(p, i);
		ASSERT_OK(pctr_region_end("touch"));
	}
	ASSERT_OK(pctr_region_stats("touch", &st));
	ASSERT_OK(pctr_stats_per_second(st, 0, &s));
	ASSERT_EQ(s.n, 4);
	ASSERT_GT(s.mean, 0);
	ASSERT_DBL_NEAR(s.mean, s.total, 0);
	if (keep == 0) {
		ASSERT_NE(isnan(s.min), 0);
		ASSERT_NE(isnan(s.max), 0);
	} else {
		ASSERT_GT(s.min, 0);
		ASSERT_LE(s.min, s.mean * (1 + 1e-12));
		ASSERT_GE(s.max, s.mean * (1 - 1e-12));
	}
	pctr_stats_free(st);
}

TEST(region_rate_extremes_need_kept_intervals)
{
	rate_extremes(0);
}

TEST(region_rate_extremes_of_kept_intervals)
{
	rate_extremes(8);
}

TEST(regions_nest_and_check_their_order)
{
	struct pctr_stats *st;

	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");

	init_regions("page-faults", 0);
	/*
	 * Once untimed first, under other names: the error paths run inside
	 * the outer region, and the first run of code faults its pages in
	 * (on a busy machine fault-around skips pages another process holds
	 * locked, so how many is not fixed).  Those faults are the code's,
	 * not the region's pages; warm, only the 8 pages fault.
	 */
	nest("warm-outer", "warm-inner");
	nest("outer", "inner");
	ASSERT_EQ(pctr_region_end("inner"), -EINVAL); /* nothing open */
	ASSERT_OK(pctr_region_stats("outer", &st));
	ASSERT_EQ(get(st, 0).total, 8); /* inclusive of inner */
	pctr_stats_free(st);
	ASSERT_OK(pctr_region_stats("inner", &st));
	ASSERT_EQ(get(st, 0).total, 5);
	pctr_stats_free(st);
	for (int d = 0; d < PCTR_REGION_MAX_DEPTH; d++)
		ASSERT_OK(pctr_region_begin("deep"));
	ASSERT_EQ(pctr_region_begin("deep"), -E2BIG);
	ASSERT_EQ(pctr_region_begin_id(100000), -ERANGE);
}

TEST(off_means_nothing_counted)
{
	struct pctr_stats *st;

	ASSERT_EQ(pctr_region_enable(1), -EBADFD);
	init_regions("page-faults", 0);
	ASSERT_OK(pctr_region_enable(0));
	for (int i = 0; i < 100; i++) {
		ASSERT_OK(pctr_region_begin("quiet"));
		ASSERT_OK(pctr_region_end("quiet"));
	}
	ASSERT_EQ(pctr_region_stats("quiet", &st), -ENOENT);
	ASSERT_OK(pctr_region_enable(1));
	ASSERT_OK(pctr_region_begin("quiet"));
	ASSERT_OK(pctr_region_end("quiet"));
	ASSERT_OK(pctr_region_stats("quiet", &st));
	ASSERT_EQ(get(st, 0).n, 1);
	pctr_stats_free(st);
}

struct truth {
	int index;
	long iterations, pages;
	int err;
};

/* thread i: 5 + i iterations of 1 + i % 4 fresh pages */
static void *
worker(void *arg)
{
	struct truth *t = arg;
	int r;

	t->iterations = 5 + t->index;
	t->pages = 1 + t->index % 4;
	r = pctr_region_begin("all");
	for (long k = 0; r == 0 && k < t->iterations; k++) {
		volatile char *p = fresh(t->pages);

		r = pctr_region_begin("touch");
		touch(p, t->pages);
		if (r == 0)
			r = pctr_region_end("touch");
		munmap((void *)p, t->pages * page);
	}
	if (r == 0)
		r = pctr_region_end("all");
	t->err = r;
	return NULL;
}

static void
run_threads(struct truth *t)
{
	pthread_t tid[NTHREADS];

	for (int i = 0; i < NTHREADS; i++) {
		t[i].index = i;
		ASSERT_EQ(pthread_create(&tid[i], NULL, worker, &t[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		ASSERT_EQ(pthread_join(tid[i], NULL), 0);
		if (t[i].err < 0)
			TEST_FAIL("thread %d: %s", i, pctr_strerror(t[i].err));
	}
}

TEST(sixteen_threads_sum_exactly)
{
	struct truth t[NTHREADS];
	long intervals = 0, faults = 0;
	struct pctr_stats *st;
	char *text = NULL, flat[1 << 16], v[64];
	size_t len;
	FILE *f;

	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");

	init_regions("page-faults", 64);
	run_threads(t);
	for (int i = 0; i < NTHREADS; i++) {
		intervals += t[i].iterations;
		faults += t[i].iterations * t[i].pages;
	}
	ASSERT_OK(pctr_region_stats("touch", &st));
	ASSERT_EQ(get(st, 0).n, intervals);
	ASSERT_EQ(get(st, 0).total, faults);
	ASSERT_EQ(get(st, 0).min, 1);
	ASSERT_EQ(get(st, 0).max, 4);
	pctr_stats_free(st);
	ASSERT_OK(pctr_region_stats("all", &st));
	ASSERT_EQ(get(st, 0).n, NTHREADS);
	ASSERT_EQ(get(st, 0).total, faults);
	pctr_stats_free(st);

	f = open_memstream(&text, &len);
	ASSERT_OK(pctr_region_write(f, PCTR_REPORT_JSON));
	fclose(f);
	ASSERT_EQ(json_flatten(text, flat, sizeof(flat)), 0);
	ASSERT_STR_EQ(json_get(flat, "regions[0].name", v, sizeof(v)), "all");
	ASSERT_EQ(atol(json_get(flat, "regions[0].threads", v, sizeof(v))),
		  NTHREADS);
	ASSERT_EQ(atol(json_get(flat, "regions[1].events[0].total", v,
				sizeof(v))),
		  faults);
	free(text);
}

/* @inner begun and ended inside @outer, nothing between */
static void
nest_empty(const char *outer, const char *inner)
{
	ASSERT_OK(pctr_region_begin(outer));
	ASSERT_OK(pctr_region_begin(inner));
	ASSERT_OK(pctr_region_end(inner));
	ASSERT_OK(pctr_region_end(outer));
}

/* the page-fault total of region @name: what its intervals counted */
static long
faults_of(const char *name)
{
	struct pctr_stats *st;
	long total;

	ASSERT_OK(pctr_region_stats(name, &st));
	total = (long)get(st, 0).total;
	pctr_stats_free(st);
	return total;
}

/*
 * The first end of a region inside another adds to statistics made in a
 * pause of the other (begin_slow()): their memory is written in that
 * pause, not at that end.  65536 kept intervals take rows of 512 KiB that
 * calloc() leaves untouched (a fresh mapping is zero already), and the
 * first end's write of a slot in each was a page fault of the outer
 * region.  An empty nest first, so that the code runs warm.
 */
TEST(first_end_inside_a_region_touches_no_fresh_page)
{
	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");

	init_regions("page-faults", 1 << 16);
	nest_empty("warm-outer", "warm-inner");
	nest_empty("outer", "inner");
	ASSERT_EQ(faults_of("outer"), 0);
}

/*
 * Make every page of the library's code fault again, one at a time, as it
 * is next run: unmapped, out of the page cache, and read at random (no
 * read-ahead, so a fault maps no neighbour: fault-around maps only pages
 * that are cached).
 */
static void
drop_library_code(void)
{
	uintptr_t at = (uintptr_t)(void *)pctr_count_add, lo, hi;
	char perm[8], path[PATH_MAX], line[PATH_MAX + 128];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");
	int fd;

	ASSERT(f != NULL);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line,
			       "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %*s %s",
			       &lo, &hi, perm, path) == 4 &&
			lo <= at && at < hi && perm[2] == 'x';
	fclose(f);
	ASSERT(found);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_OK(madvise((void *)lo, hi - lo, MADV_RANDOM));
	ASSERT_OK(madvise((void *)lo, hi - lo, MADV_DONTNEED));
	ASSERT_OK(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	close(fd);
}

/*
 * A region's first begin inside another pauses the other (begin_slow()):
 * what runs after the pause's last read is counted in the other, and must
 * have run before it.  The first thread of a process to begin a region
 * inside another ran that code (pctr_count_add(), moving the other's
 * start) for the first time there, and the other counted its page faults
 * wherever the linker had put it on pages nothing else had run (2 more in
 * sixteen_threads_sum_exactly's "all" under AddressSanitizer, once the
 * sysfs unit code moved it).  Here the library's code is dropped and what
 * a region already known runs is run again, so that the first region
 * begun inside another finds the rest cold.  Where that code shares its
 * pages with the paths run again, this passes with or without the fix.
 */
TEST(first_begin_inside_a_region_runs_no_cold_code)
{
	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");

	init_regions("page-faults", 0);
	nest_empty("warm-outer", "warm-inner");
	drop_library_code();
	nest_empty("warm-outer", "warm-inner");
	nest_empty("outer", "inner");
	ASSERT_EQ(faults_of("outer"), 0);
}

/*
 * The walk sees what the report says: each region with intervals, in the
 * report's order, with its threads and statistics; a region named but
 * never entered is not there.  Each region's statistics survive a pack.
 */
TEST(regions_walk_as_reported)
{
	struct truth t[NTHREADS];
	long intervals = 0, faults = 0;
	struct pctr_regions *rs;
	struct pctr_stats *back;
	unsigned char buf[4096];
	ssize_t len;

	SKIP_UNDER_VALGRIND("(page faults of its own: "
			    "tests/repro/repro_valgrind_own_work)");

	ASSERT_OK(pctr_regions_get(&rs));
	ASSERT_EQ(pctr_regions_nr(rs), 0);
	pctr_regions_free(rs);
	init_regions("page-faults", 0);
	ASSERT_GE(pctr_region_id("named"), 1);
	run_threads(t);
	for (int i = 0; i < NTHREADS; i++) {
		intervals += t[i].iterations;
		faults += t[i].iterations * t[i].pages;
	}
	ASSERT_OK(pctr_regions_get(&rs));
	ASSERT_EQ(pctr_regions_nr(rs), 2);
	ASSERT_STR_EQ(pctr_regions_name(rs, 0), "all");
	ASSERT_STR_EQ(pctr_regions_name(rs, 1), "touch");
	ASSERT_EQ(pctr_regions_threads(rs, 0), NTHREADS);
	ASSERT_EQ(pctr_regions_threads(rs, 1), NTHREADS);
	ASSERT_EQ(get(pctr_regions_stats(rs, 0), 0).n, NTHREADS);
	ASSERT_EQ(get(pctr_regions_stats(rs, 1), 0).n, intervals);
	ASSERT_EQ(get(pctr_regions_stats(rs, 1), 0).total, faults);
	ASSERT(pctr_regions_name(rs, 2) == NULL);
	ASSERT(pctr_regions_stats(rs, -1) == NULL);
	ASSERT_EQ(pctr_regions_threads(rs, 2), -ERANGE);
	len = pctr_stats_pack(pctr_regions_stats(rs, 1), buf, sizeof(buf));
	ASSERT_GT(len, 0);
	ASSERT_OK(pctr_stats_unpack(&back, buf, len));
	ASSERT_EQ(get(back, 0).total, faults);
	ASSERT_STR_EQ(pctr_stats_name(back, 0), "page-faults");
	pctr_stats_free(back);
	pctr_regions_free(rs);
	pctr_regions_free(NULL);
}

/* a thread that flushes is counted once, and its intervals once */
TEST(flush_then_exit_counts_once)
{
	struct pctr_stats *st;

	init_regions("page-faults", 0);
	ASSERT_OK(pctr_region_begin("f"));
	ASSERT_OK(pctr_region_end("f"));
	ASSERT_OK(pctr_region_flush());
	ASSERT_OK(pctr_region_begin("f"));
	ASSERT_OK(pctr_region_end("f"));
	ASSERT_OK(pctr_region_stats("f", &st));
	ASSERT_EQ(get(st, 0).n, 2);
	pctr_stats_free(st);
	ASSERT_OK(pctr_region_flush());
	ASSERT_OK(pctr_region_stats("f", &st));
	ASSERT_EQ(get(st, 0).n, 2);
	pctr_stats_free(st);
}

/* ---- PCTR_EVENTS and PCTR_REPORT, end to end ---------------------------- */

static void
example_path(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	ASSERT_GT(n, 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(out, len, "%s/../../examples/region", self);
	if (access(out, X_OK))
		SKIP("examples/region is not built (%s)", out);
}

/*
 * Run examples/region (3 threads, 7 iterations, 5 pages) with the two
 * variables set; @file is the report's name, where "%d" stands for the
 * child's pid.  Return the report's text.
 */
static char *
slurp(const char *name)
{
	char *text;
	FILE *f = fopen(name, "r");
	long len;

	if (!f)
		TEST_FAIL("no report %s", name);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, len + 1);
	ASSERT_EQ(fread(text, 1, len, f), (size_t)len);
	fclose(f);
	return text;
}

/*
 * Run examples/region (3 threads, 7 iterations, 5 pages) with the two
 * variables set; @file is the report's name, where "%d" stands for the
 * child's pid.  Return the report's text, and what the program wrote on
 * standard error in *@err unless @err is NULL.
 */
static char *
run_example_err(const char *events, const char *report, const char *file,
		char **err)
{
	char prog[PATH_MAX], name[PATH_MAX], errname[64], *text;
	int status;
	pid_t pid;

	example_path(prog, sizeof(prog));
	snprintf(errname, sizeof(errname), "/tmp/pctr-region-err-%d",
		 (int)getpid());
	pid = fork();
	if (pid == 0) {
		if (err && !freopen(errname, "w", stderr))
			_exit(126);
		setenv("PCTR_EVENTS", events, 1);
		setenv("PCTR_REPORT", report, 1);
		execl(prog, prog, "3", "7", "5", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	snprintf(name, sizeof(name), file, (int)pid);
	text = slurp(name);
	unlink(name);
	if (err) {
		*err = slurp(errname);
		unlink(errname);
	}
	return text;
}

static char *
run_example(const char *events, const char *report, const char *file)
{
	return run_example_err(events, report, file, NULL);
}

/*
 * examples/region with $PCTR_EVENTS and $PCTR_REPORT set to @report, or
 * unset for NULL: what it wrote on standard error.  Its standard output
 * stays empty: the program writes its own report there only when
 * neither variable is set, so the report is never written twice.
 */
static char *
example_stderr(const char *events, const char *report)
{
	char prog[PATH_MAX], errname[64], outname[64], *text, *out;
	int status;
	pid_t pid;

	example_path(prog, sizeof(prog));
	snprintf(errname, sizeof(errname), "/tmp/pctr-region-err-%d",
		 (int)getpid());
	snprintf(outname, sizeof(outname), "/tmp/pctr-region-out-%d",
		 (int)getpid());
	pid = fork();
	if (pid == 0) {
		if (!freopen(errname, "w", stderr) ||
		    !freopen(outname, "w", stdout))
			_exit(126);
		setenv("PCTR_EVENTS", events, 1);
		if (report)
			setenv("PCTR_REPORT", report, 1);
		else
			unsetenv("PCTR_REPORT");
		execl(prog, prog, "3", "7", "5", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	text = slurp(errname);
	unlink(errname);
	out = slurp(outname);
	unlink(outname);
	ASSERT_STR_EQ(out, "");
	free(out);
	return text;
}

/*
 * $PCTR_EVENTS without $PCTR_REPORT: the text report on standard error,
 * its columns named by the events (the touch region's 3 threads x 7
 * iterations x 5 pages are 105 faults); PCTR_REPORT=none: nothing.
 */
#define HEADER "\nEvents       intervals       TSC ticks      page-faults\n"

TEST(env_events_alone_report_to_stderr)
{
	char *text = example_stderr("page-faults", NULL), *block;
	unsigned long long n, ticks, faults;

	block = strstr(text, "--- touch ---");
	if (!block)
		TEST_FAIL("no report of the touch region on stderr:\n%s", text);
	block = strstr(block, "\nEvents ");
	ASSERT(block != NULL);
	ASSERT(!strncmp(block, HEADER, strlen(HEADER)));
	block = strstr(block, "\ntotal ");
	ASSERT(block != NULL);
	ASSERT_EQ(sscanf(block, " total %llu %llu %llu", &n, &ticks, &faults),
		  3);
	ASSERT_EQ(n, 21);
	ASSERT_EQ(faults, 105);
	free(text);
	text = example_stderr("page-faults", "none");
	ASSERT_STR_EQ(text, "");
	free(text);
}

TEST(env_json_report_of_the_example)
{
	static char flat[1 << 17];
	char v[128], *text;
	int touch = -1;

	/* "%p" in the file name becomes the instrumented program's pid */
	text = run_example("page-faults,task-clock",
			   "json:/tmp/pctr-region-%p.json",
			   "/tmp/pctr-region-%d.json");
	if (json_flatten(text, flat, sizeof(flat)) < 0)
		TEST_FAIL("not JSON:\n%s", text);
	ASSERT_STR_EQ(json_get(flat, "schema", v, sizeof(v)), "pctr-region/1");
	for (int r = 0; r < 3; r++) {
		char path[64];

		snprintf(path, sizeof(path), "regions[%d].name", r);
		ASSERT(json_get(flat, path, v, sizeof(v)));
		if (!strcmp(v, "touch"))
			touch = r;
	}
	ASSERT_GE(touch, 0);
#define RG(member) (snprintf(v, sizeof(v), "regions[%d].%s", touch, member), \
		    json_get(flat, v, v, sizeof(v)))
	/* $PCTR_EVENTS replaced the program's own "task-clock,page-faults" */
	ASSERT_STR_EQ(RG("events[0].name"), "page-faults");
	ASSERT_STR_EQ(RG("events[1].name"), "task-clock");
	ASSERT_STR_EQ(RG("events[1].unit"), "ns");
	ASSERT_EQ(atol(RG("threads")), 3);
	ASSERT_EQ(atol(RG("intervals")), 3 * 7);
	ASSERT_EQ(atol(RG("events[0].total")), 3 * 7 * 5);
	ASSERT_EQ(atol(RG("events[0].stats.min")), 5);
	ASSERT_EQ(atol(RG("events[0].stats.max")), 5);
	ASSERT_STR_EQ(RG("events[0].stats.stddev"), "0");
	ASSERT_EQ(atol(RG("events[0].overhead")), 0);
	ASSERT_DBL_NEAR(atof(RG("events[0].percentiles.p50")), 5, 0);
	ASSERT_STR_EQ(RG("events[0].per_cycle.basis"), "tsc");
	ASSERT_STR_EQ(RG("ratios[0].numerator"), "page-faults");
#undef RG
	free(text);
}

TEST(env_csv_report_of_the_example)
{
	char file[64], dest[96], *text, *line;
	int rows = 0, touch_rows = 0;

	snprintf(file, sizeof(file), "/tmp/pctr-region-csv-%d.csv", getpid());
	snprintf(dest, sizeof(dest), "csv:%s", file);
	text = run_example("page-faults", dest, file);
	ASSERT(!strncmp(text, "region,threads,event,measure,n,total,min,mean,"
			      "max,stddev,p50,p90,p99,overhead,stderr,"
			      "ci95_low,ci95_high,overhead_stddev,disturbed\n",
			130));
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int commas = 0;
		char *tail;

		for (char *c = line; *c; c++)
			commas += *c == ',';
		ASSERT_EQ(commas, 18);
		rows++;
		if (strncmp(line, "touch,3,page-faults,count,21,105,5,5,5,0,",
			    41))
			continue;
		/*
		 * 5 faults every time: standard error 0, the interval 5..5;
		 * faults of empty regions 0 every time: overhead spread 0;
		 * then the intervals found disturbed, however many the
		 * machine's load made (test_region_disturbed checks those)
		 */
		tail = strstr(line, ",0,5,5,0,");
		ASSERT(tail != NULL);
		ASSERT(strspn(tail + 9, "0123456789") == strlen(tail + 9));
		ASSERT_GT(strlen(tail + 9), 0);
		touch_rows++;
	}
	ASSERT_EQ(touch_rows, 1);
	/* three regions of 1 event: ticks, count, per_second, per_cycle */
	ASSERT_EQ(rows, 1 + 3 * 4);
	free(text);
}

TEST(bad_env_is_reported)
{
	char dest[32];

	setenv("PCTR_EVENTS", "no-such-event", 1);
	ASSERT_EQ(pctr_region_init(NULL), -ENOENT);
	setenv("PCTR_EVENTS", "page-faults", 1);
	setenv("PCTR_REPORT", "yaml:/tmp/x", 1);
	ASSERT_EQ(pctr_region_init(NULL), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "text:FILE");
	snprintf(dest, sizeof(dest), "json:/nonexistent/dir/r.json");
	setenv("PCTR_REPORT", dest, 1);
	ASSERT_OK(pctr_region_init(NULL));
	ASSERT_EQ(pctr_region_write_to(dest), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "/nonexistent/dir/r.json");
	/* both: $PCTR_EVENTS alone would report on stderr at exit */
	unsetenv("PCTR_REPORT");
	unsetenv("PCTR_EVENTS");
	ASSERT_OK(pctr_region_init(NULL));
}

/* ---- events that cannot be opened ---------------------------------------- */

/*
 * An event every kernel refuses though it parses: the software PMU has no
 * event 99 (ENOENT), on any machine.
 */
#define BAD "software/config=99/"
#define BAD_WHY "cannot count '" BAD "': the kernel says this PMU does not " \
		"support it"
#define BAD_LINE "pctr: PCTR_EVENTS: '" BAD "' not counted: " BAD_WHY "\n"

TEST(unopenable_event_named_once_rest_counted_text)
{
	char file[64], dest[96], *text, *err;

	snprintf(file, sizeof(file), "/tmp/pctr-region-bad-%d.txt", getpid());
	snprintf(dest, sizeof(dest), "text:%s", file);
	text = run_example_err(BAD ",page-faults", dest, file, &err);
	/* one line for the process, though four threads opened counters */
	ASSERT_STR_EQ(err, BAD_LINE);
	ASSERT_CONTAINS(text, "\nNot counted: " BAD ": " BAD_WHY "\n");
	/* page-faults still counted: 3 threads x 7 iterations x 5 pages */
	ASSERT_CONTAINS(text, "0: page-faults                                "
			      "        105");
	ASSERT(!strstr(text, "1: "));
	free(text);
	free(err);
}

TEST(unopenable_event_named_once_rest_counted_csv)
{
	char file[64], dest[96], *text, *err;

	snprintf(file, sizeof(file), "/tmp/pctr-region-bad-%d.csv", getpid());
	snprintf(dest, sizeof(dest), "csv:%s", file);
	text = run_example_err(BAD ",page-faults", dest, file, &err);
	ASSERT_STR_EQ(err, BAD_LINE);
	ASSERT_CONTAINS(text, "\ntouch,3,page-faults,count,21,105,5,5,5,0,");
	/* the reason in the measure column, the row as wide as the others */
	ASSERT_CONTAINS(text, "\n,0," BAD ",not counted: " BAD_WHY
			      ",,,,,,,,,,,,,,,\n");
	ASSERT(!strstr(text, "touch,3," BAD));
	free(text);
	free(err);
}

TEST(unopenable_event_named_once_rest_counted_json)
{
	static char flat[1 << 17];
	char v[256], *text, *err;

	text = run_example_err(BAD ",page-faults",
			       "json:/tmp/pctr-region-bad-%p.json",
			       "/tmp/pctr-region-bad-%d.json", &err);
	ASSERT_STR_EQ(err, BAD_LINE);
	if (json_flatten(text, flat, sizeof(flat)) < 0)
		TEST_FAIL("not JSON:\n%s", text);
	ASSERT_STR_EQ(json_get(flat, "not_counted[0].event", v, sizeof(v)),
		      BAD);
	ASSERT_STR_EQ(json_get(flat, "not_counted[0].error", v, sizeof(v)),
		      BAD_WHY);
	ASSERT(!json_get(flat, "not_counted[1].event", v, sizeof(v)));
	ASSERT(json_get(flat, "regions[0].events[0].name", v, sizeof(v)));
	ASSERT_STR_EQ(v, "page-faults");
	ASSERT(!json_get(flat, "regions[0].events[1].name", v, sizeof(v)));
	free(text);
	free(err);
}

/* nothing can be counted: still one line, and a report that says so */
TEST(no_event_opens_report_says_why)
{
	static char flat[1 << 16];
	char v[256], *text, *err;

	text = run_example_err(BAD, "json:/tmp/pctr-region-none-%p.json",
			       "/tmp/pctr-region-none-%d.json", &err);
	ASSERT_STR_EQ(err, BAD_LINE);
	if (json_flatten(text, flat, sizeof(flat)) < 0)
		TEST_FAIL("not JSON:\n%s", text);
	ASSERT(!json_get(flat, "regions[0].name", v, sizeof(v)));
	ASSERT_STR_EQ(json_get(flat, "not_counted[0].event", v, sizeof(v)),
		      BAD);
	ASSERT_STR_EQ(json_get(flat, "not_counted[0].error", v, sizeof(v)),
		      BAD_WHY);
	free(text);
	free(err);
}

/* the example from the field: a hardware event where there is no PMU */
TEST(no_pmu_instructions_named)
{
	struct pctr_machine m = { .size = sizeof(m) };
	char file[64], dest[96], *text, *err;

	ASSERT_OK(pctr_machine_get(&m));
	if (m.has_pmu)
		SKIP("this machine has a PMU: 'instructions' opens here");
	snprintf(file, sizeof(file), "/tmp/pctr-region-ins-%d.txt", getpid());
	snprintf(dest, sizeof(dest), "text:%s", file);
	text = run_example_err("instructions,page-faults", dest, file, &err);
	ASSERT_STR_EQ(err, "pctr: PCTR_EVENTS: 'instructions' not counted: "
			   "cannot count 'instructions': this machine has no "
			   "hardware PMU (a VM without PMU passthrough?); "
			   "software events and the timestamp counter still "
			   "work\n");
	ASSERT_CONTAINS(text, "\nNot counted: instructions: cannot count");
	ASSERT_CONTAINS(text, "0: page-faults");
	free(text);
	free(err);
}

/*
 * A program's own list keeps its meaning: every begin fails, nothing is
 * printed (the library prints only for $PCTR_EVENTS), the report names
 * the event.
 */
TEST(program_list_with_unopenable_event_fails_quietly)
{
	struct pctr_region_config cfg = {
		.size = sizeof(cfg), .events = "page-faults," BAD,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err[2], saved = dup(2);
	char got[256] = "";

	ASSERT_OK(pipe(err));
	ASSERT_OK(pctr_region_init(&cfg));
	dup2(err[1], 2);
	ASSERT_EQ(pctr_region_begin("r"), -ENOENT);
	ASSERT_STR_EQ(pctr_strerror(-ENOENT), BAD_WHY);
	ASSERT_EQ(pctr_region_begin("r"), -ENOENT);
	fputs("end\n", stderr);
	dup2(saved, 2);
	close(err[1]);
	ASSERT_GT(read(err[0], got, sizeof(got) - 1), 0);
	ASSERT_STR_EQ(got, "end\n");
	f = open_memstream(&buf, &len);
	ASSERT_OK(pctr_region_write(f, PCTR_REPORT_TEXT));
	fclose(f);
	ASSERT_CONTAINS(buf, "\nNot counted: " BAD ": " BAD_WHY "\n");
	free(buf);
}

/* ---- where a report may be written --------------------------------------- */

static char tmpdir[64];

static void
make_dir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pctr-report-XXXXXX");
	ASSERT(mkdtemp(tmpdir));
}

static void
in_dir(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", tmpdir, name);
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void
one_region(void)
{
	struct pctr_region_config cfg = {
		.size = sizeof(cfg), .events = "page-faults",
	};

	ASSERT_OK(pctr_region_init(&cfg));
	ASSERT_OK(pctr_region_begin("r"));
	ASSERT_OK(pctr_region_end("r"));
}

TEST(report_through_a_symlink_is_refused)
{
	char victim[128], link[128], dest[160], want[512], *text;

	make_dir();
	in_dir(victim, sizeof(victim), "victim");
	in_dir(link, sizeof(link), "link");
	write_file(victim, "keep me\n", 0600);
	ASSERT_OK(symlink(victim, link));
	one_region();
	snprintf(dest, sizeof(dest), "csv:%s", link);
	ASSERT_EQ(pctr_region_write_to(dest), -ELOOP);
	snprintf(want, sizeof(want), "cannot write the report to '%s': it is "
		 "a symbolic link; reports are written to regular files only, "
		 "never through a symbolic link", link);
	ASSERT_STR_EQ(pctr_strerror(-ELOOP), want);
	text = slurp(victim);
	ASSERT_STR_EQ(text, "keep me\n");
	free(text);
	/* a dangling link is refused too, and creates nothing */
	unlink(victim);
	ASSERT_EQ(pctr_region_write_to(dest), -ELOOP);
	ASSERT_EQ(access(victim, F_OK), -1);
	unlink(link);
	ASSERT_OK(rmdir(tmpdir));
}

/* the exit handler says so on standard error, and nothing is written */
TEST(env_report_through_a_symlink_is_refused_at_exit)
{
	char victim[128], link[128], dest[160], want[512], *text, *err;

	make_dir();
	in_dir(victim, sizeof(victim), "victim");
	in_dir(link, sizeof(link), "link");
	write_file(victim, "keep me\n", 0644);
	ASSERT_OK(symlink(victim, link));
	snprintf(dest, sizeof(dest), "text:%s", link);
	text = run_example_err("page-faults", dest, victim, &err);
	snprintf(want, sizeof(want), "pctr: PCTR_REPORT=%s: cannot write the "
		 "report to '%s': it is a symbolic link; reports are written "
		 "to regular files only, never through a symbolic link\n",
		 dest, link);
	ASSERT_STR_EQ(err, want);
	ASSERT_STR_EQ(text, "keep me\n");
	free(text);
	free(err);
	unlink(link);
	ASSERT_OK(rmdir(tmpdir));
}

TEST(report_to_fifo_device_or_directory_is_refused)
{
	char fifo[128], dest[160], want[512];

	make_dir();
	in_dir(fifo, sizeof(fifo), "fifo");
	ASSERT_OK(mkfifo(fifo, 0600));
	one_region();
	/* refused at once: no wait for a reader that never comes */
	snprintf(dest, sizeof(dest), "json:%s", fifo);
	ASSERT_EQ(pctr_region_write_to(dest), -EINVAL);
	snprintf(want, sizeof(want), "cannot write the report to '%s': it is "
		 "a FIFO; reports are written to regular files only, never "
		 "through a symbolic link", fifo);
	ASSERT_STR_EQ(pctr_strerror(-EINVAL), want);
	ASSERT_EQ(pctr_region_write_to("text:/dev/null"), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "'/dev/null': it is a "
						"character device;");
	snprintf(dest, sizeof(dest), "text:%s", tmpdir);
	ASSERT_EQ(pctr_region_write_to(dest), -EISDIR);
	ASSERT_CONTAINS(pctr_strerror(-EISDIR), "it is a directory;");
	/* standard error stays reachable by its own name */
	ASSERT_OK(pctr_region_write_to("text:-"));
	unlink(fifo);
	ASSERT_OK(rmdir(tmpdir));
}

TEST(report_replaces_a_regular_file_and_honours_the_umask)
{
	char old[128], fresh_[128], dest[160], junk[8192] = "", *text;
	struct stat st;

	make_dir();
	in_dir(old, sizeof(old), "old.csv");
	in_dir(fresh_, sizeof(fresh_), "new.csv");
	/* longer than the report: truncated, not overlaid */
	memset(junk, 'X', sizeof(junk) - 2);
	junk[sizeof(junk) - 2] = '\n';
	write_file(old, junk, 0600);
	one_region();
	snprintf(dest, sizeof(dest), "csv:%s", old);
	ASSERT_OK(pctr_region_write_to(dest));
	text = slurp(old);
	ASSERT(!strncmp(text, "region,threads,", 15));
	ASSERT(!strchr(text, 'X'));
	free(text);
	ASSERT_OK(stat(old, &st));
	/* an existing file keeps its mode */
	ASSERT_EQ(st.st_mode & 07777, 0600);
	umask(027);
	snprintf(dest, sizeof(dest), "csv:%s", fresh_);
	ASSERT_OK(pctr_region_write_to(dest));
	ASSERT_OK(stat(fresh_, &st));
	ASSERT_EQ(st.st_mode & 07777, 0666 & ~027);
	unlink(old);
	unlink(fresh_);
	ASSERT_OK(rmdir(tmpdir));
}

/* a run that measured nothing leaves an earlier report alone */
TEST(no_intervals_no_report)
{
	char file[64], dest[96], *text;

	snprintf(file, sizeof(file), "/tmp/pctr-region-empty-%d.txt", getpid());
	snprintf(dest, sizeof(dest), "text:%s", file);
	write_file(file, "earlier\n", 0644);
	setenv("PCTR_REPORT", dest, 1);
	setenv("PCTR_EVENTS", "page-faults", 1);
	ASSERT_OK(pctr_region_init(NULL));
	if (fork() == 0)
		exit(0); /* the exit handler runs, with no interval */
	wait(NULL);
	text = slurp(file);
	ASSERT_STR_EQ(text, "earlier\n");
	free(text);
	unlink(file);
	unsetenv("PCTR_REPORT");
	unsetenv("PCTR_EVENTS");
	ASSERT_OK(pctr_region_init(NULL));
}

/*
 * In a child: $PCTR_REPORT names @env_file, the program chooses @chosen
 * with pctr_region_report(), enters region "work" once and exits, which
 * writes the report at exit.
 */
static void
exit_with_chosen_report(const char *env_file, const char *chosen)
{
	char dest[128];
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		snprintf(dest, sizeof(dest), "text:%s", env_file);
		setenv("PCTR_REPORT", dest, 1);
		setenv("PCTR_EVENTS", "page-faults", 1);
		if (pctr_region_init(NULL) || pctr_region_report(chosen) ||
		    pctr_region_begin("work") || pctr_region_end("work"))
			_exit(1);
		exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* the report at exit is the program's choice, or none, not $PCTR_REPORT */
TEST(chosen_report_replaces_the_environments)
{
	char env_file[64], json[64], dest[96], *text;

	snprintf(env_file, sizeof(env_file), "/tmp/pctr-region-env-%d.txt",
		 getpid());
	snprintf(json, sizeof(json), "/tmp/pctr-region-chosen-%d.json",
		 getpid());
	write_file(env_file, "earlier\n", 0644);
	exit_with_chosen_report(env_file, NULL);
	text = slurp(env_file);
	ASSERT_STR_EQ(text, "earlier\n");
	free(text);
	snprintf(dest, sizeof(dest), "json:%s", json);
	exit_with_chosen_report(env_file, dest);
	text = slurp(json);
	ASSERT_CONTAINS(text, "\"work\"");
	ASSERT_CONTAINS(text, "page-faults");
	free(text);
	text = slurp(env_file);
	ASSERT_STR_EQ(text, "earlier\n");
	free(text);
	unlink(env_file);
	unlink(json);
	ASSERT_EQ(pctr_region_report("yaml:/tmp/x"), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "yaml:/tmp/x");
}

int
main(void)
{
	page = sysconf(_SC_PAGESIZE);
	unsetenv("PCTR_EVENTS");
	unsetenv("PCTR_REPORT");
	return test_main(TESTS(TEST_CASE(stats_match_raw_reads)
			       TEST_CASE(calibration_finds_and_removes_read_cost)
			       TEST_CASE(differencing_cancels_the_reads)
			       TEST_CASE(region_counts_fresh_pages)
			       TEST_CASE(regions_nest_and_check_their_order)
			       TEST_CASE(off_means_nothing_counted)
			       TEST_CASE(sixteen_threads_sum_exactly)
			       TEST_CASE(first_begin_inside_a_region_runs_no_cold_code)
			       TEST_CASE(first_end_inside_a_region_touches_no_fresh_page)
			       TEST_CASE(region_rate_extremes_need_kept_intervals)
			       TEST_CASE(region_rate_extremes_of_kept_intervals)
			       TEST_CASE(regions_walk_as_reported)
			       TEST_CASE(flush_then_exit_counts_once)
			       TEST_CASE(env_json_report_of_the_example)
			       TEST_CASE(env_csv_report_of_the_example)
			       TEST_CASE(chosen_report_replaces_the_environments)
			       TEST_CASE(bad_env_is_reported)
			       TEST_CASE(unopenable_event_named_once_rest_counted_text)
			       TEST_CASE(unopenable_event_named_once_rest_counted_csv)
			       TEST_CASE(unopenable_event_named_once_rest_counted_json)
			       TEST_CASE(no_event_opens_report_says_why)
			       TEST_CASE(no_pmu_instructions_named)
			       TEST_CASE(program_list_with_unopenable_event_fails_quietly)
			       TEST_CASE(report_through_a_symlink_is_refused)
			       TEST_CASE(env_report_through_a_symlink_is_refused_at_exit)
			       TEST_CASE(report_to_fifo_device_or_directory_is_refused)
			       TEST_CASE(report_replaces_a_regular_file_and_honours_the_umask)
			       TEST_CASE(no_intervals_no_report)
			       TEST_CASE(env_events_alone_report_to_stderr)));
}
