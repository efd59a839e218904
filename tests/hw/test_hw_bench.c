/* SPDX-License-Identifier: MIT */
/*
 * test_hw_bench.c - the benchmarks' figures that only an exact PMU can
 * give: instructions of one read by each method against the hand-written
 * floor, and what an empty measured region counts once the overhead is
 * taken off.  bench/run.sh collects the "# bench|..." lines into
 * bench/RESULTS.md; the assertions here check only that the figures are
 * exact (the same at every trial), never a target, so this never gates on
 * performance.
 *
 * The floor is the least a correct user-space read does per event
 * (hw_floor.h): the mmap page's seqlock around its offset, one mrs of the
 * counter register and the sign extension from 32 bits.  "known" reads a
 * register fixed at compile time (the index is still checked); "switch"
 * picks it from the page's index at run time.
 *
 * Method (as test_hw_cost.c): a meter set counts instructions:u and
 * instructions (user and kernel) around K and 2K calls through a function
 * pointer; the difference, less the same for an empty function, over K.
 * The measured set is opened before the meter so its events get the
 * first counters (index 1, 2, ...).
 */
#include <sys/syscall.h>

#include "hw_floor.h"

#define K 64
#define TRIALS 5
#define MAXK FLOOR_MAX

typedef int (*read_fn)(struct pctr_set *, struct pctr_sample *);

#define page floor_page
static int nr_pages;
static int raw_fd = -1;
static uint64_t raw_buf[3 + 2 * MAXK];
static size_t raw_want;

#define READ_ONCE FLOOR_READ_ONCE
#define BARRIER FLOOR_BARRIER
#define MRS FLOOR_MRS

static inline uint64_t
read_counter(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	case 1: MRS(pmevcntr0_el0, v); break;
	case 2: MRS(pmevcntr1_el0, v); break;
	case 3: MRS(pmevcntr2_el0, v); break;
	case 4: MRS(pmevcntr3_el0, v); break;
	case 5: MRS(pmevcntr4_el0, v); break;
	case 6: MRS(pmevcntr5_el0, v); break;
	case 32: MRS(pmccntr_el0, v); break;
	}
	return v;
}

static int
floor_switch(struct pctr_set *set, struct pctr_sample *s)
{
	for (int i = 0; i < nr_pages; i++) {
		const struct perf_event_mmap_page *pc = page[i];
		uint32_t seq, idx;
		uint64_t v;

		do {
			seq = READ_ONCE(pc->lock);
			BARRIER();
			idx = READ_ONCE(pc->index);
			if (!idx)
				return -1;
			v = READ_ONCE(pc->offset) + read_counter(idx);
			BARRIER();
		} while (READ_ONCE(pc->lock) != seq);
		s->count[i].value = v;
	}
	return 0;
}

static int
raw_read(struct pctr_set *set, struct pctr_sample *s)
{
	return read(raw_fd, raw_buf, raw_want) == (ssize_t)raw_want ? 0 : -1;
}

static uint64_t values[MAXK];

/* pctr_set_read_values(): the counts alone, through the fast path */
static int
values_read(struct pctr_set *set, struct pctr_sample *s)
{
	(void)s;
	return pctr_set_read_values(set, values) == PCTR_PATH_USER ? 0 : -1;
}

static int
empty_read(struct pctr_set *set, struct pctr_sample *s)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

static __attribute__((noinline)) void
reads(read_fn fn, struct pctr_set *set, int k, struct pctr_sample *s)
{
	for (int i = 0; i < k; i++)
		fn(set, s);
}

static void
metered(struct pctr_set *meter, read_fn fn, struct pctr_set *set, int k,
	uint64_t *u, uint64_t *uk)
{
	struct pctr_sample a, b, s;

	ASSERT_OK(pctr_set_read(meter, &a));
	reads(fn, set, k, &s);
	ASSERT_OK(pctr_set_read(meter, &b));
	*u = b.count[0].value - a.count[0].value;
	*uk = b.count[1].value - a.count[1].value;
}

