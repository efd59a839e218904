/* SPDX-License-Identifier: MIT */
/* test_info - pctr info agrees with what the kernel says in /proc and /sys. */
#include <dirent.h>

#include "tool.h"

static int
read_int(const char *path)
{
	char *s = slurp(path);
	int v = *s ? atoi(s) : -9999;

	free(s);
	return v;
}

/* a core PMU, as the library names them */
static bool
sysfs_has_core_pmu(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		found |= !strcmp(e->d_name, "cpu") ||
			 !strncmp(e->d_name, "cpu_", 4) ||
			 !strncmp(e->d_name, "armv8_", 6) ||
			 !strncmp(e->d_name, "armv9_", 6);
	if (d)
		closedir(d);
	return found;
}

TEST(json_matches_kernel)
{
	char script[1024];
	struct result r = pctr("info", "--json", NULL);

	ASSERT_EQ(r.status, 0);
	snprintf(script, sizeof(script),
		 "import json,sys\n"
		 "d=json.load(sys.stdin)\n"
		 "m=d['machine']\n"
		 "ids=[p['id'] for p in d['problems']]\n"
		 "ok=(d['schema']=='pctr-info/1' and\n"
		 "    m['perf_event_paranoid']==%d and\n"
		 "    m['has_pmu']==%s and ('no_pmu' in ids)==(not m['has_pmu'])\n"
		 "    and d['nr_cpus']==%ld and m['tsc_hz']>1e6 and\n"
		 "    'software' in d['event_sources'] and\n"
		 "    all(p['fix'] for p in d['problems']))\n"
		 "print(1 if ok else 0)\n",
		 read_int("/proc/sys/kernel/perf_event_paranoid"),
		 sysfs_has_core_pmu() ? "True" : "False",
		 sysconf(_SC_NPROCESSORS_ONLN));
	ASSERT_EQ(python_num(script, r.out), 1);
}

TEST(human_report)
{
	struct result r = pctr("info", NULL);
	char line[128];

	ASSERT_EQ(r.status, 0);
	snprintf(line, sizeof(line), "perf_event_paranoid   %d (",
		 read_int("/proc/sys/kernel/perf_event_paranoid"));
	ASSERT_CONTAINS(r.out, line);
	ASSERT_CONTAINS(r.out, sysfs_has_core_pmu() ? "hardware PMU          yes"
						    : "hardware PMU          no");
	if (!sysfs_has_core_pmu())
		ASSERT_CONTAINS(r.out, "fix: ");
}

TEST(bad_argument)
{
	struct result r = pctr("info", "extra", NULL);

	ASSERT_EQ(r.status, 2);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, "unexpected argument 'extra'");
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(json_matches_kernel)
			       TEST_CASE(human_report)
			       TEST_CASE(bad_argument)));
}
