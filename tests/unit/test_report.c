/* SPDX-License-Identifier: MIT */
/*
 * test_report - reports of known statistics, parsed back: text laid out as
 * pmc_lib's, CSV with its header, JSON "pctr-region/1".
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pctr.h>
#include <stdlib.h>

#include "locale_de.h"
#include "test.h"
#include "unit/json_flat.h"

/* the seed's example, shortened: 4 intervals of 2 events */
static struct pctr_stats *
seed_stats(unsigned int keep)
{
	static const uint64_t ticks[4] = { 107, 107, 108, 110 };
	uint64_t v[2] = { 22, 92 }, oh[2] = { 3, 4 };
	struct pctr_stats *st;

	if (pctr_stats_new(&st, 2, keep) < 0)
		TEST_FAIL("pctr_stats_new");
	pctr_stats_name_set(st, 0, "inst_retired");
	pctr_stats_name_set(st, 1, "uops, \"retired\"");
	pctr_stats_overhead_set(st, 9, oh);
	for (int i = 0; i < 4; i++)
		if (pctr_stats_add_values(st, ticks[i], v) < 0)
			TEST_FAIL("add");
	return st;
}

static char *
report(const struct pctr_stats *st, int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT(f != NULL);
	ASSERT_OK(pctr_stats_write(st, f, format, "loop"));
	fclose(f);
	return buf;
}

/* the line of the text report that starts with @label */
static const char *
line_of(const char *text, const char *label)
{
	size_t n = strlen(label);

	for (const char *l = text; l && *l; l = strchr(l, '\n')) {
		if (*l == '\n')
			l++;
		if (!strncmp(l, label, n) && l[n] == ' ')
			return l + n;
	}
	TEST_FAIL("no line '%s' in:\n%s", label, text);
	return NULL;
}

TEST(text_has_the_seed_layout)
{
	struct pctr_stats *st = seed_stats(0);
	char *t = report(st, PCTR_REPORT_TEXT);
	unsigned long long n, a, b, c;
	double x, y, z;
	char name[32];

	ASSERT_CONTAINS(t, "--- loop ---");
	ASSERT_CONTAINS(t, "0: inst_retired");
	/* the columns named by the events; TSC ticks are not called cycles */
	ASSERT_EQ(sscanf(line_of(t, "Events"), " intervals TSC ticks %31s",
			 name),
		  1);
	ASSERT_STR_EQ(name, "inst_retired");
	ASSERT(!strstr(t, "cycle"));
	ASSERT(!strstr(t, "event 0"));
	ASSERT_EQ(sscanf(line_of(t, "total"), "%llu %llu %llu %llu", &n, &a,
			 &b, &c),
		  4);
	ASSERT_EQ(n, 4);
	ASSERT_EQ(a, 432);
	ASSERT_EQ(b, 88);
	ASSERT_EQ(c, 368);
	ASSERT_EQ(sscanf(line_of(t, "minimum"), "%llu %llu %llu", &a, &b, &c),
		  3);
	ASSERT_EQ(a, 107);
	ASSERT_EQ(sscanf(line_of(t, "maximum"), "%llu %llu %llu", &a, &b, &c),
		  3);
	ASSERT_EQ(a, 110);
	ASSERT_EQ(sscanf(line_of(t, "mean"), "%lf %lf %lf", &x, &y, &z), 3);
	ASSERT_DBL_NEAR(x, 108, 1e-9);
	ASSERT_DBL_NEAR(y, 22, 1e-9);
	ASSERT_EQ(sscanf(line_of(t, "std.dev."), "%lf %lf %lf", &x, &y, &z),
		  3);
	ASSERT_DBL_NEAR(x, sqrt(6.0 / 3.0), 0.005);
	ASSERT_DBL_NEAR(y, 0, 0);
	/*
	 * ticks 107, 107, 108, 110: s = sqrt(2), se = s / 2 = 0.7071068,
	 * t(0.975, 3) = 3.182446, half-width 2.250329; event 0 never varies
	 */
	ASSERT_EQ(sscanf(line_of(t, "std.error"), "%lf %lf %lf", &x, &y, &z),
		  3);
	ASSERT_DBL_NEAR(x, 0.7071068, 0.005);
	ASSERT_DBL_NEAR(y, 0, 0);
	ASSERT_EQ(sscanf(line_of(t, "95% CI +/-"), "%lf %lf %lf", &x, &y, &z),
		  3);
	ASSERT_DBL_NEAR(x, 2.250329, 0.005);
	ASSERT_DBL_NEAR(z, 0, 0);
	ASSERT_EQ(sscanf(line_of(t, "overhead"), "%llu %llu %llu", &a, &b, &c),
		  3);
	ASSERT_EQ(a * 100 + b * 10 + c, 934);
	ASSERT_EQ(sscanf(line_of(t, "Events per TSC tick"), "%lf %lf", &x,
			 &y),
		  2);
	ASSERT_DBL_NEAR(x, 88.0 / 432, 1e-8);
	ASSERT_DBL_NEAR(y, 368.0 / 432, 1e-8);
	ASSERT_EQ(sscanf(line_of(t, "inst_retired/uops, \"retired\""),
			 "%llu %lf %lf", &n, &x, &y),
		  3);
	ASSERT_EQ(n, 4);
	ASSERT_DBL_NEAR(x, 22.0 / 92, 1e-8);
	ASSERT_EQ(sscanf(line_of(t, "uops, \"retired\"/inst_retired"),
			 "%llu %lf", &n, &x),
		  2);
	ASSERT_DBL_NEAR(x, 92.0 / 22, 1e-8);
	free(t);
	pctr_stats_free(st);
}

