/* SPDX-License-Identifier: MIT */
/*
 * test_stat_many - pctr stat with more events than a set of the library
 * holds (PCTR_MAX_EVENTS, 64): 70 and 130 events, beside Debian's perf
 * stat on the same command lines, in every layout and aggregation.  The
 * rows must be perf's: the same events in the same order with the same
 * units, instances and row count, the same exit status; the values
 * differ, but counts of one thing in different sets of the library agree.
 * A "{...}" group is never split, and one larger than a set is refused.
 */
#include "tool.h"

#define SELF self_exe, "helper"

/* the software events that count here, cycled to make a list of N */
static const char *const sw[] = {
	"task-clock",	    "page-faults",     "context-switches",
	"cpu-clock",	    "minor-faults",    "major-faults",
	"cpu-migrations",   "alignment-faults", "emulation-faults",
	"dummy",
};

/* @n events: @ev, or the software events in turn; a static buffer each */
static char *
list_of(int n, const char *ev)
{
	size_t len = (size_t)n * 24 + 1;
	char *s = keep(calloc(1, len));

	for (int i = 0; i < n; i++) {
		strcat(s, i ? "," : "");
		strcat(s, ev ? ev : sw[i % (sizeof(sw) / sizeof(sw[0]))]);
	}
	return s;
}

/*
 * The rows of a report as python tuples: (prefix, value kind, unit, name,
 * number of fields); the event is the first field that names one of the
 * events asked (names), the unit the field before it, the value the one
 * before that ('N' for a number, else "<not supported>"...), the prefix
 * what comes first (an instance, a CPU count).  With -I, the rows of the
 * first interval: perf prints no last, partial interval, and its count of
 * intervals depends on its timing.  perf orders the threads or CPUs of an
 * event by their counts: the rows of one event, in a row, are sorted.
 * perf's table (mode "perf") and pctr's (mode "pctr") are read by their
 * own layouts, with "msec" and "(ns)" both read as "time".
 */
static const char *const rows_py =
	"import re,sys,json,itertools\n"
	"def kind(v):\n"
	"    return v if v.startswith('<') else 'N'\n"
	"def csv_row(l):\n"
	"    f=l.split(',')\n"
	"    i=next(i for i,x in enumerate(f) if x in names)\n"
	"    t=re.match(r'^\\s*[0-9]+\\.[0-9]{9}$',f[0])\n"
	"    pre=f[1 if t else 0:i-2]\n"
	"    return (f[0] if t else None,\n"
	"            (tuple(pre),kind(f[i-2]),f[i-1],f[i],len(f)))\n"
	"def json_row(l):\n"
	"    d=json.loads(l)\n"
	"    ids=tuple((k,d[k]) for k in ('cpu','core','die','socket','node',"
	"'thread','aggregate-number') if k in d)\n"
	"    return (d.get('interval'),\n"
	"            (ids,kind(d['counter-value']),d['unit'],d['event'],"
	"len(d)))\n"
	"def table_rows(t,mode):\n"
	"    out=[];on=mode=='perf'\n"
	"    for l in t.split('\\n'):\n"
	"        if mode=='pctr' and l.startswith(' event '):\n"
	"            on=True; continue\n"
	"        if mode=='pctr' and on and not l.strip(): break\n"
	"        if not on: continue\n"
	"        if mode=='perf':\n"
	"            m=re.match(r'^\\s*(<not supported>|<not counted>|"
	"[0-9][0-9.,]*)\\s+(msec )?\\s*(\\S+)',l)\n"
	"            if m and m.group(3) in names:\n"
	"                out.append((kind(m.group(1)),\n"
	"                            'time' if m.group(2) else '',\n"
	"                            m.group(3)))\n"
	"        else:\n"
	"            m=re.match(r'^ (\\S+)( \\(ns\\))?\\s+(<not supported>|"
	"<not counted>|[0-9][0-9.,]*)',l)\n"
	"            out.append((kind(m.group(3)),\n"
	"                        'time' if m.group(2) else '',m.group(1)))\n"
	"    return out\n"
	"def rows(t,mode):\n"
	"    if mode in ('perf','pctr'): return table_rows(t,mode)\n"
	"    ls=[l for l in t.split('\\n') if l.strip() and l[0]!='#']\n"
	"    r=[csv_row(l) if mode=='csv' else json_row(l) for l in ls]\n"
	"    r=[x for s,x in r if s==r[0][0]]\n"
	"    out=[]\n"
	"    for k,g in itertools.groupby(r,key=lambda x:x[3]):\n"
	"        out+=sorted(g)\n"
	"    return out\n";

