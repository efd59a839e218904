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
/* the port's (src/arch.h): thread self, time conversion, plan registers */
#include "arch_thread.h"
#include "arch_time.h"
#include "arch_pmc.h"

#define PCTR__READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define PCTR__BARRIER() __asm__ volatile("" ::: "memory")
#define PCTR__MMAP_RETRIES 1000

static inline uint64_t
pctr__time_delta(const struct perf_event_mmap_page *pc, uint64_t cyc)
{
	if (pc->cap_user_time_short)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
	return pc->time_offset +
	       pctr__arch_cyc_ns(cyc, pc->time_mult, pc->time_shift);
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
	/* its times (a group's are its leader's), 16-byte aligned: a pair */
	_Alignas(16) uint64_t base_ena;
	uint64_t base_run;
	uint32_t hw; /* the page's index minus one that the plan expects */
	uint16_t shift; /* 64 - pmc_width */
	uint16_t pos; /* this entry's event: plan.c finds the set from it */
	uint32_t index; /* hw + 1: the page's index itself */
};

/*
 * The counter a plan reads, sign-extended from 64 - @shift bits: the
 * port's counter read (plan.c), a fake one in the unit tests.
 */
typedef uint64_t (*pctr__plan_pmc_fn)(uint32_t hw, unsigned int shift);

/* perf_event_mmap_page.capabilities, with the kernel's bit layout */
union pctr__caps {
	uint64_t all;
	struct {
		uint64_t bit0 : 1, bit0_is_deprecated : 1, user_rdpmc : 1,
			user_time : 1, user_time_zero : 1, user_time_short : 1,
			res : 58;
	};
};

/*
 * Two adjacent 64-bit fields (a page's time_enabled and time_running, a
 * sample's enabled and running, an entry's baseline times) as one vector:
 * loaded, added to and stored by one instruction each (SSE2, NEON).  The
 * 8-byte aligned type reads the page and writes the sample; the 16-byte
 * aligned one reads an entry (x86: an operand of the subtraction).
 */
typedef uint64_t pctr__u64x2 __attribute__((vector_size(16), aligned(8),
					      may_alias));
typedef uint64_t pctr__u64x2a __attribute__((vector_size(16), aligned(16),
					       may_alias));
/*
 * A value computed by here, in a register (PCTR_ARCH_PLAN_PIN_X2: a vector
 * register, and no load moved before it; PIN: a general one).  The readers compute what
 * they can before the seqlock's second read, where a load may be the
 * operand of the instruction that uses it (x86) and the inputs need no
 * registers across what follows.
 */
#define PCTR__PLAN_PIN(x) __asm__ volatile("" : "+r"(x))

static inline __attribute__((always_inline)) uint64_t
pctr__plan_extend(uint64_t raw, unsigned int shift)
{
	return (uint64_t)((int64_t)(raw << shift) >> shift);
}

/*
 * A counter from the two halves x86's rdpmc returns (eax and edx, each
 * zero-extended to 64 bits), sign-extended from 64 - @shift bits: the high
 * half shifted to the top and back arithmetically, the low half or'ed in.
 * Three instructions where joining the halves and then extending takes
 * four.  The high half's bits above the width fall off the top; with
 * @shift 32 or more (a counter of 32 bits or fewer) the sign is the low
 * half's, which the general extension takes.
 */
static inline __attribute__((always_inline)) uint64_t
pctr__plan_join(uint64_t lo, uint64_t hi, unsigned int shift)
{
	if (shift >= 32)
		return pctr__plan_extend(lo | hi << 32, shift);
	return (uint64_t)((int64_t)(hi << (32 + shift)) >> shift) | lo;
}

/*
 * @hw and @index as a reader passes them: where the counter instruction
 * names its register (arm64 mrs) they are constants of the reader; where
 * it takes the counter as an operand (x86 rdpmc) the reader passes
 * PCTR__PLAN_HW_ENTRY and they are the entry's, each loaded where it is
 * used rather than at the start, where it would hold a register.
 */
#define PCTR__PLAN_HW_ENTRY UINT32_MAX
#define PCTR__PLAN_INDEX(e, hw, index)                                        \
	((hw) == PCTR__PLAN_HW_ENTRY ? (e)->index : (index))
