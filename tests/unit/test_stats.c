/* SPDX-License-Identifier: MIT */
/*
 * test_stats - statistics of intervals against values computed by hand.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <pctr.h>

#include "test.h"
#include "stats.h"

static struct pctr_summary
get(const struct pctr_stats *st, int idx)
{
	struct pctr_summary s = { .size = sizeof(s) };

	if (pctr_stats_get(st, idx, &s) < 0)
		TEST_FAIL("pctr_stats_get(%d) failed", idx);
	return s;
}

static struct pctr_stats *
one_event(const double *x, int n, unsigned int keep)
{
	struct pctr_stats *st;

	if (pctr_stats_new(&st, 1, keep) < 0)
		TEST_FAIL("pctr_stats_new failed");
	for (int i = 0; i < n; i++) {
		uint64_t v = (uint64_t)x[i];

		ASSERT_OK(pctr_stats_add_values(st, 1000, &v));
	}
	return st;
}

/*
 * Each row: values, and mean and sample standard deviation worked out by
 * hand.  The large offsets are where sum(x^2) - n * mean^2 in doubles gives
 * garbage (or a negative variance) and Welford's method must not.
 */
static const struct {
	int line;
	int n;
	double x[8];
	double mean, sd;
} welford_rows[] = {
	{ __LINE__, 8, { 2, 4, 4, 4, 5, 5, 7, 9 }, 5, 2.1380899352993950 },
	{ __LINE__, 1, { 42 }, 42, 0 },
	{ __LINE__, 2, { 0, 10 }, 5, 7.0710678118654755 },
	{ __LINE__, 4, { 7, 7, 7, 7 }, 7, 0 },
	{ __LINE__, 4, { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 }, 1e9 + 10,
	  5.4772255750516612 },
	{ __LINE__, 4, { 1e15 + 4, 1e15 + 7, 1e15 + 13, 1e15 + 16 },
	  1e15 + 10, 5.4772255750516612 },
	{ __LINE__, 3, { 4503599627370496.0 + 1, 4503599627370496.0 + 2,
			 4503599627370496.0 + 3 },
	  4503599627370496.0 + 2, 1 },
};

TEST(welford_against_hand_values)
{
	for (size_t r = 0; r < sizeof(welford_rows) / sizeof(welford_rows[0]);
	     r++) {
		struct pctr_stats *st = one_event(welford_rows[r].x,
						  welford_rows[r].n, 0);
		struct pctr_summary s = get(st, 0);

		fprintf(stderr, "# row at line %d\n", welford_rows[r].line);
		ASSERT_EQ(s.n, welford_rows[r].n);
		ASSERT_DBL_NEAR(s.mean, welford_rows[r].mean, 1e-6);
		ASSERT_DBL_NEAR(s.stddev, welford_rows[r].sd, 1e-6);
		pctr_stats_free(st);
	}
}

/*
 * Student's t quantile t(0.975, df) against published tables (Fisher and
 * Yates, any statistics text: 3 decimals) and, between the table's rows,
 * against the exact quantile (the inverse of the regularized incomplete
 * beta function, computed to 30 digits outside this project, 6 decimals).
 * The bound 6e-5 is the accuracy student_t.c states for the interpolation.
 */
static const struct {
	int line;
	uint64_t df;
	double t, eps;
} t975_rows[] = {
	{ __LINE__, 1, 12.706, 5e-4 },	 { __LINE__, 2, 4.303, 5e-4 },
	{ __LINE__, 5, 2.571, 5e-4 },	 { __LINE__, 10, 2.228, 5e-4 },
	{ __LINE__, 30, 2.042, 5e-4 },	 { __LINE__, 100, 1.984, 5e-4 },
	{ __LINE__, 1000, 1.962, 5e-4 }, { __LINE__, 4, 2.776445, 1e-6 },
	{ __LINE__, 34, 2.032245, 6e-5 }, { __LINE__, 35, 2.030108, 6e-5 },
	{ __LINE__, 50, 2.008559, 6e-5 }, { __LINE__, 100, 1.983972, 6e-5 },
	{ __LINE__, 250, 1.969498, 6e-5 }, { __LINE__, 1000, 1.962339, 6e-5 },
	{ __LINE__, 1000000000, 1.959964, 1e-6 },
};

