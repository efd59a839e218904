/* SPDX-License-Identifier: MIT */
/*
 * report.c - statistics written as text (laid out as pmc_lib's
 * pmc_print_results()), CSV, or JSON (schema "pctr-region/1", which reuses
 * the machine and statistics objects of "pctr-stat/1"; doc/json-schema.md),
 * JSON and the numbers of CSV by the writer of src/text.
 *
 * A report is a header, one block per region, a trailer: the region code
 * writes many blocks, pctr_stats_write() one.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "text.h"

static const double pct[] = { 50.0, 90.0, 99.0 };

static bool
has_percentiles(const struct pctr_stats *st)
{
	return st->keep && st->seen;
}

static double
percentile(const struct pctr_stats *st, int idx, double p)
{
	double v = NAN;

	if (has_percentiles(st) && pctr_stats_percentile(st, idx, p, &v) < 0)
		v = NAN;
	return v;
}

/*
 * the unit of event @i's counts and what one count is worth in it
 * (pctr_event_unit(3)), from the name it shows; a scale that cannot be
 * read is null
 */
static void
json_unit(struct pctr_json *j, const struct pctr_stats *st, int i)
{
	char unit[32];
	double scale;

	if (pctr__name_unit(st->name[i], unit, sizeof(unit), &scale) < 0)
		scale = NAN;
	pctr__json_str(j, "unit", unit);
	pctr__json_num(j, "scale", scale);
}

/* ---- text ----------------------------------------------------------- */

#define COL "%16"

/* the events' columns: as wide as the longest name, labelled by names */
static int
col_width(const struct pctr_stats *st)
{
	int w = 16;

	for (int i = 0; i < st->nr; i++)
		if ((int)strlen(st->name[i]) > w)
			w = (int)strlen(st->name[i]);
	return w;
}

static void
text_row_u(FILE *f, const char *label, const char *n, uint64_t ticks,
	   const uint64_t *v, const struct pctr_stats *st)
{
	fprintf(f, "%-12s%10s" COL "llu", label, n, (unsigned long long)ticks);
	for (int i = 0; i < st->nr; i++)
		fprintf(f, " %*llu", col_width(st), (unsigned long long)v[i]);
	fputc('\n', f);
}

/*
 * The spread of the counts and the uncertainty of their means: standard
 * deviation, standard error, and the half-width of the 95% interval (the
 * mean is within +/- that of the true mean; "-" with fewer than 2
 * intervals).
 */
static void
text_spread(FILE *f, const struct pctr_stats *st)
{
	static const char *const label[] = { "std.dev.", "std.error",
					     "95% CI +/-" };

	for (int k = 0; k < 3; k++) {
		fprintf(f, "%-22s", label[k]);
		for (int i = PCTR_STATS_TIME; i < st->nr; i++) {
			struct pctr_summary s = { .size = sizeof(s) };
			double x;

			pctr_stats_get(st, i, &s);
			x = k == 0 ? s.stddev : k == 1 ? s.std_error
						: s.ci95_high - s.mean;
			int w = i < 0 ? 16 : col_width(st);

			if (isfinite(x))
				fprintf(f, "%s%*.2f", i < 0 ? "" : " ", w, x);
			else
				fprintf(f, "%s%*s", i < 0 ? "" : " ", w, "-");
		}
		fputc('\n', f);
	}
}

static void
text_counts(FILE *f, const struct pctr_stats *st)
{
	static const char *const label[] = { "total", "minimum", "maximum" };
	char n[32];

	fprintf(f, "%-12s%10s" COL "s", "Events", "intervals",
		"TSC ticks");
	for (int i = 0; i < st->nr; i++)
		fprintf(f, " %*s", col_width(st), st->name[i]);
	fputc('\n', f);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)st->n);
	for (int k = 0; k < 3; k++) {
		uint64_t v[PCTR_MAX_EVENTS], t = 0;

		for (int i = -1; i < st->nr; i++) {
			const struct pctr__series *s =
				pctr__stats_series(st, i);
			uint64_t x = k == 0 ? s->total
				     : !st->n ? 0
				     : k == 1 ? s->min
					      : s->max;
			if (i < 0)
				t = x;
			else
				v[i] = x;
		}
		text_row_u(f, label[k], k ? "" : n, t, v, st);
		if (k == 1) {
			fprintf(f, "%-12s%10s" COL ".2f", "mean", "",
				pctr__series_mean(st, &st->time));
			for (int i = 0; i < st->nr; i++)
				fprintf(f, " %*.2f", col_width(st),
					pctr__series_mean(st, &st->ev[i]));
			fputc('\n', f);
		}
	}
	text_spread(f, st);
}

