/* SPDX-License-Identifier: MIT */
/*
 * metrics.c - the built-in derived metrics, as pctr(1) documents them.
 *
 * A metric is shown when both of its events were counted (or, for a rate
 * over time, its numerator): by default every metric whose inputs happen
 * to be among the events, with -M only those named, whose inputs -M adds.
 * The events are matched by kind and configuration, not by name, so
 * "cycles" and "cpu-cycles" are one input.  The top-down metrics are the
 * kernel's own on Intel CPUs that have them (Ice Lake and later: a slots
 * counter and the PERF_METRICS fractions, read as topdown-* events of the
 * cpu PMU in one group led by slots); elsewhere their events do not parse
 * and the metrics say so.
 */
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "util.h"

#define TOPDOWN(name, ev, desc)                                              \
	{ name, desc, "cpu/" ev "/", "cpu/slots/",                         \
	  "{cpu/slots/,cpu/" ev "/}",                                       \
	  "Intel CPUs with top-down events (Ice Lake and later)" }

const struct metric metric_table[] = {
	{ "ipc", "instructions per cycle", "instructions", "cycles",
	  "instructions,cycles", "a hardware PMU" },
	{ "ghz", "GHz (cycles per ns of task-clock)", "cycles", "task-clock",
	  "cycles,task-clock", "a hardware PMU" },
	{ "cpus_utilized", "CPUs utilized", "task-clock", NULL, "task-clock",
	  "every machine" },
	{ "branch_miss_ratio", "branch misses per branch", "branch-misses",
	  "branches", "branch-misses,branches", "a hardware PMU" },
	{ "cache_miss_ratio", "cache misses per reference", "cache-misses",
	  "cache-references", "cache-misses,cache-references",
	  "a hardware PMU" },
	{ "l1d_miss_ratio", "L1 data load misses per load",
	  "L1-dcache-load-misses", "L1-dcache-loads",
	  "L1-dcache-load-misses,L1-dcache-loads",
	  "a hardware PMU with L1 data cache events" },
	TOPDOWN("frontend_bound", "topdown-fe-bound",
		"slots lost to the front end"),
	TOPDOWN("backend_bound", "topdown-be-bound",
		"slots lost to the back end"),
	TOPDOWN("bad_speculation", "topdown-bad-spec",
		"slots lost to bad speculation"),
	TOPDOWN("retiring", "topdown-retiring", "slots retiring"),
};

const int metric_count = sizeof(metric_table) / sizeof(metric_table[0]);

int
metric_find(const char *name)
{
	for (int i = 0; i < metric_count; i++)
		if (!strcmp(metric_table[i].name, name))
			return i;
	return -1;
}

static void
unknown(const char *name)
{
	char known[512] = "";

	for (int i = 0; i < metric_count; i++) {
		strncat(known, i ? ", " : "", sizeof(known) - strlen(known) - 1);
		strncat(known, metric_table[i].name,
			sizeof(known) - strlen(known) - 1);
	}
	tool_err("-M: no metric '%s' (known: %s; 'pctr list metrics')", name,
		 known);
}

int
metric_parse(const char *list, unsigned int *mask)
{
	char name[64];
	const char *p = list;

	do {
		size_t n = strcspn(p, ",");
		int i;

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		i = metric_find(name);
		if (i < 0) {
			unknown(name);
			return -1;
		}
		*mask |= 1u << i;
		p += n;
	} while (*p++ == ',');
	return 0;
}

/*
 * A metric's input, parsed once per process: every report asks which
 * metrics apply, and an input that does not parse here (a cpu/.../ event
 * without a PMU) costs a lookup in sysfs each time.  Known by their text,
 * so a caller's own copy of a spec is answered right too.
 */
bool
metric_event(const char *spec, struct pctr_event *ev)
{
	static struct parsed {
		char spec[64];
		bool ok;
		struct pctr_event ev;
	} parsed[2 * sizeof(metric_table) / sizeof(metric_table[0])];
	static int nr_parsed;
	struct parsed *p = parsed, one = { .ok = false };

	while (p < parsed + nr_parsed && strcmp(p->spec, spec))
		p++;
	if (p == parsed + nr_parsed) {
		one.ev.size = sizeof(one.ev);
		one.ok = pctr_event_parse(spec, &one.ev) == 0;
		p = &one; /* kept if there is room and the text fits */
		if (nr_parsed < (int)(sizeof(parsed) / sizeof(parsed[0])) &&
		    strlen(spec) < sizeof(one.spec)) {
			p = &parsed[nr_parsed++];
			*p = one;
			strcpy(p->spec, spec);
		}
	}
	*ev = p->ev;
	return p->ok;
}
