/* SPDX-License-Identifier: MIT */
/*
 * tool.h - run the pctr command from a test and look at what it did.
 *
 * $PCTR is the command, $WORKLOAD the bundled example.  A test binary is
 * also its own workload: "TEST_BINARY helper touch N" and friends (see
 * helper_main()), so the counts it expects are known exactly.
 */
#ifndef PCTR_TOOL_TEST_H
#define PCTR_TOOL_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>

#include <pctr.h>

#include "test.h"

struct result {
	int status; /* exit code, or 128 + signal */
	char *out, *err;
};

static char self_exe[4096];

static inline const char *
pctr_path(void)
{
	const char *p = getenv("PCTR");

	if (!p)
		SKIP("$PCTR is not set (run through meson test)");
	return p;
}

/*
 * Outputs live until the test's process exits: remember them so that they
 * stay reachable (LeakSanitizer checks every test at exit).
 */
char *tool_kept[1024];
int tool_kept_nr;

static inline char *
keep(char *buf)
{
	if (tool_kept_nr < 1024)
		tool_kept[tool_kept_nr++] = buf;
	return buf;
}

static inline char *
slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap);

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return keep(strdup(""));
	}
	/* read to the end: files in /proc have no size */
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *b = realloc(buf, cap * 2);

			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	fclose(f);
	return keep(buf);
}

static inline int
tmp_file(char *path)
{
	strcpy(path, "/tmp/pctr-tool-XXXXXX");
	return mkstemp(path);
}

/* start argv with stdout and stderr to temporary files; @in: stdin text */
/*
 * A full file system: a tmpfs of @size, filled, and mounted nowhere
 * (fsmount(2) without move_mount(2)).  So it needs no mount namespace,
 * works where / is not a mount point (a chroot), propagates to no other
 * namespace and goes away with this process.  Its directory, put in @dir,
 * is /proc/PID/fd/N, which this process's children reach too.  Root only.
 */
static inline void
full_fs(char *dir, size_t len, const char *size)
{
	static char block[4096];
	char fill[128];
	int fs, mnt, fd;

	if (geteuid() != 0)
		SKIP("mounting a small tmpfs needs root");
	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "size", size, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		TEST_FAIL("a tmpfs of %s: %s", size, strerror(errno));
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		TEST_FAIL("fsmount: %s", strerror(errno));
	close(fs);
	snprintf(dir, len, "/proc/%d/fd/%d", (int)getpid(), mnt);
	snprintf(fill, sizeof(fill), "%s/fill", dir);
	fd = open(fill, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	while (fd >= 0 && write(fd, block, sizeof(block)) > 0)
		;
	if (fd < 0 || errno != ENOSPC)
		TEST_FAIL("filling %s: %s", dir, strerror(errno));
	close(fd);
}

/*
 * Debian's perf stat exits 0, not with its command's status, when a
 * SIGCHLD reaches it before it waits for the command: the command's own
 * when it ends first, perf preempted on a loaded machine
 * (tests/repro/repro_perf_stat_lost_status; a loaded first-contact run
 * failed test_events on it).  With SIGCHLD blocked its handler never runs
 * and its wait4() collects the status: the judge's statuses are then
 * perf's own.  Only perf stat: perf record ends on its SIGCHLD.
 */
static inline bool
is_perf_stat(char *const argv[])
{
	return !strcmp(argv[0], "/usr/bin/perf") && argv[1] &&
	       !strcmp(argv[1], "stat");
}

static inline pid_t
start(char *const argv[], const char *in, char *out_path, char *err_path)
{
	int fo = tmp_file(out_path), fe = tmp_file(err_path);
	int pin[2];
	pid_t pid;

	if (fo < 0 || fe < 0 || pipe(pin) < 0)
		TEST_FAIL("cannot make temporary files");
	pid = fork();
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(fo, 1);
		dup2(fe, 2);
		close(pin[1]);
		if (is_perf_stat(argv)) {
			sigset_t chld;

			sigemptyset(&chld);
			sigaddset(&chld, SIGCHLD);
			sigprocmask(SIG_BLOCK, &chld, NULL);
		}
		execv(argv[0], argv);
		_exit(126);
	}
	close(pin[0]);
	if (in && write(pin[1], in, strlen(in)) < 0)
		TEST_FAIL("cannot write stdin");
	close(pin[1]);
	close(fo);
	close(fe);
	return pid;
}

