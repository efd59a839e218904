/* SPDX-License-Identifier: MIT */
/*
 * pctr mpirun [-n N] [--host LIST | --hostfile FILE] [--oversubscribe]
 *             [--mpirun-arg ARG]... [STAT OPTIONS] -- PROGRAM [ARGS]
 *
 * Runs Open MPI's mpirun with pctr stat around every rank, and reduces
 * the ranks' counts as pctr merge does.  The counts come back on a
 * channel that the ranks' programs do not hold, so that nothing a program
 * writes can lose a rank's counts or stand for them:
 *
 *   launcher:  a private directory (mode 0700) and a random key, named in
 *              $PCTR_MPI_DIR and $PCTR_MPI_KEY (mpirun -x passes them to
 *              other hosts); mpirun ... PCTR mpirun --rank-wrapper STAT
 *              OPTIONS -- PROGRAM, with mpirun's standard error on a pipe
 *   each rank: takes both names out of its environment, creates
 *              DIR/rank.N (O_EXCL, close-on-exec) before the program
 *              starts, runs pctr stat --format=pctr-json -o MEMFD STAT
 *              OPTIONS -- PROGRAM, then writes its counts, one pctr-mpi/1 line,
 * to that file launcher:  once mpirun has ended, the files are the ranks'
 * counts
 *
 * A rank on a host that does not share the directory's file system sends
 * the line on standard error instead, after the tag and the key:
 * "@pctr-mpi/1 KEY {...}", one write(2) after its program has ended.
 * mpirun forwards a rank's output in reads of up to 4 KiB and writes each
 * read whole, so such a line arrives whole, though maybe after another
 * rank's partial line (a progress meter): the launcher looks for the tag
 * and key anywhere in a line, and passes on the text before them.  A line
 * without the key is a program's, and passes through like any other; the
 * program's standard output never passes through pctr.  A rank whose
 * counts never come (it was killed, or its pctr stat failed) is named as
 * missing, and the others are still reduced.  The exit status is
 * mpirun's: the job's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpi.h"
#include "tool.h"
#include "util.h"

#define MPIRUN "mpirun"
#define ENV_DIR "PCTR_MPI_DIR" /* the launcher's directory for the counts */
#define ENV_KEY "PCTR_MPI_KEY" /* what a rank's line on stderr carries */
#define KEY_LEN 32 /* hex digits: 128 random bits */

struct mpirun {
	char **mpi; /* mpirun's own arguments */
	int nr_mpi;
	char **stat; /* pctr stat's options, as given */
	int nr_stat;
	char **cmd;
	bool json, per_rank;
	const char *out;
	long n; /* -n, 0 if not given */
	char dir[4096]; /* the ranks' files: DIR/rank.N */
	char key[KEY_LEN + 1];
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: pctr mpirun [-n N] [--host LIST | --hostfile FILE] "
		"[--oversubscribe]\n"
		"                   [--mpirun-arg ARG]... [-e EVENTS] [-r N] "
		"[-d] [--strict]\n"
		"                   [--no-multiplex] [--per-rank] [--json] "
		"[-o FILE] -- PROGRAM [ARGS]\n"
		"  run Open MPI's mpirun with pctr stat around every rank, "
		"and reduce the counts\n");
}

static int
push(char ***v, int *n, const char *s)
{
	char **a = realloc(*v, (*n + 2) * sizeof(*a));

	if (!a)
		return -1;
	a[(*n)++] = (char *)s;
	a[*n] = NULL;
	*v = a;
	return 0;
}

enum {
	OPT_HOST = 256,
	OPT_HOSTFILE,
	OPT_OVERSUB,
	OPT_MPIRUN_ARG,
	OPT_PER_RANK,
	OPT_JSON,
	OPT_STRICT,
	OPT_NO_MULTIPLEX,
};

