/* SPDX-License-Identifier: MIT */
/*
 * test_setuid - a setuid-root program that measures regions, run by an
 * unprivileged user with $PCTR_REPORT aimed at a root-only file (through a
 * symbolic link, and directly) and $PCTR_SYSFS_ROOT, $PCTR_EVENTS and
 * $LIBPFM_FORCE_PMU set: none of them may steer it.  The same program without the setuid bit
 * shows that the knobs do work where they should, so the test can tell.
 * Needs root (to install the program setuid root and to switch users).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pctr.h>
#include <sys/stat.h>

#include "test.h"

#define NOBODY 65534
#define SECRET "root only\n"

static char dir[64], prog[PATH_MAX], plain[PATH_MAX], secret[PATH_MAX],
	link_[PATH_MAX];

static void
copy(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		SKIP("the helper %s is not built", from);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	ASSERT_GE(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ASSERT_EQ(write(out, buf, n), n);
	ASSERT_EQ(n, 0);
	close(in);
	ASSERT_OK(fchown(out, 0, 0));
	/* chmod after chown: chown clears the setuid bit */
	ASSERT_OK(fchmod(out, mode));
	close(out);
}

/*
 * A directory the unprivileged user can reach, holding the program
 * (setuid root, and a plain copy), a root-only 0600 file and a link to it.
 */
static void
setup(void)
{
	char self[PATH_MAX], helper[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd;

	if (geteuid() != 0)
		SKIP("installing a setuid-root program needs root");
	ASSERT_GT(n, 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(helper, sizeof(helper), "%s/setuid_region", self);
	snprintf(dir, sizeof(dir), "/tmp/pctr-setuid-XXXXXX");
	ASSERT(mkdtemp(dir));
	ASSERT_OK(chmod(dir, 0755));
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(link_, sizeof(link_), "%s/link", dir);
	copy(helper, plain, 0755);
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, SECRET, strlen(SECRET)), (ssize_t)strlen(SECRET));
	close(fd);
	ASSERT_OK(symlink(secret, link_));
	/* last: nothing that can fail comes after it, see sandboxed() */
	copy(helper, prog, 04755);
}

static int
cleanup(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/out", dir);
	unlink(path);
	unlink(link_);
	unlink(secret);
	unlink(plain);
	unlink(prog);
	return rmdir(dir);
}

/*
 * @body in a child of its own, so that a failed assertion (which exits at
 * once) still leaves no setuid-root program behind.
 */
