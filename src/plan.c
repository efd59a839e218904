/* SPDX-License-Identifier: MIT */
/*
 * plan.c - read plans: the user-space reads of a self-monitoring set as
 * cheap as the hardware allows.
 *
 * When a set counting the calling thread is opened, and again after a
 * read that found its counters elsewhere, the plan notes each event's
 * page, baseline and the counter the page names, and picks readers made
 * for those counters (mmap_read.h: the page's index compared with the
 * expected one, the counter read, the offset added with the sign
 * extension of the plan's width, the baseline taken off).  Where the
 * counter instruction names its register (arm64 mrs) there is one reader
 * per run of consecutive counters: the kernel gives a group consecutive
 * counters when nothing else holds them, so one reader covers the usual
 * set; any other layout is read run by run.  Where the instruction takes
 * the counter in a register (x86 rdpmc, ecx) a reader serves any run of
 * its length.  pctr_set_read() extrapolates the times once per run, from
 * its first counter: a run lies within one group (mmap_read.h).
 *
 * Anything unexpected is a miss: an index that is not the plan's
 * (multiplexed, rescheduled), a page that changed while it was read, a
 * page without user time.  A miss reads the whole set again the slow way
 * (read.c: the page read counter by counter, else read(2)), which also
 * says whether the read was done in user space; if it was, the plan is
 * made anew for where the counters are now.  Until then the slow readers
 * stand in, which try that after each read.  A fork sets the slow readers
 * in the child (set.c): its pages are not mapped there.
 *
 * The readers do no bookkeeping: pctr_set_user_read() reports the last
 * read's path, and a plan stands only while the last read was a user one.
 */
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "arch.h"

#define PLAN_ANY_SHIFT 0xffff
#define PLAN_RUN_MAX 8

/* ---- the slow readers and misses ---------------------------------------- */

static struct pctr_set *
set_of(const struct pctr__plan_ctr *pc)
{
	pc -= pc->pos;
	return (struct pctr_set *)((char *)pc - offsetof(struct pctr_set, pc));
}

/* a reader of the whole set gets set->pc */
static const struct pctr_set *
whole(const struct pctr__plan_ctr *pc)
{
	return (const struct pctr_set *)((const char *)pc -
					 offsetof(struct pctr_set, pc));
}

/*
 * After a read the slow way: a plan again if it was done in user space,
 * else the slow readers, which try again after each read.  So a plan
 * stands only while the last read was a user one, which
 * pctr_set_user_read() reports.
 */
static void
replan(struct pctr_set *set)
{
	if (set->last_user)
		pctr__plan_build(set);
	else
		pctr__plan_none(set);
}

static __attribute__((noinline)) int
values_slow(const struct pctr__plan_ctr *pc, uint64_t *out)
{
	struct pctr_set *set = set_of(pc);
	int r = pctr__read_values_slow(set, out - pc->pos);

	replan(set);
	return r;
}

static __attribute__((noinline)) int
sample_slow(const struct pctr__plan_ctr *pc, char *at, uint64_t cyc)
{
	struct pctr_set *set = set_of(pc);
	struct pctr_sample *s = (struct pctr_sample *)(at - pc->pos *
						       sizeof(struct pctr_count));
	int r = pctr__read_sample_slow(set, s);

	(void)cyc;
	replan(set);
	return r;
}

/* ---- the readers ---------------------------------------------------------- */

/*
 * The counter, sign-extended from 64 - @shift bits: where the port reads
 * it in halves (x86 rdpmc), joined and extended at once.
 */
static inline __attribute__((always_inline)) uint64_t
read_pmc(uint32_t hw, unsigned int shift)
{
#if PCTR_ARCH_PMC_HALVES
	uint64_t lo, hi;

	pctr__arch_read_pmc_halves(hw, &lo, &hi);
	return pctr__plan_join(lo, hi, shift);
#else
	return pctr__plan_extend(pctr__arch_read_pmc(hw), shift);
#endif
}