static const struct option long_options[] = {
	{ "np", required_argument, NULL, 'n' },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "hostfile", required_argument, NULL, OPT_HOSTFILE },
	{ "oversubscribe", no_argument, NULL, OPT_OVERSUB },
	{ "mpirun-arg", required_argument, NULL, OPT_MPIRUN_ARG },
	{ "per-rank", no_argument, NULL, OPT_PER_RANK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	/* the rest are pctr stat's (stat_option()) */
	{ "event", required_argument, NULL, 'e' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "detailed", no_argument, NULL, 'd' },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "no-multiplex", no_argument, NULL, OPT_NO_MULTIPLEX },
	{ NULL, 0, NULL, 0 },
};

/* mpirun's options: -n, --host, --hostfile, --oversubscribe, the rest */
static int
mpirun_option(struct mpirun *m, int c, bool *place)
{
	static const char *const flag[] = {
		[OPT_HOST - OPT_HOST] = "--host",
		[OPT_HOSTFILE - OPT_HOST] = "--hostfile",
		[OPT_OVERSUB - OPT_HOST] = "--oversubscribe",
	};

	if (c == 'n') {
		if (parse_long("-n", optarg, 1, INT_MAX, &m->n) < 0)
			return -1;
		return push(&m->mpi, &m->nr_mpi, "-n") ||
		       push(&m->mpi, &m->nr_mpi, optarg);
	}
	if (c == OPT_MPIRUN_ARG)
		return push(&m->mpi, &m->nr_mpi, optarg);
	if ((c == OPT_HOST || c == OPT_HOSTFILE) && *place) {
		tool_err("--host and --hostfile: give one of them");
		return -1;
	}
	*place |= c != OPT_OVERSUB;
	if (push(&m->mpi, &m->nr_mpi, flag[c - OPT_HOST]))
		return -1;
	return c == OPT_OVERSUB ? 0 : push(&m->mpi, &m->nr_mpi, optarg);
}

/*
 * An option of the table that parse_options() does not take is pctr
 * stat's: passed on with its value, by its letter if it has one, else by
 * its long name.  -1 for '?' (getopt said why).
 */
static int
stat_option(struct mpirun *m, int c)
{
	static char flags[sizeof(long_options) / sizeof(long_options[0])][32];
	const struct option *o = option_by_val(long_options, c);
	char *flag;

	if (!o)
		return -1;
	flag = flags[o - long_options];
	if (c < OPT_HOST)
		snprintf(flag, sizeof(flags[0]), "-%c", c);
	else
		snprintf(flag, sizeof(flags[0]), "--%s", o->name);
	return push(&m->stat, &m->nr_stat, flag) ||
	       (o->has_arg && push(&m->stat, &m->nr_stat, optarg));
}

