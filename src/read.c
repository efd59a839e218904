/* SPDX-License-Identifier: MIT */
/*
 * read.c - the two read paths.
 *
 * pctr_set_read() and pctr_set_read_values() check their arguments and
 * call the set's read plan (plan.c): readers made for the counters a
 * self-monitoring set has now, or, without a plan, the reads below.
 *
 * User path: a set counting the calling thread reads every counter through
 * its mmap page (mmap_read.h) with one timestamp for all of them.  If any
 * counter is not readable there right now (index 0), the whole set is read
 * with the syscall path instead, so one sample never mixes times.  Only
 * the thread that opened the set reads its pages: another thread's counter
 * instruction would read its own CPU (struct pctr__hot's owner).
 *
 * Syscall path: one read(2) of each group with PERF_FORMAT_GROUP, which
 * returns { nr, time_enabled, time_running, { value, id }[nr] }, through
 * the leader, or for an inherited set through the group's reader (struct
 * pctr__group), whose own entry comes last.  A set that samples has
 * { value, id, lost } entries where the kernel has PERF_FORMAT_LOST
 * (struct pctr_set's read_lost; pctr__ctr_lost() reads the lost).
 *
 * Inherited groups and exiting threads: since Linux 6.6 a group read
 * returns ECHILD while a thread that inherited the group is taking its
 * copy apart on exit, for runs of dozens of reads in a row when that
 * thread is preempted (tests/repro/repro_group_read_echild.c).  A read of
 * one counter has no such check.  So an inherited group read that fails
 * with ECHILD is tried GROUP_READ_TRIES times in all, and then the group
 * is read counter by counter: each value alone, the leader's enabled and
 * running times for all (the times a group read reports).  The counters
 * are then not read at one instant, which a group read of an inherited
 * group is not either: it visits each thread's copy in turn.
 *
 * Before each read(2) the descriptor is checked to be still the library's
 * (pctr__ctr_check); the user path touches no descriptor.
 *
 * Parts of one event (hybrid core types) add their values and running
 * times; their enabled time is the largest, since the task was enabled on
 * all of them at once.  Instances (threads, CPUs) add everything.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "arch.h"
#include "mmap_read.h"

void
pctr__combine_part(struct pctr_count *dst, const struct pctr_count *src,
		   int part)
{
	if (part == 0) {
		*dst = *src;
		return;
	}
	dst->value += src->value;
	dst->running += src->running;
	if (src->enabled > dst->enabled)
		dst->enabled = src->enabled;
	if (dst->running > dst->enabled)
		dst->running = dst->enabled;
}

/* the events left out (PCTR_SET_SKIP_UNSUPPORTED): no counter, count 0 */
static void
zero_skipped(const struct pctr_set *set, struct pctr_count *out)
{
	for (int e = 0; set->nr_skipped && e < set->nr_events; e++)
		if (set->skip_err[e])
			out[e] = (struct pctr_count){ 0, 0, 0 };
}

static void
subtract_base(struct pctr_count *c, const struct pctr_count *base, int n)
{
	for (int e = 0; e < n; e++) {
		c[e].value -= base[e].value;
		c[e].enabled -= base[e].enabled;
		c[e].running -= base[e].running;
	}
}

#define GROUP_READ_TRIES 3

static int
unknown_id(void)
{
	return pctr__error(EIO, "group read returned an unknown counter id");
}

/*
 * One counter's count into its event: with one counter per event the
 * reset baseline comes off on the way (it is zero until a reset); parts
 * are combined, the caller takes the baseline off after.
 */
static void
store(const struct pctr_set *set, const struct pctr__inst *in,
      const struct pctr__ctr *c, const struct pctr_count *v,
      struct pctr_count *out)
{
	const struct pctr_count *z = &in->base[c->event];

	if (!set->simple) {
		pctr__combine_part(&out[c->event], v, c->part);
		return;
	}
	out[c->event].value = v->value - z->value;
	out[c->event].enabled = v->enabled - z->enabled;
	out[c->event].running = v->running - z->running;
}

static int
read_failed(ssize_t n, size_t want, bool group)
{
	const char *what = group ? "group" : "counter";

	if (n == 0)
		return pctr__error(EBUSY,
				   "a pinned group could not be put on the "
				   "counters: another user holds them");
	if (n < 0)
		return pctr__error((int)-n, "read of a counter%s failed: %s",
				   group ? " group" : "", strerror((int)-n));
	return pctr__error(EIO, "short or malformed %s read (%zd of %zu "
				"bytes)",
			   what, n, want);
}

