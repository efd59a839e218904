/* SPDX-License-Identifier: MIT */
/*
 * pmc_lib.h - the Ames Laboratory Performance-Monitoring Counters Library
 * (pmc_lib, Don Heller), on Linux over libpctr.
 *
 * Programs written for pmc_lib build unchanged:
 *
 *	gcc -o menu8 -O `pmc_options` menu8.c -lpmc
 *
 * Events are the Pentium Pro/II/III event codes of the original
 * ("--e 192,194"), which need a hardware PMU, and, as an extension, any
 * libpctr event name ("--e task-clock,page-faults", "--e instructions:u").
 * The "cycles" are timestamp counter ticks.  See pmc_lib-compat(3) for
 * every difference from the original.
 *
 * Not thread-safe: one thread uses the library, as with the original.
 */
#ifndef PCTR_COMPAT_PMC_LIB_H
#define PCTR_COMPAT_PMC_LIB_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

/* counters per pmc_counter_t, as on the Pentium Pro */
#define PMC_NCOUNTERS 2
/* longest event name of the libpctr extension */
#define PMC_NAME_MAX 64

typedef unsigned long long pmc_cycles_t; /* timestamp counter ticks */
typedef unsigned long long pmc_count_t; /* event counts */

/*
 * One reading of the cycle and event counters.  enabled and running are
 * the kernel's times in ns, by which counts are scaled when the kernel had
 * to share the counters.
 */
typedef struct pmclib_data {
	pmc_cycles_t cycles;
	pmc_count_t event[PMC_NCOUNTERS];
	unsigned long long enabled[PMC_NCOUNTERS];
	unsigned long long running[PMC_NCOUNTERS];
} pmc_data_t;

/*
 * What the counter control registers receive.  For an event code, fn[i]
 * is its PerfEvtSel value (event | unit mask << 8 | flags | compare << 24)
 * and name[i] is empty; for a libpctr event, name[i] holds its name.  An
 * unused counter has fn 0 and an empty name.
 */
typedef struct pmclib_selector {
	unsigned int fn[PMC_NCOUNTERS];
	char name[PMC_NCOUNTERS][PMC_NAME_MAX];
} pmc_selector_t;

struct pctr_stats;

/*
 * A pair of events and what pmc_accumulate() gathered about them.  stats
 * holds the intervals (libpctr statistics, pctr_stats(3)); the overhead of
 * pmc_read() is measured at the first pmc_select() when clean > 0.
 */
typedef struct pmclib_counter {
	pmc_selector_t selector;
	int clean; /* -Clean n: calibration rounds, 0 for none */
	int calibrated;
	struct pctr_stats *stats;
} pmc_counter_t;

/* the per-counter options of the command line, as "--user 1,1" */
typedef struct pmclib_options {
	unsigned int user[PMC_NCOUNTERS];
	unsigned int os[PMC_NCOUNTERS];
	unsigned int duration[PMC_NCOUNTERS];
	unsigned int mesi[PMC_NCOUNTERS];
	unsigned int bus_agent[PMC_NCOUNTERS];
	unsigned int compare[PMC_NCOUNTERS];
	unsigned int invert[PMC_NCOUNTERS];
	unsigned int mmx[PMC_NCOUNTERS];
	unsigned int enable[PMC_NCOUNTERS];
	unsigned int pc[PMC_NCOUNTERS];
	unsigned int apic[PMC_NCOUNTERS];
} pmc_options_t;

/*
 * Everything pmc_getargs() read from the command line.  counters[] is
 * allocated there: one entry for --events, one per pair for -group and
 * -input.
 */
typedef struct pmclib_control {
	int ncounters;
	pmc_counter_t *counters;
	int clean; /* -Clean n */
	int stats; /* -Stats n: 0 totals, 1 statistics, 2 rates and ratios */
	int group; /* -group n, -1 if not given */
	const char *input; /* -input file, or NULL */
	pmc_options_t options;
	FILE *err; /* where messages go */
	const char *progname;
} pmc_control_t;

/* a control with nothing selected: "pmc_control_t Ctl = pmc_control_null;" */
extern const pmc_control_t pmc_control_null;

int pmc_getargs(FILE *err, char *progname, int *argc, char ***argv,
		pmc_control_t *ctl);
int pmc_open(int flags);
int pmc_close(void);
void pmc_start(void);
int pmc_select(const pmc_counter_t *counter);
void pmc_read(pmc_data_t *ticks);
pmc_cycles_t pmc_accumulate(pmc_counter_t *counter, pmc_data_t *t1,
			    pmc_data_t *t0);
int pmc_reset(void);
void pmc_print_results(int argc, char *argv[], pmc_control_t *ctl);

/* the frequency of the cycles: timestamp counter ticks per second */
double pmc_cycles_per_second(void);

#ifdef __cplusplus
}
#endif

#endif /* PCTR_COMPAT_PMC_LIB_H */
