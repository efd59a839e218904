/* SPDX-License-Identifier: MIT */
/*
 * header_iso.c - <pctr.h> and <pctr_marker.h> in strict ISO C: built with
 * -std=c99 and with -std=c11, -pedantic-errors, no feature macro (and as
 * C++ from header_iso.cpp).  It counts its own page faults through a set
 * and through a marked region, so the declarations it sees are the ones
 * that link and work.  Plain ISO C: no tests/test.h (which uses GNU C).
 */
#include <errno.h>
#include <pctr.h>
#include <pctr_marker.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGES 64

static int failed;

static void
check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	failed |= !ok;
}

/* PAGES fresh pages of 4 KiB or more: at least PAGES page faults */
static void
touch(void)
{
	char *p = (char *)malloc((size_t)PAGES * 65536);
	size_t i;

	if (!p)
		exit(1);
	for (i = 0; i < (size_t)PAGES * 65536; i += 4096)
		p[i] = 1;
	free(p);
}

int
main(void)
{
	struct pctr_target self = { PCTR_TARGET_THREAD, 0, 0, NULL };
	struct pctr_sample a, b;
	struct pctr_stats *st = NULL;
	struct pctr_summary s;
	struct pctr_set *set;
	int r;

	printf("1..3\n");
	r = pctr_set_new(&set, 0);
	if (r == 0)
		r = pctr_set_add_list(set, "page-faults");
	if (r >= 0)
		r = pctr_set_open(set, &self);
	if (r >= 0)
		r = pctr_set_enable(set);
	if (r >= 0)
		r = pctr_set_read(set, &a);
	touch();
	if (r >= 0)
		r = pctr_set_read(set, &b);
	check(r >= 0 && b.count[0].value - a.count[0].value >= PAGES,
	      "a set counts the page faults");
	pctr_set_free(set);

	/* the markers, enabled here: a region of PAGES faults */
	PCTR_MARKER_INIT();
	PCTR_REGION_BEGIN("marked");
	touch();
	PCTR_REGION_END("marked");
	PCTR_MARKER_FLUSH();
	r = pctr_region_stats("marked", &st);
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	if (r == 0)
		r = pctr_stats_get(st, 0, &s);
	check(r == 0 && s.n == 1 && s.total >= PAGES,
	      "a marked region counts the page faults");
	pctr_stats_free(st);
	check(pctr_strerror(-ENOENT) != NULL, "pctr_strerror");
	return failed;
}