/* what was taken off every interval, and how much it spread */
static void
text_overhead(FILE *f, const struct pctr_stats *st)
{
	uint64_t v[PCTR_MAX_EVENTS];

	for (int i = 0; i < st->nr; i++)
		v[i] = st->ev[i].overhead;
	text_row_u(f, "overhead", "", st->time.overhead, v, st);
	fprintf(f, "%-22s" COL ".2f", "overhead sd", st->time.overhead_sd);
	for (int i = 0; i < st->nr; i++)
		fprintf(f, " %*.2f", col_width(st), st->ev[i].overhead_sd);
	fputc('\n', f);
}

static const char *const detector[] = {
	"context switches", "counter page rewrites", "multiplexing",
	"kernel-mode counts",
};
static const char *const detector_key[] = {
	"switch", "page", "mux", "kernel",
};

/*
 * Regions: how many intervals were found disturbed, whether they are in
 * the figures above, and what was looked for.
 */
static void
text_disturbed(FILE *f, const struct pctr_stats *st)
{
	const char *sep = "";

	if (!st->detect)
		return;
	fprintf(f, "Disturbed: %llu interval%s, %s; looked for: ",
		(unsigned long long)st->disturbed,
		st->disturbed == 1 ? "" : "s",
		st->drop ? "left out of the figures above"
			 : "kept in the figures above");
	for (size_t k = 0; k < PCTR_ARRAY_SIZE(detector); k++) {
		if (!(st->detect & (1u << k)))
			continue;
		fprintf(f, "%s%s", sep, detector[k]);
		sep = ", ";
	}
	fputc('\n', f);
}

static void
text_percentiles(FILE *f, const struct pctr_stats *st)
{
	if (!has_percentiles(st))
		return;
	for (size_t k = 0; k < PCTR_ARRAY_SIZE(pct); k++) {
		char label[16];

		snprintf(label, sizeof(label), "p%g", pct[k]);
		fprintf(f, "%-12s%10s" COL ".1f", label, "",
			percentile(st, PCTR_STATS_TIME, pct[k]));
		for (int i = 0; i < st->nr; i++)
			fprintf(f, " %*.1f", col_width(st),
				percentile(st, i, pct[k]));
		fputc('\n', f);
	}
}

static void
text_per_cycle(FILE *f, const struct pctr_stats *st)
{
	static const char *const label[] = { "minimum", "mean", "maximum",
					     "std.dev." };
	struct pctr_summary s[PCTR_MAX_EVENTS];
	char basis[64];

	for (int i = 0; i < st->nr; i++) {
		s[i].size = sizeof(s[i]);
		pctr_stats_per_cycle(st, i, &s[i]);
	}
	/* TSC ticks are not cycles: the basis says which it is */
	if (st->cycles == PCTR_STATS_TIME)
		snprintf(basis, sizeof(basis), "Events per TSC tick");
	else
		snprintf(basis, sizeof(basis), "Events per cycle (%s)",
			 st->name[st->cycles]);
	fprintf(f, "%-38s", basis);
	for (int i = 0; i < st->nr; i++)
		fprintf(f, " %*.8f", col_width(st), s[i].total);
	fputc('\n', f);
	for (int k = 0; k < 4; k++) {
		char n[32] = "";

		if (k == 0)
			snprintf(n, sizeof(n), "%llu",
				 (unsigned long long)s[0].n);
		fprintf(f, "%-12s%10s%16s", label[k], n, "");
		for (int i = 0; i < st->nr; i++) {
			double x = k == 0 ? s[i].min : k == 1 ? s[i].mean
					   : k == 2 ? s[i].max
						    : s[i].stddev;

			/* extremes of single intervals: only if all kept */
			if (isfinite(x))
				fprintf(f, " %*.8f", col_width(st), x);
			else
				fprintf(f, " %*s", col_width(st), "-");
		}
		fputc('\n', f);
	}
}

/*
 * The statistics of num/den over the intervals, and of the totals: a
 * ratio whose denominator is 0 has no value (NaN: "-" and null), not 0.
 */
