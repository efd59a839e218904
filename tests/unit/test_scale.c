/* SPDX-License-Identifier: MIT */
/*
 * test_scale - the interval around a scaled count (src/scale.c) against
 * bounds worked out by hand from known reads.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <pctr.h>

#include "test.h"

struct read {
	uint64_t value, enabled, running;
};

static struct pctr_scale
scale_of(const struct read *rd, int n)
{
	struct pctr_scale s;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < n; i++) {
		struct pctr_count c = { rd[i].value, rd[i].enabled,
					rd[i].running };

		ASSERT_OK(pctr_scale_add(&s, &c));
	}
	return s;
}

/*
 * Each row: cumulative reads and the bounds by hand.  Rates are events per
 * running ns of each slice between reads; the bounds are value + (enabled
 * - running) * the lowest (highest) of them.
 */
static const struct {
	int line;
	int n;
	struct read rd[6];
	double low, high;
} rows[] = {
	/*
	 * slices: 100/500 = 0.2, 300/1000 = 0.3, off the whole slice (no
	 * rate), 100/500 = 0.2.  Off 4000 - 2000 = 2000 ns: 500 + 2000 *
	 * 0.2 = 900, 500 + 2000 * 0.3 = 1100 (scaled: 1000)
	 */
	{ __LINE__,
	  4,
	  { { 100, 1000, 500 },
	    { 400, 2000, 1500 },
	    { 400, 3000, 1500 },
	    { 500, 4000, 2000 } },
	  900,
	  1100 },
	/* a slice that ran and counted nothing: rate 0, low is the value */
	{ __LINE__,
	  2,
	  { { 0, 100, 50 }, { 60, 200, 80 } },
	  60,
	  60 + 120 * 2.0 },
	/* two equal rates: the interval is the scaled count itself */
	{ __LINE__, 2, { { 10, 40, 20 }, { 30, 80, 60 } }, 40, 40 },
	/*
	 * counts past 2^53: rates 2^40 / 2^39 = 2 and 2^60 / 2^58 = 4,
	 * off 2^60 - 2^58 - 2^39 = 3 * 2^58 - 2^39 ns; low 2^60 + 2^40 +
	 * 3 * 2^59 - 2^40 = 5 * 2^59, high 2^60 + 2^40 + 3 * 2^60 - 2^41 =
	 * 2^62 - 2^40
	 */
	{ __LINE__,
	  2,
	  { { 1ull << 40, 1ull << 41, 1ull << 39 },
	    { (1ull << 60) + (1ull << 40), 1ull << 60,
	      (1ull << 58) + (1ull << 39) } },
	  5.0 * (double)(1ull << 59),
	  (double)(1ull << 62) - (double)(1ull << 40) },
};

TEST(bounds_against_hand_values)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pctr_scale s = scale_of(rows[i].rd, rows[i].n);
		double lo, hi, sc = pctr_count_scaled(&s.last);

		printf("# row of line %d\n", rows[i].line);
		ASSERT_OK(pctr_scale_bounds(&s, &lo, &hi));
		/* doubles of the same operations: relative 1e-15 */
		ASSERT_DBL_NEAR(lo / rows[i].low, 1.0, 1e-15);
		ASSERT_DBL_NEAR(hi / rows[i].high, 1.0, 1e-15);
		/* the scaled count lies inside, to a rounding */
		ASSERT(sc >= lo * (1 - 1e-15) && sc <= hi * (1 + 1e-15));
	}
}

/* never multiplexed: the count is exact, low = high = value */
TEST(exact_count_is_its_own_interval)
{
	const struct read rd[] = { { 7, 100, 100 }, { 123, 250, 250 } };
	struct pctr_scale s = scale_of(rd, 2);
	double lo, hi;

	ASSERT_OK(pctr_scale_bounds(&s, &lo, &hi));
	ASSERT_EQ(lo, 123.0);
	ASSERT_EQ(hi, 123.0);
	/* one read is enough when nothing was scaled */
	s = scale_of(rd, 1);
	ASSERT_OK(pctr_scale_bounds(&s, &lo, &hi));
	ASSERT_EQ(lo, 7.0);
}

