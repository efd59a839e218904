/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pmc_getargs.c - pmc_lib's pmc_getargs(): its options (one argument
 * a line) or, when the input starts with '@', the -input file's content
 * (the rest of the input), written to a private file first.  -input given
 * on the command line is left out: it would read any file named.
 */
#include <pctr.h>
#include <pmc_lib.h>
#include <unistd.h>

#include "fuzz_argv.h"

static char input_path[256];
static FILE *devnull;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(input_path, sizeof(input_path), "/tmp/pctr-fuzz-pmc.%d",
		 (int)getpid());
	devnull = fopen("/dev/null", "w");
	return 0;
}

static int
names_input(const char *arg)
{
	return arg[0] == '-' && !strcmp(arg + strspn(arg, "-"), "input");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size, 4096), *argv[FUZZ_MAX_ARGS + 3];
	char **av = argv;
	pmc_control_t ctl = pmc_control_null;
	int argc;

	if (text[0] == '@') {
		FILE *f = fopen(input_path, "w");

		if (!f)
			abort();
		fputs(text + 1, f);
		fclose(f);
		argv[0] = "menu8";
		argv[1] = "-input";
		argv[2] = input_path;
		argv[3] = NULL;
		argc = 3;
	} else {
		argc = fuzz_argv(text, "menu8", argv, names_input);
	}
	if (pmc_getargs(devnull, "menu8", &argc, &av, &ctl)) {
		if (argc < 0 || (ctl.ncounters > 0 && !ctl.counters))
			abort();
		for (int i = 0; i < argc; i++)
			if (!av[i])
				abort();
	}
	/* pmc_lib has no call to free them: programs exit */
	for (int i = 0; i < ctl.ncounters; i++)
		pctr_stats_free(ctl.counters[i].stats);
	free(ctl.counters);
	unlink(input_path);
	free(text);
	return 0;
}