static int
parse_options(struct mpirun *m, int argc, char **argv)
{
	bool place = false;
	int c, r = 0;

	while (r == 0 &&
	       (c = getopt_long(argc, argv, "+n:o:e:r:dh", long_options,
				NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		} else if (c == OPT_PER_RANK) {
			m->per_rank = true;
		} else if (c == OPT_JSON) {
			m->json = true;
		} else if (c == 'o') {
			m->out = optarg;
		} else if (c == 'n' || (c >= OPT_HOST && c <= OPT_MPIRUN_ARG)) {
			r = mpirun_option(m, c, &place);
		} else {
			r = stat_option(m, c);
		}
	}
	if (r == 0 && optind == argc) {
		tool_err("no program to run: pctr mpirun [OPTIONS] -- PROGRAM");
		r = -1;
	}
	m->cmd = argv + optind;
	if (r < 0)
		usage(stderr);
	return r < 0 ? EXIT_USAGE : 0;
}

/* all of a file, from its start (NULL: could not) */
static char *
read_fd(int fd, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	*len = 0;
	for (;;) {
		if (cap - *len < 4096) {
			char *b = realloc(buf, cap = 2 * cap + 8192);

			if (!b)
				break;
			buf = b;
		}
		n = pread(fd, buf + *len, cap - *len, (off_t)*len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? buf : (free(buf), NULL);
		*len += n;
	}
	free(buf);
	return NULL;
}

/* ---- the launcher ------------------------------------------------------- */

static char *
self_path(void)
{
	char *p = realpath("/proc/self/exe", NULL);

	if (!p)
		tool_err("cannot find this program's path: %s",
			 strerror(errno));
	return p;
}

static char **
mpirun_argv(const struct mpirun *m, char *self)
{
	char **v = NULL;
	int n = 0, bad = push(&v, &n, MPIRUN);

	bad |= push(&v, &n, "-x") | push(&v, &n, ENV_DIR) |
	       push(&v, &n, "-x") | push(&v, &n, ENV_KEY);
	for (int i = 0; i < m->nr_mpi; i++)
		bad |= push(&v, &n, m->mpi[i]);
	bad |= push(&v, &n, self) | push(&v, &n, "mpirun") |
	       push(&v, &n, "--rank-wrapper");
	for (int i = 0; i < m->nr_stat; i++)
		bad |= push(&v, &n, m->stat[i]);
	bad |= push(&v, &n, "--");
	for (int i = 0; m->cmd[i]; i++)
		bad |= push(&v, &n, m->cmd[i]);
	if (!bad)
		return v;
	free(v);
	return NULL;
}

/* a rank's counts, from @where; a rank that reported already is refused */
static void
take_rank(struct mpi_report *r, const char *text, size_t len,
	  const char *where)
{
	char err[512];
	long size = mpi_report_read(r, text, len, NULL, 0, err, sizeof(err));

	if (size < 0) {
		tool_err("%s: the rank's counts are left out: %s", where, err);
		return;
	}
	if (size > r->size)
		r->size = size;
}

/*
 * A line of mpirun's standard error: a rank's counts if the tag and the
 * key are in it, anywhere (after another rank's partial line, or after
 * the prefix that mpirun's --tag-output and --timestamp-output put before
 * every line, "Mon Nov 23 20:15:25 2026[1,0]<stderr>:", which is left
 * out); any other line is passed on as it is.
 */
static void
one_line(struct mpi_report *r, const char *key, const char *line,
	 size_t len)
{
	static const char prefix[] = "]<stderr>:";
	char mark[sizeof(MPI_TAG) + KEY_LEN + 1];
	const char *at;
	size_t head, n = snprintf(mark, sizeof(mark), "%s%s ", MPI_TAG, key);

	at = memmem(line, len, mark, n);
	if (!at) {
		fwrite(line, 1, len, stderr);
		return;
	}
	head = at - line;
	if (head >= strlen(prefix) &&
	    !memcmp(at - strlen(prefix), prefix, strlen(prefix))) {
		const char *b = memrchr(line, '[', head - strlen(prefix));

		head = b ? (size_t)(b - line) : 0;
	}
	fwrite(line, 1, head, stderr);
	take_rank(r, at + n, len - (at - line) - n, "a rank's line on stderr");
}

/* mpirun's standard error: ranks' lines taken, the rest passed on */
static void
sort_stderr(struct mpi_report *r, const char *key, int fd)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		char *nl;

		if (cap - len < 4096) {
			char *b = realloc(buf, cap = 2 * cap + 8192);

			if (!b)
				break;
			buf = b;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
		while ((nl = memchr(buf, '\n', len))) {
			size_t l = nl - buf + 1;

			one_line(r, key, buf, l);
			memmove(buf, buf + l, len - l);
			len -= l;
		}
		fflush(stderr);
	}
	if (len)
		one_line(r, key, buf, len);
	free(buf);
}

static int
run_mpirun(char **argv, const char *key, struct mpi_report *r)
{
	int p[2], status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		tool_err("pipe: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDERR_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "pctr mpirun: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(EXIT_NOTFOUND);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		tool_err("fork: %s", strerror(errno));
		return 1;
	}
	sort_stderr(r, key, p[0]);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return wait_status_code(status);
}

static void
say_missing(struct mpi_report *r)
{
	long n = mpi_report_missing(r, NULL, 0), m[16];

	if (n == 0)
		return;
	mpi_report_missing(r, m, 16);
	fflush(stdout);
	fprintf(stderr, "pctr mpirun: no counts from %ld rank%s:", n,
		n > 1 ? "s" : "");
	for (long i = 0; i < n && i < 16; i++)
		fprintf(stderr, " %ld", m[i]);
	fprintf(stderr, "%s (killed, or its pctr stat failed: see above)\n",
		n > 16 ? " ..." : "");
}

/*
 * The ranks' directory, private to this user (mkdtemp: 0700), and the
 * key, both in the environment that mpirun and its ranks inherit.
 */
static int
channel_open(struct mpirun *m)
{
	const char *tmp = getenv("TMPDIR");
	unsigned char raw[KEY_LEN / 2];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		tool_err("getrandom: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(m->key + 2 * i, 3, "%02x", raw[i]);
	snprintf(m->dir, sizeof(m->dir), "%s/pctr-mpirun-XXXXXX",
		 tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(m->dir)) {
		tool_err("cannot make a directory for the ranks' counts in "
			 "'%s': %s", tmp && *tmp == '/' ? tmp : "/tmp",
			 strerror(errno));
		return -1;
	}
	if (setenv(ENV_DIR, m->dir, 1) || setenv(ENV_KEY, m->key, 1)) {
		tool_err("setenv: %s", strerror(errno));
		rmdir(m->dir);
		return -1;
	}
	return 0;
}

/* one rank's file: its counts, or nothing if it never wrote them */
static void
take_file(struct mpi_report *r, int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *text = NULL;
	size_t len = 0;
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > 0)
		text = read_fd(fd, &len);
	if (text && len)
		take_rank(r, text, len, name);
	free(text);
	if (fd >= 0)
		close(fd);
}

/* the ranks' files, taken in turn, then removed with their directory */
static void
channel_close(struct mpirun *m, struct mpi_report *r)
{
	int dir = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "rank.", 5))
			continue;
		take_file(r, dir, e->d_name);
		unlinkat(dir, e->d_name, 0);
	}
	if (d)
		closedir(d);
	else if (dir >= 0)
		close(dir);
	if (rmdir(m->dir) < 0)
		tool_err("cannot remove '%s': %s", m->dir, strerror(errno));
}

