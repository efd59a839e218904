/* SPDX-License-Identifier: MIT */
/*
 * test_profile - pctr profile of examples/hotspots, whose hot_three()
 * costs three times what hot_one() costs: the profile must rank them so,
 * with shares near 75% and 25%, under symbol names read from the ELF file.
 * The report, like pctr stat's, never mixes with the command's output:
 * standard error by default, -o FILE (not inherited), -o - for stdout.
 *
 * tests/tool/profile_chain spins in hot(), reached through main -> a -> b
 * -> hot, built with frame pointers, in itself, in a forked child or after
 * an exec of itself: every process of the tree must be named, from the
 * side-band records of the sample stream, with the call chain when -g.
 * Its loop is pure arithmetic, so task-clock's samples land in user mode
 * and in hot(); the bounds below leave room for the kernel's interrupts
 * and the exec, and for samples of sh.
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

/*
 * task-clock:u, so that the shares are of the program's own code: with the
 * kernel in, an expiry that interrupts kernel mode in the program's time
 * (an interrupt's or softirq's work, a switch) is a sample in a kernel
 * function (tests/repro/repro_task_clock_kernel_samples: 1 to 3.7% of a
 * user-mode loop's samples beside two spinners on its CPU).  Here 1.6 to
 * 5.3% of the samples were the kernel's with four spinners on the
 * program's CPU, and once 0.62 was left to hot_three under two guests
 * beside the tests.  A :u counter drops those expiries, the timer going
 * on a period: evenly over the program's functions.
 */