static inline struct result
finish(pid_t pid, const char *out_path, const char *err_path)
{
	struct result r;
	int st;

	if (waitpid(pid, &st, 0) != pid)
		TEST_FAIL("waitpid failed");
	r.status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	r.out = slurp(out_path);
	r.err = slurp(err_path);
	unlink(out_path);
	unlink(err_path);
	if (getenv("TOOL_VERBOSE"))
		fprintf(stderr, "# status %d\n# stdout: %s\n# stderr: %s\n",
			r.status, r.out, r.err);
	return r;
}

/*
 * A shell command that runs CMD (a format string) as on a machine without
 * libdw1: an empty libdw.so.1 in a directory of its own comes first in
 * LD_LIBRARY_PATH, so dlopen("libdw.so.1") fails.  It needs no mount
 * namespace, which a chroot (whose / is no mount point) or a container
 * without CAP_SYS_ADMIN cannot make.  Exits with CMD's status.
 */
#define HIDE_LIBDW(cmd)                                                       \
	"d=$(mktemp -d) || exit 1; : >\"$d/libdw.so.1\" || exit 1; "           \
	"LD_LIBRARY_PATH=\"$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\" " cmd       \
	"; s=$?; rm -rf \"$d\"; exit $s"

static inline struct result
run_in(char *const argv[], const char *in)
{
	char o[64], e[64];
	pid_t pid = start(argv, in, o, e);

	return finish(pid, o, e);
}

#define MAX_ARGS 64

