/* SPDX-License-Identifier: MIT */
/*
 * pctr - count CPU events for a command, a process or whole CPUs.
 *
 *   pctr list [PATTERN]          events this machine can count
 *   pctr stat [OPTIONS] -- CMD   count a command (or -p PID, -a)
 *   pctr info                    what this machine offers, and why
 *   pctr profile -- CMD          where the samples fall
 *   pctr record -- CMD           the samples into perf.data
 *   pctr report [-i FILE]        where a recording's samples fall
 *   pctr script [-i FILE]        a recording's samples, as perf script's
 *   pctr merge FILE...           reports of many runs or hosts as one
 *   pctr mpirun -n N -- CMD      count every rank of an Open MPI job
 */
#include <stdio.h>
#include <string.h>

#include "tool.h"
#include "util.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: pctr list [PATTERN] [--json]\n"
		   "       pctr stat [-e EVENTS] [-r N] [-I MS] [-p PID | -t TID | "
		   "-a [-C CPUS]] [--json | -x SEP] [-o FILE] [-- COMMAND ...]\n"
		   "       pctr info [--json]\n"
		   "       pctr profile [-e EVENT] [-c PERIOD | -F HZ] [-g] "
		   "[-p PID | -t TID | -a [-C CPUS]] [--json | --folded] "
		   "[-- COMMAND ...]\n"
		   "       pctr record [-e EVENT] [-c PERIOD | -F HZ] "
		   "[-g | --call-graph fp|dwarf] [-o FILE] [-- COMMAND ...]\n"
		   "       pctr report [-i FILE] [--json | --folded] "
		   "[--svg FILE]\n"
		   "       pctr script [-i FILE]\n"
#ifdef PCTR_MPI
		   "       pctr merge [--json] [--per-rank] FILE...\n"
		   "       pctr mpirun [-n N] [--host LIST | --hostfile FILE] "
		   "[--oversubscribe] [--mpirun-arg ARG]... [-e EVENTS] "
		   "[--per-rank] [--json] -- PROGRAM ...\n"
#endif
		   "       pctr --version\n");
}

static int
run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "list") || !strcmp(argv[1], "-l"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(argv[1], "profile"))
		return cmd_profile(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "script"))
		return cmd_script(argc - 1, argv + 1);
#ifdef PCTR_MPI /* not in the static command of tests/hw */
	if (!strcmp(argv[1], "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (!strcmp(argv[1], "mpirun"))
		return cmd_mpirun(argc - 1, argv + 1);
#endif
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("pctr %s\n", pctr_version());
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "pctr: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
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
