/* SPDX-License-Identifier: MIT */
/*
 * pmclib.h - pmc_lib internals: the Pentium Pro event table, the state
 * shared by pmc.c, getargs.c and report.c.  Over libpctr's public API.
 */
#ifndef PMCLIB_H
#define PMCLIB_H

#include <pctr.h>
#include <pmc_lib.h>

#define PMC_EXPORT __attribute__((visibility("default")))
#define PMC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* the P6 PerfEvtSel bits the options set */
#define PMC_FN_PC 0x00080000u /* pin control */
#define PMC_FN_INT 0x00100000u /* APIC interrupt on overflow */

/* which option gives an event's unit mask */
enum pmc_umask {
	PMC_UMASK_NONE,
	PMC_UMASK_MESI, /* --mesi: cache line states */
	PMC_UMASK_BUS, /* --bus_agent: this processor or every agent */
	PMC_UMASK_MMX, /* --MMX: instruction types */
};

struct pmc_p6_event {
	unsigned int code;
	const char *name;
	const char *unit;
	const char *desc;
	enum pmc_umask umask;
};

/* the Pentium Pro/II/III event of @code, or NULL */
const struct pmc_p6_event *pmc__p6_event(unsigned int code);

/* the control pmc_getargs() filled last, for pmc_open() */
extern pmc_control_t *pmc__ctl;

/*
 * The libpctr event behind counter @i of @sel: 0, 1 if the counter is
 * unused or disabled, or a negative errno.
 */
int pmc__event(const pmc_selector_t *sel, int i, struct pctr_event *ev);

/* name of event @i of @sel for reports: "0xc0 192 inst_retired" */
void pmc__event_label(const pmc_selector_t *sel, int i, char *buf,
		      size_t len);

#endif
