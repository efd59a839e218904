/* SPDX-License-Identifier: MIT */
/*
 * test_stat_unit.c - pctr stat on a PMU's named event with a unit and a
 * scale in sysfs (RAPL's power/energy-pkg/ in Joules), as perf shows it.
 * No PMU here has such files, so the test writes one: a "power" PMU on
 * the software PMU's type whose energy-pkg is event 2, page faults,
 * counted on a command that touches a known number of pages.  pctr finds
 * it through $PCTR_SYSFS_ROOT; perf, the judge, in a private mount
 * namespace where the tree is bound over /sys/bus/event_source/devices,
 * beside links to the real PMUs (root only: elsewhere that case skips).
 */
#include <dirent.h>
#include <sched.h>

#include "tool.h"

#define SELF self_exe, "helper"
#define PAGES 20000
#define PAGES_S "20000"
/* 2^-9: exact in binary and in decimal, and 20000 faults show as 39.06 */
#define SCALE 0x1p-9
#define SCALE_S "0.001953125"
#define DEVICES "/sys/bus/event_source/devices"

static char root[64], devices[128];

static void
put(const char *rel, const char *text)
{
	test_put_file(devices, rel, text);
}

/* links to the real PMUs, where they are (no PMU is faked but power) */
static void
link_real_pmus(void)
{
	DIR *d = opendir(DEVICES);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char from[512], to[PATH_MAX];

		snprintf(from, sizeof(from), DEVICES "/%s", e->d_name);
		if (e->d_name[0] == '.' || !realpath(from, to))
			continue;
		snprintf(from, sizeof(from), "%s/%s", devices, e->d_name);
		if (symlink(to, from) < 0)
			TEST_FAIL("symlink %s: %s", from, strerror(errno));
	}
	if (d)
		closedir(d);
}

/*
 * ROOT/bus/event_source/devices: the real PMUs, and "power" with
 * energy-pkg (page faults, SCALE Joules a count) and energy-cores (page
 * faults, RAPL's scale); no cpumask, so that perf counts the command
 */
static void
make_tree(void)
{
	strcpy(root, "/tmp/pctr-unit-XXXXXX");
	if (!mkdtemp(root))
		TEST_FAIL("mkdtemp: %s", strerror(errno));
	snprintf(devices, sizeof(devices), "%s/bus", root);
	mkdir(devices, 0755);
	snprintf(devices, sizeof(devices), "%s/bus/event_source", root);
	mkdir(devices, 0755);
	snprintf(devices, sizeof(devices), "%s/bus/event_source/devices",
		 root);
	mkdir(devices, 0755);
	link_real_pmus();
	put("power/type", "1");
	put("power/format/event", "config:0-63");
	put("power/events/energy-pkg", "event=0x02");
	put("power/events/energy-pkg.scale", SCALE_S);
	put("power/events/energy-pkg.unit", "Joules");
	put("power/events/energy-cores", "event=0x02");
	put("power/events/energy-cores.scale", "2.3283064365386962890625e-10");
	put("power/events/energy-cores.unit", "Joules");
	setenv("PCTR_SYSFS_ROOT", root, 1);
}

static void
cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		TEST_FAIL("cannot remove %s", root);
}

/* the fields of @text's -x, line of @event, into @f: how many */
static int
row(const char *text, const char *event, char f[][64], int max)
{
	char key[80];
	const char *l = text;
	int n = 0;

	snprintf(key, sizeof(key), ",%s,", event);
	while (l && *l && !(strstr(l, key) && strstr(l, key) < strchrnul(l, '\n')))
		l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
	if (!l || !*l)
		TEST_FAIL("no line of %s in:\n%s", event, text);
	while (n < max) {
		size_t k = strcspn(l, ",\n");

		snprintf(f[n++], 64, "%.*s", (int)k, l);
		if (l[k] != ',')
			break;
		l += k + 1;
	}
	return n;
}

/* a -x, report's figures: energy-pkg's value and unit, the page faults */
struct fig {
	char value[64], unit[64], event[64];
	double joules, faults;
};

static struct fig
figures(const char *text)
{
	char f[8][64];
	struct fig g;

	ASSERT_GE(row(text, "power/energy-pkg/", f, 8), 3);
	snprintf(g.value, sizeof(g.value), "%s", f[0]);
	snprintf(g.unit, sizeof(g.unit), "%s", f[1]);
	snprintf(g.event, sizeof(g.event), "%s", f[2]);
	g.joules = strtod(f[0], NULL);
	ASSERT_GE(row(text, "page-faults", f, 8), 3);
	g.faults = strtod(f[0], NULL);
	return g;
}

