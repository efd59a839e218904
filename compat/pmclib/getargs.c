/* SPDX-License-Identifier: MIT */
/*
 * getargs.c - pmc_getargs(): pmc_lib's command line.
 *
 *   --events a,b  --e a,b   one pair of events: Pentium Pro event codes
 *                           (192, 0xc0) or libpctr event names
 *   -group n  -g n          a predefined list of pairs (see groups[])
 *   -input file             a list of pairs, one per line, # comments
 *   -Stats n                report detail: 0 totals, 1 statistics,
 *                           2 also events per cycle and ratios
 *   -Clean n                overhead calibration rounds
 *   --user, --os, --duration, --mesi, --bus_agent, --compare, --invert,
 *   --MMX, --Enable, --PC, --APIC   "v" or "v0,v1": the counter controls
 *
 * Every option is accepted with one dash or two.  The options are removed
 * from the arguments, and so is the program name: argv[0] is then the
 * first remaining argument, as menu8.c expects.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmclib.h"

pmc_control_t *pmc__ctl;

PMC_EXPORT const pmc_control_t pmc_control_null = {
	.group = -1,
	.options = {
		.user = { 1, 1 },
		.os = { 1, 1 },
		.mesi = { 0xf, 0xf },
		.bus_agent = { 1, 1 },
		.mmx = { 0x3f, 0x3f },
		.enable = { 1, 1 },
		.pc = { 1, 1 },
	},
};

/*
 * -group n.  Group 0 is software events, counted on every Linux machine;
 * group 1 the generic hardware events; group 2 Pentium Pro event codes.
 */
static const char *const groups[][5] = {
	{ "task-clock,page-faults", "cpu-clock,context-switches", NULL },
	{ "instructions,cycles", "branches,branch-misses",
	  "cache-references,cache-misses", NULL },
	{ "192,194", "67,5", "121,192", "196,197", NULL },
};

struct option_field {
	const char *name;
	size_t offset; /* in pmc_options_t */
	unsigned int max;
};

#define FIELD(n, f, m) { n, offsetof(pmc_options_t, f), m }

static const struct option_field fields[] = {
	FIELD("user", user, 1),
	FIELD("os", os, 1),
	FIELD("duration", duration, 1),
	FIELD("mesi", mesi, 0xf),
	FIELD("bus_agent", bus_agent, 1),
	FIELD("compare", compare, 0xff),
	FIELD("invert", invert, 1),
	FIELD("MMX", mmx, 0x3f),
	FIELD("Enable", enable, 1),
	FIELD("PC", pc, 1),
	FIELD("APIC", apic, 1),
};

static void
usage(FILE *err, const char *prog)
{
	fprintf(err,
		"usage: %s [--events e0,e1 | -group n | -input file] "
		"[-Stats n] [-Clean n]\n"
		"\t[--user u0,u1] [--os o0,o1] [--duration d0,d1] "
		"[--mesi m0,m1]\n"
		"\t[--bus_agent b0,b1] [--compare c0,c1] [--invert i0,i1] "
		"[--MMX x0,x1]\n"
		"\t[--Enable e0,e1] [--PC p0,p1] [--APIC a0,a1] [args...]\n"
		"events: Pentium Pro event numbers (192, 0xc0) or event "
		"names (task-clock, instructions:u)\n",
		prog);
}

static int
parse_uint(const char *s, unsigned int max, unsigned int *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 0);
	if (!*s || *s == '-' || end == s || *end || errno || n > max)
		return -1;
	*v = (unsigned int)n;
	return 0;
}

/* "v" or "v0,v1" */
static int
parse_pair(const char *s, unsigned int max, unsigned int v[2])
{
	char buf[64];
	char *comma;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	comma = strchr(buf, ',');
	if (!comma)
		return parse_uint(buf, max, &v[0]) ? -1
						   : parse_uint(buf, max, &v[1]);
	*comma = '\0';
	return parse_uint(buf, max, &v[0]) || parse_uint(comma + 1, max, &v[1])
		       ? -1
		       : 0;
}