/*
 * The seqlocks of @set's pages, mapped again for the count (the same
 * pages; mapped once, since a first mapping of a counter's page rewrites
 * it).  None for a NULL set.
 */
struct locks {
	const struct perf_event_mmap_page *pg[MAXK];
	int nr;
};

static void
locks_map(struct locks *l, struct pctr_set *set)
{
	l->nr = set ? pctr_set_nr(set) : 0;
	for (int i = 0; i < l->nr; i++) {
		l->pg[i] = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ,
				MAP_SHARED, pctr_set_fd(set, i), 0);
		ASSERT(l->pg[i] != MAP_FAILED);
	}
}

static void
locks_unmap(struct locks *l)
{
	for (int i = 0; i < l->nr; i++)
		munmap((void *)l->pg[i], sysconf(_SC_PAGESIZE));
}

static uint64_t
locks_sum(const struct locks *l)
{
	uint64_t sum = 0;

	for (int i = 0; i < l->nr; i++)
		sum += READ_ONCE(l->pg[i]->lock);
	BARRIER();
	return sum;
}

/*
 * Instructions of one call: user exact; user+kernel the minimum over
 * trials of the 2K runs less the minimum of the K runs.  A timer tick
 * adds thousands of kernel instructions to the run it falls in, and the
 * least of each length is one without a tick; the least of the
 * differences would take a K run with a tick against a 2K run without
 * one and come out low.
 *
 * At real-time priority, and a trial in which the kernel rewrote a page
 * of the set is printed and left out (as test_hw_cost's): a user-space
 * read that overlaps the rewrite reads its page again, its loop's
 * instructions counted twice (hw.h).  Where such a rewrite lands is the
 * guest kernel's doing (its threads, its timers), the same in every boot
 * of one kernel build under -icount and elsewhere in another: in a guest
 * of Debian's 6.1.176 one trial of bench_read_4 counted 7183 against
 * 7168, in every run.  At least TRIALS - 2 trials must be undisturbed,
 * and agree.
 */
static void
cost_of(struct pctr_set *meter, read_fn fn, struct pctr_set *set,
	uint64_t *u, uint64_t *uk)
{
	uint64_t u1, uk1, u2, uk2, l0, l1, min1 = UINT64_MAX,
					   min2 = UINT64_MAX;
	int policy = hw_fifo_begin(), clean = 0;
	struct locks l;

	locks_map(&l, set);
	*u = 0;
	for (int t = 0; t < TRIALS; t++) {
		l0 = locks_sum(&l);
		metered(meter, fn, set, K, &u1, &uk1);
		metered(meter, fn, set, 2 * K, &u2, &uk2);
		l1 = locks_sum(&l);
		if (l1 != l0) {
			printf("# trial %d: the kernel rewrote a page of the "
			       "set (locks %llu -> %llu); user %llu, not "
			       "compared\n",
			       t, (unsigned long long)l0,
			       (unsigned long long)l1,
			       (unsigned long long)(u2 - u1));
			continue;
		}
		if (clean++ && u2 - u1 != *u)
			TEST_FAIL("trial %d: %llu user instructions for %d "
				  "calls, %llu in the trials before, no "
				  "page rewritten",
				  t, (unsigned long long)(u2 - u1), K,
				  (unsigned long long)*u);
		*u = u2 - u1;
		min1 = uk1 < min1 ? uk1 : min1;
		min2 = uk2 < min2 ? uk2 : min2;
	}
	hw_fifo_end(policy);
	locks_unmap(&l);
	ASSERT_GE(clean, TRIALS - 2);
	ASSERT(min2 >= min1);
	*uk = min2 - min1;
}

static void
report(struct pctr_set *meter, const char *method, read_fn fn,
       struct pctr_set *set, int nev)
{
	uint64_t u, uk, u0, uk0;

	cost_of(meter, fn, set, &u, &uk);
	cost_of(meter, empty_read, set, &u0, &uk0);
	ASSERT_EQ((u - u0) % K, 0);
	printf("# bench|%s|%d|%llu|%llu\n", method, nev,
	       (unsigned long long)((u - u0) / K),
	       (unsigned long long)((uk - uk0) / K));
}

