/* SPDX-License-Identifier: MIT */
/*
 * pctr_marker.h - marker macros for instrumenting code with regions that
 * compile to nothing unless enabled, as LIKWID's markers are used:
 *
 *	#include <pctr_marker.h>
 *
 *	PCTR_MARKER_INIT();
 *	PCTR_REGION_BEGIN("solve");
 *	solve();
 *	PCTR_REGION_END("solve");
 *
 * Built with -DPCTR_ENABLE (and linked with -lpctr), the macros call
 * pctr_region_init(), pctr_region_begin(), pctr_region_end() and
 * pctr_region_flush() (see pctr_region(3)); what is measured and where the
 * report goes is then up to $PCTR_EVENTS and $PCTR_REPORT.  Without it
 * they expand to expressions that do nothing: no call, no symbol of the
 * library, and the name is not evaluated (it stays inside sizeof), so a
 * program need not link libpctr.  Each macro is an expression of type
 * void either way, usable wherever a function call is.
 */
#ifndef PCTR_MARKER_H
#define PCTR_MARKER_H

#ifdef PCTR_ENABLE

#include <pctr.h>

#define PCTR_MARKER_INIT() ((void)pctr_region_init(NULL))
#define PCTR_REGION_BEGIN(name) ((void)pctr_region_begin(name))
#define PCTR_REGION_END(name) ((void)pctr_region_end(name))
/* a thread's regions into the report before it goes on without them */
#define PCTR_MARKER_FLUSH() ((void)pctr_region_flush())

#else

#define PCTR_MARKER_INIT() ((void)0)
#define PCTR_REGION_BEGIN(name) ((void)sizeof(name))
#define PCTR_REGION_END(name) ((void)sizeof(name))
#define PCTR_MARKER_FLUSH() ((void)0)

#endif

#endif
