/* SPDX-License-Identifier: MIT */
/*
 * test_perf_format - pctr stat -x SEP and -j beside Debian's perf stat,
 * on the same command lines, in every aggregation mode: each line's
 * layout (its fields and their order, the form of each number, quoting,
 * spacing) must be perf's; the values differ.  Then what perf's own
 * documentation says of the layouts (man perf-stat, CSV FORMAT and JSON
 * FORMAT), --append read back, and the choice of layout by flag.
 */
#include <sys/prctl.h>

#include "tool.h"

#define SELF self_exe, "helper"

/*
 * A line's layout: every number replaced by N and its count of decimals
 * ("0.38" -> "N2"), a rate's unit prefix dropped ("K/sec" -> "/sec"), and
 * perf 6.1's "(null)" metric unit of an event without a metric (a perf
 * bug, later fixed) read as pctr's "".  Without -I the layouts must be equal
 * line for line; with -I the first interval's lines (perf's number of
 * intervals depends on its timing) and every other line's layout must be
 * among perf's, but for <not counted> lines (an interval in which the
 * command did not run, which perf's timing may not have had; their layout
 * is compared with perf's by threads_like_perf).
 */
static const char *const compare_py =
	"import re,sys\n"
	"def shape(l):\n"
	"    l=l.replace('\"(null)\"','\"\"')\n"
	"    l=re.sub(r'[KMG]?/sec','/sec',l)\n"
	"    return re.sub(r'[0-9]+(\\.([0-9]+))?',\n"
	"                  lambda m:'N%d'%len(m.group(2) or ''),l)\n"
	"def stamp(l):\n"
	"    m=re.match(r'(\\s*[0-9]+\\.[0-9]{9}|\\{\"interval\" : "
	"[0-9.]+)',l)\n"
	"    return m.group(1) if m else None\n"
	"perf,pctr=[[l for l in t.split('\\n') if l] for t in texts]\n"
	"iv=stamp(perf[-1]) is not None\n"
	"def first(ls):\n"
	"    s=[stamp(l) for l in ls]\n"
	"    t=next(x for x in s if x)\n"
	"    return [l for l,x in zip(ls,s) if x in (t,None)]\n"
	"a=[shape(l) for l in (first(perf) if iv else perf)]\n"
	"b=[shape(l) for l in (first(pctr) if iv else pctr)]\n"
	"rest=[shape(l) for l in pctr if '<not counted>' not in l]\n"
	"ok=a==b and (not iv or set(rest)<=set(map(shape,perf)))\n"
	"print(1 if ok else 0)\n"
	"if not ok:\n"
	"    print('\\n'.join(['perf:']+perf+['pctr:']+pctr))\n";

static char perf_out[64], pctr_out[64], perf_bin[256];

/* perf on $PATH, into perf_bin[] */
static void
need_perf(void)
{
	char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin");
	char *argv[] = { perf_bin, "stat", "-e", "task-clock", "/bin/true",
			 NULL };

	for (char *d = strtok(path, ":"); d && !*perf_bin; d = strtok(NULL, ":")) {
		snprintf(perf_bin, sizeof(perf_bin), "%s/perf", d);
		if (access(perf_bin, X_OK) < 0)
			*perf_bin = '\0';
	}
	free(path);
	if (!*perf_bin || run_in(argv, NULL).status != 0)
		SKIP("Debian's perf is not installed or cannot count here");
}

static void
need_cpus(void)
{
	char *argv[] = { (char *)pctr_path(), "stat", "-a", "-e", "cpu-clock",
			 "/bin/true", NULL };

	if (run_in(argv, NULL).status != 0)
		SKIP("perf stat -a is not permitted here (root or "
		     "perf_event_paranoid <= 0)");
}

/* perf stat -o FILE ARGS and pctr stat -o FILE ARGS: the same layout? */
static int
same_layout(char *const *args, int n)
{
	char *argv[2][MAX_ARGS], script[4096], *out;
	struct result r;

	for (int t = 0; t < 2; t++) {
		argv[t][0] = t ? (char *)pctr_path() : perf_bin;
		argv[t][1] = "stat";
		argv[t][2] = "-o";
		argv[t][3] = t ? pctr_out : perf_out;
		for (int k = 0; k < n; k++)
			argv[t][4 + k] = args[k];
		argv[t][4 + n] = NULL;
		r = run_in(argv[t], NULL);
		if (r.status != 0)
			TEST_FAIL("%s stat: exit %d: %s", argv[t][0], r.status,
				  r.err);
	}
	snprintf(script, sizeof(script),
		 "texts=[open('%s').read(),open('%s').read()]\n%s", perf_out,
		 pctr_out, compare_py);
	out = python(script, "");
	if (*out != '1') /* the two outputs, to see where they differ */
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
			printf("# %s\n", l);
	return *out == '1';
}