TEST(t975_against_published_tables)
{
	for (size_t r = 0; r < sizeof(t975_rows) / sizeof(t975_rows[0]); r++) {
		fprintf(stderr, "# row at line %d\n", t975_rows[r].line);
		ASSERT_DBL_NEAR(pctr__t975(t975_rows[r].df), t975_rows[r].t,
				t975_rows[r].eps);
	}
	ASSERT_NE(isnan(pctr__t975(0)), 0);
	/* the quantile falls as df grows, never below the normal limit */
	for (uint64_t df = 1; df < 5000; df++) {
		ASSERT_GT(pctr__t975(df), pctr__t975(df + 1));
		ASSERT_GT(pctr__t975(df), 1.959964);
	}
}

/*
 * Each row: values, and their standard error and 95% interval worked out
 * by hand: se = s / sqrt(n), half-width = t(0.975, n - 1) * se.
 */
static const struct {
	int line;
	int n;
	double x[8];
	double se, lo, hi;
} interval_rows[] = {
	/* mean 3, s = sqrt(2.5) = 1.5811388, se = 0.7071068, t(4) = 2.776445,
	 * half-width 1.963243 */
	{ __LINE__, 5, { 1, 2, 3, 4, 5 }, 0.7071068, 1.036757, 4.963243 },
	/* mean 5, s = 7.0710678, se = 5, t(1) = 12.706205, half 63.531025 */
	{ __LINE__, 2, { 0, 10 }, 5, -58.531025, 68.531025 },
	/* no spread: se 0, the interval is the mean */
	{ __LINE__, 4, { 7, 7, 7, 7 }, 0, 7, 7 },
	/* mean 1e9 + 10, s = 5.4772256, se = 2.7386128, t(3) = 3.182446,
	 * half 8.715487 */
	{ __LINE__, 4, { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 }, 2.7386128,
	  1e9 + 1.284513, 1e9 + 18.715487 },
};

TEST(interval_against_hand_values)
{
	for (size_t r = 0; r < sizeof(interval_rows) / sizeof(interval_rows[0]);
	     r++) {
		struct pctr_stats *st = one_event(interval_rows[r].x,
						  interval_rows[r].n, 0);
		struct pctr_summary s = get(st, 0), v = { .size = sizeof(v) };

		fprintf(stderr, "# row at line %d\n", interval_rows[r].line);
		ASSERT_DBL_NEAR(s.std_error, interval_rows[r].se, 1e-6);
		ASSERT_DBL_NEAR(s.ci95_low, interval_rows[r].lo, 1e-6);
		ASSERT_DBL_NEAR(s.ci95_high, interval_rows[r].hi, 1e-6);
		/* the same values as an array: the same figures */
		ASSERT_OK(pctr_values_summary(interval_rows[r].x,
					      interval_rows[r].n, &v));
		ASSERT_EQ(v.n, interval_rows[r].n);
		ASSERT_DBL_NEAR(v.mean, s.mean, 1e-6);
		ASSERT_DBL_NEAR(v.std_error, interval_rows[r].se, 1e-6);
		ASSERT_DBL_NEAR(v.ci95_low, interval_rows[r].lo, 1e-6);
		ASSERT_DBL_NEAR(v.ci95_high, interval_rows[r].hi, 1e-6);
		pctr_stats_free(st);
	}
}

/* one value or none: no spread to estimate, so no interval (NaN) */
TEST(interval_needs_two_values)
{
	static const double one[] = { 42 };
	struct pctr_stats *st = one_event(one, 0, 0);
	struct pctr_summary s = get(st, 0);

	ASSERT_EQ(s.n, 0);
	ASSERT_EQ(s.mean, 0.0);
	ASSERT_NE(isnan(s.std_error), 0);
	ASSERT_NE(isnan(s.ci95_low), 0);
	ASSERT_NE(isnan(s.ci95_high), 0);
	pctr_stats_free(st);
	st = one_event(one, 1, 0);
	s = get(st, 0);
	ASSERT_EQ(s.n, 1);
	ASSERT_EQ(s.mean, 42.0);
	ASSERT_EQ(s.stddev, 0.0);
	ASSERT_NE(isnan(s.std_error), 0);
	ASSERT_NE(isnan(s.ci95_low), 0);
	ASSERT_NE(isnan(s.ci95_high), 0);
	s = (struct pctr_summary){ .size = sizeof(s) };
	ASSERT_OK(pctr_stats_per_second(st, 0, &s));
	ASSERT_NE(isnan(s.ci95_high), 0);
	pctr_stats_free(st);
}