static int
launch(struct mpirun *m)
{
	struct mpi_report r = { .size = m->n, .has_exit = true };
	char *self = self_path(), **argv;
	FILE *out = self && m->out ? out_open("-o", m->out, false) : stderr;
	int st = 1;

	if (!self || !out || channel_open(m) < 0) { /* before the job */
		if (out)
			out_close(out);
		free(self);
		return 1;
	}
	argv = mpirun_argv(m, self);
	if (argv) {
		/* the terminal's ^C reaches mpirun, which ends the job */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		st = run_mpirun(argv, m->key, &r);
		r.exit_status = st;
	}
	channel_close(m, &r);
	if (argv) {
		say_missing(&r);
		if (mpi_report_write(&r, out, m->json, m->per_rank) &&
		    st == 0)
			st = 1;
	} else {
		out_close(out);
	}
	mpi_report_free(&r);
	free(argv);
	free(self);
	return st;
}

/* ---- a rank ------------------------------------------------------------- */

static long
env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (!v || !*v)
		return dflt;
	x = strtol(v, &end, 10);
	return *end || x < 0 ? dflt : x;
}

/* @line and a newline to @fd, @tag before them, in one write; or -1 */
static int
send_line(int fd, const char *tag, const char *line)
{
	char *msg;
	int n = asprintf(&msg, "%s%s\n", tag, line), r = -1;

	if (n < 0)
		return -1;
	errno = 0;
	if (write(fd, msg, n) == n)
		r = 0;
	else if (errno == 0)
		errno = ENOSPC; /* a short write: out of room */
	free(msg);
	return r;
}

/*
 * The rank's counts as one pctr-mpi/1 line: into its file @out when it
 * has one, else on standard error after the tag and the key.  A file that
 * cannot take them (its file system full) is emptied and the counts go on
 * standard error: nothing is lost.
 */
