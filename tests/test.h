/* SPDX-License-Identifier: MIT */
/*
 * test.h - a small test runner in the libuv style.
 *
 * Each test runs in its own child process with a timeout, so a crash or a
 * hang fails that test only.  Output is TAP ("ok 1 - name", "not ok ...",
 * "ok 2 - name # SKIP why"), which meson counts test by test.
 *
 *   TEST(parses_cycles) { ASSERT_EQ(x, 1); }
 *   int main(void) { return test_main(TESTS(TEST_CASE(parses_cycles) ...)); }
 *
 * Known defects outside this project (a kernel or QEMU bug, shown by a
 * reproducer under tests/repro/): the case is listed with
 * TEST_TODO(fn, "why") and asserts the defect's own signature with
 * ASSERT_KNOWN(cond).  Only a failed ASSERT_KNOWN gives
 * "not ok N - fn # TODO why", which names the defect but is still a
 * failure for scripts/summary.py (make check does not pass around it);
 * any other assertion, a crash or a timeout is a plain "not ok", and a
 * pass is "ok N - fn # TODO why", a failure too: the defect is gone and the
 * TODO must go.  An ASSERT_KNOWN that fails in a case not listed as
 * TEST_TODO is a plain failure too.
 */
#ifndef PCTR_TEST_H
#define PCTR_TEST_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_SKIP_STATUS 77
#define TEST_KNOWN_STATUS 78 /* ASSERT_KNOWN failed: the known defect */

/*
 * Under valgrind the process runs translated code on valgrind's own memory:
 * program counters, page faults, mappings and descriptor limits are not the
 * program's.  Tests about those skip there; memcheck still checks the rest.
 * scripts/check.sh also sets PCTR_TEST_VALGRIND for builds without the
 * valgrind header.
 */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define TEST_UNDER_VALGRIND()                                                 \
	(RUNNING_ON_VALGRIND || getenv("PCTR_TEST_VALGRIND") != NULL)
#endif
#endif
#ifndef TEST_UNDER_VALGRIND
#define TEST_UNDER_VALGRIND() (getenv("PCTR_TEST_VALGRIND") != NULL)
#endif

#define SKIP_UNDER_VALGRIND(what)                                             \
	do {                                                                  \
		if (TEST_UNDER_VALGRIND())                                    \
			SKIP("under valgrind %s", what);                      \
	} while (0)

#define TEST(name) static void name(void)

struct test_case {
	const char *name;
	void (*fn)(void);
	const char *todo; /* the known defect this case meets, or NULL */
	unsigned int timeout; /* seconds; 0: TEST_DEFAULT_TIMEOUT */
};

/*
 * A case that needs longer than the default, or must finish sooner, says
 * so where it is listed: TEST_CASE_TIMEOUT(fn, seconds).  $TEST_TIMEOUT
 * (seconds) sets the default for a slower machine (the emulated guests)
 * and scales the declared ones by the same factor.
 */
#define TEST_DEFAULT_TIMEOUT 60
#define TEST_CASE(fn) { #fn, fn, NULL, 0 },
#define TEST_CASE_TIMEOUT(fn, seconds) { #fn, fn, NULL, seconds },
#define TEST_TODO(fn, why) { #fn, fn, why, 0 },

#define TEST_FAIL(...)                                                        \
	do {                                                                  \
		fprintf(stderr, "# %s:%d: ", __FILE__, __LINE__);            \
		fprintf(stderr, __VA_ARGS__);                                 \
		fprintf(stderr, "\n");                                        \
		fflush(stderr);                                               \
		_exit(1);                                                     \
	} while (0)

/* skip the current test, saying why on one line */
#define SKIP(...)                                                             \
	do {                                                                  \
		printf("# SKIP ");                                            \
		printf(__VA_ARGS__);                                          \
		printf("\n");                                                 \
		fflush(stdout);                                               \
		_exit(TEST_SKIP_STATUS);                                      \
	} while (0)

#define ASSERT(cond)                                                          \
	do {                                                                  \
		if (!(cond))                                                  \
			TEST_FAIL("assertion failed: %s", #cond);             \
	} while (0)

/* the one assertion that a known defect fails (see the top of this file) */
#define ASSERT_KNOWN(cond)                                                    \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "# %s:%d: known defect: %s\n",        \
				__FILE__, __LINE__, #cond);                   \
			fflush(stderr);                                       \
			_exit(TEST_KNOWN_STATUS);                             \
		}                                                             \
	} while (0)

#define ASSERT_OP(a, op, b, type, fmt)                                        \
	do {                                                                  \
		type a_ = (type)(a), b_ = (type)(b);                          \
		if (!(a_ op b_))                                              \
			TEST_FAIL("%s %s %s: " fmt " vs " fmt, #a, #op, #b,   \
				  a_, b_);                                    \
	} while (0)