static inline struct result
run_list(const char *prog, const char *first, va_list ap)
{
	char *argv[MAX_ARGS];
	int n = 0;

	argv[n++] = (char *)prog;
	argv[n++] = (char *)first;
	while (n < MAX_ARGS - 1 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	return run_in(argv, NULL);
}

/* pctr ARGS... (NULL-terminated) */
static inline struct result
pctr(const char *first, ...)
{
	struct result r;
	va_list ap;

	va_start(ap, first);
	r = run_list(pctr_path(), first, ap);
	va_end(ap);
	return r;
}

/* Debian's perf, the judge of perf compatibility */
#define PERF "/usr/bin/perf"

static inline void
needs_perf(void)
{
	if (access(PERF, X_OK) < 0)
		SKIP("Debian's perf is not installed (apt-get install "
		     "linux-perf)");
}

/*
 * The same command line through Debian's perf (*@p) and through pctr
 * (*@r): the words of @parts' lists one after the other, each list
 * NULL-terminated, @parts too.
 */
static inline void
perf_and_pctr(const char *const *const parts[], struct result *p,
	      struct result *r)
{
	char *argv[MAX_ARGS];
	int n = 1;

	needs_perf();
	for (; *parts; parts++)
		for (const char *const *w = *parts; *w && n < MAX_ARGS - 1; w++)
			argv[n++] = (char *)*w;
	argv[n] = NULL;
	argv[0] = PERF;
	*p = run_in(argv, NULL);
	argv[0] = (char *)pctr_path();
	*r = run_in(argv, NULL);
}

/* perf ARGS... (NULL-terminated) */
static inline struct result
perf(const char *first, ...)
{
	struct result r;
	va_list ap;

	needs_perf();
	va_start(ap, first);
	r = run_list(PERF, first, ap);
	va_end(ap);
	return r;
}

static inline bool
has_pmu(void)
{
	struct pctr_machine m = { .size = sizeof(m) };

	return pctr_machine_get(&m) == 0 && m.has_pmu;
}

/*
 * tracefs mounted by root if it is not: true when this call mounted it
 * (the caller unmounts it after); otherwise the test cannot look
 * tracepoints up.
 */
static inline bool
tracefs_ready(void)
{
	if (access("/sys/kernel/tracing/events", R_OK | X_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events", R_OK | X_OK) == 0)
		return false;
	if (geteuid() != 0)
		SKIP("tracefs is not mounted, and mounting it needs root");
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0)
		SKIP("tracefs cannot be mounted here: %s", strerror(errno));
	return true;
}

/*
 * Run python3 on @script with @input on stdin; its stdout.  Tests parse
 * JSON and CSV with python's own json and csv modules, independent of
 * the code under test.
 */
static inline char *
python(const char *script, const char *input)
{
	char *argv[] = { "/usr/bin/env", "python3", "-c", (char *)script,
			 NULL };
	struct result r = run_in(argv, input);

	if (r.status == 127 || r.status == 126)
		SKIP("python3 is not installed");
	if (r.status != 0)
		TEST_FAIL("python3 failed (%d): %s", r.status, r.err);
	return r.out;
}

static inline double
python_num(const char *script, const char *input)
{
	char *s = python(script, input), *end;
	double v = strtod(s, &end);

	if (end == s)
		TEST_FAIL("python printed '%s', not a number", s);
	return v;
}

/* the samples of function @fn in perf report's -n --sort sym output */
static inline double
perf_report_samples(const char *out, const char *fn)
{
	char script[512];

	snprintf(script, sizeof(script),
		 "import re,sys\n"
		 "n=0\n"
		 "for l in sys.stdin:\n"
		 "    m=re.match(r'\\s+[0-9.]+%%\\s+([0-9]+)\\s+\\[.\\]\\s+(\\S+)',l)\n"
		 "    if m and m.group(2)=='%s': n+=int(m.group(1))\n"
		 "print(n)\n", fn);
	return python_num(script, out);
}

/* ---- the test binary as its own workload --------------------------------- */

static inline void
spin_ns(uint64_t ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u +
		       (uint64_t)(b.tv_nsec - a.tv_nsec) <
	       ns);
}

/* touch N fresh pages (test.h): 0, or 1 when they could not be mapped */
static inline int
touch_pages(long n)
{
	return test_touch_pages((size_t)n) < 0;
}

static void
term_exit(int sig)
{
	(void)sig;
	_exit(77);
}

/*
 * helper touch N | exit N | raise SIG | sleep MS | spin MS | termwait |
 * print
 * Returns -1 when argv is not a helper call.
 */
static inline int
helper_main(int argc, char **argv)
{
	long n = argc > 3 ? atol(argv[3]) : 0;

	if (argc < 3 || strcmp(argv[1], "helper"))
		return -1;
	if (!strcmp(argv[2], "touch"))
		return touch_pages(n);
	if (!strcmp(argv[2], "exit"))
		return (int)n;
	if (!strcmp(argv[2], "raise"))
		return raise((int)n) == 0 ? 0 : 1;
	if (!strcmp(argv[2], "sleep")) {
		usleep((useconds_t)n * 1000);
		return 0;
	}
	if (!strcmp(argv[2], "spin")) {
		spin_ns((uint64_t)n * 1000000u);
		return 0;
	}
	if (!strcmp(argv[2], "termwait")) {
		signal(SIGTERM, term_exit);
		printf("ready\n");
		fflush(stdout);
		for (int i = 0; i < 100; i++)
			usleep(100000);
		return 1;
	}
	if (!strcmp(argv[2], "print")) {
		printf("from the command's stdout\n");
		fprintf(stderr, "from the command's stderr\n");
		return 0;
	}
	return 2;
}

static inline void
find_self(const char *argv0)
{
	if (!realpath("/proc/self/exe", self_exe))
		snprintf(self_exe, sizeof(self_exe), "%s", argv0);
}

/* the "total" row's value of @event in CSV output (python's csv module) */
static inline double
csv_total(const char *csv, const char *event)
{
	char script[512];

	snprintf(script, sizeof(script),
		 "import csv,sys\n"
		 "rows=[r for r in csv.DictReader(sys.stdin) "
		 "if r['kind']=='total' and r['event']=='%s']\n"
		 "print(rows[-1]['value'] if rows else 'none')\n",
		 event);
	return python_num(script, csv);
}

#endif
