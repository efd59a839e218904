/* SPDX-License-Identifier: MIT */
/*
 * test_info - pctr info agrees with what the kernel says in /proc and
 * /sys, and with what a user without privileges gets from
 * perf_event_open(2) itself.
 */
#include <dirent.h>
#include <grp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

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

/* task-clock on self (user or kernel mode only) or cpu-clock on CPU 0 */
static int
opens(bool kernel, bool cpu)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .size = sizeof(a),
				     .config = cpu ? PERF_COUNT_SW_CPU_CLOCK
						   : PERF_COUNT_SW_TASK_CLOCK,
				     .exclude_user = kernel && !cpu,
				     .exclude_kernel = !kernel && !cpu,
				     .exclude_hv = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &a, cpu ? -1 : 0,
			      cpu ? 0 : -1, -1, 0);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* the three, as the user nobody when root (a child), else as oneself */
static int
allowed_bits(void)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		return opens(false, false) | opens(true, false) << 1 |
		       opens(false, true) << 2;
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(99);
		_exit(opens(false, false) | opens(true, false) << 1 |
		      opens(false, true) << 2);
	}
	ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) != 99);
	return WEXITSTATUS(status);
}

/*
 * What a user without privileges may count is tried, not read from the
 * level (level 3 stops everything only with Debian's patch): pctr info
 * says what perf_event_open(2) does for such a user here.
 */
TEST(unprivileged_counting_tried)
{
	static const char *yes_no[] = { "no", "yes" };
	struct result r = pctr("info", "--json", NULL);
	int bits = allowed_bits();
	char script[512], line[160];

	ASSERT_EQ(r.status, 0);
	snprintf(script, sizeof(script),
		 "import json,sys\n"
		 "u=json.load(sys.stdin)['unprivileged']\n"
		 "print(int(u['user'])|int(u['kernel'])<<1|int(u['cpu'])<<2|"
		 "(u['tried_as']=='%s')<<3)\n",
		 geteuid() == 0 ? "nobody" : "self");
	ASSERT_EQ(python_num(script, r.out), bits | 8);
	/* the kernel's configuration, read by python */
	ASSERT_EQ(python_num("import gzip,json,os,sys\n"
			     "p='/boot/config-'+os.uname().release\n"
			     "try: t=open(p).read()\n"
			     "except OSError:\n"
			     " try: t=gzip.open('/proc/config.gz','rt').read()\n"
			     " except OSError: t=None\n"
			     "k='CONFIG_SECURITY_PERF_EVENTS_RESTRICT=y\\n'\n"
			     "w=None if t is None else k in t\n"
			     "u=json.load(sys.stdin)['unprivileged']\n"
			     "print(int(u['restrict_patch']==w))\n", r.out), 1);
	r = pctr("info", NULL);
	snprintf(line, sizeof(line), "without privileges    user mode %s, "
		 "kernel mode %s, whole CPUs %s (tried as ",
		 yes_no[bits & 1], yes_no[bits >> 1 & 1], yes_no[bits >> 2]);
	ASSERT_CONTAINS(r.out, line);
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
			       TEST_CASE(unprivileged_counting_tried)
			       TEST_CASE(bad_argument)));
}
