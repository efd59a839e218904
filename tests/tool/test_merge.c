/* SPDX-License-Identifier: MIT */
/*
 * test_merge - pctr merge: reports written here with known counts reduced
 * to the figures worked out by hand, pctr-mpi/1 read back by python's json
 * module, real pctr stat reports (JSON and JSON Lines), and bad reports
 * refused by name with nothing written.
 */
#include "tool.h"

#define SELF self_exe, "helper"

static char dir[] = "/tmp/pctr-merge-XXXXXX";

/* a pctr-stat/1 report of one host with @runs runs of each event */
static const char *
stat_file(const char *name, const char *host, const char *events)
{
	static char path[8][128];
	static int n;
	char *p = path[n++ % 8];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "w");
	ASSERT(f != NULL);
	fprintf(f, "{\"schema\": \"pctr-stat/1\", \"pctr_version\": \"0.1.0\", "
		   "\"host\": \"%s\", \"runs\": 1, "
		   "\"exit\": {\"status\": 0, \"signal\": null}, "
		   "\"events\": [%s]}\n",
		host, events);
	fclose(f);
	return p;
}

static const char *
write_file(const char *name, const char *text)
{
	static char path[8][128];
	static int n;
	char *p = path[n++ % 8];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "w");
	ASSERT(f != NULL);
	fputs(text, f);
	fclose(f);
	return p;
}

#define EV(name, v) \
	"{\"name\": \"" name "\", \"supported\": true, \"runs\": " \
	"[{\"value\": " #v ", \"scaled\": " #v "}]}"

/* three hosts: faults 5, 17, 11; switches 2, 2, 2 */
static void
three(const char **a, const char **b, const char **c)
{
	*a = stat_file("a.json", "alpha",
		       EV("page-faults", 5) ", " EV("context-switches", 2));
	*b = stat_file("b.json", "beta",
		       EV("page-faults", 17) ", " EV("context-switches", 2));
	*c = stat_file("c.json", "gamma",
		       EV("page-faults", 11) ", " EV("context-switches", 2));
}

static const char *
py(const char *expr, const char *json)
{
	char script[1024];

	snprintf(script, sizeof(script),
		 "import json,sys\nd=json.load(sys.stdin)\nprint(%s)\n", expr);
	return keep(python(script, json));
}