TEST(text_shows_percentiles_when_kept)
{
	struct pctr_stats *st = seed_stats(8);
	char *t = report(st, PCTR_REPORT_TEXT);
	double x;

	ASSERT_EQ(sscanf(line_of(t, "p50"), "%lf", &x), 1);
	ASSERT_DBL_NEAR(x, 107.5, 0.05);
	free(t);
	pctr_stats_free(st);
}

/* split one CSV line into fields, undoing RFC 4180 quotes */
static int
csv_split(const char *line, char f[][128], int max)
{
	int n = 0;
	size_t k = 0;
	bool q = false;

	for (const char *p = line; n < max; p++) {
		if (q && *p == '"' && p[1] == '"') {
			f[n][k++] = '"';
			p++;
		} else if (*p == '"') {
			q = !q;
		} else if (!q && (*p == ',' || *p == '\n' || !*p)) {
			f[n++][k] = '\0';
			k = 0;
			if (*p != ',')
				break;
		} else if (k < 127) {
			f[n][k++] = *p;
		}
	}
	return n;
}

static const char *const csv_head[] = {
	"region", "threads", "event",	 "measure",  "n",	  "total",
	"min",	  "mean",    "max",	 "stddev",   "p50",	  "p90",
	"p99",	  "overhead", "stderr", "ci95_low", "ci95_high",
	"overhead_stddev", "disturbed"
};

