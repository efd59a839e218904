/* SPDX-License-Identifier: MIT */
/*
 * stats.c - accumulating intervals: counter += t1 - t0, with statistics.
 *
 * An interval only adds to integer sums (stats.h, pctr__stats_add_net()):
 * per event and for the elapsed ticks the total, the sum of squares, the
 * minimum and maximum; per event the sum of its products with the ticks
 * and with the cycle basis, and for the first PCTR_STATS_RATIO_MAX events
 * the sums of their pairwise products.  Means, variances, rates and ratios
 * are derived from the sums when they are asked for, so that a region's
 * end costs a few adds and multiplies per event.  Nothing is allocated
 * after pctr_stats_new(): percentiles come from a reservoir of a fixed
 * number of intervals.
 *
 * Rates (per second, per cycle) and ratios are ratio-of-sums estimators:
 * R = sum(x) / sum(y) over the intervals, each interval weighted by its
 * length, the estimator of a ratio of totals of survey sampling.  Its
 * standard error is the delta method's (first-order Taylor expansion):
 * se(R)^2 = sum((x_i - R y_i)^2) / (n (n - 1) ybar^2) (W. G. Cochran,
 * Sampling Techniques, 3rd ed., 1977, section 6.3, eq. 6.9 and 6.13, the
 * finite population correction left out), computed from the sums as
 * Cxx - 2 R Cxy + R^2 Cyy of the centred second moments.  The summary's
 * stddev is se * sqrt(n): the spread of one interval's linearised ratio.
 * Before, each interval's ratio was averaged (mean of ratios), which
 * weighs a short interval as much as a long one and needs a division
 * and a Welford update per interval and ratio.
 *
 * The minimum and maximum of a rate or ratio are those of single
 * intervals: sums cannot give them.  pctr_stats_add() and _add_values()
 * keep them (a division per rate and ratio, as pmc_lib did); a region's
 * end does not (no_extremes), and its come from the reservoir of kept
 * intervals while that holds every interval (keep >= intervals), NaN
 * otherwise.
 *
 * Overhead (pmc_lib's -Clean method): the smallest difference of two reads
 * in a row is what measuring costs; pctr_stats_add() takes it off every
 * interval and clamps at zero, since an interval cannot cost less than
 * nothing.  What one interval's measuring really cost is uncertain by the
 * calibration's spread (its standard deviation): pctr_stats_get() adds it
 * in quadrature to the mean's standard error (overhead_uncertain()).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"

void
pctr__welford_add(struct pctr__welford *w, double x)
{
	double delta = x - w->mean;

	if (w->n == 0 || x < w->min)
		w->min = x;
	if (w->n == 0 || x > w->max)
		w->max = x;
	w->n++;
	w->mean += delta / (double)w->n;
	w->m2 += delta * (x - w->mean);
}

/* Chan, Golub and LeVeque's pairwise update of mean and m2. */
void
pctr__welford_merge(struct pctr__welford *dst, const struct pctr__welford *src)
{
	double n1 = (double)dst->n, n2 = (double)src->n, n = n1 + n2;
	double delta = src->mean - dst->mean;

	if (src->n == 0)
		return;
	if (dst->n == 0) {
		*dst = *src;
		return;
	}
	dst->mean += delta * n2 / n;
	dst->m2 += src->m2 + delta * delta * n1 * n2 / n;
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
	dst->n += src->n;
}

/*
 * The uncertainty of the mean from n, mean and stddev: its standard error
 * s / sqrt(n) and the interval mean -/+ t(0.975, n - 1) * s / sqrt(n),
 * which holds the true mean in 95% of experiments when the values are
 * independent and roughly normal (Student 1908).  One value has no spread
 * to estimate: NaN, never a made-up 0.
 */
void
pctr__summary_interval(struct pctr_summary *out)
{
	double half;

	if (out->n < 2) {
		out->std_error = out->ci95_low = out->ci95_high = NAN;
		return;
	}
	out->std_error = out->stddev / sqrt((double)out->n);
	half = pctr__t975(out->n - 1) * out->std_error;
	out->ci95_low = out->mean - half;
	out->ci95_high = out->mean + half;
}

void
pctr__welford_summary(const struct pctr__welford *w, double total,
		      struct pctr_summary *out)
{
	out->n = w->n;
	out->total = total;
	out->min = w->n ? w->min : 0.0;
	out->max = w->n ? w->max : 0.0;
	out->mean = w->n ? w->mean : 0.0;
	out->stddev = w->n > 1 ? sqrt(w->m2 / (double)(w->n - 1)) : 0.0;
	pctr__summary_interval(out);
}

/* b - a of two sums, as a double, without losing the sign */
static double
signed_diff(pctr__u128 b, pctr__u128 a)
{
	return b >= a ? (double)(b - a) : -(double)(a - b);
}

/*
 * The centred cross moment sum(x y) - X Y / n, from the integer sums:
 * with X = qx n + rx and Y = qy n + ry (0 <= rx, ry < n), X Y / n is the
 * integer qx Y + rx qy plus rx ry / n, which is below n.  So the only
 * rounding is that of a difference already centred: identical intervals
 * give exactly 0, and counts near 2^64 lose no more digits than their
 * spread has.  With x = y it is the sum of squared deviations (m2).
 */