#define EVENTS "task-clock,page-faults,context-switches,cycles"
#define LAYOUT(...)                                                           \
	do {                                                                  \
		char *a_[] = { __VA_ARGS__ };                                 \
		ASSERT_EQ(same_layout(a_, sizeof(a_) / sizeof(a_[0])), 1);     \
	} while (0)

/* a command: plain, -r, -I; the cycles of a machine without PMU */
TEST(command_like_perf)
{
	need_perf();
	LAYOUT("-x", ",", "-e", EVENTS, "--", SELF, "spin", "50");
	LAYOUT("-x", ";", "-e", EVENTS, "--", SELF, "spin", "50");
	LAYOUT("-j", "-e", EVENTS, "--", SELF, "spin", "50");
	LAYOUT("-x", ",", "-r", "3", "-e", EVENTS, "--", SELF, "spin", "20");
	LAYOUT("-j", "-r", "3", "-e", EVENTS, "--", SELF, "spin", "20");
	LAYOUT("-x", ",", "-I", "50", "-e", EVENTS, "--", SELF, "spin", "120");
	LAYOUT("-j", "-I", "50", "-e", EVENTS, "--", SELF, "spin", "120");
}

/*
 * A clock spelled in the software PMU's syntax is a count of ns with no
 * unit, as perf prints it (the unit and scale of a PMU's event come from
 * its sysfs alias, and the software PMU has none); task-clock by its name
 * is msec.  Once both were msec.
 */
TEST(pmu_spelled_clocks_like_perf)
{
	need_perf();
	LAYOUT("-x", ",", "-e",
	       "software/config=1/,software/config=0,name=cc/,task-clock",
	       "--", SELF, "spin", "50");
	LAYOUT("-j", "-e", "software/config=1/u,task-clock", "--", SELF,
	       "spin", "50");
}

/*
 * -a: the total, each CPU, core, die, socket, node; with -I each CPU,
 * core and socket (dies and nodes are printed as sockets are)
 */
TEST(cpus_like_perf)
{
	static const char *const aggr[] = { "-A", "--per-core", "--per-socket",
					    "--per-die", "--per-node" };

	need_perf();
	need_cpus();
	LAYOUT("-x", ",", "-a", "-e", EVENTS, "--", SELF, "spin", "50");
	LAYOUT("-j", "-a", "-I", "50", "-e", EVENTS, "--", SELF, "spin",
	       "120");
	for (size_t i = 0; i < sizeof(aggr) / sizeof(aggr[0]); i++) {
		char *a = (char *)aggr[i];

		LAYOUT("-x", ",", "-a", a, "-e", EVENTS, "--", SELF, "spin",
		       "50");
		LAYOUT("-j", "-a", a, "-e", EVENTS, "--", SELF, "spin", "50");
		if (i > 2)
			continue;
		LAYOUT("-x", ",", "-a", a, "-I", "50", "-e", EVENTS, "--",
		       SELF, "spin", "120");
		LAYOUT("-j", "-a", a, "-I", "50", "-e", EVENTS, "--", SELF,
		       "spin", "120");
	}
}

/*
 * --per-cluster and --per-cache in -x and -j.  perf 6.1 has neither; the
 * perf that added them names a cluster S0-D0-CLS2 and a last level cache
 * S0-D0-L3-ID0 (its level, its first CPU), under the keys "cluster" and
 * "cache", each line otherwise a --per-die line.  The names and CPU
 * counts are checked against sysfs.  Once the CSV said S65535 and S0, and
 * the JSON key was "(null)", read past the end of a table.
 */
