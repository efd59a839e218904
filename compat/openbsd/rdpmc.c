/* SPDX-License-Identifier: MIT */
/*
 * rdpmc.c - OpenBSD's rdpmc(n): counter n read in user space, without a
 * system call, without a lock and without announcing the reader.
 *
 * On OpenBSD rdpmc is an instruction.  Here counter n is a libpctr set
 * that PCIOCSn may replace and free at any time, from any thread or from a
 * signal handler that interrupted a read; a reader that held a pointer
 * into the set would then read freed memory.  The device's other readers
 * announce themselves with an atomic count for that (bsd_sync.h), two
 * read-modify-writes that cost rdpmc() more than the read itself.  So
 * rdpmc() does not touch the set; it reads a slot that lives as long as
 * the process:
 *
 *   page   a fixed address, always mapped: the counter's perf mmap page
 *          mapped there a second time, or a page of zeros (index 0: "not
 *          on a counter") when the slot has none.  A writer replaces the
 *          mapping in place (MAP_FIXED), so a reader on another thread
 *          never touches a hole, whatever it loaded before;
 *   owner  the thread pointer of the thread the page counts (the one
 *          that set the counter, PCTR_BSD_TARGET=thread), 0 for none: a
 *          page shows its own thread's counter only, on that thread's
 *          CPU, as libpctr's sets check too (pctr_set(3));
 *   gen    odd while a writer changes the slot, bumped before and after;
 *          the reader takes it (acquire) before the page and compares it
 *          after: a read that overlapped a change, even one made by a
 *          signal handler between two of its instructions, is not used.
 *
 * Inside that, the perf page's own protocol (src/mmap_read.h): its lock
 * around index, offset and counter, index 0 when the counter is not on the
 * hardware now (a software event, scheduled out, disabled, multiplexed).
 * Every case the fast read does not take (another thread, a counter of
 * the process, a change under way, index 0, a counter wider than usual,
 * a child after fork()) goes to the slow read: the set through
 * pctr_set_read_values(), as before, which is always right.
 *
 * x86's rdpmc takes the counter's number in ecx; arm64's mrs names the
 * register in the instruction, so there each slot also points to the
 * reader made for the register its counter had when set, and a read that
 * finds the counter moved (the kernel gives a thread's counters out again
 * as it schedules it) reads through a switch and points the slot at the
 * reader of the new register.
 *
 * Writers hold the device's lock (bsd_sync.h); a new mapping is first
 * made elsewhere, so that the one at the fixed address is replaced only by
 * a mapping of the same descriptor (a second mapping of a perf page adds
 * to the first and cannot fail for lack of locked memory) or by zeros.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pctr.h"
#include <machine/pctr.h>

#include "arch_pmc.h"
#include "bsd_counter.h"
#include "mmap_read.h"
#include "rdpmc.h"

#define PCTR_EXPORT __attribute__((visibility("default")))

struct slot;
/* a reader of slot @s (read_slot() below, made for one register) */
typedef pctrval (*reader_fn)(const struct slot *s);

struct slot {
	atomic_uint gen;
	/* written by writers only, read only between two loads of gen */
	uintptr_t owner;
	const struct perf_event_mmap_page *page;
	/* arm64: the reader made for the counter the page had when set */
	reader_fn read;
} __attribute__((aligned(32)));

static struct slot slot[PCTR_NUM]; /* defined with its readers below */
static size_t page_size;

static pctrval read_any(const struct slot *s);
static void rehint(const struct slot *s, uint32_t index);

/*
 * The fast read of @s, for a page whose index is @want (1 to 32, the
 * counter's register named in the instruction), or any nonzero index
 * (@want 0: the register chosen by a switch).  A counter that moved to
 * another register is read by the switch, and the slot is pointed at the
 * reader of its new register.  The slow read for all else.
 */
