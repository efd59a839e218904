/* SPDX-License-Identifier: MIT */
/*
 * test_stats_pack - statistics packed to bytes and back, and merged as the
 * ranks of a job would merge them: the layout checked byte by byte, every
 * figure back bit for bit, garbage and truncated packs refused without a
 * read past the buffer (this test also runs under AddressSanitizer), and
 * means and variances of a reduction against exact integer arithmetic.
 */
#include <errno.h>
#include <math.h>
#include <pctr.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

static uint64_t
lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

static struct pctr_summary
get(const struct pctr_stats *st, int idx)
{
	struct pctr_summary s = { .size = sizeof(s) };

	if (pctr_stats_get(st, idx, &s) < 0)
		TEST_FAIL("pctr_stats_get(%d) failed", idx);
	return s;
}

static bool
same_double(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

static void
assert_same_summary(const struct pctr_summary *a, const struct pctr_summary *b)
{
	ASSERT_UEQ(a->n, b->n);
	ASSERT(same_double(a->total, b->total));
	ASSERT(same_double(a->min, b->min));
	ASSERT(same_double(a->mean, b->mean));
	ASSERT(same_double(a->max, b->max));
	ASSERT(same_double(a->stddev, b->stddev));
}

/* three events, event 1 the cycles, 10 intervals, 16 kept */
static struct pctr_stats *
sample_stats(unsigned int keep, int intervals, uint64_t seed)
{
	static const char *const name[] = { "page-faults", "cycles",
					    "task-clock" };
	uint64_t oh[3] = { 1, 2, 3 };
	struct pctr_stats *st;

	ASSERT_OK(pctr_stats_new(&st, 3, keep));
	for (int i = 0; i < 3; i++)
		ASSERT_OK(pctr_stats_name_set(st, i, name[i]));
	ASSERT_OK(pctr_stats_cycles_set(st, 1));
	for (int k = 0; k < intervals; k++) {
		uint64_t v[3] = { lcg(&seed) % 7, 1000 + lcg(&seed) % 100,
				  (1ull << 40) + lcg(&seed) % 5000 };

		ASSERT_OK(pctr_stats_add_values(st, 2000 + k, v));
	}
	ASSERT_OK(pctr_stats_overhead_set(st, 11, oh));
	return st;
}

static void
assert_same_stats(const struct pctr_stats *a, const struct pctr_stats *b)
{
	ASSERT_EQ(pctr_stats_nr(a), pctr_stats_nr(b));
	ASSERT_EQ(pctr_stats_cycles(a), pctr_stats_cycles(b));
	for (int i = PCTR_STATS_TIME; i < pctr_stats_nr(a); i++) {
		struct pctr_summary x = get(a, i), y = get(b, i);
		uint64_t oa, ob;
		double pa, pb;

		ASSERT_STR_EQ(pctr_stats_name(a, i), pctr_stats_name(b, i));
		assert_same_summary(&x, &y);
		ASSERT_OK(pctr_stats_overhead(a, i, &oa));
		ASSERT_OK(pctr_stats_overhead(b, i, &ob));
		ASSERT_UEQ(oa, ob);
		ASSERT_OK(pctr_stats_overhead_spread(a, i, &pa));
		ASSERT_OK(pctr_stats_overhead_spread(b, i, &pb));
		ASSERT(same_double(pa, pb));
		ASSERT_EQ(pctr_stats_percentile(a, i, 90, &pa),
			  pctr_stats_percentile(b, i, 90, &pb));
		if (pctr_stats_percentile(a, i, 90, &pa) == 0)
			ASSERT(same_double(pa, pb));
		if (i < 0)
			continue;
		ASSERT_OK(pctr_stats_per_second(a, i, &x));
		ASSERT_OK(pctr_stats_per_second(b, i, &y));
		assert_same_summary(&x, &y);
		ASSERT_OK(pctr_stats_per_cycle(a, i, &x));
		ASSERT_OK(pctr_stats_per_cycle(b, i, &y));
		assert_same_summary(&x, &y);
		for (int d = 0; d < pctr_stats_nr(a); d++) {
			if (d == i)
				continue;
			ASSERT_OK(pctr_stats_ratio(a, i, d, &x));
			ASSERT_OK(pctr_stats_ratio(b, i, d, &y));
			assert_same_summary(&x, &y);
		}
	}
}

static unsigned char *
pack(const struct pctr_stats *st, size_t *len)
{
	ssize_t n = pctr_stats_pack(st, NULL, 0);
	unsigned char *buf;

	ASSERT_GT(n, 0);
	buf = malloc(n);
	ASSERT(buf != NULL);
	ASSERT_EQ(pctr_stats_pack(st, buf, n), n);
	*len = n;
	return buf;
}

TEST(pack_and_unpack_give_every_figure_back)
{
	struct pctr_stats *st = sample_stats(16, 10, 3), *back;
	size_t len;
	unsigned char *buf = pack(st, &len), small[64];

	/* header 64, 3 names 3 * 136, n and flags 16, 4 series 4 * 48,
	 * cross sums: 3 with the ticks, 3 with the cycles, 3 pairs, 9 * 16,
	 * extremes of 3 + 3 rates and 9 ratios 15 * 16, the reservoir 4 rows
	 * of 10 doubles */
	ASSERT_EQ(len, 64 + 3 * 136 + 16 + 4 * 48 + 9 * 16 + 15 * 16 +
			       4 * 10 * 8);
	ASSERT_EQ(pctr_stats_pack(st, small, sizeof(small)), -ENOSPC);
	ASSERT_CONTAINS(pctr_strerror(-ENOSPC), "needs 1384 bytes");
	ASSERT_OK(pctr_stats_unpack(&back, buf, len));
	assert_same_stats(st, back);
	pctr_stats_free(back);
	free(buf);
	pctr_stats_free(st);

	/* without a reservoir the size depends on the events alone */
	st = sample_stats(0, 1000, 5);
	buf = pack(st, &len);
	ASSERT_EQ(len, 64 + 3 * 136 + 16 + 4 * 48 + 9 * 16 + 15 * 16);
	ASSERT_OK(pctr_stats_unpack(&back, buf, len));
	assert_same_stats(st, back);
	pctr_stats_free(back);
	free(buf);
	pctr_stats_free(st);
}

static uint64_t
le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)le64(p) & 0xffffffffu;
}

