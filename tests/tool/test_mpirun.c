/* SPDX-License-Identifier: MIT */
/*
 * test_mpirun - pctr mpirun -n 4 --oversubscribe on this machine, with
 * Open MPI's mpirun: every rank's page faults exact, the program's output
 * passed through, a rank that exits non-zero, one killed by a signal, one
 * that never reports, and mpirun missing.
 *
 * Page faults are a software event, counted exactly.  A rank's count is
 * the pages it touches (mpi_pages: 500 * (rank + 1)) plus its process's
 * own start-up faults, which a job whose ranks touch no page measures,
 * rank by rank; nothing else is allowed.  mpi_pages is freestanding so
 * that those are fixed (3 here: its text, its read-only data, its stack;
 * mpi_pages.c says why a program with the C library varies).
 *
 * When a rank fails, Open MPI ends the job: the other ranks' programs may
 * be killed part-way (SIGTERM, forwarded by their pctr stat), so only the
 * ranks whose program exited 0 have a count known exactly; the others
 * touched fewer pages, never more.
 *
 * Open MPI refuses to start as root unless told: the test environment
 * tells it (OMPI_ALLOW_RUN_AS_ROOT), when the tests run as root.
 */
#include "tool.h"

#define RANKS 4
#define PAGES 500
#define MPI_TAG_TEXT "@pctr-mpi/1" /* a rank's line, tools/mpi.h */

static char report[] = "/tmp/pctr-mpirun-XXXXXX";

struct job {
	struct result r;
	char *json; /* the pctr-mpi/1 report */
	long count[RANKS]; /* page-faults:u of each rank, -1 if missing */
	int exit[RANKS];
};

/* mpirun in $PATH, as pctr mpirun looks for it */
static bool
have_mpirun(void)
{
	char *path = strdup(getenv("PATH") ? getenv("PATH") : ""), *save;
	bool found = false;

	for (char *d = strtok_r(path, ":", &save); d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char f[4096];

		snprintf(f, sizeof(f), "%s/mpirun", d);
		found = access(f, X_OK) == 0;
	}
	free(path);
	return found;
}

static const char *
prog(void)
{
	const char *p = getenv("MPI_PAGES");

	if (!p)
		SKIP("$MPI_PAGES is not set (run through meson test; built "
		     "for x86-64 and arm64 only)");
	if (!have_mpirun())
		SKIP("Open MPI's mpirun is not installed (scripts/deps.sh "
		     "check installs openmpi-bin)");
	return p;
}

/*
 * [PRE...] pctr mpirun -n 4 [OPTION...] ... -- mpi_pages PAGES [MODE
 * ARG...], at most 8 words before, 8 options and 5 words of mode
 */
static struct job
job_run(const char *const *pre, const char *const *opt, const char *pages,
	const char *const *mode)
{
	char *argv[40];
	int n = 0;
	struct job j;
	char *s, *p;

	for (int i = 0; pre && pre[i] && i < 8; i++)
		argv[n++] = (char *)pre[i];
	for (const char *const *a = (const char *const[]){
		     pctr_path(), "mpirun", "-n", "4", "--oversubscribe",
		     "--json", "-o", report, "-e", "page-faults:u", NULL };
	     *a; a++)
		argv[n++] = (char *)*a;
	for (int i = 0; opt && opt[i] && i < 8; i++)
		argv[n++] = (char *)opt[i];
	argv[n++] = "--";
	argv[n++] = (char *)prog();
	argv[n++] = (char *)pages;
	for (int i = 0; mode && mode[i] && i < 5; i++)
		argv[n++] = (char *)mode[i];
	argv[n] = NULL;
	j = (struct job){ .r = run_in(argv, NULL) };

	j.json = keep(slurp(report));
	if (!j.json)
		TEST_FAIL("no report written (status %d): %s", j.r.status,
			  j.r.err);
	s = keep(python("import json,sys\nd=json.load(sys.stdin)\n"
			"k={r['rank']:r for r in d['ranks']}\n"
			"for i in range(4):\n"
			" r=k.get(i)\n"
			" print(r['counts']['page-faults:u'] if r else -1,"
			" r['exit_status'] if r else -1)\n",
			j.json));
	p = s;
	for (int i = 0; i < RANKS; i++)
		j.count[i] = strtol(p, &p, 10), j.exit[i] = strtol(p, &p, 10);
	return j;
}

/* pctr mpirun -n 4 ... -- mpi_pages PAGES [MODE RANK [CODE]] */
static struct job
job(const char *pages, const char *mode, const char *rank, const char *code)
{
	const char *m[] = { mode, rank, code, NULL };

	return job_run(NULL, NULL, pages, m);
}