/* rates and ratios carry their intervals too: 10, 20, 30 per 1000 ticks */
TEST(interval_of_derived_series)
{
	static const double x[] = { 10, 20, 30 };
	struct pctr_stats *st = one_event(x, 3, 0);
	struct pctr_summary s = { .size = sizeof(s) };

	/* per cycle (tsc basis): 0.01, 0.02, 0.03: mean 0.02, s 0.01,
	 * se 0.0057735, t(2) 4.302653, half 0.0248414 */
	ASSERT_OK(pctr_stats_per_cycle(st, 0, &s));
	ASSERT_DBL_NEAR(s.std_error, 0.0057735, 1e-7);
	ASSERT_DBL_NEAR(s.ci95_low, 0.02 - 0.0248414, 1e-7);
	ASSERT_DBL_NEAR(s.ci95_high, 0.02 + 0.0248414, 1e-7);
	pctr_stats_free(st);
}

/* NaN values (a rate over no time) are left out; bad input is refused */
TEST(values_summary_and_percentile)
{
	static const double x[] = { 5, 1, NAN, 3, 2, 4 };
	struct pctr_summary s = { .size = sizeof(s) };
	double p;

	ASSERT_OK(pctr_values_summary(x, 6, &s));
	ASSERT_EQ(s.n, 5);
	ASSERT_DBL_NEAR(s.total, 15, 1e-12);
	ASSERT_DBL_NEAR(s.mean, 3, 1e-12);
	ASSERT_DBL_NEAR(s.min, 1, 0);
	ASSERT_DBL_NEAR(s.max, 5, 0);
	ASSERT_DBL_NEAR(s.ci95_low, 1.036757, 1e-6);
	/* sorted 1 2 3 4 5: rank p / 100 * 4 */
	ASSERT_OK(pctr_values_percentile(x, 6, 50, &p));
	ASSERT_DBL_NEAR(p, 3, 0);
	ASSERT_OK(pctr_values_percentile(x, 6, 25, &p));
	ASSERT_DBL_NEAR(p, 2, 0);
	ASSERT_OK(pctr_values_percentile(x, 6, 90, &p));
	ASSERT_DBL_NEAR(p, 4.6, 1e-12);
	ASSERT_OK(pctr_values_percentile(x, 6, 100, &p));
	ASSERT_DBL_NEAR(p, 5, 0);
	ASSERT_EQ(pctr_values_percentile(x, 6, 101, &p), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "0..100");
	ASSERT_EQ(pctr_values_percentile(x + 2, 1, 50, &p), -ENODATA);
	ASSERT_EQ(pctr_values_percentile(NULL, 3, 50, &p), -EINVAL);
	ASSERT_EQ(pctr_values_percentile(x, 6, 50, NULL), -EINVAL);
	ASSERT_EQ(pctr_values_summary(NULL, 3, &s), -EINVAL);
	ASSERT_EQ(pctr_values_summary(x, 3, NULL), -EINVAL);
	ASSERT_OK(pctr_values_summary(NULL, 0, &s));
	ASSERT_EQ(s.n, 0);
	ASSERT_NE(isnan(s.std_error), 0);
}

/*
 * A program built before the interval existed: its struct ends at stddev
 * and its size is PCTR_SUMMARY_SIZE_VER0.  It gets its seven members and
 * not one byte past them.
 */
struct summary_v0 {
	size_t size;
	uint64_t n;
	double total, min, mean, max, stddev;
	unsigned char after[24];
};

