/* SPDX-License-Identifier: MIT */
/*
 * test_stat - pctr stat on software events: counts, exit statuses,
 * signals, output files, repeats, intervals, JSON, CSV, attaching, errors.
 */
#include <sched.h>

#include "tool.h"

#define SELF self_exe, "helper"

static double
faults_of(const char *n)
{
	struct result r =
		pctr("stat", "--format=pctr-csv", "-o", "-", "-e",
		     "page-faults,task-clock", "--", SELF, "touch", n, NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT(csv_total(r.out, "task-clock") > 0);
	return csv_total(r.out, "page-faults");
}

/* N more pages touched are N more page faults, to a few of them */
TEST(page_faults_counted)
{
	double base = faults_of("0"), more = faults_of("3000");

	/* start-up itself varies by a fault or two from run to run */
	ASSERT_GE(more - base, 3000 - 30);
	ASSERT_LE(more - base, 3000 + 30);
}

/* the bundled workload: it runs, prints, and faults at least once */
TEST(workload_counted)
{
	const char *w = getenv("WORKLOAD");
	struct result r;

	if (!w)
		SKIP("$WORKLOAD is not set (run through meson test)");
	r = pctr("stat", "--format=pctr-csv", "-e", "page-faults,task-clock",
		 "--", w, "1", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "workload: sum");
	ASSERT(csv_total(r.err, "page-faults") > 10);
	/*
	 * 4 MiB touched: never more faults than pages plus start-up (which
	 * AddressSanitizer's runtime makes a few thousand faults longer)
	 */
#if defined(__SANITIZE_ADDRESS__)
	ASSERT(csv_total(r.err, "page-faults") < 1024 + 6000);
#else
	ASSERT(csv_total(r.err, "page-faults") < 1024 + 400);
#endif
	ASSERT(csv_total(r.err, "task-clock") > 1e6);
}

/*
 * A run's time covers the command's: counting starts at its exec, so the
 * elapsed time starts before it.  A single thread runs at most the whole
 * time: task-clock <= elapsed, for each run; 'true' ends before the exec
 * call returns, so a clock started after it (30 us for 600 us of
 * task-clock, "18 CPUs utilized") fails here every time.
 */
TEST(elapsed_covers_the_command)
{
	static const char *check =
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"t=[r['value'] for r in d['events'][0]['runs']]\n"
		"e=d['elapsed_ns']['values']\n"
		"print(sum(1 for a,b in zip(t,e) if 0<a<=b) if len(t)==5 "
		"and len(e)==5 else -1)\n";
	struct result r = pctr("stat", "-r", "5", "--format=pctr-json", "-e",
			       "task-clock", "--", "true", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.err), 5);
}

/*
 * pctr is not woken while its command counts.  The worst case for it: both
 * on one CPU, pctr at a real-time priority and the command (reset on fork)
 * below it, so that any wake of pctr switches the command out at once.
 * An enable of the command's counters right after the open waited there
 * for the exec, waking pctr in the command's first microseconds: 20 of 20
 * runs switched out, each switch counted in the command.  The command is
 * not real-time, so other tasks of the machine on that CPU take it over
 * in some runs (0 to 1 of 20 beside a load of 15): fewer than half may.
 */
TEST(not_woken_while_the_command_counts)
{
	static const char *value =
		"import re,sys\n"
		"t=sys.stdin.read()\n"
		"m=re.search(r'^\\s*context-switches\\s+([0-9,]+)\\s',t,re.M)"
		" or re.search(r'^\\s*([0-9,]+)\\s+context-switches',t,re.M)\n"
		"print(m.group(1).replace(',','') if m else -1)\n";
	char cpu[16];
	int switched = 0;

	if (geteuid() != 0)
		SKIP("a real-time priority above the command needs root");
	snprintf(cpu, sizeof(cpu), "%d",
		 sched_getcpu() < 0 ? 0 : sched_getcpu());
	for (int i = 0; i < 20; i++) {
		char *argv[] = { "/usr/bin/chrt", "-R", "-f", "2",
				 "/usr/bin/taskset", "-c", cpu,
				 (char *)pctr_path(), "stat", "-e",
				 "context-switches", "--", "true", NULL };
		struct result r = run_in(argv, NULL);
		double n;

		ASSERT_EQ(r.status, 0);
		n = python_num(value, r.err);
		ASSERT_GE(n, 0);
		switched += n > 0;
	}
	printf("# the command was switched out in %d of 20 runs\n",
	       switched);
	if (switched >= 10)
		TEST_FAIL("the command was switched out in %d of 20 runs: "
			  "pctr wakes while it counts", switched);
}

