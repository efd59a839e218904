/* SPDX-License-Identifier: MIT */
/*
 * bsd_counter.h - what the OpenBSD and FreeBSD devices share: turning an
 * x86 counter function into a libpctr event, and one counter as a set.
 */
#ifndef PCTR_COMPAT_BSD_COUNTER_H
#define PCTR_COMPAT_BSD_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

#include "pctr.h"

/*
 * pctr_bsd_have_counters() - does this process have counters to program:
 * a hardware PMU, or functions mapped to events by $PCTR_BSD_EVENTS.
 */
bool pctr_bsd_have_counters(void);

/*
 * pctr_bsd_fn_event() - translate a counter function.
 * @fn: event | unit mask << 8 | flags << 16 | counter mask << 24, the
 *      x86 event select layout (PCTR_FN_* flags)
 * @ev: filled on success
 *
 * A function listed in $PCTR_BSD_EVENTS becomes the named event; otherwise
 * x86 decodes it as the hardware does and arm64 takes the low 16 bits as
 * the PMUv3 event number.
 * Return: 0; 1 if the function counts nothing (neither user nor kernel
 * mode); -EINVAL (reserved bits, or a part the target cannot express),
 * -ENODEV (a hardware function without a PMU), or pctr_event_parse()'s
 * error for a bad $PCTR_BSD_EVENTS entry.
 */
int pctr_bsd_fn_event(uint32_t fn, struct pctr_event *ev);

/*
 * pctr_bsd_counter_open() - count @ev on this process ($PCTR_BSD_TARGET:
 * "process", the default, or "thread"), enabled or not.
 * Return: 0 or a negative errno; *setp is set only on success.
 */
int pctr_bsd_counter_open(const struct pctr_event *ev, bool enable,
			  struct pctr_set **setp);

/* pctr_bsd_target_thread() - do counters count only the thread setting them */
bool pctr_bsd_target_thread(void);

/*
 * pctr_bsd_counter_read() - the count of a set made above (0 for NULL).
 * The raw count alone (pctr_set_read_values(): no times, no scaling), as
 * the hardware counter reads; inline, rdpmc() is one call.
 * Return: 0 or a negative errno.
 */
static inline int
pctr_bsd_counter_read(struct pctr_set *set, uint64_t *val)
{
	int r;

	*val = 0;
	if (!set)
		return 0;
	r = pctr_set_read_values(set, val);
	if (r < 0)
		*val = 0;
	return r < 0 ? r : 0;
}

/* pctr_bsd_errno() - a libpctr error as the errno an ioctl returns */
int pctr_bsd_errno(int err);

#endif
