/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tool_stat_options.c - the option parsing of "pctr stat" (getopt
 * plus range-checked numbers, CPU lists, event lists): tools/stat_options.c,
 * linked as the command links it.  Only the parsing runs: nothing is counted and
 * no command is started.  "-h" would print the help and exit, so options
 * that could mean it are left out.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_argv.h"
#include "cmd_stat.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tool_set_name("pctr stat");
	return 0;
}

static int
means_help(const char *arg)
{
	const char *eq;
	size_t n;

	if (!strncmp(arg, "--", 2)) {
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		return n > 2 && !strncmp(arg, "--help", n);
	}
	return arg[0] == '-' && strchr(arg, 'h');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size, 2048), *argv[FUZZ_MAX_ARGS + 1];
	struct stat_ctx c;
	int argc = fuzz_argv(text, "stat", argv, means_help);

	/* a fresh getopt: glibc keeps a pointer into the last argv */
	optind = 0;
	getopt(1, (char *[]){ "x", NULL }, "");
	memset(&c, 0, sizeof(c));
	c.repeat = 1;
	c.rep.multiplex = true;
	c.ctl_fd = -1;
	c.ack_fd = -1;
	c.log_fd = -1;
	c.out = stdout;
	stat_parse_options(&c, argc, argv);
	free(c.events);
	free((void *)c.rep.cpus);
	free(text);
	return 0;
}