static double
centred(uint64_t n, pctr__u128 sxy, uint64_t x, uint64_t y)
{
	uint64_t qx = x / n, rx = x % n, qy = y / n, ry = y % n;
	pctr__u128 whole = (pctr__u128)qx * y + (pctr__u128)rx * qy;

	return signed_diff(sxy, whole) - (double)rx * (double)ry / (double)n;
}

double
pctr__series_mean(const struct pctr_stats *st, const struct pctr__series *s)
{
	if (!st->n)
		return 0.0;
	return (double)(s->total / st->n) +
	       (double)(s->total % st->n) / (double)st->n;
}

double
pctr__series_sd(const struct pctr_stats *st, const struct pctr__series *s)
{
	double m2;

	if (st->n < 2)
		return 0.0;
	m2 = centred(st->n, s->sq, s->total, s->total);
	return m2 > 0.0 ? sqrt(m2 / (double)(st->n - 1)) : 0.0;
}

/* a series with no interval: its sums zero, its minimum above any value */
void
pctr__series_empty(struct pctr__series *s)
{
	s->total = 0;
	s->sq = 0;
	s->min = UINT64_MAX;
	s->max = 0;
}

static void
series_merge(struct pctr__series *dst, const struct pctr__series *src)
{
	dst->total += src->total;
	dst->sq += src->sq;
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
}

/* ---- life ----------------------------------------------------------- */

static int
stats_alloc(struct pctr_stats *st, int nr, unsigned int keep)
{
	st->nr = nr;
	st->nr_ratio = nr < PCTR_STATS_RATIO_MAX ? nr : PCTR_STATS_RATIO_MAX;
	st->keep = keep;
	st->name = calloc(nr, sizeof(*st->name));
	st->ev = calloc(nr, sizeof(*st->ev));
	st->xt = calloc(nr, sizeof(*st->xt));
	st->xc = calloc(nr, sizeof(*st->xc));
	st->xy = calloc(pctr__pairs(st->nr_ratio) + 1, sizeof(*st->xy));
	st->ext = calloc(pctr__extremes_nr(nr, st->nr_ratio), sizeof(*st->ext));
	st->kept = keep ? calloc((size_t)(nr + 1) * keep, sizeof(double))
			: NULL;
	if (!st->name || !st->ev || !st->xt || !st->xc || !st->xy || !st->ext ||
	    (keep && !st->kept))
		return pctr__error(ENOMEM, "out of memory for statistics of "
					   "%d events",
				   nr);
	return 0;
}

/* write each page of @p's @len bytes once, keeping what they hold */
static void
touch_pages(void *p, size_t len)
{
	volatile char *c = p;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t off = 0; off < len; off += page)
		c[off] = c[off];
	if (len)
		c[len - 1] = c[len - 1];
}

/*
 * Every page of @st written now.  calloc() leaves pages it knows to be
 * zero (a fresh mapping, fresh heap) untouched, so their first write, at
 * whichever add reaches them, would be a page fault counted in what is
 * being measured then: a region's statistics are made in a pause of the
 * regions around it, but first added to at its end, inside them (all of
 * @keep's rows at once, a slot of each a page apart).
 */
void
pctr__stats_touch(struct pctr_stats *st)
{
	touch_pages(st, sizeof(*st));
	touch_pages(st->name, st->nr * sizeof(*st->name));
	touch_pages(st->ev, st->nr * sizeof(*st->ev));
	touch_pages(st->xt, st->nr * sizeof(*st->xt));
	touch_pages(st->xc, st->nr * sizeof(*st->xc));
	touch_pages(st->xy, (pctr__pairs(st->nr_ratio) + 1) * sizeof(*st->xy));
	touch_pages(st->ext, pctr__extremes_nr(st->nr, st->nr_ratio) *
				     sizeof(*st->ext));
	if (st->kept)
		touch_pages(st->kept,
			    (size_t)(st->nr + 1) * st->keep * sizeof(*st->kept));
}

PCTR_EXPORT void
pctr_stats_free(struct pctr_stats *st)
{
	if (!st)
		return;
	free(st->name);
	free(st->ev);
	free(st->xt);
	free(st->xc);
	free(st->xy);
	free(st->ext);
	free(st->kept);
	free(st);
}

PCTR_EXPORT int
pctr_stats_new(struct pctr_stats **stp, int nr_events, unsigned int keep)
{
	struct pctr_stats *st;
	int r;

	if (!stp)
		return pctr__error(EINVAL, "NULL statistics pointer");
	*stp = NULL;
	if (nr_events < 1 || nr_events > PCTR_MAX_EVENTS)
		return pctr__error(EINVAL, "statistics need 1 to %d events, "
					   "not %d",
				   PCTR_MAX_EVENTS, nr_events);
	if (keep > (1u << 24))
		return pctr__error(EINVAL, "cannot keep %u intervals for "
					   "percentiles (at most %u)",
				   keep, 1u << 24);
	st = calloc(1, sizeof(*st));
	if (!st)
		return pctr__error(ENOMEM, "out of memory for statistics");
	r = stats_alloc(st, nr_events, keep);
	if (r < 0) {
		pctr_stats_free(st);
		return r;
	}
	st->cycles = PCTR_STATS_TIME;
	pctr__series_empty(&st->time);
	for (int i = 0; i < nr_events; i++)
		pctr__series_empty(&st->ev[i]);
	pctr__extremes_reset(st);
	st->tsc_hz = pctr_tsc_hz();
	st->rng = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < nr_events; i++)
		snprintf(st->name[i], PCTR_NAME_MAX, "event %d", i);
	*stp = st;
	return 0;
}