TEST(csv_parses_back)
{
	struct pctr_stats *st = seed_stats(0);
	char *t = report(st, PCTR_REPORT_CSV), f[20][128];
	int rows = 0, found = 0;

	ASSERT_EQ(csv_split(t, f, 20), 19);
	for (int i = 0; i < 19; i++)
		ASSERT_STR_EQ(f[i], csv_head[i]);
	for (const char *l = strchr(t, '\n') + 1; *l;
	     l = strchr(l, '\n') + 1, rows++) {
		ASSERT_EQ(csv_split(l, f, 20), 19);
		ASSERT_STR_EQ(f[0], "loop");
		/* not a region's: nothing looked for disturbed intervals */
		ASSERT_STR_EQ(f[18], "");
		if (!strcmp(f[2], "uops, \"retired\"") &&
		    !strcmp(f[3], "count")) {
			ASSERT_STR_EQ(f[4], "4");
			ASSERT_STR_EQ(f[5], "368");
			ASSERT_STR_EQ(f[6], "92");
			ASSERT_STR_EQ(f[8], "92");
			ASSERT_STR_EQ(f[9], "0");
			ASSERT_STR_EQ(f[10], ""); /* nothing kept */
			ASSERT_STR_EQ(f[13], "4");
			/* no spread: se 0, the interval is the mean */
			ASSERT_STR_EQ(f[14], "0");
			ASSERT_STR_EQ(f[15], "92");
			ASSERT_STR_EQ(f[16], "92");
			/* no overhead spread was given */
			ASSERT_STR_EQ(f[17], "0");
			found++;
		}
		if (!strcmp(f[2], "tsc_ticks")) {
			ASSERT_STR_EQ(f[5], "432");
			ASSERT_DBL_NEAR(atof(f[7]), 108, 1e-9);
			/* as in the text report: 108 -/+ 2.250329 */
			ASSERT_DBL_NEAR(atof(f[14]), 0.7071068, 1e-6);
			ASSERT_DBL_NEAR(atof(f[15]), 108 - 2.250329, 1e-6);
			ASSERT_DBL_NEAR(atof(f[16]), 108 + 2.250329, 1e-6);
			found++;
		}
		if (!strcmp(f[3], "ratio") && !strncmp(f[2], "inst", 4)) {
			ASSERT_DBL_NEAR(atof(f[7]), 22.0 / 92, 1e-12);
			found++;
		}
	}
	/* ticks; per event count, per_second, per_cycle; two ratios */
	ASSERT_EQ(rows, 1 + 2 * 3 + 2);
	ASSERT_EQ(found, 3);
	free(t);
	pctr_stats_free(st);
}

static char flat[1 << 16];

static const char *
jget(const char *path)
{
	static char buf[256];

	if (!json_get(flat, path, buf, sizeof(buf)))
		TEST_FAIL("no %s in the JSON report", path);
	return buf;
}

TEST(json_parses_back)
{
	struct pctr_stats *st = seed_stats(8);
	char *t = report(st, PCTR_REPORT_JSON);

	if (json_flatten(t, flat, sizeof(flat)) < 0)
		TEST_FAIL("not JSON:\n%s", t);
	ASSERT_STR_EQ(jget("schema"), "pctr-region/1");
	ASSERT_STR_EQ(jget("pctr_version"), pctr_version());
	jget("machine.arch");
	jget("machine.tsc_hz");
	ASSERT_STR_EQ(jget("regions[0].name"), "loop");
	ASSERT_STR_EQ(jget("regions[0].threads"), "null");
	ASSERT_STR_EQ(jget("regions[0].intervals"), "4");
	ASSERT_STR_EQ(jget("regions[0].tsc_ticks.total"), "432");
	ASSERT_STR_EQ(jget("regions[0].tsc_ticks.overhead"), "9");
	/* 108 -/+ 2.250329 ticks (see the text report); median of 107, 107,
	 * 108, 110 */
	ASSERT_DBL_NEAR(atof(jget("regions[0].tsc_ticks.stderr")), 0.7071068,
			1e-6);
	ASSERT_DBL_NEAR(atof(jget("regions[0].tsc_ticks.ci95[0]")),
			108 - 2.250329, 1e-6);
	ASSERT_DBL_NEAR(atof(jget("regions[0].tsc_ticks.ci95[1]")),
			108 + 2.250329, 1e-6);
	ASSERT_DBL_NEAR(atof(jget("regions[0].tsc_ticks.median")), 107.5, 0);
	ASSERT_DBL_NEAR(atof(jget("regions[0].elapsed_ns.ci95[1]")) /
				atof(jget("regions[0].elapsed_ns.mean")),
			(108 + 2.250329) / 108, 1e-6);
	ASSERT_STR_EQ(jget("regions[0].events[1].stats.stderr"), "0");
	ASSERT_DBL_NEAR(atof(jget("regions[0].events[1].stats.ci95[0]")), 92,
			0);
	ASSERT_DBL_NEAR(atof(jget("regions[0].events[1].stats.median")), 92,
			0);
	ASSERT_STR_EQ(jget("regions[0].events[1].name"), "uops, \"retired\"");
	ASSERT_STR_EQ(jget("regions[0].events[1].total"), "368");
	ASSERT_STR_EQ(jget("regions[0].events[1].overhead"), "4");
	ASSERT_STR_EQ(jget("regions[0].events[1].stats.n"), "4");
	ASSERT_DBL_NEAR(atof(jget("regions[0].events[1].stats.mean")), 92, 0);
	ASSERT_DBL_NEAR(atof(jget("regions[0].events[1].stats.stddev")), 0, 0);
	ASSERT_DBL_NEAR(atof(jget("regions[0].events[0].percentiles.p50")), 22,
			0);
	ASSERT_STR_EQ(jget("regions[0].events[0].per_cycle.basis"), "tsc");
	ASSERT_DBL_NEAR(atof(jget("regions[0].events[0].per_cycle.total")),
			88.0 / 432, 1e-12);
	ASSERT_STR_EQ(jget("regions[0].ratios[0].numerator"), "inst_retired");
	ASSERT_DBL_NEAR(atof(jget("regions[0].ratios[1].mean")), 92.0 / 22,
			1e-12);
	free(t);
	pctr_stats_free(st);
}