static long
py_num(const char *expr, const char *json)
{
	char script[512];

	snprintf(script, sizeof(script),
		 "import json,sys\nd=json.load(sys.stdin)\nprint(%s)\n", expr);
	return (long)python_num(script, json);
}

/* the start-up faults of each rank: a job whose ranks touch nothing */
static void
baseline(long *base)
{
	struct job j = job("0", NULL, NULL, NULL);

	ASSERT_EQ(j.r.status, 0);
	for (int i = 0; i < RANKS; i++) {
		ASSERT_GT(j.count[i], 0);
		base[i] = j.count[i];
	}
}

/*
 * A rank of a job that another rank ended: exact if its program exited
 * 0, otherwise (killed part-way) no more than its pages.
 */
static void
check_other_rank(const struct job *j, const long *base, int i)
{
	long want = base[i] + PAGES * (i + 1);

	if (j->exit[i] == 0)
		ASSERT_EQ(j->count[i], want);
	else
		ASSERT_LE(j->count[i], want);
}

TEST(every_rank_counted_exactly)
{
	long base[RANKS], total = 0, max = 0;
	struct job j;
	char line[64];

	baseline(base);
	j = job("500", NULL, NULL, NULL);
	ASSERT_EQ(j.r.status, 0);
	for (int i = 0; i < RANKS; i++) {
		ASSERT_EQ(j.count[i], base[i] + PAGES * (i + 1));
		ASSERT_EQ(j.exit[i], 0);
		total += j.count[i];
		max = j.count[i] > max ? j.count[i] : max;
		/* the program's own output, untouched */
		snprintf(line, sizeof(line), "rank %d touched %d pages\n", i,
			 PAGES * (i + 1));
		ASSERT_CONTAINS(j.r.out, line);
		snprintf(line, sizeof(line), "rank %d: stderr passes through\n",
			 i);
		ASSERT_CONTAINS(j.r.err, line);
	}
	ASSERT(strstr(j.r.err, MPI_TAG_TEXT) == NULL);
	ASSERT(strstr(j.r.out, MPI_TAG_TEXT) == NULL);
	ASSERT_EQ(py_num("d['size']", j.json), RANKS);
	ASSERT_EQ(py_num("len(d['missing'])", j.json), 0);
	ASSERT_EQ(py_num("d['exit']['status']", j.json), 0);
	ASSERT_EQ(py_num("d['events']['page-faults:u']['total']", j.json),
		  total);
	ASSERT_EQ(py_num("d['events']['page-faults:u']['max']", j.json), max);
	ASSERT_EQ(py_num("d['events']['page-faults:u']['max_rank']", j.json),
		  3);
	ASSERT_EQ(py_num("round(d['events']['page-faults:u']['imbalance'] * "
			 "1e9)", j.json),
		  (long)((double)max * RANKS / (double)total * 1e9 + 0.5));
}

/*
 * Programs that write to standard error what pctr never could: rank 0 a
 * progress meter's partial line, left without its newline; ranks 1 and 3
 * lines that look like a rank's counts, for their own rank and for
 * another.  Every rank's real count is taken, exact, and none forged; the
 * programs' text passes through untouched.
 */
#define FORGED(rank, n)                                                      \
	MPI_TAG_TEXT " {\"schema\":\"pctr-mpi/1\",\"size\":4,\"ranks\":"     \
		     "[{\"rank\":" #rank ",\"host\":\"forged\","           \
		     "\"exit_status\":0,\"signal\":null,\"counts\":"         \
		     "{\"page-faults:u\":" #n "}}]}\n"

static void
hostile(const char *const *opt)
{
	const char *say[] = { "say", "progress 50%", FORGED(1, 7), "",
			      FORGED(2, 9), NULL };
	long base[RANKS];
	struct job j;

	baseline(base);
	j = job_run(NULL, opt, "500", say);
	ASSERT_EQ(j.r.status, 0);
	ASSERT_EQ(py_num("len(d['missing'])", j.json), 0);
	ASSERT_EQ(py_num("sum(r['host'] == 'forged' for r in d['ranks'])",
			 j.json), 0);
	for (int i = 0; i < RANKS; i++)
		ASSERT_EQ(j.count[i], base[i] + PAGES * (i + 1));
	ASSERT_CONTAINS(j.r.err, "progress 50%");
	ASSERT_CONTAINS(j.r.err, "{\"rank\":1,\"host\":\"forged\"");
	ASSERT_CONTAINS(j.r.err, "{\"rank\":2,\"host\":\"forged\"");
	ASSERT(strstr(j.r.err, "left out") == NULL);
}

