/* SPDX-License-Identifier: MIT */
/*
 * hw_prog.h - running whole programs in the guest: the pctr command and
 * programs built from the seeds travel inside the test program (embed.py
 * makes hw_blob_NAME ... hw_blob_NAME_end of each), are written to /tmp
 * and run with their output captured.
 */
#ifndef PCTR_HW_PROG_H
#define PCTR_HW_PROG_H

#include <stdlib.h>
#include <sys/stat.h>

#include "hw.h"

#define HW_BLOB(name) extern const char hw_blob_##name[], hw_blob_##name##_end[]

/* write an embedded program to @path, executable */
static inline void
hw_prog_install(const char *path, const char *start, const char *end)
{
	size_t len = (size_t)(end - start), off = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);

	if (fd < 0)
		TEST_FAIL("%s: %s", path, strerror(errno));
	ASSERT_GT(len, 0);
	while (off < len) {
		ssize_t n = write(fd, start + off, len - off);

		if (n <= 0)
			TEST_FAIL("writing %s: %s", path, strerror(errno));
		off += (size_t)n;
	}
	ASSERT_EQ(close(fd), 0);
}

/* a whole file, NUL-terminated, in malloc'd memory */
static inline char *
hw_slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	size_t len = 0, cap = 4096, n;
	char *s = malloc(cap);

	ASSERT(f != NULL && s != NULL);
	while ((n = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			cap *= 2;
			s = realloc(s, cap);
			ASSERT(s != NULL);
		}
	}
	s[len] = '\0';
	fclose(f);
	return s;
}

struct hw_run {
	int status; /* exit status, 128 + N if killed by signal N */
	char *out, *err;
};

/*
 * Run @argv (looked up in PATH, which is /hw in the guest) with @env
 * ("NAME=value" strings, NULL-terminated, or NULL) added to the
 * environment; its stdout and stderr are captured in @r.
 */
static inline void
hw_run(char *const argv[], char *const env[], struct hw_run *r)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int o = open("/tmp/hw_run.out",
			     O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open("/tmp/hw_run.err",
			     O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(125);
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	r->status = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
					: WEXITSTATUS(status);
	r->out = hw_slurp("/tmp/hw_run.out");
	r->err = hw_slurp("/tmp/hw_run.err");
}

/*
 * hw_run() at real-time priority, which the program inherits: for
 * programs whose counts are compared exactly (hw.h, "Undisturbed").  The
 * program must not wait for another task that it does not block on.
 */
static inline void
hw_run_fifo(char *const argv[], char *const env[], struct hw_run *r)
{
	int policy = hw_fifo_begin();

	hw_run(argv, env, r);
	hw_fifo_end(policy);
}

/* print a program's output as TAP comments, at most @max lines of each */
static inline void
hw_run_show(const struct hw_run *r, int max)
{
	const char *what[] = { "stdout", "stderr" };
	const char *text[] = { r->out, r->err };

	printf("# status %d\n", r->status);
	for (int i = 0; i < 2; i++) {
		const char *s = text[i];

		for (int n = 0; *s && n < max; n++) {
			size_t len = strcspn(s, "\n");

			printf("# %s: %.*s\n", what[i], (int)len, s);
			s += len + (s[len] == '\n');
		}
	}
}

#endif