static bool
is_cycles(const struct pctr_event *ev)
{
	return ev->type == PERF_TYPE_HARDWARE &&
	       (ev->config & 0xffffffffu) == PERF_COUNT_HW_CPU_CYCLES;
}

/* statistics of the first @nr events of @set (regions: not their meter) */
int
pctr__stats_new_for_events(struct pctr_stats **stp, const struct pctr_set *set,
			   int nr, unsigned int keep)
{
	int r = pctr_stats_new(stp, nr, keep);

	if (r < 0)
		return r;
	for (int i = 0; i < nr; i++) {
		const struct pctr_event *ev = pctr_set_event(set, i);
		char name[PCTR_NAME_MAX + 2];

		pctr_event_display_name(ev, name, sizeof(name));
		pctr_stats_name_set(*stp, i, name);
		(*stp)->hardware[i] = ev->hardware;
		if (is_cycles(ev) && (*stp)->cycles == PCTR_STATS_TIME)
			(*stp)->cycles = i;
	}
	return 0;
}

PCTR_EXPORT int
pctr_stats_new_for_set(struct pctr_stats **stp, const struct pctr_set *set,
		       unsigned int keep)
{
	int nr = pctr_set_nr(set);

	if (nr < 0)
		return nr;
	return pctr__stats_new_for_events(stp, set, nr, keep);
}

static int
check_index(const struct pctr_stats *st, int idx, bool time_ok)
{
	if (!st)
		return pctr__error(EINVAL, "NULL statistics");
	if ((idx == PCTR_STATS_TIME && time_ok) || (idx >= 0 && idx < st->nr))
		return 0;
	return pctr__error(ERANGE, "event index %d out of range (0..%d%s)",
			   idx, st->nr - 1,
			   time_ok ? " or PCTR_STATS_TIME" : "");
}

PCTR_EXPORT int
pctr_stats_name_set(struct pctr_stats *st, int idx, const char *name)
{
	int r = check_index(st, idx, false);

	if (r < 0)
		return r;
	if (!name)
		return pctr__error(EINVAL, "NULL event name");
	snprintf(st->name[idx], PCTR_NAME_MAX, "%s", name);
	return 0;
}

PCTR_EXPORT int
pctr_stats_cycles_set(struct pctr_stats *st, int idx)
{
	int r = check_index(st, idx, true);

	if (r < 0)
		return r;
	if (st->n)
		return pctr__error(EALREADY, "the cycle basis can only change "
					     "before the first interval");
	st->cycles = idx;
	return 0;
}

PCTR_EXPORT int
pctr_stats_nr(const struct pctr_stats *st)
{
	return st ? st->nr : pctr__error(EINVAL, "NULL statistics");
}

PCTR_EXPORT const char *
pctr_stats_name(const struct pctr_stats *st, int idx)
{
	if (!st || idx < PCTR_STATS_TIME || idx >= st->nr)
		return NULL;
	return idx == PCTR_STATS_TIME ? "tsc_ticks" : st->name[idx];
}

PCTR_EXPORT int
pctr_stats_cycles(const struct pctr_stats *st)
{
	return st ? st->cycles : pctr__error(EINVAL, "NULL statistics");
}

PCTR_EXPORT int
pctr_stats_reset(struct pctr_stats *st)
{
	if (!st)
		return pctr__error(EINVAL, "NULL statistics");
	for (int i = 0; i < st->nr; i++)
		pctr__series_empty(&st->ev[i]);
	pctr__series_empty(&st->time);
	st->n = 0;
	st->no_cross = false;
	st->disturbed = 0;
	memset(st->xt, 0, st->nr * sizeof(*st->xt));
	memset(st->xc, 0, st->nr * sizeof(*st->xc));
	memset(st->xy, 0, pctr__pairs(st->nr_ratio) * sizeof(*st->xy));
	pctr__extremes_reset(st);
	st->seen = 0;
	return 0;
}

/* ---- adding intervals ---------------------------------------------- */

static uint64_t
next_random(struct pctr_stats *st)
{
	st->rng ^= st->rng >> 12;
	st->rng ^= st->rng << 25;
	st->rng ^= st->rng >> 27;
	return st->rng * 0x2545f4914f6cdd1dull;
}

/* Algorithm R: slot k of the reservoir holds row k of kept[]. */
void
pctr__stats_keep(struct pctr_stats *st, uint64_t ticks, const uint64_t *v)
{
	uint64_t k = st->seen;

	if (k >= st->keep)
		k = next_random(st) % (st->seen + 1);
	st->seen++;
	if (k >= st->keep)
		return;
	st->kept[k] = (double)ticks;
	for (int i = 0; i < st->nr; i++)
		st->kept[(size_t)(i + 1) * st->keep + k] = (double)v[i];
}

int
pctr__extremes_nr(int nr, int nr_ratio)
{
	return 2 * nr + nr_ratio * nr_ratio;
}

void
pctr__extremes_reset(struct pctr_stats *st)
{
	for (int k = 0; k < pctr__extremes_nr(st->nr, st->nr_ratio); k++)
		st->ext[k] = (struct pctr__extreme){ INFINITY, -INFINITY };
}