TEST(hostile_programs_neither_lose_nor_forge_counts)
{
	hostile(NULL);
}

/*
 * The same on hosts that do not share the launcher's directory (it is
 * named as one that does not exist): the counts come on standard error
 * with the launcher's key, found after another rank's partial line, and
 * with every line prefixed by mpirun's --tag-output.
 */
TEST(hostile_programs_on_hosts_without_the_directory)
{
	const char *away[] = { "--mpirun-arg", "-x", "--mpirun-arg",
			       "PCTR_MPI_DIR=/nonexistent/pctr", NULL };
	const char *tagged[] = { "--mpirun-arg", "-x", "--mpirun-arg",
				 "PCTR_MPI_DIR=/nonexistent/pctr",
				 "--mpirun-arg", "--tag-output", NULL };

	hostile(away);
	hostile(tagged);
}

/*
 * The launcher's directory on a full file system (a tmpfs of 16 KiB,
 * filled, mounted nowhere: tool.h, full_fs()): the ranks' files take no
 * line, so each rank empties its file and sends its counts on standard
 * error with the key.  Every rank's count exact, nothing lost.  mpirun
 * keeps its own session files in /tmp (orte_tmpdir_base), or it would not
 * start on the full one.
 */
TEST(full_file_system_counts_on_stderr)
{
	const char *pre[] = { "/usr/bin/env", NULL, NULL };
	const char *opt[] = { "--mpirun-arg", "--mca", "--mpirun-arg",
			      "orte_tmpdir_base", "--mpirun-arg", "/tmp",
			      NULL };
	char dir[64], tmpdir[80];
	long base[RANKS];
	struct job j;

	prog();
	full_fs(dir, sizeof(dir), "16k");
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", dir);
	pre[1] = tmpdir;
	baseline(base);
	j = job_run(pre, opt, "500", NULL);
	ASSERT_EQ(j.r.status, 0);
	ASSERT_EQ(py_num("len(d['missing'])", j.json), 0);
	for (int i = 0; i < RANKS; i++)
		ASSERT_EQ(j.count[i], base[i] + PAGES * (i + 1));
	ASSERT_CONTAINS(j.r.err, "cannot write its counts to its file (No "
				 "space left on device): sending them on "
				 "standard error");
	ASSERT(strstr(j.r.err, "left out") == NULL);
	ASSERT(strstr(j.r.err, MPI_TAG_TEXT) == NULL);
}

/* the program holds neither the ranks' directory nor its names */
TEST(program_inherits_no_channel)
{
	char *argv[] = { (char *)pctr_path(), "mpirun", "-n", "2",
			 "--oversubscribe", "-e", "page-faults:u", "--",
			 "/bin/sh", "-c", "ls -l /proc/$$/fd; env", NULL };
	struct result r;

	prog();
	r = run_in(argv, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, " 2 -> ");
	ASSERT_CONTAINS(r.out, "OMPI_COMM_WORLD_RANK=1");
	ASSERT(strstr(r.out, "pctr-mpirun-") == NULL);
	ASSERT(strstr(r.out, "PCTR_MPI_") == NULL);
	ASSERT(strstr(r.out, "memfd:") == NULL);
}

TEST(text_report_per_rank)
{
	char *argv[] = { (char *)pctr_path(), "mpirun", "-n", "4",
			 "--oversubscribe", "--per-rank", "-e",
			 "page-faults:u", "--", (char *)prog(), "1", NULL };
	struct result r = run_in(argv, NULL);

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "4 ranks, 4 reported\n");
	ASSERT_CONTAINS(r.err, "max of page-faults:u: rank 3 (");
	ASSERT_CONTAINS(r.err, "rank   host");
	ASSERT(strstr(r.err, "missing") == NULL);
	ASSERT(strstr(r.out, "ranks") == NULL); /* report on stderr */
}

/*
 * mpirun's own options reach it: with --tag-output every line it forwards
 * is prefixed with the rank, the ranks' counts are still taken out.
 */
TEST(mpirun_arg_tag_output)
{
	char *argv[] = { (char *)pctr_path(), "mpirun", "-n", "4",
			 "--oversubscribe", "--mpirun-arg", "--tag-output",
			 "--json", "-o", report, "-e", "page-faults:u", "--",
			 (char *)prog(), "1", NULL };
	struct result r = run_in(argv, NULL);
	char *json = keep(slurp(report));

	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "[1,3]<stdout>:rank 3 touched 4 pages\n");
	ASSERT_CONTAINS(r.err, "[1,2]<stderr>:rank 2: stderr passes through");
	ASSERT(strstr(r.err, MPI_TAG_TEXT) == NULL);
	ASSERT_EQ(py_num("len(d['ranks']) + 10 * len(d['missing'])", json),
		  RANKS);
}