/*
 * The signed comparisons take integer operands as long long, and compare
 * as long double when either operand is floating (a ratio truncated to
 * long long would make 0.96 >= 0.98 true).  A 64-bit unsigned operand
 * above LLONG_MAX would turn negative as long long, and a count that
 * wrapped below zero (a bug) would then pass ASSERT_LE and ASSERT_LT:
 * such an operand fails the assertion instead.  Compare values that can
 * truly be that large with ASSERT_UEQ or ASSERT_HEX_EQ.  Each operand is
 * evaluated once.
 */
#define TEST_OVER_LLONG(x)                                                    \
	_Generic((x), unsigned long: (unsigned long long)(x) >> 63 != 0,      \
		 unsigned long long: (unsigned long long)(x) >> 63 != 0,       \
		 default: 0)
#define TEST_IS_FLOAT(x)                                                      \
	_Generic((x), float: 1, double: 1, long double: 1, default: 0)
#define ASSERT_SOP(a, op, b)                                                  \
	do {                                                                  \
		__typeof__((a) + 0) x_ = (a);                                 \
		__typeof__((b) + 0) y_ = (b);                                 \
		if (TEST_OVER_LLONG(x_) || TEST_OVER_LLONG(y_))               \
			TEST_FAIL("%s %s %s: %llu vs %llu, beyond a signed "  \
				  "comparison (a wrapped count?)", #a, #op,  \
				  #b, (unsigned long long)x_,                 \
				  (unsigned long long)y_);                    \
		if (TEST_IS_FLOAT(x_) || TEST_IS_FLOAT(y_)) {                 \
			if (!((long double)x_ op (long double)y_))            \
				TEST_FAIL("%s %s %s: %.9Lg vs %.9Lg", #a, #op, \
					  #b, (long double)x_,                \
					  (long double)y_);                   \
		} else if (!((long long)x_ op (long long)y_)) {               \
			TEST_FAIL("%s %s %s: %lld vs %lld", #a, #op, #b,      \
				  (long long)x_, (long long)y_);              \
		}                                                             \
	} while (0)
#define ASSERT_EQ(a, b) ASSERT_SOP(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_SOP(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_SOP(a, <, b)
#define ASSERT_LE(a, b) ASSERT_SOP(a, <=, b)
#define ASSERT_GT(a, b) ASSERT_SOP(a, >, b)
#define ASSERT_GE(a, b) ASSERT_SOP(a, >=, b)
#define ASSERT_UEQ(a, b) ASSERT_OP(a, ==, b, unsigned long long, "%llu")
#define ASSERT_HEX_EQ(a, b) ASSERT_OP(a, ==, b, unsigned long long, "%#llx")
#define ASSERT_DBL_NEAR(a, b, eps)                                            \
	do {                                                                  \
		double a_ = (a), b_ = (b);                                    \
		if (!(a_ - b_ <= (eps) && b_ - a_ <= (eps)))                  \
			TEST_FAIL("%s ~ %s: %.9g vs %.9g (eps %g)", #a, #b,   \
				  a_, b_, (double)(eps));                     \
	} while (0)
#define ASSERT_STR_EQ(a, b)                                                   \
	do {                                                                  \
		const char *a_ = (a), *b_ = (b);                              \
		if (!a_ || !b_ || strcmp(a_, b_))                             \
			TEST_FAIL("%s == %s: \"%s\" vs \"%s\"", #a, #b,       \
				  a_ ? a_ : "(null)", b_ ? b_ : "(null)");    \
	} while (0)
#define ASSERT_CONTAINS(hay, needle)                                          \
	do {                                                                  \
		const char *h_ = (hay), *n_ = (needle);                       \
		if (!h_ || !strstr(h_, n_))                                   \
			TEST_FAIL("\"%s\" does not contain \"%s\"",           \
				  h_ ? h_ : "(null)", n_);                    \
	} while (0)
/* a pctr_ call that must succeed: prints the library's explanation if not */
#define ASSERT_OK(call)                                                       \
	do {                                                                  \
		int r_ = (call);                                              \
		if (r_ < 0)                                                   \
			TEST_FAIL("%s = %d (%s)", #call, r_,                  \
				  pctr_strerror(r_));                         \
	} while (0)

/*
 * Write to @n fresh anonymous pages, small ones (MADV_NOHUGEPAGE; an
 * allocator could hand out pages already touched): exactly @n first-touch
 * page faults, the count a test can know exactly on a machine without a
 * PMU.  0, or -1 when the pages could not be mapped.  Not instrumented:
 * AddressSanitizer's shadow reads would fault too.
 */
