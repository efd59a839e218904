/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - pctr stat's derived metrics (-M, pctr list metrics): each a
 * ratio of two counted events, or of one to the elapsed time.
 */
#ifndef PCTR_METRICS_H
#define PCTR_METRICS_H

#include <stdbool.h>

#include <pctr.h>

struct metric {
	const char *name, *desc;
	const char *num, *den; /* event names; den NULL: elapsed time */
	const char *inputs; /* what -M adds to the events, groups included */
	const char *where; /* the machines that have the inputs */
};

#define METRIC_MAX 32

extern const struct metric metric_table[];
extern const int metric_count;

/* the index of metric @name, -1 if there is none */
int metric_find(const char *name);

/*
 * -M LIST (comma-separated names): their bits (1 << index) or'ed into
 * @mask.  Return 0, or -1 after a message naming the known metrics.
 */
int metric_parse(const char *list, unsigned int *mask);

/* the event @spec names on this machine into @ev; false if it has none */
bool metric_event(const char *spec, struct pctr_event *ev);

#endif
