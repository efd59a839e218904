/* SPDX-License-Identifier: MIT */
/* cmd_profile.c - pctr profile (being written). */
#include <stdio.h>

#include "pctr.h"

int
cmd_profile(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pctr profile: not available yet\n");
	return EXIT_USAGE;
}
