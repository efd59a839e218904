/* SPDX-License-Identifier: MIT */
/*
 * sampling.c - sampling into ring buffers, read without signals: merged
 * across a set's rings in time order, side-band records (mappings, names,
 * forks, exits) delivered with the samples.  The rings are ring.c's.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring.h"
#include "arch.h"

#define DEFAULT_PAGES 64
#define DEFAULT_STACK 127
#define DEFAULT_USER_STACK 8192 /* perf record --call-graph dwarf's */
/* the kernel takes less than USHRT_MAX, in whole u64s (perf_copy_attr()) */
#define MAX_USER_STACK 65528

/* @ucfg, of the caller's size, into @cfg, and checked */
static int
check_sampling(const struct pctr_sampling *ucfg, struct pctr_sampling *cfg,
	       unsigned int *pages)
{
	unsigned int known = PCTR_SAMPLE_TID | PCTR_SAMPLE_TIME |
			     PCTR_SAMPLE_CALLCHAIN | PCTR_SAMPLE_FREQ |
			     PCTR_SAMPLE_SIDEBAND |
			     PCTR_SAMPLE_CALLCHAIN_KERNEL |
			     PCTR_SAMPLE_USER_STACK | PCTR_SAMPLE_CPU;
	int r = pctr__struct_in(&PCTR__SIZED(pctr_sampling,
					     PCTR_SAMPLING_SIZE_VER0),
				cfg, ucfg);

	if (r < 0)
		return r;
	if (cfg->flags & ~known)
		return pctr__error(EINVAL, "unknown sampling flags 0x%x",
				   cfg->flags & ~known);
	*pages = cfg->pages ? cfg->pages : DEFAULT_PAGES;
	if (*pages & (*pages - 1) || *pages > (1u << 20))
		return pctr__error(EINVAL, "sample buffer of %u pages: it must "
					   "be a power of two",
				   cfg->pages);
	if (cfg->max_stack > 1024)
		return pctr__error(EINVAL, "call chains of %u entries: at most "
					   "1024",
				   cfg->max_stack);
	if (!(cfg->flags & PCTR_SAMPLE_USER_STACK))
		cfg->stack_size = 0; /* padding to callers of 0.1 */
	else if (cfg->stack_size % 8 || cfg->stack_size > MAX_USER_STACK)
		return pctr__error(EINVAL, "a user stack copy of %u bytes: a "
					   "multiple of 8 up to %u",
				   cfg->stack_size, MAX_USER_STACK);
	else if (!PCTR_ARCH_REGS_USER)
		return pctr__error(EOPNOTSUPP, "user stack copies are for "
					       "x86-64 and arm64, not "
					       PCTR_ARCH_NAME);
	return 0;
}

/*
 * The call chain: user and kernel parts (perf_callchain()), each with
 * its own exclude bit; the kernel part alone for a caller that unwinds
 * the user part from the stack copy.
 */
static void
set_callchain(struct perf_event_attr *attr, const struct pctr_sampling *cfg)
{
	unsigned int f = cfg->flags;

	if (!(f & (PCTR_SAMPLE_CALLCHAIN | PCTR_SAMPLE_CALLCHAIN_KERNEL)))
		return;
	attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr->exclude_callchain_kernel = !(f & PCTR_SAMPLE_CALLCHAIN_KERNEL);
	attr->exclude_callchain_user = !(f & PCTR_SAMPLE_CALLCHAIN);
	attr->sample_max_stack = cfg->max_stack ? cfg->max_stack
						: DEFAULT_STACK;
}

/*
 * The user registers an unwinder starts from and the stack it reads: the
 * kernel copies them from the thread's user-mode state (its pt_regs) at
 * each sample, the stack from the stack pointer up.
 */
static void
set_user_stack(struct perf_event_attr *attr, const struct pctr_sampling *cfg)
{
	if (!(cfg->flags & PCTR_SAMPLE_USER_STACK))
		return;
	attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr->sample_regs_user = PCTR_ARCH_REGS_USER;
	attr->sample_stack_user = cfg->stack_size ? cfg->stack_size
						  : DEFAULT_USER_STACK;
}

