/* SPDX-License-Identifier: MIT */
/*
 * test_hw_pmclib.c - pmc_lib on the emulated PMU: menu8.c's measurement
 * (pmc_read, something, pmc_read, pmc_accumulate) around the loop.  With
 * -Clean the overhead of the two reads is taken off, so what remains is
 * the loop's own instructions: 2N plus the call's few, the same for every
 * N, and the statistics hold exactly those figures; with nothing between
 * the reads, 0, every interval, and with n nops, n.
 */
#include <pmc_lib.h>

#include "hw.h"

static pmc_control_t ctl;

static void
getargs(char **args)
{
	char **argv = args;
	int argc = 0;

	while (args[argc])
		argc++;
	ctl = pmc_control_null;
	ASSERT_EQ(pmc_getargs(stderr, "test_hw_pmclib", &argc, &argv, &ctl),
		  TRUE);
	ASSERT_EQ(pmc_open(0), TRUE);
	ASSERT_EQ(pmc_select(&ctl.counters[0]), TRUE);
}

/* menu8's loop body; not inlined: the same code for every N */
static __attribute__((noinline)) uint64_t
span(uint64_t n)
{
	pmc_data_t t0, t1;

	pmc_read(&t0);
	hw_loop(n);
	pmc_read(&t1);
	pmc_accumulate(&ctl.counters[0], &t1, &t0);
	return t1.event[0];
}

static long long
check_exact(long long lo, long long hi, uint64_t *total)
{
	long long c = 0;
	bool first = true;
	int policy = hw_fifo_begin();

	*total = 0;
	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		for (int r = 0; r < hw_points[i].repeats; r++) {
			uint64_t n = hw_points[i].n, v = span(n);
			long long off = (long long)(v - 2 * n);

			printf("# N=%llu: 2N%+lld\n", (unsigned long long)n, off);
			*total += v;
			if (first)
				c = off;
			ASSERT_EQ(off, c);
			ASSERT_GE(off, lo);
			ASSERT_LE(off, hi);
			first = false;
		}
	}
	hw_fifo_end(policy);
	return c;
}

/* without -Clean: the reads' share is in every interval */
TEST(accumulate_exact)
{
	char *args[] = { "menu8", "--e", "instructions:u,cycles:u", NULL };
	struct pctr_summary s = { .size = sizeof(s) };
	uint64_t total;
	long long c;

	hw_pmu();
	getargs(args);
	c = check_exact(1, 20000, &total);
	printf("# pmc_lib without -Clean: 2N%+lld\n", c);
	ASSERT_OK(pctr_stats_get(ctl.counters[0].stats, 0, &s));
	ASSERT_EQ((uint64_t)s.total, total);
	pmc_close();
}

/*
 * -Clean 100: the overhead is exactly the reads' share, so the net count
 * is the loop and its call alone (mov, bl, cbz, 2N, ret and the like).
 */
TEST(clean_leaves_the_loop_alone)
{
	char *args[] = { "menu8", "-Clean", "100", "--e",
			 "instructions:u,cycles:u", NULL };
	uint64_t total, o;
	long long c;

	hw_pmu();
	getargs(args);
	ASSERT_OK(pctr_stats_overhead(ctl.counters[0].stats, 0, &o));
	printf("# -Clean overhead: %llu instructions\n",
	       (unsigned long long)o);
	ASSERT_GT(o, 0);
	c = check_exact(1, 16, &total);
	printf("# pmc_lib with -Clean 100: 2N%+lld\n", c);
	pmc_close();
}

/* exactly @n instructions the compiler cannot see into or reorder */
#define NOPS(n) __asm__ volatile(".rept " #n "\n\tnop\n\t.endr" ::: "memory")

#define PATH_REPEATS 500

/*
 * menu8's measurement with nothing, or n nops, between the reads: one
 * body for all, the second read's address in a register before the
 * first read, so that between the reads there is nothing of the
 * compiler's but the argument's move, as in -Clean's own calibration.
 * Left to the compiler, the x86-64 build computed that address (one lea)
 * before the first read in the empty span and after it in the other, and
 * 1000 nops counted 1001.
 */
