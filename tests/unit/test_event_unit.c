/* SPDX-License-Identifier: MIT */
/*
 * test_event_unit.c - what an event's count is counted in and what one
 * count is worth there (pctr_event_unit()): the text of a PMU's
 * events/NAME.scale, row by row, and the unit and scale of named events
 * in a sysfs tree the test writes, as perf reads them.
 */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <pctr.h>

#include "internal.h"
#include "locale_de.h"
#include "test.h"

/* a NAME.scale's text, and the scale it gives (0: refused) */
static const struct {
	int line;
	const char *text;
	double scale;
} scales[] = {
	{ __LINE__, "2.3283064365386962890625e-10", 0x1p-32 }, /* RAPL */
	{ __LINE__, "1", 1.0 },
	{ __LINE__, "0.5", 0.5 },
	{ __LINE__, "1e-3", 1e-3 },
	{ __LINE__, "6.103515625E-5", 0x1p-14 },
	{ __LINE__, "1e+3", 1000.0 },
	{ __LINE__, "", 0 },
	{ __LINE__, "Joules", 0 },
	{ __LINE__, "0", 0 },
	{ __LINE__, "0.0", 0 },
	{ __LINE__, "-1", 0 },
	{ __LINE__, "0x1p-32", 0 },
	{ __LINE__, "inf", 0 },
	{ __LINE__, "nan", 0 },
	{ __LINE__, "1e999", 0 },
	{ __LINE__, "1e-999", 0 },
	{ __LINE__, "0,5", 0 },
	{ __LINE__, " 1", 0 },
	{ __LINE__, "1.5 J", 0 },
	{ __LINE__, "1.2.3", 0 },
	{ __LINE__, "e5", 0 },
};

TEST(scale_text)
{
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		double v = -1;
		int r = pctr__scale_parse(scales[i].text, &v);

		if (scales[i].scale == 0 && r != -EINVAL)
			TEST_FAIL("line %d: '%s' gave %d (%g), not -EINVAL",
				  scales[i].line, scales[i].text, r, v);
		if (scales[i].scale != 0 && (r != 0 || v != scales[i].scale))
			TEST_FAIL("line %d: '%s' gave %d (%.17g), not %.17g",
				  scales[i].line, scales[i].text, r, v,
				  scales[i].scale);
	}
}

/* the kernel writes C's numbers; a program's locale changes nothing */
TEST(scale_text_in_a_german_locale)
{
	double v = 0;

	locale_de_path();
	if (!setlocale(LC_ALL, LOCALE_DE))
		TEST_FAIL("setlocale(%s) failed", LOCALE_DE);
	ASSERT_OK(pctr__scale_parse("0.5", &v));
	ASSERT(v == 0.5);
	ASSERT_EQ(pctr__scale_parse("0,5", &v), -EINVAL);
	ASSERT(strtod("0,5", NULL) == 0.5); /* the locale is in force */
}

static char root[64];

static void
put(const char *rel, const char *text)
{
	test_put_file(root, rel, text);
}

#define PMU "bus/event_source/devices/power/"
#define RAPL 0x1p-32

/* RAPL's PMU as the kernel describes it, on the software PMU's type */
static void
make_machine(void)
{
	strcpy(root, "/tmp/pctr-unit-XXXXXX");
	ASSERT(mkdtemp(root));
	put(PMU "type", "1");
	put("bus/event_source/devices/software/type", "1");
	put(PMU "format/event", "config:0-63");
	put(PMU "events/energy-pkg", "event=0x02");
	put(PMU "events/energy-pkg.scale", "2.3283064365386962890625e-10");
	put(PMU "events/energy-pkg.unit", "Joules");
	put(PMU "events/energy-cores", "event=0x03");
	put(PMU "events/energy-cores.unit", "Joules");
	put(PMU "events/half", "event=0x02");
	put(PMU "events/half.scale", "0.5");
	put(PMU "events/long", "event=0x02");
	put(PMU "events/long.unit", "abcdefghijklmnopqrstuvwxyz0123456789");
	put(PMU "events/plain", "event=0x02");
	put(PMU "events/bad", "event=0x02");
	put(PMU "events/bad.scale", "0x1p-32");
	put(PMU "events/zero", "event=0x02");
	put(PMU "events/zero.scale", "0");
	setenv("PCTR_SYSFS_ROOT", root, 1);
}

static void
cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ASSERT_EQ(system(cmd), 0);
}

/* @spec's unit and scale, after it parsed */
static void
unit_is(const char *spec, const char *unit, double scale)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	char u[32] = "x";
	double s = -1;

	ASSERT_OK(pctr_event_parse(spec, &ev));
	ASSERT_OK(pctr_event_unit(&ev, u, sizeof(u), &s));
	if (strcmp(u, unit) || s != scale)
		TEST_FAIL("%s: unit '%s' scale %.17g, not '%s' %.17g", spec, u,
			  s, unit, scale);
}

