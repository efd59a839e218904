/* SPDX-License-Identifier: MIT */
/*
 * test_runner.c - tests/test.h itself: the TAP line each way a case can
 * end, above all for a case listed with TEST_TODO.  "# TODO" may only come
 * from a failed ASSERT_KNOWN; a crash, a timeout or another assertion in
 * such a case is a plain "not ok", and a pass is "ok ... # TODO".  The
 * summary counts every one of them as a failure (tests/unit/test_summary.py).
 *
 * Each case runs inner cases through test_run_one() with stdout sent to a
 * temporary file and compares the line it printed.
 */
#include <stdio.h>

#include "test.h"

static void
passes(void)
{
}

static void
known(void)
{
	ASSERT_KNOWN(1 + 1 == 3);
}

static void
other_assertion(void)
{
	ASSERT_EQ(1, 2);
	ASSERT_KNOWN(1 + 1 == 3);
}

static void
crashes(void)
{
	/* not SIGSEGV: AddressSanitizer's handler turns that into an abort */
	abort();
}

static void
hangs(void)
{
	pause();
}

static void
skips(void)
{
	SKIP("no such hardware");
}

/* test_run_one(@c) with stdout captured: its last line into @line */
static int
run_captured(const struct test_case *c, unsigned int timeout, char *line,
	     size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO), r;

	ASSERT(f != NULL && saved >= 0);
	fflush(stdout);
	ASSERT(dup2(fileno(f), STDOUT_FILENO) >= 0);
	r = test_run_one(c, 7, timeout);
	fflush(stdout);
	ASSERT(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	rewind(f);
	line[0] = '\0';
	while (fgets(line, (int)size, f) && strncmp(line, "ok", 2) &&
	       strncmp(line, "not ok", 6))
		;
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	printf("# %s -> %s (%d)\n", c->name, line, r);
	return r;
}

static void
expect(const struct test_case *c, const char *want, int failed)
{
	char line[256];

	ASSERT_EQ(run_captured(c, 2, line, sizeof(line)), failed);
	ASSERT_STR_EQ(line, want);
}

TEST(todo_known_defect_is_an_expected_failure)
{
	const struct test_case c[] = { TEST_TODO(known, "QEMU's bug") };

	expect(c, "not ok 7 - known # TODO QEMU's bug", 0);
}

TEST(todo_that_passes_is_reported_and_fails)
{
	const struct test_case c[] = { TEST_TODO(passes, "QEMU's bug") };

	expect(c, "ok 7 - passes # TODO QEMU's bug", 1);
}

TEST(todo_with_another_assertion_is_a_plain_failure)
{
	const struct test_case c[] = { TEST_TODO(other_assertion, "QEMU's bug") };

	expect(c, "not ok 7 - other_assertion", 1);
}

TEST(todo_that_crashes_is_a_plain_failure)
{
	const struct test_case c[] = { TEST_TODO(crashes, "QEMU's bug") };

	expect(c, "not ok 7 - crashes # killed by signal 6", 1);
}

TEST(todo_that_hangs_is_a_plain_failure)
{
	const struct test_case c[] = { TEST_TODO(hangs, "QEMU's bug") };

	expect(c, "not ok 7 - hangs # killed by signal 14 (timeout)", 1);
}

static void
naps(void)
{
	sleep(2);
}

/*
 * A case's own timeout, scaled as the run's default: run_captured() gives
 * a default of 2 s, i.e. 1/30 of TEST_DEFAULT_TIMEOUT; 30 s declared is
 * 1 s here, less than the case's 2 s nap, and 120 s declared is 4 s.
 */
TEST(timeout_declared_with_the_case)
{
	const struct test_case shorter[] = { TEST_CASE_TIMEOUT(naps, 30) };
	const struct test_case longer[] = { TEST_CASE_TIMEOUT(naps, 120) };

	expect(shorter, "not ok 7 - naps # killed by signal 14 (timeout)", 1);
	expect(longer, "ok 7 - naps", 0);
}

TEST(known_defect_outside_todo_is_a_failure)
{
	const struct test_case c[] = { TEST_CASE(known) };

	expect(c,
	       "not ok 7 - known # a known defect, but the case is not listed "
	       "with TEST_TODO",
	       1);
}

TEST(plain_cases)
{
	const struct test_case p[] = { TEST_CASE(passes) };
	const struct test_case s[] = { TEST_CASE(skips) };
	const struct test_case f[] = { TEST_CASE(other_assertion) };

	expect(p, "ok 7 - passes", 0);
	expect(s, "ok 7 - skips # SKIP", 0);
	expect(f, "not ok 7 - other_assertion", 1);
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(todo_known_defect_is_an_expected_failure)
		TEST_CASE(todo_that_passes_is_reported_and_fails)
		TEST_CASE(todo_with_another_assertion_is_a_plain_failure)
		TEST_CASE(todo_that_crashes_is_a_plain_failure)
		TEST_CASE(todo_that_hangs_is_a_plain_failure)
		TEST_CASE(known_defect_outside_todo_is_a_failure)
		TEST_CASE(timeout_declared_with_the_case)
		TEST_CASE(plain_cases)));
}
