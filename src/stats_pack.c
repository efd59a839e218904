/* SPDX-License-Identifier: MIT */
/*
 * stats_pack.c - statistics as bytes, to send to another process or host
 * (the ranks of an MPI job) and rebuild there: pctr_stats_pack() and
 * pctr_stats_unpack().
 *
 * The layout is fixed and little-endian whatever the host, every field at
 * an offset that follows from the header alone; doubles travel as their
 * IEEE-754 bit patterns, counts as uint64, 128-bit sums as two uint64
 * (low first).  Version 2 (doc/stats-pack.md has the table):
 *
 *   header, 64 bytes:
 *     0  magic "PCTRSTAT"     8 bytes
 *     8  version              u32, 2 (1 is still read)
 *    12  flags                u32, bit 0: the region part below follows
 *                             (any other bit: refused)
 *    16  length               u64, of the whole pack, header included
 *    24  nr                   u32, events, 1..PCTR_MAX_EVENTS
 *    28  cycles               i32, event index or -1 (PCTR_STATS_TIME)
 *    32  keep                 u32, reservoir capacity
 *    36  kept                 u32, intervals in the reservoir: min(seen, keep)
 *    40  seen                 u64, intervals offered to the reservoir
 *    48  tsc_hz               u64
 *    56  reserved             u64, 0
 *   per event, 136 bytes: name (128 bytes, NUL-padded), flags u64 (bit 0:
 *     hardware)
 *   n u64 (intervals), flags u64 (bit 0: the cross sums are unknown, the
 *     statistics came from a version 1 pack; bit 1: single intervals'
 *     rates and ratios were not kept, a region's)
 *   series, 48 bytes each, the elapsed ticks first, then each event:
 *     total, min, max (u64), the sum of squares (u128), overhead (u64)
 *   cross sums, u128 each: each event times the ticks, each event times
 *     the cycle basis (0 while that is the ticks), then the pairs i < j of
 *     the first min(nr, PCTR_STATS_RATIO_MAX) events, (0,1), (0,2)...
 *   single intervals' extremes, 16 bytes each (min, max doubles; both NaN
 *     for none): per second of each event, per cycle of each event, then
 *     the ratios, min(nr, PCTR_STATS_RATIO_MAX) squared, numerator-major
 *   the reservoir: (nr + 1) rows of @kept doubles, the ticks' row first
 *   with flag bit 0, the region part, 16 + 8 * (nr + 1) bytes: disturbed
 *     intervals u64, the checks in force u32 (bits 0..3: switch, page,
 *     mux, kernel), dropped u32 (0 or 1), then the overhead's spread,
 *     doubles, the ticks' first (region.c, pctr_stats_overhead_spread())
 *
 * Version 1 had Welford states in place of the sums (series of 80 bytes:
 * n, min, max, mean, m2 of x - origin as doubles, origin, total, min, max,
 * overhead; then 40-byte states of the per-interval rates and ratios).
 * Its series become sums again (the sum of squares from m2, exact while
 * the doubles were); its rates' and ratios' states, means of per-interval
 * ratios, cannot give the cross sums, so such statistics have no spread
 * of a rate or ratio (NaN), nor do those they are merged into; their
 * minimum and maximum are the extremes.
 *
 * Unpacking checks the length before reading a field, and every field
 * before believing it: a pack that is short, long, of another version or
 * inconsistent is refused with -EINVAL and nothing is allocated.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define PACK_MAGIC "PCTRSTAT"
#define HEADER_LEN 64
#define EVENT_LEN (PCTR_NAME_MAX + 8)
#define WELFORD_LEN 40
#define SERIES1_LEN (WELFORD_LEN + 40)
#define SERIES_LEN 48
#define SUMS_LEN 16
#define PACK_REGION 0x1u /* flags: the region part follows */
#define DETECT_ALL 0xfu /* PCTR__DISTURB_* */

/* ---- bytes ------------------------------------------------------------- */

struct cursor {
	unsigned char *w; /* packing */
	const unsigned char *r; /* unpacking */
	size_t at;
};

static void
put_u64(struct cursor *c, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		c->w[c->at++] = (unsigned char)(v >> (8 * i));
}

static void
put_u32(struct cursor *c, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		c->w[c->at++] = (unsigned char)(v >> (8 * i));
}

static void
put_double(struct cursor *c, double x)
{
	uint64_t v;

	memcpy(&v, &x, sizeof(v));
	put_u64(c, v);
}

static uint64_t
get_u64(struct cursor *c)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)c->r[c->at++] << (8 * i);
	return v;
}

static uint32_t
get_u32(struct cursor *c)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)c->r[c->at++] << (8 * i);
	return v;
}