static void
extreme_add(struct pctr__extreme *e, uint64_t x, uint64_t y, double scale)
{
	double r;

	if (!y)
		return;
	r = (double)x / (double)y * scale;
	e->min = r < e->min ? r : e->min;
	e->max = r > e->max ? r : e->max;
}

/* each single interval's rates and ratios against the extremes so far */
void
pctr__stats_extremes(struct pctr_stats *st, uint64_t ticks, const uint64_t *v)
{
	struct pctr__extreme *sec = st->ext, *cyc = sec + st->nr;
	struct pctr__extreme *rat = cyc + st->nr;
	uint64_t c = st->cycles == PCTR_STATS_TIME ? ticks : v[st->cycles];

	for (int i = 0; i < st->nr; i++) {
		extreme_add(&sec[i], v[i], ticks, (double)st->tsc_hz);
		extreme_add(&cyc[i], v[i], c, 1.0);
	}
	for (int n = 0; n < st->nr_ratio; n++)
		for (int d = 0; d < st->nr_ratio; d++)
			if (n != d)
				extreme_add(&rat[n * st->nr_ratio + d], v[n],
					    v[d], 1.0);
}

PCTR_EXPORT int
pctr_stats_add_values(struct pctr_stats *st, uint64_t ticks,
		      const uint64_t *values)
{
	if (!st || !values)
		return pctr__error(EINVAL, "NULL statistics or values");
	pctr__stats_add_net(st, ticks, values);
	return 0;
}

/*
 * An interval's count, scaled by its own enabled/running times when the
 * event was multiplexed during it, rounded to an integer.
 */
static uint64_t
interval_count(const struct pctr_count *t1, const struct pctr_count *t0)
{
	uint64_t v = t1->value - t0->value;
	uint64_t ena = t1->enabled - t0->enabled;
	uint64_t run = t1->running - t0->running;

	if (t1->value < t0->value)
		return 0;
	if (run == 0 || run >= ena)
		return v;
	return (uint64_t)llround((double)v * (double)ena / (double)run);
}

static uint64_t
net(uint64_t x, uint64_t overhead)
{
	return x > overhead ? x - overhead : 0;
}

/* @oh_ticks and @oh[] taken off, not @st's own overhead (regions: by path) */
int
pctr__stats_add_counts(struct pctr_stats *st, uint64_t ticks,
		       const struct pctr_count *t1,
		       const struct pctr_count *t0, uint64_t oh_ticks,
		       const uint64_t *oh)
{
	uint64_t v[PCTR_MAX_EVENTS];

	for (int i = 0; i < st->nr; i++)
		v[i] = net(interval_count(&t1[i], &t0[i]), oh[i]);
	pctr__stats_add_net(st, net(ticks, oh_ticks), v);
	return 0;
}

static int
check_samples(const struct pctr_stats *st, const struct pctr_sample *t1,
	      const struct pctr_sample *t0)
{
	if (!st || !t1 || !t0)
		return pctr__error(EINVAL, "NULL statistics or sample");
	if (t1->nr != (uint32_t)st->nr || t0->nr != (uint32_t)st->nr)
		return pctr__error(EINVAL, "samples of %u and %u events for "
					   "statistics of %d",
				   t1->nr, t0->nr, st->nr);
	if (t1->tsc < t0->tsc)
		return pctr__error(EINVAL, "the second sample was taken before "
					   "the first (pass t1, then t0)");
	return 0;
}

PCTR_EXPORT int
pctr_stats_add(struct pctr_stats *st, const struct pctr_sample *t1,
	       const struct pctr_sample *t0)
{
	uint64_t oh[PCTR_MAX_EVENTS];
	int r = check_samples(st, t1, t0);

	if (r < 0)
		return r;
	for (int i = 0; i < st->nr; i++)
		oh[i] = st->ev[i].overhead;
	return pctr__stats_add_counts(st, t1->tsc - t0->tsc, t1->count,
				      t0->count, st->time.overhead, oh);
}

/* ---- merging -------------------------------------------------------- */

static double *
kept_row(const struct pctr_stats *st, int row, uint64_t k)
{
	return &st->kept[(size_t)row * st->keep + k];
}

static void
keep_copy(struct pctr_stats *dst, uint64_t k, const struct pctr_stats *src,
	  const double *from, uint64_t j)
{
	for (int row = 0; row <= dst->nr; row++)
		*kept_row(dst, row, k) = from[(size_t)row * src->keep + j];
}

/*
 * Reservoirs of n1 and n2 intervals: concatenated while they fit; beyond,
 * each slot is drawn from src with probability n2 / (n1 + n2), which keeps
 * the merged reservoir a uniform sample of both.
 */
static int
keep_merge(struct pctr_stats *dst, const struct pctr_stats *src)
{
	uint64_t m1 = dst->seen < dst->keep ? dst->seen : dst->keep;
	uint64_t m2 = src->seen < src->keep ? src->seen : src->keep;
	uint64_t total = dst->seen + src->seen;
	size_t len = (size_t)(dst->nr + 1) * dst->keep * sizeof(double);
	double *old;

	if (!dst->keep || !src->keep || !src->seen)
		return 0;
	if (total <= dst->keep && src->keep == dst->keep) {
		for (uint64_t j = 0; j < m2; j++)
			keep_copy(dst, m1 + j, src, src->kept, j);
		dst->seen = total;
		return 0;
	}
	old = malloc(len);
	if (!old)
		return pctr__error(ENOMEM, "out of memory merging percentiles");
	memcpy(old, dst->kept, len);
	for (uint64_t k = 0; k < dst->keep; k++) {
		if (m1 && next_random(dst) % total >= src->seen)
			keep_copy(dst, k, dst, old, next_random(dst) % m1);
		else
			keep_copy(dst, k, src, src->kept,
				  next_random(dst) % m2);
	}
	free(old);
	dst->seen = total;
	return 0;
}