TEST(exit_status_passed)
{
	struct result r = pctr("stat", "-e", "task-clock", "--", SELF, "exit",
			       "42", NULL);

	ASSERT_EQ(r.status, 42);
	ASSERT_CONTAINS(r.err, "exit status 42");
}

TEST(signal_death_is_128_plus_n)
{
	struct result r = pctr("stat", "-e", "task-clock", "--", SELF, "raise",
			       "10", NULL);

	ASSERT_EQ(r.status, 128 + SIGUSR1);
	ASSERT_CONTAINS(r.err, "killed by signal 10");
}

/* SIGTERM sent to pctr reaches the command, which exits 77 on it */
TEST(sigterm_forwarded)
{
	char *argv[] = { (char *)pctr_path(), "stat", "-e", "task-clock",
			 "--", SELF, "termwait", NULL };
	char o[64], e[64], *out = NULL;
	pid_t pid = start(argv, NULL, o, e);
	struct result r;

	for (int i = 0; i < 200; i++) {
		free(out);
		out = slurp(o);
		if (strstr(out, "ready"))
			break;
		usleep(20000);
	}
	ASSERT_CONTAINS(out, "ready");
	kill(pid, SIGTERM);
	r = finish(pid, o, e);
	ASSERT_EQ(r.status, 77);
	ASSERT_CONTAINS(r.err, "task-clock");
}

/* -o FILE: the report in FILE, the command's output untouched */
TEST(output_file_separate)
{
	char path[64];
	int fd = tmp_file(path);
	struct result r;
	char *rep;

	close(fd);
	r = pctr("stat", "-e", "page-faults", "-o", path, "--", SELF, "print",
		 NULL);
	rep = slurp(path);
	unlink(path);
	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(r.out, "from the command's stdout\n");
	ASSERT_STR_EQ(r.err, "from the command's stderr\n");
	ASSERT_CONTAINS(rep, "page-faults");
	ASSERT(!strstr(rep, "from the command"));
}

