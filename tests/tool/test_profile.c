/* SPDX-License-Identifier: MIT */
/*
 * test_profile - pctr profile of examples/hotspots, whose hot_three()
 * costs three times what hot_one() costs: the profile must rank them so,
 * with shares near 75% and 25%, under symbol names read from the ELF file.
 */
#include <libgen.h>

#include "tool.h"

static const char *
hotspots(void)
{
	static char path[4096];
	const char *w = getenv("WORKLOAD");
	char *copy;

	if (!w)
		SKIP("$WORKLOAD is not set (run through meson test)");
	copy = strdup(w);
	snprintf(path, sizeof(path), "%s/hotspots", dirname(copy));
	free(copy);
	if (access(path, X_OK))
		SKIP("examples/hotspots was not built");
	return path;
}

/* share of function @fn in the JSON report (the last line: the command
 * writes to the same stdout) */
static double
share(const char *json, const char *fn)
{
	char script[512];

	snprintf(script, sizeof(script),
		 "import json,sys\n"
		 "d=json.loads(sys.stdin.read().splitlines()[-1])\n"
		 "assert d['schema']=='pctr-profile/1'\n"
		 "print(sum(f['share'] for f in d['functions']"
		 " if f['name'].split('.')[0]=='%s'))",
		 fn);
	return python_num(script, json);
}

TEST(ranks_hotspots_by_cost)
{
	struct result r = pctr("profile", "-e", "task-clock", "-F", "2000",
			       "--json", "--", hotspots(), "200", NULL);
	double three, one;

	ASSERT_EQ(r.status, 0);
	three = share(r.out, "hot_three");
	one = share(r.out, "hot_one");
	printf("# hot_three %.3f, hot_one %.3f\n", three, one);
	/* 3:1 of the work, 0.75 and 0.25: within 0.06 */
	ASSERT_DBL_NEAR(three, 0.75, 0.06);
	ASSERT_DBL_NEAR(one, 0.25, 0.06);
}

TEST(text_report_with_period)
{
	struct result r = pctr("profile", "-e", "task-clock", "-c", "1000000",
			       "--", hotspots(), "50", NULL);
	char *a, *b;

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "samples of task-clock (every 1000000 events)");
	a = strstr(r.out, "hot_three");
	b = strstr(r.out, "hot_one");
	ASSERT(a && b && a < b); /* ranked first */
}

TEST(exit_status_and_errors)
{
	struct result r;

	r = pctr("profile", "-e", "task-clock", "--", "sh", "-c", "exit 7",
		 NULL);
	ASSERT_EQ(r.status, 7);
	r = pctr("profile", "--", "/nonexistent/command", NULL);
	ASSERT_EQ(r.status, 127);
	r = pctr("profile", "-c", "0", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("profile", "-c", "10", "-F", "10", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("profile", "-e", "no-such-event", "--", "true", NULL);
	ASSERT_EQ(r.status, 3);
	r = pctr("profile", "-e", "task-clock", "-F", "100000000", "--",
		 "true", NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_CONTAINS(r.err, "max_sample_rate");
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return test_main(TESTS(TEST_CASE(ranks_hotspots_by_cost)
			       TEST_CASE(text_report_with_period)
			       TEST_CASE(exit_status_and_errors)));
}