#define SPAN(name, n)                                                          \
	static __attribute__((noinline)) uint64_t name(void)                   \
	{                                                                      \
		pmc_data_t t0, t1, *p1 = &t1;                                  \
                                                                               \
		__asm__ volatile("" : "+r"(p1));                               \
		pmc_read(&t0);                                                 \
		NOPS(n);                                                       \
		pmc_read(p1);                                                  \
		pmc_accumulate(&ctl.counters[0], &t1, &t0);                    \
		return t1.event[0];                                            \
	}
SPAN(empty_span, 0)
SPAN(nops_1, 1)
SPAN(nops_100, 100)
SPAN(nops_511, 511)
SPAN(nops_512, 512)
SPAN(nops_513, 513)
SPAN(nops_1000, 1000)
SPAN(nops_2000, 2000)

struct span {
	uint64_t (*fn)(void);
	unsigned int nops;
};

/*
 * Either side of the emulator's translation blocks (at most 512
 * instructions each, each counted as a whole when it starts).  These, not
 * the empty span, show a calibration that takes off too much: an interval
 * that cost less than the overhead counts 0.
 */
static const struct span spans[] = {
	{ nops_1, 1 },	   { nops_100, 100 },	{ nops_511, 511 },
	{ nops_512, 512 }, { nops_513, 513 },	{ nops_1000, 1000 },
	{ nops_2000, 2000 },
};

/*
 * -Clean 100 takes off what a pair of pmc_read() costs, so @sp counts its
 * nops exactly, every one of 500 intervals, on a read path
 * (@user_access: "1" user space, "0" read(2)).  Prints the figures and
 * returns how many intervals, and statistics, were wrong.
 */
static int
clean_errors(const struct span *sp, const char *user_access)
{
	char *args[] = { "menu8", "-Clean", "100", "--e",
			 "instructions:u,cycles:u", NULL };
	struct pctr_summary s = { .size = sizeof(s) };
	uint64_t o, v[PATH_REPEATS], lo = UINT64_MAX, hi = 0;
	int policy, bad = 0;

	hw_user_read(user_access);
	hw_pmu();
	getargs(args);
	ASSERT_OK(pctr_stats_overhead(ctl.counters[0].stats, 0, &o));
	policy = hw_fifo_begin();
	for (int i = 0; i < PATH_REPEATS; i++)
		v[i] = sp->fn();
	hw_fifo_end(policy);
	for (int i = 0; i < PATH_REPEATS; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
		bad += v[i] != sp->nops;
	}
	ASSERT_OK(pctr_stats_get(ctl.counters[0].stats, 0, &s));
	printf("# %u nops: -Clean overhead %llu; intervals %llu to %llu, "
	       "%d of %d wrong; statistics %llu intervals, %.0f to %.0f\n",
	       sp->nops, (unsigned long long)o, (unsigned long long)lo,
	       (unsigned long long)hi, bad, PATH_REPEATS,
	       (unsigned long long)s.n, s.min, s.max);
	bad += s.n != PATH_REPEATS || s.min != sp->nops || s.max != sp->nops;
	pmc_close();
	return bad;
}

/* every span's figures printed, then the verdict */
static void
check_clean(const struct span *sp, size_t n, const char *user_access)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += clean_errors(&sp[i], user_access);
	ASSERT_EQ(bad, 0);
}

static const struct span empty = { empty_span, 0 };

TEST(clean_empty_is_zero_user_read)
{
	check_clean(&empty, 1, "1");
}

TEST(clean_empty_is_zero_syscall_read)
{
	check_clean(&empty, 1, "0");
}

TEST(clean_nops_exact_user_read)
{
	check_clean(spans, sizeof(spans) / sizeof(spans[0]), "1");
}

TEST(clean_nops_exact_syscall_read)
{
	check_clean(spans, sizeof(spans) / sizeof(spans[0]), "0");
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(accumulate_exact)
		TEST_CASE(clean_leaves_the_loop_alone)
		TEST_CASE(clean_empty_is_zero_user_read)
		TEST_CASE(clean_empty_is_zero_syscall_read)
		TEST_CASE(clean_nops_exact_user_read)
		TEST_CASE(clean_nops_exact_syscall_read)));
}