/* a statistic of one interval has no standard deviation: null, not 0 */
TEST(json_and_csv_say_null_for_undefined)
{
	uint64_t v = 5;
	struct pctr_stats *st;
	char *t, buf[64];

	ASSERT_OK(pctr_stats_new(&st, 1, 0));
	ASSERT_OK(pctr_stats_add_values(st, 10, &v));
	t = report(st, PCTR_REPORT_JSON);
	ASSERT_EQ(json_flatten(t, flat, sizeof(flat)), 0);
	ASSERT_STR_EQ(jget("regions[0].events[0].stats.stddev"), "null");
	ASSERT_STR_EQ(jget("regions[0].events[0].stats.stderr"), "null");
	ASSERT_STR_EQ(jget("regions[0].events[0].stats.ci95"), "null");
	ASSERT(!json_get(flat, "regions[0].events[0].stats.median", buf,
			 sizeof(buf)));
	ASSERT_STR_EQ(jget("regions[0].events[0].percentiles"), "null");
	ASSERT(!json_get(flat, "regions[0].ratios[0].n", buf, sizeof(buf)));
	/* not a region's: nothing looked for disturbed intervals */
	ASSERT_STR_EQ(jget("regions[0].disturbed"), "null");
	ASSERT_STR_EQ(jget("regions[0].events[0].overhead_stddev"), "0");
	free(t);
	t = report(st, PCTR_REPORT_CSV);
	ASSERT_CONTAINS(t, "loop,0,event 0,count,1,5,5,5,5,,,,,0,,,,0,\n");
	free(t);
	pctr_stats_free(st);
}

/*
 * A ratio over a denominator that never counted has no value: '-' in the
 * text, null in JSON, empty in CSV, never 0.
 */
TEST(ratio_without_denominator_has_no_value)
{
	uint64_t v[2] = { 5, 0 };
	struct pctr_stats *st;
	char *t;
	unsigned long long n;
	char total[16], mean[16];

	ASSERT_OK(pctr_stats_new(&st, 2, 0));
	pctr_stats_name_set(st, 0, "faults");
	pctr_stats_name_set(st, 1, "zero");
	ASSERT_OK(pctr_stats_add_values(st, 10, v));
	ASSERT_OK(pctr_stats_add_values(st, 10, v));
	t = report(st, PCTR_REPORT_TEXT);
	ASSERT_EQ(sscanf(line_of(t, "faults/zero"), "%llu %15s %*s %15s", &n,
			 total, mean),
		  3);
	ASSERT_EQ(n, 2); /* a ratio of sums counts every interval */
	ASSERT_STR_EQ(total, "-");
	ASSERT_STR_EQ(mean, "-");
	ASSERT_EQ(sscanf(line_of(t, "zero/faults"), "%llu %15s", &n, total),
		  2);
	ASSERT_STR_EQ(total, "0.00000000");
	free(t);
	t = report(st, PCTR_REPORT_JSON);
	ASSERT_EQ(json_flatten(t, flat, sizeof(flat)), 0);
	ASSERT_STR_EQ(jget("regions[0].ratios[0].numerator"), "faults");
	ASSERT_STR_EQ(jget("regions[0].ratios[0].total"), "null");
	ASSERT_STR_EQ(jget("regions[0].ratios[0].mean"), "null");
	ASSERT_STR_EQ(jget("regions[0].ratios[1].total"), "0");
	free(t);
	t = report(st, PCTR_REPORT_CSV);
	ASSERT_CONTAINS(t, "loop,0,faults/zero,ratio,2,,,,,,");
	free(t);
	pctr_stats_free(st);
}