/* the smaller overhead is the one known to be paid; the wider spread */
static void
overhead_merge(struct pctr__series *dst, const struct pctr__series *src)
{
	if (src->overhead < dst->overhead)
		dst->overhead = src->overhead;
	if (src->overhead_sd > dst->overhead_sd)
		dst->overhead_sd = src->overhead_sd;
}

/*
 * Disturbed intervals add up; the detectors are those both were gathered
 * with (statistics that hold nothing yet take the other's).
 */
static void
disturbed_merge(struct pctr_stats *dst, const struct pctr_stats *src)
{
	if (dst->n == 0 && dst->disturbed == 0) {
		dst->detect = src->detect;
		dst->drop = src->drop;
	} else if (src->n || src->disturbed) {
		dst->detect &= src->detect;
	}
	dst->disturbed += src->disturbed;
}

/*
 * The same events in the same order, on the same cycle basis: statistics
 * that come from elsewhere (another rank's pack) are matched by name, so
 * that page faults are never added to task time.
 */
static int
check_mergeable(const struct pctr_stats *dst, const struct pctr_stats *src)
{
	if (dst->nr != src->nr)
		return pctr__error(EINVAL, "cannot merge statistics of %d "
					   "events into statistics of %d",
				   src->nr, dst->nr);
	for (int i = 0; i < dst->nr; i++)
		if (strcmp(dst->name[i], src->name[i]))
			return pctr__error(EINVAL, "cannot merge statistics "
						   "of '%s' into those of "
						   "'%s' (event %d)",
					   src->name[i], dst->name[i], i);
	if (dst->cycles != src->cycles)
		return pctr__error(EINVAL, "cannot merge statistics whose "
					   "cycles are event %d into those "
					   "whose cycles are event %d",
				   src->cycles, dst->cycles);
	return 0;
}

PCTR_EXPORT int
pctr_stats_merge(struct pctr_stats *dst, const struct pctr_stats *src)
{
	int r;

	if (!dst || !src)
		return pctr__error(EINVAL, "NULL statistics");
	r = check_mergeable(dst, src);
	if (r == 0)
		r = keep_merge(dst, src);
	if (r < 0)
		return r;
	disturbed_merge(dst, src);
	if (src->n)
		dst->no_cross |= src->no_cross;
	if (src->n)
		dst->no_extremes |= src->no_extremes;
	for (int k = 0; k < pctr__extremes_nr(dst->nr, dst->nr_ratio); k++) {
		struct pctr__extreme *a = &dst->ext[k];
		const struct pctr__extreme *b = &src->ext[k];

		a->min = b->min < a->min ? b->min : a->min;
		a->max = b->max > a->max ? b->max : a->max;
	}
	dst->n += src->n;
	series_merge(&dst->time, &src->time);
	overhead_merge(&dst->time, &src->time);
	for (int i = 0; i < dst->nr; i++) {
		series_merge(&dst->ev[i], &src->ev[i]);
		overhead_merge(&dst->ev[i], &src->ev[i]);
		dst->xt[i] += src->xt[i];
		dst->xc[i] += src->xc[i];
	}
	for (int k = 0; k < pctr__pairs(dst->nr_ratio); k++)
		dst->xy[k] += src->xy[k];
	return 0;
}

int
pctr__stats_clone(const struct pctr_stats *src, struct pctr_stats **dst)
{
	int r = pctr_stats_new(dst, src->nr, src->keep);

	if (r < 0)
		return r;
	memcpy((*dst)->name, src->name, src->nr * sizeof(*src->name));
	memcpy((*dst)->hardware, src->hardware, sizeof(src->hardware));
	(*dst)->cycles = src->cycles;
	(*dst)->time.overhead = src->time.overhead;
	(*dst)->time.overhead_sd = src->time.overhead_sd;
	for (int i = 0; i < src->nr; i++) {
		(*dst)->ev[i].overhead = src->ev[i].overhead;
		(*dst)->ev[i].overhead_sd = src->ev[i].overhead_sd;
	}
	return pctr_stats_merge(*dst, src);
}

/* ---- results -------------------------------------------------------- */

const struct pctr__series *
pctr__stats_series(const struct pctr_stats *st, int idx)
{
	return idx == PCTR_STATS_TIME ? &st->time : &st->ev[idx];
}

#define SUMMARY_SIZED PCTR__SIZED(pctr_summary, PCTR_SUMMARY_SIZE_VER0)

/*
 * Every interval had the same overhead @sd taken off, where what each
 * really cost spread with standard deviation @sd: an uncertainty that does
 * not shrink with more intervals (the same number is taken off all of
 * them).  It is combined with the mean's standard error in quadrature, as
 * independent standard uncertainties are (JCGM 100:2008, the GUM, 5.1.2),
 * and the interval is t(0.975, n - 1) times the combined one.
 */