static double
le_double(const unsigned char *p)
{
	uint64_t v = le64(p);
	double x;

	memcpy(&x, &v, sizeof(x));
	return x;
}

/*
 * The layout of doc/stats-pack.md, read back byte by byte, so that a host
 * of the other byte order or another compiler's struct layout writes the
 * same bytes: one event "e", intervals 2 and 3 (ticks 10 and 30).
 */
TEST(layout_is_fixed_and_little_endian)
{
	struct pctr_stats *st;
	uint64_t v;
	size_t len;
	unsigned char *b;
	const unsigned char *series;

	ASSERT_OK(pctr_stats_new(&st, 1, 0));
	ASSERT_OK(pctr_stats_name_set(st, 0, "e"));
	v = 2;
	ASSERT_OK(pctr_stats_add_values(st, 10, &v));
	v = 3;
	ASSERT_OK(pctr_stats_add_values(st, 30, &v));
	b = pack(st, &len);
	ASSERT_EQ(len, 64 + 136 + 16 + 2 * 48 + 2 * 16 + 3 * 16);
	ASSERT(!memcmp(b, "PCTRSTAT", 8));
	ASSERT_UEQ(le64(b + 8), 2); /* version 2, flags 0 */
	ASSERT_UEQ(le64(b + 16), len);
	ASSERT_UEQ(le64(b + 24), 0xffffffff00000001ull); /* nr 1, cycles -1 */
	ASSERT_UEQ(le64(b + 32), 0); /* keep 0, kept 0 */
	ASSERT_UEQ(le64(b + 40), 0); /* seen */
	ASSERT_UEQ(le64(b + 48), pctr_tsc_hz());
	ASSERT_UEQ(le64(b + 56), 0);
	ASSERT_STR_EQ((const char *)b + 64, "e");
	ASSERT_UEQ(le64(b + 64 + 128), 0); /* not hardware */
	series = b + 64 + 136;
	ASSERT_UEQ(le64(series), 2); /* n */
	ASSERT_UEQ(le64(series + 8), 0); /* flags */
	series += 16; /* the ticks: 10, 30 */
	ASSERT_UEQ(le64(series), 40); /* total */
	ASSERT_UEQ(le64(series + 8), 10); /* min */
	ASSERT_UEQ(le64(series + 16), 30); /* max */
	ASSERT_UEQ(le64(series + 24), 1000); /* sum of squares, low */
	ASSERT_UEQ(le64(series + 32), 0); /* and high */
	ASSERT_UEQ(le64(series + 40), 0); /* overhead */
	series += 48; /* event 0: 2, 3 */
	ASSERT_UEQ(le64(series), 5);
	ASSERT_UEQ(le64(series + 24), 13);
	series += 48; /* cross sums: with the ticks 2 * 10 + 3 * 30 */
	ASSERT_UEQ(le64(series), 110);
	ASSERT_UEQ(le64(series + 8), 0);
	ASSERT_UEQ(le64(series + 16), 0); /* with the cycles: the ticks */
	series += 32; /* extremes: per second, then per cycle: 0.1, 0.2 */
	ASSERT_UEQ(le64(series + 16), 0x3fb999999999999aull);
	ASSERT_UEQ(le64(series + 24), 0x3fc999999999999aull);
	/* ratios: event 0 to itself, none: NaN, NaN */
	ASSERT(isnan(le_double(series + 32)) && isnan(le_double(series + 40)));
	free(b);
	pctr_stats_free(st);
}