TEST(version_0_callers_get_version_0)
{
	static const double x[] = { 1, 2, 3, 4, 5 };
	struct pctr_stats *st = one_event(x, 5, 0);
	struct summary_v0 old;

	_Static_assert(offsetof(struct summary_v0, after) ==
			       PCTR_SUMMARY_SIZE_VER0,
		       "version 0's layout");
	memset(&old, 0x5a, sizeof(old));
	old.size = PCTR_SUMMARY_SIZE_VER0;
	ASSERT_OK(pctr_stats_get(st, 0, (struct pctr_summary *)&old));
	ASSERT_UEQ(old.size, PCTR_SUMMARY_SIZE_VER0);
	ASSERT_EQ(old.n, 5);
	ASSERT_DBL_NEAR(old.mean, 3, 1e-12);
	ASSERT_DBL_NEAR(old.stddev, 1.5811388, 1e-6);
	for (size_t i = 0; i < sizeof(old.after); i++)
		ASSERT_HEX_EQ(old.after[i], 0x5a);
	memset(&old, 0x5a, sizeof(old));
	old.size = PCTR_SUMMARY_SIZE_VER0;
	ASSERT_OK(pctr_values_summary(x, 5, (struct pctr_summary *)&old));
	ASSERT_DBL_NEAR(old.mean, 3, 1e-12);
	for (size_t i = 0; i < sizeof(old.after); i++)
		ASSERT_HEX_EQ(old.after[i], 0x5a);
	old.size = PCTR_SUMMARY_SIZE_VER0 - 8;
	ASSERT_EQ(pctr_stats_get(st, 0, (struct pctr_summary *)&old),
		  -EINVAL);
	pctr_stats_free(st);
}

TEST(integer_totals_are_exact)
{
	uint64_t big = (1ull << 60) + 1, v[2] = { big, 3 };
	struct pctr_stats *st;
	uint64_t exact = 0;

	ASSERT_OK(pctr_stats_new(&st, 2, 0));
	for (int i = 0; i < 7; i++) {
		v[0] = big + i;
		exact += v[0];
		ASSERT_OK(pctr_stats_add_values(st, 5 + i, v));
	}
	/* the exact integer total reaches reports through the JSON writer */
	ASSERT_EQ(get(st, 1).total, 21);
	ASSERT_EQ(get(st, PCTR_STATS_TIME).total, 5 + 6 + 7 + 8 + 9 + 10 + 11);
	ASSERT_EQ(get(st, PCTR_STATS_TIME).min, 5);
	ASSERT_EQ(get(st, PCTR_STATS_TIME).max, 11);
	ASSERT_DBL_NEAR(get(st, 0).min, (double)big, 0.5);
	ASSERT_DBL_NEAR(get(st, 0).total, (double)exact, 1024);
	pctr_stats_free(st);
}

static struct pctr_sample
sample(uint64_t tsc, int nr, const uint64_t *val, const uint64_t *ena,
       const uint64_t *run)
{
	struct pctr_sample s = { .tsc = tsc, .nr = nr };

	for (int i = 0; i < nr; i++) {
		s.count[i].value = val[i];
		s.count[i].enabled = ena ? ena[i] : 1000;
		s.count[i].running = run ? run[i] : 1000;
	}
	return s;
}

TEST(add_subtracts_overhead_and_clamps)
{
	uint64_t oh[2] = { 5, 100 }, z[2] = { 0, 0 }, a[2] = { 3, 150 };
	uint64_t b[2] = { 25, 90 }, out;
	struct pctr_sample t0 = sample(1000, 2, z, NULL, NULL);
	struct pctr_sample t1 = sample(1008, 2, a, NULL, NULL);
	struct pctr_stats *st;

	ASSERT_OK(pctr_stats_new(&st, 2, 0));
	ASSERT_OK(pctr_stats_overhead_set(st, 10, oh));
	ASSERT_OK(pctr_stats_add(st, &t1, &t0));
	ASSERT_EQ(get(st, 0).total, 0); /* 3 - 5 clamps to 0 */
	ASSERT_EQ(get(st, 1).total, 50);
	ASSERT_EQ(get(st, PCTR_STATS_TIME).total, 0); /* 8 - 10 */
	t1 = sample(1050, 2, b, NULL, NULL);
	ASSERT_OK(pctr_stats_add(st, &t1, &t0));
	ASSERT_EQ(get(st, 0).total, 20);
	ASSERT_EQ(get(st, 1).total, 50);
	ASSERT_EQ(get(st, PCTR_STATS_TIME).total, 40);
	ASSERT_OK(pctr_stats_overhead(st, 1, &out));
	ASSERT_EQ(out, 100);
	ASSERT_OK(pctr_stats_overhead(st, PCTR_STATS_TIME, &out));
	ASSERT_EQ(out, 10);
	ASSERT_EQ(pctr_stats_add(st, &t0, &t1), -EINVAL); /* reversed */
	pctr_stats_free(st);
}