/* split "a,b" into two events; commas inside "pmu/.../" belong to them */
static int
split_pair(const char *s, char ev[2][PMC_NAME_MAX])
{
	int in_pmu = 0, n = 0;
	size_t len = 0;

	ev[0][0] = ev[1][0] = '\0';
	for (; *s; s++) {
		if (*s == '/')
			in_pmu = !in_pmu;
		if (*s == ',' && !in_pmu) {
			if (++n > 1)
				return -1;
			len = 0;
			continue;
		}
		if (len + 1 >= PMC_NAME_MAX)
			return -1;
		ev[n][len++] = *s;
		ev[n][len] = '\0';
	}
	return 0;
}

/* the unit mask an option gives the event @code on counter @i */
static unsigned int
unit_mask(const pmc_options_t *o, unsigned int code, int i)
{
	const struct pmc_p6_event *e = pmc__p6_event(code);

	switch (e ? e->umask : PMC_UMASK_NONE) {
	case PMC_UMASK_MESI:
		return o->mesi[i];
	case PMC_UMASK_BUS:
		return o->bus_agent[i] ? 0 : 0x20; /* 0x20: every agent */
	case PMC_UMASK_MMX:
		return o->mmx[i];
	default:
		return 0;
	}
}

/* the PerfEvtSel flags the options give counter @i */
static unsigned int
control_bits(const pmc_options_t *o, int i)
{
	return (o->user[i] ? PCTR_FN_USR : 0) | (o->os[i] ? PCTR_FN_OS : 0) |
	       (o->duration[i] ? PCTR_FN_EDGE : 0) |
	       (o->pc[i] ? PMC_FN_PC : 0) | (o->apic[i] ? PMC_FN_INT : 0) |
	       (o->enable[i] ? PCTR_FN_EN : 0) |
	       (o->invert[i] ? PCTR_FN_INV : 0) | o->compare[i] << 24;
}

static int
make_selector(pmc_control_t *ctl, const char *pair, pmc_selector_t *sel)
{
	char ev[2][PMC_NAME_MAX];

	memset(sel, 0, sizeof(*sel));
	if (split_pair(pair, ev) < 0 || (*pair && !ev[0][0] && !ev[1][0])) {
		fprintf(ctl->err, "%s: bad pair of events '%s'\n",
			ctl->progname, pair);
		return -1;
	}
	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		struct pctr_event pe = { .size = sizeof(pe) };
		unsigned int code;
		int r;

		if (!ev[i][0])
			continue;
		sel->fn[i] = control_bits(&ctl->options, i);
		if (parse_uint(ev[i], 0xff, &code) == 0 && code)
			sel->fn[i] |= code |
				      unit_mask(&ctl->options, code, i) << 8;
		else
			strcpy(sel->name[i], ev[i]);
		r = pmc__event(sel, i, &pe);
		if (r < 0 && r != -ENODEV) {
			fprintf(ctl->err, "%s: event '%s': %s\n",
				ctl->progname, ev[i], pctr_strerror(r));
			return -1;
		}
	}
	return 0;
}

static int
add_counter(pmc_control_t *ctl, const char *pair)
{
	pmc_counter_t *c;
	pmc_selector_t sel;

	if (make_selector(ctl, pair, &sel) < 0)
		return -1;
	c = realloc(ctl->counters, (ctl->ncounters + 1) * sizeof(*c));
	if (!c)
		return -1;
	ctl->counters = c;
	c += ctl->ncounters;
	memset(c, 0, sizeof(*c));
	c->selector = sel;
	c->clean = ctl->clean;
	if (pctr_stats_new(&c->stats, PMC_NCOUNTERS, 0) < 0)
		return -1;
	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		char label[PMC_NAME_MAX + 32];

		pmc__event_label(&sel, i, label, sizeof(label));
		pctr_stats_name_set(c->stats, i, label);
	}
	ctl->ncounters++;
	return 0;
}

static int
read_input(pmc_control_t *ctl)
{
	FILE *f = fopen(ctl->input, "re");
	char line[256];
	int r = 0, n = 0;

	if (!f) {
		fprintf(ctl->err, "%s: -input %s: %s\n", ctl->progname,
			ctl->input, strerror(errno));
		return -1;
	}
	while (r == 0 && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");

		p[strcspn(p, "#\r\n")] = '\0';
		for (char *e = p + strlen(p); e > p && (e[-1] == ' ' ||
							e[-1] == '\t');)
			*--e = '\0';
		if (*p) {
			r = add_counter(ctl, p);
			n++;
		}
	}
	fclose(f);
	if (r == 0 && n == 0) {
		fprintf(ctl->err, "%s: -input %s: no pair of events\n",
			ctl->progname, ctl->input);
		r = -1;
	}
	return r;
}