/*
 * The value is the count times the scale, "%.2f" (the scale is no whole
 * number), in Joules: the page faults beside it, counted as the same
 * event, within two faults and the rounding
 */
static void
scaled_like_perf(const struct fig *g, const char *who)
{
	const char *dot = strchr(g->value, '.');

	if (strcmp(g->unit, "Joules") || !dot || strlen(dot) != 3)
		TEST_FAIL("%s: value '%s' unit '%s', not N.NN Joules", who,
			  g->value, g->unit);
	ASSERT_GE(g->faults, PAGES);
	if (fabs(g->joules - g->faults * SCALE) > 0.005 + 2 * SCALE)
		TEST_FAIL("%s: %s Joules for %.0f faults of %g", who, g->value,
			  g->faults, SCALE);
}

#define EVENTS "power/energy-pkg/,page-faults"

TEST(csv_as_perf_shows_it)
{
	struct result r;
	struct fig g;

	make_tree();
	r = pctr("stat", "-o", "-", "-x", ",", "-e", EVENTS, "--", SELF, "touch",
		 PAGES_S, NULL);
	ASSERT_EQ(r.status, 0);
	g = figures(r.out);
	scaled_like_perf(&g, "pctr");
	ASSERT_STR_EQ(g.event, "power/energy-pkg/");
	/* with a modifier, the same */
	r = pctr("stat", "-o", "-", "-x", ",", "-e",
		 "power/energy-pkg/u,page-faults:u",
		 "--", SELF, "touch", PAGES_S, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, ",Joules,power/energy-pkg/u,");
	cleanup();
}

TEST(json_as_perf_shows_it)
{
	struct result r;
	double v;

	make_tree();
	r = pctr("stat", "-o", "-", "-j", "-e", EVENTS, "--", SELF, "touch", PAGES_S,
		 NULL);
	ASSERT_EQ(r.status, 0);
	v = python_num("import json,sys\n"
		       "l=[json.loads(x) for x in sys.stdin if x.strip()]\n"
		       "e=[x for x in l if x['event']=='power/energy-pkg/'][0]\n"
		       "f=[x for x in l if x['event']=='page-faults'][0]\n"
		       "c=float(e['counter-value'])\n"
		       "n=float(f['counter-value'])\n"
		       "print(int(e['unit']=='Joules' and f['unit']=='' and\n"
		       "    n>=" PAGES_S " and abs(c-n*" SCALE_S ")<=4*"
		       SCALE_S "))\n",
		       r.out);
	if (v != 1)
		TEST_FAIL("not Joules, or not the faults scaled:\n%s", r.out);
	cleanup();
}

/* pctr's own: counts as counted, the unit and the exact scale beside */
TEST(pctr_json_counts_with_scale)
{
	struct result r;
	double v;

	make_tree();
	r = pctr("stat", "-o", "-", "--format=pctr-json", "-e",
		 "power/energy-cores/,task-clock,page-faults", "--", SELF,
		 "touch", PAGES_S, NULL);
	ASSERT_EQ(r.status, 0);
	v = python_num("import json,sys\n"
		       "d=json.load(sys.stdin)\n"
		       "e,t,p=d['events']\n"
		       "print(int(e['unit']=='Joules' and\n"
		       "    e['scale']==2.3283064365386962890625e-10 and\n"
		       "    isinstance(e['runs'][0]['value'],int) and\n"
		       "    e['runs'][0]['value']>=" PAGES_S " and\n"
		       "    t['unit']=='ns' and t['scale']==1 and\n"
		       "    p['unit']=='' and p['scale']==1))\n",
		       r.out);
	if (v != 1)
		TEST_FAIL("unit and scale not beside the counts:\n%s", r.out);
	cleanup();
}

TEST(pctr_csv_scale_column)
{
	struct result r;
	double v;

	make_tree();
	r = pctr("stat", "-o", "-", "--format=pctr-csv", "-r", "2", "-e", EVENTS, "--",
		 SELF, "touch", PAGES_S, NULL);
	ASSERT_EQ(r.status, 0);
	v = python_num("import csv,sys\n"
		       "rows=list(csv.DictReader(sys.stdin))\n"
		       "e=[x for x in rows if x['event']=='power/energy-pkg/']\n"
		       "p=[x for x in rows if x['event']=='page-faults']\n"
		       "print(int(len(e)==3 and all(x['unit']=='Joules' and\n"
		       "    x['scale']=='" SCALE_S "' for x in e) and\n"
		       "    int(e[0]['value'])>=" PAGES_S " and\n"
		       "    all(x['unit']=='' and x['scale']=='1' for x in p)))\n",
		       r.out);
	if (v != 1)
		TEST_FAIL("no unit and scale columns as documented:\n%s", r.out);
	cleanup();
}