static void refused(const unsigned char *buf, size_t len, const char *why);

static void
put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * A version 1 pack (Welford states; the layout the previous test read
 * back byte by byte before version 2) is still read: one event "e",
 * intervals 2 and 3, ticks 10 and 30.  Its counts' figures come back; the
 * rates' spread is unknown (NaN), their means are the sums'.
 */
TEST(version_1_packs_are_still_read)
{
	unsigned char b[64 + 136 + 2 * 80 + 3 * 40] = { 0 }, *p;
	struct pctr_summary s = { .size = sizeof(s) };
	struct pctr_stats *st;

	memcpy(b, "PCTRSTAT", 8);
	put64(b + 8, 1);
	put64(b + 16, sizeof(b));
	put64(b + 24, 0xffffffff00000001ull);
	put64(b + 48, pctr_tsc_hz());
	b[64] = 'e';
	p = b + 64 + 136; /* the ticks: n, min 0, max 20, mean 10, m2 200 */
	put64(p, 2);
	put64(p + 16, 0x4034000000000000ull);
	put64(p + 24, 0x4024000000000000ull);
	put64(p + 32, 0x4069000000000000ull);
	put64(p + 40, 10); /* origin, total, min, max */
	put64(p + 48, 40);
	put64(p + 56, 10);
	put64(p + 64, 30);
	p += 80; /* event 0: 2, 3: max 1.0, mean 0.5, m2 0.5 */
	put64(p, 2);
	put64(p + 16, 0x3ff0000000000000ull);
	put64(p + 24, 0x3fe0000000000000ull);
	put64(p + 32, 0x3fe0000000000000ull);
	put64(p + 40, 2);
	put64(p + 48, 5);
	put64(p + 56, 2);
	put64(p + 64, 3);
	p += 80; /* per second, per cycle: 2 intervals, ratio unused */
	put64(p, 2);
	put64(p + 40, 2);
	ASSERT_OK(pctr_stats_unpack(&st, b, sizeof(b)));
	s = get(st, PCTR_STATS_TIME);
	ASSERT_EQ(s.n, 2);
	ASSERT_DBL_NEAR(s.total, 40, 0);
	ASSERT_DBL_NEAR(s.stddev, sqrt(200.0), 1e-12);
	s = get(st, 0);
	ASSERT_DBL_NEAR(s.min, 2, 0);
	ASSERT_DBL_NEAR(s.max, 3, 0);
	ASSERT_DBL_NEAR(s.stddev, sqrt(0.5), 1e-12);
	ASSERT_OK(pctr_stats_per_cycle(st, 0, &s));
	ASSERT_DBL_NEAR(s.mean, 5.0 / 40.0, 1e-15);
	ASSERT_NE(isnan(s.stddev), 0);
	pctr_stats_free(st);
	b[64 + 136] = 3; /* the ticks' n: the events' disagree */
	refused(b, sizeof(b), "numbers of intervals");
}

