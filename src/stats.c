/* SPDX-License-Identifier: MIT */
/*
 * stats.c - accumulating intervals: counter += t1 - t0, with statistics.
 *
 * Every interval updates, per event and for the elapsed ticks, an integer
 * total, minimum and maximum and a Welford mean/variance; and per event the
 * Welford statistics of its rate per second, per cycle and, for the first
 * PCTR_STATS_RATIO_MAX events, of its ratio to each other event.  Nothing
 * is allocated after pctr_stats_new(): percentiles come from a reservoir
 * of a fixed number of intervals.
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
	half = pctr_t975(out->n - 1) * out->std_error;
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

/* b - a of two counts, as a double, without losing the sign */
static double
signed_diff(uint64_t b, uint64_t a)
{
	return b >= a ? (double)(b - a) : -(double)(a - b);
}

static void
series_add(struct pctr__series *s, uint64_t x)
{
	if (s->w.n == 0) {
		s->min = s->max = s->origin = x;
	} else {
		s->min = x < s->min ? x : s->min;
		s->max = x > s->max ? x : s->max;
	}
	s->total += x;
	pctr__welford_add(&s->w, signed_diff(x, s->origin));
}

double
pctr__series_mean(const struct pctr__series *s)
{
	return s->w.n ? (double)s->origin + s->w.mean : 0.0;
}

static void
series_merge(struct pctr__series *dst, const struct pctr__series *src)
{
	struct pctr__welford w = src->w;

	if (src->w.n == 0)
		return;
	if (dst->w.n == 0) {
		dst->min = src->min;
		dst->max = src->max;
		dst->origin = src->origin;
	}
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
	dst->total += src->total;
	w.mean += signed_diff(src->origin, dst->origin);
	pctr__welford_merge(&dst->w, &w);
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
	st->per_sec = calloc(nr, sizeof(*st->per_sec));
	st->per_cyc = calloc(nr, sizeof(*st->per_cyc));
	st->ratio = calloc((size_t)st->nr_ratio * st->nr_ratio,
			   sizeof(*st->ratio));
	st->kept = keep ? calloc((size_t)(nr + 1) * keep, sizeof(double))
			: NULL;
	if (!st->name || !st->ev || !st->per_sec || !st->per_cyc ||
	    !st->ratio || (keep && !st->kept))
		return pctr__error(ENOMEM, "out of memory for statistics of "
					   "%d events",
				   nr);
	return 0;
}