static void
ratio_summary(const struct pctr_stats *st, int n, int d,
	      struct pctr_summary *s)
{
	s->size = sizeof(*s);
	pctr_stats_ratio(st, n, d, s);
	if (st->ev[d].total == 0)
		s->total = s->mean = s->stddev = NAN;
	if (s->n == 0)
		s->min = s->mean = s->max = NAN;
	if (s->n < 2)
		s->stddev = NAN;
}

/* "-" where there is no figure */
static void
text_fixed(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, COL ".8f", x);
	else
		fprintf(f, COL "s", "-");
}

static int
ratio_width(const struct pctr_stats *st)
{
	int w = 12;

	for (int n = 0; n < st->nr_ratio; n++)
		for (int d = 0; d < st->nr_ratio; d++)
			if (n != d && (int)(strlen(st->name[n]) +
					    strlen(st->name[d]) + 2) > w)
				w = (int)(strlen(st->name[n]) +
					  strlen(st->name[d]) + 2);
	return w;
}

static void
text_ratios(FILE *f, const struct pctr_stats *st)
{
	int w = ratio_width(st);

	if (st->nr_ratio < 2)
		return;
	fprintf(f, "%-*s%10s" COL "s" COL "s" COL "s" COL "s" COL "s\n", w,
		"Ratio", "intervals", "total", "minimum", "mean", "maximum",
		"std.dev.");
	for (int n = 0; n < st->nr_ratio; n++) {
		for (int d = 0; d < st->nr_ratio; d++) {
			struct pctr_summary s;
			char label[2 * PCTR_NAME_MAX + 2];

			if (n == d)
				continue;
			ratio_summary(st, n, d, &s);
			snprintf(label, sizeof(label), "%s/%s", st->name[n],
				 st->name[d]);
			fprintf(f, "%-*s%10llu", w, label,
				(unsigned long long)s.n);
			text_fixed(f, s.total);
			text_fixed(f, s.min);
			text_fixed(f, s.mean);
			text_fixed(f, s.max);
			text_fixed(f, s.stddev);
			fputc('\n', f);
		}
	}
}

static void
text_events(FILE *f, const struct pctr_stats *st)
{
	fprintf(f, "%-40s %16s %16s\n", "Event", "Events", "Events/sec");
	fprintf(f, "%.40s %.16s %.16s\n", "----------------------------------------",
		"----------------", "----------------");
	for (int i = 0; i < st->nr; i++) {
		struct pctr_summary s = { .size = sizeof(s) };
		char label[PCTR_NAME_MAX + 16];

		pctr_stats_per_second(st, i, &s);
		snprintf(label, sizeof(label), "%d: %s", i, st->name[i]);
		fprintf(f, "%-40s %16llu %16.2f\n", label,
			(unsigned long long)st->ev[i].total, s.total);
	}
}

static void
text_block(FILE *f, const struct pctr_stats *st, const char *name,
	   int threads)
{
	fprintf(f, "--------------------------- %s ---------------------------"
		   "\n",
		name);
	if (threads > 0)
		fprintf(f, "Threads: %d\n", threads);
	fprintf(f, "Time: timestamp counter (TSC) ticks at %llu Hz\n",
		(unsigned long long)st->tsc_hz);
	text_events(f, st);
	text_disturbed(f, st);
	fputc('\n', f);
	text_counts(f, st);
	text_percentiles(f, st);
	text_overhead(f, st);
	text_per_cycle(f, st);
	text_ratios(f, st);
	fputc('\n', f);
}

/* ---- CSV ------------------------------------------------------------ */

static void
csv_num(FILE *f, double x)
{
	char b[32];

	fputc(',', f);
	if (isfinite(x))
		fputs(pctr__number(b, sizeof(b), x), f);
}

static void
csv_row(FILE *f, const char *region, int threads, const char *event,
	const char *measure, const struct pctr_summary *s)
{
	pctr__csv_field(f, ",", region);
	fprintf(f, ",%d,", threads);
	pctr__csv_field(f, ",", event);
	fprintf(f, ",%s,%llu", measure, (unsigned long long)s->n);
	csv_num(f, s->total);
	csv_num(f, s->n ? s->min : NAN);
	csv_num(f, s->n ? s->mean : NAN);
	csv_num(f, s->n ? s->max : NAN);
	csv_num(f, s->n > 1 ? s->stddev : NAN);
}