TEST(ranks_hotspots_by_cost)
{
	struct result r = pctr("profile", "-e", "task-clock:u", "-F", "2000",
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

static const char *
chain_prog(const char *var)
{
	const char *p = getenv(var);

	if (!p)
		SKIP("$%s is not set (run through meson test)", var);
	return p;
}

/*
 * The JSON report (the last line of @json): the sum of f[@field] over its
 * rows f where the python expression @cond holds; with @field NULL, the
 * number of those rows.
 */
static double
json_sum(const char *json, const char *field, const char *cond)
{
	char script[1024];

	snprintf(script, sizeof(script),
		 "import json,sys\n"
		 "d=json.loads(sys.stdin.read().splitlines()[-1])\n"
		 "assert d['schema']=='pctr-profile/1'\n"
		 "print(sum(f.get('%s',1) for f in d['functions'] if %s))",
		 field ? field : "", cond);
	return python_num(script, json);
}

/* the leaf function's share, over every process of the tree */
static double
hot_share(struct result r)
{
	if (r.status != 0)
		TEST_FAIL("pctr profile exited %d: %s", r.status, r.err);
	return json_sum(r.out, "share", "f.get('name')=='hot'");
}

/*
 * Children of sh, forks and execs: named by the records of the stream
 * (before, only the top pid's /proc/PID/maps was read: 100% [unknown]).
 * A bound of 0.85: the spin is 300 ms of user-mode arithmetic in hot(),
 * sampled in user mode (task-clock:u), where sh, the dynamic loader and
 * the program's start-up take some ms and a few percent at most.  (With
 * the kernel's time in too, an AddressSanitizer build's start-up, which
 * faults in its shadow memory, took 15% under load: 0.847.)
 */
TEST(children_forks_execs_named)
{
	const char *prog = chain_prog("PROFILE_CHAIN");
	char cmd[4200];
	double sh, fork, exec;

	snprintf(cmd, sizeof(cmd), "%s 300; true", prog);
	sh = hot_share(pctr("profile", "-e", "task-clock:u", "--sort",
			    "comm,sym", "--json", "-o", "-", "--", "sh", "-c",
			    cmd, NULL));
	fork = hot_share(pctr("profile", "-e", "task-clock:u", "--json", "-o",
			      "-", "--", prog, "300", "fork", NULL));
	exec = hot_share(pctr("profile", "-e", "task-clock:u", "--json", "-o",
			      "-", "--", prog, "300", "exec", NULL));
	printf("# hot's share: sh -c %.3f, fork %.3f, exec %.3f\n", sh, fork,
	       exec);
	ASSERT(sh > 0.85);
	ASSERT(fork > 0.85);
	ASSERT(exec > 0.85);
}

/* the command of each row is the process's own: profile_chain under sh */
/* task-clock:u: shares of the program's code (ranks_hotspots_by_cost) */
TEST(sort_keys_in_any_order)
{
	const char *prog = chain_prog("PROFILE_CHAIN");
	char cmd[4200];
	struct result r;

	snprintf(cmd, sizeof(cmd), "%s 200; true", prog);
	r = pctr("profile", "-e", "task-clock:u", "--sort", "sym,comm,dso",
		 "--", "sh", "-c", cmd, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "function");
	ASSERT(strstr(r.err, "function") < strstr(r.err, "command"));
	ASSERT(strstr(r.err, "command") < strstr(r.err, "module"));
	ASSERT(strstr(r.err, "hot") != NULL);
	/* the row of hot: command profile_chain, module profile_chain */
	ASSERT(json_sum(pctr("profile", "-e", "task-clock:u", "--sort",
			     "dso,comm", "--json", "-o", "-", "--", "sh", "-c",
			     cmd, NULL).out,
			"share",
			"f['comm']=='profile_chain' and "
			"f['module']=='profile_chain' and 'name' not in f") >
	       0.85);
	r = pctr("profile", "--sort", "sym,pid", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "comm, dso, sym");
	r = pctr("profile", "--sort", "sym,sym", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
}

/*
 * A stripped program: its addresses without a symbol are one row,
 * "[unknown]" in its module, not one row per address; --top and
 * --percent-limit cut the list.  task-clock:u as ranks_hotspots_by_cost.
 */
TEST(stripped_rows_limited)
{
	const char *prog = chain_prog("PROFILE_STRIPPED");
	struct result r;
	double v;

	r = pctr("profile", "-e", "task-clock:u", "--json", "-o", "-", "--",
		 prog, "300", NULL);
	ASSERT_EQ(r.status, 0);
	v = json_sum(r.out, "share",
		     "f['name']=='[unknown]' and "
		     "f['module']=='profile_chain_stripped'");
	printf("# the stripped program's one row: %.3f\n", v);
	ASSERT(v > 0.85);
	ASSERT_EQ(json_sum(r.out, "samples",
			   "f['module']=='profile_chain_stripped' and "
			   "f['name']!='[unknown]'"),
		  0);
	r = pctr("profile", "-e", "task-clock:u", "--top", "1", "--json", "-o",
		 "-", "--", prog, "100", NULL);
	ASSERT_EQ(json_sum(r.out, NULL, "True"), 1); /* one row */
	r = pctr("profile", "-e", "task-clock:u", "--percent-limit", "50",
		 "--", prog, "100", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "[unknown]");
	ASSERT(!strstr(r.err, "%       1 ")); /* no row of one sample */
}

/*
 * -g: frame pointers give main -> a -> b -> hot; hot's self share is
 * near all, main's self is 0 and its children share near all; --folded
 * prints that stack root first, with its count.  task-clock:u as
 * ranks_hotspots_by_cost.
 */
TEST(call_graph_children_self_folded)
{
	const char *prog = chain_prog("PROFILE_CHAIN");
	struct result r;
	char *line;
	long n = 0, total = 0;

	r = pctr("profile", "-e", "task-clock:u", "-g", "--json", "-o", "-",
		 "--", prog, "300", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT(json_sum(r.out, "share", "f['name']=='hot'") > 0.85);
	ASSERT(json_sum(r.out, "children_share", "f['name']=='main'") > 0.9);
	ASSERT(json_sum(r.out, "children_share", "f['name']=='b'") > 0.85);
	ASSERT_EQ(json_sum(r.out, "samples", "f['name']=='main'"), 0);
	r = pctr("profile", "-e", "task-clock:u", "-g", "--folded", "-o", "-",
		 "--", prog, "300", NULL);
	ASSERT_EQ(r.status, 0);
	for (line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strrchr(line, ' ');

		ASSERT(sp != NULL);
		total += atol(sp + 1);
		if (strstr(line, ";main;spin;a;b;hot "))
			n += atol(sp + 1);
	}
	printf("# folded: %ld of %ld samples in main;spin;a;b;hot\n", n,
	       total);
	ASSERT(total > 0 && n > 0.85 * total);
	/* without -g: one frame a sample */
	r = pctr("profile", "-e", "task-clock:u", "--folded", "-o", "-", "--",
		 prog, "100", NULL);
	ASSERT_CONTAINS(r.out, "profile_chain;hot ");
	ASSERT(!strstr(r.out, ";b;"));
}

/*
 * Shares are written in the one number form of every document (src/text/):
 * the double events / events itself, in its fewest digits, read back as
 * the same double.  Once "%.4f": hot_one's 0.2328 for 54 / 232 =
 * 0.23275862... .  hotspots splits its samples 1:3 between two functions,
 * and a sample every 0.7 ms makes some 230, whose shares k / n four
 * digits do not hold (of 100 samples, k / 100, they would).
 */
TEST(json_shares_exact)
{
	struct result r;
	char *out, *first;
	double bad;

	r = pctr("profile", "-e", "task-clock:u", "-c", "700000", "-g",
		 "--json", "-o", "-", "--", hotspots(), "60", NULL);
	ASSERT_EQ(r.status, 0);
	out = python("import json,sys\n"
		     "d=json.loads(sys.stdin.read().splitlines()[-1])\n"
		     "e=d['events']\n"
		     "bad=[f for f in d['functions'] if f['share']!="
		     "f['events']/e or f['children_share']!="
		     "f['children_events']/e]\n"
		     "print(len(bad) if d['functions'] else -1,"
		     " bad[0] if bad else '')\n",
		     r.out);
	bad = strtod(out, &first);
	first[strcspn(first, "\n")] = '\0';
	if (bad != 0)
		TEST_FAIL("%.0f rows' shares are not events / events (-1: "
			  "none), the first:%s",
			  bad, first);
}

/* spawn profile_chain MS, return its pid */
static pid_t
spawn_chain(const char *ms)
{
	char *argv[] = { (char *)chain_prog("PROFILE_CHAIN"), (char *)ms,
			 NULL };
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/*
 * --perf-data: Debian's perf report reads the file pctr wrote.  Its
 * samples are the report's own, one record each, so perf counts exactly
 * as many in hot() as pctr does; named from the file's MMAP2 and COMM
 * records, in the forked child too; hot's call chain goes up to main.
 */
TEST(perf_data_read_by_perf_report)
{
	const char *prog = chain_prog("PROFILE_CHAIN");
	char data[] = "/tmp/pctr-perf-data-XXXXXX";
	char *flat[] = { "/usr/bin/perf", "report", "-i", data, "--stdio", "-n",
			 "--no-children", "--sort", "sym", "-g", "none", NULL };
	char *chain[] = { "/usr/bin/perf", "report", "-i", data, "--stdio",
			  "--no-children", "--sort", "comm,sym", "-g",
			  "caller", NULL };
	static const char *const frames[] = { "\n               main\n",
					      "\n               spin\n",
					      "\n               a\n",
					      "\n               b\n",
					      "\n               hot\n" };
	struct result r, p;
	const char *at;
	double hot;
	int fd;

	if (access(flat[0], X_OK))
		SKIP("perf is not installed (linux-perf; scripts/deps.sh "
		     "check installs it)");
	fd = mkstemp(data);
	ASSERT(fd >= 0);
	close(fd);
	r = pctr("profile", "-e", "task-clock", "-g", "--json", "-o", "-",
		 "--perf-data", data, "--", prog, "300", "fork", NULL);
	ASSERT_EQ(r.status, 0);
	hot = json_sum(r.out, "samples", "f['name']=='hot'");
	ASSERT_GT(hot, 0);
	p = run_in(flat, NULL);
	ASSERT_EQ(p.status, 0);
	printf("# hot: %.0f samples in pctr's report, %.0f in perf's\n", hot,
	       perf_report_samples(p.out, "hot"));
	ASSERT_EQ(perf_report_samples(p.out, "hot"), hot);
	p = run_in(chain, NULL);
	ASSERT_EQ(p.status, 0);
	ASSERT_CONTAINS(p.out, "profile_chain  [.] hot");
	/* -g caller: the chain from the root, "---" then a frame a line */
	at = strstr(p.out, "---");
	for (size_t i = 0; at && i < sizeof(frames) / sizeof(*frames); i++)
		at = strstr(at, frames[i]);
	if (!at)
		TEST_FAIL("no chain main, spin, a, b, hot in: %s", p.out);
	unlink(data);
	/* a file that cannot be written: said, before anything runs */
	r = pctr("profile", "--perf-data", "/nonexistent/dir/p.data", "--",
		 "true", NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_CONTAINS(r.err, "/nonexistent/dir/p.data: No such file");
}

/*
 * --input: a recording of --perf-data reported again is the live report,
 * to the byte (the same records through the same reading); one of perf
 * record's gives the hot function as many samples as perf report does;
 * a file that is not one, or is cut short, is said so (status 1); and
 * --input takes no command and no sampling options (status 2).
 */
TEST(input_reports_a_recording_again)
{
	const char *prog = chain_prog("PROFILE_CHAIN");
	char data[] = "/tmp/pctr-input-XXXXXX", cut[64], cmd[256];
	char *record[] = { "/usr/bin/perf", "record", "-q", "-e", "task-clock",
			   "-c", "1000000", "-g", "-o", data, "--", (char *)prog,
			   "300", NULL };
	char *report[] = { "/usr/bin/perf", "report", "-i", data, "--stdio",
			   "-n", "--no-children", "--sort", "sym", "-g", "none",
			   NULL };
	struct result live, again, p;
	double hot;
	int fd = mkstemp(data);

	ASSERT(fd >= 0);
	close(fd);
	live = pctr("profile", "-e", "task-clock", "-g", "--json", "-o", "-",
		    "--perf-data", data, "--", prog, "300", "fork", NULL);
	ASSERT_EQ(live.status, 0);
	again = pctr("profile", "--input", data, "--json", "-o", "-", NULL);
	ASSERT_EQ(again.status, 0);
	ASSERT_STR_EQ(again.out, live.out);
	again = pctr("profile", "--input", data, "--folded", "-o", "-", NULL);
	ASSERT_EQ(again.status, 0);
	ASSERT_CONTAINS(again.out, "main;spin;a;b;hot ");
	/* cut short: the data section runs past the end */
	snprintf(cut, sizeof(cut), "%s.cut", data);
	snprintf(cmd, sizeof(cmd), "head -c 2000 %s > %s", data, cut);
	ASSERT_EQ(system(cmd), 0);
	again = pctr("profile", "--input", cut, NULL);
	ASSERT_EQ(again.status, 1);
	ASSERT_CONTAINS(again.err, "cut short");
	unlink(cut);
	again = pctr("profile", "--input", "/etc/hostname", NULL);
	ASSERT_EQ(again.status, 1);
	ASSERT_CONTAINS(again.err, "not a perf.data file");
	again = pctr("profile", "--input", data, "--", "true", NULL);
	ASSERT_EQ(again.status, 2);
	again = pctr("profile", "--input", data, "-F", "99", NULL);
	ASSERT_EQ(again.status, 2);
	ASSERT_CONTAINS(again.err, "--input takes the view options only");
	/* perf record's own file */
	if (access(record[0], X_OK))
		SKIP("perf is not installed (linux-perf; scripts/deps.sh "
		     "check installs it)");
	p = run_in(record, NULL);
	ASSERT_EQ(p.status, 0);
	again = pctr("profile", "--input", data, "--json", "-o", "-", NULL);
	ASSERT_EQ(again.status, 0);
	hot = json_sum(again.out, "samples", "f['name']=='hot'");
	p = run_in(report, NULL);
	ASSERT_EQ(p.status, 0);
	printf("# perf record: hot has %.0f samples in pctr's report, %.0f in "
	       "perf's\n",
	       hot, perf_report_samples(p.out, "hot"));
	ASSERT_GT(hot, 0);
	ASSERT_EQ(perf_report_samples(p.out, "hot"), hot);
	unlink(data);
}

/*
 * The shares of recording @data in pctr's report and in perf report's:
 * the number of perf's rows that differ from pctr's by more than perf's
 * rounding (0.005% a printed share, 0.001% beside).  perf names an
 * address no symbol holds by itself, "0x0000000000003e44", a row each;
 * pctr gives a module's such addresses one row, "[unknown]" (pctr(1)), so
 * perf's are summed under that name, with their rounding each.
 */
static double
shares_differ(char *data)
{
	char *report[] = { "/usr/bin/perf", "report", "-i", data, "--stdio",
			   "-q", "--sort", "sym", NULL };
	char both[65536], *out, *rows;
	struct result p, q;
	double bad;

	p = run_in(report, NULL);
	ASSERT_EQ(p.status, 0);
	q = pctr("profile", "--input", data, "--json", "-o", "-", NULL);
	ASSERT_EQ(q.status, 0);
	snprintf(both, sizeof(both), "%s\n%s", q.out, p.out);
	/* perf's lines "  96.67%  [k] read_zero" against pctr's rows */
	out = python(
		"import json,re,sys\n"
		"lines=sys.stdin.read().splitlines()\n"
		"d=json.loads(lines[0])\n"
		"ours,perfs={},{}\n"
		"for f in d['functions']:\n"
		"    ours[f['name']]=ours.get(f['name'],0)+100*f['share']\n"
		"for l in lines[1:]:\n"
		"    w=l.split()\n"
		"    if len(w)<3 or not w[0].endswith('%'): continue\n"
		"    name=' '.join(w[2:])\n"
		"    if re.fullmatch('0x[0-9a-f]{16}',name): name='[unknown]'\n"
		"    s,n=perfs.get(name,(0,0))\n"
		"    perfs[name]=(s+float(w[0][:-1]),n+1)\n"
		"bad,rows=0,[]\n"
		"for name,(perf,n) in perfs.items():\n"
		"    rows.append('# %-24s perf %6.2f%% (%d rows), pctr %6.2f%%'%("
		"name,perf,n,ours.get(name,-1)))\n"
		"    bad+=abs(ours.get(name,-1)-perf)>0.005*n+0.006\n"
		"print(bad if rows else 99)\n"
		"print('\\n'.join(rows))\n",
		both);
	bad = strtod(out, &rows);
	printf("%s", rows + (*rows == '\n'));
	return bad;
}

/*
 * perf record -q -e EVENT -F HZ -- @argv into a file of its own, then
 * shares_differ() of it
 */
static double
recorded_shares_differ(const char *event, const char *hz,
		       char *const argv[])
{
	char data[] = "/tmp/pctr-overhead-XXXXXX";
	char *record[32] = { "/usr/bin/perf", "record", "-q", "-e",
			     (char *)event, "-F", (char *)hz, "-o", data,
			     "--" };
	int fd = mkstemp(data), n = 10;
	struct result p;
	double bad;

	ASSERT(fd >= 0);
	close(fd);
	/* perf is the judge: scripts/deps.sh check installs linux-perf */
	if (access(record[0], X_OK))
		TEST_FAIL("perf is not installed (linux-perf)");
	while (*argv && n < 31)
		record[n++] = *argv++;
	p = run_in(record, NULL);
	ASSERT_EQ(p.status, 0);
	bad = shares_differ(data);
	unlink(data);
	return bad;
}

/*
 * A share is of the events, each sample standing for its period, as
 * perf report's overhead: the same file read by both gives every function
 * the same share to the hundredth of a percent.  page-faults at -F 200
 * starts from a period of 1 and the kernel raises it as it goes: dd's
 * 8 MB buffer read into is nearly all the faults and one sample of six
 * ("96.67% read_zero"), where counting samples gave elf_load's two
 * samples of a fault each 33.33%.
 */
TEST(shares_are_perf_reports_overhead)
{
	char *const dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=8M",
			     "count=4", NULL };

	ASSERT_EQ(recorded_shares_differ("page-faults", "200", dd), 0);
}

/*
 * The same of a stripped program: its hot loop at addresses no symbol
 * holds, many rows of perf's and one of pctr's.  dd's did so only when a
 * sample landed there (a fresh container: "0x0000000000003e44 perf
 * 0.02%, pctr -1.00%").
 */
TEST(shares_of_a_stripped_program_are_perf_reports)
{
	char *const prog[] = { (char *)chain_prog("PROFILE_STRIPPED"), "200",
			       NULL };

	ASSERT_EQ(recorded_shares_differ("task-clock:u", "1000", prog), 0);
}

/*
 * -p, -t and -a attach to what runs already: its maps are read from /proc
 * when its first sample comes.  -d ends the profile.  task-clock:u for
 * the shares of the program's own code (ranks_hotspots_by_cost says why).
 */
TEST(attach_pid_tid_cpus)
{
	pid_t pid = spawn_chain("3000");
	char spid[16];
	struct result r;

	ASSERT(pid > 0);
	usleep(100000); /* past its exec */
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	r = pctr("profile", "-e", "task-clock:u", "-p", spid, "-d", "0.4",
		 "--json", "-o", "-", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT(json_sum(r.out, "share", "f['name']=='hot'") > 0.85);
	r = pctr("profile", "-e", "task-clock:u", "-t", spid, "-d", "0.4",
		 "--json", "-o", "-", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT(json_sum(r.out, "share", "f['name']=='hot'") > 0.85);
	/* whole CPUs: other processes' work too, but hot among it */
	r = pctr("profile", "-a", "-d", "0.5", "--sort", "comm,sym", "--json",
		 "-o", "-", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT(json_sum(r.out, "samples",
			"f['comm']=='profile_chain' and f['name']=='hot'") > 0);
	r = pctr("profile", "-a", "-C", "0", "-d", "0.2", "--json", "-o", "-",
		 NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "\"event\":\"cpu-clock\"");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * Kernel samples are named from /proc/kallsyms (readable here: root): a
 * command that spends its time in read(2) of /dev/zero.
 */
TEST(kernel_symbols)
{
	struct result r = pctr("profile", "-e", "task-clock", "--sort",
			       "dso,sym", "--json", "-o", "-", "--", "dd",
			       "if=/dev/zero", "of=/dev/null", "bs=1M",
			       "count=3000", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT(json_sum(r.out, "share",
			"f['module']=='[kernel.kallsyms]' and "
			"f['name']!='[kernel]'") > 0.5);
	ASSERT_CONTAINS(r.out, "\"kernel_hidden\":null");
}

/*
 * Without CAP_SYSLOG (dropped from the bounding set, so root's exec does
 * not get it), /proc/kallsyms shows zeros: kernel samples are [kernel],
 * and the warning and "kernel_hidden" say why.
 */
TEST(kernel_hidden_says_why)
{
	char *argv[] = { "/usr/bin/setpriv", "--bounding-set=-syslog",
			 (char *)pctr_path(), "profile", "-e", "task-clock",
			 "--sort", "dso,sym", "--json", "-o", "-", "--", "dd",
			 "if=/dev/zero", "of=/dev/null", "bs=1M", "count=3000",
			 NULL };
	struct result r;

	if (geteuid() != 0 || access(argv[0], X_OK))
		SKIP("needs root and setpriv to drop CAP_SYSLOG");
	r = run_in(argv, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT(json_sum(r.out, "share", "f['module']=='[kernel]' and "
					"f['name']=='[kernel]'") > 0.5);
	ASSERT_CONTAINS(r.out, "kptr_restrict=");
	ASSERT_CONTAINS(r.err, "warning: kernel addresses have no names");
	ASSERT_CONTAINS(r.err, "perf_event_paranoid=");
}

TEST(options)
{
	struct result r = pctr("profile", "--help", NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "usage: pctr profile");
	ASSERT_CONTAINS(r.out, "--folded");
	r = pctr("profile", "-h", NULL);
	ASSERT_EQ(r.status, 0);
	r = pctr("profile", "-e", "task-clock,page-faults", "--", "true",
		 NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "one event");
	r = pctr("profile", "-C", "0", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "-C needs -a");
	r = pctr("profile", "-d", "1", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("profile", "-p", "1", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("profile", "--json", "--folded", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("profile", "--top", "0", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	/* the default event exists here (task-clock without a PMU) */
	r = pctr("profile", "--", "true", NULL);
	ASSERT_EQ(r.status, 0);
}

/*
 * Without libdw, a warning names the package: the dynamic loader finds an
 * empty libdw.so.1 first (HIDE_LIBDW), so pctr's dlopen() fails as it
 * does where libdw1 is not installed.  The samples keep their addresses,
 * in the module that maps them (from the sample stream's MMAP2 records).
 */
TEST(missing_libdw_warns)
{
	char script[4400];
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct result r;

	snprintf(script, sizeof(script), HIDE_LIBDW("%s profile -e task-clock -- %s 50"),
		 pctr_path(), chain_prog("PROFILE_CHAIN"));
	r = run_in(argv, NULL);
	if (r.status != 0)
		TEST_FAIL("exit status %d: %s", r.status, r.err);
	ASSERT_CONTAINS(r.err, "libdw1");
	ASSERT_CONTAINS(r.err, "samples of task-clock");
	/* the loop's rows: "  87.30%        55  0x560ef0450214  profile_chain" */
	ASSERT_CONTAINS(r.err, "  0x");
	ASSERT_CONTAINS(r.err, " profile_chain\n");
	ASSERT(strstr(r.err, "[unknown]") == NULL);
}

/*
 * SIGTERM from another process: forwarded to the command, whose death
 * the exit status tells, and the report of what was sampled still comes.
 */
TEST(signal_forwarded_report_kept)
{
	char *argv[] = { (char *)pctr_path(), "profile", "-e", "task-clock",
			 "--", (char *)chain_prog("PROFILE_CHAIN"), "20000",
			 NULL };
	char o[64], e[64];
	pid_t pid = start(argv, NULL, o, e);
	struct result r;

	usleep(400000);
	kill(pid, SIGTERM);
	r = finish(pid, o, e);
	ASSERT_EQ(r.status, 128 + SIGTERM);
	ASSERT_CONTAINS(r.err, "samples of task-clock");
	ASSERT_CONTAINS(r.err, "hot");
}

/*
 * Attached, without -d: SIGINT ends the profile (the runner's signalfd
 * wakes its wait at once, no poll interval), the report comes, exit 0;
 * a process that exits ends it too, each buffer hung up.
 */
TEST(attached_ends_on_signal_or_exit)
{
	pid_t target = spawn_chain("20000"), pid;
	char spid[16], o[64], e[64];
	char *argv[] = { (char *)pctr_path(), "profile", "-e", "task-clock",
			 "-p", spid, NULL };
	struct result r;

	ASSERT(target > 0);
	usleep(100000); /* past its exec */
	snprintf(spid, sizeof(spid), "%d", (int)target);
	pid = start(argv, NULL, o, e);
	usleep(300000);
	kill(pid, SIGINT);
	r = finish(pid, o, e);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "samples of task-clock");
	ASSERT_CONTAINS(r.err, "hot");
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	target = spawn_chain("300");
	usleep(100000);
	snprintf(spid, sizeof(spid), "%d", (int)target);
	r = pctr("profile", "-e", "task-clock", "-p", spid, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "samples of task-clock");
	waitpid(target, NULL, 0);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return test_main(TESTS(TEST_CASE(ranks_hotspots_by_cost)
			       TEST_CASE(text_report_with_period)
			       TEST_CASE(output_file_separate)
			       TEST_CASE(exit_status_and_errors)
			       TEST_CASE(children_forks_execs_named)
			       TEST_CASE(sort_keys_in_any_order)
			       TEST_CASE(stripped_rows_limited)
			       TEST_CASE(call_graph_children_self_folded)
			       TEST_CASE(json_shares_exact)
			       TEST_CASE(shares_are_perf_reports_overhead)
			       TEST_CASE(shares_of_a_stripped_program_are_perf_reports)
			       TEST_CASE(attach_pid_tid_cpus)
			       TEST_CASE(attached_ends_on_signal_or_exit)
			       TEST_CASE(kernel_symbols)
			       TEST_CASE(kernel_hidden_says_why)
			       TEST_CASE(options)
			       TEST_CASE(missing_libdw_warns)
			       TEST_CASE(signal_forwarded_report_kept)
			       TEST_CASE(perf_data_read_by_perf_report)
			       TEST_CASE(input_reports_a_recording_again)));
}
