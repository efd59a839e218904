/* SPDX-License-Identifier: MIT */
/*
 * test_perf_flags - more of the perf stat flags people type, each run
 * through Debian's perf too where perf runs here: -v/-vv, -q, -n,
 * --timeout, --all-user/--all-kernel, --pre/--post, -S, --log-fd,
 * --interval-clear, --summary, -C without -a, the status after
 * --interval-count, and the flags refused with what to type instead.
 */
#include <pctr.h>

#include "tool.h"

#define SELF self_exe, "helper"

/*
 * The count lines of -v ("EVENT: VALUE ENABLED RUNNING") and -vv
 * ("EVENT: CPU: ..."), perf's (before "=SPLIT=") and pctr's, and the
 * perf_event_attr blocks: the same events, CPUs, values consistent
 * (running <= enabled), and an attr block with -vv only
 */
static const char *const verbose_py =
	"import re,sys\n"
	"a,b=sys.stdin.read().split('\\n=SPLIT=\\n')\n"
	"def lines(t,cpu):\n"
	" r=r'^(\\S+): '+('(-?[0-9]+): ' if cpu else '')+"
	"r'([0-9]+) ([0-9]+) ([0-9]+)$'\n"
	" return [m.groups() for m in re.finditer(r,t,re.M)]\n"
	"def shape(t):\n"
	" tot=lines(t,False); each=lines(t,True)\n"
	" ok=all(int(x[-1])<=int(x[-2]) for x in tot+each)\n"
	" return ([x[0] for x in tot],sorted(set(x[:2] for x in each)),\n"
	"         'perf_event_attr:' in t, ok)\n"
	"p,q=shape(a),shape(b)\n"
	"print(1 if p==q and p[0] and q[3] else 0)\n"
	"if p!=q: print('perf',p,'pctr',q)\n";

/*
 * -v: each event's count and times after the run, as perf stat -v (once
 * pctr's -v was -vv); -vv: those, each CPU's or thread's before them, and
 * each event's perf_event_attr block, every line pctr prints of it a line
 * of perf's for the same event (perf adds the fields of how it opens:
 * read_format, inherit, disabled, enable_on_exec).
 */
TEST(verbose_shows_the_attr)
{
	static const char *check =
		"import sys\n"
		"a,b=sys.stdin.read().split('\\n=SPLIT=\\n')\n"
		"def block(t):\n"
		" l=t.split('perf_event_attr:\\n',1)[1].split('-----')[0]\n"
		" return [x for x in l.splitlines() if x.strip()]\n"
		"p=block(a); q=set(block(b))\n"
		"print(1 if len(p)>=4 and all(x in q for x in p) else 0)\n";
	static const char *const events[] = { "cs:u", "page-faults:k",
					      "mem:0x1000/8:w",
					      "{cs:k,page-faults}:u" };
	char both[16384];

	needs_perf();
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		struct result r = pctr("stat", "-vv", "-e", events[i], "--",
				       SELF, "exit", "0", NULL);
		struct result p = perf("stat", "-vv", "-e", events[i], "--",
				       SELF, "exit", "0", NULL);

		ASSERT_EQ(r.status, 0);
		ASSERT_CONTAINS(r.err, "perf_event_attr:\n  type ");
		snprintf(both, sizeof(both), "%s\n=SPLIT=\n%s", r.err, p.err);
		ASSERT_EQ(python_num(check, both), 1);
	}
	for (int v = 1; v <= 2; v++) {
		const char *flag = v == 1 ? "-v" : "-vv";
		struct result r = pctr("stat", flag, "-e", "cs,task-clock",
				       "--", SELF, "exit", "0", NULL);
		struct result p = perf("stat", flag, "-e", "cs,task-clock",
				       "--", SELF, "exit", "0", NULL);
		char *out;

		ASSERT_EQ(r.status, 0);
		ASSERT_EQ(p.status, 0);
		snprintf(both, sizeof(both), "%s\n=SPLIT=\n%s", p.err, r.err);
		out = python(verbose_py, both);
		if (*out != '1')
			TEST_FAIL("%s: not perf's: %s", flag, out + 2);
	}
}

