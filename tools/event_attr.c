/* SPDX-License-Identifier: MIT */
/*
 * event_attr.c - an event's perf_event_attr as perf stat -vv prints it: a
 * field a line, only those that are set, in the kernel header's order, so
 * that the two can be compared line for line.  What an event asks for
 * (pctr_event_attr()); the read format, inherit and the like are the
 * set's, chosen when it opens.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>

#include "util.h"

#define RULE "------------------------------------------------------------\n"

static void
field(FILE *f, const char *name, uint64_t v, bool hex)
{
	if (!v)
		return;
	if (hex)
		fprintf(f, "  %-32s %#" PRIx64 "\n", name, v);
	else
		fprintf(f, "  %-32s %" PRIu64 "\n", name, v);
}

static void
print_attr(FILE *f, const struct perf_event_attr *a)
{
	bool bp = a->type == PERF_TYPE_BREAKPOINT;

	fprintf(f, RULE "perf_event_attr:\n");
	field(f, "type", a->type, false);
	field(f, "size", a->size, false);
	field(f, "config", a->config, true);
	field(f, "pinned", a->pinned, false);
	field(f, "exclusive", a->exclusive, false);
	field(f, "exclude_user", a->exclude_user, false);
	field(f, "exclude_kernel", a->exclude_kernel, false);
	field(f, "exclude_hv", a->exclude_hv, false);
	field(f, "exclude_idle", a->exclude_idle, false);
	field(f, "precise_ip", a->precise_ip, false);
	field(f, "exclude_host", a->exclude_host, false);
	field(f, "exclude_guest", a->exclude_guest, false);
	field(f, "bp_type", a->bp_type, false);
	field(f, bp ? "{ bp_addr, config1 }" : "config1", a->config1, true);
	field(f, bp ? "{ bp_len, config2 }" : "config2", a->config2, true);
	fputs(RULE, f);
}

/*
 * @ev's attr, each part of a hybrid event (its PMU's type in the upper
 * half of config, PERF_PMU_TYPE_SHIFT), under a line naming the event.
 * Return: 0, or the -errno of pctr_event_attr().
 */
int
event_attr_print(FILE *f, const struct pctr_event *ev)
{
	struct perf_event_attr a;
	int r = pctr_event_attr(ev, &a, sizeof(a));

	if (r < 0)
		return r;
	for (unsigned int i = 0; i < ev->nr_parts; i++) {
		if (i)
			a.config = (a.config & 0xffffffffu) |
				   (uint64_t)ev->part_type[i] << 32;
		if (ev->nr_parts > 1)
			fprintf(f, "%s (PMU type %u):\n", ev->name,
				ev->part_type[i]);
		else
			fprintf(f, "%s:\n", ev->name);
		print_attr(f, &a);
	}
	return 0;
}
