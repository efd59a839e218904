/* SPDX-License-Identifier: MIT */
/* test_list - pctr list: every software event, patterns, JSON, errors. */
#include "tool.h"

TEST(lists_software_events)
{
	static const char *const sw[] = { "task-clock", "page-faults",
					  "context-switches", "cpu-migrations" };
	struct result r = pctr("list", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "Software events, counted by the kernel "
			       "(pctr stat -e NAME):");
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		ASSERT_CONTAINS(r.out, sw[i]);
	ASSERT_CONTAINS(r.out, "time the task ran, nanoseconds");
}

/* a pattern keeps only matching lines (under their headings) */
TEST(pattern_filters)
{
	struct result r = pctr("list", "FAULT", NULL);
	char *save = NULL;
	int n = 0;

	ASSERT_EQ(r.status, 0);
	for (char *l = strtok_r(r.out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (l[0] != ' ')
			continue;
		ASSERT(strcasestr(l, "fault"));
		n++;
	}
	ASSERT_GE(n, 4); /* page-, minor-, major-, alignment- ... faults */
}

TEST(dash_l_is_list)
{
	struct result a = pctr("-l", "task-clock", NULL);
	struct result b = pctr("list", "task-clock", NULL);

	ASSERT_EQ(a.status, 0);
	ASSERT_STR_EQ(a.out, b.out);
}

TEST(json_listing)
{
	static const char *check =
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"n={e['name']:e for e in d['events']}\n"
		"ok=(d['schema']=='pctr-list/1' and d['pattern'] is None and\n"
		"    n['page-faults']['source']=='software' and\n"
		"    n['page-faults']['usage']=='pctr stat -e page-faults' and\n"
		"    n['page-faults']['countable'] is True and\n"
		"    all(set(e)>={'source','name','desc'} for e in d['events']))\n"
		"print(1 if ok else 0)\n";
	struct result r = pctr("list", "--json", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

/*
 * perf's tool events, which perf list shows as "[Tool event]": listed
 * after the library's, each one pctr stat counts
 */
TEST(lists_tool_events)
{
	static const char *check =
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"t=[e['name'] for e in d['events'] if e['source']=='tool']\n"
		"print(1 if t==['duration_time','user_time','system_time'] and\n"
		"      d['events'][-1]['source']=='tool' else 0)\n";
	static const char *names[] = { "duration_time", "user_time",
				       "system_time" };
	struct result r = pctr("list", "_time", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "Tool events, as perf's");
	for (int i = 0; i < 3; i++) {
		ASSERT_CONTAINS(r.out, names[i]);
		r = pctr("stat", "-x,", "-e", names[i], "true", NULL);
		ASSERT_EQ(r.status, 0);
		ASSERT_CONTAINS(r.err, names[i]);
		r = pctr("list", "_time", NULL);
	}
	r = pctr("list", "--json", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
	/* a source filter keeps them out */
	r = pctr("list", "tracepoint", "_time", NULL);
	ASSERT(strstr(r.out, "user_time") == NULL);
}

TEST(glob_pattern)
{
	struct result r = pctr("list", "--json", "*-clock", NULL);
	static const char *check =
		"import json,sys\n"
		"print(sorted(e['name'] for e in json.load(sys.stdin)"
		"['events'])==['cpu-clock','task-clock'] and 1 or 0)\n";

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

TEST(no_match_and_bad_option)
{
	struct result r = pctr("list", "no-such-event-anywhere", NULL);

	ASSERT_EQ(r.status, 1);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, "no event matches 'no-such-event-anywhere'");
	r = pctr("list", "--bogus", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_STR_EQ(r.out, "");
}

/*
 * pctr list tracepoint where tracefs is not mounted (an empty sysfs root):
 * the library's reason, on one line, and how to mount it.
 */
TEST(tracepoints_without_tracefs)
{
	char root[] = "/tmp/pctr-list-XXXXXX";
	struct result r;

	ASSERT(mkdtemp(root) != NULL);
	setenv("PCTR_SYSFS_ROOT", root, 1);
	r = pctr("list", "tracepoint", NULL);
	unsetenv("PCTR_SYSFS_ROOT");
	rmdir(root);
	ASSERT_EQ(r.status, 1);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_STR_EQ(r.err, "pctr list: no tracepoints: tracefs is not "
			     "mounted (as root: mount -t tracefs nodev "
			     "/sys/kernel/tracing)\n");
}

/*
 * pctr list metrics: every built-in metric with its events, countable as
 * the machine's PMU allows (cpus_utilized, of task-clock, everywhere; ipc
 * where there is a hardware PMU; the top-down ones not on this x86 VM); a
 * pattern keeps the matching ones; no match is status 1 with an empty
 * list in JSON.
 */
TEST(list_metrics)
{
	static const char *check =
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"pmu=json.load(open(sys.argv[1]))['machine']['has_pmu']\n"
		"n={m['name']:m for m in d['metrics']}\n"
		"ok=(d['schema']=='pctr-list-metrics/1' and\n"
		"    n['cpus_utilized']['countable'] is True and\n"
		"    n['cpus_utilized']['denominator'] is None and\n"
		"    n['ipc']['countable'] is pmu and\n"
		"    n['ipc']['events']=='instructions,cycles' and\n"
		"    n['frontend_bound']['events'].startswith('{') and\n"
		"    len(n)==10)\n"
		"print(1 if ok else 0)\n";
	char path[] = "/tmp/pctr-info-XXXXXX", script[1024];
	struct result r = pctr("info", "--json", NULL);
	FILE *f;
	int fd = mkstemp(path);

	ASSERT(fd >= 0 && (f = fdopen(fd, "w")) != NULL);
	fputs(r.out, f);
	fclose(f);
	r = pctr("list", "metrics", "--json", NULL);
	ASSERT_EQ(r.status, 0);
	snprintf(script, sizeof(script), "import sys\nsys.argv=['', '%s']\n%s",
		 path, check);
	ASSERT_EQ(python_num(script, r.out), 1);
	unlink(path);
	r = pctr("list", "metrics", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "Derived metrics (pctr stat -M NAME[,NAME]):");
	ASSERT_CONTAINS(r.out, "cpus_utilized");
	r = pctr("list", "metrics", "MISS", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "branch_miss_ratio");
	ASSERT(strstr(r.out, "cpus_utilized") == NULL);
	r = pctr("list", "metrics", "zzz", "--json", NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_CONTAINS(r.out, "\"metrics\": []");
	ASSERT_CONTAINS(r.err, "no metric matches 'zzz'");
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(lists_software_events)
			       TEST_CASE(pattern_filters)
			       TEST_CASE(dash_l_is_list) TEST_CASE(json_listing)
			       TEST_CASE(lists_tool_events)
			       TEST_CASE(glob_pattern)
			       TEST_CASE(no_match_and_bad_option)
			       TEST_CASE(tracepoints_without_tracefs)
			       TEST_CASE(list_metrics)));
}