PCTR_EXPORT int
pctr_set_sampling(struct pctr_set *set, int idx,
		  const struct pctr_sampling *ucfg)
{
	struct pctr_sampling full, *cfg = &full;
	struct perf_event_attr *attr;
	struct pctr__overflow *o;
	unsigned int pages = 0;
	int r;

	r = pctr__ovf_check_event(set, idx, "sample");
	if (r < 0 || (r = check_sampling(ucfg, cfg, &pages)) < 0)
		return r;
	attr = &set->attr[idx].a;
	r = pctr__ovf_set_period(attr, cfg->period, !!(cfg->flags & PCTR_SAMPLE_FREQ));
	if (r < 0)
		return r;
	attr->sample_type = PERF_SAMPLE_IP |
			    pctr__period_sample_type(&set->ev[idx], attr);
	if (cfg->flags & PCTR_SAMPLE_TID)
		attr->sample_type |= PERF_SAMPLE_TID;
	if (cfg->flags & PCTR_SAMPLE_CPU)
		attr->sample_type |= PERF_SAMPLE_CPU;
	/* side-band records are ordered with the samples by time */
	if (cfg->flags & (PCTR_SAMPLE_TIME | PCTR_SAMPLE_SIDEBAND))
		attr->sample_type |= PERF_SAMPLE_TIME;
	set_callchain(attr, cfg);
	set_user_stack(attr, cfg);
	/*
	 * Side-band records: executable mappings (MMAP2), names (COMM, with
	 * PERF_RECORD_MISC_COMM_EXEC on exec), FORK and EXIT, written by the
	 * counter and by every inherited copy of it, so by the whole tree of
	 * an inherited target.  sample_id_all appends the sample's TID and
	 * TIME fields to each, so they sort with the samples.
	 */
	attr->mmap2 = attr->mmap = attr->comm = attr->task =
		attr->sample_id_all = !!(cfg->flags & PCTR_SAMPLE_SIDEBAND);
	/*
	 * With stack copies, the mappings that do not execute too: an
	 * unwinder reads tables (.eh_frame_hdr) from read-only segments.
	 */
	attr->mmap_data = (cfg->flags & PCTR_SAMPLE_SIDEBAND) &&
			  (cfg->flags & PCTR_SAMPLE_USER_STACK);
	attr->watermark = 1;
	attr->wakeup_watermark = pages * (uint32_t)sysconf(_SC_PAGESIZE) / 4;
	r = pctr__ovf_probe(set, idx);
	if (r < 0)
		return r;
	o = set->ovf;
	o->ev[idx].mode = PCTR__MODE_BUFFER;
	o->ev[idx].flags = cfg->flags;
	o->ev[idx].pages = pages;
	pctr__fixed_period_init(&o->ev[idx], attr);
	return 0;
}

PCTR_EXPORT int
pctr_set_sampling_attr(const struct pctr_set *set, int idx, void *attr,
		       size_t attr_size)
{
	size_t n = attr_size < PCTR__ATTR_SIZE ? attr_size : PCTR__ATTR_SIZE;
	union pctr__attr u;

	if (!set || idx < 0 || idx >= set->nr_events || !attr)
		return pctr__error(EINVAL, "no event %d in this set", idx);
	if (attr_size < PERF_ATTR_SIZE_VER0)
		return pctr__error(EINVAL, "a struct perf_event_attr of %zu "
					   "bytes: under PERF_ATTR_SIZE_VER0 "
					   "(64)",
				   attr_size);
	if (!set->ovf || set->ovf->ev[idx].mode != PCTR__MODE_BUFFER)
		return pctr__error(EINVAL, "event %d does not sample into a "
					   "buffer (pctr_set_sampling())",
				   idx);
	u = set->attr[idx];
	u.a.size = (uint32_t)n;
	memcpy(attr, u.raw, n);
	return 0;
}

struct read_ctx {
	int (*cb)(const struct pctr_sample_record *rec, void *arg);
	void *arg;
};

/*
 * A record of @ring for the caller, decoded by record.c in the layout of
 * the event that wrote it; the time only where it was asked for (the
 * side-band records carry it for their order, ring_time()).
 */
