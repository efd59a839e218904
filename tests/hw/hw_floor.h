/* SPDX-License-Identifier: MIT */
/*
 * hw_floor.h - the least a correct user-space read of a 32-bit counter
 * does, written by hand for counters known when compiling: the mmap
 * page's seqlock around an index check, one mrs of the register, the
 * offset added with the count's sign extension from 32 bits.  The floor
 * the library's reads are held to (test_hw_cost.c) and compared with
 * (test_hw_bench.c).
 *
 * floor_map() maps the pages of a set's first @n events (its own pages
 * stay the library's); the floor reads return -1 when a page names
 * another counter than PMEVCNTR<i>_EL0 for event i.
 */
#ifndef PCTR_HW_FLOOR_H
#define PCTR_HW_FLOOR_H

#include <sys/mman.h>
#include <linux/perf_event.h>

#include "hw.h"

#define FLOOR_MAX 4

static struct perf_event_mmap_page *floor_page[FLOOR_MAX];

#define FLOOR_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define FLOOR_BARRIER() __asm__ volatile("" ::: "memory")
#define FLOOR_MRS(reg, v) __asm__ volatile("mrs %0, " #reg : "=r"(v))

/* one event on a register known when compiling: PMEVCNTR<n>_EL0 */
#define FLOOR_ONE(i, reg)                                                     \
	do {                                                                  \
		const struct perf_event_mmap_page *pc = floor_page[i];        \
		uint32_t seq;                                                 \
		uint64_t v;                                                   \
		do {                                                          \
			seq = FLOOR_READ_ONCE(pc->lock);                      \
			FLOOR_BARRIER();                                      \
			if (FLOOR_READ_ONCE(pc->index) != (i) + 1)            \
				return -1;                                    \
			FLOOR_MRS(reg, v);                                    \
			v = FLOOR_READ_ONCE(pc->offset) +                     \
			    (uint64_t)(int64_t)(int32_t)v;                    \
			FLOOR_BARRIER();                                      \
		} while (FLOOR_READ_ONCE(pc->lock) != seq);                   \
		s->count[i].value = v;                                        \
	} while (0)

static int
floor_known1(struct pctr_set *set, struct pctr_sample *s)
{
	(void)set;
	FLOOR_ONE(0, pmevcntr0_el0);
	return 0;
}

static int
floor_known4(struct pctr_set *set, struct pctr_sample *s)
{
	(void)set;
	FLOOR_ONE(0, pmevcntr0_el0);
	FLOOR_ONE(1, pmevcntr1_el0);
	FLOOR_ONE(2, pmevcntr2_el0);
	FLOOR_ONE(3, pmevcntr3_el0);
	return 0;
}

/* Return: 1 if event i is on PMEVCNTR<i>_EL0 for every i < n */
static inline int
floor_map(struct pctr_set *set, int n)
{
	long pg = sysconf(_SC_PAGESIZE);
	int known = 1;

	for (int i = 0; i < n; i++) {
		floor_page[i] = mmap(NULL, pg, PROT_READ, MAP_SHARED,
				     pctr_set_fd(set, i), 0);
		ASSERT(floor_page[i] != MAP_FAILED);
		printf("# event %d: index %u, pmc_width %u\n", i,
		       floor_page[i]->index, floor_page[i]->pmc_width);
		known &= floor_page[i]->index == (uint32_t)i + 1;
	}
	return known;
}

static inline void
floor_unmap(int n)
{
	for (int i = 0; i < n; i++)
		munmap(floor_page[i], sysconf(_SC_PAGESIZE));
}

#endif