static void
refused(const unsigned char *buf, size_t len, const char *why)
{
	struct pctr_stats *st = (struct pctr_stats *)buf;
	unsigned char *copy = malloc(len ? len : 1);

	/* an exact-size copy, so that a read past the end is caught */
	ASSERT(copy != NULL);
	memcpy(copy, buf, len);
	if (pctr_stats_unpack(&st, copy, len) != -EINVAL)
		TEST_FAIL("a pack of %zu bytes (%s) was not refused", len,
			  why ? why : "length");
	ASSERT(st == NULL);
	if (why)
		ASSERT_CONTAINS(pctr_strerror(-EINVAL), why);
	free(copy);
}

/* @len bytes of @src with the u64 (or u32 when @four) at @off set to @v */
static unsigned char *
patched(const unsigned char *src, size_t len, size_t off, uint64_t v,
	bool four)
{
	unsigned char *b = malloc(len);

	ASSERT(b != NULL);
	memcpy(b, src, len);
	for (int i = 0; i < (four ? 4 : 8); i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
	return b;
}

static void
refused_patch(const unsigned char *src, size_t len, size_t off, uint64_t v,
	      bool four, const char *why)
{
	unsigned char *b = patched(src, len, off, v, four);

	refused(b, len, why);
	free(b);
}

TEST(unpack_refuses_bad_packs)
{
	struct pctr_stats *st = sample_stats(4, 10, 9), *back;
	size_t len, sums = 64 + 3 * 136, ev0 = sums + 16 + 48;
	unsigned char *buf = pack(st, &len), *b;

	for (size_t n = 0; n < len; n++)
		refused(buf, n, n < 64 ? "header" : "long");
	b = malloc(len + 1);
	memcpy(b, buf, len);
	b[len] = 0;
	refused(b, len + 1, "bytes long");
	free(b);
	/* "PCTRSTAU" */
	refused_patch(buf, len, 0, 0x5541545352544350ull, false, "magic");
	refused_patch(buf, len, 8, 3, true, "version 3");
	refused_patch(buf, len, 12, 1, true, "flags");
	refused_patch(buf, len, 24, 0, true, "number of events");
	refused_patch(buf, len, 24, 65, true, "number of events");
	refused_patch(buf, len, 24, 2, true, NULL); /* and its length */
	refused_patch(buf, len, 28, 3, true, "cycle basis");
	refused_patch(buf, len, 32, 5, true, "reservoir");
	refused_patch(buf, len, 48, 0, false, "frequency");
	refused_patch(buf, len, 56, 1, false, "reserved");
	/* event 0's name without its NUL, then empty */
	b = malloc(len);
	memcpy(b, buf, len);
	memset(b + 64, 'x', 128);
	refused(b, len, "name");
	b[64] = '\0';
	refused(b, len, "name");
	memcpy(b, buf, len);
	b[64 + 100] = 'x'; /* after the NUL of "page-faults" */
	refused(b, len, "NUL-padded");
	free(b);
	refused_patch(buf, len, 64 + 128, 2, false, "flags");
	refused_patch(buf, len, sums + 8, 4, false, "sums flags");
	refused_patch(buf, len, sums, 11, false, "sums disagree");
	refused_patch(buf, len, ev0 + 8, 100, false, "minimum"); /* > max */
	refused_patch(buf, len, ev0 + 32, 1ull << 40, false,
		      "sums disagree"); /* sum of squares > total^2 */
	refused_patch(buf, len, ev0, 1ull << 40, false, "sums disagree");
	ASSERT_EQ(pctr_stats_unpack(&back, NULL, len), -EINVAL);
	ASSERT_EQ(pctr_stats_unpack(NULL, buf, len), -EINVAL);
	ASSERT_EQ(pctr_stats_pack(NULL, NULL, 0), -EINVAL);
	free(buf);
	pctr_stats_free(st);
}

/*
 * An overhead spread travels in the region part (flag bit 0), 16 + 8 *
 * (events + 1) bytes at the end; without a region's checks, the count of
 * disturbed intervals stays unknown on the other side too.  A bad spread
 * or an unknown check is refused.
 */
TEST(region_part_carries_the_spread)
{
	struct pctr_stats *st = sample_stats(0, 10, 7), *back;
	double sd[3] = { 0.5, 0, 1e300 };
	size_t len, plain = 64 + 3 * 136 + 16 + 4 * 48 + 9 * 16 + 15 * 16;
	unsigned char *buf;
	uint64_t n;

	ASSERT_OK(pctr_stats_overhead_spread_set(st, 12.25, sd));
	buf = pack(st, &len);
	ASSERT_EQ(len, plain + 16 + 4 * 8);
	ASSERT_UEQ(le32(buf + 12), 1);
	ASSERT_OK(pctr_stats_unpack(&back, buf, len));
	assert_same_stats(st, back);
	ASSERT_EQ(pctr_stats_disturbed(back, &n), -ENODATA);
	pctr_stats_free(back);
	/* the ticks' spread, as a double, after 16 bytes of the part */
	ASSERT(same_double(le_double(buf + plain + 16), 12.25));
	refused_patch(buf, len, plain + 16, 0xbff0000000000000ull, false,
		      "spread"); /* -1 */
	refused_patch(buf, len, plain + 8, 0x10, true, "checks");
	refused_patch(buf, len, plain + 12, 2, true, "checks");
	refused(buf, plain, "bytes long");
	refused_patch(buf, len, 12, 0, true, "length");
	free(buf);
	pctr_stats_free(st);
}

/*
 * Random bytes, and valid packs with random bytes changed, truncated or
 * lengthened: never a crash or a read past the end (AddressSanitizer
 * checks the copies, allocated at their exact size), and what is accepted
 * is usable.  200,000 tries take about a second, 13 s under ASan; under
 * valgrind, some fifty times slower than that, 10,000 of them (memcheck
 * sees every byte read all the same), where tests/fuzz goes on longer.
 */
TEST(unpack_of_random_bytes_never_crashes)
{
	struct pctr_stats *st = sample_stats(8, 20, 1);
	uint64_t seed = 12345;
	size_t len;
	unsigned char *good = pack(st, &len);
	FILE *null = fopen("/dev/null", "w");
	int accepted = 0, tries = TEST_UNDER_VALGRIND() ? 10000 : 200000;

	ASSERT(null != NULL);
	for (int k = 0; k < tries; k++) {
		size_t n = k % 2 ? len : lcg(&seed) % (len + 64);
		unsigned char *b = malloc(n ? n : 1);
		struct pctr_stats *back;
		int r;

		for (size_t i = 0; i < n; i++)
			b[i] = k % 4 < 2 && i < len ? good[i]
						    : (unsigned char)lcg(&seed);
		for (int flips = lcg(&seed) % 4; n && flips >= 0; flips--)
			b[lcg(&seed) % n] = (unsigned char)lcg(&seed);
		r = pctr_stats_unpack(&back, b, n);
		ASSERT(r == 0 || r == -EINVAL);
		if (r == 0) {
			accepted++;
			get(back, 0);
			ASSERT_OK(pctr_stats_write(back, null,
						   PCTR_REPORT_JSON, "x"));
		}
		pctr_stats_free(back);
		free(b);
	}
	/* flips in the kept intervals or the low bits of counts are valid */
	ASSERT_GT(accepted, 0);
	fclose(null);
	free(good);
	pctr_stats_free(st);
}

/* exact mean and variance of the values, from 128-bit integer sums */
struct exact {
	unsigned __int128 n, sum, sumsq;
};

static void
exact_add(struct exact *e, uint64_t x)
{
	e->n++;
	e->sum += x;
	e->sumsq += (unsigned __int128)x * x;
}

/* the mean: integer part exactly, then the remainder's fraction */
static double
exact_mean(const struct exact *e)
{
	return (double)(uint64_t)(e->sum / e->n) +
	       (double)(uint64_t)(e->sum % e->n) / (double)(uint64_t)e->n;
}

/* (n sumsq - sum^2) / (n (n - 1)): exact in 128 bits for these values */
static double
exact_variance(const struct exact *e)
{
	unsigned __int128 num = e->n * e->sumsq - e->sum * e->sum;

	double n = (double)(uint64_t)e->n;

	return (double)num / (n * (n - 1));
}

/*
 * Seven "ranks" of uneven sizes (one with no interval) each count part of
 * 5,000 known values around 10^12 (where the sum of squares in doubles
 * has no digit of the variance left); each packs its statistics, the
 * packs are unpacked and merged as a tree (rank pairs, then pairs of
 * pairs), and the mean and variance must be those of the whole series
 * computed exactly, and those of one pass over all values.
 */
TEST(reduction_over_ranks_equals_one_pass)
{
	enum { RANKS = 7, N = 5000 };
	struct pctr_stats *all, *rank[RANKS];
	struct exact ex = { 0 }, ext = { 0 };
	uint64_t seed = 99;

	ASSERT_OK(pctr_stats_new(&all, 1, 0));
	for (int r = 0; r < RANKS; r++)
		ASSERT_OK(pctr_stats_new(&rank[r], 1, 0));
	for (int i = 0; i < N; i++) {
		uint64_t v = 1000000000000ull + lcg(&seed) % 100000;
		uint64_t t = 5000 + lcg(&seed) % 300;
		int r = (int)(lcg(&seed) % 100);

		r = r < 50 ? 0 : r < 80 ? 1 : r < 90 ? 2 : r < 99 ? 3 + r % 3
								   : 6;
		r = r == 5 ? 4 : r; /* rank 5 counts nothing */
		exact_add(&ex, v);
		exact_add(&ext, t);
		ASSERT_OK(pctr_stats_add_values(all, t, &v));
		ASSERT_OK(pctr_stats_add_values(rank[r], t, &v));
	}
	for (int r = 0; r < RANKS; r++) {
		size_t len;
		unsigned char *b = pack(rank[r], &len);

		pctr_stats_free(rank[r]);
		ASSERT_OK(pctr_stats_unpack(&rank[r], b, len));
		free(b);
	}
	ASSERT_EQ(get(rank[5], 0).n, 0);
	for (int step = 1; step < RANKS; step *= 2)
		for (int r = 0; r + step < RANKS; r += 2 * step)
			ASSERT_OK(pctr_stats_merge(rank[r], rank[r + step]));
	for (int i = PCTR_STATS_TIME; i < 1; i++) {
		const struct exact *e = i < 0 ? &ext : &ex;
		struct pctr_summary m = get(rank[0], i), one = get(all, i);
		double var = exact_variance(e);

		ASSERT_UEQ(m.n, N);
		ASSERT_UEQ((uint64_t)m.total, (uint64_t)e->sum);
		ASSERT(same_double(m.min, one.min));
		ASSERT(same_double(m.max, one.max));
		/* a few ulps of the mean: the merges' rounding */
		ASSERT_DBL_NEAR(m.mean, exact_mean(e), 1e-15 * m.mean);
		ASSERT_DBL_NEAR(one.mean, exact_mean(e), 1e-15 * one.mean);
		ASSERT_DBL_NEAR(m.stddev * m.stddev, var, 1e-10 * var);
		ASSERT_DBL_NEAR(one.stddev * one.stddev, var, 1e-10 * var);
	}
	pctr_stats_free(all);
	for (int r = 0; r < RANKS; r++)
		pctr_stats_free(rank[r]);
}

TEST(merge_refuses_other_events)
{
	struct pctr_stats *a = sample_stats(0, 3, 1);
	struct pctr_stats *b = sample_stats(0, 3, 2);

	ASSERT_OK(pctr_stats_name_set(b, 2, "context-switches"));
	ASSERT_EQ(pctr_stats_merge(a, b), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "'context-switches'");
	ASSERT_EQ(get(a, 0).n, 3); /* untouched */
	ASSERT_OK(pctr_stats_name_set(b, 2, "task-clock"));
	pctr_stats_free(b);
	ASSERT_OK(pctr_stats_new(&b, 3, 0));
	ASSERT_OK(pctr_stats_name_set(b, 0, "page-faults"));
	ASSERT_OK(pctr_stats_name_set(b, 1, "cycles"));
	ASSERT_OK(pctr_stats_name_set(b, 2, "task-clock"));
	ASSERT_EQ(pctr_stats_merge(a, b), -EINVAL); /* cycles: ticks */
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "cycles");
	ASSERT_OK(pctr_stats_cycles_set(b, 1));
	ASSERT_OK(pctr_stats_merge(a, b));
	pctr_stats_free(a);
	pctr_stats_free(b);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(pack_and_unpack_give_every_figure_back)
			       TEST_CASE(layout_is_fixed_and_little_endian)
			       TEST_CASE(version_1_packs_are_still_read)
			       TEST_CASE(region_part_carries_the_spread)
			       TEST_CASE(unpack_refuses_bad_packs)
			       TEST_CASE(unpack_of_random_bytes_never_crashes)
			       TEST_CASE(reduction_over_ranks_equals_one_pass)
			       TEST_CASE(merge_refuses_other_events)));
}