TEST(add_scales_multiplexed_intervals)
{
	uint64_t v0[1] = { 1000 }, e0[1] = { 500 }, r0[1] = { 400 };
	uint64_t v1[1] = { 1100 }, e1[1] = { 700 }, r1[1] = { 450 };
	struct pctr_sample t0 = sample(0, 1, v0, e0, r0);
	struct pctr_sample t1 = sample(10, 1, v1, e1, r1);
	struct pctr_stats *st;

	ASSERT_OK(pctr_stats_new(&st, 1, 0));
	ASSERT_OK(pctr_stats_add(st, &t1, &t0));
	/* 100 counted in 50 of 200 ns: 400 estimated for the interval */
	ASSERT_EQ(get(st, 0).total, 400);
	pctr_stats_free(st);
}

/*
 * Rates and ratios are ratios of sums (stats.c): the mean is the total of
 * the numerator over that of the denominator, every interval counted (n),
 * the spread the delta method's; minimum and maximum those of single
 * intervals (an interval whose denominator is 0 left out of them).
 */
TEST(per_cycle_ratio_and_per_second)
{
	uint64_t a[3] = { 100, 50, 0 }, b[3] = { 200, 150, 3 };
	uint64_t hz = pctr_tsc_hz();
	struct pctr_summary s = { .size = sizeof(s) };
	struct pctr_stats *st;

	ASSERT_OK(pctr_stats_new(&st, 3, 0));
	ASSERT_OK(pctr_stats_cycles_set(st, 0));
	ASSERT_EQ(pctr_stats_cycles(st), 0);
	ASSERT_OK(pctr_stats_add_values(st, hz, a));
	ASSERT_OK(pctr_stats_add_values(st, hz / 2, b));
	ASSERT_EQ(pctr_stats_cycles_set(st, 1), -EALREADY);

	/* 50/100 and 150/200: R = 200/300, residuals -50/3 and +50/3 over
	 * a mean cycle count of 150: sqrt(2 (50/3)^2) / 150 = sqrt(2) / 9 */
	ASSERT_OK(pctr_stats_per_cycle(st, 1, &s));
	ASSERT_EQ(s.n, 2);
	ASSERT_DBL_NEAR(s.min, 0.5, 1e-12);
	ASSERT_DBL_NEAR(s.max, 0.75, 1e-12);
	ASSERT_DBL_NEAR(s.mean, 200.0 / 300.0, 1e-12);
	ASSERT_DBL_NEAR(s.stddev, sqrt(2.0) / 9.0, 1e-12);
	ASSERT_DBL_NEAR(s.total, 200.0 / 300.0, 1e-12);

	/* event 1 / event 2: the first interval has a zero denominator,
	 * in the sums (n 2) but not among the single ratios */
	ASSERT_OK(pctr_stats_ratio(st, 1, 2, &s));
	ASSERT_EQ(s.n, 2);
	ASSERT_DBL_NEAR(s.mean, 200.0 / 3.0, 1e-12);
	ASSERT_DBL_NEAR(s.min, 50.0, 1e-12);
	ASSERT_DBL_NEAR(s.max, 50.0, 1e-12);
	ASSERT_OK(pctr_stats_ratio(st, 2, 1, &s));
	ASSERT_EQ(s.n, 2);
	ASSERT_DBL_NEAR(s.min, 0.0, 1e-12);
	ASSERT_DBL_NEAR(s.max, 0.02, 1e-12);
	ASSERT_DBL_NEAR(s.total, 3.0 / 200.0, 1e-12);
	ASSERT_EQ(pctr_stats_ratio(st, 1, 1, &s), -ERANGE);

	ASSERT_OK(pctr_stats_per_second(st, 1, &s));
	ASSERT_DBL_NEAR(s.min, 50.0, 1e-6);
	ASSERT_DBL_NEAR(s.max, 300.0, 1e-3);
	ASSERT_DBL_NEAR(s.total, 200.0 / 1.5, 1e-3);
	pctr_stats_free(st);
}

/*
 * Identical intervals of large counts: the ratio of sums is the one ratio,
 * its spread exactly 0, and the single intervals' extremes (kept by
 * pctr_stats_add_values(), no reservoir needed) that ratio too.
 */