static double
get_double(struct cursor *c)
{
	uint64_t v = get_u64(c);
	double x;

	memcpy(&x, &v, sizeof(x));
	return x;
}

/* ---- sizes --------------------------------------------------------------- */

static int
ratio_nr(int nr)
{
	return nr < PCTR_STATS_RATIO_MAX ? nr : PCTR_STATS_RATIO_MAX;
}

static uint64_t
kept_nr(const struct pctr_stats *st)
{
	return st->seen < st->keep ? st->seen : st->keep;
}

/* bytes of a pack of @version, @nr events and @kept reservoir slots */
static uint64_t
pack_len(uint32_t version, int nr, uint64_t kept, bool region)
{
	uint64_t nrr = (uint64_t)ratio_nr(nr), body;

	if (version == 1)
		body = (uint64_t)(nr + 1) * SERIES1_LEN +
		       (2 * (uint64_t)nr + nrr * nrr) * WELFORD_LEN;
	else
		body = SUMS_LEN + (uint64_t)(nr + 1) * SERIES_LEN +
		       (2 * (uint64_t)nr + nrr * (nrr - 1) / 2) * 16 +
		       (2 * (uint64_t)nr + nrr * nrr) * 16;
	return HEADER_LEN + (uint64_t)nr * EVENT_LEN + body +
	       (uint64_t)(nr + 1) * kept * 8 +
	       (region ? 16 + (uint64_t)(nr + 1) * 8 : 0);
}

/* a region's statistics, or an overhead spread: the region part */
static bool
has_region(const struct pctr_stats *st)
{
	bool any = st->detect || st->time.overhead_sd != 0.0;

	for (int i = 0; !any && i < st->nr; i++)
		any = st->ev[i].overhead_sd != 0.0;
	return any;
}

/* ---- packing ----------------------------------------------------------- */

static void
put_u128(struct cursor *c, pctr__u128 v)
{
	put_u64(c, (uint64_t)v);
	put_u64(c, (uint64_t)(v >> 64));
}

/* an empty series' minimum is UINT64_MAX inside, 0 in the pack */
static void
put_series(struct cursor *c, const struct pctr__series *s, uint64_t n)
{
	put_u64(c, s->total);
	put_u64(c, n ? s->min : 0);
	put_u64(c, s->max);
	put_u128(c, s->sq);
	put_u64(c, s->overhead);
}

static void
put_header(struct cursor *c, const struct pctr_stats *st, uint64_t len)
{
	memcpy(c->w, PACK_MAGIC, 8);
	c->at = 8;
	put_u32(c, PCTR_STATS_PACK_VERSION);
	put_u32(c, has_region(st) ? PACK_REGION : 0);
	put_u64(c, len);
	put_u32(c, (uint32_t)st->nr);
	put_u32(c, (uint32_t)st->cycles);
	put_u32(c, st->keep);
	put_u32(c, (uint32_t)kept_nr(st));
	put_u64(c, st->seen);
	put_u64(c, st->tsc_hz);
	put_u64(c, 0);
}

static void
put_body(struct cursor *c, const struct pctr_stats *st)
{
	uint64_t m = kept_nr(st);

	for (int i = 0; i < st->nr; i++) {
		memset(c->w + c->at, 0, PCTR_NAME_MAX);
		memcpy(c->w + c->at, st->name[i], strnlen(st->name[i],
							  PCTR_NAME_MAX - 1));
		c->at += PCTR_NAME_MAX;
		put_u64(c, st->hardware[i] ? 1 : 0);
	}
	put_u64(c, st->n);
	put_u64(c, (st->no_cross ? 1 : 0) | (st->no_extremes ? 2 : 0));
	put_series(c, &st->time, st->n);
	for (int i = 0; i < st->nr; i++)
		put_series(c, &st->ev[i], st->n);
	for (int i = 0; i < st->nr; i++)
		put_u128(c, st->xt[i]);
	for (int i = 0; i < st->nr; i++)
		put_u128(c, st->cycles == PCTR_STATS_TIME ? 0 : st->xc[i]);
	for (int k = 0; k < pctr__pairs(st->nr_ratio); k++)
		put_u128(c, st->xy[k]);
	for (int k = 0; k < pctr__extremes_nr(st->nr, st->nr_ratio); k++) {
		bool none = !(st->ext[k].min <= st->ext[k].max);

		put_double(c, none ? NAN : st->ext[k].min);
		put_double(c, none ? NAN : st->ext[k].max);
	}
	for (int row = 0; row <= st->nr; row++)
		for (uint64_t k = 0; k < m; k++)
			put_double(c, st->kept[(size_t)row * st->keep + k]);
	if (!has_region(st))
		return;
	put_u64(c, st->disturbed);
	put_u32(c, st->detect);
	put_u32(c, st->drop ? 1 : 0);
	put_double(c, st->time.overhead_sd);
	for (int i = 0; i < st->nr; i++)
		put_double(c, st->ev[i].overhead_sd);
}

