/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the inside of struct pctr_stats, shared by stats.c, report.c
 * and region.c.  Nothing here is public.
 */
#ifndef PCTR_STATS_H
#define PCTR_STATS_H

#include <locale.h>

#include "internal.h"

/*
 * Welford's running mean and sum of squared deviations (m2): each new x
 * moves the mean by (x - mean) / n and adds (x - old mean) * (x - new
 * mean) to m2, which never subtracts two large nearly equal numbers the
 * way sum(x^2) - n * mean^2 does.  For values given as doubles
 * (pctr_values_summary(), calibration); intervals keep integer sums.
 */
struct pctr__welford {
	uint64_t n;
	double min, max, mean, m2;
};

typedef unsigned __int128 pctr__u128;

/* min > max (+inf, -inf): no interval yet */
struct pctr__extreme {
	double min, max;
};

/*
 * A counted series, as sums an interval only adds to: the exact integer
 * total, the sum of squares, minimum and maximum (min starts at
 * UINT64_MAX, so that no interval needs a branch for the first).
 *
 * The sum of squares is 128 bits: one square of a 64-bit count already
 * needs them, and since the counts are not negative, sum(x^2) <= (sum
 * x)^2 < 2^128 as long as the total fits its 64 bits: the sums are exact
 * whenever the total is.  The variance is derived from them exactly
 * (stats.c, pctr__series_m2()), so identical intervals have a standard
 * deviation of exactly 0 whatever their size.
 */
struct pctr__series {
	uint64_t total;
	uint64_t min, max;
	pctr__u128 sq;
	uint64_t overhead;
	double overhead_sd; /* the spread of the overhead's calibration */
};

/*
 * Why an interval was found disturbed (region.c), the detectors a
 * region's statistics were gathered with (struct pctr_stats.detect).
 */
#define PCTR__DISTURB_SWITCH 0x1u /* the context-switch meter counted */
#define PCTR__DISTURB_PAGE 0x2u /* a counter's mmap page was rewritten */
#define PCTR__DISTURB_MUX 0x4u /* an event was off its counter a while */
#define PCTR__DISTURB_KERNEL 0x8u /* a kernel-only event counted */

/*
 * The cross sums the derived figures need (ratio of sums, delta-method
 * variance: stats.c): every event against the ticks, against the cycle
 * basis when that is an event, and the pairs of the first nr_ratio events.
 */
struct pctr_stats {
	int nr;
	int cycles; /* event index, or PCTR_STATS_TIME for TSC ticks */
	int nr_ratio; /* events with pair ratios: min(nr, RATIO_MAX) */
	char (*name)[PCTR_NAME_MAX];
	uint64_t n; /* intervals in the figures */
	struct pctr__series time;
	struct pctr__series *ev; /* [nr] */
	pctr__u128 *xt; /* [nr]: sum of x_i * ticks */
	pctr__u128 *xc; /* [nr]: sum of x_i * x_cycles (cycles an event) */
	pctr__u128 *xy; /* [pairs]: sum of x_i * x_j, i < j < nr_ratio */
	bool no_cross; /* unpacked from version 1: the cross sums unknown */
	/*
	 * The smallest and largest single interval's rate and ratio, by
	 * pctr__stats_add_net() (a division each): [nr] per second, [nr] per
	 * cycle, [nr_ratio^2] ratios (numerator-major).  Not kept where
	 * no_extremes (regions: their end stays a few adds; pctr_stats(3)).
	 */
	struct pctr__extreme *ext;
	bool no_extremes;
	uint64_t tsc_hz;
	unsigned int keep;
	uint64_t seen; /* intervals offered to the reservoir */
	uint64_t rng;
	double *kept; /* [(nr + 1) * keep]: row 0 ticks, row 1 + i event i */
	bool hardware[PCTR_MAX_EVENTS];
	/* regions: intervals found disturbed, kept in the figures or not */
	uint64_t disturbed;
	unsigned int detect; /* PCTR__DISTURB_* in force; 0: not looked for */
	bool drop; /* disturbed intervals are left out of the figures */
};