TEST(ratio_of_large_identical_intervals)
{
	uint64_t v[2] = { (1ull << 50) + 7, 1ull << 49 };
	struct pctr_summary s = { .size = sizeof(s) };
	struct pctr_stats *st;

	ASSERT_OK(pctr_stats_new(&st, 2, 0));
	for (int i = 0; i < 5; i++)
		ASSERT_OK(pctr_stats_add_values(st, 1ull << 40, v));
	ASSERT_OK(pctr_stats_ratio(st, 0, 1, &s));
	ASSERT_EQ(s.n, 5);
	ASSERT_DBL_NEAR(s.min, (double)v[0] / (double)v[1], 0);
	ASSERT_DBL_NEAR(s.max, (double)v[0] / (double)v[1], 0);
	ASSERT_DBL_NEAR(s.mean, (double)v[0] / (double)v[1], 1e-15);
	ASSERT_DBL_NEAR(s.stddev, 0, 0);
	ASSERT_OK(pctr_stats_per_cycle(st, 0, &s));
	ASSERT_DBL_NEAR(s.stddev, 0, 0);
	ASSERT_DBL_NEAR(get(st, 0).stddev, 0, 0);
	pctr_stats_free(st);
}

TEST(per_cycle_defaults_to_tsc_ticks)
{
	uint64_t v = 30;
	struct pctr_summary s = { .size = sizeof(s) };
	struct pctr_stats *st;

	ASSERT_OK(pctr_stats_new(&st, 1, 0));
	ASSERT_EQ(pctr_stats_cycles(st), PCTR_STATS_TIME);
	ASSERT_OK(pctr_stats_add_values(st, 120, &v));
	ASSERT_OK(pctr_stats_per_cycle(st, 0, &s));
	ASSERT_DBL_NEAR(s.mean, 0.25, 1e-12);
	pctr_stats_free(st);
}

static uint64_t
lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

TEST(merge_equals_adding_one_by_one)
{
	struct pctr_stats *all, *a, *b;
	uint64_t seed = 7;

	ASSERT_OK(pctr_stats_new(&all, 2, 0));
	ASSERT_OK(pctr_stats_new(&a, 2, 0));
	ASSERT_OK(pctr_stats_new(&b, 2, 0));
	for (int i = 0; i < 1000; i++) {
		uint64_t v[2] = { 1000000000000ull + lcg(&seed) % 1000,
				  lcg(&seed) % 50 + 1 };
		uint64_t t = lcg(&seed) % 100000;

		pctr_stats_add_values(all, t, v);
		pctr_stats_add_values(i % 3 ? a : b, t, v);
	}
	ASSERT_OK(pctr_stats_merge(a, b));
	for (int i = PCTR_STATS_TIME; i < 2; i++) {
		struct pctr_summary x = get(all, i), y = get(a, i);

		ASSERT_EQ(x.n, y.n);
		ASSERT_DBL_NEAR(x.total, y.total, 0);
		ASSERT_DBL_NEAR(x.min, y.min, 0);
		ASSERT_DBL_NEAR(x.max, y.max, 0);
		ASSERT_DBL_NEAR(x.mean, y.mean, 1e-6);
		ASSERT_DBL_NEAR(x.stddev, y.stddev, 1e-6);
	}
	pctr_stats_free(b);
	ASSERT_OK(pctr_stats_new(&b, 3, 0));
	ASSERT_EQ(pctr_stats_merge(a, b), -EINVAL);
	pctr_stats_free(all);
	pctr_stats_free(a);
	pctr_stats_free(b);
}

TEST(percentiles_exact_while_kept)
{
	double x[10] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 }, p;
	struct pctr_stats *st = one_event(x, 10, 10);

	ASSERT_OK(pctr_stats_percentile(st, 0, 50, &p));
	ASSERT_DBL_NEAR(p, 5.5, 1e-12);
	ASSERT_OK(pctr_stats_percentile(st, 0, 0, &p));
	ASSERT_DBL_NEAR(p, 1, 1e-12);
	ASSERT_OK(pctr_stats_percentile(st, 0, 100, &p));
	ASSERT_DBL_NEAR(p, 10, 1e-12);
	ASSERT_OK(pctr_stats_percentile(st, 0, 90, &p));
	ASSERT_DBL_NEAR(p, 9.1, 1e-12);
	ASSERT_OK(pctr_stats_percentile(st, PCTR_STATS_TIME, 50, &p));
	ASSERT_DBL_NEAR(p, 1000, 1e-12);
	ASSERT_EQ(pctr_stats_percentile(st, 0, 101, &p), -EINVAL);
	pctr_stats_free(st);
	st = one_event(x, 10, 0);
	ASSERT_EQ(pctr_stats_percentile(st, 0, 50, &p), -ENODATA);
	pctr_stats_free(st);
}

