/* SPDX-License-Identifier: MIT */
/*
 * stats_pack.c - statistics as bytes, to send to another process or host
 * (the ranks of an MPI job) and rebuild there: pctr_stats_pack() and
 * pctr_stats_unpack().
 *
 * The layout is fixed and little-endian whatever the host, every field at
 * an offset that follows from the header alone; doubles travel as their
 * IEEE-754 bit patterns, counts as uint64.  Version 1 (doc/stats-pack.md
 * has the table):
 *
 *   header, 64 bytes:
 *     0  magic "PCTRSTAT"     8 bytes
 *     8  version              u32, 1
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
 *   series, 80 bytes each, the elapsed ticks first, then each event:
 *     n u64, min, max, mean, m2 (doubles: Welford's state of x - origin),
 *     origin, total, min, max, overhead (u64)
 *   Welford states, 40 bytes each (n, min, max, mean, m2): per second of
 *     each event, per cycle of each event, then the pair ratios,
 *     min(nr, PCTR_STATS_RATIO_MAX) squared, numerator-major
 *   the reservoir: (nr + 1) rows of @kept doubles, the ticks' row first
 *   with flag bit 0, the region part, 16 + 8 * (nr + 1) bytes: disturbed
 *     intervals u64, the checks in force u32 (bits 0..3: switch, page,
 *     mux, kernel), dropped u32 (0 or 1), then the overhead's spread,
 *     doubles, the ticks' first (region.c, pctr_stats_overhead_spread())
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
#define SERIES_LEN (WELFORD_LEN + 40)
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

/* bytes of a pack of @nr events and @kept reservoir slots */
static uint64_t
pack_len(int nr, uint64_t kept, bool region)
{
	uint64_t nrr = (uint64_t)ratio_nr(nr);

	return HEADER_LEN + (uint64_t)nr * EVENT_LEN +
	       (uint64_t)(nr + 1) * SERIES_LEN +
	       (2 * (uint64_t)nr + nrr * nrr) * WELFORD_LEN +
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
put_welford(struct cursor *c, const struct pctr__welford *w)
{
	put_u64(c, w->n);
	put_double(c, w->min);
	put_double(c, w->max);
	put_double(c, w->mean);
	put_double(c, w->m2);
}

static void
put_series(struct cursor *c, const struct pctr__series *s)
{
	put_welford(c, &s->w);
	put_u64(c, s->origin);
	put_u64(c, s->total);
	put_u64(c, s->min);
	put_u64(c, s->max);
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
	put_series(c, &st->time);
	for (int i = 0; i < st->nr; i++)
		put_series(c, &st->ev[i]);
	for (int i = 0; i < st->nr; i++)
		put_welford(c, &st->per_sec[i]);
	for (int i = 0; i < st->nr; i++)
		put_welford(c, &st->per_cyc[i]);
	for (int k = 0; k < st->nr_ratio * st->nr_ratio; k++)
		put_welford(c, &st->ratio[k]);
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
	need = pack_len(st->nr, kept_nr(st), has_region(st));
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
	uint32_t nr, keep, kept, flags;
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
	version = get_u32(c);
	h->flags = get_u32(c);
	declared = get_u64(c);
	if (version != PCTR_STATS_PACK_VERSION)
		return pctr__error(EINVAL, "statistics pack of version %u; "
					   "this library reads version %d",
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
	if (pack_len((int)h->nr, h->kept, h->flags & PACK_REGION) != len)
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

static int
get_series(struct cursor *c, struct pctr__series *s)
{
	int r = get_welford(c, &s->w);

	s->origin = get_u64(c);
	s->total = get_u64(c);
	s->min = get_u64(c);
	s->max = get_u64(c);
	s->overhead = get_u64(c);
	if (r < 0)
		return r;
	if (s->w.n && (s->min > s->max || s->origin < s->min ||
		  s->origin > s->max))
		return bad("a count's minimum, origin and maximum disagree");
	return 0;
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
 * Every event's series has one value per interval, as the ticks' have;
 * the derived series leave some intervals out (zero time, zero cycles,
 * zero denominator), never add one.
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
get_body(struct cursor *c, struct pctr_stats *st, uint64_t kept)
{
	int r = get_names(c, st);
	uint64_t n;

	if (r == 0)
		r = get_series(c, &st->time);
	n = st->time.w.n;
	for (int i = 0; r == 0 && i < st->nr; i++) {
		r = get_series(c, &st->ev[i]);
		if (r == 0 && st->ev[i].w.n != n)
			r = bad("series of different numbers of intervals");
	}
	if (r == 0)
		r = get_derived(c, st->per_sec, st->nr, n);
	if (r == 0)
		r = get_derived(c, st->per_cyc, st->nr, n);
	if (r == 0)
		r = get_derived(c, st->ratio, st->nr_ratio * st->nr_ratio, n);
	if (r == 0 && st->seen > n)
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
	r = get_body(&c, *stp, h.kept);
	if (r == 0 && (h.flags & PACK_REGION))
		r = get_region(&c, *stp);
	if (r < 0) {
		pctr_stats_free(*stp);
		*stp = NULL;
	}
	return r;
}
