/* SPDX-License-Identifier: MIT */
/*
 * marker_off.c - <pctr_marker.h> without -DPCTR_ENABLE: the markers are
 * nothing.  This program is linked without libpctr (a call would not
 * link), does not see <pctr.h>, and the region names are not evaluated.
 */
#include <pctr_marker.h>
#include <stdio.h>

#ifdef PCTR_H
#error "<pctr_marker.h> includes <pctr.h> without PCTR_ENABLE"
#endif

static int calls;

static const char *
name(void)
{
	calls++;
	return "never";
}

int
main(void)
{
	PCTR_MARKER_INIT();
	PCTR_REGION_BEGIN(name());
	PCTR_REGION_END(name());
	PCTR_MARKER_FLUSH();
	printf("1..1\n%s - the markers do nothing\n", calls ? "not ok" : "ok");
	return calls != 0;
}