/* Beyond what is kept the reservoir must stay a sample of every interval. */
TEST(percentiles_sample_all_intervals)
{
	struct pctr_stats *st, *other;
	double p;

	ASSERT_OK(pctr_stats_new(&st, 1, 200));
	ASSERT_OK(pctr_stats_new(&other, 1, 200));
	for (uint64_t i = 0; i < 20000; i++)
		pctr_stats_add_values(i < 10000 ? st : other, 1, &i);
	ASSERT_OK(pctr_stats_percentile(st, 0, 50, &p));
	ASSERT_GT(p, 3500);
	ASSERT_LT(p, 6500);
	ASSERT_OK(pctr_stats_merge(st, other));
	ASSERT_OK(pctr_stats_percentile(st, 0, 50, &p));
	ASSERT_GT(p, 7000);
	ASSERT_LT(p, 13000);
	pctr_stats_free(st);
	pctr_stats_free(other);
}

TEST(merge_of_small_reservoirs_is_exact)
{
	double x[3] = { 1, 2, 3 }, y[2] = { 10, 20 }, p;
	struct pctr_stats *a = one_event(x, 3, 8), *b = one_event(y, 2, 8);

	ASSERT_OK(pctr_stats_merge(a, b));
	ASSERT_OK(pctr_stats_percentile(a, 0, 100, &p));
	ASSERT_DBL_NEAR(p, 20, 0);
	ASSERT_OK(pctr_stats_percentile(a, 0, 50, &p));
	ASSERT_DBL_NEAR(p, 3, 0);
	pctr_stats_free(a);
	pctr_stats_free(b);
}

TEST(reset_keeps_names_and_overhead)
{
	uint64_t oh = 4, v = 10, out;
	struct pctr_stats *st;

	ASSERT_OK(pctr_stats_new(&st, 1, 4));
	ASSERT_STR_EQ(pctr_stats_name(st, 0), "event 0");
	ASSERT_OK(pctr_stats_name_set(st, 0, "page-faults"));
	ASSERT_OK(pctr_stats_overhead_set(st, 2, &oh));
	ASSERT_OK(pctr_stats_add_values(st, 9, &v));
	ASSERT_OK(pctr_stats_reset(st));
	ASSERT_EQ(get(st, 0).n, 0);
	ASSERT_EQ(get(st, 0).total, 0);
	ASSERT_STR_EQ(pctr_stats_name(st, 0), "page-faults");
	ASSERT_STR_EQ(pctr_stats_name(st, PCTR_STATS_TIME), "tsc_ticks");
	ASSERT_OK(pctr_stats_overhead(st, 0, &out));
	ASSERT_EQ(out, 4);
	{
		double p;

		ASSERT_EQ(pctr_stats_percentile(st, 0, 50, &p), -ENODATA);
	}
	pctr_stats_free(st);
}

/*
 * The overhead's spread goes into the mean's uncertainty in quadrature:
 * 10, 12, 14, 16 have mean 13, stddev sqrt(20 / 3), standard error
 * sqrt(5 / 3); with an overhead spread of 3 the combined standard
 * uncertainty is sqrt(5 / 3 + 9) = 3.2659863 and the 95% interval 13 -/+
 * t(0.975, 3) 3.1824463 times that: 2.6061739 .. 23.3938261 (computed by
 * hand, in that order).  The stddev itself, the ticks (no spread given)
 * and the rates are as before.
 */