PCTR_EXPORT void
pctr_stats_free(struct pctr_stats *st)
{
	if (!st)
		return;
	free(st->name);
	free(st->ev);
	free(st->per_sec);
	free(st->per_cyc);
	free(st->ratio);
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
	if (st->time.w.n)
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
	for (int i = 0; i < st->nr; i++) {
		uint64_t oh = st->ev[i].overhead;
		double sd = st->ev[i].overhead_sd;

		memset(&st->ev[i], 0, sizeof(st->ev[i]));
		st->ev[i].overhead = oh;
		st->ev[i].overhead_sd = sd;
	}
	st->time = (struct pctr__series){
		.overhead = st->time.overhead,
		.overhead_sd = st->time.overhead_sd,
	};
	st->disturbed = 0;
	memset(st->per_sec, 0, st->nr * sizeof(*st->per_sec));
	memset(st->per_cyc, 0, st->nr * sizeof(*st->per_cyc));
	memset(st->ratio, 0,
	       (size_t)st->nr_ratio * st->nr_ratio * sizeof(*st->ratio));
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
static void
keep_add(struct pctr_stats *st, uint64_t ticks, const uint64_t *v)
{
	uint64_t k = st->seen;

	if (!st->keep)
		return;
	if (k >= st->keep)
		k = next_random(st) % (st->seen + 1);
	st->seen++;
	if (k >= st->keep)
		return;
	st->kept[k] = (double)ticks;
	for (int i = 0; i < st->nr; i++)
		st->kept[(size_t)(i + 1) * st->keep + k] = (double)v[i];
}

static void
derived_add(struct pctr_stats *st, uint64_t ticks, const uint64_t *v)
{
	uint64_t cyc = st->cycles == PCTR_STATS_TIME ? ticks : v[st->cycles];
	double sec = (double)ticks / (double)st->tsc_hz;

	for (int i = 0; i < st->nr; i++) {
		if (ticks)
			pctr__welford_add(&st->per_sec[i], (double)v[i] / sec);
		if (cyc)
			pctr__welford_add(&st->per_cyc[i],
					  (double)v[i] / (double)cyc);
	}
	for (int d = 0; d < st->nr_ratio; d++) {
		if (!v[d])
			continue;
		for (int n = 0; n < st->nr_ratio; n++)
			if (n != d)
				pctr__welford_add(
					&st->ratio[n * st->nr_ratio + d],
					(double)v[n] / (double)v[d]);
	}
}

PCTR_EXPORT int
pctr_stats_add_values(struct pctr_stats *st, uint64_t ticks,
		      const uint64_t *values)
{
	if (!st || !values)
		return pctr__error(EINVAL, "NULL statistics or values");
	series_add(&st->time, ticks);
	for (int i = 0; i < st->nr; i++)
		series_add(&st->ev[i], values[i]);
	derived_add(st, ticks, values);
	keep_add(st, ticks, values);
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

int
pctr__stats_add_counts(struct pctr_stats *st, uint64_t ticks,
		       const struct pctr_count *t1,
		       const struct pctr_count *t0)
{
	uint64_t v[PCTR_MAX_EVENTS];

	for (int i = 0; i < st->nr; i++)
		v[i] = net(interval_count(&t1[i], &t0[i]), st->ev[i].overhead);
	return pctr_stats_add_values(st, net(ticks, st->time.overhead), v);
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
	int r = check_samples(st, t1, t0);

	if (r < 0)
		return r;
	return pctr__stats_add_counts(st, t1->tsc - t0->tsc, t1->count,
				      t0->count);
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
	if (dst->time.w.n == 0 && dst->disturbed == 0) {
		dst->detect = src->detect;
		dst->drop = src->drop;
	} else if (src->time.w.n || src->disturbed) {
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
	series_merge(&dst->time, &src->time);
	overhead_merge(&dst->time, &src->time);
	for (int i = 0; i < dst->nr; i++) {
		series_merge(&dst->ev[i], &src->ev[i]);
		overhead_merge(&dst->ev[i], &src->ev[i]);
		pctr__welford_merge(&dst->per_sec[i], &src->per_sec[i]);
		pctr__welford_merge(&dst->per_cyc[i], &src->per_cyc[i]);
	}
	for (int k = 0; k < dst->nr_ratio * dst->nr_ratio; k++)
		pctr__welford_merge(&dst->ratio[k], &src->ratio[k]);
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
	half = pctr_t975(out->n - 1) * out->std_error;
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
	pctr__welford_summary(&s->w, (double)s->total, out);
	out->min = s->w.n ? (double)s->min : 0.0;
	out->max = s->w.n ? (double)s->max : 0.0;
	out->mean = pctr__series_mean(s);
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

PCTR_EXPORT int
pctr_stats_per_second(const struct pctr_stats *st, int idx,
		      struct pctr_summary *uout)
{
	struct pctr_summary full = { .size = sizeof(full) }, *out = &full;
	int r = check_out(st, idx, false, uout);
	double sec;

	if (r < 0)
		return r;
	sec = (double)st->time.total / (double)st->tsc_hz;
	pctr__welford_summary(&st->per_sec[idx],
			      quotient((double)st->ev[idx].total, sec), out);
	return pctr__struct_out(&SUMMARY_SIZED, uout, out);
}

PCTR_EXPORT int
pctr_stats_per_cycle(const struct pctr_stats *st, int idx,
		     struct pctr_summary *uout)
{
	struct pctr_summary full = { .size = sizeof(full) }, *out = &full;
	int r = check_out(st, idx, false, uout);

	if (r < 0)
		return r;
	pctr__welford_summary(
		&st->per_cyc[idx],
		quotient((double)st->ev[idx].total,
			 (double)pctr__stats_series(st, st->cycles)->total),
		out);
	return pctr__struct_out(&SUMMARY_SIZED, uout, out);
}

PCTR_EXPORT int
pctr_stats_ratio(const struct pctr_stats *st, int num, int den,
		 struct pctr_summary *uout)
{
	struct pctr_summary full = { .size = sizeof(full) }, *out = &full;
	int r = check_out(st, num, false, uout);

	if (r < 0)
		return r;
	if (den < 0 || num >= st->nr_ratio || den >= st->nr_ratio ||
	    num == den)
		return pctr__error(ERANGE, "no ratio statistics for events "
					   "%d/%d: two different events "
					   "below %d",
				   num, den, st->nr_ratio);
	pctr__welford_summary(&st->ratio[num * st->nr_ratio + den],
			      quotient((double)st->ev[num].total,
				       (double)st->ev[den].total),
			      out);
	return pctr__struct_out(&SUMMARY_SIZED, uout, out);
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
