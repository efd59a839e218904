/* SPDX-License-Identifier: MIT */
/*
 * test_outputs - what the pctr command writes and what it hands its
 * command: every output of every subcommand on a full device (/dev/full)
 * and on a full file system (a 64 KiB tmpfs, in a mount namespace of the
 * test's own) fails with one line naming the file and the reason; a
 * destination that cannot be opened fails before the workload runs; no
 * descriptor of pctr's reaches the command; --folded keeps a process
 * name with ';', ' ' and a newline to one frame; and pctr stat -p ends
 * when its process exits, even when the process's number is taken again
 * at once (forced in a pid namespace of the test's own).
 *
 * The test binary is also the workload ("io fds", "io marker PATH",
 * "io comm"), besides tool.h's helpers.
 */
#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "tool.h"

#define NOSPC "No space left on device"

/* ---- the workload ----------------------------------------------------- */

/* "fds: 0 1 2" on stdout: the descriptors open in this process */
static int
io_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	char line[4096] = "fds:";
	struct dirent *e;

	if (!d)
		return 1;
	while ((e = readdir(d))) {
		char path[300], to[256] = "";
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (fd > 2 && readlink(path, to, sizeof(to) - 1) < 0)
			snprintf(to, sizeof(to), "?");
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 fd > 2 ? " %d(%s)" : " %d", fd, to);
	}
	closedir(d);
	printf("%s\n", line);
	return fflush(stdout) != 0;
}

/* a name with the folded format's separators, then CPU time under it */
static int
io_comm(void)
{
	if (prctl(PR_SET_NAME, "a;b\nc d", 0, 0, 0) < 0)
		return 1;
	spin_ns(300000000u);
	return 0;
}

static int
io_main(int argc, char **argv)
{
	if (argc < 3 || strcmp(argv[1], "io"))
		return -1;
	if (!strcmp(argv[2], "fds"))
		return io_fds();
	if (!strcmp(argv[2], "comm"))
		return io_comm();
	if (!strcmp(argv[2], "marker") && argc > 3) {
		int fd = open(argv[3], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		return fd < 0 ? 1 : close(fd);
	}
	return 2;
}

static char merge_in[64]; /* a pctr stat report, MERGEIN */
static char rec_in[64]; /* a pctr record recording, RECIN */

/* @text as TAP comments, a line each */
static void
note(const char *text)
{
	while (*text) {
		int n = (int)strcspn(text, "\n");

		printf("#   %.*s\n", n, text);
		text += n + (text[n] == '\n');
	}
}

/* ---- running pctr with nothing but 0, 1, 2 ---------------------------- */

/*
 * argv with stdout to @out (a path; NULL: a temporary file), stderr to a
 * temporary file, and no other descriptor: what pctr holds beyond 0, 1, 2
 * is its own.
 */
static struct result
run_clean(char *const argv[], const char *out)
{
	char o[64], e[64];
	int fo = tmp_file(o), fe = tmp_file(e), st;
	struct result r;
	pid_t pid;

	if (fo < 0 || fe < 0)
		TEST_FAIL("cannot make temporary files");
	pid = fork();
	if (pid == 0) {
		int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644)
			     : fo;
		int nul = open("/dev/null", O_RDONLY);

		if (fd < 0 || nul < 0)
			_exit(125);
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fe, 2);
		for (int i = 3; i < 1024; i++)
			close(i);
		execv(argv[0], argv);
		_exit(126);
	}
	close(fo);
	close(fe);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		TEST_FAIL("cannot run %s", argv[0]);
	r.status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	r.out = slurp(o);
	r.err = slurp(e);
	unlink(o);
	unlink(e);
	return r;
}

/*
 * An argument vector from a string of words: "%s" is @path, SELF this
 * binary, MYPID this process's number, MERGEIN and RECIN
 * make_merge_input()'s.
 */
