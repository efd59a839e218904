/* SPDX-License-Identifier: MIT */
/*
 * test_help - the pctr command as a whole: its usage lists every
 * subcommand, a typo is answered with the name meant, "pctr help CMD"
 * shows pctr-CMD(1) as "perf help stat" shows perf-stat(1), or the
 * command's options where no page is installed.
 */
#include <ctype.h>
#include <sys/stat.h>

#include "tool.h"

static const char *const subcommands[] = { "list",   "stat",   "profile",
					   "record", "report", "script",
					   "info",   "merge",  "mpirun",
					   "help" };

TEST(usage_lists_every_subcommand)
{
	struct result r = pctr("--help", NULL), none;
	char line[64];

	ASSERT_EQ(r.status, 0);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(*subcommands);
	     i++) {
		snprintf(line, sizeof(line), "\n  %-9s ", subcommands[i]);
		ASSERT_CONTAINS(r.out, line);
	}
	none = pctr("help", NULL);
	ASSERT_EQ(none.status, 0);
	ASSERT_STR_EQ(none.out, r.out);
	{
		char *argv[] = { (char *)pctr_path(), NULL };

		none = run_in(argv, NULL);
	}
	ASSERT_EQ(none.status, 2);
	ASSERT_STR_EQ(none.err, r.out);
}

TEST(typo_says_what_was_meant)
{
	static const char *const typo[][2] = {
		{ "stta", "stat" }, { "sat", "stat" }, { "lsit", "list" },
		{ "prof", "profile" }, { "inof", "info" },
	};
	struct result r;
	char want[64];

	for (size_t i = 0; i < sizeof(typo) / sizeof(*typo); i++) {
		r = pctr(typo[i][0], "-e", "cs", NULL);
		ASSERT_EQ(r.status, 2);
		snprintf(want, sizeof(want), "pctr: unknown command '%s' (did "
			 "you mean '%s'?)\n", typo[i][0], typo[i][1]);
		ASSERT_CONTAINS(r.err, want);
	}
	r = pctr("xyzzy", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "pctr: unknown command 'xyzzy'\n");
	ASSERT(!strstr(r.err, "did you mean"));
	r = pctr("help", "stta", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "did you mean 'stat'?");
}

/*
 * pctr help stat: the page of the build (man/pctr-stat.1, in a man1
 * directory of its own on $MANPATH), or without one the options of
 * pctr stat --help
 */
TEST(help_shows_the_page)
{
	const char *built = getenv("PCTR_MANDIR");
	char dir[] = "/tmp/pctr-man-XXXXXX", man1[64], link[96], src[4096];
	struct result r;

	if (!built)
		SKIP("$PCTR_MANDIR is not set (run through meson test)");
	if (access("/usr/bin/man", X_OK) < 0)
		SKIP("man(1) is not installed");
	ASSERT(mkdtemp(dir));
	snprintf(man1, sizeof(man1), "%s/man1", dir);
	snprintf(link, sizeof(link), "%s/pctr-stat.1", man1);
	snprintf(src, sizeof(src), "%s/pctr-stat.1", built);
	ASSERT_EQ(mkdir(man1, 0700), 0);
	ASSERT_EQ(symlink(src, link), 0);
	setenv("MANPATH", dir, 1);
	setenv("MANWIDTH", "100", 1);
	r = pctr("help", "stat", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "PCTR-STAT(1)");
	ASSERT_CONTAINS(r.out, "--interval-count");
	unlink(link);
	r = pctr("help", "stat", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "usage: pctr stat");
	ASSERT_STR_EQ(r.err, "");
	unsetenv("MANPATH");
	rmdir(man1);
	rmdir(dir);
}

/*
 * Every subcommand has its page, pctr-CMD(1), which pctr help CMD shows
 * (record, report and script once had none: their --help was shown), with
 * its options, exit statuses, examples and related pages
 */
TEST(every_subcommand_has_its_page)
{
	const char *built = getenv("PCTR_MANDIR");
	char dir[] = "/tmp/pctr-man-XXXXXX", man1[64], link[96], src[4096];
	char want[64];
	struct result r;

	if (!built)
		SKIP("$PCTR_MANDIR is not set (run through meson test)");
	if (access("/usr/bin/man", X_OK) < 0)
		SKIP("man(1) is not installed");
	ASSERT(mkdtemp(dir));
	snprintf(man1, sizeof(man1), "%s/man1", dir);
	ASSERT_EQ(mkdir(man1, 0700), 0);
	setenv("MANPATH", dir, 1);
	setenv("MANWIDTH", "100", 1);
	for (size_t i = 0; i + 1 < sizeof(subcommands) / sizeof(*subcommands);
	     i++) {
		const char *cmd = subcommands[i];
		char upper[16] = "";

		snprintf(link, sizeof(link), "%s/pctr-%s.1", man1, cmd);
		snprintf(src, sizeof(src), "%s/pctr-%s.1", built, cmd);
		ASSERT_EQ(symlink(src, link), 0);
		for (size_t k = 0; cmd[k] && k + 1 < sizeof(upper); k++)
			upper[k] = (char)toupper((unsigned char)cmd[k]);
		r = pctr("help", cmd, NULL);
		ASSERT_EQ(r.status, 0);
		snprintf(want, sizeof(want), "PCTR-%s(1)", upper);
		if (!strstr(r.out, want))
			TEST_FAIL("pctr help %s: no page %s, but: %.60s", cmd,
				  want, r.out);
		/* merge's and mpirun's few options are in their text */
		if (strcmp(cmd, "merge") && strcmp(cmd, "mpirun"))
			ASSERT_CONTAINS(r.out, "\nOPTIONS\n");
		ASSERT_CONTAINS(r.out, "\nEXIT STATUS\n");
		ASSERT_CONTAINS(r.out, "\nEXAMPLES\n");
		ASSERT_CONTAINS(r.out, "\nSEE ALSO\n");
		snprintf(want, sizeof(want), "pctr %s", cmd);
		ASSERT_CONTAINS(r.out, want);
		unlink(link);
	}
	unsetenv("MANPATH");
	rmdir(man1);
	rmdir(dir);
}

int
main(int argc, char **argv)
{
	(void)argc;
	find_self(argv[0]);
	return test_main(TESTS(TEST_CASE(usage_lists_every_subcommand)
			       TEST_CASE(typo_says_what_was_meant)
			       TEST_CASE(help_shows_the_page)
			       TEST_CASE(every_subcommand_has_its_page)));
}