#define PCTR__PLAN_HW(e, hw) ((hw) == PCTR__PLAN_HW_ENTRY ? (e)->hw : (hw))

/*
 * One counter's count less its baseline, if its page still shows counter
 * @hw (@index, hw + 1) and did not change meanwhile.  The page's fields
 * are read once each between the barriers, where the compiler may not
 * load them again, and not as volatile: a load may then be the operand of
 * the compare or of the addition that uses it (x86).  The baseline is
 * taken off last, for the same reason.  Return: 1, or 0 (not read).
 */
static inline __attribute__((always_inline)) int
pctr__plan_value(const struct pctr__plan_ctr *e, uint32_t hw, uint32_t index,
		 unsigned int shift, pctr__plan_pmc_fn read_pmc, uint64_t *out)
{
	const struct perf_event_mmap_page *pc = e->page;
	uint64_t base = e->base, v;
	uint32_t seq;

	/* the page and the baseline in one load (ldp) where the port can */
	PCTR_ARCH_PLAN_PAIR(base);
	seq = PCTR__READ_ONCE(pc->lock);
	PCTR__BARRIER();
	if (pc->index != PCTR__PLAN_INDEX(e, hw, index))
		return 0;
	v = read_pmc(PCTR__PLAN_HW(e, hw), shift) + pc->offset;
	PCTR__PLAN_PIN(v);
	PCTR__BARRIER();
	if (pc->lock != seq)
		return 0;
	*out = v - PCTR_ARCH_PLAN_BASE(base, e->base);
	return 1;
}

/*
 * time_offset + cyc converted to nanoseconds (pctr__arch_cyc_ns()).
 */
static inline __attribute__((always_inline)) uint64_t
pctr__plan_ns(uint64_t cyc, uint64_t mult, uint16_t shift, uint64_t toff)
{
	return toff + pctr__arch_cyc_ns(cyc, mult, shift);
}

/*
 * A group leader's count and the group's times at timestamp @cyc, less the
 * baseline.  @time_short: whether the port's kernel sets
 * cap_user_time_short, and then always with cap_user_time (arm64's
 * arch_perf_update_userpage() clears the three time bits and sets them
 * together; x86's never sets it): one bit then says both.  The times are
 * worked out before the counter is read, within the seqlock, so that only
 * the pair of them stays live across the read (x86's rdpmc takes three of
 * its nine scratch registers).
 * *@times gets the times, less the baseline's, for the group's other
 * counts.
 * Return: 1, or 0 (not read: also when the page gives no time).
 */
static inline __attribute__((always_inline)) int
pctr__plan_lead(const struct pctr__plan_ctr *e, uint32_t hw, uint32_t index,
		unsigned int shift, bool time_short, pctr__plan_pmc_fn read_pmc,
		uint64_t cyc, struct pctr_count *out, pctr__u64x2 *times)
{
	const struct perf_event_mmap_page *pc = e->page;
	uint64_t base = e->base, v, delta;
	pctr__u64x2 t;
	union pctr__caps caps;
	uint32_t seq;

	PCTR_ARCH_PLAN_PAIR(base);
	seq = PCTR__READ_ONCE(pc->lock);
	PCTR__BARRIER();
	if (pc->index != PCTR__PLAN_INDEX(e, hw, index)) /* see plan_value */
		return 0;
	caps.all = pc->capabilities;
	if (!(time_short ? caps.user_time_short : caps.user_time))
		return 0;
	if (time_short)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) &
					 pc->time_mask);
	delta = pctr__plan_ns(cyc, pc->time_mult, pc->time_shift,
			      pc->time_offset);
	t = *(const pctr__u64x2 *)&pc->time_enabled + delta;
	/* computed here: mult, shift and the offset take no registers later */
	PCTR_ARCH_PLAN_PIN_X2(t);
	v = read_pmc(PCTR__PLAN_HW(e, hw), shift) + pc->offset;
	PCTR__PLAN_PIN(v);
	PCTR__BARRIER();
	if (pc->lock != seq)
		return 0;
	t -= *(const pctr__u64x2a *)&e->base_ena;
	out->value = v - PCTR_ARCH_PLAN_BASE(base, e->base);
	*(pctr__u64x2 *)&out->enabled = t;
	*times = t;
	return 1;
}

#endif