static const char *const groups_py =
	"import glob,json,re,sys\n"
	"def rd(p): return open(p).read().strip()\n"
	"def top(c,f):\n"
	"    p='/sys/devices/system/cpu/cpu%d/topology/%s'%(c,f)\n"
	"    return int(rd(p)) if glob.glob(p) else 0\n"
	"def llc(c):\n"
	"    ix=glob.glob('/sys/devices/system/cpu/cpu%d/cache/index*'%c)\n"
	"    i=max(ix,key=lambda i:int(rd(i+'/level')))\n"
	"    first=re.split('[-,]',rd(i+'/shared_cpu_list'))[0]\n"
	"    return 'L%s-ID%s'%(rd(i+'/level'),first)\n"
	"def name(c):\n"
	"    s='S%d-D%d-'%(top(c,'physical_package_id'),top(c,'die_id'))\n"
	"    return s+('CLS%d'%top(c,'cluster_id') if mode=='cluster' "
	"else llc(c))\n"
	"on=[]\n"
	"for p in rd('/sys/devices/system/cpu/online').split(','):\n"
	"    a,_,b=p.partition('-'); on+=range(int(a),int(b or a)+1)\n"
	"want={}\n"
	"for c in on: want[name(c)]=want.get(name(c),0)+1\n"
	"rows=[l for l in sys.stdin.read().splitlines() if l]\n"
	"keys=[mode,'aggregate-number','counter-value','unit','event',"
	"'event-runtime','pcnt-running','metric-value','metric-unit']\n"
	"if csv:\n"
	"    got=[(r.split(',')[0],int(r.split(',')[1])) for r in rows]\n"
	"    ok=all(len(r.split(','))==9 for r in rows)\n"
	"else:\n"
	"    js=[json.loads(r) for r in rows]\n"
	"    got=[(j.get(mode),j.get('aggregate-number')) for j in js]\n"
	"    ok=all(list(j)==keys for j in js)\n"
	"ok=ok and dict(got)==want and len(got)==2*len(want)\n"
	"print(1 if ok else 0)\n"
	"if not ok: print('want',want,'got:',*rows,sep='\\n')\n";

static void
groups_like_newer_perf(const char *opt, const char *mode, bool csv)
{
	char script[4096];
	char *out;
	struct result r;

	r = pctr("stat", "-a", opt, csv ? "-x," : "-j", "-o", "-", "-e",
		 "cpu-clock,page-faults", "--", SELF, "spin", "50", NULL);
	ASSERT_EQ(r.status, 0);
	snprintf(script, sizeof(script), "mode='%s'\ncsv=%s\n%s", mode,
		 csv ? "True" : "False", groups_py);
	out = python(script, r.out);
	if (*out != '1')
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
			printf("# %s\n", l);
	ASSERT_EQ(*out, '1');
}

TEST(clusters_and_caches_like_newer_perf)
{
	need_cpus();
	groups_like_newer_perf("--per-cluster", "cluster", true);
	groups_like_newer_perf("--per-cluster", "cluster", false);
	groups_like_newer_perf("--per-cache", "cache", true);
	groups_like_newer_perf("--per-cache", "cache", false);
}

/* a child asleep until killed, or until its parent ends */
static pid_t
sleeper(void)
{
	pid_t child = fork();

	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	return child;
}

/*
 * perf's tool events where counts are broken out: on the first CPU alone
 * (perf prints no other CPU's line; another core's or socket's is <not
 * counted> on 0 CPUs), on every thread; not counted in -I's intervals but
 * for duration_time.  system_time, as the spin's clock reads are system
 * calls.
 */
#define TOOLS "duration_time,system_time,context-switches"

/*
 * The metric columns of the duration_time lines of the last same_layout()
 * (CSV): perf's and pctr's the same, values too, and not empty
 */
static int
duration_metrics_like_perf(void)
{
	static const char *const py =
		"m=[[l.split(',')[-2:] for l in open(f).read().splitlines()\n"
		"    if ',duration_time,' in l] for f in files]\n"
		"print(1 if m[0]==m[1] and m[0] and all(x[1] for x in m[0]) "
		"else 0)\n"
		"if m[0]!=m[1] or not m[0]: print('perf',m[0],'pctr',m[1])\n";
	char script[1024], *out;

	snprintf(script, sizeof(script), "files=['%s','%s']\n%s", perf_out,
		 pctr_out, py);
	out = python(script, "");
	if (*out != '1')
		printf("# %s", out + 2);
	return *out == '1';
}