TEST(overhead_spread_widens_the_interval)
{
	static const double x[] = { 10, 12, 14, 16 };
	struct pctr_stats *st = one_event(x, 4, 0), *other;
	double sd = 3, wide = 5, out;
	uint64_t n;

	ASSERT_OK(pctr_stats_overhead_spread_set(st, 0, &sd));
	ASSERT_DBL_NEAR(get(st, 0).stddev, 2.5819889, 1e-6);
	ASSERT_DBL_NEAR(get(st, 0).std_error, 3.2659863, 1e-6);
	ASSERT_DBL_NEAR(get(st, 0).ci95_low, 2.6061739, 1e-6);
	ASSERT_DBL_NEAR(get(st, 0).ci95_high, 23.3938261, 1e-6);
	ASSERT_DBL_NEAR(get(st, PCTR_STATS_TIME).stddev, 0, 0);
	ASSERT_DBL_NEAR(get(st, PCTR_STATS_TIME).std_error, 0, 0);
	/* kept by a reset, as the overhead is */
	ASSERT_OK(pctr_stats_reset(st));
	ASSERT_OK(pctr_stats_overhead_spread(st, 0, &out));
	ASSERT_DBL_NEAR(out, 3, 0);
	/* merged: the wider of the two */
	ASSERT_OK(pctr_stats_new(&other, 1, 0));
	ASSERT_OK(pctr_stats_overhead_spread_set(other, 0, &wide));
	ASSERT_OK(pctr_stats_merge(st, other));
	ASSERT_OK(pctr_stats_overhead_spread(st, 0, &out));
	ASSERT_DBL_NEAR(out, 5, 0);
	/* refused whole: a negative or not finite spread sets nothing */
	sd = -1;
	ASSERT_EQ(pctr_stats_overhead_spread_set(st, 0, &sd), -EINVAL);
	sd = NAN;
	ASSERT_EQ(pctr_stats_overhead_spread_set(st, 0, &sd), -EINVAL);
	ASSERT_EQ(pctr_stats_overhead_spread_set(st, INFINITY, NULL), -EINVAL);
	ASSERT_OK(pctr_stats_overhead_spread(st, 0, &out));
	ASSERT_DBL_NEAR(out, 5, 0);
	ASSERT_EQ(pctr_stats_overhead_spread(st, 1, &out), -ERANGE);
	/* statistics of no region: nothing looked for disturbed intervals */
	ASSERT_EQ(pctr_stats_disturbed(st, &n), -ENODATA);
	pctr_stats_free(other);
	pctr_stats_free(st);
}

TEST(errors_are_negative_errno)
{
	struct pctr_summary bad = { 0 }, s = { .size = sizeof(s) };
	struct pctr_sample t = { .nr = 2 };
	struct pctr_stats *st;

	ASSERT_EQ(pctr_stats_new(&st, 0, 0), -EINVAL);
	ASSERT(st == NULL);
	ASSERT_EQ(pctr_stats_new(&st, PCTR_MAX_EVENTS + 1, 0), -EINVAL);
	ASSERT_EQ(pctr_stats_new(NULL, 1, 0), -EINVAL);
	ASSERT_OK(pctr_stats_new(&st, 1, 0));
	ASSERT_EQ(pctr_stats_get(st, 0, &bad), -EINVAL);
	ASSERT_EQ(pctr_stats_get(st, 1, &s), -ERANGE);
	ASSERT_EQ(pctr_stats_get(st, -2, &s), -ERANGE);
	ASSERT_CONTAINS(pctr_strerror(-ERANGE), "out of range");
	ASSERT_EQ(pctr_stats_per_cycle(st, PCTR_STATS_TIME, &s), -ERANGE);
	ASSERT_EQ(pctr_stats_add(st, &t, &t), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "samples of 2");
	ASSERT_OK(pctr_stats_get(st, 0, &s));
	ASSERT_EQ(s.n, 0);
	ASSERT_DBL_NEAR(s.mean, 0, 0);
	pctr_stats_free(st);
	pctr_stats_free(NULL);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(welford_against_hand_values)
			       TEST_CASE(t975_against_published_tables)
			       TEST_CASE(interval_against_hand_values)
			       TEST_CASE(interval_needs_two_values)
			       TEST_CASE(interval_of_derived_series)
			       TEST_CASE(values_summary_and_percentile)
			       TEST_CASE(version_0_callers_get_version_0)
			       TEST_CASE(integer_totals_are_exact)
			       TEST_CASE(add_subtracts_overhead_and_clamps)
			       TEST_CASE(add_scales_multiplexed_intervals)
			       TEST_CASE(per_cycle_ratio_and_per_second)
			       TEST_CASE(ratio_of_large_identical_intervals)
			       TEST_CASE(per_cycle_defaults_to_tsc_ticks)
			       TEST_CASE(merge_equals_adding_one_by_one)
			       TEST_CASE(percentiles_exact_while_kept)
			       TEST_CASE(percentiles_sample_all_intervals)
			       TEST_CASE(merge_of_small_reservoirs_is_exact)
			       TEST_CASE(reset_keeps_names_and_overhead)
			       TEST_CASE(overhead_spread_widens_the_interval)
			       TEST_CASE(errors_are_negative_errno)));
}