static char **
words(const char *line, const char *path)
{
	static char buf[8][4096];
	static char *argv[8][MAX_ARGS];
	static int k;
	char *b = buf[k % 8], **v = argv[k % 8], *save;
	static char mypid[16];
	int n = 0;

	k++;
	snprintf(mypid, sizeof(mypid), "%d", (int)getpid());
	snprintf(b, sizeof(buf[0]), "%s", line);
	v[n++] = (char *)pctr_path();
	for (char *w = strtok_r(b, " ", &save); w && n < MAX_ARGS - 1;
	     w = strtok_r(NULL, " ", &save)) {
		if (!strcmp(w, "SELF"))
			w = self_exe;
		else if (!strcmp(w, "%s"))
			w = (char *)path;
		else if (!strcmp(w, "MYPID"))
			w = mypid;
		else if (!strcmp(w, "MERGEIN"))
			w = merge_in;
		else if (!strcmp(w, "RECIN"))
			w = rec_in;
		v[n++] = w;
	}
	v[n] = NULL;
	return v;
}

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

/* Open MPI refuses root unless told (as test_mpirun says) */
static void
mpirun_env(void)
{
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
}

/* ---- every output of every subcommand --------------------------------- */

/*
 * An output and how it is named: "%s" is the destination; @to_stdout:
 * the destination is pctr's standard output (the command line has "-" or
 * nothing), and the message names "standard output".
 */
struct output {
	const char *what;
	const char *line;
	bool to_stdout;
	bool mpi;
};


static const struct output outputs[] = {
	{ "stat -o", "stat -e task-clock -o %s -- SELF helper exit 0" },
	{ "stat --json -o", "stat -e task-clock -j -o %s -- SELF helper exit 0" },
	{ "stat CSV -o", "stat -e task-clock -x , -o %s -- SELF helper exit 0" },
	{ "stat pctr-json -o",
	  "stat -e task-clock --format=pctr-json -o %s -- SELF helper exit 0" },
	{ "stat pctr-csv -o",
	  "stat -e task-clock --format=pctr-csv -o %s -- SELF helper exit 0" },
	{ "stat -I -o", "stat -e task-clock -I 50 -o %s -- SELF helper spin 200" },
	{ "stat -I -j -o",
	  "stat -e task-clock -I 50 -j -o %s -- SELF helper spin 200" },
	{ "stat -I -x -o",
	  "stat -e task-clock -I 50 -x ; -o %s -- SELF helper spin 200" },
	{ "stat -I -x --append -o",
	  "stat -e task-clock -I 50 -x , --append -o %s -- SELF helper spin "
	  "200" },
	{ "stat pctr-csv --append -o",
	  "stat -e task-clock --format=pctr-csv --append -o %s -- SELF helper "
	  "exit 0" },
	{ "stat -o -", "stat -e task-clock -o - -- SELF helper exit 0", true },
	{ "profile -o", "profile -o %s -- SELF helper spin 100" },
	{ "profile --json -o", "profile --json -o %s -- SELF helper spin 100" },
	{ "profile --folded -o",
	  "profile --folded -o %s -- SELF helper spin 100" },
	{ "profile -o -", "profile -o - -- SELF helper spin 100", true },
	{ "profile --perf-data",
	  "profile --perf-data %s -- SELF helper spin 100" },
	{ "profile --perf-data, a short run",
	  "profile --perf-data %s -- SELF helper exit 0" },
	{ "profile --svg", "profile --svg %s -- SELF helper spin 100" },
	{ "list", "list", true },
	{ "list --json", "list --json", true },
	{ "info", "info", true },
	{ "info --json", "info --json", true },
	{ "record -o", "record -o %s -- SELF helper spin 100" },
	{ "record -o, a short run", "record -o %s -- SELF helper exit 0" },
	{ "report -o", "report -i RECIN -o %s" },
	{ "report", "report -i RECIN", true },
	{ "report --folded", "report --folded -i RECIN", true },
	{ "report --svg", "report --svg %s -i RECIN" },
	{ "script", "script -i RECIN", true },
	{ "merge -o", "merge -o %s MERGEIN" },
	{ "merge", "merge MERGEIN", true },
	{ "mpirun -o", "mpirun -n 1 -o %s -- SELF helper exit 0", false,
	  true },
};

#define NR_OUTPUTS (sizeof(outputs) / sizeof(outputs[0]))

