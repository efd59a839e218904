/* SPDX-License-Identifier: MIT */
/*
 * test_profile - pctr profile of examples/hotspots, whose hot_three()
 * costs three times what hot_one() costs: the profile must rank them so,
 * with shares near 75% and 25%, under symbol names read from the ELF file.
 * The report, like pctr stat's, never mixes with the command's output:
 * standard error by default, -o FILE (not inherited), -o - for stdout.
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

/* share of function @fn in the JSON report (with -o -, the last line: the
 * command writes its result to the same stdout first) */
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
			       "--json", "-o", "-", "--", hotspots(), "200",
			       NULL);
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
	/* standard error by default: stdout is the command's own, a number */
	ASSERT(strspn(r.out, "0123456789") == strlen(r.out) - 1);
	ASSERT_STR_EQ(r.out + strlen(r.out) - 1, "\n");
	ASSERT_CONTAINS(r.err, "samples of task-clock (every 1000000 events)");
	a = strstr(r.err, "hot_three");
	b = strstr(r.err, "hot_one");
	ASSERT(a && b && a < b); /* ranked first */
}

/*
 * -o FILE: the report in FILE only; the command's output untouched, and
 * the command does not inherit FILE (it lists its own open files).
 */
TEST(output_file_separate)
{
	char path[64];
	int fd = tmp_file(path);
	struct result r;
	char *rep;

	ASSERT(fd >= 0);
	close(fd);
	r = pctr("profile", "-e", "task-clock", "-o", path, "--", "sh", "-c",
		 "echo out; echo err >&2; ls -l /proc/$$/fd/", NULL);
	rep = slurp(path);
	unlink(path);
	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(r.err, "err\n");
	ASSERT(!strncmp(r.out, "out\n", 4));
	ASSERT(!strstr(r.out, path)); /* not among the command's fds */
	ASSERT_CONTAINS(rep, "samples of task-clock (1000 Hz)");
	ASSERT(!strstr(rep, "out\n") && !strstr(rep, "err\n"));
	/* an unwritable -o fails before the command runs */
	r = pctr("profile", "-e", "task-clock", "-o", "/nonexistent/dir/f",
		 "--", "sh", "-c", "echo ran", NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, "/nonexistent/dir/f");
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
			       TEST_CASE(output_file_separate)
			       TEST_CASE(exit_status_and_errors)));
}