TEST(json_reduction_of_known_counts)
{
	const char *a, *b, *c;
	struct result r;

	three(&a, &b, &c);
	r = pctr("merge", "--json", a, b, c, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(r.err, "");
	ASSERT_STR_EQ(py("d['schema'], d['size'], d['missing']", r.out),
		      "pctr-mpi/1 3 []\n");
	ASSERT_STR_EQ(py("[(k['rank'], k['host'], k['file'].split('/')[-1], "
			 "k['counts']['page-faults']) for k in d['ranks']]",
			 r.out),
		      "[(0, 'alpha', 'a.json', 5), (1, 'beta', 'b.json', 17), "
		      "(2, 'gamma', 'c.json', 11)]\n");
	/* 5 + 17 + 11 = 33, mean 11, max 17 on rank 1: 17 / 11 */
	ASSERT_STR_EQ(py("[d['events']['page-faults'][k] for k in ('ranks', "
			 "'total', 'min', 'mean', 'max', 'max_rank')]",
			 r.out),
		      "[3, 33, 5, 11, 17, 1]\n");
	ASSERT_DBL_NEAR(python_num("import json,sys\nprint(json.load(sys.stdin)"
				   "['events']['page-faults']['imbalance'])",
				   r.out),
			17.0 / 11.0, 1e-12);
	/* equal counts: the first rank holds the maximum, no imbalance */
	ASSERT_STR_EQ(py("[d['events']['context-switches'][k] for k in "
			 "('total', 'max_rank', 'imbalance')]",
			 r.out),
		      "[6, 0, 1]\n");
}

TEST(text_report_names_the_maximum)
{
	const char *a, *b, *c;
	struct result r;

	three(&a, &b, &c);
	r = pctr("merge", "--per-rank", a, b, c, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "3 ranks, 3 reported\n");
	ASSERT_CONTAINS(r.out, "33");
	ASSERT_CONTAINS(r.out, "1.5455"); /* 17 / 11 */
	ASSERT_CONTAINS(r.out, "max of page-faults: rank 1 (");
	ASSERT_CONTAINS(r.out, "b.json)");
	ASSERT_CONTAINS(r.out, "beta");
	ASSERT(strstr(r.out, "missing") == NULL);
}

/*
 * Runs add up; counts past 2^53 stay exact; an event a host could not
 * count is no count there (not a zero); a pctr-mpi/1 report's ranks follow
 * the ranks before it, its missing ranks stay missing.
 */
TEST(runs_large_counts_unsupported_and_mpi_input)
{
	const char *a = stat_file("r.json", "h",
		"{\"name\": \"page-faults\", \"runs\": ["
		"{\"scaled\": 1152921504606846977}, "
		"{\"scaled\": 1152921504606846979}]}, "
		"{\"name\": \"cycles\", \"supported\": false, \"runs\": []}");
	const char *m = write_file("m.json",
		"{\"schema\": \"pctr-mpi/1\", \"size\": 3, \"ranks\": ["
		"{\"rank\": 0, \"host\": \"x\", \"counts\": "
		"{\"page-faults\": 7, \"cycles\": 100}}, "
		"{\"rank\": 2, \"host\": \"y\", \"counts\": "
		"{\"page-faults\": 9, \"cycles\": 300}}]}");
	struct result r = pctr("merge", "--json", a, m, NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(py("d['size'], d['missing'], [k['rank'] for k in "
			 "d['ranks']]", r.out),
		      "4 [2] [0, 1, 3]\n");
	/* 2^60 + 1 + 2^60 + 3 = 2^61 + 4, then + 7 + 9 */
	ASSERT_STR_EQ(py("d['ranks'][0]['counts'], "
			 "d['events']['page-faults']['total']", r.out),
		      "{'page-faults': 2305843009213693956} "
		      "2305843009213693972\n");
	ASSERT_STR_EQ(py("[d['events']['cycles'][k] for k in ('ranks', "
			 "'total', 'max_rank')]", r.out),
		      "[2, 400, 3]\n");
	r = pctr("merge", a, m, NULL);
	ASSERT_CONTAINS(r.out, "missing ranks (no counts came back): 2\n");
}

/* reports of pctr stat itself: one document, and JSON Lines (-I) */
TEST(reports_of_pctr_stat)
{
	char path[3][128];
	struct result r;

	for (int i = 0; i < 2; i++) {
		char n[16];

		snprintf(path[i], sizeof(path[i]), "%s/stat%d.json", dir, i);
		snprintf(n, sizeof(n), "%d", 100 * (i + 1));
		r = pctr("stat", "--format=pctr-json", "-o", path[i], "-e",
			 "page-faults,task-clock", "--", SELF, "touch", n,
			 NULL);
		ASSERT_EQ(r.status, 0);
	}
	snprintf(path[2], sizeof(path[2]), "%s/lines.json", dir);
	r = pctr("stat", "--format=pctr-json", "-I", "100", "-o", path[2], "-e",
		 "page-faults", "--", SELF, "sleep", "250", NULL);
	ASSERT_EQ(r.status, 0);
	r = pctr("merge", "--json", path[0], path[1], path[2], NULL);
	ASSERT_EQ(r.status, 0);
	/* the counts are the reports' own, as python reads them */
	ASSERT_STR_EQ(py("[k['counts']['page-faults'] == json.load(open(f))"
			 "['events'][0]['runs'][0]['scaled'] for k, f in "
			 "zip(d['ranks'][:2], "
			 "[k['file'] for k in d['ranks']])]",
			 r.out),
		      "[True, True]\n");
	ASSERT_STR_EQ(py("len(d['ranks']), d['ranks'][2]['counts'].keys() == "
			 "{'page-faults'}, 'task-clock' in d['events']",
			 r.out),
		      "3 True True\n");
	ASSERT_STR_EQ(py("d['ranks'][0]['host'] == __import__('socket')"
			 ".gethostname()", r.out),
		      "True\n");
}

static void
refused(const char *file, const char *why)
{
	const char *a = stat_file("ok.json", "h", EV("page-faults", 1));
	char out[160];
	struct result r;

	snprintf(out, sizeof(out), "%s/out", dir);
	unlink(out);
	r = pctr("merge", "-o", out, a, file, NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, file);
	ASSERT_CONTAINS(r.err, why);
	ASSERT(access(out, F_OK) < 0); /* nothing written */
	r = pctr("merge", file, NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_STR_EQ(r.out, "");
}

TEST(bad_reports_refused_by_name)
{
	char good[4096];
	const char *a = stat_file("full.json", "h", EV("page-faults", 1));
	FILE *f = fopen(a, "r");
	size_t n = fread(good, 1, sizeof(good) - 1, f);
	char cut[4096];

	fclose(f);
	good[n] = '\0';
	/* every truncation of a good report */
	for (size_t k = 1; k + 1 < n; k += 7) {
		memcpy(cut, good, k);
		cut[k] = '\0';
		refused(write_file("cut.json", cut), "cut.json");
	}
	refused(write_file("trunc.json", "{\"schema\": \"pctr-stat/1\", "
					 "\"events\": ["),
		"truncated JSON");
	refused(write_file("empty.json", ""), "no pctr-stat/1 or pctr-mpi/1");
	refused(write_file("other.json", "{\"schema\": \"pctr-list/1\"}"),
		"not a pctr-stat/1 or pctr-mpi/1 report");
	refused(write_file("text.json", "page-faults 12\n"), "at byte 0");
	refused(write_file("after.json", "{\"schema\": \"pctr-stat/1\", "
					 "\"events\": []} x"),
		"unexpected character at byte 40");
	refused(stat_file("neg.json", "h", EV("page-faults", -4)),
		"events[0].runs[0].scaled is not a count");
	refused(stat_file("str.json", "h",
			  "{\"name\": \"page-faults\", \"runs\": "
			  "[{\"scaled\": \"12\"}]}"),
		"is not a count");
	refused(write_file("noev.json", "{\"schema\": \"pctr-stat/1\"}"),
		"without an \"events\" array");
	refused(write_file("mpi.json", "{\"schema\": \"pctr-mpi/1\", "
				       "\"size\": 2, \"ranks\": [{\"rank\": 2, "
				       "\"counts\": {}}]}"),
		"ranks[0] needs a \"rank\" from 0 to 1");
	refused("/nonexistent/x.json", "No such file");
}

/*
 * Counts near 2^64: a double past 2^63 is read exactly (1.5e19 is an
 * integer in binary64), a sum past 2^64 - 1 is refused with the file and
 * the field where it passed, never wrapped to a total below its parts.
 */
TEST(counts_past_2_63_and_sums_past_2_64)
{
	const char *a = stat_file("d.json", "h",
		"{\"name\": \"page-faults\", \"runs\": "
		"[{\"scaled\": 1.5e19}]}");
	const char *b = stat_file("e.json", "h",
		"{\"name\": \"page-faults\", \"runs\": "
		"[{\"scaled\": 3.1e18}]}");
	const char *big1 = stat_file("big1.json", "h",
				     EV("page-faults", 10000000000000000000));
	const char *big2 = stat_file("big2.json", "h",
				     EV("page-faults", 10000000000000000000));
	char out[160];
	struct result r = pctr("merge", "--json", a, b, NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(py("[k['counts']['page-faults'] for k in d['ranks']]",
			 r.out),
		      "[15000000000000000000, 3100000000000000000]\n");
	/* 1e19 + 1e19 would be 1553255926290448384 in uint64_t */
	snprintf(out, sizeof(out), "%s/out", dir);
	unlink(out);
	r = pctr("merge", "-o", out, big1, big2, NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, "big2.json");
	ASSERT_CONTAINS(r.err, "page-faults");
	ASSERT_CONTAINS(r.err, "2^64");
	ASSERT(access(out, F_OK) < 0);
	/* within one report: its runs, and an event listed twice */
	refused(stat_file("runs.json", "h",
			  "{\"name\": \"page-faults\", \"runs\": ["
			  "{\"scaled\": 10000000000000000000}, "
			  "{\"scaled\": 10000000000000000000}]}"),
		"events[0].runs[1].scaled");
	refused(stat_file("twice.json", "h",
			  EV("page-faults", 10000000000000000000) ", "
			  EV("page-faults", 10000000000000000000)),
		"events[1]");
	refused(write_file("mpibig.json", "{\"schema\": \"pctr-mpi/1\", "
			   "\"size\": 2, \"ranks\": [{\"rank\": 0, "
			   "\"counts\": {\"x\": 10000000000000000000}}, "
			   "{\"rank\": 1, \"counts\": "
			   "{\"x\": 10000000000000000000}}]}"),
		"ranks[1].counts.x");
}

/* a job where no rank came back: every rank missing, no event */
TEST(report_without_a_rank)
{
	const char *m = write_file("none.json", "{\"schema\": \"pctr-mpi/1\", "
				   "\"size\": 2, \"ranks\": []}");
	struct result r = pctr("merge", "--json", m, NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(r.err, "");
	ASSERT_STR_EQ(py("d['size'], d['missing'], d['ranks'], d['events']",
			 r.out),
		      "2 [0, 1] [] {}\n");
	r = pctr("merge", m, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "missing ranks (no counts came back): 0, 1\n");
}

/* a pctr-mpi/1 report that lists a rank twice: pctr mpirun refuses that */
TEST(rank_listed_twice_refused)
{
	refused(write_file("dup.json", "{\"schema\": \"pctr-mpi/1\", "
			   "\"size\": 3, \"ranks\": [{\"rank\": 1, "
			   "\"counts\": {\"x\": 4}}, {\"rank\": 0, "
			   "\"counts\": {\"x\": 5}}, {\"rank\": 1, "
			   "\"counts\": {\"x\": 6}}]}"),
		"ranks[2]: rank 1 is listed twice");
}

TEST(usage_errors)
{
	struct result r = pctr("merge", NULL);

	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "no report to merge");
	r = pctr("merge", "--bogus", "x", NULL);
	ASSERT_EQ(r.status, 2);
}

int
main(int argc, char **argv)
{
	int h = helper_main(argc, argv), st;
	char cmd[64];

	if (h >= 0)
		return h;
	find_self(argv[0]);
	if (!mkdtemp(dir))
		return 1;
	st = test_main(TESTS(
		TEST_CASE(json_reduction_of_known_counts)
		TEST_CASE(text_report_names_the_maximum)
		TEST_CASE(runs_large_counts_unsupported_and_mpi_input)
		TEST_CASE(reports_of_pctr_stat)
		TEST_CASE(bad_reports_refused_by_name)
		TEST_CASE(counts_past_2_63_and_sums_past_2_64)
		TEST_CASE(rank_listed_twice_refused)
		TEST_CASE(report_without_a_rank)
		TEST_CASE(usage_errors)));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		st = 1;
	return st;
}