/* rows_py of @mode on the reports of perf and pctr: the same? */
static void
same_rows(const char *mode, const char *events, const char *perf_text,
	  const char *pctr_text)
{
	bool table = !strcmp(mode, "table");
	const char *a = table ? "perf" : mode, *b = table ? "pctr" : mode;
	char *script, *in;
	struct result p;

	if (asprintf(&script,
		     "%snames=set(sys.argv[1].split(','))\n"
		     "t=sys.stdin.read().split('\\f')\n"
		     "a=rows(t[0],'%s');b=rows(t[1],'%s')\n"
		     "print(1 if a==b and len(a)>0 else 0)\n"
		     "if a!=b:\n"
		     "    print(len(a),len(b))\n"
		     "    print([(x,y) for x,y in zip(a,b) if x!=y][:3])\n",
		     rows_py, a, b) < 0 ||
	    asprintf(&in, "%s\f%s", perf_text, pctr_text) < 0)
		TEST_FAIL("out of memory");
	p = run_in((char *[]){ "/usr/bin/env", "python3", "-c", script,
			       (char *)events, NULL },
		   in);
	if (p.out[0] != '1')
		TEST_FAIL("%s: rows unlike perf's: %s %s\nperf:\n%.2000s\n"
			  "pctr:\n%.2000s",
			  mode, p.out, p.err, perf_text, pctr_text);
	free(script);
	free(in);
}

/*
 * perf stat ARGS and pctr stat ARGS, each with -o FILE: the same rows
 * (rows_py, @mode csv, json or table), and the command's exit status
 * @status.  perf's own status is not held: perf 6.1 exits 0 now and then
 * for a command that exited 3 when it counts 70 events (4 times in 20
 * here), where pctr's is the command's every time.
 */
static void
like_perf(const char *mode, const char *events, int status,
	  char *const *args, int n)
{
	char *argv[MAX_ARGS], out[64];
	const char *texts[2];
	struct result r;

	for (int t = 0; t < 2; t++) {
		int k = 0, fd = tmp_file(out);

		ASSERT_GE(fd, 0);
		close(fd);
		argv[k++] = t ? (char *)pctr_path() : PERF;
		argv[k++] = "stat";
		argv[k++] = "-o";
		argv[k++] = out;
		argv[k++] = "-e";
		argv[k++] = (char *)events;
		for (int i = 0; i < n; i++)
			argv[k++] = args[i];
		argv[k] = NULL;
		r = run_in(argv, NULL);
		texts[t] = slurp(out);
		unlink(out);
	}
	ASSERT_EQ(r.status, status);
	same_rows(mode, events, texts[0], texts[1]);
}

#define LIKE_PERF_EXIT(mode, events, status, ...)                             \
	do {                                                                  \
		char *a_[] = { __VA_ARGS__ };                                 \
		needs_perf();                                                 \
		like_perf(mode, events, status, a_,                           \
			  sizeof(a_) / sizeof(a_[0]));                         \
	} while (0)
#define LIKE_PERF(mode, events, ...)                                          \
	LIKE_PERF_EXIT(mode, events, 0, __VA_ARGS__)

/* 70 and 130 events of a command, perf's CSV: rows and exit status */
TEST(csv_like_perf)
{
	LIKE_PERF("csv", list_of(70, NULL), "-x", ",", "--", SELF, "touch",
		  "100");
	LIKE_PERF("csv", list_of(130, NULL), "-x", ",", "--", SELF, "touch",
		  "100");
	LIKE_PERF_EXIT("csv", list_of(70, NULL), 3, "-x", ",", "--", SELF,
		       "exit", "3");
}

TEST(table_like_perf)
{
	LIKE_PERF("table", list_of(70, NULL), "--", SELF, "touch", "100");
	LIKE_PERF("table", list_of(130, NULL), "--", SELF, "touch", "100");
	LIKE_PERF_EXIT("table", list_of(130, NULL), 3, "--", SELF, "exit",
		       "3");
}

TEST(json_lines_like_perf)
{
	LIKE_PERF("json", list_of(130, NULL), "-j", "--", SELF, "touch",
		  "100");
}