/* Return: the read's size, or -ECHILD after the retries of an inherited set */
static ssize_t
read_retrying(struct pctr_set *set, const struct pctr__ctr *rd, size_t want)
{
	ssize_t n;

	for (int tries = 1;; tries++) {
		n = pctr__sys_read(rd->fd, set->buf, want);
		if (n != -ECHILD || !set->inherit || tries == GROUP_READ_TRIES)
			return n;
	}
}

/*
 * A group read of the wrong size: a member's descriptor closed behind the
 * library's back takes its counter out of the group.  Say so if that is
 * what happened.
 */
static int
members_ours(const struct pctr__inst *in, const struct pctr__group *grp)
{
	const int *member = &in->member[grp->first];

	for (int k = 0; k < grp->nr; k++) {
		int r = pctr__ctr_check(&in->ctr[member[k]]);

		if (r < 0)
			return r;
	}
	return 0;
}

/* u64s of a group read's entry: { value, id } and maybe lost */
static size_t
entry_size(const struct pctr_set *set)
{
	return 2 + set->read_lost;
}

/* The group in one read; -ECHILD: read it counter by counter instead. */
static int
read_group_once(struct pctr_set *set, const struct pctr__inst *in,
		const struct pctr__group *grp, const struct pctr__ctr *rd,
		struct pctr_count *out)
{
	const int *member = &in->member[grp->first];
	size_t nr = grp->nr + (rd == &grp->reader), s = entry_size(set);
	size_t want = (3 + s * nr) * sizeof(uint64_t);
	const uint64_t *b = set->buf;
	int r = pctr__ctr_check(rd);
	ssize_t n = r < 0 ? r : read_retrying(set, rd, want);

	if (r < 0 || (n == -ECHILD && set->inherit))
		return r < 0 ? r : -ECHILD;
	if ((size_t)n != want || b[0] != nr) {
		r = members_ours(in, grp);
		return r < 0 ? r : read_failed(n, want, true);
	}
	if (rd == &grp->reader && b[4 + s * (nr - 1)] != rd->id)
		return unknown_id();
	for (int k = 0; k < grp->nr; k++) {
		const struct pctr__ctr *c = &in->ctr[member[k]];
		struct pctr_count v = { b[3 + s * k], b[1], b[2] };

		if (b[4 + s * k] != c->id)
			return unknown_id();
		store(set, in, c, &v, out);
	}
	return 0;
}

/*
 * Counter by counter, each counter opened without PERF_FORMAT_GROUP:
 * { value, time_enabled, time_running, id } (and lost).  The leader comes
 * first and its times stand for the group's.
 */
static int
read_members(struct pctr_set *set, const struct pctr__inst *in,
	     const struct pctr__group *grp, struct pctr_count *out)
{
	const int *member = &in->member[grp->first];
	uint64_t b[5], ena = 0, run = 0;
	size_t want = (4 + set->read_lost) * sizeof(uint64_t);

	for (int k = 0; k < grp->nr; k++) {
		const struct pctr__ctr *c = &in->ctr[member[k]];
		int r = pctr__ctr_check(c);
		ssize_t n = r < 0 ? r : pctr__sys_read(c->fd, b, want);
		struct pctr_count v;

		if (r < 0)
			return r;
		if ((size_t)n != want)
			return read_failed(n, want, false);
		if (b[3] != c->id)
			return unknown_id();
		if (k == 0) {
			ena = b[1];
			run = b[2];
		}
		v = (struct pctr_count){ b[0], ena, run };
		store(set, in, c, &v, out);
	}
	return 0;
}

static int
read_group(struct pctr_set *set, const struct pctr__inst *in,
	   const struct pctr__group *grp, struct pctr_count *out)
{
	const struct pctr__ctr *rd = &grp->reader;
	int r;

	if (!set->inherit)
		rd = &in->ctr[in->member[grp->first]];
	if (rd->fd < 0) /* an inherited group of one: it reads alone */
		return read_members(set, in, grp, out);
	r = read_group_once(set, in, grp, rd, out);
	return r == -ECHILD && set->inherit ? read_members(set, in, grp, out)
					    : r;
}