/*
 * Percentiles and overhead (counts only), then the mean's uncertainty,
 * the overhead's spread (counts only) and the region's disturbed intervals
 * (empty where nothing looked for them).
 */
static void
csv_tail(FILE *f, const struct pctr_stats *st, int idx, bool counts,
	 const struct pctr_summary *s)
{
	for (size_t k = 0; k < PCTR_ARRAY_SIZE(pct); k++)
		csv_num(f, counts ? percentile(st, idx, pct[k]) : NAN);
	if (counts)
		fprintf(f, ",%llu", (unsigned long long)
				pctr__stats_series(st, idx)->overhead);
	else
		fputc(',', f);
	csv_num(f, s->std_error);
	csv_num(f, s->ci95_low);
	csv_num(f, s->ci95_high);
	csv_num(f, counts ? pctr__stats_series(st, idx)->overhead_sd : NAN);
	if (st->detect)
		fprintf(f, ",%llu", (unsigned long long)st->disturbed);
	else
		fputc(',', f);
	fputc('\n', f);
}

static void
csv_event(FILE *f, const struct pctr_stats *st, const char *name, int threads,
	  int i)
{
	struct pctr_summary s = { .size = sizeof(s) };

	pctr_stats_get(st, i, &s);
	csv_row(f, name, threads, pctr_stats_name(st, i), "count", &s);
	csv_tail(f, st, i, true, &s);
	if (i == PCTR_STATS_TIME)
		return;
	pctr_stats_per_second(st, i, &s);
	csv_row(f, name, threads, st->name[i], "per_second", &s);
	csv_tail(f, st, i, false, &s);
	pctr_stats_per_cycle(st, i, &s);
	csv_row(f, name, threads, st->name[i], "per_cycle", &s);
	csv_tail(f, st, i, false, &s);
}

static void
csv_block(FILE *f, const struct pctr_stats *st, const char *name, int threads)
{
	for (int i = PCTR_STATS_TIME; i < st->nr; i++)
		csv_event(f, st, name, threads, i);
	for (int n = 0; n < st->nr_ratio; n++) {
		for (int d = 0; d < st->nr_ratio; d++) {
			struct pctr_summary s;
			char pair[2 * PCTR_NAME_MAX + 2];

			if (n == d)
				continue;
			ratio_summary(st, n, d, &s);
			snprintf(pair, sizeof(pair), "%s/%s", st->name[n],
				 st->name[d]);
			csv_row(f, name, threads, pair, "ratio", &s);
			csv_tail(f, st, n, false, &s);
		}
	}
}

/* ---- JSON ----------------------------------------------------------- */

/* the statistics object of pctr-stat/1 (text.h), with the total first */
static void
json_stats(struct pctr_json *j, const struct pctr_summary *s, double scale)
{
	if (scale != 1.0)
		pctr__json_int(j, "total", llround(s->total * scale));
	else
		pctr__json_num(j, "total", s->total);
	pctr__json_summary(j, s, scale);
}

/* the median of a count's statistics object, where intervals were kept */
static void
json_median(struct pctr_json *j, const struct pctr_stats *st, int idx)
{
	if (has_percentiles(st))
		pctr__json_num(j, "median", percentile(st, idx, 50.0));
}

static void
json_percentiles(struct pctr_json *j, const struct pctr_stats *st, int idx)
{
	if (!has_percentiles(st)) {
		pctr__json_null(j, "percentiles");
		return;
	}
	pctr__json_obj(j, "percentiles");
	for (size_t k = 0; k < PCTR_ARRAY_SIZE(pct); k++) {
		char key[16];

		snprintf(key, sizeof(key), "p%g", pct[k]);
		pctr__json_num(j, key, percentile(st, idx, pct[k]));
	}
	pctr__json_obj_end(j);
}

static void
json_time(struct pctr_json *j, const struct pctr_stats *st)
{
	struct pctr_summary s = { .size = sizeof(s) };

	pctr_stats_get(st, PCTR_STATS_TIME, &s);
	pctr__json_obj(j, "tsc_ticks");
	json_stats(j, &s, 1.0);
	json_median(j, st, PCTR_STATS_TIME);
	pctr__json_uint(j, "overhead", st->time.overhead);
	pctr__json_num(j, "overhead_stddev", st->time.overhead_sd);
	json_percentiles(j, st, PCTR_STATS_TIME);
	pctr__json_obj_end(j);
	pctr__json_obj(j, "elapsed_ns");
	json_stats(j, &s, 1e9 / (double)st->tsc_hz);
	pctr__json_obj_end(j);
}

