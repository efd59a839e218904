/* SPDX-License-Identifier: MIT */
/*
 * report.c - statistics written as text (laid out as pmc_lib's
 * pmc_print_results()), CSV, or JSON (schema "pctr-region/1", which reuses
 * the machine and statistics objects of "pctr-stat/1"; doc/json-schema.md).
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

static const char *
unit_of(const char *name)
{
	return !strncmp(name, "task-clock", 10) || !strncmp(name, "cpu-clock", 9)
		       ? "ns"
		       : "";
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

/*
 * The fewest digits that read back as the same double: 84962.8, not the
 * 84962.800000000003 of "%.17g" (17 digits are enough for every double,
 * fewer for most).
 */
static const char *
shortest(char *buf, size_t len, double x)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return buf;
}

static void
csv_num(FILE *f, double x)
{
	char b[32];

	fputc(',', f);
	if (isfinite(x))
		fputs(shortest(b, sizeof(b), x), f);
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

static void
json_num(FILE *f, const char *key, double x)
{
	char b[32];

	fprintf(f, "\"%s\": ", key);
	if (isfinite(x))
		fputs(shortest(b, sizeof(b), x), f);
	else
		fputs("null", f);
}

/* the statistics object of pctr-stat/1, with the total first */
static void
json_stats(FILE *f, const struct pctr_summary *s, double scale)
{
	char b[32], c[32];

	if (scale != 1.0)
		fprintf(f, "\"total\": %lld", (long long)llround(s->total * scale));
	else
		json_num(f, "total", s->total);
	fprintf(f, ", \"n\": %llu, ", (unsigned long long)s->n);
	json_num(f, "min", s->n ? s->min * scale : NAN);
	fputs(", ", f);
	json_num(f, "mean", s->n ? s->mean * scale : NAN);
	fputs(", ", f);
	json_num(f, "max", s->n ? s->max * scale : NAN);
	fputs(", ", f);
	json_num(f, "stddev", s->n > 1 ? s->stddev * scale : NAN);
	fputs(", ", f);
	json_num(f, "stderr", s->std_error * scale);
	fputs(", \"ci95\": ", f);
	if (isfinite(s->ci95_low))
		fprintf(f, "[%s, %s]",
			shortest(b, sizeof(b), s->ci95_low * scale),
			shortest(c, sizeof(c), s->ci95_high * scale));
	else
		fputs("null", f);
}

/* the median of a count's statistics object, where intervals were kept */
static void
json_median(FILE *f, const struct pctr_stats *st, int idx)
{
	if (has_percentiles(st)) {
		fputs(", ", f);
		json_num(f, "median", percentile(st, idx, 50.0));
	}
}

static void
json_percentiles(FILE *f, const struct pctr_stats *st, int idx)
{
	fputs("\"percentiles\": ", f);
	if (!has_percentiles(st)) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	for (size_t k = 0; k < PCTR_ARRAY_SIZE(pct); k++) {
		char key[16];

		snprintf(key, sizeof(key), "p%g", pct[k]);
		json_num(f, key, percentile(st, idx, pct[k]));
		fputs(k + 1 < PCTR_ARRAY_SIZE(pct) ? ", " : "}", f);
	}
}

static void
json_time(FILE *f, const struct pctr_stats *st)
{
	struct pctr_summary s = { .size = sizeof(s) };

	pctr_stats_get(st, PCTR_STATS_TIME, &s);
	fputs("      \"tsc_ticks\": {", f);
	json_stats(f, &s, 1.0);
	json_median(f, st, PCTR_STATS_TIME);
	fprintf(f, ", \"overhead\": %llu, ",
		(unsigned long long)st->time.overhead);
	json_num(f, "overhead_stddev", st->time.overhead_sd);
	fputs(", ", f);
	json_percentiles(f, st, PCTR_STATS_TIME);
	fputs("},\n      \"elapsed_ns\": {", f);
	json_stats(f, &s, 1e9 / (double)st->tsc_hz);
	fputs("},\n", f);
}

static void
json_event(FILE *f, const struct pctr_stats *st, int i)
{
	struct pctr_summary s = { .size = sizeof(s) };

	fputs("        {\"name\": ", f);
	pctr__json_string(f, st->name[i]);
	fprintf(f, ", \"hardware\": %s, \"unit\": \"%s\", \"total\": %llu, "
		   "\"overhead\": %llu, ",
		st->hardware[i] ? "true" : "false", unit_of(st->name[i]),
		(unsigned long long)st->ev[i].total,
		(unsigned long long)st->ev[i].overhead);
	json_num(f, "overhead_stddev", st->ev[i].overhead_sd);
	fputs(",\n         \"stats\": {", f);
	pctr_stats_get(st, i, &s);
	json_stats(f, &s, 1.0);
	json_median(f, st, i);
	fputs("},\n         ", f);
	json_percentiles(f, st, i);
	fputs(",\n         \"per_second\": {", f);
	pctr_stats_per_second(st, i, &s);
	json_stats(f, &s, 1.0);
	fprintf(f, "},\n         \"per_cycle\": {\"basis\": \"%s\", ",
		st->cycles == PCTR_STATS_TIME ? "tsc" : "cycles");
	pctr_stats_per_cycle(st, i, &s);
	json_stats(f, &s, 1.0);
	fputs("}}", f);
}

static void
json_ratios(FILE *f, const struct pctr_stats *st)
{
	bool first = true;

	fputs("      \"ratios\": [", f);
	for (int n = 0; n < st->nr_ratio; n++) {
		for (int d = 0; d < st->nr_ratio; d++) {
			struct pctr_summary s;

			if (n == d)
				continue;
			ratio_summary(st, n, d, &s);
			fputs(first ? "\n        {\"numerator\": "
				    : ",\n        {\"numerator\": ",
			      f);
			pctr__json_string(f, st->name[n]);
			fputs(", \"denominator\": ", f);
			pctr__json_string(f, st->name[d]);
			fputs(", ", f);
			json_stats(f, &s, 1.0);
			fputc('}', f);
			first = false;
		}
	}
	fputs(first ? "]\n" : "\n      ]\n", f);
}

static void
json_null_int(FILE *f, const char *key, long v, bool null)
{
	if (null)
		fprintf(f, "\"%s\": null", key);
	else
		fprintf(f, "\"%s\": %ld", key, v);
}

/* {"intervals": N, "dropped": bool, "detectors": [...]}, or null */
static void
json_disturbed(FILE *f, const struct pctr_stats *st)
{
	const char *sep = "";

	if (!st->detect) {
		fputs("\"disturbed\": null", f);
		return;
	}
	fprintf(f, "\"disturbed\": {\"intervals\": %llu, \"dropped\": %s, "
		   "\"detectors\": [",
		(unsigned long long)st->disturbed, st->drop ? "true" : "false");
	for (size_t k = 0; k < PCTR_ARRAY_SIZE(detector_key); k++) {
		if (!(st->detect & (1u << k)))
			continue;
		fprintf(f, "%s\"%s\"", sep, detector_key[k]);
		sep = ", ";
	}
	fputs("]}", f);
}

static void
json_block(FILE *f, const struct pctr_stats *st, const char *name,
	   int threads)
{
	fputs("    {\n      \"name\": ", f);
	pctr__json_string(f, name);
	fputs(",\n      ", f);
	json_null_int(f, "threads", threads, threads <= 0);
	fprintf(f, ",\n      \"intervals\": %llu,\n      ",
		(unsigned long long)st->n);
	json_disturbed(f, st);
	fprintf(f, ",\n      \"tsc_hz\": %llu,\n",
		(unsigned long long)st->tsc_hz);
	json_time(f, st);
	fputs("      \"events\": [\n", f);
	for (int i = 0; i < st->nr; i++) {
		json_event(f, st, i);
		fputs(i + 1 < st->nr ? ",\n" : "\n", f);
	}
	fputs("      ],\n", f);
	json_ratios(f, st);
	fputs("    }", f);
}

static void
json_machine(FILE *f)
{
	struct pctr_machine m = { .size = sizeof(m) };

	pctr_machine_get(&m);
	fputs("  \"machine\": {\"arch\": ", f);
	pctr__json_string(f, m.arch);
	fprintf(f, ", \"has_pmu\": %s, \"pmus\": [",
		m.has_pmu ? "true" : "false");
	for (int i = 0; i < m.nr_pmus; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		pctr__json_string(f, m.pmu[i]);
		fprintf(f, ", \"type\": %u}", m.pmu_type[i]);
	}
	fputs("], ", f);
	json_null_int(f, "perf_event_paranoid", m.paranoid,
		      m.paranoid == INT32_MIN);
	fputs(", ", f);
	json_null_int(f, "user_access", m.user_access, m.user_access < 0);
	fprintf(f, ", \"tsc_hz\": %llu, \"tsc_invariant\": %s, "
		   "\"virtualized\": %s},\n",
		(unsigned long long)m.tsc_hz,
		m.tsc_invariant < 0 ? "null" : m.tsc_invariant ? "true" : "false",
		m.virtualized < 0 ? "null" : m.virtualized ? "true" : "false");
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
		fprintf(f, "{\n  \"schema\": \"pctr-region/1\",\n"
			   "  \"pctr_version\": \"%s\",\n",
			pctr_version());
		json_machine(f);
		fputs("  \"regions\": [\n", f);
		return 0;
	}
	return pctr__error(EINVAL, "unknown report format %d (PCTR_REPORT_TEXT, "
				   "_CSV or _JSON)",
			   format);
}

int
pctr__stats_write_one(const struct pctr_stats *st, FILE *f, int format,
		      const char *name, int threads, bool first, bool last)
{
	switch (format) {
	case PCTR_REPORT_TEXT:
		text_block(f, st, name, threads);
		break;
	case PCTR_REPORT_CSV:
		csv_block(f, st, name, threads);
		break;
	case PCTR_REPORT_JSON:
		if (!first)
			fputs(",\n", f);
		json_block(f, st, name, threads);
		if (last)
			fputc('\n', f);
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
		fputs(first ? "  ],\n  \"not_counted\": [\n" : ",\n", f);
		fputs("    {\"event\": ", f);
		pctr__json_string(f, event);
		fputs(", \"error\": ", f);
		pctr__json_string(f, why);
		fputs("}", f);
		break;
	}
	return 0;
}

int
pctr__report_end(FILE *f, int format)
{
	if (format == PCTR_REPORT_JSON)
		fputs("  ]\n}\n", f);
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
				      title ? title : "statistics", 0, true,
				      true);
		r = pctr__report_end(f, format);
	}
	pctr__locale_restore(old);
	return r;
}