PCTR_EXPORT ssize_t
pctr_stats_pack(const struct pctr_stats *st, void *buf, size_t len)
{
	struct cursor c = { .w = buf };
	uint64_t need;

	if (!st)
		return pctr__error(EINVAL, "NULL statistics");
	need = pack_len(PCTR_STATS_PACK_VERSION, st->nr, kept_nr(st),
			has_region(st));
	if (!buf)
		return (ssize_t)need;
	if (len < need)
		return pctr__error(ENOSPC, "packing statistics of %d events "
					   "needs %llu bytes, the buffer has "
					   "%zu",
				   st->nr, (unsigned long long)need, len);
	put_header(&c, st, need);
	put_body(&c, st);
	return (ssize_t)need;
}

/* ---- unpacking --------------------------------------------------------- */

/* the header's figures, checked against each other and the length */
struct header {
	uint32_t version, nr, keep, kept, flags;
	int32_t cycles;
	uint64_t seen, tsc_hz;
};

static int
bad(const char *why)
{
	return pctr__error(EINVAL, "not a statistics pack: %s", why);
}

static int
check_header(struct cursor *c, size_t len, struct header *h)
{
	uint32_t version;
	uint64_t declared;

	if (len < HEADER_LEN)
		return bad("shorter than its 64-byte header");
	if (memcmp(c->r, PACK_MAGIC, 8))
		return bad("no \"PCTRSTAT\" magic");
	c->at = 8;
	version = h->version = get_u32(c);
	h->flags = get_u32(c);
	declared = get_u64(c);
	if (version != 1 && version != PCTR_STATS_PACK_VERSION)
		return pctr__error(EINVAL, "statistics pack of version %u; "
					   "this library reads versions 1 to "
					   "%d",
				   version, PCTR_STATS_PACK_VERSION);
	if (h->flags & ~PACK_REGION)
		return bad("unknown flags set");
	if (declared != len)
		return pctr__error(EINVAL, "statistics pack says it is %llu "
					   "bytes long, %zu were given",
				   (unsigned long long)declared, len);
	h->nr = get_u32(c);
	h->cycles = (int32_t)get_u32(c);
	h->keep = get_u32(c);
	h->kept = get_u32(c);
	h->seen = get_u64(c);
	h->tsc_hz = get_u64(c);
	return get_u64(c) ? bad("reserved field not zero") : 0;
}

static int
check_figures(const struct header *h, size_t len)
{
	if (h->nr < 1 || h->nr > PCTR_MAX_EVENTS)
		return bad("number of events out of range");
	if (h->cycles < PCTR_STATS_TIME || h->cycles >= (int32_t)h->nr)
		return bad("cycle basis out of range");
	if (h->keep > (1u << 24) || h->kept > h->keep ||
	    h->kept != (h->seen < h->keep ? h->seen : h->keep))
		return bad("reservoir sizes inconsistent");
	if (h->tsc_hz == 0)
		return bad("zero timestamp counter frequency");
	if (pack_len(h->version, (int)h->nr, h->kept,
		     h->flags & PACK_REGION) != len)
		return bad("length does not match its number of events and "
			   "flags");
	return 0;
}

static int
get_welford(struct cursor *c, struct pctr__welford *w)
{
	w->n = get_u64(c);
	w->min = get_double(c);
	w->max = get_double(c);
	w->mean = get_double(c);
	w->m2 = get_double(c);
	if (!isfinite(w->min) || !isfinite(w->max) || !isfinite(w->mean) ||
	    !isfinite(w->m2) || w->m2 < 0.0)
		return bad("a mean or variance is not a finite number");
	if (w->n && w->min > w->max)
		return bad("a minimum is above its maximum");
	return 0;
}

static pctr__u128
get_u128(struct cursor *c)
{
	pctr__u128 lo = get_u64(c);

	return lo | (pctr__u128)get_u64(c) << 64;
}