TEST(table_says_what_a_count_is)
{
	struct result r;

	make_tree();
	r = pctr("stat", "-o", "-", "-e", EVENTS, "--", SELF, "touch", PAGES_S,
		 NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "power/energy-pkg/ (0.00195312 Joules)");
	r = pctr("stat", "-o", "-", "-I", "50", "-e", EVENTS, "--", SELF,
		 "touch", PAGES_S, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, " 0.00195312 Joules power/energy-pkg/");
	cleanup();
}

/* a bad scale stops pctr stat before the command runs, and says where */
TEST(bad_scale_said)
{
	struct result r;

	make_tree();
	put("power/events/energy-pkg.scale", "lots");
	r = pctr("stat", "-x", ",", "-e", EVENTS, "--", SELF, "print", NULL);
	ASSERT_NE(r.status, 0);
	ASSERT_CONTAINS(r.err, "bad scale 'lots' in ");
	ASSERT_CONTAINS(r.err, "power/events/energy-pkg.scale");
	ASSERT(!strstr(r.out, "from the command"));
	cleanup();
}

TEST(write_failure)
{
	struct result r;

	make_tree();
	r = pctr("stat", "-x", ",", "-o", "/dev/full", "-e", EVENTS, "--",
		 SELF, "touch", "10", NULL);
	ASSERT_NE(r.status, 0);
	ASSERT_CONTAINS(r.err, "-o /dev/full: No space left on device");
	r = pctr("stat", "--format=pctr-csv", "-o", "/dev/full", "-e", EVENTS,
		 "--", SELF, "touch", "10", NULL);
	ASSERT_NE(r.status, 0);
	ASSERT_CONTAINS(r.err, "-o /dev/full: No space left on device");
	cleanup();
}

/*
 * The tree over the real PMUs' directory, in a mount namespace of ours,
 * /sys made private there first: not "/", which is no mount in a chroot
 * (EINVAL: this case skipped there).
 */
static void
bind_tree(void)
{
	if (geteuid() != 0)
		SKIP("perf sees the fake PMU in a mount namespace: root only");
	if (unshare(CLONE_NEWNS) < 0)
		SKIP("no mount namespace here: %s", strerror(errno));
	if (mount(NULL, "/sys", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(devices, DEVICES, NULL, MS_BIND, NULL) < 0)
		SKIP("cannot bind a tree over " DEVICES ": %s",
		     strerror(errno));
	unsetenv("PCTR_SYSFS_ROOT"); /* both read /sys now */
}

/* perf stat and pctr stat, -x, on the same command: the same figures */
TEST(beside_perf)
{
	const char *const args[] = { "stat", "-x", ",", "-e", EVENTS, "--",
				     SELF, "touch", PAGES_S, NULL };
	const char *const *const parts[] = { args, NULL };
	struct result p, r;
	struct fig a, b;

	needs_perf();
	make_tree();
	bind_tree();
	perf_and_pctr(parts, &p, &r);
	ASSERT_EQ(p.status, 0);
	ASSERT_EQ(r.status, 0);
	a = figures(p.err); /* perf writes its report on stderr */
	b = figures(r.err);
	scaled_like_perf(&a, "perf");
	scaled_like_perf(&b, "pctr");
	ASSERT_STR_EQ(b.unit, a.unit);
	ASSERT_STR_EQ(b.event, a.event);
	/* the values differ as much as the two commands' page faults */
	if (fabs(a.joules - b.joules) >
	    fabs(a.faults - b.faults) * SCALE + 0.01 + 4 * SCALE)
		TEST_FAIL("perf %s Joules (%.0f faults), pctr %s (%.0f)",
			  a.value, a.faults, b.value, b.faults);
	cleanup();
}

int
main(int argc, char **argv)
{
	int h = helper_main(argc, argv);

	if (h >= 0)
		return h;
	find_self(argv[0]);
	return test_main(TESTS(
		TEST_CASE(csv_as_perf_shows_it) TEST_CASE(json_as_perf_shows_it)
		TEST_CASE(pctr_json_counts_with_scale)
		TEST_CASE(pctr_csv_scale_column)
		TEST_CASE(table_says_what_a_count_is)
		TEST_CASE(bad_scale_said) TEST_CASE(write_failure)
		TEST_CASE(beside_perf)));
}
