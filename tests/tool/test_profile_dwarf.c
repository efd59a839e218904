/* SPDX-License-Identifier: MIT */
/*
 * test_profile_dwarf - pctr profile --call-graph dwarf: call chains of a
 * program built without frame pointers, unwound from each sample's user
 * registers and stack copy with the program's own unwinding tables.
 *
 * tests/tool/profile_nofp spins in hot(), reached through main -> a -> b
 * -> hot, built at -O2 with -fomit-frame-pointer; each function keeps
 * some of its stack, so the unwinder must step through each frame by its
 * table.  Its loop is pure arithmetic and the samples are task-clock:u's,
 * so they land in user mode and in hot(): the bound of 0.85 on the chains
 * that reach main leaves room for the dynamic loader and the program's
 * start-up (a few ms of the 300), and the clock reads of its loop (in the
 * vDSO, which has no file to unwind by: those samples keep their leaf).
 * An AddressSanitizer build of the tests builds the program alike.
 */
#include "tool.h"

static const char *
nofp_prog(void)
{
	const char *p = getenv("PROFILE_NOFP");

	if (!p)
		SKIP("$PROFILE_NOFP is not set (run through meson test)");
	return p;
}

struct folded {
	long total, reach, leaf_hot, through_a, through_b;
};

/* the samples of --folded output: all, those with @stack, leaf hot, ... */
static struct folded
count_folded(char *out)
{
	struct folded f = { 0 };

	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		char *sp = strrchr(l, ' ');
		long n;

		ASSERT(sp != NULL);
		n = atol(sp + 1);
		f.total += n;
		f.reach += strstr(l, ";main;a;b;hot ") ? n : 0;
		f.leaf_hot += sp - l >= 4 && !strncmp(sp - 4, ";hot", 4) ? n : 0;
		f.through_a += strstr(l, ";a;") ? n : 0;
		f.through_b += strstr(l, ";b;") ? n : 0;
	}
	return f;
}

/* --call-graph @cg (-g if NULL) of profile_nofp @ms, folded */
static struct folded
profile_folded(const char *cg, const char *ms)
{
	struct result r;

	if (cg)
		r = pctr("profile", "-e", "task-clock:u", "--call-graph", cg,
			 "--folded", "-o", "-", "--", nofp_prog(), ms, NULL);
	else
		r = pctr("profile", "-e", "task-clock:u", "-g", "--folded",
			 "-o", "-", "--", nofp_prog(), ms, NULL);
	if (r.status != 0)
		TEST_FAIL("pctr profile exited %d: %s", r.status, r.err);
	return count_folded(r.out);
}

/*
 * dwarf: the chain main -> a -> b -> hot in nearly every sample; frame
 * pointers (-g, --call-graph fp) find none of it: no function of the
 * chain keeps a frame pointer, so a walk through the frame pointer
 * register never meets a return address into a or b.
 */
TEST(dwarf_chains_reach_main)
{
	struct folded d = profile_folded("dwarf", "300");
	struct folded g = profile_folded(NULL, "300");
	struct folded fp = profile_folded("fp", "100");

	printf("# dwarf: %ld of %ld samples in main;a;b;hot; frame pointers: "
	       "%ld of %ld (--call-graph fp: %ld of %ld)\n",
	       d.reach, d.total, g.reach, g.total, fp.reach, fp.total);
	ASSERT(d.total > 0 && d.reach > 0.85 * d.total);
	ASSERT(g.total > 0 && fp.total > 0);
	ASSERT_EQ(g.through_b, 0);
	ASSERT_EQ(fp.through_b, 0);
}

/* the JSON report: children and self as with -g, and the method named */
TEST(dwarf_json_children)
{
	struct result r;
	char script[1024];

	r = pctr("profile", "-e", "task-clock:u", "--call-graph", "dwarf",
		 "--json", "-o", "-", "--", nofp_prog(), "300", NULL);
	ASSERT_EQ(r.status, 0);
	snprintf(script, sizeof(script),
		 "import json,sys\n"
		 "d=json.loads(sys.stdin.read().splitlines()[-1])\n"
		 "assert d['schema']=='pctr-profile/1'\n"
		 "assert d['call_graph'] is True\n"
		 "assert d['call_graph_method']=='dwarf'\n"
		 "f={x['name']:x for x in d['functions']}\n"
		 "print(min(f['hot']['share'], f['main']['children_share'],"
		 " f['a']['children_share'], f['b']['children_share']))\n");
	ASSERT(python_num(script, r.out) > 0.85);
	r = pctr("profile", "-e", "task-clock:u", "--json", "-o", "-", "--",
		 nofp_prog(), "50", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "\"call_graph\":false,"
			       "\"call_graph_method\":null");
}

/*
 * dwarf,SIZE: 4096 bytes hold these few frames; 16 do not: hot, a leaf,
 * keeps its values below the stack pointer (x86-64's red zone) or in
 * registers, so the return address into b is in the copy, but b's (past
 * the 24 bytes b keeps) is not: every sample stops at b, and is still
 * counted, with the frames it has.
 */
