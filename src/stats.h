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
 * way sum(x^2) - n * mean^2 does.
 */
struct pctr__welford {
	uint64_t n;
	double min, max, mean, m2;
};

/*
 * A counted series: exact integer total, minimum and maximum.  Its Welford
 * state is kept for x - origin, origin being the first value, so that
 * counts of 2^52 and more that differ by little keep every digit of their
 * spread (the shifted-data method).
 */
struct pctr__series {
	struct pctr__welford w;
	uint64_t origin;
	uint64_t total;
	uint64_t min, max;
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

struct pctr_stats {
	int nr;
	int cycles; /* event index, or PCTR_STATS_TIME for TSC ticks */
	int nr_ratio; /* events with pair ratios: min(nr, RATIO_MAX) */
	char (*name)[PCTR_NAME_MAX];
	struct pctr__series time;
	struct pctr__series *ev; /* [nr] */
	struct pctr__welford *per_sec; /* [nr] */
	struct pctr__welford *per_cyc; /* [nr] */
	struct pctr__welford *ratio; /* [num * nr_ratio + den] */
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

void pctr__welford_add(struct pctr__welford *w, double x);
void pctr__welford_merge(struct pctr__welford *dst,
			 const struct pctr__welford *src);
void pctr__summary_interval(struct pctr_summary *out);
void pctr__welford_summary(const struct pctr__welford *w, double total,
			   struct pctr_summary *out);
double pctr__series_mean(const struct pctr__series *s);
const struct pctr__series *pctr__stats_series(const struct pctr_stats *st,
					      int idx);
int pctr__stats_add_counts(struct pctr_stats *st, uint64_t ticks,
			   const struct pctr_count *t1,
			   const struct pctr_count *t0);
int pctr__stats_clone(const struct pctr_stats *src, struct pctr_stats **dst);
int pctr__stats_new_for_events(struct pctr_stats **stp,
			       const struct pctr_set *set, int nr,
			       unsigned int keep);
int pctr__stats_write_one(const struct pctr_stats *st, FILE *f, int format,
			  const char *name, int threads, bool first,
			  bool last);
int pctr__report_begin(FILE *f, int format, const struct pctr_stats *st);
int pctr__report_not_counted(FILE *f, int format, const char *event,
			     const char *why, bool first);
int pctr__report_end(FILE *f, int format);
/* the locale a report is written in; give the result to
 * pctr__locale_restore() (text.h) */
locale_t pctr__report_locale(int format);

#endif
