/* SPDX-License-Identifier: MIT */
/*
 * test_stats - statistics of intervals against values computed by hand.
 */
#include <errno.h>
#include <math.h>
#include <pctr.h>

#include "test.h"

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
	ASSERT_OK(pctr_stats_set_overhead(st, 10, oh));
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

TEST(per_cycle_ratio_and_per_second)
{
	uint64_t a[3] = { 100, 50, 0 }, b[3] = { 200, 150, 3 };
	uint64_t hz = pctr_tsc_hz();
	struct pctr_summary s = { .size = sizeof(s) };
	struct pctr_stats *st;

	ASSERT_OK(pctr_stats_new(&st, 3, 0));
	ASSERT_OK(pctr_stats_set_cycles(st, 0));
	ASSERT_EQ(pctr_stats_cycles(st), 0);
	ASSERT_OK(pctr_stats_add_values(st, hz, a));
	ASSERT_OK(pctr_stats_add_values(st, hz / 2, b));
	ASSERT_EQ(pctr_stats_set_cycles(st, 1), -EALREADY);

	ASSERT_OK(pctr_stats_per_cycle(st, 1, &s));
	ASSERT_EQ(s.n, 2);
	ASSERT_DBL_NEAR(s.min, 0.5, 1e-12);
	ASSERT_DBL_NEAR(s.max, 0.75, 1e-12);
	ASSERT_DBL_NEAR(s.mean, 0.625, 1e-12);
	ASSERT_DBL_NEAR(s.stddev, sqrt(0.125 * 0.125 * 2), 1e-12);
	ASSERT_DBL_NEAR(s.total, 200.0 / 300.0, 1e-12);

	/* event 1 / event 2: the first interval has a zero denominator */
	ASSERT_OK(pctr_stats_ratio(st, 1, 2, &s));
	ASSERT_EQ(s.n, 1);
	ASSERT_DBL_NEAR(s.mean, 50.0, 1e-12);
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
	ASSERT_OK(pctr_stats_set_name(st, 0, "page-faults"));
	ASSERT_OK(pctr_stats_set_overhead(st, 2, &oh));
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
			       TEST_CASE(integer_totals_are_exact)
			       TEST_CASE(add_subtracts_overhead_and_clamps)
			       TEST_CASE(add_scales_multiplexed_intervals)
			       TEST_CASE(per_cycle_ratio_and_per_second)
			       TEST_CASE(per_cycle_defaults_to_tsc_ticks)
			       TEST_CASE(merge_equals_adding_one_by_one)
			       TEST_CASE(percentiles_exact_while_kept)
			       TEST_CASE(percentiles_sample_all_intervals)
			       TEST_CASE(merge_of_small_reservoirs_is_exact)
			       TEST_CASE(reset_keeps_names_and_overhead)
			       TEST_CASE(errors_are_negative_errno)));
}