static void
json_event(struct pctr_json *j, const struct pctr_stats *st, int i)
{
	struct pctr_summary s = { .size = sizeof(s) };

	pctr__json_obj(j, NULL);
	pctr__json_str(j, "name", st->name[i]);
	pctr__json_bool(j, "hardware", st->hardware[i]);
	json_unit(j, st, i);
	pctr__json_uint(j, "total", st->ev[i].total);
	pctr__json_uint(j, "overhead", st->ev[i].overhead);
	pctr__json_num(j, "overhead_stddev", st->ev[i].overhead_sd);
	pctr__json_obj(j, "stats");
	pctr_stats_get(st, i, &s);
	json_stats(j, &s, 1.0);
	json_median(j, st, i);
	pctr__json_obj_end(j);
	json_percentiles(j, st, i);
	pctr__json_obj(j, "per_second");
	pctr_stats_per_second(st, i, &s);
	json_stats(j, &s, 1.0);
	pctr__json_obj_end(j);
	pctr__json_obj(j, "per_cycle");
	pctr__json_str(j, "basis",
		       st->cycles == PCTR_STATS_TIME ? "tsc" : "cycles");
	pctr_stats_per_cycle(st, i, &s);
	json_stats(j, &s, 1.0);
	pctr__json_obj_end(j);
	pctr__json_obj_end(j);
}

static void
json_ratios(struct pctr_json *j, const struct pctr_stats *st)
{
	pctr__json_arr(j, "ratios");
	for (int n = 0; n < st->nr_ratio; n++) {
		for (int d = 0; d < st->nr_ratio; d++) {
			struct pctr_summary s;

			if (n == d)
				continue;
			ratio_summary(st, n, d, &s);
			pctr__json_obj(j, NULL);
			pctr__json_str(j, "numerator", st->name[n]);
			pctr__json_str(j, "denominator", st->name[d]);
			json_stats(j, &s, 1.0);
			pctr__json_obj_end(j);
		}
	}
	pctr__json_arr_end(j);
}

/* {"intervals": N, "dropped": bool, "detectors": [...]}, or null */
static void
json_disturbed(struct pctr_json *j, const struct pctr_stats *st)
{
	if (!st->detect) {
		pctr__json_null(j, "disturbed");
		return;
	}
	pctr__json_obj(j, "disturbed");
	pctr__json_uint(j, "intervals", st->disturbed);
	pctr__json_bool(j, "dropped", st->drop);
	pctr__json_arr(j, "detectors");
	for (size_t k = 0; k < PCTR_ARRAY_SIZE(detector_key); k++)
		if (st->detect & (1u << k))
			pctr__json_str(j, NULL, detector_key[k]);
	pctr__json_arr_end(j);
	pctr__json_obj_end(j);
}

static void
json_block(struct pctr_json *j, const struct pctr_stats *st,
	   const char *name, int threads)
{
	pctr__json_obj(j, NULL);
	pctr__json_str(j, "name", name);
	if (threads <= 0)
		pctr__json_null(j, "threads");
	else
		pctr__json_int(j, "threads", threads);
	pctr__json_uint(j, "intervals", st->n);
	json_disturbed(j, st);
	pctr__json_uint(j, "tsc_hz", st->tsc_hz);
	json_time(j, st);
	pctr__json_arr(j, "events");
	for (int i = 0; i < st->nr; i++)
		json_event(j, st, i);
	pctr__json_arr_end(j);
	json_ratios(j, st);
	pctr__json_obj_end(j);
}

/*
 * A report is written in several calls (one block per region): each
 * takes the document up inside its array of regions (or of not_counted),
 * depth 2, after a first member or not.
 */
static void
json_resume(struct pctr_json *j, FILE *f, bool first)
{
	pctr__json_begin(j, f, false);
	j->first[0] = j->first[1] = false;
	j->depth = 2;
	j->first[2] = first;
}