/* CSV and JSON numbers in the fewest digits that read back the same */
TEST(numbers_without_float_noise)
{
	uint64_t v[5] = { 84962, 84963, 84963, 84963, 84963 };
	const char *row, *row_end;
	struct pctr_stats *st;
	char *t;

	ASSERT_OK(pctr_stats_new(&st, 1, 0));
	for (int i = 0; i < 5; i++)
		ASSERT_OK(pctr_stats_add_values(st, 10, &v[i]));
	t = report(st, PCTR_REPORT_CSV);
	/* n, total, min, mean, max */
	ASSERT_CONTAINS(t, ",count,5,424814,84962,84962.8,84963,");
	/*
	 * In the count row only: a rate per second scales by this machine's
	 * TSC frequency, whose round figures are not noise (2.1 GHz makes
	 * 17842020000000 per second).
	 */
	row = strstr(t, "\nloop,0,event 0,count,");
	ASSERT(row != NULL);
	row_end = strchr(row + 1, '\n');
	ASSERT(row_end != NULL);
	ASSERT(!memmem(row, row_end - row, "0000000", 7));
	free(t);
	t = report(st, PCTR_REPORT_JSON);
	ASSERT_CONTAINS(t, "\"mean\": 84962.8,");
	free(t);
	pctr_stats_free(st);
}

/*
 * A program in a German locale (printf's radix ','): its reports' JSON
 * and CSV numbers stay C's, its text report follows its locale, and the
 * program's locale is the same afterwards.
 */
TEST(json_and_csv_ignore_the_program_locale)
{
	uint64_t v[5] = { 84962, 84963, 84963, 84963, 84963 };
	struct pctr_stats *st;
	char *t, b[32];

	locale_de_path();
	ASSERT(setlocale(LC_ALL, LOCALE_DE) != NULL);
	ASSERT_OK(pctr_stats_new(&st, 1, 0));
	for (int i = 0; i < 5; i++)
		ASSERT_OK(pctr_stats_add_values(st, 10, &v[i]));
	t = report(st, PCTR_REPORT_CSV);
	ASSERT_CONTAINS(t, ",count,5,424814,84962,84962.8,84963,");
	free(t);
	t = report(st, PCTR_REPORT_JSON);
	ASSERT_CONTAINS(t, "\"mean\": 84962.8,");
	if (json_flatten(t, flat, sizeof(flat)) < 0)
		TEST_FAIL("not JSON in " LOCALE_DE ":\n%s", t);
	free(t);
	t = report(st, PCTR_REPORT_TEXT);
	ASSERT_CONTAINS(t, "84962,80");
	free(t);
	snprintf(b, sizeof(b), "%.1f", 84962.8);
	ASSERT_STR_EQ(b, "84962,8");
	setlocale(LC_ALL, "C");
	pctr_stats_free(st);
}

TEST(bad_format_is_einval)
{
	struct pctr_stats *st = seed_stats(0);

	ASSERT_EQ(pctr_stats_write(st, stderr, 7, NULL), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "report format");
	ASSERT_EQ(pctr_stats_write(NULL, stderr, 0, NULL), -EINVAL);
	pctr_stats_free(st);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(text_has_the_seed_layout)
			       TEST_CASE(text_shows_percentiles_when_kept)
			       TEST_CASE(csv_parses_back)
			       TEST_CASE(json_parses_back)
			       TEST_CASE(json_and_csv_say_null_for_undefined)
			       TEST_CASE(ratio_without_denominator_has_no_value)
			       TEST_CASE(numbers_without_float_noise)
			       TEST_CASE(json_and_csv_ignore_the_program_locale)
			       TEST_CASE(bad_format_is_einval)));
}
