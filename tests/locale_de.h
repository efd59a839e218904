/* SPDX-License-Identifier: MIT */
/*
 * locale_de.h - a German locale for tests of numbers in text (radix ',',
 * groups of three joined by '.') against JSON and CSV (always C).  Built
 * with localedef from the locales package into a directory of its own and
 * found through LOCPATH, so that no system locale need be generated.
 */
#ifndef PCTR_TEST_LOCALE_DE_H
#define PCTR_TEST_LOCALE_DE_H

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

#define LOCALE_DE "de_DE.UTF-8"

/* LOCPATH set to a directory holding de_DE.UTF-8 (made once per process) */
static inline void
locale_de_path(void)
{
	static char dir[] = "/tmp/pctr-locale-XXXXXX";
	char cmd[256];

	if (getenv("LOCPATH"))
		return;
	ASSERT(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof(cmd),
		 "localedef -i de_DE -f UTF-8 %s/" LOCALE_DE " 2>&1", dir);
	if (system(cmd) != 0)
		TEST_FAIL("localedef could not build " LOCALE_DE " (the "
			  "locales package, scripts/deps.sh)");
	setenv("LOCPATH", dir, 1);
}

#endif