static void
json_head(FILE *f)
{
	struct pctr_machine m = { .size = sizeof(m) };
	struct pctr_json j;

	pctr_machine_get(&m);
	pctr__json_begin(&j, f, false);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-region/1");
	pctr__json_str(&j, "pctr_version", pctr_version());
	pctr__json_machine(&j, "machine", &m);
	pctr__json_arr(&j, "regions");
}

/* ---- the report ----------------------------------------------------- */

int
pctr__report_begin(FILE *f, int format, const struct pctr_stats *st)
{
	char host[256] = "";

	switch (format) {
	case PCTR_REPORT_TEXT:
		gethostname(host, sizeof(host) - 1);
		fprintf(f, "--------------------------- performance counters "
			   "---------------------------\nHost: %s\n",
			host);
		return 0;
	case PCTR_REPORT_CSV:
		fputs("region,threads,event,measure,n,total,min,mean,max,"
		      "stddev,p50,p90,p99,overhead,stderr,ci95_low,ci95_high,"
		      "overhead_stddev,disturbed\n",
		      f);
		return 0;
	case PCTR_REPORT_JSON:
		json_head(f);
		return 0;
	}
	return pctr__error(EINVAL, "unknown report format %d (PCTR_REPORT_TEXT, "
				   "_CSV or _JSON)",
			   format);
}

int
pctr__stats_write_one(const struct pctr_stats *st, FILE *f, int format,
		      const char *name, int threads, bool first)
{
	struct pctr_json j;

	switch (format) {
	case PCTR_REPORT_TEXT:
		text_block(f, st, name, threads);
		break;
	case PCTR_REPORT_CSV:
		csv_block(f, st, name, threads);
		break;
	case PCTR_REPORT_JSON:
		json_resume(&j, f, first);
		json_block(&j, st, name, threads);
		break;
	}
	return 0;
}

/*
 * An event that could not be counted, after the regions: a line of text, a
 * CSV row with the reason in the measure column, or in JSON an entry of
 * "not_counted", an array that the first one opens after closing
 * "regions" (pctr__report_end() then closes it instead).
 */
int
pctr__report_not_counted(FILE *f, int format, const char *event,
			 const char *why, bool first)
{
	char measure[600];
	struct pctr_json j;

	switch (format) {
	case PCTR_REPORT_TEXT:
		fprintf(f, "Not counted: %s: %s\n", event, why);
		break;
	case PCTR_REPORT_CSV:
		snprintf(measure, sizeof(measure), "not counted: %s", why);
		fputs(",0,", f);
		pctr__csv_field(f, ",", event);
		fputc(',', f);
		pctr__csv_field(f, ",", measure);
		fputs(",,,,,,,,,,,,,,,\n", f);
		break;
	case PCTR_REPORT_JSON:
		json_resume(&j, f, !first);
		if (first) { /* "regions" closed, "not_counted" opened */
			pctr__json_arr_end(&j);
			pctr__json_arr(&j, "not_counted");
		}
		pctr__json_obj(&j, NULL);
		pctr__json_str(&j, "event", event);
		pctr__json_str(&j, "error", why);
		pctr__json_obj_end(&j);
		break;
	}
	return 0;
}

int
pctr__report_end(FILE *f, int format)
{
	struct pctr_json j;

	if (format == PCTR_REPORT_JSON) {
		json_resume(&j, f, false);
		pctr__json_arr_end(&j);
		pctr__json_obj_end(&j);
		pctr__json_end(&j);
	}
	if (fflush(f) != 0 || ferror(f))
		return pctr__error(EIO, "writing the report failed: %s",
				   strerror(errno));
	return 0;
}

/*
 * JSON and CSV in the C locale (text.h), whatever the program set; text
 * in the program's own, as its printf would write it.
 */
locale_t
pctr__report_locale(int format)
{
	return format == PCTR_REPORT_TEXT ? (locale_t)0 : pctr__locale_c();
}

PCTR_EXPORT int
pctr_stats_write(const struct pctr_stats *st, FILE *f, int format,
		 const char *title)
{
	locale_t old;
	int r;

	if (!st || !f)
		return pctr__error(EINVAL, "NULL statistics or FILE");
	old = pctr__report_locale(format);
	r = pctr__report_begin(f, format, st);
	if (r == 0) {
		pctr__stats_write_one(st, f, format,
				      title ? title : "statistics", 0, true);
		r = pctr__report_end(f, format);
	}
	pctr__locale_restore(old);
	return r;
}