static void
send_counts(const char *json, size_t len, int out, const char *key)
{
	struct mpi_report r = { .size = env_long("OMPI_COMM_WORLD_SIZE", 1) };
	long rank = env_long("OMPI_COMM_WORLD_RANK", 0);
	char err[512], *line = NULL, tag[sizeof(MPI_TAG) + KEY_LEN + 1];

	snprintf(tag, sizeof(tag), "%s%s ", MPI_TAG, key);
	if (mpi_report_read(&r, json, len, NULL, rank, err, sizeof(err)) < 0)
		tool_err("rank %ld: its report could not be read: %s", rank,
			 err);
	else
		line = mpi_rank_line(&r, 0);
	if (line && out >= 0 && send_line(out, "", line) == 0) {
		free(line);
		line = NULL; /* sent */
	} else if (line && out >= 0) {
		tool_err("rank %ld: cannot write its counts to its file (%s): "
			 "sending them on standard error", rank,
			 strerror(errno));
		if (ftruncate(out, 0) < 0)
			tool_err("rank %ld: ftruncate: %s", rank,
				 strerror(errno));
	}
	if (line && send_line(STDERR_FILENO, tag, line) < 0)
		tool_err("rank %ld: cannot send its counts: %s", rank,
			 strerror(errno));
	free(line);
	mpi_report_free(&r);
}

/*
 * The launcher's names, taken out of the environment before the program
 * starts, and this rank's file, made now (close-on-exec): the program
 * inherits neither.  No file (another host, without the launcher's
 * directory): -1, and the counts go on standard error with the key.
 */
static int
channel_take(char *key, size_t keylen)
{
	const char *d = getenv(ENV_DIR), *k = getenv(ENV_KEY);
	char path[4096];
	int fd = -1;

	snprintf(key, keylen, "%s", k ? k : "");
	if (d && *d) {
		snprintf(path, sizeof(path), "%s/rank.%ld", d,
			 env_long("OMPI_COMM_WORLD_RANK", 0));
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					O_CLOEXEC,
			  0600);
	}
	unsetenv(ENV_DIR);
	unsetenv(ENV_KEY);
	return fd;
}

static char **
stat_argv(char *self, const char *path, int argc, char **argv)
{
	char **v = NULL;
	int n = 0, bad = push(&v, &n, self) | push(&v, &n, "stat") |
			 push(&v, &n, "--format=pctr-json") |
			 push(&v, &n, "-o") | push(&v, &n, path);

	for (int i = 0; i < argc; i++)
		bad |= push(&v, &n, argv[i]);
	if (!bad)
		return v;
	free(v);
	return NULL;
}

/*
 * pctr stat writes its pctr-stat/1 report into a memory file of this
 * process, reached through /proc/PID/fd (close-on-exec here, so that the
 * program never holds it), then this process sends the counts.
 */
static int
rank_wrapper(int argc, char **argv)
{
	int fd = memfd_create("pctr-rank", MFD_CLOEXEC), status, st;
	char path[64], *self = self_path(), **v, *json;
	char key[KEY_LEN + 1];
	int out = channel_take(key, sizeof(key));
	size_t len;
	pid_t pid;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	v = fd >= 0 && self ? stat_argv(self, path, argc, argv) : NULL;
	if (!v) {
		tool_err("cannot start pctr stat: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		execv(self, v);
		_exit(EXIT_NOTFOUND);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	st = pid > 0 ? wait_status_code(status) : 1;
	json = read_fd(fd, &len);
	if (json && len)
		send_counts(json, len, out, key);
	free(json);
	free(v);
	free(self);
	close(fd);
	if (out >= 0)
		close(out);
	return st;
}

int
cmd_mpirun(int argc, char **argv)
{
	struct mpirun m = { 0 };
	int r;

	tool_set_name("pctr mpirun");
	if (argc > 1 && !strcmp(argv[1], "--rank-wrapper"))
		return rank_wrapper(argc - 2, argv + 2);
	r = parse_options(&m, argc, argv);
	if (r == 0 && find_command(MPIRUN) < 0) {
		tool_err("%s not found in PATH: pctr mpirun runs Open MPI's "
			 "mpirun (Debian: apt-get install openmpi-bin)",
			 MPIRUN);
		r = EXIT_NOTFOUND;
	}
	if (r == 0)
		r = launch(&m);
	free(m.mpi);
	free(m.stat);
	return r;
}