static void
make_merge_input(void)
{
	struct result r;

	snprintf(merge_in, sizeof(merge_in), "/tmp/pctr-outputs-%d.json",
		 (int)getpid());
	r = pctr("stat", "-e", "task-clock", "--format=pctr-json", "-o",
		 merge_in, "--", "/bin/true", NULL);

	if (r.status != 0)
		TEST_FAIL("pctr stat --json -o %s: %d: %s", merge_in, r.status,
			  r.err);
	snprintf(rec_in, sizeof(rec_in), "/tmp/pctr-outputs-%d.data",
		 (int)getpid());
	r = pctr("record", "-g", "-o", rec_in, "--", self_exe, "helper",
		 "spin", "100", NULL);
	if (r.status != 0)
		TEST_FAIL("pctr record -o %s: %d: %s", rec_in, r.status, r.err);
}

/*
 * Each output to @dest fails: pctr exits non-zero (the workload's status
 * is 0) and says so on one line naming the file and the reason.  Return:
 * how many did not.
 */
static int
each_output_fails(const char *dest)
{
	bool mpi = have_mpirun();
	int failed = 0;

	make_merge_input();
	mpirun_env();
	for (size_t i = 0; i < NR_OUTPUTS; i++) {
		const struct output *o = &outputs[i];
		struct result r;
		char want[512];

		if (o->mpi && !mpi) {
			printf("# %s: not tried, mpirun is not installed\n",
			       o->what);
			continue;
		}
		r = run_clean(words(o->line, dest), o->to_stdout ? dest : NULL);
		snprintf(want, sizeof(want), "%s: %s",
			 o->to_stdout ? "standard output" : dest, NOSPC);
		if (r.status != 0 && strstr(r.err, want) &&
		    strchr(strstr(r.err, want), '\n') ==
			    strstr(r.err, want) + strlen(want))
			continue;
		printf("# %s to %s: exit %d, no line ending '%s'; stderr:\n",
		       o->what, dest, r.status, want);
		note(r.err);
		failed++;
	}
	unlink(merge_in);
	unlink(rec_in);
	return failed;
}

TEST(outputs_to_dev_full_fail)
{
	find_self("");
	ASSERT_EQ(each_output_fails("/dev/full"), 0);
}

TEST(outputs_to_full_tmpfs_fail)
{
	char dir[64], dest[128];

	find_self("");
	full_fs(dir, sizeof(dir), "64k");
	snprintf(dest, sizeof(dest), "%s/out", dir);
	ASSERT_EQ(each_output_fails(dest), 0);
}

/*
 * A destination that cannot be opened (its directory does not exist) is
 * refused before the workload runs: the workload's marker file is never
 * made.
 */
TEST(unopenable_destination_fails_before_the_workload)
{
	static const char *const lines[] = {
		"stat -e task-clock -o %s -- SELF io marker M",
		"profile -o %s -- SELF io marker M",
		"profile --perf-data %s -- SELF io marker M",
		"profile --svg %s -- SELF io marker M",
		"record -o %s -- SELF io marker M",
		"profile --folded -o %s -- SELF io marker M",
		"mpirun -n 1 -o %s -- SELF io marker M",
	};
	const char *dest = "/nonexistent-pctr-dir/out";
	char marker[64];
	int failed = 0;

	find_self("");
	mpirun_env();
	snprintf(marker, sizeof(marker), "/tmp/pctr-outputs-marker-%d",
		 (int)getpid());
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char line[512], *m;
		struct result r;

		if (strstr(lines[i], "mpirun") && !have_mpirun())
			continue;
		snprintf(line, sizeof(line), "%s", lines[i]);
		m = strstr(line, " M");
		snprintf(m + 1, sizeof(line) - (size_t)(m + 1 - line), "%s",
			 marker);
		unlink(marker);
		r = run_clean(words(line, dest), NULL);
		if (r.status != 0 && strstr(r.err, dest) &&
		    access(marker, F_OK) < 0)
			continue;
		printf("# %s: exit %d, workload %s; stderr:\n", lines[i],
		       r.status, access(marker, F_OK) == 0 ? "ran" : "not run");
		note(r.err);
		failed++;
	}
	unlink(marker);
	ASSERT_EQ(failed, 0);
}

/* ---- descriptors ------------------------------------------------------ */

/*
 * The command that pctr runs sees 0, 1 and 2 only: nothing of pctr's
 * (its report, its recording, its counters, its pipes), with every
 * output option.
 */
