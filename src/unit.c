/* SPDX-License-Identifier: MIT */
/*
 * unit.c - what an event's count is counted in, and what one count is
 * worth there: the one place that knows it, for the library's reports
 * and the command's (pctr_event_unit(3)).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/*
 * A PMU's named event with a unit or a scale in sysfs first, as perf
 * applies them (whatever the event's modifiers); then the clocks, which
 * count nanoseconds; every other count is a plain number.
 */
static int
unit_of(const char *name, bool clock, char *unit, size_t len, double *scale)
{
	int r = strchr(name, '/') ? pctr__sysfs_unit(name, unit, len, scale)
				  : 0;

	if (r != 0)
		return r < 0 ? r : 0;
	*scale = 1.0;
	if (len)
		snprintf(unit, len, "%s", clock ? "ns" : "");
	return 0;
}

/* a report's event, known by the name it shows: its unit and scale */
int
pctr__name_unit(const char *name, char *unit, size_t len, double *scale)
{
	bool clock = !strncmp(name, "task-clock", 10) ||
		     !strncmp(name, "cpu-clock", 9);

	return unit_of(name, clock, unit, len, scale);
}

PCTR_EXPORT int
pctr_event_unit(const struct pctr_event *ev, char *unit, size_t len,
		double *scale)
{
	bool clock;

	if (!ev || !scale || (!unit && len))
		return pctr__error(EINVAL, "NULL event, unit or scale");
	if (strnlen(ev->name, PCTR_NAME_MAX) == PCTR_NAME_MAX)
		return pctr__error(EINVAL, "event name not NUL-terminated");
	clock = ev->type == PERF_TYPE_SOFTWARE &&
		(ev->config == PERF_COUNT_SW_TASK_CLOCK ||
		 ev->config == PERF_COUNT_SW_CPU_CLOCK);
	return unit_of(ev->name, clock, unit, len, scale);
}