static int
deliver_record(struct pctr_set *set, struct pctr__ring *ring,
	       const struct perf_event_header *h, void *arg)
{
	const struct read_ctx *ctx = arg;
	const struct pctr__ovf_event *ev = &set->ovf->ev[ring->event];
	struct pctr_sample_record rec;
	struct pctr__sample s;
	uint64_t chain[1024], regs[64];

	if (h->type != PERF_RECORD_SAMPLE) {
		if (pctr__side_record(&ring->layout, h, &rec) < 0)
			return 0;
	} else {
		if (pctr__ring_parse(set->ovf, ring, h, &s) < 0)
			return 0;
		pctr__sample_record(&ring->layout, &s, &rec, chain,
				    PCTR_ARRAY_SIZE(chain), regs);
		atomic_fetch_add(&set->ovf->ev[ring->event].notified, 1);
	}
	rec.event = ring->event;
	rec.instance = ring->pub;
	if (!(ev->flags & PCTR_SAMPLE_TIME))
		rec.time = 0;
	return ctx->cb(&rec, ctx->arg);
}

static int
check_buffered(struct pctr_set *set)
{
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (!set->open)
		return pctr__error(EBADFD, "the set is not open");
	if (pctr__set_forked(set))
		return pctr__error(ECHILD, "the sample buffers of this set "
					   "stay with the process that opened "
					   "it: a child forked since cannot "
					   "read them (read them in the "
					   "parent, or open a set in the "
					   "child)");
	if (!set->ovf || !set->ovf->scratch)
		return pctr__error(EINVAL, "no event of this set samples into "
					   "a buffer (pctr_set_sampling())");
	return 0;
}

/* @n bytes of the ring at @at, across its end */
static void
ring_peek(const struct pctr__ring *ring, uint64_t at, void *out, size_t n)
{
	uint64_t off = at & (ring->size - 1);
	size_t first = ring->size - off < n ? ring->size - off : n;

	memcpy(out, ring->data + off, first);
	memcpy((unsigned char *)out + first, ring->data, n - first);
}

/*
 * The time of the record at @at, where record.c says it is; 0 for a
 * record without one (lost records without sample_id_all): it goes first.
 */
static uint64_t
ring_time(const struct pctr__ring *ring, uint64_t at)
{
	struct perf_event_header h;
	uint64_t t = 0;
	size_t off;

	ring_peek(ring, at, &h, sizeof(h));
	off = pctr__time_offset(&ring->layout, &h);
	if (off)
		ring_peek(ring, at + off, &t, sizeof(t));
	return t;
}

/* a ring read_merged() holds, and where its reading stands */
struct merge_src {
	struct pctr__ring *ring;
	uint64_t tail, head;
	uint64_t next; /* the time of the record at tail, if any */
};

/* the rings that buffer and that no other reader holds, taken */
static int
hold_rings(struct pctr_set *set, struct merge_src *src)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *ring;
	int n = 0;

	while ((ring = pctr__ring_next(set, &at))) {
		struct merge_src *m = &src[n];

		if (!ring->pc || ring->shared ||
		    set->ovf->ev[ring->event].mode != PCTR__MODE_BUFFER ||
		    atomic_flag_test_and_set(&ring->busy))
			continue;
		atomic_store(&ring->reader, gettid());
		m->ring = ring;
		m->tail = ring->pc->data_tail;
		m->head = __atomic_load_n(&ring->pc->data_head,
					  __ATOMIC_ACQUIRE);
		if (m->tail != m->head)
			m->next = ring_time(ring, m->tail);
		n++;
	}
	return n;
}

/*
 * The rings of a set spread over CPUs (open_on()), read as one: record by
 * record, the earliest first, so that a child's records come after the
 * fork that made it and a moved thread's in its order.  Each ring is in
 * time order already (one CPU writes it).  The rings whose reader is busy
 * elsewhere are left to it.
 */
static int
read_merged(struct pctr_set *set, struct read_ctx *ctx)
{
	struct pctr__overflow *o = set->ovf;
	struct merge_src src[set->nr_inst * set->nr_ctr];
	int nr = hold_rings(set, src), n = 0, stop = 0;

	while (!stop) {
		struct merge_src *best = NULL;

		for (int i = 0; i < nr; i++)
			if (src[i].tail != src[i].head &&
			    (!best || src[i].next < best->next))
				best = &src[i];
		if (!best)
			break;
		stop = pctr__ring_step(set, best->ring, o->scratch,
				       PCTR__RECORD_MAX, deliver_record, ctx,
				       &n, &best->tail, best->head);
		if (best->tail != best->head)
			best->next = ring_time(best->ring, best->tail);
	}
	for (int i = 0; i < nr; i++) {
		__atomic_store_n(&src[i].ring->pc->data_tail, src[i].tail,
				 __ATOMIC_RELEASE);
		atomic_store(&src[i].ring->reader, 0);
		atomic_flag_clear(&src[i].ring->busy);
	}
	return n;
}

