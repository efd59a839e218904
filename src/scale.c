/* SPDX-License-Identifier: MIT */
/*
 * scale.c - the interval around a multiplexed (scaled) count.
 *
 * The kernel gives three numbers for an event: value, time_enabled and
 * time_running.  While the event is enabled but off the counters (the
 * kernel rotates groups that do not fit), it counts nothing, and the
 * estimate for the whole enabled time, pctr_count_scaled(), is
 * value * enabled / running: it assumes the event went on at the rate it
 * was seen to have while it ran.  One read cannot say how wrong that is.
 *
 * Successive reads of the same counter can.  Between two reads (a slice)
 * the event ran dr ns and counted dv; dv / dr is its rate in that slice.
 * The interval assumes that the rate while the event was off the counters
 * lies within the lowest and highest rates of the slices in which it ran:
 *
 *	low  = value + (enabled - running) * rate_min
 *	high = value + (enabled - running) * rate_max
 *
 * It is a bound under that assumption, not a probability: a program whose
 * rate changes only while the event is off the counters escapes it.  It
 * always contains the scaled count (whose rate, value / running, is a mean
 * of the slices' rates weighted by their running time), and low is never
 * below value (a counter only goes up).  Reading more often makes more
 * slices and a wider, safer range; slices shorter than the kernel's
 * rotation (perf_event_mux_interval_ms) see one stint on the counters each.
 *
 * Fewer than two slices in which the event ran give a single rate and an
 * interval of width zero whatever the program did: the bounds are then
 * unknown (-ENODATA), not made up.  An event that never ran has no rate
 * at all.  A count that was never multiplexed is exact: low = high =
 * value.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>

#include "internal.h"

/* @c must not be behind the last count added, nor run longer than enabled */
static int
check_after(const struct pctr_count *last, const struct pctr_count *c)
{
	if (c->running > c->enabled)
		return pctr__error(EINVAL, "running time %llu ns exceeds "
					   "enabled time %llu ns",
				   (unsigned long long)c->running,
				   (unsigned long long)c->enabled);
	if (c->value < last->value || c->enabled < last->enabled ||
	    c->running < last->running)
		return pctr__error(EINVAL, "count went backwards (a reset?): "
					   "start a new struct pctr_scale");
	return 0;
}

PCTR_EXPORT int
pctr_scale_add(struct pctr_scale *s, const struct pctr_count *c)
{
	struct pctr_count d;
	double rate;
	int r;

	if (!s || !c)
		return pctr__error(EINVAL, "NULL scale or count");
	r = check_after(&s->last, c);
	if (r < 0)
		return r;
	d = pctr__count_delta(c, &s->last);
	s->last = *c;
	if (d.running == 0)
		return 0; /* off the counters, or no time: no rate */
	rate = (double)d.value / (double)d.running;
	if (s->nr_ran == 0 || rate < s->rate_min)
		s->rate_min = rate;
	if (s->nr_ran == 0 || rate > s->rate_max)
		s->rate_max = rate;
	s->nr_ran++;
	return 0;
}

static int
no_bounds(double *low, double *high, const char *why)
{
	*low = NAN;
	*high = NAN;
	return pctr__error(ENODATA, "%s", why);
}

PCTR_EXPORT int
pctr_scale_bounds(const struct pctr_scale *s, double *low, double *high)
{
	const struct pctr_count *c;
	double off;

	if (!s || !low || !high)
		return pctr__error(EINVAL, "NULL scale or bound");
	c = &s->last;
	if (c->running == 0)
		return no_bounds(low, high, "the event never ran on a counter");
	if (c->running >= c->enabled) {
		*low = *high = (double)c->value;
		return 0;
	}
	if (s->nr_ran < 2)
		return no_bounds(low, high,
				 "the event ran in fewer than two slices "
				 "between reads: read it more often");
	off = (double)(c->enabled - c->running);
	*low = (double)c->value + off * s->rate_min;
	*high = (double)c->value + off * s->rate_max;
	return 0;
}