static inline __attribute__((always_inline)) pctrval
read_slot(const struct slot *s, uint32_t want)
{
#if PCTR_ARCH_USER_READ
	unsigned int g = atomic_load_explicit(&s->gen, memory_order_acquire);
	uintptr_t owner = s->owner;
	const struct perf_event_mmap_page *pc = s->page;

	if (__builtin_expect(!(g & 1) && owner == pctr__arch_thread_self(), 1)) {
		/* one instruction where the port pairs them: nothing between */
		uint32_t seq = pc->lock, idx = pc->index;

		PCTR__BARRIER();
		if (want && idx != want && idx != 0) {
			rehint(s, idx);
			return read_any(s);
		}
		if (__builtin_expect(idx != 0, 1)) {
			int64_t off, pmc;
#if PCTR_ARCH_PMC_HALVES
			uint64_t lo, hi;

			pctr__arch_read_pmc_halves(idx - 1, &lo, &hi);
			pmc = (int64_t)(hi << (32 + PCTR_ARCH_PMC_SHIFT)) >>
				      PCTR_ARCH_PMC_SHIFT |
			      (int64_t)lo;
#else
			pmc = (int64_t)pctr__arch_read_pmc(want ? want - 1
							       : idx - 1);
#endif
			off = PCTR__READ_ONCE(pc->offset);
			/* the loads above before gen's second load */
			atomic_thread_fence(memory_order_acquire);
			if (__builtin_expect(
				    (PCTR__READ_ONCE(pc->lock) == seq) &
					    (atomic_load_explicit(
						     &s->gen,
						     memory_order_relaxed) == g),
				    1)) {
#if !PCTR_ARCH_PMC_HALVES
				pmc = (int64_t)((uint64_t)pmc
						<< PCTR_ARCH_PMC_SHIFT) >>
				      PCTR_ARCH_PMC_SHIFT;
#endif
				return (pctrval)(off + pmc);
			}
		}
	}
#endif
	return pctr_openbsd_rdpmc_slow((unsigned int)(s - slot));
}

static __attribute__((noinline)) pctrval
read_any(const struct slot *s)
{
	return read_slot(s, 0);
}

#if PCTR_ARCH_USER_READ && !PCTR_ARCH_PMC_OPERAND
/* one reader per register (mrs names it), the switch at [0] */
#define READER(k)                                                              \
	static pctrval read_##k(const struct slot *s)                          \
	{                                                                      \
		return read_slot(s, k);                                        \
	}
#define read_0 read_any
#define READERS8(a, b, c, d, e, f, g, h)                                        \
	READER(a) READER(b) READER(c) READER(d) READER(e) READER(f)            \
		READER(g) READER(h)
READER(1) READER(2) READER(3) READER(4) READER(5) READER(6) READER(7)
READERS8(8, 9, 10, 11, 12, 13, 14, 15)
READERS8(16, 17, 18, 19, 20, 21, 22, 23)
READERS8(24, 25, 26, 27, 28, 29, 30, 31)
READER(32)
#define R8(a, b, c, d, e, f, g, h)                                              \
	read_##a, read_##b, read_##c, read_##d, read_##e, read_##f, read_##g,  \
		read_##h
static const reader_fn readers[33] = {
	R8(0, 1, 2, 3, 4, 5, 6, 7),	    R8(8, 9, 10, 11, 12, 13, 14, 15),
	R8(16, 17, 18, 19, 20, 21, 22, 23), R8(24, 25, 26, 27, 28, 29, 30, 31),
	read_32,
};
static struct slot slot[PCTR_NUM] = { [0 ... PCTR_NUM - 1] = { .read = read_0 } };

/*
 * A hint only: every reader checks the index it was made for, so a store
 * that races with a writer's, or with another reader's, costs a read
 * through the switch later, nothing else.
 */
static void
rehint(const struct slot *s, uint32_t index)
{
	((struct slot *)s)->read = readers[index <= 32 ? index : 0];
}
#else
static void
rehint(const struct slot *s, uint32_t index)
{
}
#endif