/* the sums of @n intervals agree with each other (both versions) */
static int
check_series(struct pctr__series *s, uint64_t n)
{
	if (n == 0 && (s->total || s->min || s->max || s->sq))
		return bad("sums of no interval are not 0");
	if (n && s->min > s->max)
		return bad("a count's minimum is above its maximum");
	/* n min <= sum x <= n max, and sum(x^2) <= (sum x)^2 */
	if (n && ((pctr__u128)n * s->min > s->total ||
		  (pctr__u128)n * s->max < s->total ||
		  (pctr__u128)s->total * s->total < s->sq))
		return bad("a count's sums disagree");
	if (n == 0)
		s->min = UINT64_MAX;
	return 0;
}

static int
get_series(struct cursor *c, struct pctr__series *s, uint64_t n)
{
	s->total = get_u64(c);
	s->min = get_u64(c);
	s->max = get_u64(c);
	s->sq = get_u128(c);
	s->overhead = get_u64(c);
	return check_series(s, n);
}

/*
 * Version 1: a Welford state of x - origin back to sums.  The sum of
 * squares is sum((d + o)^2) = m2 + n mean^2 + 2 o n mean + n o^2 with d
 * = x - o, in long double and rounded: exact while the doubles were.
 */
static int
get_series1(struct cursor *c, struct pctr__series *s, uint64_t *n)
{
	struct pctr__welford w;
	int r = get_welford(c, &w);
	uint64_t origin = get_u64(c);
	long double sd, sq;

	s->total = get_u64(c);
	s->min = get_u64(c);
	s->max = get_u64(c);
	s->overhead = get_u64(c);
	*n = w.n;
	if (r < 0)
		return r;
	if (w.n && (s->min > s->max || origin < s->min || origin > s->max))
		return bad("a count's minimum, origin and maximum disagree");
	sd = (long double)w.n * w.mean;
	sq = (long double)w.m2 + sd * w.mean + 2.0L * origin * sd +
	     (long double)w.n * origin * origin;
	/* no sum of squares is above the square of the sum (and a u128) */
	if (sq > (long double)s->total * (long double)s->total)
		return bad("a count's sums disagree");
	s->sq = w.n && sq > 0.0L ? (pctr__u128)(sq + 0.5L) : 0;
	if (w.n == 0) {
		pctr__series_empty(s);
		return 0;
	}
	/* what version 2 would hold, held to what version 2 is */
	return check_series(s, w.n);
}

static int
get_names(struct cursor *c, struct pctr_stats *st)
{
	for (int i = 0; i < st->nr; i++) {
		const char *name = (const char *)c->r + c->at;
		uint64_t flags;

		size_t len = strnlen(name, PCTR_NAME_MAX);

		if (len == 0 || len == PCTR_NAME_MAX)
			return bad("an event name is empty or not terminated");
		/* NUL-padded: one pack for one set of statistics */
		for (size_t k = len; k < PCTR_NAME_MAX; k++)
			if (name[k])
				return bad("an event name is not NUL-padded");
		memcpy(st->name[i], name, PCTR_NAME_MAX);
		c->at += PCTR_NAME_MAX;
		flags = get_u64(c);
		if (flags > 1)
			return bad("unknown event flags set");
		st->hardware[i] = flags & 1;
	}
	return 0;
}

/*
 * Version 1: every event's series has one value per interval, as the
 * ticks' have; the derived series leave some intervals out (zero time,
 * zero cycles, zero denominator), never add one.  Read to be checked,
 * then left: means of per-interval ratios give no cross sums.
 */
static int
get_derived(struct cursor *c, struct pctr__welford *w, int nr, uint64_t n)
{
	int r = 0;

	for (int i = 0; r == 0 && i < nr; i++) {
		r = get_welford(c, &w[i]);
		if (r == 0 && w[i].n > n)
			r = bad("a rate has more intervals than the counts");
	}
	return r;
}

static int
get_kept(struct cursor *c, struct pctr_stats *st, uint64_t kept)
{
	for (int row = 0; row <= st->nr; row++) {
		for (uint64_t k = 0; k < kept; k++) {
			double x = get_double(c);

			if (!isfinite(x))
				return bad("a kept interval is not a finite "
					   "number");
			st->kept[(size_t)row * st->keep + k] = x;
		}
	}
	return 0;
}

static int
get_spread(struct cursor *c, double *sd)
{
	*sd = get_double(c);
	if (!isfinite(*sd) || *sd < 0.0)
		return bad("an overhead spread is not a finite number of 0 or "
			   "more");
	return 0;
}

static int
get_region(struct cursor *c, struct pctr_stats *st)
{
	uint32_t drop;
	int r;

	st->disturbed = get_u64(c);
	st->detect = get_u32(c);
	drop = get_u32(c);
	if ((st->detect & ~DETECT_ALL) || drop > 1)
		return bad("unknown checks for disturbed intervals");
	st->drop = drop;
	r = get_spread(c, &st->time.overhead_sd);
	for (int i = 0; r == 0 && i < st->nr; i++)
		r = get_spread(c, &st->ev[i].overhead_sd);
	return r;
}