TEST(tool_events_like_perf)
{
	static const char *const aggr[] = { "-A", "--per-core",
					    "--per-socket" };
	pid_t a, b;
	char pids[64];

	need_perf();
	a = sleeper();
	b = sleeper();
	ASSERT(a > 0 && b > 0);
	snprintf(pids, sizeof(pids), "%d,%d", (int)a, (int)b);
	LAYOUT("-x", ",", "--per-thread", "-p", pids, "-e", "duration_time,cs",
	       "--", "sleep", "0.1");
	LAYOUT("-j", "--per-thread", "-p", pids, "-e", "duration_time,cs",
	       "--", "sleep", "0.1");
	/*
	 * beside a clock, duration_time's rate over the clock's time, 0 on
	 * threads that did not run (perf 6.1: "0.000,/sec"; once empty)
	 */
	LAYOUT("-j", "--per-thread", "-p", pids, "-e",
	       "duration_time,task-clock", "--", "sleep", "0.1");
	LAYOUT("-x", ",", "--per-thread", "-p", pids, "-e",
	       "duration_time,task-clock", "--", "sleep", "0.1");
	ASSERT_EQ(duration_metrics_like_perf(), 1);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	LAYOUT("-x", ",", "-e", TOOLS, "--", SELF, "spin", "50");
	LAYOUT("-j", "-e", TOOLS, "--", SELF, "spin", "50");
	LAYOUT("-x", ",", "-I", "50", "-e", TOOLS, "--", SELF, "spin", "120");
	need_cpus();
	for (size_t i = 0; i < sizeof(aggr) / sizeof(aggr[0]); i++) {
		char *a = (char *)aggr[i];

		LAYOUT("-x", ",", "-a", a, "-e", TOOLS, "--", SELF, "spin",
		       "50");
		LAYOUT("-j", "-a", a, "-e", TOOLS, "--", SELF, "spin", "50");
	}
	LAYOUT("-x", ",", "-a", "-A", "-I", "50", "-e", TOOLS, "--", SELF,
	       "spin", "120");
}