TEST(named_events_take_their_unit_and_scale)
{
	make_machine();
	unit_is("power/energy-pkg/", "Joules", RAPL);
	/* whatever the modifiers, as perf applies them */
	unit_is("power/energy-pkg/u", "Joules", RAPL);
	unit_is("power/energy-pkg/k", "Joules", RAPL);
	unit_is("power/energy-pkg,name=E/", "Joules", RAPL);
	/* a unit alone, a scale alone, neither */
	unit_is("power/energy-cores/", "Joules", 1.0);
	unit_is("power/half/", "", 0.5);
	unit_is("power/plain/", "", 1.0);
	/* perf reads 31 bytes of a unit */
	unit_is("power/long/", "abcdefghijklmnopqrstuvwxyz01234", 1.0);
	/* the same count by its encoding is a plain count, as in perf */
	unit_is("power/event=0x02/", "", 1.0);
	/* the first term that names an event */
	unit_is("power/half,energy-pkg/", "", 0.5);
	cleanup();
}

TEST(clocks_count_ns_and_the_rest_plain)
{
	make_machine();
	unit_is("task-clock", "ns", 1.0);
	unit_is("cpu-clock:u", "ns", 1.0);
	unit_is("task-clock/name=tc/", "ns", 1.0);
	unit_is("software/config=1/", "ns", 1.0);
	unit_is("page-faults", "", 1.0);
	unit_is("power/event=0x01/", "ns", 1.0); /* cpu-clock, type 1 */
	cleanup();
}

/* a scale that is no number above 0 is refused where the event is parsed */
TEST(bad_scale_refused_with_its_file)
{
	struct pctr_event ev = { .size = sizeof(ev) }, keep;
	char u[32];
	double s;

	make_machine();
	keep = ev;
	ASSERT_EQ(pctr_event_parse("power/bad/", &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "bad scale '0x1p-32'");
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), PMU "events/bad.scale");
	ASSERT(!memcmp(&ev, &keep, sizeof(ev)));
	ASSERT_EQ(pctr_event_parse("power/zero/u", &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "events/zero.scale");
	/* and where its file went bad after it parsed */
	ASSERT_OK(pctr_event_parse("power/half/", &ev));
	put(PMU "events/half.scale", "half");
	ASSERT_EQ(pctr_event_unit(&ev, u, sizeof(u), &s), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "bad scale 'half'");
	cleanup();
}

TEST(arguments)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	char u[4];
	double s = 0;

	make_machine();
	ASSERT_OK(pctr_event_parse("power/energy-pkg/", &ev));
	ASSERT_EQ(pctr_event_unit(NULL, u, sizeof(u), &s), -EINVAL);
	ASSERT_EQ(pctr_event_unit(&ev, NULL, sizeof(u), &s), -EINVAL);
	ASSERT_EQ(pctr_event_unit(&ev, u, sizeof(u), NULL), -EINVAL);
	/* the scale alone, and a unit cut short as snprintf() cuts it */
	ASSERT_OK(pctr_event_unit(&ev, NULL, 0, &s));
	ASSERT(s == RAPL);
	ASSERT_OK(pctr_event_unit(&ev, u, sizeof(u), &s));
	ASSERT_STR_EQ(u, "Jou");
	memset(ev.name, 'x', sizeof(ev.name));
	ASSERT_EQ(pctr_event_unit(&ev, u, sizeof(u), &s), -EINVAL);
	cleanup();
}

/* the text of member @key of the event object named @name in @json */
static void
member_is(const char *json, const char *name, const char *key,
	  const char *want)
{
	char pat[160];
	const char *o, *m;

	snprintf(pat, sizeof(pat), "\"name\": \"%s\",", name);
	o = strstr(json, pat);
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	m = o ? strstr(o, pat) : NULL;
	if (!m || strncmp(m + strlen(pat), want, strlen(want)) ||
	    !strchr(",\n", m[strlen(pat) + strlen(want)]))
		TEST_FAIL("%s of %s is not %s in:\n%s", key, name, want, json);
}

/* a region report's events: the unit and scale of the names they show */
TEST(region_report_json)
{
	struct pctr_stats *st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	make_machine();
	ASSERT_OK(pctr_stats_new(&st, 3, 0));
	ASSERT_OK(pctr_stats_name_set(st, 0, "power/energy-pkg/"));
	ASSERT_OK(pctr_stats_name_set(st, 1, "task-clock"));
	ASSERT_OK(pctr_stats_name_set(st, 2, "page-faults"));
	f = open_memstream(&buf, &len);
	ASSERT(f);
	ASSERT_OK(pctr_stats_write(st, f, PCTR_REPORT_JSON, "r"));
	fclose(f);
	member_is(buf, "power/energy-pkg/", "unit", "\"Joules\"");
	member_is(buf, "power/energy-pkg/", "scale", "2.3283064365386963e-10");
	member_is(buf, "task-clock", "unit", "\"ns\"");
	member_is(buf, "task-clock", "scale", "1");
	member_is(buf, "page-faults", "unit", "\"\"");
	member_is(buf, "page-faults", "scale", "1");
	free(buf);
	pctr_stats_free(st);
	cleanup();
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(scale_text) TEST_CASE(scale_text_in_a_german_locale)
		TEST_CASE(named_events_take_their_unit_and_scale)
		TEST_CASE(clocks_count_ns_and_the_rest_plain)
		TEST_CASE(bad_scale_refused_with_its_file)
		TEST_CASE(arguments) TEST_CASE(region_report_json)));
}