#if PCTR_ARCH_PMC_OPERAND
#define RUN_HW(pc, S, i) PCTR__PLAN_HW_ENTRY, 0
#else
#define RUN_HW(pc, S, i)                                                      \
	((uint32_t)(S) + (uint32_t)(i)), ((uint32_t)(S) + (uint32_t)(i) + 1)
#endif
#define SH_arch(pc, i) PCTR_ARCH_PMC_SHIFT
#define SH_0(pc, i) 0
#define SH_var(pc, i) ((pc)[i].shift)
#define SHVAL_arch PCTR_ARCH_PMC_SHIFT
#define SHVAL_0 0
#define SHVAL_var PLAN_ANY_SHIFT

/* the counts of run S..S+N-1 */
#define VALUES(S, N, SH)                                                      \
	static int v_##S##_##N##_##SH(const struct pctr__plan_ctr *pc,        \
				      uint64_t *out)                          \
	{                                                                     \
		_Pragma("GCC unroll 8") for (int i = 0; i < (N); i++) if (    \
			!pctr__plan_value(&pc[i], RUN_HW(pc, S, i),           \
					  SH_##SH(pc, i),                     \
					  read_pmc, &out[i]))                 \
			return values_slow(pc, out);                          \
		return PCTR_PATH_USER;                                        \
	}

/* the counts and times of run S..S+N-1, the times its first counter's */
#define SAMPLE(S, N, SH)                                                      \
	static int s_##S##_##N##_##SH(const struct pctr__plan_ctr *pc,        \
				      char *at, uint64_t cyc)                 \
	{                                                                     \
		struct pctr_count *out = PCTR__AT_COUNTS(at);                 \
		pctr__u64x2 t;                                                \
                                                                              \
		if (!pctr__plan_lead(pc, RUN_HW(pc, S, 0), SH_##SH(pc, 0),    \
				     PCTR_ARCH_TIME_SHORT, read_pmc, cyc,     \
				     &out[0], &t))                            \
			return sample_slow(pc, at, 0);                        \
		_Pragma("GCC unroll 8") for (int i = 1; i < (N); i++) {       \
			if (!pctr__plan_value(&pc[i], RUN_HW(pc, S, i),       \
					      SH_##SH(pc, i), read_pmc,       \
					      &out[i].value))                 \
				return sample_slow(pc, at, 0);                \
			*(pctr__u64x2 *)&out[i].enabled = t;                  \
		}                                                             \
		PCTR_ARCH_KEEP_AT(at);                                        \
		return 0;                                                     \
	}

#define READERS(S, N, SH) VALUES(S, N, SH) SAMPLE(S, N, SH)
#define ENTRY(S, N, SH) { S, N, SHVAL_##SH, v_##S##_##N##_##SH, \
			  s_##S##_##N##_##SH },

#if PCTR_ARCH_PMC_OPERAND
/* any counters: a run is a number of them */
#define RUNS(X, SH)                                                           \
	X(0, 1, SH) X(0, 2, SH) X(0, 3, SH) X(0, 4, SH) X(0, 5, SH)           \
	X(0, 6, SH) X(0, 7, SH) X(0, 8, SH)
#define ALL_RUNS(X) RUNS(X, arch) RUNS(X, 0) RUNS(X, var)
#else
/*
 * Counter S (31: the cycle counter, arm64's index 32) alone, and runs of up
 * to 6 within the first 8 counters, where sets of a few events land.
 */