TEST(no_descriptor_reaches_the_command)
{
	static const char *const lines[] = {
		"stat -e task-clock -- SELF io fds",
		"stat -e task-clock,page-faults -I 100 -o %s.stat -- SELF io fds",
		"stat -e task-clock -j -o %s.stat -- SELF io fds",
		"stat -e task-clock -r 2 -x , -o %s.stat -- SELF io fds",
		"stat -e task-clock -p MYPID -o %s.stat -- SELF io fds",
		"profile -- SELF io fds",
		"profile -o %s.report --perf-data %s.data --svg %s.svg -- "
		"SELF io fds",
		"profile --folded -o %s.folded -g -- SELF io fds",
		"profile --json -o %s.json --call-graph dwarf -- SELF io fds",
		"mpirun -n 1 -o %s.mpi -- SELF io fds",
	};
	char base[64];
	int failed = 0;

	find_self("");
	mpirun_env();
	snprintf(base, sizeof(base), "/tmp/pctr-outputs-fds-%d",
		 (int)getpid());
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char line[512], *p, *q = line;
		struct result r;

		if (strstr(lines[i], "mpirun") && !have_mpirun())
			continue;
		/* every %s: the base name */
		for (const char *s = lines[i]; *s && q < line + 400;) {
			if (s[0] == '%' && s[1] == 's') {
				q += sprintf(q, "%s", base);
				s += 2;
			} else {
				*q++ = *s++;
			}
		}
		*q = '\0';
		r = run_clean(words(line, NULL), NULL);
		p = strstr(r.out, "fds:");
		if (r.status == 0 && p && !strncmp(p, "fds: 0 1 2\n", 11))
			continue;
		printf("# %s: exit %d, the command saw: %.*s; stderr:\n",
		       line, r.status, p ? (int)strcspn(p, "\n") : 4,
		       p ? p : "none");
		note(r.err);
		failed++;
	}
	for (size_t i = 0; i < 7; i++) {
		static const char *const ext[] = { "stat", "report", "data",
						   "svg", "folded", "json",
						   "mpi" };
		char path[128];

		snprintf(path, sizeof(path), "%s.%s", base, ext[i]);
		unlink(path);
	}
	ASSERT_EQ(failed, 0);
}

/* ---- --folded names ----------------------------------------------------- */

/*
 * A process named "a;b\nc d" (PR_SET_NAME) stays one frame: every line is
 * "frame;frame;... count", no frame empty, no line without its count, and
 * the name is there with ';' and ' ' as '_' and the newline as '?', as
 * the flame graph shows a control character.
 */
TEST(folded_keeps_a_process_name_one_frame)
{
	static const char script[] =
		"import re,sys\n"
		"ok=re.compile(r'^[^; \\n]+(;[^; \\n]+)* [0-9]+$')\n"
		"lines=sys.stdin.read().split('\\n')\n"
		"bad=[l for l in lines[:-1] if not ok.match(l)]\n"
		"named=[l for l in lines if l.startswith('a_b?c_d;')]\n"
		"print('bad %d named %d last %r' % (len(bad), len(named), "
		"lines[-1]))\n"
		"for l in bad[:3]: print(repr(l))\n";
	char out[64];
	int fd = tmp_file(out);
	struct result r;
	char *v;

	find_self("");
	close(fd);
	r = pctr("profile", "--folded", "-c", "1000000", "-o", out, "--",
		 self_exe, "io", "comm", NULL);
	ASSERT_EQ(r.status, 0);
	v = python(script, slurp(out));
	unlink(out);
	if (strncmp(v, "bad 0 named ", 12) || !strncmp(v, "bad 0 named 0 ", 14))
		TEST_FAIL("--folded broke the process name: %s", v);
}

/* ---- pctr stat -p and a pid taken again ----------------------------------- */

static void
write_last_pid(pid_t pid)
{
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	char s[32];
	int n = snprintf(s, sizeof(s), "%d", (int)pid);

	if (fd < 0 || write(fd, s, (size_t)n) != n)
		_exit(40);
	close(fd);
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* read from @fd until something comes, for at most @ms; bytes read */
static ssize_t
read_some(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];

	if (poll(&p, 1, ms) <= 0)
		return 0;
	return read(fd, buf, sizeof(buf));
}