static void
sandboxed(void (*body)(void))
{
	pid_t pid;
	int st;

	setup();
	pid = fork();
	if (pid == 0) {
		body();
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_OK(cleanup());
	ASSERT(WIFEXITED(st));
	ASSERT_EQ(WEXITSTATUS(st), 0);
}

/* the root-only file still holds what it held, with its mode and owner */
static void
assert_secret_untouched(void)
{
	char buf[64] = "";
	struct stat st;
	int fd = open(secret, O_RDONLY | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_GE(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	ASSERT_STR_EQ(buf, SECRET);
	ASSERT_OK(lstat(secret, &st));
	ASSERT_EQ(st.st_mode, S_IFREG | 0600);
	ASSERT_EQ(st.st_uid, 0);
}

/*
 * Run @path as @uid (0: stay root) with $PCTR_REPORT=@report and the other
 * knobs set; its standard output and error in @out and @err.  Returns the
 * exit status.
 */
static int
run(const char *path, uid_t uid, const char *report, char *out, char *err,
    size_t len)
{
	char rep[PATH_MAX + 16], sys[PATH_MAX + 32];
	char *argv[] = { (char *)path, NULL };
	char *envp[] = { rep, sys, "PCTR_EVENTS=task-clock",
			 "LIBPFM_FORCE_PMU=skl", NULL };

	if (!report) /* no knob at all */
		envp[0] = NULL;
	int po[2], pe[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(rep, sizeof(rep), "PCTR_REPORT=%s", report ? report : "");
	snprintf(sys, sizeof(sys), "PCTR_SYSFS_ROOT=%s", dir);
	ASSERT_OK(pipe(po));
	ASSERT_OK(pipe(pe));
	pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (uid && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(99);
		execve(path, argv, envp);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	n = read(po[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	n = read(pe[0], err, len - 1);
	err[n > 0 ? n : 0] = '\0';
	close(po[0]);
	close(pe[0]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* libpfm4 events listed by the plain program run with no knob at all */
static int
pfm_without_knobs(void)
{
	char out[512], err[512], *p;

	ASSERT_EQ(run(plain, 0, NULL, out, err, sizeof(out)), 0);
	p = strstr(out, "pfm=");
	ASSERT(p);
	return atoi(p + 4);
}

/* the setuid program, as nobody, reporting to @fmt:@path: nothing obeyed */
static void
setuid_run(const char *fmt, const char *path)
{
	char out[512], err[512], want[128], report[PATH_MAX + 16];

	snprintf(report, sizeof(report), "%s:%s", fmt, path);
	ASSERT_EQ(run(prog, NOBODY, report, out, err, sizeof(out)), 0);
	assert_secret_untouched();
	/*
	 * it did run with root's privileges (AT_SECURE set by the kernel),
	 * and saw none of the knobs
	 */
	snprintf(want, sizeof(want), "secure=1 euid=0 sysfs=/sys from_env=0 "
		 "pfm=%d\n", pfm_without_knobs());
	ASSERT_STR_EQ(out, want);
	ASSERT_STR_EQ(err, "");
}

static void
through_link(void)
{
	setuid_run("text", link_);
	setuid_run("json", link_);
}

TEST(setuid_report_through_a_link_to_a_root_file_is_ignored)
{
	sandboxed(through_link);
}

static void
on_the_file(void)
{
	setuid_run("text", secret);
	setuid_run("csv", secret);
}

TEST(setuid_report_on_a_root_file_is_ignored)
{
	sandboxed(on_the_file);
}

/*
 * The same program without the setuid bit, run by root: the knobs are
 * obeyed (so the runs above would have shown it), and a report aimed
 * through the link is refused with one line on standard error.
 */
static void
plain_run(void)
{
	char out[512], err[1024], want[PATH_MAX * 3], path[PATH_MAX + 8];
	struct pctr_machine m = { .size = sizeof(m) };
	struct stat st;

	snprintf(path, sizeof(path), "text:%s/out", dir);
	ASSERT_EQ(run(plain, 0, path, out, err, sizeof(out)), 0);
	snprintf(want, sizeof(want), "secure=0 euid=0 sysfs=%s from_env=1 "
		 "pfm=", dir);
	ASSERT(!strncmp(out, want, strlen(want)));
	/* where there is no PMU, LIBPFM_FORCE_PMU lists Skylake's table */
	if (!pctr_machine_get(&m) && !m.has_pmu)
		ASSERT_GT(atoi(out + strlen(want)), 0);
	ASSERT_STR_EQ(err, "");
	ASSERT_OK(stat(path + 5, &st));
	ASSERT_GT(st.st_size, 0);
	snprintf(path, sizeof(path), "text:%s", link_);
	ASSERT_EQ(run(plain, 0, path, out, err, sizeof(err)), 0);
	snprintf(want, sizeof(want),
		 "pctr: PCTR_REPORT=%s: cannot write the report to '%s': it "
		 "is a symbolic link; reports are written to regular files "
		 "only, never through a symbolic link\n",
		 path, link_);
	ASSERT_STR_EQ(err, want);
	assert_secret_untouched();
}

TEST(without_setuid_the_knobs_work_and_links_are_refused)
{
	sandboxed(plain_run);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(setuid_report_through_a_link_to_a_root_file_is_ignored)
			       TEST_CASE(setuid_report_on_a_root_file_is_ignored)
			       TEST_CASE(without_setuid_the_knobs_work_and_links_are_refused)));
}