/* one slice that ran gives one rate: unknown, not an interval of width 0 */
TEST(one_slice_is_unknown)
{
	const struct read rd[] = { { 100, 1000, 500 }, { 100, 2000, 500 } };
	struct pctr_scale s = scale_of(rd, 2);
	double lo = 0, hi = 0;

	ASSERT_EQ(pctr_scale_bounds(&s, &lo, &hi), -ENODATA);
	ASSERT(isnan(lo) && isnan(hi));
	ASSERT_CONTAINS(pctr_strerror(-ENODATA), "fewer than two slices");
	/* nor is a single read of a multiplexed count */
	s = scale_of(rd, 1);
	ASSERT_EQ(pctr_scale_bounds(&s, &lo, &hi), -ENODATA);
}

TEST(never_ran_is_said)
{
	const struct read rd[] = { { 0, 1000, 0 }, { 0, 2000, 0 } };
	struct pctr_scale s = scale_of(rd, 2);
	double lo, hi;

	ASSERT_EQ(pctr_scale_bounds(&s, &lo, &hi), -ENODATA);
	ASSERT(isnan(lo) && isnan(hi));
	ASSERT_CONTAINS(pctr_strerror(-ENODATA), "never ran");
	/* nothing added at all: never ran either */
	memset(&s, 0, sizeof(s));
	ASSERT_EQ(pctr_scale_bounds(&s, &lo, &hi), -ENODATA);
}

/* bad reads are refused and change nothing */
TEST(bad_reads_are_refused)
{
	const struct read rd[] = { { 100, 1000, 500 }, { 400, 2000, 1500 } };
	struct pctr_scale s = scale_of(rd, 2), before = s;
	struct pctr_count back = { 300, 2500, 1600 };
	struct pctr_count over = { 500, 2500, 2600 };
	double lo, hi;

	ASSERT_EQ(pctr_scale_add(&s, &back), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "went backwards");
	ASSERT_EQ(pctr_scale_add(&s, &over), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "exceeds enabled");
	ASSERT(memcmp(&s, &before, sizeof(s)) == 0);
	ASSERT_EQ(pctr_scale_add(NULL, &back), -EINVAL);
	ASSERT_EQ(pctr_scale_add(&s, NULL), -EINVAL);
	ASSERT_EQ(pctr_scale_bounds(NULL, &lo, &hi), -EINVAL);
	ASSERT_EQ(pctr_scale_bounds(&s, NULL, &hi), -EINVAL);
	ASSERT_EQ(pctr_scale_bounds(&s, &lo, NULL), -EINVAL);
}

/*
 * A simulated program, 10 slices of 1000 ns between reads, the event on
 * the counters for the first 400 ns of each.  Rates per ns: while on, 1.0
 * in even slices and 3.0 in odd ones; while off, 2.0.  The truth is
 * 10 * 400 * 2 (on: 1 and 3 alternating) + 10 * 600 * 2 = 20000; the
 * bounds 8000 + 6000 * 1 and 8000 + 6000 * 3 hold it.  The same program
 * with 5.0 while off (a rate never seen on the counters) is 38000: the
 * interval [14000, 26000] misses it, as the method says it may.
 */
static void
simulate(double off_rate, double *truth, double *lo, double *hi)
{
	struct pctr_scale s;
	struct pctr_count c = { 0, 0, 0 };

	memset(&s, 0, sizeof(s));
	*truth = 0;
	for (int i = 0; i < 10; i++) {
		uint64_t on = (uint64_t)(400 * (i % 2 ? 3.0 : 1.0));

		c.value += on;
		c.enabled += 1000;
		c.running += 400;
		*truth += (double)on + 600 * off_rate;
		ASSERT_OK(pctr_scale_add(&s, &c));
	}
	ASSERT_OK(pctr_scale_bounds(&s, lo, hi));
}

TEST(simulated_truth_inside_and_outside)
{
	double truth, lo, hi;

	simulate(2.0, &truth, &lo, &hi);
	ASSERT_EQ(truth, 20000.0);
	ASSERT_EQ(lo, 14000.0);
	ASSERT_EQ(hi, 26000.0);
	simulate(5.0, &truth, &lo, &hi);
	ASSERT_EQ(truth, 38000.0);
	ASSERT(truth > hi);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(bounds_against_hand_values)
			       TEST_CASE(exact_count_is_its_own_interval)
			       TEST_CASE(one_slice_is_unknown)
			       TEST_CASE(never_ran_is_said)
			       TEST_CASE(bad_reads_are_refused)
			       TEST_CASE(simulated_truth_inside_and_outside)));
}