/* pairs i < j of @nrr events, and the slot of pair (i, j) */
static inline int
pctr__pairs(int nrr)
{
	return nrr * (nrr - 1) / 2;
}

static inline int
pctr__pair(int nrr, int i, int j)
{
	return i * (2 * nrr - i - 1) / 2 + (j - i - 1);
}

static inline void
pctr__series_add(struct pctr__series *s, uint64_t x)
{
	s->total += x;
	s->sq += (pctr__u128)x * x;
	s->min = x < s->min ? x : s->min;
	s->max = x > s->max ? x : s->max;
}

void pctr__stats_keep(struct pctr_stats *st, uint64_t ticks,
		      const uint64_t *v);
void pctr__stats_extremes(struct pctr_stats *st, uint64_t ticks,
			  const uint64_t *v);
void pctr__extremes_reset(struct pctr_stats *st);
int pctr__extremes_nr(int nr, int nr_ratio);

/*
 * One interval of net values into the sums: integer adds and multiplies,
 * nothing derived (that is done when the figures are asked for).  Inline,
 * so that a region's end does it without a call.
 */
static inline void
pctr__stats_add_net(struct pctr_stats *st, uint64_t ticks, const uint64_t *v)
{
	int nr = st->nr;

	st->n++;
	pctr__series_add(&st->time, ticks);
	for (int i = 0; i < nr; i++) {
		pctr__series_add(&st->ev[i], v[i]);
		st->xt[i] += (pctr__u128)v[i] * ticks;
	}
	if (__builtin_expect(st->cycles != PCTR_STATS_TIME, 0))
		for (int i = 0; i < nr; i++)
			st->xc[i] += (pctr__u128)v[i] * v[st->cycles];
	for (int i = 0, k = 0; i < st->nr_ratio; i++)
		for (int j = i + 1; j < st->nr_ratio; j++)
			st->xy[k++] += (pctr__u128)v[i] * v[j];
	if (__builtin_expect(st->keep != 0, 0))
		pctr__stats_keep(st, ticks, v);
	if (!st->no_extremes)
		pctr__stats_extremes(st, ticks, v);
}

void pctr__welford_add(struct pctr__welford *w, double x);
void pctr__welford_merge(struct pctr__welford *dst,
			 const struct pctr__welford *src);
void pctr__summary_interval(struct pctr_summary *out);
void pctr__welford_summary(const struct pctr__welford *w, double total,
			   struct pctr_summary *out);
void pctr__series_empty(struct pctr__series *s);
double pctr__series_mean(const struct pctr_stats *st,
			 const struct pctr__series *s);
double pctr__series_sd(const struct pctr_stats *st,
		       const struct pctr__series *s);
const struct pctr__series *pctr__stats_series(const struct pctr_stats *st,
					      int idx);
int pctr__stats_add_counts(struct pctr_stats *st, uint64_t ticks,
			   const struct pctr_count *t1,
			   const struct pctr_count *t0, uint64_t oh_ticks,
			   const uint64_t *oh);
int pctr__stats_clone(const struct pctr_stats *src, struct pctr_stats **dst);
int pctr__stats_new_for_events(struct pctr_stats **stp,
			       const struct pctr_set *set, int nr,
			       unsigned int keep);
void pctr__stats_touch(struct pctr_stats *st);
int pctr__stats_write_one(const struct pctr_stats *st, FILE *f, int format,
			  const char *name, int threads, bool first);
int pctr__report_begin(FILE *f, int format, const struct pctr_stats *st);
int pctr__report_not_counted(FILE *f, int format, const char *event,
			     const char *why, bool first);
int pctr__report_end(FILE *f, int format);
/*
 * student_t.c: Student's t quantile t(0.975, @df), the factor of a
 * two-sided 95% confidence interval with @df degrees of freedom (exact to
 * 6 digits at its table's rows, within 6e-5 between them); NaN for @df 0.
 */
double pctr__t975(uint64_t df);

/* the locale a report is written in; give the result to
 * pctr__locale_restore() (text.h) */
locale_t pctr__report_locale(int format);

#endif