__attribute__((no_sanitize_address)) static inline int
test_touch_pages(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = n * page;
	volatile char *p;

	if (n == 0)
		return 0;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	(void)madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += page)
		p[i] = 1;
	munmap((void *)p, len);
	return 0;
}

/*
 * A clock read in user mode with one instruction, no call and no system
 * call: the TSC, arm64's virtual counter, in ticks of its own (a test
 * converts them by timing them against CLOCK_MONOTONIC).  Elsewhere 0: a
 * loop that times its steps with it sees no gap, and what is held to the
 * time it saw itself running holds.
 */
__attribute__((always_inline)) static inline uint64_t
ticks_now(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

/* the TAP line of a finished case; 1 if it counts as a failure */
/*
 * Run @fn in a child whose seccomp filter kills it at any system call but
 * exit (not seccomp's strict mode, which also takes the TSC away): 0 when
 * @fn made none, the signal that killed the child when it did, -1 when the
 * child could not be set up.
 */
static inline int
test_run_without_syscalls(void (*fn)(void))
{
	struct sock_filter only_exit[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(only_exit) / sizeof(only_exit[0]),
				   only_exit };
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			_exit(2);
		fn();
		syscall(SYS_exit, 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * Write @text and a newline to @dir/@rel, making the directories of @rel
 * on the way (a fake sysfs tree, say), or fail the test.
 */
static inline void
test_put_file(const char *dir, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0)
		TEST_FAIL("cannot write %s", path);
}

static inline int
test_report(const struct test_case *t, int n, int status)
{
	int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;

	if (WIFEXITED(status) && WEXITSTATUS(status) == TEST_SKIP_STATUS) {
		printf("ok %d - %s # SKIP\n", n, t->name);
		return 0;
	}
	if (t->todo && (ok || (WIFEXITED(status) &&
			       WEXITSTATUS(status) == TEST_KNOWN_STATUS))) {
		/* "ok # TODO" is an unexpected pass: a failure */
		printf("%s %d - %s # TODO %s\n", ok ? "ok" : "not ok", n,
		       t->name, t->todo);
		return ok;
	}
	if (ok) {
		printf("ok %d - %s\n", n, t->name);
		return 0;
	}
	if (WIFSIGNALED(status))
		printf("not ok %d - %s # killed by signal %d%s\n", n, t->name,
		       WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == TEST_KNOWN_STATUS)
		printf("not ok %d - %s # a known defect, but the case is not "
		       "listed with TEST_TODO\n", n, t->name);
	else
		printf("not ok %d - %s\n", n, t->name);
	return 1;
}

/*
 * @timeout: the default for this run (TEST_DEFAULT_TIMEOUT, or
 * $TEST_TIMEOUT); a case's own is scaled as the default was.
 */
static inline int
test_run_one(const struct test_case *t, int n, unsigned int timeout)
{
	int status;
	pid_t pid;

	if (t->timeout)
		timeout = (unsigned int)((unsigned long long)t->timeout *
					 timeout / TEST_DEFAULT_TIMEOUT);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		alarm(timeout ? timeout : 1);
		t->fn();
		/* exit, not _exit: LeakSanitizer checks at exit */
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		printf("not ok %d - %s # cannot fork\n", n, t->name);
		return 1;
	}
	return test_report(t, n, status);
}

/*
 * Run every test (or those named in $TEST_ONLY), each $TEST_REPEAT times
 * in a row (default 1: a flaky case is looked for by repeating it), print
 * TAP, 0 if all pass.
 */
static inline int
test_main_cases(const struct test_case *cases, int n)
{
	const char *only = getenv("TEST_ONLY");
	const char *to = getenv("TEST_TIMEOUT");
	const char *rep = getenv("TEST_REPEAT");
	unsigned int timeout = to ? (unsigned)atoi(to) : TEST_DEFAULT_TIMEOUT;
	int repeat = rep ? atoi(rep) : 1;
	int failed = 0, run = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (repeat < 1) {
		printf("1..0 # TEST_REPEAT=%s is not a count of runs\n", rep);
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (!only || !strcmp(only, cases[i].name))
			run += repeat;
	printf("1..%d\n", run);
	run = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < repeat; k++)
			if (!only || !strcmp(only, cases[i].name))
				failed += test_run_one(&cases[i], ++run,
						       timeout);
	return failed ? 1 : 0;
}

#define TESTS(...)                                                            \
	(const struct test_case[]){ __VA_ARGS__ },                            \
		(int)(sizeof((const struct test_case[]){ __VA_ARGS__ }) /     \
		      sizeof(struct test_case))
#define test_main(...) test_main_cases(__VA_ARGS__)

#endif