static void
open_raw_group(struct pctr_set *set, int nev)
{
	int fd[MAXK];

	for (int i = 0; i < nev; i++) {
		struct perf_event_attr a;

		ASSERT_OK(pctr_event_attr(pctr_set_event(set, i), &a,
					  sizeof(a)));
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = 0;
		a.config1 = 0;
		fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1,
				     i ? fd[0] : -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT(fd[i] >= 0);
	}
	raw_fd = fd[0];
	raw_want = (3 + 2 * (size_t)nev) * sizeof(uint64_t);
}

/*
 * Only the measured counters and the meter's two may be open at once: more
 * than the PMU's 6 counters would multiplex, and a meter that is not on a
 * counter counts nothing.
 */
static struct pctr_set *
meter_new(void)
{
	return hw_thread_set(PCTR_SET_NO_USER_READ,
			     "instructions:u,instructions");
}

static void
bench_reads(int nev, const char *events)
{
	struct pctr_set *set, *meter;
	struct pctr_sample s;
	long pg = sysconf(_SC_PAGESIZE);
	int known = 1;

	hw_sysctl("kernel.perf_user_access", "1");
	set = hw_thread_set(0, events);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_HEX_EQ(s.path, PCTR_PATH_USER);
	nr_pages = nev;
	for (int i = 0; i < nev; i++) {
		page[i] = mmap(NULL, pg, PROT_READ, MAP_SHARED,
			       pctr_set_fd(set, i), 0);
		ASSERT(page[i] != MAP_FAILED);
		printf("# event %d: index %u, pmc_width %u\n", i,
		       page[i]->index, page[i]->pmc_width);
		known &= page[i]->index == (uint32_t)i + 1;
	}
	meter = meter_new();
	if (known)
		report(meter, "floor_known", nev == 1 ? floor_known1
						      : floor_known4,
		       set, nev);
	else
		printf("# floor_known skipped: counters are not on "
		       "PMEVCNTR0.. in order\n");
	report(meter, "floor_switch", floor_switch, set, nev);
	report(meter, "pctr_fast", pctr_set_read, set, nev);
	ASSERT_EQ(pctr_set_read_values(set, values), PCTR_PATH_USER);
	report(meter, "pctr_values", values_read, set, nev);
	for (int i = 0; i < nev; i++)
		munmap(page[i], pg);
	pctr_set_free(meter);
	pctr_set_free(set);

	set = hw_thread_set(PCTR_SET_NO_USER_READ, events);
	meter = meter_new();
	report(meter, "pctr_syscall", pctr_set_read, set, nev);
	pctr_set_free(meter);
	open_raw_group(set, nev);
	pctr_set_free(set);
	meter = meter_new();
	report(meter, "raw_group", raw_read, NULL, nev);
	pctr_set_free(meter);
	close(raw_fd);
}

TEST(bench_read_1)
{
	bench_reads(1, "instructions:u");
}

TEST(bench_read_4)
{
	bench_reads(4, "instructions:u,instructions:u,instructions:u,"
		       "instructions:u");
}

/* begin + end of region @id, @n times, around nothing */
static __attribute__((noinline)) void
empty_regions(int id, int n)
{
	for (int i = 0; i < n; i++) {
		pctr_region_begin_id(id);
		pctr_region_end_id(id);
	}
}

/* begin + end of region @id, @n times, around hw_loop(@loop) */
static __attribute__((noinline)) void
loop_regions(int id, int n, uint64_t loop)
{
	for (int i = 0; i < n; i++) {
		pctr_region_begin_id(id);
		hw_loop(loop);
		pctr_region_end_id(id);
	}
}

/* the net instructions of region @name: its overhead, least, most, n */
static void
region_row(const char *key, const char *label, const char *name)
{
	struct pctr_summary sum = { .size = sizeof(sum) };
	struct pctr_stats *st;
	uint64_t over;

	ASSERT_OK(pctr_region_stats(name, &st));
	ASSERT_OK(pctr_stats_get(st, 0, &sum));
	ASSERT_OK(pctr_stats_overhead(st, 0, &over));
	printf("# bench|%s_%s|1|%llu|%.0f|%.0f|%llu\n", key, label,
	       (unsigned long long)over, sum.min, sum.max,
	       (unsigned long long)sum.n);
	pctr_stats_free(st);
}

