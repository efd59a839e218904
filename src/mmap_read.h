/* SPDX-License-Identifier: MIT */
/*
 * mmap_read.h - reading a self-monitoring counter through its perf mmap
 * page, without a syscall.
 *
 * The protocol (include/uapi/linux/perf_event.h, struct
 * perf_event_mmap_page): the kernel bumps ->lock before and after it
 * changes the page, so a reader copies the fields it needs between two
 * reads of ->lock and starts again if the two differ.  Inside that window:
 *
 *   index == 0      the event is not on a hardware counter right now
 *                   (software event, scheduled out, or user access
 *                   disabled): the caller must fall back to read(2);
 *   count           = offset + sign_extend(rdpmc(index - 1), pmc_width),
 *                   because the hardware counter is narrower than 64 bits
 *                   and the kernel keeps the rest in offset;
 *   enabled/running = the page's times plus the time since they were
 *                   written, computed from the timestamp counter with
 *                   time_offset/time_mult/time_shift (and, if
 *                   cap_user_time_short, wrapped to time_mask first);
 *                   running only grows while the event is on a counter.
 *
 * The function is inline and takes the counter reader as an argument so
 * that the library inlines the real instruction and unit tests can drive
 * it with synthetic pages and a fake counter.
 */
#ifndef PCTR_MMAP_READ_H
#define PCTR_MMAP_READ_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "pctr.h"

#define PCTR__READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define PCTR__BARRIER() __asm__ volatile("" ::: "memory")
#define PCTR__MMAP_RETRIES 1000

static inline uint64_t
pctr__time_delta(const struct perf_event_mmap_page *pc, uint64_t cyc)
{
	uint64_t quot, rem;
	uint16_t shift = pc->time_shift;
	uint32_t mult = pc->time_mult;

	if (pc->cap_user_time_short)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return pc->time_offset + quot * mult + ((rem * mult) >> shift);
}

/* width 64 (or a page without one, 0) shifts by 0: nothing to extend */
static inline int64_t
pctr__sign_extend(uint64_t v, uint16_t width)
{
	unsigned int shift = (64u - width) & 63u;

	return (int64_t)(v << shift) >> shift;
}

/*
 * Return: 0 with *out filled, -EAGAIN if the caller must use read(2)
 * (index 0, no user read capability, no user time, or a page that keeps
 * changing).
 */
static inline __attribute__((always_inline)) int
pctr__mmap_read(const struct perf_event_mmap_page *pc, uint64_t cyc,
		uint64_t (*read_pmc)(uint32_t hw), struct pctr_count *out)
{
	uint32_t seq, idx;
	uint64_t ena, run, delta;
	int64_t count;
	int tries = PCTR__MMAP_RETRIES;

	do {
		seq = PCTR__READ_ONCE(pc->lock);
		PCTR__BARRIER();
		idx = PCTR__READ_ONCE(pc->index);
		if (!idx || !pc->cap_user_rdpmc || !pc->cap_user_time)
			return -EAGAIN;
		ena = PCTR__READ_ONCE(pc->time_enabled);
		run = PCTR__READ_ONCE(pc->time_running);
		delta = pctr__time_delta(pc, cyc);
		count = PCTR__READ_ONCE(pc->offset);
		count += pctr__sign_extend(read_pmc(idx - 1), pc->pmc_width);
		PCTR__BARRIER();
	} while (PCTR__READ_ONCE(pc->lock) != seq && --tries);
	if (!tries)
		return -EAGAIN;
	out->value = (uint64_t)count;
	out->enabled = ena + delta;
	out->running = run + delta;
	return 0;
}

/*
 * The count alone, for pctr_set_read_values(): the same protocol without
 * the times.  Return: 0 or -EAGAIN as above.
 */
static inline __attribute__((always_inline)) int
pctr__mmap_read_value(const struct perf_event_mmap_page *pc,
		      uint64_t (*read_pmc)(uint32_t hw), uint64_t *out)
{
	uint32_t seq, idx;
	int64_t count;
	int tries = PCTR__MMAP_RETRIES;

	do {
		seq = PCTR__READ_ONCE(pc->lock);
		PCTR__BARRIER();
		idx = PCTR__READ_ONCE(pc->index);
		if (!idx || !pc->cap_user_rdpmc)
			return -EAGAIN;
		count = PCTR__READ_ONCE(pc->offset);
		count += pctr__sign_extend(read_pmc(idx - 1), pc->pmc_width);
		PCTR__BARRIER();
	} while (PCTR__READ_ONCE(pc->lock) != seq && --tries);
	if (!tries)
		return -EAGAIN;
	*out = (uint64_t)count;
	return 0;
}

/*
 * Read plans (plan.c): a self-monitoring set's counters read by code made
 * for the counters the kernel gave them.  One entry per event, built when
 * the set is opened and again whenever a read finds the counters moved.
 *
 * The shortcuts below, each one checked where it is taken:
 *  - the page's index is compared with the one the plan expects, not with
 *    0: any other value (0: not on a counter; another: rescheduled) and
 *    the read is not the plan's to make;
 *  - cap_user_rdpmc is not read again: it is checked when the plan is
 *    built, and both ports report a nonzero index only for a counter user
 *    mode may read (Linux x86_pmu_event_idx() and armv8pmu_user_event_idx()
 *    return 0 without the flag that cap_user_rdpmc shows);
 *  - a seqlock that changed is not tried again here: the caller's slow
 *    path reads the whole set again;
 *  - pmc_width is the plan's (64 - @shift): it is fixed by the event's
 *    configuration for the event's life;
 *  - the times of a group are its leader's, read once: the kernel puts a
 *    group on the counters and takes it off as a whole, and a group read
 *    (PERF_FORMAT_GROUP) reports the leader's times for every member too.
 */