/*
 * Pid 1 of a new pid namespace: its child T (pid 2) is counted by
 * "pctr stat -p 2 -I 50" (pid 3); once the first interval row shows the
 * counting, T exits and is reaped, and the next process is made pid 2
 * again (ns_last_pid), and lives for 20 s.  pctr must end within 10 s:
 * its process is gone.  Exit status: 0, or what went wrong.
 */
static int
reuse_init(void)
{
	int go[2], err[2], st;
	pid_t t, p, again;
	uint64_t t0;
	char two[] = "2";

	/*
	 * its own /proc, in a mount namespace of its own: not the test's
	 * (/proc made private, not /, which a chroot's is not a mount)
	 */
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/proc", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", 0, NULL) < 0)
		return 30;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return 31;
	t = fork();
	if (t == 0) {
		char c;

		return read(go[0], &c, 1) == 1 ? 0 : 1;
	}
	if (t != 2)
		return 32;
	p = fork();
	if (p == 0) {
		char *argv[] = { (char *)pctr_path(), "stat", "-e",
				 "task-clock", "-I", "50", "-p", two, NULL };
		char opts[512];

		/*
		 * no leak check at pctr's exit under the sanitizers: its
		 * tracer, a clone in this namespace, would take the number
		 * given to a new process below (exit 35 in one asan run)
		 */
		snprintf(opts, sizeof(opts), "%s:detect_leaks=0",
			 getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "");
		setenv("ASAN_OPTIONS", opts, 1);
		dup2(err[1], 2);
		execv(argv[0], argv);
		_exit(126);
	}
	close(err[1]);
	if (read_some(err[0], 20000) <= 0)
		return 33; /* no interval row: pctr never counted */
	if (write(go[1], "x", 1) != 1 || waitpid(t, &st, 0) != t)
		return 34;
	write_last_pid(1);
	again = fork();
	if (again == 0) {
		usleep(20000000);
		_exit(0);
	}
	if (again != 2)
		return 35;
	t0 = mono_ns();
	while (waitpid(p, &st, WNOHANG) == 0 &&
	       mono_ns() - t0 < 10000000000ull)
		read_some(err[0], 50);
	kill(again, SIGKILL);
	waitpid(again, NULL, 0);
	if (mono_ns() - t0 >= 10000000000ull) {
		kill(p, SIGKILL);
		waitpid(p, NULL, 0);
		return 36; /* still counting a process that is gone */
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 37;
}

/*
 * The namespace is made by a child of the test, which ends with _exit():
 * a process whose pid namespace has lost its pid 1 can make no more
 * processes (nor can LeakSanitizer's at exit).
 */
static int
reuse_namespace(void)
{
	pid_t init;
	int st;

	if (unshare(CLONE_NEWPID) < 0)
		return 50;
	init = fork();
	if (init == 0)
		_exit(reuse_init());
	if (init < 0 || waitpid(init, &st, 0) != init)
		return 51;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 52;
}

TEST(stat_pid_ends_when_its_number_is_taken_again)
{
	pid_t ns;
	int st;

	if (geteuid() != 0)
		SKIP("a pid namespace and ns_last_pid need root");
	ns = fork();
	if (ns == 0)
		_exit(reuse_namespace());
	ASSERT(ns > 0);
	ASSERT_EQ(waitpid(ns, &st, 0), ns);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 50)
		SKIP("no pid namespace here");
	if (WIFEXITED(st) && WEXITSTATUS(st) == 36)
		TEST_FAIL("pctr stat -p 2 still counting 10 s after process 2 "
			  "exited and its number was taken again");
	ASSERT_EQ(st, 0);
}

int
main(int argc, char **argv)
{
	int r = io_main(argc, argv);

	if (r >= 0)
		return r;
	r = helper_main(argc, argv);
	if (r >= 0)
		return r;
	return test_main(
		TESTS(TEST_CASE_TIMEOUT(outputs_to_dev_full_fail, 300)
		      TEST_CASE_TIMEOUT(outputs_to_full_tmpfs_fail, 300)
		      TEST_CASE_TIMEOUT(
			      unopenable_destination_fails_before_the_workload,
			      120)
		      TEST_CASE_TIMEOUT(no_descriptor_reaches_the_command, 180)
		      TEST_CASE(folded_keeps_a_process_name_one_frame)
		      TEST_CASE(stat_pid_ends_when_its_number_is_taken_again)));
}