static void
overhead_uncertain(struct pctr_summary *out, double sd)
{
	double half;

	if (!(sd > 0.0) || out->n < 2)
		return;
	out->std_error = sqrt(out->std_error * out->std_error + sd * sd);
	half = pctr__t975(out->n - 1) * out->std_error;
	out->ci95_low = out->mean - half;
	out->ci95_high = out->mean + half;
}

/* the figures go into a struct of the library's, then the caller's size */
static int
check_out(const struct pctr_stats *st, int idx, bool time_ok,
	  const struct pctr_summary *out)
{
	int r = check_index(st, idx, time_ok);

	if (r < 0)
		return r;
	return pctr__struct_check(&SUMMARY_SIZED, out);
}

PCTR_EXPORT int
pctr_stats_get(const struct pctr_stats *st, int idx,
	       struct pctr_summary *uout)
{
	struct pctr_summary full = { .size = sizeof(full) }, *out = &full;
	const struct pctr__series *s;
	int r = check_out(st, idx, true, uout);

	if (r < 0)
		return r;
	s = pctr__stats_series(st, idx);
	out->n = st->n;
	out->total = (double)s->total;
	out->min = st->n ? (double)s->min : 0.0;
	out->max = st->n ? (double)s->max : 0.0;
	out->mean = pctr__series_mean(st, s);
	out->stddev = pctr__series_sd(st, s);
	pctr__summary_interval(out);
	overhead_uncertain(out, s->overhead_sd);
	return pctr__struct_out(&SUMMARY_SIZED, uout, out);
}

PCTR_EXPORT int
pctr_values_summary(const double *x, size_t n, struct pctr_summary *uout)
{
	struct pctr_summary full = { .size = sizeof(full) };
	struct pctr__welford w = { 0 };
	double total = 0.0;
	int r;

	if (!x && n)
		return pctr__error(EINVAL, "NULL values");
	r = pctr__struct_check(&SUMMARY_SIZED, uout);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		pctr__welford_add(&w, x[i]);
		total += x[i];
	}
	pctr__welford_summary(&w, total, &full);
	return pctr__struct_out(&SUMMARY_SIZED, uout, &full);
}

static double
quotient(double num, double den)
{
	return den != 0.0 ? num / den : 0.0;
}

/*
 * A rate or ratio: x over y, interval by interval.  Rows of the reservoir
 * (0 the ticks, 1 + i event i), the cross sum, and the factor that makes
 * the unit (the TSC frequency for a rate per second).
 */
struct quot {
	const struct pctr__extreme *ext;
	int xrow, yrow;
	const struct pctr__series *x, *y;
	pctr__u128 sxy;
	double scale;
};

/* the smallest and largest single-interval ratio, if every one was kept */
static void
quot_extremes(const struct pctr_stats *st, const struct quot *q,
	      struct pctr_summary *out)
{
	out->min = out->max = NAN;
	if (!st->no_extremes) {
		if (q->ext->min <= q->ext->max) {
			out->min = q->ext->min;
			out->max = q->ext->max;
		}
		return;
	}
	if (!st->keep || st->seen != st->n || st->seen > st->keep)
		return;
	for (uint64_t k = 0; k < st->seen; k++) {
		double x = st->kept[(size_t)q->xrow * st->keep + k];
		double y = st->kept[(size_t)q->yrow * st->keep + k];
		double r = x / y * q->scale;

		if (y == 0.0)
			continue;
		if (!(r >= out->min))
			out->min = r;
		if (!(r <= out->max))
			out->max = r;
	}
}

/*
 * The ratio of sums and its delta-method spread (see the top): the
 * residuals x_i - R y_i have the sum of squares Cxx - 2 R Cxy + R^2 Cyy,
 * from the centred moments (rounding can take a residual sum of 0 a hair
 * below: it is clamped).
 */
static void
quot_summary(const struct pctr_stats *st, const struct quot *q,
	     struct pctr_summary *out)
{
	uint64_t n = st->n;
	double r, cxx, cyy, cxy, res;

	*out = (struct pctr_summary){ .size = out->size, .n = n };
	r = quotient((double)q->x->total, (double)q->y->total);
	out->total = out->mean = r * q->scale;
	if (n == 0) {
		pctr__summary_interval(out);
		return;
	}
	quot_extremes(st, q, out);
	if (n > 1 && q->y->total) {
		cxx = centred(n, q->x->sq, q->x->total, q->x->total);
		cyy = centred(n, q->y->sq, q->y->total, q->y->total);
		cxy = centred(n, q->sxy, q->x->total, q->y->total);
		res = cxx - 2.0 * r * cxy + r * r * cyy;
		res = res > 0.0 ? res : 0.0;
		out->stddev = sqrt(res / (double)(n - 1)) /
			      ((double)q->y->total / (double)n) * q->scale;
		if (st->no_cross)
			out->stddev = NAN;
	}
	pctr__summary_interval(out);
}

PCTR_EXPORT int
pctr_stats_per_second(const struct pctr_stats *st, int idx,
		      struct pctr_summary *uout)
{
	struct pctr_summary full = { .size = sizeof(full) };
	int r = check_out(st, idx, false, uout);
	struct quot q;