TEST(repeats_like_perf)
{
	LIKE_PERF("csv", list_of(70, NULL), "-x", ",", "-r", "3", "--", SELF,
		  "touch", "100");
	LIKE_PERF("table", list_of(70, NULL), "-r", "3", "--", SELF, "touch",
		  "100");
}

/* -I: every event in every interval, each interval's rows as perf's */
TEST(intervals_like_perf)
{
	static const char *const py =
		"import sys,re\n"
		"want=sys.argv[1].split(',')\n"
		"iv={}\n"
		"for l in sys.stdin.read().split('\\n'):\n"
		"    if l.strip() and not l.startswith('#'):\n"
		"        f=l.split(',')\n"
		"        iv.setdefault(f[0],[]).append(f[3])\n"
		"ok=len(iv)>=3 and all(v==want for v in iv.values())\n"
		"print(1 if ok else 0, len(iv))\n";
	char *events = list_of(70, NULL), *argv[] = {
		"/usr/bin/env", "python3", "-c", (char *)py, events, NULL
	};
	struct result r;

	LIKE_PERF("csv", events, "-x", ",", "-I", "100", "--", SELF, "sleep",
		  "350");
	r = pctr("stat", "-x", ",", "-I", "100", "-e", events, "--", SELF,
		 "sleep", "350", NULL);
	ASSERT_EQ(r.status, 0);
	r = run_in(argv, r.err);
	ASSERT_EQ(r.out[0], '1');
}

/* -I in pctr's table, JSON Lines and documents: 130 events each time */
TEST(intervals_in_pctr_layouts)
{
	static const char *const py =
		"import sys,json\n"
		"t=sys.stdin.read();n=int(sys.argv[1]);d=json.JSONDecoder()\n"
		"i=0;docs=[]\n"
		"while i<len(t):\n"
		"    while i<len(t) and t[i].isspace(): i+=1\n"
		"    if i<len(t): o,i=d.raw_decode(t,i); docs.append(o)\n"
		"iv=[o for o in docs if o['schema']=='pctr-stat-interval/1']\n"
		"ok=len(iv)>=3 and all(len(o['names'])==n and "
		"len(o['events'])==n for o in iv)\n"
		"ok=ok and len(docs[-1]['events'])==n\n"
		"print(1 if ok else 0)\n";
	char *events = list_of(130, NULL), *argv[] = {
		"/usr/bin/env", "python3", "-c", (char *)py, "130", NULL
	};
	struct result r;
	int rows = 0;

	r = pctr("stat", "--format=pctr-json", "-I", "100", "-e", events,
		 "--", SELF, "sleep", "350", NULL);
	ASSERT_EQ(r.status, 0);
	r = run_in(argv, r.err);
	ASSERT_EQ(r.out[0], '1');
	r = pctr("stat", "-I", "100", "-e", events, "--", SELF, "sleep", "350",
		 NULL);
	ASSERT_EQ(r.status, 0);
	for (char *p = r.err; (p = strstr(p, " dummy\n")); p++)
		rows++;
	/* 13 dummies in each of 4 intervals or more, the last partial */
	ASSERT_GE(rows, 4 * 13);
	ASSERT_EQ(rows % 13, 0);
}