/* -r N: mean and standard deviation equal an independent computation */
TEST(repeat_statistics)
{
	static const char *check =
		"import json,sys,statistics as st\n"
		"d=json.load(sys.stdin)\n"
		"e=d['events'][0]\n"
		"v=[r['scaled'] for r in e['runs']]\n"
		"s=e['stats']\n"
		"ok=(d['runs']==5 and len(v)==5 and s['n']==5 and\n"
		"    abs(s['mean']-st.mean(v))<=1e-9*max(1,abs(st.mean(v))) and\n"
		"    abs(s['stddev']-st.stdev(v))<=1e-9*max(1,st.stdev(v)) and\n"
		"    s['min']==min(v) and s['max']==max(v) and\n"
		"    len(d['elapsed_ns']['values'])==5 and\n"
		"    abs(e['per_second']['mean']-st.mean(\n"
		"      [a/(b/1e9) for a,b in zip(v,d['elapsed_ns']['values'])]))\n"
		"      <=1e-6*e['per_second']['mean'])\n"
		"print(1 if ok else 0)\n";
	struct result r =
		pctr("stat", "-r", "5", "--format=pctr-json", "-o", "-", "-e",
		     "task-clock", "--", SELF, "spin", "20", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

/*
 * The statistics object against an independent computation from the runs'
 * own values v: mean, standard error, the interval mean -/+ t * stderr
 * with t(0.975, 4) = 2.776445 from the published table (5 runs; the
 * library interpolates nothing at df 4), the median, and no 5th/95th
 * percentile of 5 runs.  row() reads CSV's "stats" row as that object.
 */
static const char uncertainty_py[] =
	"import json,csv,sys,math,statistics as st\n"
	"def ok(s,v):\n"
	"  m=st.mean(v); se=st.stdev(v)/math.sqrt(len(v))\n"
	"  lo,hi=s['ci95']; h=2.776445*se\n"
	"  tol=1e-9*max(1,abs(m))\n"
	"  return (len(v)==5 and s['n']==5 and s['stderr']>=0 and\n"
	"    abs(s['mean']-m)<=tol and abs(s['stderr']-se)<=tol and\n"
	"    lo<=s['mean']<=hi and\n"
	"    abs((hi-lo)/2-2.776445*s['stderr'])<=tol and\n"
	"    abs(lo-(m-h))<=tol and abs(hi-(m+h))<=tol and\n"
	"    s['median']==st.median(v) and\n"
	"    s['p5'] is None and s['p95'] is None)\n"
	"def row(r):\n"
	"  f=lambda k: None if r[k]=='' else float(r[k])\n"
	"  return {'n':int(r['n']),'mean':f('mean'),'stderr':f('stderr'),\n"
	"    'ci95':[f('ci95_low'),f('ci95_high')],'median':f('median'),\n"
	"    'p5':f('p5'),'p95':f('p95')}\n";

/* pctr stat -r 5 FORMAT of a program touching 2000 pages, then @check */
static void
repeat_touch(const char *format, const char *check)
{
	char script[4096];
	struct result r = pctr("stat", "-r", "5", format, "-o", "-", "-e",
			       "page-faults", "--", SELF, "touch", "2000",
			       NULL);

	snprintf(script, sizeof(script), "%s%s", uncertainty_py, check);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(script, r.out), 1);
}

/* JSON: the event's count and rate, and the elapsed time */
TEST(repeat_uncertainty_json)
{
	repeat_touch("--format=pctr-json",
		     "d=json.load(sys.stdin)\n"
		     "e=d['events'][0]\n"
		     "v=[r['scaled'] for r in e['runs']]\n"
		     "el=d['elapsed_ns']['values']\n"
		     "rate=[a/(b/1e9) for a,b in zip(v,el)]\n"
		     "print(1 if d['runs']==5 and min(v)>=2000 and\n"
		     "  ok(e['stats'],v) and ok(d['elapsed_ns'],el) and\n"
		     "  ok(e['per_second'],rate) else 0)\n");
}

/* CSV: the "stats" row against the "total" rows */
TEST(repeat_uncertainty_csv)
{
	repeat_touch("--format=pctr-csv",
		     "rows=list(csv.DictReader(sys.stdin))\n"
		     "v=[float(r['scaled']) for r in rows\n"
		     "   if r['kind']=='total']\n"
		     "s=[r for r in rows if r['kind']=='stats']\n"
		     "print(1 if len(s)==1 and s[0]['run']=='5' and\n"
		     "  s[0]['event']=='page-faults' and ok(row(s[0]),v) and\n"
		     "  all(r['stderr']=='' for r in rows\n"
		     "      if r['kind']=='total') else 0)\n");
}

/*
 * -r 20: the 5th and 95th percentiles appear, interpolated between ranks
 * as Python's statistics.quantiles(method='inclusive') does; one run has
 * no interval (null, empty, "-"), and text shows "+-" and perf's "( +-
 * x% )" with more.
 */
TEST(repeat_percentiles_and_one_run)
{
	static const char *check =
		"import json,sys,statistics as st\n"
		"d=json.load(sys.stdin)\n"
		"s=d['events'][0]['stats']\n"
		"v=[r['scaled'] for r in d['events'][0]['runs']]\n"
		"q=st.quantiles(v,n=20,method='inclusive')\n"
		"print(1 if len(v)==20 and abs(s['p5']-q[0])<=1e-9*q[0] and\n"
		"  abs(s['p95']-q[-1])<=1e-9*q[-1] and\n"
		"  s['median']==st.median(v) else 0)\n";
	static const char *one =
		"import json,sys\n"
		"s=json.load(sys.stdin)['events'][0]['stats']\n"
		"print(1 if s['n']==1 and s['stderr'] is None and\n"
		"  s['ci95'] is None and s['median']==s['mean'] else 0)\n";
	struct result r =
		pctr("stat", "-r", "20", "--format=pctr-json", "-o", "-", "-e",
		     "page-faults", "--", SELF, "touch", "100", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
	r = pctr("stat", "-r", "1", "--format=pctr-json", "-o", "-", "-e",
		 "page-faults", "--", SELF, "touch", "100", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(one, r.out), 1);
	r = pctr("stat", "-r", "3", "-o", "-", "-e", "page-faults", "--", SELF,
		 "touch", "100", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "+- 95% CI");
	ASSERT_CONTAINS(r.out, "% )");
	r = pctr("stat", "-r", "1", "-o", "-", "-e", "page-faults", "--", SELF,
		 "touch", "100", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT(!strstr(r.out, "% )"));
}

/*
 * -I 100 over 550 ms: five interval rows 100 ms apart, each within 50 ms
 * of its tick (the timer's wake-up on a loaded machine), then the partial
 * interval that ends with the command, at the total's time; the rows add
 * up to the total.  (The last row was once held to a tick of its own: at
 * 551.7 ms it passed by 1.7 ms of the 600 ms tick's 50, and failed when
 * the command ended sooner after its sleep.)
 */
TEST(interval_rows)
{
	static const char *check =
		"import csv,sys\n"
		"rows=[r for r in csv.DictReader(sys.stdin)]\n"
		"iv=[r for r in rows if r['kind']=='interval']\n"
		"t=[int(r['time_ns']) for r in iv]\n"
		"tr=[r for r in rows if r['kind']=='total'][0]\n"
		"tot=int(tr['value'])\n"
		"s=sum(int(r['value']) for r in iv)\n"
		"ok=(5<=len(iv)<=7 and t[-1]==int(tr['time_ns']) and\n"
		"    all(abs(x-(i+1)*1e8)<5e7 for i,x in enumerate(t[:-1])) and\n"
		"    t[-1]>=t[-2] and s==tot)\n"
		"print(1 if ok else 0)\n";
	struct result r =
		pctr("stat", "-I", "100", "--format=pctr-csv", "-o", "-", "-e",
		     "page-faults", "--", SELF, "sleep", "550", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

/* one JSON document with the documented members */
TEST(json_document)
{
	static const char *check =
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"e={x['name']:x for x in d['events']}\n"
		"ok=(d['schema']=='pctr-stat/1' and d['runs']==1 and\n"
		"    d['target']['type']=='command' and\n"
		"    d['exit']=={'status':0,'signal':None} and\n"
		"    e['page-faults']['runs'][0]['value']>=500 and\n"
		"    e['page-faults']['runs'][0]['running_pct']==100 and\n"
		"    e['task-clock']['unit']=='ns' and\n"
		"    isinstance(d['machine']['has_pmu'],bool) and\n"
		"    d['metrics'][-1]['name']=='cpus_utilized')\n"
		"print(1 if ok else 0)\n";
	struct result r = pctr("stat", "--format=pctr-json", "-o", "-", "-e",
			       "page-faults,task-clock", "--", SELF, "touch",
			       "500", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

/*
 * Software events are never multiplexed (the kernel always puts a group of
 * software events on): their counts are exact and carry no interval,
 * scaled_low and scaled_high are null in JSON (runs and -I intervals) and
 * empty in CSV, and the report shows none.  The multiplexed case, where
 * they are numbers, runs in the emulated PMU (test_hw_tool).
 */
TEST(scaled_bounds_absent_when_exact)
{
	static const char *json =
		"import json,sys\n"
		"d=json.loads(sys.stdin.read().splitlines()[-1])\n"
		"c=[r for e in d['events'] for r in e['runs']]+\\\n"
		"  [x for i in d['intervals'] for x in i['events']]\n"
		"ok=(len(c)>=4 and all(x['scaled_low'] is None and\n"
		"    x['scaled_high'] is None and\n"
		"    x['running_ns']==x['enabled_ns'] for x in c))\n"
		"print(1 if ok else 0)\n";
	static const char *csv =
		"import csv,sys\n"
		"rows=list(csv.reader(sys.stdin))\n"
		"ok=(rows[0][-3:-1]==['scaled_low','scaled_high'] and\n"
		"    len(rows)==3 and all(r[-3:-1]==['',''] for r in rows[1:]))\n"
		"print(1 if ok else 0)\n";
	struct result r = pctr("stat", "--format=pctr-json", "-I", "100", "-o",
			       "-", "-e", "page-faults,task-clock", "--", SELF,
			       "sleep", "250", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(json, r.out), 1);
	r = pctr("stat", "--format=pctr-csv", "-o", "-", "-e",
		 "page-faults,task-clock", "--", SELF, "touch", "10", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(csv, r.out), 1);
	r = pctr("stat", "-e", "page-faults", "--", SELF, "touch", "10",
		 NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "page-faults");
	ASSERT(strstr(r.err, " .. ") == NULL && strstr(r.err, "[") == NULL);
}

/* CSV: a header, then rows of the same width; any separator */
TEST(csv_rows)
{
	static const char *check =
		"import csv,sys\n"
		"rows=list(csv.reader(sys.stdin,delimiter=';'))\n"
		"ok=(rows[0][:5]==['kind','run','time_ns','id','event'] and\n"
		"    len(rows)==3 and all(len(r)==len(rows[0]) for r in rows)\n"
		"    and [r[4] for r in rows[1:]]==['page-faults','task-clock'])\n"
		"print(1 if ok else 0)\n";
	struct result r =
		pctr("stat", "--format=pctr-csv", "-x", ";", "-o", "-", "-e",
		     "page-faults,task-clock", "--", SELF, "touch", "10", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

/* -p: attach to a running child for 300 ms; it spins all that time */
TEST(attach_pid)
{
	static const char *check =
		"import csv,sys\n"
		"rows=list(csv.DictReader(sys.stdin))\n"
		"tot=[r for r in rows if r['kind']=='total'][0]\n"
		"th=[r for r in rows if r['kind']=='thread']\n"
		"ns=int(tot['value']); el=int(tot['time_ns'])\n"
		"ok=(0.28e9<el<1e9 and 0<ns<=el*1.05 and len(th)==1 and\n"
		"    int(th[0]['id'])==%d and th[0]['value']==tot['value'])\n"
		"print(1 if ok else 0)\n";
	pid_t child = fork();
	char pid[16], script[512];
	struct result r;

	if (child == 0) {
		spin_ns(5000000000u);
		_exit(0);
	}
	snprintf(pid, sizeof(pid), "%d", (int)child);
	r = pctr("stat", "-p", pid, "--duration", "0.3", "--per-thread",
		 "--format=pctr-csv", "-o", "-", "-e", "task-clock", NULL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ASSERT_EQ(r.status, 0);
	snprintf(script, sizeof(script), check, (int)child);
	ASSERT_EQ(python_num(script, r.out), 1);
}

/*
 * -I with --duration: an interval per -I up to the end, also when pctr
 * itself was held across the end (a busy machine's stall, made here with
 * SIGSTOP): the intervals due before it are printed late, not lost.
 */
TEST(intervals_due_by_the_duration_survive_a_stall)
{
	static const char *check =
		"import csv,sys\n"
		"rows=list(csv.DictReader(sys.stdin))\n"
		"iv=[int(r['value']) for r in rows if r['kind']=='interval']\n"
		"tot=[int(r['value']) for r in rows if r['kind']=='total']\n"
		"print(len(iv) if tot==[sum(iv)] else -1)\n";
	char pid[16], o[64], e[64];
	char *argv[] = { (char *)pctr_path(), "stat", "-p", pid, "-I", "50",
			 "--duration", "0.5", "--format=pctr-csv", "-o", "-",
			 "-e", "task-clock", NULL };
	pid_t child = fork(), p;
	struct result r;

	if (child == 0) {
		spin_ns(10000000000u);
		_exit(0);
	}
	snprintf(pid, sizeof(pid), "%d", (int)child);
	p = start(argv, NULL, o, e);
	usleep(350000);
	kill(p, SIGSTOP);
	usleep(400000); /* past the end at 0.5 s */
	kill(p, SIGCONT);
	r = finish(p, o, e);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (r.status != 0)
		printf("# %s", r.err);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 10);
}

/* -p of a process that ends: counting stops with it */
TEST(attach_ends_with_process)
{
	pid_t child = fork();
	char pid[16];
	struct result r;

	if (child == 0) {
		usleep(200000);
		_exit(0);
	}
	snprintf(pid, sizeof(pid), "%d", (int)child);
	r = pctr("stat", "-p", pid, "-e", "task-clock", NULL);
	waitpid(child, NULL, 0);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "process");
}

/* -a: every CPU for 200 ms, so cpu-clock is about 200 ms per CPU */
TEST(all_cpus_as_root)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct result r;
	double ns;

	if (geteuid() != 0)
		SKIP("-a needs root or perf_event_paranoid <= 0");
	r = pctr("stat", "-a", "--duration", "0.2", "--format=pctr-csv", "-e",
		 "cpu-clock", NULL);
	ASSERT_EQ(r.status, 0);
	ns = csv_total(r.err, "cpu-clock");
	ASSERT(ns > 0.15e9 * ncpu && ns < 0.3e9 * ncpu);
}

TEST(unknown_event)
{
	struct result r = pctr("stat", "-e", "page-fautls", "--", "true", NULL);

	ASSERT_EQ(r.status, 3);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, "page-fautls");
	ASSERT_CONTAINS(r.err, "'page-faults'");
}

TEST(command_not_found)
{
	struct result r = pctr("stat", "-e", "task-clock", "--",
			       "no-such-command-here", NULL);

	ASSERT_EQ(r.status, 127);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, "no-such-command-here: command not found");
	r = pctr("stat", "-e", "task-clock", "--", "/etc/passwd", NULL);
	ASSERT_EQ(r.status, 126);
}

TEST(bad_flag_values)
{
	struct result r = pctr("stat", "-r", "0", "--", "true", NULL);

	ASSERT_EQ(r.status, 2);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, "-r: 0 is out of range (1 to 100000)");
	r = pctr("stat", "-I", "10x", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "-I: '10x' is not a whole number");
	r = pctr("stat", "-p", "1", "-t", "1", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "only one of -p, -t and -a");
	r = pctr("stat", "--frobnicate", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "unknown option '--frobnicate'");
}

/* default events: without a PMU, one line on stderr says why */
TEST(default_events_no_pmu_line)
{
	struct result r = pctr("stat", "--format=pctr-csv", "-o", "-", "--",
			       SELF, "touch", "1", NULL);
	int lines = 0;

	ASSERT_EQ(r.status, 0);
	ASSERT(csv_total(r.out, "task-clock") > 0);
	ASSERT(csv_total(r.out, "page-faults") >= 1);
	for (char *p = r.err; (p = strchr(p, '\n')); p++)
		lines++;
	if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0) {
		ASSERT(!strstr(r.err, "no hardware events"));
		ASSERT(csv_total(r.out, "instructions") > 0);
	} else {
		ASSERT_EQ(lines, 1);
		ASSERT_CONTAINS(r.err, "pctr stat: no hardware events: no "
				       "hardware performance counters");
	}
}

/* --no-multiplex: software events fit, and ran all of the time */
TEST(no_multiplex)
{
	static const char *check =
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"print(1 if d['multiplex'] is False and all(e['running_pct']"
		"==100 for e in d['events']) else 0)\n";
	struct result r =
		pctr("stat", "--no-multiplex", "--format=pctr-json", "-o", "-",
		     "-e", "task-clock,page-faults,context-switches", "--",
		     SELF, "touch", "10", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num(check, r.out), 1);
}

int
main(int argc, char **argv)
{
	int h = helper_main(argc, argv);

	if (h >= 0)
		return h;
	find_self(argv[0]);
	return test_main(TESTS(
		TEST_CASE(page_faults_counted) TEST_CASE(workload_counted)
		TEST_CASE(elapsed_covers_the_command)
		TEST_CASE(not_woken_while_the_command_counts)
		TEST_CASE(exit_status_passed)
		TEST_CASE(signal_death_is_128_plus_n)
		TEST_CASE(sigterm_forwarded) TEST_CASE(output_file_separate)
		TEST_CASE(repeat_statistics)
		TEST_CASE(repeat_uncertainty_json)
		TEST_CASE(repeat_uncertainty_csv)
		TEST_CASE(repeat_percentiles_and_one_run)
		TEST_CASE(interval_rows)
		TEST_CASE(json_document) TEST_CASE(csv_rows)
		TEST_CASE(scaled_bounds_absent_when_exact)
		TEST_CASE(attach_pid)
		TEST_CASE(intervals_due_by_the_duration_survive_a_stall)
		TEST_CASE(attach_ends_with_process)
		TEST_CASE(all_cpus_as_root) TEST_CASE(unknown_event)
		TEST_CASE(command_not_found) TEST_CASE(bad_flag_values)
		TEST_CASE(default_events_no_pmu_line) TEST_CASE(no_multiplex)));
}