/*
 * A rank that exits 3: the job's status is 3 and that rank's counts are
 * there with its status.  mpirun then ends the job: a rank still running
 * may be killed before it reports, and is named missing; every rank is
 * one or the other, and what did report is exact.
 */
TEST(rank_exit_status_is_the_jobs)
{
	long base[RANKS];
	struct job j;
	int missing = 0;

	baseline(base);
	j = job("500", "exit", "2", "3");
	ASSERT_EQ(j.r.status, 3);
	ASSERT_EQ(py_num("d['exit']['status']", j.json), 3);
	ASSERT_EQ(j.count[2], base[2] + PAGES * 3);
	ASSERT_EQ(j.exit[2], 3);
	for (int i = 0; i < RANKS; i++) {
		if (j.count[i] < 0) {
			missing++;
			continue;
		}
		if (i != 2)
			check_other_rank(&j, base, i);
	}
	ASSERT_EQ(py_num("len(d['missing'])", j.json), missing);
}

/* a program killed by a signal: its pctr stat reports, status 128 + 9 */
TEST(rank_killed_by_a_signal_still_counted)
{
	long base[RANKS];
	struct job j;

	baseline(base);
	j = job("500", "raise", "1", NULL);
	ASSERT_EQ(j.r.status, 128 + SIGKILL);
	ASSERT_EQ(j.count[1], base[1] + PAGES * 2);
	ASSERT_EQ(j.exit[1], 128 + SIGKILL);
}

/* the pctr stat of rank 1 killed: no counts come from it, named missing */
TEST(rank_that_never_reports_is_named)
{
	long base[RANKS];
	struct job j;
	int reported = 0;

	baseline(base);
	j = job("500", "kill", "1", NULL);
	ASSERT_NE(j.r.status, 0);
	ASSERT_EQ(j.count[1], -1);
	ASSERT_EQ(py_num("int(1 in d['missing'])", j.json), 1);
	ASSERT_CONTAINS(j.r.err, "pctr mpirun: no counts from ");
	for (int i = 0; i < RANKS; i++) {
		if (j.count[i] < 0)
			continue;
		reported++;
		check_other_rank(&j, base, i);
	}
	ASSERT_EQ(py_num("len(d['ranks'])", j.json), reported);
	ASSERT_EQ(py_num("d['events']['page-faults:u']['ranks']", j.json),
		  reported);
}

TEST(mpirun_missing_names_the_package)
{
	struct result r;

	setenv("PATH", "/nonexistent", 1);
	r = pctr("mpirun", "-n", "2", "--", "/bin/true", NULL);
	ASSERT_EQ(r.status, 127);
	ASSERT_CONTAINS(r.err, "mpirun not found");
	ASSERT_CONTAINS(r.err, "openmpi-bin");
	ASSERT_STR_EQ(r.out, "");
}

TEST(usage_errors)
{
	struct result r = pctr("mpirun", "-n", "2", NULL);

	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "no program to run");
	r = pctr("mpirun", "--host", "a", "--hostfile", "f", "--", "x", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "give one of them");
	r = pctr("mpirun", "-n", "0", "--", "x", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("mpirun", "-p", "1", "--", "x", NULL);
	ASSERT_EQ(r.status, 2);
}

int
main(int argc, char **argv)
{
	int fd, st;

	find_self(argv[0]);
	if (getuid() == 0) {
		setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
		setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	}
	fd = mkstemp(report);
	if (fd < 0)
		return 1;
	close(fd);
	st = test_main(TESTS(TEST_CASE(every_rank_counted_exactly)
			     TEST_CASE(hostile_programs_neither_lose_nor_forge_counts)
			     TEST_CASE(hostile_programs_on_hosts_without_the_directory)
			     TEST_CASE(program_inherits_no_channel)
			     TEST_CASE(full_file_system_counts_on_stderr)
			     TEST_CASE(text_report_per_rank)
			     TEST_CASE(mpirun_arg_tag_output)
			     TEST_CASE(rank_exit_status_is_the_jobs)
			     TEST_CASE(rank_killed_by_a_signal_still_counted)
			     TEST_CASE(rank_that_never_reports_is_named)
			     TEST_CASE(mpirun_missing_names_the_package)
			     TEST_CASE(usage_errors)));
	unlink(report);
	return st;
}