/* --per-thread of a process that sleeps: <not counted>, as perf has it */
TEST(threads_like_perf)
{
	pid_t child;
	char pid[32];

	need_perf();
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) { /* asleep until killed, or its parent ends */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	snprintf(pid, sizeof(pid), "%d", (int)child);
	LAYOUT("-x", ",", "--per-thread", "-p", pid, "-e", EVENTS, "--",
	       "sleep", "0.2");
	LAYOUT("-j", "--per-thread", "-p", pid, "-e", EVENTS, "--", "sleep",
	       "0.2");
	LAYOUT("-x", ",", "-I", "50", "--per-thread", "-p", pid, "-e", EVENTS,
	       "--", "sleep", "0.25");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/*
 * man perf-stat, CSV FORMAT: [time,][id,[n,]]value,unit,event,run time,
 * percentage running,[variance,]metric value,metric unit; no header
 * line; JSON FORMAT: one object a line with those members.  Checked on
 * pctr alone, so that it holds where perf does not run.
 */
TEST(documented_layouts)
{
	static const char *const csv =
		"import sys\n"
		"rows=[l.split(';') for l in sys.stdin.read().splitlines()]\n"
		"ok=len(rows)==2 and all(len(r)==7 for r in rows)\n"
		"ok=ok and rows[0][1:3]==['msec','task-clock']\n"
		"ok=ok and rows[1][1:3]==['','page-faults']\n"
		"ok=ok and rows[0][6]=='CPUs utilized'\n"
		"ok=ok and float(rows[0][0])>0 and int(rows[1][0])>=100\n"
		"ok=ok and float(rows[0][4])==100\n"
		"print(1 if ok else 0)\n";
	static const char *const json =
		"import json,sys\n"
		"ls=[json.loads(l) for l in sys.stdin.read().splitlines()]\n"
		"keys=['interval','counter-value','unit','event',"
		"'event-runtime','pcnt-running','metric-value','metric-unit']\n"
		"ok=len(ls)>=2 and all(list(l)==keys for l in ls)\n"
		"ok=ok and all(l['event']=='task-clock' for l in ls)\n"
		"ok=ok and all(type(l['counter-value']) is str for l in ls)\n"
		"print(1 if ok else 0)\n";
	struct result r;

	r = pctr("stat", "-x", ";", "-o", "-", "-e", "task-clock,page-faults",
		 "--", SELF, "touch", "100", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(csv, r.out), 1);
	r = pctr("stat", "-j", "-I", "50", "-o", "-", "-e", "task-clock", "--",
		 SELF, "spin", "120", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(json, r.out), 1);
}

/*
 * Each CPU in every interval (-A -I): before, only the last total was
 * broken out.  The intervals' per-CPU counts add up to the totals.
 */
TEST(each_cpu_every_interval)
{
	static const char *const check =
		"import sys\n"
		"rows=[l.split(',') for l in sys.stdin.read().splitlines() "
		"if l and not l.startswith('#')]\n"
		"ts=sorted(set(r[0] for r in rows))\n"
		"cpus=sorted(set(r[1] for r in rows))\n"
		"ok=len(ts)>=3 and all(c.startswith('CPU') for c in cpus)\n"
		"ok=ok and all(sum(1 for r in rows if r[0]==t)==len(cpus) "
		"for t in ts)\n"
		"print(1 if ok else 0)\n";
	struct result r;

	need_cpus();
	r = pctr("stat", "-a", "-A", "-I", "50", "-x", ",", "-o", "-", "-e",
		 "cpu-clock", "--", SELF, "spin", "180", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

/* --append twice: pctr merge reads both reports, a CSV has one header */
TEST(append_read_back)
{
	static const char *const csv =
		"import csv,sys\n"
		"rows=list(csv.reader(sys.stdin))\n"
		"ok=rows[0][0]=='kind' and sum(1 for r in rows if r[0]=='kind')"
		"==1\n"
		"ok=ok and sum(1 for r in rows if r[0]=='total')==2\n"
		"print(1 if ok else 0)\n";
	static const char *const merged =
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"print(len([k for k in d['ranks'] if k['counts']]))\n";
	char path[64];
	struct result r;

	close(tmp_file(path));
	for (int i = 0; i < 2; i++) {
		r = pctr("stat", "--format=pctr-json", "--append", "-o", path,
			 "-e", "page-faults", "--", SELF, "touch", "10", NULL);
		ASSERT_EQ(r.status, 0);
	}
	r = pctr("merge", "--json", path, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(merged, r.out), 2);
	unlink(path);
	for (int i = 0; i < 2; i++) {
		r = pctr("stat", "--format=pctr-csv", "--append", "-o", path,
			 "-e", "page-faults", "--", SELF, "touch", "10", NULL);
		ASSERT_EQ(r.status, 0);
	}
	ASSERT_EQ(python_num(csv, slurp(path)), 1);
	unlink(path);
}

/* which flag gives which layout, and the combinations refused */
TEST(format_flags)
{
	struct result r;

	r = pctr("stat", "--format=pctr-csv", "-x", ";", "-o", "-", "-e",
		 "task-clock", "--", "true", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT(strncmp(r.out, "kind;run;", 9) == 0);
	r = pctr("stat", "-x", ";", "--format=pctr-csv", "-o", "-", "-e",
		 "task-clock", "--", "true", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT(strncmp(r.out, "kind;run;", 9) == 0);
	r = pctr("stat", "--format=pctr-json", "-o", "-", "-e", "task-clock",
		 "--", "true", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "\"schema\": \"pctr-stat/1\"");
	r = pctr("stat", "-j", "--format=pctr-json", "-e", "task-clock", "--",
		 "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "--format=pctr-json cannot be used with --json");
	r = pctr("stat", "--format=perf", "-e", "task-clock", "--", "true",
		 NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "'perf' is not pctr-json or pctr-csv");
}

int
main(int argc, char **argv)
{
	if (helper_main(argc, argv) >= 0)
		return helper_main(argc, argv);
	find_self(argv[0]);
	close(tmp_file(perf_out));
	close(tmp_file(pctr_out));
	/* each case runs perf and pctr ten to twenty times */
	return test_main(TESTS(TEST_CASE_TIMEOUT(command_like_perf, 180)
				       TEST_CASE(pmu_spelled_clocks_like_perf)
				       TEST_CASE_TIMEOUT(cpus_like_perf, 300)
				       TEST_CASE(clusters_and_caches_like_newer_perf)
				       TEST_CASE_TIMEOUT(tool_events_like_perf, 120)
				       TEST_CASE_TIMEOUT(threads_like_perf, 120)
				       TEST_CASE(documented_layouts)
				       TEST_CASE(each_cpu_every_interval)
				       TEST_CASE(append_read_back)
				       TEST_CASE(format_flags)));
}
