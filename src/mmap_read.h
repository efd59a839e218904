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

#endif