static int
get_body1(struct cursor *c, struct pctr_stats *st)
{
	struct pctr__welford *w;
	int nw = 2 * st->nr + st->nr_ratio * st->nr_ratio, r;
	uint64_t n, m;

	r = get_series1(c, &st->time, &n);
	for (int i = 0; r == 0 && i < st->nr; i++) {
		r = get_series1(c, &st->ev[i], &m);
		if (r == 0 && m != n)
			r = bad("series of different numbers of intervals");
	}
	if (r < 0)
		return r;
	w = malloc(nw * sizeof(*w));
	if (!w)
		return pctr__error(ENOMEM, "out of memory unpacking "
					   "statistics");
	r = get_derived(c, w, nw, n);
	for (int k = 0; r == 0 && k < nw; k++)
		if (w[k].n)
			st->ext[k] = (struct pctr__extreme){ w[k].min,
							     w[k].max };
	free(w);
	st->n = n;
	st->no_cross = n > 0;
	return r;
}

/* @a and @b are the same 64 bits (NaNs of other payloads are not) */
static bool
same_bits(double a, double b)
{
	uint64_t x, y;

	memcpy(&x, &a, sizeof(x));
	memcpy(&y, &b, sizeof(y));
	return x == y;
}

static int
get_body2(struct cursor *c, struct pctr_stats *st)
{
	uint64_t flags;
	int r = 0;

	st->n = get_u64(c);
	flags = get_u64(c);
	if (flags > 3)
		return bad("unknown sums flags set");
	st->no_cross = flags & 1;
	st->no_extremes = flags & 2;
	r = get_series(c, &st->time, st->n);
	for (int i = 0; r == 0 && i < st->nr; i++)
		r = get_series(c, &st->ev[i], st->n);
	for (int i = 0; i < st->nr; i++)
		st->xt[i] = get_u128(c);
	for (int i = 0; i < st->nr; i++) {
		st->xc[i] = get_u128(c);
		/* one pack for one set of statistics: the writer's 0 */
		if (r == 0 && st->cycles == PCTR_STATS_TIME && st->xc[i])
			r = bad("a sum against the cycle basis is not 0 "
				"where the basis is the ticks");
	}
	for (int k = 0; k < pctr__pairs(st->nr_ratio); k++)
		st->xy[k] = get_u128(c);
	for (int k = 0; k < pctr__extremes_nr(st->nr, st->nr_ratio); k++) {
		double lo = get_double(c), hi = get_double(c);

		if (isnan(lo) && isnan(hi)) {
			/* none: the writer's NAN, bit for bit */
			if (r == 0 && (!same_bits(lo, NAN) ||
				       !same_bits(hi, NAN)))
				r = bad("an empty extreme is not the NaN "
					"written for none");
			continue;
		}
		if (r == 0 && (!isfinite(lo) || !isfinite(hi) || lo > hi))
			r = bad("a rate's or ratio's extremes are not finite "
				"numbers, minimum first");
		st->ext[k] = (struct pctr__extreme){ lo, hi };
	}
	return r;
}

static int
get_body(struct cursor *c, struct pctr_stats *st, uint32_t version,
	 uint64_t kept)
{
	int r = get_names(c, st);

	if (r == 0)
		r = version == 1 ? get_body1(c, st) : get_body2(c, st);
	if (r == 0 && st->seen > st->n)
		r = bad("more intervals offered to the reservoir than counted");
	return r < 0 ? r : get_kept(c, st, kept);
}

PCTR_EXPORT int
pctr_stats_unpack(struct pctr_stats **stp, const void *buf, size_t len)
{
	struct cursor c = { .r = buf };
	struct header h = { 0 };
	int r;

	if (!stp || !buf)
		return pctr__error(EINVAL, "NULL statistics pointer or buffer");
	*stp = NULL;
	r = check_header(&c, len, &h);
	if (r == 0)
		r = check_figures(&h, len);
	if (r == 0)
		r = pctr_stats_new(stp, (int)h.nr, h.keep);
	if (r < 0)
		return r;
	(*stp)->cycles = h.cycles;
	(*stp)->seen = h.seen;
	(*stp)->tsc_hz = h.tsc_hz;
	r = get_body(&c, *stp, h.version, h.kept);
	if (r == 0 && (h.flags & PACK_REGION))
		r = get_region(&c, *stp);
	if (r < 0) {
		pctr_stats_free(*stp);
		*stp = NULL;
	}
	return r;
}