/* Parts must be combined in order: group order need not be part order. */
static int
read_parts(struct pctr_set *set, const struct pctr__inst *in,
	   struct pctr_count *out)
{
	for (int p = 0, more = 1; p < PCTR_MAX_PARTS && more; p++) {
		more = 0;
		for (int g = 0; g < in->nr_groups; g++) {
			const struct pctr__group *grp = &in->groups[g];
			const struct pctr__ctr *lead =
				&in->ctr[in->member[grp->first]];
			int r;

			more |= lead->part > p;
			if (lead->part != p)
				continue;
			r = read_group(set, in, grp, out);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/*
 * The records counter @x lost, the kernel's count (PERF_FORMAT_LOST).  A
 * counter of an inherited set is read alone; any other read of a counter
 * returns its group, where its entry is found by its id.  The counts of
 * the copies inherited by other threads are not in it: the kernel reports
 * the counter's own.  Its own buffer: the set's may be in use by a read.
 */
int
pctr__ctr_lost(const struct pctr_set *set, const struct pctr__ctr *x,
	       uint64_t *lost)
{
	size_t s = entry_size(set), len = set->inherit ? 5 : set->buf_len / 8;
	uint64_t *b;
	ssize_t n;
	int r = -EIO;

	if (!set->read_lost || !pctr__ctr_owned(x))
		return -EBADF;
	b = malloc(len * sizeof(*b));
	if (!b)
		return -ENOMEM;
	n = pctr__sys_read(x->fd, b, len * sizeof(*b));
	if (set->inherit && n == 5 * sizeof(*b) && b[3] == x->id) {
		*lost = b[4];
		r = 0;
	}
	for (uint64_t k = 0; !set->inherit && n >= 24 && k < b[0] &&
			     (3 + s * (k + 1)) * sizeof(*b) <= (size_t)n;
	     k++)
		if (b[4 + s * k] == x->id) {
			*lost = b[5 + s * k];
			r = 0;
		}
	free(b);
	return r;
}

/* One instance's counts, parts combined, reset baseline taken off. */
int
pctr__set_read_inst(struct pctr_set *set, const struct pctr__inst *in,
		    struct pctr_count *out)
{
	int r = 0;

	if (set->simple) {
		for (int g = 0; g < in->nr_groups && !r; g++)
			r = read_group(set, in, &in->groups[g], out);
		return r; /* the baseline is off already */
	}
	zero_skipped(set, out);
	r = read_parts(set, in, out);
	if (r == 0 && set->has_base)
		subtract_base(out, in->base, set->nr_events);
	return r;
}

int
pctr__set_read_user(struct pctr_set *set, struct pctr_count *out,
		    uint64_t cyc)
{
	/* user_read: one thread, set->one (a local copy costs arm64 a load) */
	for (int c = 0; c < set->nr_ctr; c++) {
		const struct pctr__ctr *x = &set->one.ctr[c];
		struct pctr_count v;

		if (set->simple) {
			if (pctr__mmap_read(x->page, cyc, pctr__arch_read_pmc,
					    &out[c]) < 0)
				return -EAGAIN;
			continue;
		}
		if (pctr__mmap_read(x->page, cyc, pctr__arch_read_pmc, &v) < 0)
			return -EAGAIN;
		pctr__combine_part(&out[x->event], &v, x->part);
	}
	zero_skipped(set, out);
	if (set->has_base)
		subtract_base(out, set->one.base, set->nr_events);
	return 0;
}

static int
check_readable(const struct pctr_set *set, const struct pctr_sample *s)
{
	if (!set || !s)
		return pctr__error(EINVAL, "NULL set or sample");
	if (!set->open)
		return pctr__error(EBADFD, "cannot read: the set is not open "
					   "(call pctr_set_open() first)");
	return 0;
}

/* the sum of instances [@lo, @hi) */
static int
read_insts(struct pctr_set *set, int lo, int hi, struct pctr_count *count)
{
	if (hi - lo == 1)
		return pctr__set_read_inst(set, &set->inst[lo], count);
	memset(count, 0, set->nr_events * sizeof(count[0]));
	for (int i = lo; i < hi; i++) {
		struct pctr_count one[PCTR_MAX_EVENTS];
		int r = pctr__set_read_inst(set, &set->inst[i], one);

		if (r < 0)
			return r;
		for (int e = 0; e < set->nr_events; e++)
			count[e] = pctr_count_add(&count[e], &one[e]);
	}
	return 0;
}

/* the read without a plan: the pages counter by counter, else read(2) */
int
pctr__read_sample_slow(struct pctr_set *set, struct pctr_sample *s)
{
	int r = check_readable(set, s);

	if (r < 0)
		return r;
	s->nr = set->nr_events;
	s->tsc = pctr__arch_tsc(set->serial);
	set->reads++;
	if (set->user_read && set->forks == pctr__forks &&
	    PCTR__HOT(set)->owner == pctr__arch_thread_self() &&
	    pctr__set_read_user(set, s->count, s->tsc) == 0) {
		set->last_user = true;
		s->path = PCTR_PATH_USER;
		return 0;
	}
	set->last_user = false;
	s->path = PCTR_PATH_SYSCALL;
	return read_insts(set, 0, set->nr_inst, s->count);
}

_Static_assert(offsetof(struct pctr_sample, path) ==
		       offsetof(struct pctr_sample, nr) + 4,
	       "pctr_set_read() stores nr and path at once");

/*
 * The plan's reader (plan.c), or the read without one, through the same
 * call.  The timestamp is taken before the counts: the same for every
 * read path.
 */
PCTR_EXPORT int
pctr_set_read(struct pctr_set *set, struct pctr_sample *s)
{
	uint64_t cyc;

	if (__builtin_expect(!set, 0) || __builtin_expect(!s, 0))
		return check_readable(set, s);
	if (__builtin_expect(PCTR__HOT(set)->owner != pctr__arch_thread_self(), 0))
		return pctr__read_sample_slow(set, s);
	{
		PCTR_ARCH_TAIL_FN_PAIR(pctr__sample_fn, fn, head,
				       &PCTR__HOT(set)->sample);

		cyc = pctr__arch_tsc(PCTR_SERIAL_NONE); /* the plan serialises */
		s->tsc = cyc;
		memcpy(&s->nr, &head, sizeof(head));
		return PCTR_ARCH_TAIL(fn)(set->pc, (char *)s, cyc);
	}
}

/* Counts only, every counter on the hardware, without a plan. */
static int
read_values_user(const struct pctr_set *set, uint64_t *values)
{
	const struct pctr__ctr *ctr = set->one.ctr; /* user_read: one thread */
	const struct pctr_count *base = set->one.base;

	for (int i = 0; i < set->nr_events; i++) {
		uint64_t v;

		if (pctr__mmap_read_value(ctr[i].page, pctr__arch_read_pmc,
					  &v) < 0)
			return -EAGAIN;
		values[i] = v - base[i].value;
	}
	return 0;
}

int
pctr__read_values_slow(struct pctr_set *set, uint64_t *values)
{
	struct pctr_sample s;
	int r;

	if (!set->open)
		return pctr__error(EBADFD, "cannot read: the set is not open "
					   "(call pctr_set_open() first)");
	if (set->fast_values && set->forks == pctr__forks &&
	    PCTR__HOT(set)->owner == pctr__arch_thread_self() &&
	    read_values_user(set, values) == 0) {
		set->reads++;
		set->last_user = true;
		return PCTR_PATH_USER;
	}
	r = pctr__read_sample_slow(set, &s);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < s.nr; i++)
		values[i] = s.count[i].value;
	return (int)s.path;
}

/* The plan's reader (plan.c), or the read without one. */
PCTR_EXPORT int
pctr_set_read_values(struct pctr_set *set, uint64_t *values)
{
	if (__builtin_expect(!set, 0))
		return pctr__error(EINVAL, "NULL set");
	if (__builtin_expect(!values, 0))
		return pctr__error(EINVAL, "NULL values");
	{
		PCTR_ARCH_TAIL_FN_PAIR(pctr__values_fn, fn, owner,
				       &PCTR__HOT(set)->values);

		if (__builtin_expect(owner != pctr__arch_thread_self(), 0))
			return pctr__read_values_slow(set, values);
		return PCTR_ARCH_TAIL(fn)(set->pc, values);
	}
}

PCTR_EXPORT int
pctr_set_read_instance(struct pctr_set *set, int i, struct pctr_sample *s)
{
	int r = check_readable(set, s), lo, hi, n;

	if (r < 0)
		return r;
	n = pctr__inst_range(set, i, &lo, &hi);
	if (i < 0 || i >= n)
		return pctr__error(ERANGE, "instance %d out of range (0..%d)",
				   i, n - 1);
	s->nr = set->nr_events;
	s->tsc = pctr__arch_tsc(set->serial);
	s->path = PCTR_PATH_SYSCALL;
	return read_insts(set, lo, hi, s->count);
}

PCTR_EXPORT int
pctr_set_user_read(const struct pctr_set *set)
{
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	return set->reads ? set->last_user : set->user_read;
}

PCTR_EXPORT double
pctr_count_scaled(const struct pctr_count *c)
{
	if (!c || c->running == 0)
		return 0.0;
	if (c->running >= c->enabled)
		return (double)c->value;
	return (double)c->value * ((double)c->enabled / (double)c->running);
}

PCTR_EXPORT struct pctr_count
pctr_count_delta(const struct pctr_count *after,
		 const struct pctr_count *before)
{
	if (!after || !before)
		return (struct pctr_count){ 0, 0, 0 };
	return pctr__count_delta(after, before);
}

PCTR_EXPORT struct pctr_count
pctr_count_add(const struct pctr_count *a, const struct pctr_count *b)
{
	if (!a || !b)
		return (struct pctr_count){ 0, 0, 0 };
	return (struct pctr_count){ a->value + b->value,
				    a->enabled + b->enabled,
				    a->running + b->running };
}