/* @s's fixed page, made on first use (zeros); 0 or -1 */
static int
reserve(struct slot *s)
{
	void *p;

	if (s->page)
		return 0;
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (p == MAP_FAILED)
		return -1;
	s->page = p;
	return 0;
}

/* @fd's page in place of the slot's, or zeros (@fd < 0); 0 or -1 */
static int
map_at(struct slot *s, int fd)
{
	void *at = (void *)s->page, *p;

	if (fd >= 0)
		p = mmap(at, page_size, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
			 0);
	else
		p = mmap(at, page_size, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	return p == at ? 0 : -1;
}

/*
 * What a reader relies on: gen is odd from before the page is replaced
 * until the new owner is stored, and the second bump releases them.  A
 * reader whose first load of gen (acquire) saw the second bump sees the
 * new owner and page; one that saw an even gen from before the change and
 * read any part of the new page finds gen changed on its second load (the
 * kernel completes the old mapping's removal on every CPU before the
 * mmap() returns, and the first bump was visible before it began).
 */
void
pctr_openbsd_rdpmc_install(unsigned int n, struct pctr_set *set)
{
	struct slot *s = &slot[n];
	unsigned int g = atomic_load_explicit(&s->gen, memory_order_relaxed);
	const struct perf_event_mmap_page *first = MAP_FAILED;
	uint32_t index = 0;
	uintptr_t owner = 0;
	int fd = -1;

	if (!PCTR_ARCH_USER_READ || reserve(s) < 0)
		return; /* no fast reads: the owner stays 0 */
	if (set && pctr_bsd_target_thread()) {
		fd = pctr_set_fd(set, 0);
		if (fd >= 0)
			first = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd,
				     0);
		/*
		 * A counter wider than the port's usual one: the slow read.
		 * Width 0: no hardware counter (a software event), whose
		 * index stays 0 and sends every read to the slow path.
		 */
		if (first != MAP_FAILED && first->pmc_width != 0 &&
		    first->pmc_width != 64 - PCTR_ARCH_PMC_SHIFT) {
			munmap((void *)first, page_size);
			first = MAP_FAILED;
		}
		if (first == MAP_FAILED)
			fd = -1;
		else
			index = PCTR__READ_ONCE(first->index);
	}
	atomic_store(&s->gen, g + 1);
	if (map_at(s, fd) < 0 && (fd < 0 || map_at(s, -1) < 0)) {
		/* the address is no longer ours to map: no fast reads */
		s->page = NULL;
	} else if (fd >= 0) {
#if PCTR_ARCH_USER_READ && !PCTR_ARCH_PMC_OPERAND
		s->read = readers[index <= 32 ? index : 0];
#else
		(void)index; /* the counter's number is an operand */
#endif
		owner = pctr__arch_thread_self();
	}
	s->owner = owner;
	if (first != MAP_FAILED)
		munmap((void *)first, page_size);
	atomic_store_explicit(&s->gen, g + 2, memory_order_release);
}

void
pctr_openbsd_rdpmc_forked(void)
{
	/*
	 * The kernel does not copy perf mappings: the child's fixed pages
	 * are holes that anything may fill.  Fast reads are off in the
	 * child until a counter is set, on new pages.
	 */
	for (int i = 0; i < PCTR_NUM; i++) {
		slot[i].owner = 0;
		slot[i].page = NULL;
	}
}

PCTR_EXPORT pctrval
pctr_openbsd_rdpmc(unsigned int n)
{
	if (__builtin_expect(n >= PCTR_NUM, 0))
		return 0;
#if PCTR_ARCH_USER_READ && !PCTR_ARCH_PMC_OPERAND
	{
		const struct slot *s = &slot[n];
		PCTR_ARCH_TAIL_FN(reader_fn, fn, PCTR__READ_ONCE(s->read));

		return PCTR_ARCH_TAIL(fn)(s);
	}
#endif
	return read_slot(&slot[n], 0);
}
