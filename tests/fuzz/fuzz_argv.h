/* SPDX-License-Identifier: MIT */
/* fuzz_argv.h - turn a fuzz input into a command line, one argument a line. */
#ifndef PCTR_FUZZ_ARGV_H
#define PCTR_FUZZ_ARGV_H

#include "fuzz.h"

#define FUZZ_MAX_ARGS 32

/*
 * Split @text (modified) at newlines into argv[1..], argv[0] = @prog.
 * Return argc.  Arguments for which @drop returns 1 are left out.
 */
static inline int
fuzz_argv(char *text, char *prog, char **argv, int (*drop)(const char *))
{
	int argc = 1;

	argv[0] = prog;
	for (char *p = text; p && argc < FUZZ_MAX_ARGS;) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		if (!drop || !drop(p))
			argv[argc++] = p;
		p = nl ? nl + 1 : NULL;
	}
	argv[argc] = NULL;
	return argc;
}

#endif