struct pctr__plan_ctr {
	const struct perf_event_mmap_page *page;
	uint64_t base; /* the reset baseline's count */
	uint64_t base_ena, base_run; /* its times (a group's are its leader's) */
	uint32_t hw; /* the page's index minus one that the plan expects */
	uint16_t shift; /* 64 - pmc_width */
	uint16_t pos; /* this entry's event: plan.c finds the set from it */
	uint32_t index; /* hw + 1: the page's index itself */
};

/* perf_event_mmap_page.capabilities, with the kernel's bit layout */
union pctr__caps {
	uint64_t all;
	struct {
		uint64_t bit0 : 1, bit0_is_deprecated : 1, user_rdpmc : 1,
			user_time : 1, user_time_zero : 1, user_time_short : 1,
			res : 58;
	};
};

/* the baseline loaded early: only where loads pair (arm64 ldp) it helps */
#if defined(__aarch64__)
#define PCTR__PLAN_PAIR(x) __asm__("" : "+r"(x))
#else
#define PCTR__PLAN_PAIR(x) ((void)0)
#endif

static inline __attribute__((always_inline)) uint64_t
pctr__plan_extend(uint64_t raw, unsigned int shift)
{
	return (uint64_t)((int64_t)(raw << shift) >> shift);
}

/*
 * One counter's count less its baseline, if its page still shows counter
 * @hw (@index, hw + 1: the ports that take @hw from the entry compare with
 * the entry's) and did not change meanwhile.  Return: 1, or 0 (not read).
 */
static inline __attribute__((always_inline)) int
pctr__plan_value(const struct pctr__plan_ctr *e, uint32_t hw, uint32_t index,
		 unsigned int shift, uint64_t (*read_pmc)(uint32_t hw),
		 uint64_t *out)
{
	const struct perf_event_mmap_page *pc = e->page;
	uint64_t base = e->base, raw, off;
	uint32_t seq;

	/* the page and the baseline in one load (ldp) where the port can */
	PCTR__PLAN_PAIR(base);
	seq = PCTR__READ_ONCE(pc->lock);
	PCTR__BARRIER();
	/* read once, compared at once: may be an operand of the compare */
	if (pc->index != index)
		return 0;
	raw = read_pmc(hw);
	off = PCTR__READ_ONCE(pc->offset);
	PCTR__BARRIER();
	if (PCTR__READ_ONCE(pc->lock) != seq)
		return 0;
	*out = off + pctr__plan_extend(raw, shift) - base;
	return 1;
}

/*
 * time_offset + cyc converted to nanoseconds, as perf_event.h spells it
 * (quot * mult + ((rem * mult) >> shift)), rem taken as cyc less quot's
 * part.
 */
static inline __attribute__((always_inline)) uint64_t
pctr__plan_ns(uint64_t cyc, uint64_t mult, uint16_t shift, uint64_t toff)
{
	uint64_t quot = cyc >> shift;
	uint64_t rem = cyc - (quot << shift);

	return toff + quot * mult + ((rem * mult) >> shift);
}

/*
 * A group leader's count and the group's times at timestamp @cyc, less the
 * baseline.  @time_short: whether the port's kernel sets
 * cap_user_time_short, and then always with cap_user_time (arm64's
 * arch_perf_update_userpage() clears the three time bits and sets them
 * together; x86's never sets it): one bit then says both.  The fields
 * within the seqlock are read once each: after the barrier the compiler
 * may not load them again.
 * Return: 1, or 0 (not read: also when the page gives no time).
 */
static inline __attribute__((always_inline)) int
pctr__plan_lead(const struct pctr__plan_ctr *e, uint32_t hw, uint32_t index,
		unsigned int shift, bool time_short,
		uint64_t (*read_pmc)(uint32_t hw), uint64_t cyc,
		struct pctr_count *out)
{
	const struct perf_event_mmap_page *pc = e->page;
	uint64_t base = e->base, bena = e->base_ena, brun = e->base_run;
	uint64_t raw, off, ena, run, mult, toff, tcyc = 0, tmask = 0, delta;
	union pctr__caps caps;
	uint32_t seq;
	uint16_t tshift;

	/* the entry in two loads (ldp) where the port can */
	__asm__("" : "+r"(pc), "+r"(base), "+r"(bena), "+r"(brun));
	seq = PCTR__READ_ONCE(pc->lock);
	PCTR__BARRIER();
	if (pc->index != index) /* as in pctr__plan_value() */
		return 0;
	caps.all = PCTR__READ_ONCE(pc->capabilities);
	if (!(time_short ? caps.user_time_short : caps.user_time))
		return 0;
	ena = pc->time_enabled;
	run = pc->time_running;
	mult = PCTR__READ_ONCE(pc->time_mult);
	tshift = pc->time_shift;
	toff = pc->time_offset;
	if (time_short) {
		tcyc = pc->time_cycles;
		tmask = pc->time_mask;
	}
	raw = read_pmc(hw);
	off = PCTR__READ_ONCE(pc->offset);
	PCTR__BARRIER();
	if (PCTR__READ_ONCE(pc->lock) != seq)
		return 0;
	if (time_short)
		cyc = tcyc + ((cyc - tcyc) & tmask);
	delta = pctr__plan_ns(cyc, mult, tshift, toff);
	out->value = off + pctr__plan_extend(raw, shift) - base;
	out->enabled = ena + delta - bena;
	out->running = run + delta - brun;
	return 1;
}

#endif
