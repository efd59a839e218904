/* SPDX-License-Identifier: MIT */
/*
 * hw_floor.h - the least a correct user-space read of a counter does,
 * written by hand for counters known when compiling: the mmap page's
 * seqlock around an index check, one mrs of the register (x86: rdpmc of
 * the counter), the offset added with the count's sign extension (from
 * 32 bits; x86: 48).  The floor
 * the library's reads are held to (test_hw_cost.c) and compared with
 * (test_hw_bench.c).
 *
 * floor_map() maps the pages of a set's first @n events (its own pages
 * stay the library's); the floor reads return -1 when a page names
 * another counter than the floor's for event i (arm64 PMEVCNTR<i>_EL0;
 * x86 fixed counter 0, then general counters 0, 1, 2).
 *
 * A page shows the counter of the thread it counts, on that thread's CPU:
 * on another thread the counter instruction reads that thread's own CPU
 * (a wrong count; on arm64 SIGILL when that thread has no counters of its
 * own: tests/repro/repro_other_thread_user_read.c).  So a read that any
 * thread may call, as a library's may, first checks that it runs on the
 * thread the pages count: floor_owned1() and floor_owned4() are the floor
 * with that check (the thread pointer against the one floor_map() saw, a
 * load pair with the first page), the floor a library's read is held to.
 * floor_known1() and floor_known4() are the read without it, right only
 * on that thread, as issue 14 first wrote the floor down.
 */
#ifndef PCTR_HW_FLOOR_H
#define PCTR_HW_FLOOR_H

#include <sys/mman.h>
#include <linux/perf_event.h>

#include "hw.h"

#define FLOOR_MAX 4

/* the owner beside the first page: one load pair takes both */
static struct {
	uintptr_t owner;
	struct perf_event_mmap_page *page[FLOOR_MAX];
} floor_at;
#define floor_page floor_at.page

#define FLOOR_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define FLOOR_BARRIER() __asm__ volatile("" ::: "memory")

#ifdef __x86_64__
/*
 * rdpmc of a counter known when compiling, 48-bit sign extension.  Four
 * instructions events go to fixed counter 0 (rdpmc 1 << 30) and general
 * counters 0 to 2.
 */
#define FLOOR_COUNTER(n, v)                                                   \
	do {                                                                  \
		uint32_t lo_, hi_;                                            \
		__asm__ volatile("rdpmc"                                      \
				 : "=a"(lo_), "=d"(hi_)                       \
				 : "c"(n));                                   \
		v = (uint64_t)((int64_t)((uint64_t)lo_ << 16 |                \
					 (uint64_t)hi_ << 48) >>              \
			       16);                                           \
	} while (0)
#define FLOOR_EXTEND(v) (v)
#define FLOOR_C0 0x40000000u
#define FLOOR_C1 0u
#define FLOOR_C2 1u
#define FLOOR_C3 2u
#else
#define FLOOR_COUNTER(reg, v) __asm__ volatile("mrs %0, " #reg : "=r"(v))
#define FLOOR_EXTEND(v) ((uint64_t)(int64_t)(int32_t)(v))
#define FLOOR_C0 pmevcntr0_el0
#define FLOOR_C1 pmevcntr1_el0
#define FLOOR_C2 pmevcntr2_el0
#define FLOOR_C3 pmevcntr3_el0
#endif
#define FLOOR_MRS(reg, v) __asm__ volatile("mrs %0, " #reg : "=r"(v))

/* the page index event i must have for the floor's counter */
static const uint32_t floor_index[FLOOR_MAX] = {
#ifdef __x86_64__
	0x40000001u, 1, 2, 3
#else
	1, 2, 3, 4
#endif
};

/* one event on a counter known when compiling, its page at @page */
#define FLOOR_ONE_AT(i, page, ctr)                                            \
	do {                                                                  \
		const struct perf_event_mmap_page *pc = (page);               \
		uint32_t seq;                                                 \
		uint64_t v;                                                   \
		do {                                                          \
			seq = FLOOR_READ_ONCE(pc->lock);                      \
			FLOOR_BARRIER();                                      \
			if (FLOOR_READ_ONCE(pc->index) != floor_index[i])     \
				return -1;                                    \
			FLOOR_COUNTER(ctr, v);                                \
			v = FLOOR_READ_ONCE(pc->offset) + FLOOR_EXTEND(v);    \
			FLOOR_BARRIER();                                      \
		} while (FLOOR_READ_ONCE(pc->lock) != seq);                   \
		s->count[i].value = v;                                        \
	} while (0)
#define FLOOR_ONE(i, ctr) FLOOR_ONE_AT(i, floor_page[i], ctr)

/*
 * The owner and the first page, in one load pair on arm64 (GCC 12 loads
 * them one by one); not the thread the pages count: the caller would read
 * another way.  Then the first page is the one loaded here.
 */
#ifdef __aarch64__
typedef unsigned __int128 floor_pair __attribute__((may_alias));
#define FLOOR_OWNED(page0)                                                    \
	uintptr_t owner_;                                                     \
	const struct perf_event_mmap_page *page0;                             \
	__asm__("ldp %0, %1, %2"                                              \
		: "=r"(owner_), "=r"(page0)                                   \
		: "Ump"(*(const floor_pair *)(const void *)&floor_at));       \
	if ((uintptr_t)__builtin_thread_pointer() != owner_)                  \
		return -1
#else
#define FLOOR_OWNED(page0)                                                    \
	const struct perf_event_mmap_page *page0 = floor_page[0];             \
	if ((uintptr_t)__builtin_thread_pointer() != floor_at.owner)          \
		return -1
#endif

static int
floor_owned1(struct pctr_set *set, struct pctr_sample *s)
{
	(void)set;
	FLOOR_OWNED(pg0);
	FLOOR_ONE_AT(0, pg0, FLOOR_C0);
	return 0;
}

static int
floor_owned4(struct pctr_set *set, struct pctr_sample *s)
{
	(void)set;
	FLOOR_OWNED(pg0);
	FLOOR_ONE_AT(0, pg0, FLOOR_C0);
	FLOOR_ONE(1, FLOOR_C1);
	FLOOR_ONE(2, FLOOR_C2);
	FLOOR_ONE(3, FLOOR_C3);
	return 0;
}

static int
floor_known1(struct pctr_set *set, struct pctr_sample *s)
{
	(void)set;
	FLOOR_ONE(0, FLOOR_C0);
	return 0;
}

static int
floor_known4(struct pctr_set *set, struct pctr_sample *s)
{
	(void)set;
	FLOOR_ONE(0, FLOOR_C0);
	FLOOR_ONE(1, FLOOR_C1);
	FLOOR_ONE(2, FLOOR_C2);
	FLOOR_ONE(3, FLOOR_C3);
	return 0;
}

/* Return: 1 if event i is on the floor's counter i for every i < n */
static inline int
floor_map(struct pctr_set *set, int n)
{
	long pg = sysconf(_SC_PAGESIZE);
	int known = 1;

	floor_at.owner = (uintptr_t)__builtin_thread_pointer();
	for (int i = 0; i < n; i++) {
		floor_page[i] = mmap(NULL, pg, PROT_READ, MAP_SHARED,
				     pctr_set_fd(set, i), 0);
		ASSERT(floor_page[i] != MAP_FAILED);
		printf("# event %d: index %u, pmc_width %u\n", i,
		       floor_page[i]->index, floor_page[i]->pmc_width);
		known &= floor_page[i]->index == floor_index[i];
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