#define RUNS(X, SH)                                                           \
	X(0, 1, SH) X(0, 2, SH) X(0, 3, SH) X(0, 4, SH) X(0, 5, SH)           \
	X(0, 6, SH) X(1, 1, SH) X(1, 2, SH) X(1, 3, SH) X(1, 4, SH)           \
	X(1, 5, SH) X(1, 6, SH) X(2, 1, SH) X(2, 2, SH) X(2, 3, SH)           \
	X(2, 4, SH) X(2, 5, SH) X(2, 6, SH) X(3, 1, SH) X(3, 2, SH)           \
	X(3, 3, SH) X(3, 4, SH) X(3, 5, SH) X(4, 1, SH) X(4, 2, SH)           \
	X(4, 3, SH) X(4, 4, SH) X(5, 1, SH) X(5, 2, SH) X(5, 3, SH)           \
	X(6, 1, SH) X(6, 2, SH) X(7, 1, SH) X(8, 1, SH) X(9, 1, SH)           \
	X(10, 1, SH) X(11, 1, SH) X(12, 1, SH) X(13, 1, SH) X(14, 1, SH)      \
	X(15, 1, SH) X(16, 1, SH) X(17, 1, SH) X(18, 1, SH) X(19, 1, SH)      \
	X(20, 1, SH) X(21, 1, SH) X(22, 1, SH) X(23, 1, SH) X(24, 1, SH)      \
	X(25, 1, SH) X(26, 1, SH) X(27, 1, SH) X(28, 1, SH) X(29, 1, SH)      \
	X(30, 1, SH) X(31, 1, SH)
#define ALL_RUNS(X) RUNS(X, arch) RUNS(X, 0)
#endif

ALL_RUNS(READERS)

static const struct reader {
	uint32_t hw;
	int nr;
	unsigned int shift;
	pctr__values_fn values;
	pctr__sample_fn sample;
} readers[] = { ALL_RUNS(ENTRY) };

static const struct reader *
find(uint32_t hw, int nr, unsigned int shift)
{
	for (size_t k = 0; k < PCTR_ARRAY_SIZE(readers); k++) {
		const struct reader *x = &readers[k];

		if (x->nr == nr && (PCTR_ARCH_PMC_OPERAND || x->hw == hw) &&
		    (x->shift == shift || x->shift == PLAN_ANY_SHIFT))
			return x;
	}
	return NULL;
}

static bool
reader_exists(uint32_t hw, int nr, unsigned int shift)
{
	return find(hw, nr, shift) != NULL;
}

/* ---- more than one run ------------------------------------------------------ */

/*
 * A miss within a run reads the whole set and may make the plan again:
 * the runs after it are then read again, fresher, by the new plan's
 * readers, or not at all (the slots past the last are cleared).
 */
static int
values_runs(const struct pctr__plan_ctr *pc, uint64_t *out)
{
	const struct pctr__plan_seg *g = whole(pc)->plan.seg;
	int r = PCTR_PATH_USER;

	for (; g->values && r == PCTR_PATH_USER; g++)
		r = g->values(g->pc, out + g->first);
	return r;
}

static int
sample_runs(const struct pctr__plan_ctr *pc, char *at, uint64_t cyc)
{
	const struct pctr__plan_seg *g = whole(pc)->plan.seg;
	int r = 0;

	for (; g->values && r == 0; g++)
		r = g->sample(g->pc, PCTR__AT_MOVE(at, g->first), cyc);
	return r;
}

/*
 * A set that asked for serialised reads (pctr_set_serialize()): the
 * timestamp again after the port's fence, then the plan's reader.  The
 * exported read takes a plain one, so that other sets pay nothing.
 */
static int
sample_serial(const struct pctr__plan_ctr *pc, char *at, uint64_t cyc)
{
	const struct pctr_set *set = set_of(pc);
	struct pctr_sample *s = (struct pctr_sample *)at;

	cyc = pctr__arch_tsc(set->serial);
	s->tsc = cyc;
	return set->plan.serial(pc, at, cyc);
}

/* ---- building ------------------------------------------------------------------ */

/*
 * Cut @n counters (counter numbers @hw, widths as 64 - @shift, groups
 * @group) into runs that readers exist for (@has): a run stays in one
 * group and one width, and with @consecutive its counters follow each
 * other.  Greedy: each run as long as a reader allows.
 * Return: the number of runs, or -1 if a counter has no reader at all.
 */
int
pctr__plan_runs(const uint32_t *hw, const uint16_t *shift, const int *group,
		int n, bool consecutive,
		bool (*has)(uint32_t hw, int nr, unsigned int shift),
		struct pctr__plan_run *run)
{
	int nr = 0;

