/* SPDX-License-Identifier: MIT */
/*
 * pctr - count CPU events for a command, a process or whole CPUs.
 *
 * The subcommands are the table below: the usage, "pctr help", the
 * dispatch and the "did you mean" of a typo are all made from it.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "text.h"
#include "tool.h"
#include "util.h"

static int cmd_help(int argc, char **argv);

static const struct command {
	const char *name, *what;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "list", "the events this machine can count", cmd_list },
	{ "stat", "count a command, a process, a thread or CPUs", cmd_stat },
	{ "profile", "sample a command, a process or CPUs: where the time "
		     "goes", cmd_profile },
	{ "record", "sample a command into perf.data (as perf record)",
	  cmd_record },
	{ "report", "where a recording's samples fall (as perf report)",
	  cmd_report },
	{ "script", "a recording's samples, as perf script prints them",
	  cmd_script },
	{ "info", "what this machine and kernel allow, and why", cmd_info },
#ifdef PCTR_MPI /* not in the static command of tests/hw */
	{ "merge", "reports of many runs or hosts as one", cmd_merge },
	{ "mpirun", "count every rank of an Open MPI job", cmd_mpirun },
#endif
	{ "help", "this list, or a command's manual page (pctr help stat)",
	  cmd_help },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *f)
{
	fprintf(f, "usage: pctr COMMAND [OPTIONS] [-- PROGRAM [ARGS...]]\n"
		   "       pctr --version\n\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\n'pctr COMMAND --help' lists its options, 'pctr help "
		   "COMMAND' shows its manual page.\n");
}

static const struct command *
find(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "pctr: unknown command 'stta' (did you mean 'stat'?)", status 2 */
static int
unknown(const char *name)
{
	const struct command *best = NULL;
	size_t d, min = strlen(name) / 3 + 1;

	for (size_t i = 0; i < NR_COMMANDS; i++) {
		d = pctr__text_distance(name, commands[i].name);
		/* "prof": the start of one command's name */
		if (strlen(name) > 1 &&
		    !strncmp(name, commands[i].name, strlen(name)))
			d = 1;
		if (d <= min) {
			min = d;
			best = &commands[i];
		}
	}
	if (best)
		fprintf(stderr, "pctr: unknown command '%s' (did you mean "
				"'%s'?)\n", name, best->name);
	else
		fprintf(stderr, "pctr: unknown command '%s'\n", name);
	fprintf(stderr, "Try 'pctr help'.\n");
	return EXIT_USAGE;
}

/* man pctr-CMD; 0 when it showed the page (its own complaint hidden) */
static int
show_man(const char *name)
{
	char page[64];
	int status;
	pid_t pid;

	snprintf(page, sizeof(page), "pctr-%s", name);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(127);
		execlp("man", "man", page, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * pctr help: the list of commands; pctr help CMD: its manual page, as
 * perf help does, or where no page is installed (or no man(1)), its
 * options from CMD --help.
 */
static int
cmd_help(int argc, char **argv)
{
	const struct command *c;
	char *help[] = { NULL, "--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "pctr help: one command at a time\n");
		return EXIT_USAGE;
	}
	c = find(argv[1]);
	if (!c)
		return unknown(argv[1]);
	if (show_man(c->name) == 0)
		return 0;
	help[0] = (char *)c->name;
	return c->run(2, help);
}

static int
run(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-l"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("pctr %s\n", pctr_version());
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	c = find(argv[1]);
	return c ? c->run(argc - 1, argv + 1) : unknown(argv[1]);
}

/* a report that did not reach standard output is a failure too */
int
main(int argc, char **argv)
{
	int r;

	out_stdout_init();
	r = run(argc, argv);
	if (out_close(stdout) < 0 && r == 0)
		r = 1;
	return r;
}