static bool
merge_rings(const struct pctr_set *set)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	const struct pctr__ring *ring;

	while (set->spread && (ring = pctr__ring_next(set, &at)))
		if (ring->pc &&
		    !(ring->layout.sample_type & PERF_SAMPLE_TIME))
			return false;
	return set->spread;
}

PCTR_EXPORT int
pctr_set_sampling_read(struct pctr_set *set,
		   int (*cb)(const struct pctr_sample_record *rec, void *arg),
		   void *arg)
{
	struct read_ctx ctx = { cb, arg };
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *ring;
	int r = check_buffered(set), n = 0;

	if (r < 0)
		return r;
	if (!cb)
		return pctr__error(EINVAL, "NULL callback");
	if (merge_rings(set))
		return read_merged(set, &ctx);
	while ((ring = pctr__ring_next(set, &at))) {
		if (ring->pc && !ring->shared &&
		    set->ovf->ev[ring->event].mode == PCTR__MODE_BUFFER)
			n += pctr__ring_drain(set, ring, set->ovf->scratch,
					      PCTR__RECORD_MAX, deliver_record,
					      &ctx);
	}
	return n;
}

static int
ring_ready(const struct pctr__ring *ring)
{
	return __atomic_load_n(&ring->pc->data_head, __ATOMIC_ACQUIRE) !=
	       ring->pc->data_tail;
}

/* the descriptor of each ring that buffers, POLLIN, up to @nr; how many */
static int
ring_pollfds(const struct pctr_set *set, struct pollfd *pfd, int nr)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	const struct pctr__ring *ring;
	int n = 0;

	while ((ring = pctr__ring_next(set, &at))) {
		if (!ring->pc ||
		    set->ovf->ev[ring->event].mode != PCTR__MODE_BUFFER)
			continue;
		if (n < nr)
			pfd[n] = (struct pollfd){ .fd = ring->fd,
						  .events = POLLIN };
		n++;
	}
	return n;
}

PCTR_EXPORT int
pctr_set_sampling_pollfd(struct pctr_set *set, struct pollfd *pfd, int nr)
{
	int r = check_buffered(set);

	if (r < 0)
		return r;
	if (nr < 0 || (nr > 0 && !pfd))
		return pctr__error(EINVAL, "NULL descriptors or a negative "
					   "count (%d)", nr);
	return ring_pollfds(set, pfd, nr);
}

PCTR_EXPORT int
pctr_set_sampling_wait(struct pctr_set *set, int timeout_ms)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *ring;
	struct pollfd *pfd;
	int r = check_buffered(set), n = 0, hup = 0;

	/* a number the program reused would answer for a file of its own */
	while (r == 0 && (ring = pctr__ring_next(set, &at)))
		if (ring->pc)
			r = pctr__ctr_check(ring->ctr);
	if (r < 0)
		return r;
	pfd = calloc(set->nr_inst * set->nr_ctr, sizeof(*pfd));
	if (!pfd)
		return pctr__error(ENOMEM, "out of memory");
	n = ring_pollfds(set, pfd, set->nr_inst * set->nr_ctr);
	r = poll(pfd, n, timeout_ms);
	if (r < 0)
		r = errno == EINTR ? 0 : pctr__error(errno, "poll: %s",
						     strerror(errno));
	for (int i = 0; r > 0 && i < n; i++)
		hup += !!(pfd[i].revents & POLLHUP);
	free(pfd);
	if (r > 0 && hup == n) {
		at = PCTR__RING_AT;
		while ((ring = pctr__ring_next(set, &at)))
			if (ring->pc && ring_ready(ring))
				return 1;
		return pctr__error(ESRCH, "every sampled task has exited");
	}
	return r > 0 ? 1 : r;
}