static const struct option_field *
find_field(const char *name)
{
	for (size_t i = 0; i < PMC_ARRAY_SIZE(fields); i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

/* one option and its value; 0, or -1 after saying what is wrong */
static int
option(pmc_control_t *ctl, const char *name, const char *val,
       const char **events)
{
	const struct option_field *f = find_field(name);
	unsigned int v;

	if (f)
		return parse_pair(val, f->max,
				  (unsigned int *)((char *)&ctl->options +
						   f->offset));
	if (!strcmp(name, "events") || !strcmp(name, "e")) {
		*events = val;
		return 0;
	}
	if (parse_uint(val, 1000000000, &v) < 0)
		return -1;
	if (!strcmp(name, "g") || !strcmp(name, "group")) {
		if (v >= PMC_ARRAY_SIZE(groups))
			return -1;
		ctl->group = (int)v;
	} else if (!strcmp(name, "Stats")) {
		ctl->stats = (int)v;
	} else if (!strcmp(name, "Clean")) {
		ctl->clean = (int)v;
	} else {
		return -1;
	}
	return 0;
}

static int
takes_value(const char *name)
{
	return find_field(name) || !strcmp(name, "events") ||
	       !strcmp(name, "e") || !strcmp(name, "g") ||
	       !strcmp(name, "group") || !strcmp(name, "input") ||
	       !strcmp(name, "Stats") || !strcmp(name, "Clean");
}

static int
build_counters(pmc_control_t *ctl, const char *events)
{
	if (events)
		return add_counter(ctl, events);
	if (ctl->input)
		return read_input(ctl);
	if (ctl->group >= 0) {
		for (int i = 0; groups[ctl->group][i]; i++)
			if (add_counter(ctl, groups[ctl->group][i]) < 0)
				return -1;
		return 0;
	}
	return add_counter(ctl, ""); /* cycles only */
}

/*
 * The counters live as long as the program, as in the original; the
 * library keeps every array it hands out, so that none is lost.
 */
static pmc_counter_t **owned;
static int nr_owned;

static int
keep(pmc_counter_t *counters)
{
	pmc_counter_t **o = realloc(owned, (nr_owned + 1) * sizeof(*o));

	if (!o)
		return -1;
	owned = o;
	owned[nr_owned++] = counters;
	return 0;
}

static void
drop(pmc_control_t *ctl)
{
	for (int c = 0; c < ctl->ncounters; c++)
		pctr_stats_free(ctl->counters[c].stats);
	free(ctl->counters);
	ctl->counters = NULL;
	ctl->ncounters = 0;
}

PMC_EXPORT int
pmc_getargs(FILE *err, char *progname, int *argc, char ***argv,
	    pmc_control_t *ctl)
{
	char **av = *argv, **out = *argv + 1;
	const char *events = NULL;
	int n = 0;

	ctl->err = err ? err : stderr;
	ctl->progname = progname;
	ctl->counters = NULL; /* a new array, whatever the control held */
	ctl->ncounters = 0;
	for (int i = 1; i < *argc; i++) {
		const char *name = av[i] + strspn(av[i], "-");

		if (av[i][0] != '-' || !takes_value(name)) {
			if (av[i][0] == '-' && av[i][1]) {
				fprintf(ctl->err, "%s: unknown option %s\n",
					progname, av[i]);
				usage(ctl->err, progname);
				return FALSE;
			}
			out[n++] = av[i];
			continue;
		}
		if (i + 1 >= *argc) {
			fprintf(ctl->err, "%s: %s needs a value\n", progname,
				av[i]);
			usage(ctl->err, progname);
			return FALSE;
		}
		if (!strcmp(name, "input"))
			ctl->input = av[i + 1];
		else if (option(ctl, name, av[i + 1], &events) < 0) {
			fprintf(ctl->err, "%s: bad value for %s: %s\n",
				progname, av[i], av[i + 1]);
			usage(ctl->err, progname);
			return FALSE;
		}
		i++;
	}
	if (build_counters(ctl, events) < 0 || keep(ctl->counters) < 0) {
		drop(ctl);
		return FALSE;
	}
	out[n] = NULL;
	*argc = n;
	*argv = out;
	pmc__ctl = ctl;
	return TRUE;
}
