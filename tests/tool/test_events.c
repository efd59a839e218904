/* SPDX-License-Identifier: MIT */
/*
 * test_events - the event language of -e as perf's users type it, judged
 * by Debian's perf on the same command lines: group modifiers "{a,b}:u",
 * tracepoint globs "sched:*", a list of which nothing can be counted, and
 * profile's fallback from cycles to cpu-clock without a PMU.
 */
#include <sys/mount.h>
#include <sys/syscall.h>

#include <pctr.h>

#include "tool.h"

#define SELF self_exe, "helper"

/* "getpid N": N getpid system calls, not cached by libc */
static int
events_main(int argc, char **argv)
{
	if (argc != 4 || strcmp(argv[1], "helper") ||
	    strcmp(argv[2], "getpid"))
		return -1;
	for (long i = atol(argv[3]); i > 0; i--)
		syscall(SYS_getpid);
	return 0;
}

/*
 * perf stat -x, ARGS: the value of the first row whose event is @event
 * (perf 6.1 names a member of "{a,b}:u" without the ":u")
 */
static double
perf_value(const char *event, char *const args[])
{
	char *argv[32] = { PERF, "stat", "-x", ",", NULL };
	char script[512];
	struct result r;
	int n = 4;

	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	r = run_in(argv, NULL);
	ASSERT_EQ(r.status, 0);
	snprintf(script, sizeof(script),
		 "import csv,sys\n"
		 "v=[r[0] for r in csv.reader(sys.stdin) if len(r)>2 and "
		 "r[2]=='%s']\n"
		 "print(v[0] if v else 'none')\n", event);
	return python_num(script, r.err);
}

/*
 * "{page-faults,cs}:u": the fresh pages the command touches fault in user
 * mode, so ":u" counts them and ":k" does not; the counts are perf's
 * within the few faults by which two runs differ.
 */
TEST(group_modifiers_as_perf)
{
	char *args[] = { "-e", "{page-faults,cs}:u", "--", SELF, "touch",
			 "2000", NULL };
	struct result r;
	double u, k, p;

	needs_perf();
	r = pctr("stat", "--format=pctr-csv", "-x", ",", "-o", "-", "-e",
		 "{page-faults,cs}:u", "--", SELF, "touch", "2000", NULL);
	ASSERT_EQ(r.status, 0);
	u = csv_total(r.out, "page-faults:u");
	r = pctr("stat", "--format=pctr-csv", "-x", ",", "-o", "-", "-e",
		 "{page-faults,cs}:k", "--", SELF, "touch", "2000", NULL);
	ASSERT_EQ(r.status, 0);
	k = csv_total(r.out, "page-faults:k");
	p = perf_value("page-faults", args);
	ASSERT(u >= 2000);
	ASSERT(k < 1000);
	ASSERT(fabs(u - p) <= 50);
	/* what followed the '}' is said when it is no modifier */
	r = pctr("stat", "-e", "{page-faults,cs}x", "--", SELF, "exit", "0",
		 NULL);
	ASSERT_EQ(r.status, 3);
	ASSERT_CONTAINS(r.err, "followed by nothing or ':MODIFIERS'");
}

/* the number of rows of @event's kind ("total") whose name starts so */
static double
csv_rows(const char *csv, const char *prefix)
{
	char script[512];

	snprintf(script, sizeof(script),
		 "import csv,sys\n"
		 "print(len([r for r in csv.DictReader(sys.stdin) "
		 "if r['kind']=='total' and r['event'].startswith('%s')]))\n",
		 prefix);
	return python_num(script, csv);
}

/*
 * "syscalls:sys_enter_getp*": the getpid(2) calls of the command, as
 * perf counts them; "sched:*" as many tracepoints as perf's list has.
 */