TEST(dwarf_stack_size)
{
	struct folded big = profile_folded("dwarf,4096", "200");
	struct folded tiny = profile_folded("dwarf,16", "200");
	struct result r;

	printf("# dwarf,4096: %ld of %ld reach main; dwarf,16: %ld of %ld "
	       "reach main, %ld with the leaf hot\n",
	       big.reach, big.total, tiny.reach, tiny.total, tiny.leaf_hot);
	ASSERT(big.total > 0 && big.reach > 0.85 * big.total);
	ASSERT(tiny.total > 0 && tiny.leaf_hot > 0.85 * tiny.total);
	ASSERT_EQ(tiny.reach, 0);
	ASSERT_EQ(tiny.through_a, 0);
	r = pctr("profile", "--call-graph", "dwarf,0", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("profile", "--call-graph", "dwarf,65529", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "dwarf,SIZE");
	r = pctr("profile", "--call-graph", "lbr", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "fp or dwarf[,SIZE]");
	r = pctr("profile", "--call-graph", "dwarfish", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
}

/*
 * --perf-data with dwarf: the registers and stacks are kept, so
 * pctr profile --input unwinds them to the same report to the byte, and
 * perf report unwinds them itself: its chain of hot goes up to main and
 * it counts as many samples in hot as pctr.
 */
TEST(dwarf_perf_data)
{
	char data[] = "/tmp/pctr-perf-data-XXXXXX";
	char *flat[] = { "/usr/bin/perf", "report", "-i", data, "--stdio", "-n",
			 "--no-children", "--sort", "sym", "-g", "none", NULL };
	char *chain[] = { "/usr/bin/perf", "report", "-i", data, "--stdio",
			  "--no-children", "--sort", "comm,sym", "-g",
			  "caller", NULL };
	static const char *const frames[] = { "\n               main\n",
					      "\n               a\n",
					      "\n               b\n",
					      "\n               hot\n" };
	struct result live, again, p;
	const char *at;
	double hot;
	int fd = mkstemp(data);

	ASSERT(fd >= 0);
	close(fd);
	live = pctr("profile", "-e", "task-clock:u", "--call-graph", "dwarf",
		    "--folded", "-o", "-", "--perf-data", data, "--",
		    nofp_prog(), "300", NULL);
	ASSERT_EQ(live.status, 0);
	again = pctr("profile", "--input", data, "--folded", "-o", "-", NULL);
	ASSERT_EQ(again.status, 0);
	ASSERT_STR_EQ(again.out, live.out);
	ASSERT_CONTAINS(again.out, ";main;a;b;hot ");
	again = pctr("profile", "--input", data, "--json", "-o", "-", NULL);
	ASSERT_CONTAINS(again.out, "\"call_graph_method\":\"dwarf\"");
	hot = python_num("import json,sys\n"
			 "d=json.loads(sys.stdin.read())\n"
			 "print(sum(f['samples'] for f in d['functions']"
			 " if f['name']=='hot'))\n", again.out);
	ASSERT_GT(hot, 0);
	if (access(flat[0], X_OK))
		SKIP("perf is not installed (linux-perf; scripts/deps.sh "
		     "check installs it)");
	p = run_in(flat, NULL);
	ASSERT_EQ(p.status, 0);
	printf("# hot: %.0f samples in pctr's report, %.0f in perf's\n", hot,
	       perf_report_samples(p.out, "hot"));
	ASSERT_EQ(perf_report_samples(p.out, "hot"), hot);
	p = run_in(chain, NULL);
	ASSERT_EQ(p.status, 0);
	/* -g caller: the chain from the root, "---" then a frame a line */
	at = strstr(p.out, "---");
	for (size_t i = 0; at && i < sizeof(frames) / sizeof(*frames); i++)
		at = strstr(at, frames[i]);
	if (!at)
		TEST_FAIL("no chain main, a, b, hot in: %s", p.out);
	unlink(data);
}

/* without libdw: said, naming the package; the samples still counted */
TEST(dwarf_missing_libdw_warns)
{
	char script[4400];
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct result r;

	snprintf(script, sizeof(script),
		 HIDE_LIBDW("%s profile -e task-clock:u --call-graph dwarf -- %s 100"),
		 pctr_path(), nofp_prog());
	r = run_in(argv, NULL);
	if (r.status != 0)
		TEST_FAIL("exit status %d: %s", r.status, r.err);
	ASSERT_CONTAINS(r.err, "libdw1");
	ASSERT_CONTAINS(r.err, "nor unwound");
	ASSERT_CONTAINS(r.err, "samples of task-clock");
}

int
main(int argc, char **argv)
{
	return test_main(TESTS(TEST_CASE(dwarf_chains_reach_main)
			       TEST_CASE(dwarf_json_children)
			       TEST_CASE(dwarf_stack_size)
			       TEST_CASE(dwarf_perf_data)
			       TEST_CASE(dwarf_missing_libdw_warns)));
}