/* --format=pctr-csv and pctr-json: 130 events, in order */
TEST(pctr_formats)
{
	static const char *const csv_py =
		"import csv,sys\n"
		"r=[x['event'] for x in csv.DictReader(sys.stdin) "
		"if x['kind']=='total']\n"
		"print(1 if r==sys.argv[1].split(',') else 0)\n";
	static const char *const json_py =
		"import json,sys\n"
		"d=json.load(sys.stdin)\n"
		"r=[e['name'] for e in d['events']]\n"
		"ok=r==sys.argv[1].split(',') and "
		"all(e['runs'][0]['value'] is not None for e in d['events'])\n"
		"print(1 if ok else 0)\n";
	char *events = list_of(130, NULL);
	char *c_argv[] = { "/usr/bin/env", "python3", "-c", (char *)csv_py,
			   events, NULL };
	char *j_argv[] = { "/usr/bin/env", "python3", "-c", (char *)json_py,
			   events, NULL };
	struct result r;

	r = pctr("stat", "--format=pctr-csv", "-e", events, "--", SELF,
		 "touch", "10", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(run_in(c_argv, r.err).out[0], '1');
	r = pctr("stat", "--format=pctr-json", "-e", events, "--", SELF,
		 "touch", "10", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(run_in(j_argv, r.err).out[0], '1');
}

/*
 * 70 page-faults of a command that touches 3000 pages: one count, the
 * same in every set of the library (each counts the one run from its
 * exec), and within what perf counts for the same command.
 */
TEST(counts_agree)
{
	static const char *const py =
		"import sys\n"
		"def pf(t):\n"
		"    return [int(l.split(',')[0]) for l in t.split('\\n') "
		"if ',page-faults,' in l]\n"
		"a,b=[pf(t) for t in sys.stdin.read().split('\\f')]\n"
		"ok=len(a)==len(b)==70 and len(set(b))==1 and len(set(a))==1\n"
		"ok=ok and b[0]>=3000 and abs(b[0]-a[0])<=a[0]//20\n"
		"print(1 if ok else 0, a[:1], sorted(set(b)))\n";
	char *events = list_of(70, "page-faults"), *in;
	char *argv[] = { "/usr/bin/env", "python3", "-c", (char *)py, NULL };
	struct result p, q, r;

	p = perf("stat", "-x", ",", "-e", events, "--", SELF, "touch", "3000",
		 NULL);
	q = pctr("stat", "-x", ",", "-e", events, "--", SELF, "touch", "3000",
		 NULL);
	ASSERT_EQ(p.status, 0);
	ASSERT_EQ(q.status, 0);
	if (asprintf(&in, "%s\f%s", p.err, q.err) < 0)
		TEST_FAIL("out of memory");
	r = run_in(argv, in);
	free(in);
	if (r.out[0] != '1')
		TEST_FAIL("page-faults: %s", r.out);
}

/*
 * two processes (-p), each thread's rows (--per-thread), with and without
 * -I: perf's rows
 */
TEST(pids_like_perf)
{
	/* spinning: a thread that did not run in an interval is not counted */
	char *a[] = { self_exe, "helper", "spin", "5000", NULL };
	char oa[64], ea[64], ob[64], eb[64], pids[64];
	pid_t pa = start(a, NULL, oa, ea), pb = start(a, NULL, ob, eb);

	snprintf(pids, sizeof(pids), "%d,%d", (int)pa, (int)pb);
	usleep(100000);
	LIKE_PERF("csv", list_of(70, NULL), "-x", ",", "-p", pids, "--", SELF,
		  "sleep", "200");
	LIKE_PERF("csv", list_of(70, NULL), "-x", ",", "-p", pids,
		  "--per-thread", "--", SELF, "sleep", "200");
	LIKE_PERF("csv", list_of(70, NULL), "-x", ",", "-p", pids,
		  "--per-thread", "-I", "100", "--", SELF, "sleep", "250");
	kill(pa, SIGTERM);
	kill(pb, SIGTERM);
	finish(pa, oa, ea);
	finish(pb, ob, eb);
}

static void
needs_cpus(void)
{
	struct result r = pctr("stat", "-a", "-e", "cpu-clock", "--",
			       "/bin/true", NULL);

	if (r.status != 0)
		SKIP("pctr stat -a is not permitted here (root or "
		     "perf_event_paranoid <= 0)");
}

/* -a: the total, each CPU, core and socket; each CPU's intervals */
TEST(cpus_like_perf)
{
	static const char *const aggr[] = { "-A", "--per-core",
					    "--per-socket" };
	char *events = list_of(70, NULL);

	needs_cpus();
	LIKE_PERF("csv", events, "-x", ",", "-a", "--", SELF, "sleep", "50");
	for (size_t i = 0; i < sizeof(aggr) / sizeof(aggr[0]); i++)
		LIKE_PERF("csv", events, "-x", ",", "-a", (char *)aggr[i], "--",
			  SELF, "sleep", "50");
	LIKE_PERF("json", events, "-j", "-a", "--per-socket", "--", SELF,
		  "sleep", "50");
	LIKE_PERF("csv", events, "-x", ",", "-a", "-A", "-I", "100", "--",
		  SELF, "sleep", "250");
}

/*
 * Events this machine cannot count, among 70: "<not supported>" in their
 * places, as perf; sets of nothing but those too (6 of them, 64 of them);
 * --strict refuses them before the command runs.
 */
TEST(not_supported_like_perf)
{
	char *mixed = keep(calloc(1, 70 * 24)), *tail, *head;
	struct result r;

	if (has_pmu())
		SKIP("this machine counts cycles: no event here that cannot "
		     "be counted");
	/* cycles in 7 places, and a last set of 6 of them alone */
	for (int i = 0; i < 70; i++) {
		strcat(mixed, i ? "," : "");
		strcat(mixed, i % 10 == 3 ? "cycles" : sw[i % 10]);
	}
	tail = keep(malloc(strlen(list_of(64, "task-clock")) + 64));
	sprintf(tail, "%s,%s", list_of(64, "task-clock"), list_of(6, "cycles"));
	/* and 64 of them first, more than a set cut from the list holds */
	head = keep(malloc(strlen(list_of(64, "cycles")) + 96));
	sprintf(head, "%s,%s", list_of(64, "cycles"), list_of(6, "task-clock"));
	LIKE_PERF("csv", mixed, "-x", ",", "--", SELF, "touch", "10");
	LIKE_PERF("csv", tail, "-x", ",", "--", SELF, "touch", "10");
	LIKE_PERF("table", tail, "--", SELF, "touch", "10");
	LIKE_PERF("csv", head, "-x", ",", "--", SELF, "touch", "10");
	r = pctr("stat", "--strict", "-e", tail, "--", "sh", "-c",
		 "echo ran", NULL);
	ASSERT_EQ(r.status, 3);
	ASSERT(!strstr(r.out, "ran"));
	ASSERT_CONTAINS(r.err, "cycles");
}

/*
 * A group is counted together, in one set: one of 64 with others around
 * it is kept whole (a set of its own), one of 65 is refused, named,
 * before the command runs.
 */
TEST(groups_are_never_split)
{
	char *g64, *g65;
	struct result r;

	if (asprintf(&g64, "cs,{%s},cs", list_of(64, "page-faults")) < 0 ||
	    asprintf(&g65, "task-clock,{%s}", list_of(65, "page-faults")) < 0)
		TEST_FAIL("out of memory");
	r = pctr("stat", "-x", ",", "-e", g64, "--", SELF, "touch", "50",
		 NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_EQ(python_num("import sys\n"
			     "r=[l.split(',')[2] for l in sys.stdin "
			     "if l.strip()]\n"
			     "v=[l for l in r if l=='page-faults']\n"
			     "print(1 if len(r)==66 and r[0]==r[65]=='cs' "
			     "and len(v)==64 else 0)\n",
			     r.err),
		  1);
	r = pctr("stat", "-e", g65, "--", "sh", "-c", "echo ran", NULL);
	ASSERT_EQ(r.status, 3);
	ASSERT(!strstr(r.out, "ran"));
	ASSERT_CONTAINS(r.err, "pctr stat: the group {page-faults,...,"
			       "page-faults} (group 1 of the events) has 65 "
			       "events: a group is counted together, in one "
			       "set, and a set holds at most 64\n");
	free(g64);
	free(g65);
}

/* the report of 130 events that cannot be written: said, and a failure */
TEST(write_failure)
{
	struct result r = pctr("stat", "-o", "/dev/full", "-e",
			       list_of(130, NULL), "--", SELF, "touch", "10",
			       NULL);

	ASSERT_NE(r.status, 0);
	ASSERT_CONTAINS(r.err, "-o /dev/full: No space left on device");
	r = pctr("stat", "-x", ",", "-o", "/dev/full", "-e",
		 list_of(70, NULL), "--", SELF, "touch", "10", NULL);
	ASSERT_NE(r.status, 0);
	ASSERT_CONTAINS(r.err, "-o /dev/full: No space left on device");
}

int
main(int argc, char **argv)
{
	int h = helper_main(argc, argv);

	if (h >= 0)
		return h;
	find_self(argv[0]);
	return test_main(TESTS(TEST_CASE(csv_like_perf)
			       TEST_CASE(table_like_perf)
			       TEST_CASE(json_lines_like_perf)
			       TEST_CASE(repeats_like_perf)
			       TEST_CASE(intervals_like_perf)
			       TEST_CASE(intervals_in_pctr_layouts)
			       TEST_CASE(pctr_formats)
			       TEST_CASE(counts_agree)
			       TEST_CASE(pids_like_perf)
			       TEST_CASE(cpus_like_perf)
			       TEST_CASE(not_supported_like_perf)
			       TEST_CASE(groups_are_never_split)
			       TEST_CASE(write_failure)));
}