TEST(tracepoint_globs_as_perf)
{
	bool mounted = tracefs_ready();
	char *args[] = { "-e", "syscalls:sys_enter_getp*", "--", SELF,
			 "getpid", "1000", NULL };
	char *list[] = { PERF, "list", "--raw-dump", "tracepoint", NULL };
	char count[] = "import sys\n"
		       "print(len([w for w in sys.stdin.read().split() "
		       "if w.startswith('sched:')]))\n";
	struct result r, p;
	double n;

	needs_perf();
	r = pctr("stat", "--format=pctr-csv", "-x", ",", "-o", "-", "-e",
		 "syscalls:sys_enter_getp*", "--", SELF, "getpid", "1000",
		 NULL);
	ASSERT_EQ(r.status, 0);
	n = csv_total(r.out, "syscalls:sys_enter_getpid");
	ASSERT(n >= 1000 && n < 1010);
	ASSERT_EQ(n, perf_value("syscalls:sys_enter_getpid", args));
	/* a call of its own: none here, but the sanitizers' run-time's */
	ASSERT_EQ(csv_total(r.out, "syscalls:sys_enter_getppid"),
		  perf_value("syscalls:sys_enter_getppid", args));
	r = pctr("stat", "--format=pctr-csv", "-x", ",", "-o", "-", "-e",
		 "sched:*", "--", SELF, "exit", "0", NULL);
	ASSERT_EQ(r.status, 0);
	p = run_in(list, NULL);
	ASSERT_EQ(p.status, 0);
	ASSERT(csv_rows(r.out, "sched:") >= 10);
	ASSERT_EQ(csv_rows(r.out, "sched:"), python_num(count, p.out));
	r = pctr("stat", "-e", "sched:no_such_*", "--", SELF, "exit", "0",
		 NULL);
	ASSERT_EQ(r.status, 3);
	ASSERT_CONTAINS(r.err, "no tracepoint matches 'sched:no_such_*'");
	if (mounted)
		umount("/sys/kernel/tracing");
}

/*
 * Nothing of the list countable: the command runs, its status is pctr's,
 * and each event is "<not supported>", as perf stat prints it.
 */
TEST(nothing_countable_runs_anyway)
{
	char *argv[] = { PERF, "stat", "-e", "cycles,instructions", "--",
			 SELF, "exit", "5", NULL };
	struct result r, p;

	if (has_pmu())
		SKIP("this machine counts cycles: no event here that cannot "
		     "be counted");
	needs_perf();
	p = run_in(argv, NULL);
	r = pctr("stat", "-e", "cycles,instructions", "--", SELF, "exit", "5",
		 NULL);
	ASSERT_EQ(r.status, p.status);
	ASSERT_EQ(r.status, 5);
	ASSERT_CONTAINS(p.err, "<not supported>");
	ASSERT_CONTAINS(r.err, " cycles              <not supported>");
	ASSERT_CONTAINS(r.err, " instructions        <not supported>");
	r = pctr("stat", "--strict", "-e", "cycles", "--", SELF, "exit", "5",
		 NULL);
	ASSERT_EQ(r.status, 3);
	ASSERT_CONTAINS(r.err, "cannot count 'cycles'");
}

/* profile -e cycles without a PMU samples cpu-clock, as perf record */
TEST(profile_cycles_falls_back)
{
	char data[] = "/tmp/pctr-events-XXXXXX";
	char *record[] = { PERF, "record", "-q", "-e", "cycles", "-o", data,
			   "--", SELF, "exit", "0", NULL };
	char *evlist[] = { PERF, "evlist", "-i", data, NULL };
	struct result r, p;
	int fd = mkstemp(data);

	if (has_pmu())
		SKIP("this machine samples cycles: nothing to fall back from");
	needs_perf();
	ASSERT(fd >= 0);
	close(fd);
	p = run_in(record, NULL);
	ASSERT_EQ(p.status, 0);
	p = run_in(evlist, NULL);
	ASSERT_CONTAINS(p.out, "cpu-clock");
	r = pctr("profile", "-e", "cycles:u", "-o", "-", "--", SELF, "spin",
		 "200", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "cycles:u cannot be sampled here (no hardware "
			       "PMU): sampling cpu-clock instead");
	ASSERT_CONTAINS(r.out, "samples of cpu-clock:u");
	r = pctr("profile", "-e", "instructions", "--", SELF, "exit", "0",
		 NULL);
	ASSERT_EQ(r.status, 3);
	unlink(data);
}

int
main(int argc, char **argv)
{
	int h = events_main(argc, argv);

	if (h < 0)
		h = helper_main(argc, argv);
	if (h >= 0)
		return h;
	find_self(argv[0]);
	return test_main(TESTS(TEST_CASE(group_modifiers_as_perf)
			       TEST_CASE(tracepoint_globs_as_perf)
			       TEST_CASE(nothing_countable_runs_anyway)
			       TEST_CASE(profile_cycles_falls_back)));
}