/* -q: no report, the command's own output kept; -n: no default counters */
TEST(quiet_and_null_run)
{
	struct result r, p;

	needs_perf();
	r = pctr("stat", "-q", "-e", "cs", "--", SELF, "print", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(r.out, "from the command's stdout\n");
	ASSERT_STR_EQ(r.err, "from the command's stderr\n");
	r = pctr("stat", "-q", "-o", "/tmp/x", "--", SELF, "exit", "0", NULL);
	ASSERT_EQ(r.status, 2);
	/*
	 * perf 6.1's -n now and then reports before the command has run (1.5
	 * us elapsed, status 0): only its report's shape is compared
	 */
	r = pctr("stat", "-n", "--", SELF, "exit", "3", NULL);
	p = perf("stat", "-n", "--", SELF, "exit", "3", NULL);
	ASSERT_EQ(r.status, 3);
	ASSERT_CONTAINS(p.err, "seconds time elapsed");
	ASSERT_CONTAINS(r.err, "seconds elapsed");
	ASSERT(!strstr(r.err, "task-clock"));
	ASSERT(!strstr(p.err, "task-clock"));
	/* -n with -e: the events given still count, as perf's do */
	r = pctr("stat", "-n", "-e", "cs", "--", SELF, "exit", "0", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, " cs ");
}

static double
elapsed_s(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) +
	       (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * --timeout and --interval-count end the command early; the status is 0,
 * as perf's, not the command's death by SIGTERM.
 */
TEST(timeout_and_interval_count_end_with_0)
{
	struct timespec t0;
	struct result r, p;

	needs_perf();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = pctr("stat", "--timeout", "200", "-e", "cs", "--", SELF, "sleep",
		 "5000", NULL);
	ASSERT(elapsed_s(&t0) < 3);
	p = perf("stat", "--timeout", "200", "-e", "cs", "--", SELF, "sleep",
		 "5000", NULL);
	ASSERT_EQ(p.status, 0);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, " cs ");
	r = pctr("stat", "-I", "100", "--interval-count", "2", "-e", "cs",
		 "--", SELF, "sleep", "5000", NULL);
	p = perf("stat", "-I", "100", "--interval-count", "2", "-e", "cs",
		 "--", SELF, "sleep", "5000", NULL);
	ASSERT_EQ(p.status, 0);
	ASSERT_EQ(r.status, 0);
	/* a command that fails on its own still says so */
	r = pctr("stat", "--timeout", "5000", "-e", "cs", "--", SELF, "exit",
		 "4", NULL);
	ASSERT_EQ(r.status, 4);
	r = pctr("stat", "--timeout", "5", "--", SELF, "exit", "0", NULL);
	ASSERT_EQ(r.status, 2);
}

/*
 * --all-user: the page faults of 2000 fresh pages touched in user mode
 * counted, as perf counts them; --all-kernel: not those.
 */
TEST(all_user_all_kernel)
{
	struct result r, p;
	double u, k, pu;

	needs_perf();
	r = pctr("stat", "--all-user", "--format=pctr-csv", "-x", ",", "-o",
		 "-", "-e", "page-faults", "--", SELF, "touch", "2000", NULL);
	ASSERT_EQ(r.status, 0);
	u = csv_total(r.out, "page-faults");
	r = pctr("stat", "--all-kernel", "--format=pctr-csv", "-x", ",", "-o",
		 "-", "-e", "page-faults", "--", SELF, "touch", "2000", NULL);
	ASSERT_EQ(r.status, 0);
	k = csv_total(r.out, "page-faults");
	p = perf("stat", "--all-user", "-x", ",", "-e", "page-faults", "--",
		 SELF, "touch", "2000", NULL);
	ASSERT_EQ(p.status, 0);
	pu = strtod(p.err, NULL);
	ASSERT(u >= 2000);
	ASSERT(k < 1000);
	ASSERT(fabs(u - pu) <= 50);
	r = pctr("stat", "--all-user", "--all-kernel", "--", SELF, "exit",
		 "0", NULL);
	ASSERT_EQ(r.status, 2);
}

/* --pre and --post around each run of -r, in order; a failing --pre ends */
TEST(pre_post_and_sync)
{
	char log[] = "/tmp/pctr-prepost-XXXXXX", pre[128], post[128];
	int fd = mkstemp(log);
	struct result r;

	ASSERT(fd >= 0);
	close(fd);
	snprintf(pre, sizeof(pre), "echo pre >> %s", log);
	snprintf(post, sizeof(post), "echo post >> %s", log);
	r = pctr("stat", "-S", "-r", "2", "--pre", pre, "--post", post, "-e",
		 "cs", "--", SELF, "exit", "0", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(slurp(log), "pre\npost\npre\npost\n");
	r = pctr("stat", "--pre", "exit 7", "--post", post, "-e", "cs", "--",
		 SELF, "exit", "0", NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_CONTAINS(r.err, "--pre 'exit 7': exit status 7");
	ASSERT_STR_EQ(slurp(log), "pre\npost\npre\npost\n");
	r = pctr("stat", "-S", "-p", "1", "--duration", "0.1", NULL);
	ASSERT_EQ(r.status, 2);
	unlink(log);
}

/*
 * --log-fd N: the report on descriptor N, appended where it stands; a
 * write that fails (/dev/full) is said
 */
TEST(log_fd)
{
	char path[] = "/tmp/pctr-logfd-XXXXXX", cmd[512];
	int fd = mkstemp(path);
	struct result r;

	ASSERT(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "echo first > %s; exec 7>>%s; exec %s stat --log-fd 7 -e cs "
		 "-- %s helper exit 0",
		 path, path, pctr_path(), self_exe);
	{
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };

		r = run_in(argv, NULL);
	}
	ASSERT_EQ(r.status, 0);
	ASSERT(!strstr(r.err, "Performance counter stats"));
	ASSERT(!strncmp(slurp(path), "first\n", 6));
	ASSERT_CONTAINS(slurp(path), "Performance counter stats");
	/* a write that fails is said, status 1, as for -o */
	snprintf(cmd, sizeof(cmd),
		 "exec 7>/dev/full; exec %s stat --log-fd 7 -e cs -- %s "
		 "helper exit 0", pctr_path(), self_exe);
	{
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };

		r = run_in(argv, NULL);
	}
	ASSERT_EQ(r.status, 1);
	ASSERT_CONTAINS(r.err, "--log-fd 7: No space left on device");
	r = pctr("stat", "--log-fd", "97", "--", SELF, "exit", "0", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "descriptor 97 is not open");
	unlink(path);
}

/* -I with --interval-clear: the screen cleared before each interval */
TEST(interval_clear_and_summary)
{
	struct result r = pctr("stat", "-I", "100", "--interval-clear",
			       "--summary", "-e", "cs", "--", SELF, "sleep",
			       "350", NULL);
	const char *p = r.err;
	int n = 0;

	ASSERT_EQ(r.status, 0);
	while ((p = strstr(p, "\033[H\033[2J")))
		n++, p++;
	ASSERT(n >= 3);
	ASSERT_CONTAINS(r.err, "Performance counter stats");
	r = pctr("stat", "-I", "100", "--interval-clear", "-x", ",", "-e", "cs",
		 "--", SELF, "sleep", "150", NULL);
	ASSERT(!strstr(r.err, "\033["));
}

/* -C alone counts those CPUs, as perf stat -C (-a implied) */
TEST(cpu_alone_implies_all)
{
	struct result r = pctr("stat", "-C", "0", "-e", "cs", "--", SELF,
			       "sleep", "100", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "for CPUs 0");
	r = pctr("stat", "-C", "0", "-p", "1", "--duration", "0.1", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "-C: give -a too");
}

/* task-clock's ms of @err, a -x, report's first row */
static double
task_clock_ms(const char *err)
{
	double v = -1;

	ASSERT_EQ(sscanf(err, "%lf,msec,task-clock,", &v), 1);
	return v;
}

/*
 * -i, --no-inherit: the command's own thread only, as perf stat -i
 * counts: the inner shell's loop (tens of ms of CPU) is left out by both,
 * and counted by both without it.
 */
TEST(no_inherit_counts_the_command_alone)
{
	static const char *loop = "sh -c 'i=0; while [ $i -lt 100000 ]; do "
				  "i=$((i+1)); done'";
	static const char *const flags[] = { "-i", "--no-inherit" };
	double all, own, perf_all, perf_own;
	struct result r, p;

	needs_perf();
	r = pctr("stat", "-x,", "-e", "task-clock", "--", "sh", "-c", loop,
		 NULL);
	p = perf("stat", "-x,", "-e", "task-clock", "--", "sh", "-c", loop,
		 NULL);
	all = task_clock_ms(r.err);
	perf_all = task_clock_ms(p.err);
	for (size_t i = 0; i < 2; i++) {
		r = pctr("stat", flags[i], "-x,", "-e", "task-clock", "--",
			 "sh", "-c", loop, NULL);
		p = perf("stat", flags[i], "-x,", "-e", "task-clock", "--",
			 "sh", "-c", loop, NULL);
		ASSERT_EQ(r.status, p.status);
		own = task_clock_ms(r.err);
		perf_own = task_clock_ms(p.err);
		printf("# %s: pctr %.3f ms (%.3f without), perf %.3f ms "
		       "(%.3f without)\n",
		       flags[i], own, all, perf_own, perf_all);
		ASSERT(own > 0 && perf_own > 0);
		ASSERT(own < all / 4);
		ASSERT(perf_own < perf_all / 4);
	}
}

/* the flags pctr does not take say what to type instead (status 2) */
TEST(refused_flags_name_the_replacement)
{
	static const char *const flags[][2] = {
		{ "-T", "-e '{cycles," },
		{ "--metric-only", "-M NAMES" },
		{ "--for-each-cgroup=a", "-G NAME" },
		{ "--table", "-r N -j" },
		{ "--no-merge", "-e cpu_core/cycles/" },
		{ "--topdown", "-M frontend_bound," },
		{ "--td-level=1", "-M frontend_bound," },
		{ "--smi-cost", "-e msr/smi/" },
		{ "--metric-no-merge", "-M adds" },
		{ "--percore-show-thread", "-a -A" },
		{ "--iostat", "-a -e PMU/EVENT/" },
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct result r = pctr("stat", flags[i][0], "--", SELF, "exit",
				       "0", NULL);

		ASSERT_EQ(r.status, 2);
		ASSERT_CONTAINS(r.err, "is not supported: ");
		ASSERT_CONTAINS(r.err, flags[i][1]);
	}
}

/*
 * perf's flags that change nothing here are taken: -g (the events are one
 * group, which they are when they fit), --scale (counts are scaled),
 * --metric-no-group (-M groups only what perf keeps grouped too).  The
 * same rows as perf's.
 */
TEST(flags_taken_as_perf_takes_them)
{
	static const char *const flags[] = { "-g", "--group", "--scale",
					     "--metric-no-group" };

	needs_perf();
	for (size_t i = 0; i < sizeof(flags) / sizeof(*flags); i++) {
		struct result p, r;

		p = perf("stat", "-x,", flags[i], "-e", "cs,page-faults", "--",
			 SELF, "exit", "0", NULL);
		r = pctr("stat", "-x,", flags[i], "-e", "cs,page-faults", "--",
			 SELF, "exit", "0", NULL);
		ASSERT_EQ(p.status, 0);
		ASSERT_EQ(r.status, 0);
		ASSERT_CONTAINS(r.err, ",,cs,");
		ASSERT_CONTAINS(r.err, ",,page-faults,");
		ASSERT_CONTAINS(p.err, ",,page-faults,");
	}
}

int
main(int argc, char **argv)
{
	int h = helper_main(argc, argv);

	if (h >= 0)
		return h;
	find_self(argv[0]);
	return test_main(TESTS(TEST_CASE(verbose_shows_the_attr)
			       TEST_CASE(quiet_and_null_run)
			       TEST_CASE(timeout_and_interval_count_end_with_0)
			       TEST_CASE(all_user_all_kernel)
			       TEST_CASE(pre_post_and_sync) TEST_CASE(log_fd)
			       TEST_CASE(interval_clear_and_summary)
			       TEST_CASE(cpu_alone_implies_all)
			       TEST_CASE(no_inherit_counts_the_command_alone)
			       TEST_CASE(refused_flags_name_the_replacement)
			       TEST_CASE(flags_taken_as_perf_takes_them)));
}