	if (r < 0)
		return r;
	q = (struct quot){ &st->ext[idx], idx + 1, 0, &st->ev[idx], &st->time,
			   st->xt[idx],
			   (double)st->tsc_hz };
	quot_summary(st, &q, &full);
	return pctr__struct_out(&SUMMARY_SIZED, uout, &full);
}

PCTR_EXPORT int
pctr_stats_per_cycle(const struct pctr_stats *st, int idx,
		     struct pctr_summary *uout)
{
	struct pctr_summary full = { .size = sizeof(full) };
	int r = check_out(st, idx, false, uout);
	struct quot q;

	if (r < 0)
		return r;
	q = (struct quot){ &st->ext[st->nr + idx], idx + 1, st->cycles + 1,
			   &st->ev[idx],
			   pctr__stats_series(st, st->cycles),
			   st->cycles == PCTR_STATS_TIME ? st->xt[idx]
							 : st->xc[idx],
			   1.0 };
	quot_summary(st, &q, &full);
	return pctr__struct_out(&SUMMARY_SIZED, uout, &full);
}

PCTR_EXPORT int
pctr_stats_ratio(const struct pctr_stats *st, int num, int den,
		 struct pctr_summary *uout)
{
	struct pctr_summary full = { .size = sizeof(full) };
	int r = check_out(st, num, false, uout);
	struct quot q;

