/* SPDX-License-Identifier: MIT */
/*
 * repro_newlocale_locpath_leak - glibc's newlocale() keeps no hold of,
 * and never frees, its copy of LOCPATH: each call that looks a locale up
 * through LOCPATH leaks strlen(LOCPATH) + 1 bytes (Debian 12's glibc 2.36;
 * setlocale() frees its copy).  The pctr command makes one numeric locale
 * with newlocale() for its text (tools/output.c), and the tests that run
 * it in a German locale built into a directory of their own set LOCPATH
 * (tests/locale_de.h): LeakSanitizer reports those bytes, and
 * tests/lsan.supp suppresses exactly that allocation (__argz_add_sep).
 *
 * Here: 100 newlocale()/freelocale() pairs of de_DE.UTF-8 through
 * LOCPATH, and 100 of C.UTF-8 without it, each measured by mallinfo2()'s
 * bytes in use after a first pair (which loads the locale's data, kept).  Passes while the first grows by 100 copies of LOCPATH
 * (malloc's chunk sizes) and the second not at all.  Run by the normal build only: under
 * AddressSanitizer mallinfo2() reports nothing.
 *
 * As seen: glibc's newlocale() never frees its copy of LOCPATH: 100
 * newlocale()/freelocale() pairs of a locale found through LOCPATH leave
 * 6480 bytes more in use (Debian 12, glibc 2.36), 100 pairs without it 0.
 * Not the kernel's, but a leak the tests would otherwise blame on pctr;
 * normal build only (mallinfo2() is empty under AddressSanitizer).  Relied
 * on by tests/lsan.supp (leak:__argz_add_sep), for the tests that run pctr
 * in a German locale built for them (tests/locale_de.h).
 */
#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIRS 100

/* bytes more in use after @n pairs of @name */
static long
grown(const char *name, int n)
{
	size_t before = mallinfo2().uordblks;

	for (int i = 0; i < n; i++) {
		locale_t l = newlocale(LC_NUMERIC_MASK, name, (locale_t)0);

		if (!l)
			return -1;
		freelocale(l);
	}
	return (long)(mallinfo2().uordblks - before);
}

int
main(void)
{
	char dir[] = "/tmp/repro-locale-XXXXXX", cmd[256];
	long with, without, copy;

	printf("1..1\n");
	if (!mkdtemp(dir))
		return 1;
	snprintf(cmd, sizeof(cmd),
		 "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1",
		 dir);
	if (system(cmd) != 0) {
		printf("not ok 1 - localedef (the locales package)\n");
		return 1;
	}
	/* a first pair loads the locale's data, which glibc keeps */
	grown("C.UTF-8", 1);
	without = grown("C.UTF-8", PAIRS);
	setenv("LOCPATH", dir, 1);
	grown("de_DE.UTF-8", 1);
	with = grown("de_DE.UTF-8", PAIRS);
	copy = (long)strlen(dir) + 1;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
	printf("# %d pairs: through LOCPATH %ld bytes more in use (%ld per "
	       "pair, malloc's chunks; LOCPATH is %ld bytes), without it "
	       "%ld\n",
	       PAIRS, with, with / PAIRS, copy, without);
	printf("%s 1 - newlocale() leaks its copy of LOCPATH\n",
	       with >= PAIRS * copy && without == 0 ? "ok" : "not ok");
	return with >= PAIRS * copy && without == 0 ? 0 : 1;
}