/*
 * Empty regions (pctr_region_begin_id() and _end_id() with nothing in
 * between), whose calibration ran the very same calls: every interval
 * must count 0 after the overhead is taken off.  A region around
 * hw_loop(N) must count exactly 2N plus the loop's constant.  On the
 * user-space read path (perf_user_access 1) and on read(2) (0).  At
 * real-time priority: a read that overlaps a switch back in counts its
 * own instructions again (tests/hw/hw.h).
 */
static void
empty_region(const char *user_access, const char *label)
{
	struct pctr_region_config cfg = { .size = sizeof(cfg),
					  .events = "instructions:u",
					  .calibrate = 1000 };
	int policy = hw_fifo_begin();
	int id, loop;

	hw_sysctl("kernel.perf_user_access", user_access);
	ASSERT_OK(pctr_region_init(&cfg));
	/* the thread's first region opens the counters and calibrates */
	ASSERT_OK(pctr_region_begin("warm-up"));
	ASSERT_OK(pctr_region_end("warm-up"));
	id = pctr_region_id("empty");
	loop = pctr_region_id("loop");
	ASSERT_GE(id, 1);
	ASSERT_GE(loop, 1);
	empty_regions(id, 1000);
	loop_regions(loop, 100, 1000);
	hw_fifo_end(policy);
	region_row("empty_region", label, "empty");
	region_row("loop1000_region", label, "loop");
}

/*
 * A pair of pctr_set_read() at a call site of this file's, after
 * pctr_stats_calibrate() found the pair's cost at its own call site:
 * printed, with the least and most each interval counted after the
 * subtraction (1 and 1 in the arm64 guest: this call site has one
 * instruction more between the two calls; pctr_stats(3), "Overhead").
 */
static void
stats_pair(unsigned int flags, const char *label)
{
	struct pctr_summary sum = { .size = sizeof(sum) };
	int policy = hw_fifo_begin();
	struct pctr_sample a, b;
	struct pctr_stats *st;
	struct pctr_set *set;
	uint64_t over;

	hw_sysctl("kernel.perf_user_access", "1");
	set = hw_thread_set(flags, "instructions:u");
	ASSERT_OK(pctr_stats_new_for_set(&st, set, 0));
	ASSERT_OK(pctr_stats_calibrate(st, set, 100));
	ASSERT_OK(pctr_stats_overhead(st, 0, &over));
	/* the reads' results are checked after the pair, as calibrate does */
	for (int i = 0; i < 1000; i++) {
		int ra = pctr_set_read(set, &a);
		int rb = pctr_set_read(set, &b);

		ASSERT_OK(ra);
		ASSERT_OK(rb);
		ASSERT_OK(pctr_stats_add(st, &b, &a));
	}
	hw_fifo_end(policy);
	ASSERT_OK(pctr_stats_get(st, 0, &sum));
	printf("# bench|stats_pair_%s|1|%llu|%.0f|%.0f|%llu\n", label,
	       (unsigned long long)over, sum.min, sum.max,
	       (unsigned long long)sum.n);
	pctr_stats_free(st);
	pctr_set_free(set);
}

TEST(bench_stats_pair)
{
	stats_pair(0, "fast");
	stats_pair(PCTR_SET_NO_USER_READ, "syscall");
}

/* one case each: pctr_region_init() is once per process */
TEST(bench_empty_region_fast)
{
	empty_region("1", "fast");
}

TEST(bench_empty_region_syscall)
{
	empty_region("0", "syscall");
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(bench_read_1) TEST_CASE(bench_read_4)
				       TEST_CASE(bench_empty_region_fast)
				       TEST_CASE(bench_empty_region_syscall)
				       TEST_CASE(bench_stats_pair)));
}