	if (r < 0)
		return r;
	if (den < 0 || num >= st->nr_ratio || den >= st->nr_ratio ||
	    num == den)
		return pctr__error(ERANGE, "no ratio statistics for events "
					   "%d/%d: two different events "
					   "below %d",
				   num, den, st->nr_ratio);
	q = (struct quot){ &st->ext[2 * st->nr + num * st->nr_ratio + den],
			   num + 1, den + 1, &st->ev[num], &st->ev[den],
			   st->xy[num < den ? pctr__pair(st->nr_ratio, num, den)
					    : pctr__pair(st->nr_ratio, den,
							 num)],
			   1.0 };
	quot_summary(st, &q, &full);
	return pctr__struct_out(&SUMMARY_SIZED, uout, &full);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
check_percentile(double p, const double *out)
{
	if (!out || !(p >= 0.0 && p <= 100.0))
		return pctr__error(EINVAL, "percentile %g is not in 0..100", p);
	return 0;
}

/*
 * The finite ones of @m values, sorted in a copy, interpolated linearly
 * between the closest ranks: rank p / 100 * (m - 1), counted from 0.
 */
static int
percentile_of(const double *x, size_t m, double p, double *out)
{
	double *v, rank;
	size_t lo, k = 0;

	v = malloc((m ? m : 1) * sizeof(*v));
	if (!v)
		return pctr__error(ENOMEM, "out of memory for percentiles");
	for (size_t i = 0; i < m; i++)
		if (isfinite(x[i]))
			v[k++] = x[i];
	if (k == 0) {
		free(v);
		return pctr__error(ENODATA, "no values for a percentile");
	}
	qsort(v, k, sizeof(*v), cmp_double);
	rank = p / 100.0 * (double)(k - 1);
	lo = (size_t)rank;
	*out = lo + 1 < k ? v[lo] + (rank - (double)lo) * (v[lo + 1] - v[lo])
			  : v[lo];
	free(v);
	return 0;
}

PCTR_EXPORT int
pctr_stats_percentile(const struct pctr_stats *st, int idx, double p,
		      double *out)
{
	uint64_t m;
	int r = check_index(st, idx, true);

	if (r == 0)
		r = check_percentile(p, out);
	if (r < 0)
		return r;
	m = st->seen < st->keep ? st->seen : st->keep;
	if (m == 0)
		return pctr__error(ENODATA, "no intervals kept for percentiles "
					    "(create the statistics with "
					    "keep > 0)");
	return percentile_of(kept_row(st, idx + 1, 0), m, p, out);
}

PCTR_EXPORT int
pctr_values_percentile(const double *x, size_t n, double p, double *out)
{
	int r = check_percentile(p, out);

	if (r < 0)
		return r;
	if (!x && n)
		return pctr__error(EINVAL, "NULL values");
	return percentile_of(x, n, p, out);
}

/* ---- overhead ------------------------------------------------------- */

PCTR_EXPORT int
pctr_stats_overhead_set(struct pctr_stats *st, uint64_t ticks,
			const uint64_t *values)
{
	if (!st)
		return pctr__error(EINVAL, "NULL statistics");
	st->time.overhead = ticks;
	for (int i = 0; i < st->nr; i++)
		st->ev[i].overhead = values ? values[i] : 0;
	return 0;
}

PCTR_EXPORT int
pctr_stats_overhead_spread_set(struct pctr_stats *st, double ticks,
			       const double *values)
{
	if (!st)
		return pctr__error(EINVAL, "NULL statistics");
	if (!(ticks >= 0.0) || !isfinite(ticks))
		return pctr__error(EINVAL, "overhead spread %g: a standard "
					   "deviation is finite and not "
					   "negative",
				   ticks);
	for (int i = 0; values && i < st->nr; i++)
		if (!(values[i] >= 0.0) || !isfinite(values[i]))
			return pctr__error(EINVAL, "overhead spread %g of "
						   "event %d: a standard "
						   "deviation is finite and "
						   "not negative",
					   values[i], i);
	st->time.overhead_sd = ticks;
	for (int i = 0; i < st->nr; i++)
		st->ev[i].overhead_sd = values ? values[i] : 0.0;
	return 0;
}

PCTR_EXPORT int
pctr_stats_overhead_spread(const struct pctr_stats *st, int idx, double *out)
{
	int r = check_index(st, idx, true);

	if (r < 0)
		return r;
	if (!out)
		return pctr__error(EINVAL, "NULL overhead spread pointer");
	*out = pctr__stats_series(st, idx)->overhead_sd;
	return 0;
}

PCTR_EXPORT int
pctr_stats_disturbed(const struct pctr_stats *st, uint64_t *out)
{
	if (!st || !out)
		return pctr__error(EINVAL, "NULL statistics or count pointer");
	if (!st->detect)
		return pctr__error(ENODATA, "these statistics were not "
					    "gathered by regions: nothing "
					    "looked for disturbed intervals");
	*out = st->disturbed;
	return st->drop ? 1 : 0;
}

PCTR_EXPORT int
pctr_stats_overhead(const struct pctr_stats *st, int idx, uint64_t *out)
{
	int r = check_index(st, idx, true);

	if (r < 0)
		return r;
	if (!out)
		return pctr__error(EINVAL, "NULL overhead pointer");
	*out = pctr__stats_series(st, idx)->overhead;
	return 0;
}

static int
check_set(const struct pctr_stats *st, const struct pctr_set *set)
{
	int nr = pctr_set_nr(set);

	if (!st)
		return pctr__error(EINVAL, "NULL statistics");
	if (nr < 0)
		return nr;
	if (nr != st->nr)
		return pctr__error(EINVAL, "the set has %d events, the "
					   "statistics %d",
				   nr, st->nr);
	return 0;
}

/*
 * The smallest of each event's differences and of the ticks, and their
 * spread (Welford): slot 0 the ticks, slot 1 + i event i.
 */
struct cal {
	uint64_t lo[PCTR_MAX_EVENTS + 1];
	struct pctr__welford w[PCTR_MAX_EVENTS + 1];
};

static void
cal_add(struct cal *c, int k, uint64_t d)
{
	if (c->w[k].n == 0 || d < c->lo[k])
		c->lo[k] = d;
	pctr__welford_add(&c->w[k], (double)d);
}

static double
cal_sd(const struct cal *c, int k)
{
	return c->w[k].n > 1 ? sqrt(c->w[k].m2 / (double)(c->w[k].n - 1))
			     : 0.0;
}

static int
cal_set(struct pctr_stats *st, const struct cal *c)
{
	double sd[PCTR_MAX_EVENTS];

	for (int i = 0; i < st->nr; i++)
		sd[i] = cal_sd(c, i + 1);
	pctr_stats_overhead_set(st, c->lo[0], &c->lo[1]);
	return pctr_stats_overhead_spread_set(st, cal_sd(c, 0), sd);
}

PCTR_EXPORT int
pctr_stats_calibrate(struct pctr_stats *st, struct pctr_set *set,
		     unsigned int n)
{
	struct pctr_sample t0, t1;
	struct cal c = { 0 };
	int r = check_set(st, set);

	if (r < 0)
		return r;
	if (n == 0)
		return pctr__error(EINVAL, "calibration needs at least one "
					   "empty interval");
	for (unsigned int k = 0; k < n; k++) {
		r = pctr_set_read(set, &t0);
		if (r == 0)
			r = pctr_set_read(set, &t1);
		if (r < 0)
			return r;
		cal_add(&c, 0, t1.tsc - t0.tsc);
		for (uint32_t i = 0; i < t1.nr; i++)
			cal_add(&c, (int)i + 1,
				interval_count(&t1.count[i], &t0.count[i]));
	}
	return cal_set(st, &c);
}

/* ---- the differencing method ----------------------------------------- */

static int
timed_run(struct pctr_set *set, void (*body)(void *), void *arg,
	  unsigned long n, struct pctr_sample *t0, struct pctr_sample *t1)
{
	int r = pctr_set_read(set, t0);

	if (r < 0)
		return r;
	for (unsigned long k = 0; k < n; k++)
		body(arg);
	return pctr_set_read(set, t1);
}

PCTR_EXPORT int
pctr_stats_add_diff(struct pctr_stats *st, struct pctr_set *set,
		    void (*body)(void *arg), void *arg, unsigned long n)
{
	struct pctr_sample a0, a1, b0, b1;
	uint64_t v[PCTR_MAX_EVENTS], ta, tb;
	int r = check_set(st, set);

	if (r < 0)
		return r;
	if (!body || n == 0 || n > (~0ul) / 2)
		return pctr__error(EINVAL, "the differencing method needs a "
					   "body and 0 < n <= ULONG_MAX / 2");
	for (unsigned long k = 0; k < n; k++)
		body(arg);
	r = timed_run(set, body, arg, n, &a0, &a1);
	if (r == 0)
		r = timed_run(set, body, arg, 2 * n, &b0, &b1);
	if (r < 0)
		return r;
	for (int i = 0; i < st->nr; i++)
		v[i] = net(interval_count(&b1.count[i], &b0.count[i]),
			   interval_count(&a1.count[i], &a0.count[i]));
	ta = a1.tsc - a0.tsc;
	tb = b1.tsc - b0.tsc;
	return pctr_stats_add_values(st, net(tb, ta), v);
}