	for (int e = 0; e < n;) {
		int len = 1;

		if (!has(hw[e], 1, shift[e]))
			return -1;
		while (e + len < n && group[e + len] == group[e] &&
		       shift[e + len] == shift[e] &&
		       (!consecutive || hw[e + len] == hw[e] + (uint32_t)len) &&
		       has(hw[e], len + 1, shift[e]))
			len++;
		run[nr++] = (struct pctr__plan_run){ e, len };
		e += len;
	}
	return nr;
}

void
pctr__plan_none(struct pctr_set *set)
{
	struct pctr__plan *p = &set->plan;
	struct pctr__hot *h = PCTR__HOT(set);

	h->values = values_slow;
	h->sample = sample_slow;
	for (int k = 0; k < p->nr_seg; k++)
		p->seg[k].values = NULL;
	p->nr_seg = 0;
}

/* event @e's entry from its page as it is now; false if not on a counter */
static bool
plan_ctr(struct pctr_set *set, int e, uint16_t *shift, int *group)
{
	const struct pctr__ctr *c = &set->one.ctr[e]; /* nr_inst is 1 */
	const struct pctr_count *base = &set->one.base[e];
	const struct perf_event_mmap_page *pg = c->page;
	struct pctr__plan_ctr *x = &set->pc[e];
	uint32_t idx = pg ? PCTR__READ_ONCE(pg->index) : 0;
	uint16_t width = pg ? PCTR__READ_ONCE(pg->pmc_width) : 0;

	if (!idx || !pg->cap_user_rdpmc)
		return false;
	*x = (struct pctr__plan_ctr){
		.page = pg,
		.base = base->value,
		.base_ena = base->enabled,
		.base_run = base->running,
		.hw = idx - 1,
		.index = idx,
		.shift = (uint16_t)((64u - width) & 63u),
		.pos = (uint16_t)e,
	};
	*shift = x->shift;
	*group = c->group;
	return true;
}

static void
plan_runs(struct pctr_set *set, const struct pctr__plan_run *run, int nr)
{
	struct pctr__plan *p = &set->plan;
	struct pctr__hot *h = PCTR__HOT(set);

	for (int k = 0; k < nr; k++) {
		const struct pctr__plan_ctr *x = &set->pc[run[k].first];
		const struct reader *r = find(x->hw, run[k].nr, x->shift);

		p->seg[k] = (struct pctr__plan_seg){ r->values, x, r->sample,
						     run[k].first, run[k].nr };
	}
	p->seg[nr].values = NULL;
	p->nr_seg = nr;
	h->values = nr == 1 ? p->seg[0].values : values_runs;
	h->sample = nr == 1 ? p->seg[0].sample : sample_runs;
	if (set->serial != PCTR_SERIAL_NONE) {
		p->serial = h->sample;
		h->sample = sample_serial;
	}
	h->head = (uint64_t)set->nr_events |
		  (uint64_t)PCTR_PATH_USER << 32;
}

/*
 * Only a set read with one counter per event on one thread, the calling
 * one, in the process that opened it: set->user_read says the first,
 * set->simple the second.
 */
void
pctr__plan_build(struct pctr_set *set)
{
	uint32_t hw[PCTR_MAX_EVENTS];
	uint16_t shift[PCTR_MAX_EVENTS];
	int group[PCTR_MAX_EVENTS], nr;
	struct pctr__plan_run run[PCTR_MAX_EVENTS];

	pctr__plan_none(set);
	if (!PCTR_ARCH_USER_READ || !set->open || !set->user_read ||
	    !set->simple || set->nr_inst != 1 || pctr__set_forked(set))
		return;
	for (int e = 0; e < set->nr_events; e++) {
		if (!plan_ctr(set, e, &shift[e], &group[e]))
			return;
		hw[e] = set->pc[e].hw;
	}
	nr = pctr__plan_runs(hw, shift, group, set->nr_events,
			     !PCTR_ARCH_PMC_OPERAND, reader_exists, run);
	if (nr > 0)
		plan_runs(set, run, nr);
}
