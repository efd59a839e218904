/* SPDX-License-Identifier: MIT */
/*
 * record.c - the one decoder of the kernel's records (record.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "record.h"

/* a read position in a record: past @end, every take fails */
struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static const unsigned char *
take(struct cur *c, uint64_t n)
{
	const unsigned char *at = c->p;

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return at;
}

static uint64_t
take_u64(struct cur *c)
{
	const unsigned char *at = take(c, 8);
	uint64_t v = 0;

	if (at)
		memcpy(&v, at, sizeof(v));
	return v;
}

/* a pair of u32 in one u64 slot (TID, CPU) */
static void
take_u32s(struct cur *c, uint32_t *a, uint32_t *b)
{
	const unsigned char *at = take(c, 8);

	if (!at)
		return;
	memcpy(a, at, 4);
	if (b)
		memcpy(b, at + 4, 4);
}

static uint64_t
u64_field(struct cur *c, uint64_t type, uint64_t bit)
{
	return type & bit ? take_u64(c) : 0;
}

void
pctr__layout_of(struct pctr__layout *l, const struct perf_event_attr *a)
{
	l->sample_type = a->sample_type;
	l->read_format = a->read_format;
	l->regs_user = a->sample_regs_user;
	l->branch_type = a->branch_sample_type;
	l->id_all = a->sample_id_all;
}

/* the size of PERF_SAMPLE_READ's part at @c (read_format) */
static uint64_t
read_size(const struct pctr__layout *l, struct cur *c)
{
	uint64_t f = l->read_format, nr = 1, per, times;

	per = 8 + (f & PERF_FORMAT_ID ? 8 : 0) +
	      (f & PERF_FORMAT_LOST ? 8 : 0);
	times = (f & PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		(f & PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);
	if (!(f & PERF_FORMAT_GROUP))
		return per + times;
	nr = take_u64(c);
	if (nr > (uint64_t)(c->end - c->p) / per)
		return UINT64_MAX;
	return times + nr * per;
}

/* RAW and BRANCH_STACK: passed over */
static void
skip_raw_branch(const struct pctr__layout *l, struct cur *c)
{
	uint64_t t = l->sample_type, nr;

	if (t & PERF_SAMPLE_RAW) {
		const unsigned char *at = take(c, 4);
		uint32_t size = 0;

		if (at)
			memcpy(&size, at, 4);
		take(c, size);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		nr = take_u64(c);
		if (l->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			take(c, 8);
		take(c, nr > UINT64_MAX / 24 ? UINT64_MAX : nr * 24);
	}
}

static void
user_state(const struct pctr__layout *l, struct cur *c, struct pctr__sample *s)
{
	uint64_t size;

	if (l->sample_type & PERF_SAMPLE_REGS_USER) {
		s->regs_abi = take_u64(c);
		if (s->regs_abi != PERF_SAMPLE_REGS_ABI_NONE)
			s->regs = take(c, 8 * (uint64_t)__builtin_popcountll(
							l->regs_user));
	}
	if (!(l->sample_type & PERF_SAMPLE_STACK_USER))
		return;
	size = take_u64(c);
	if (size == 0)
		return;
	s->stack = take(c, size);
	s->stack_len = take_u64(c);
	if (s->stack_len > size)
		s->stack_len = size;
}

int
pctr__sample_decode(const struct pctr__layout *l, const void *rec,
		    struct pctr__sample *s)
{
	struct perf_event_header h;
	uint64_t t = l->sample_type;
	struct cur c;

	memcpy(&h, rec, sizeof(h));
	c = (struct cur){ (const unsigned char *)rec + sizeof(h),
			  (const unsigned char *)rec + h.size, h.size < sizeof(h) };
	memset(s, 0, sizeof(*s));
	s->misc = h.misc;
	s->id = u64_field(&c, t, PERF_SAMPLE_IDENTIFIER);
	s->ip = u64_field(&c, t, PERF_SAMPLE_IP);
	if (t & PERF_SAMPLE_TID)
		take_u32s(&c, &s->pid, &s->tid);
	s->time = u64_field(&c, t, PERF_SAMPLE_TIME);
	s->addr = u64_field(&c, t, PERF_SAMPLE_ADDR);
	if (t & PERF_SAMPLE_ID)
		s->id = take_u64(&c);
	s->stream_id = u64_field(&c, t, PERF_SAMPLE_STREAM_ID);
	if (t & PERF_SAMPLE_CPU)
		take_u32s(&c, &s->cpu, NULL);
	s->period = u64_field(&c, t, PERF_SAMPLE_PERIOD);
	if (t & PERF_SAMPLE_READ)
		take(&c, read_size(l, &c));
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->nr_chain = take_u64(&c);
		s->chain = take(&c, s->nr_chain > UINT64_MAX / 8
					    ? UINT64_MAX : 8 * s->nr_chain);
	}
	skip_raw_branch(l, &c);
	user_state(l, &c, s);
	return c.bad ? -EINVAL : 0;
}

uint32_t
pctr__chain_addresses(const struct pctr__sample *s, uint64_t *out,
		      uint32_t max, uint32_t *nr_kernel)
{
	uint64_t ctx = 0; /* none yet: the kernel's first, as it writes */
	uint32_t n = 0;

	*nr_kernel = 0;
	for (uint64_t i = 0; i < s->nr_chain && n < max; i++) {
		uint64_t ip = pctr__chain_at(s, i);
		bool kernel = ctx == (uint64_t)PERF_CONTEXT_KERNEL;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ip;
			continue;
		}
		if ((!kernel && ctx != (uint64_t)PERF_CONTEXT_USER) ||
		    (ip >> 63) != kernel)
			continue;
		/* a kernel entry after user ones would break the split */
		if (kernel && n != *nr_kernel)
			continue;
		out[n++] = ip;
		*nr_kernel += kernel;
	}
	return n;
}

void
pctr__sample_record(const struct pctr__layout *l,
		    const struct pctr__sample *s, struct pctr_sample_record *r,
		    uint64_t *chain, uint32_t max, uint64_t *regs)
{
	uint64_t t = l->sample_type;
	uint32_t nk = 0, n = pctr__chain_addresses(s, chain, max, &nk);

	memset(r, 0, sizeof(*r));
	r->kind = PCTR_REC_SAMPLE;
	r->pid = r->tid = r->ppid = r->ptid = r->cpu = -1;
	if (t & PERF_SAMPLE_TID) {
		r->pid = (pid_t)s->pid;
		r->tid = (pid_t)s->tid;
	}
	if (t & PERF_SAMPLE_CPU)
		r->cpu = (int)s->cpu;
	r->ip = s->ip;
	r->time = s->time;
	r->period = s->period;
	r->user = (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		  PERF_RECORD_MISC_USER;
	r->nr_callchain = n;
	r->nr_callchain_kernel = nk;
	r->callchain = n ? chain : NULL;
	if (s->regs) {
		size_t nr = (size_t)__builtin_popcountll(l->regs_user);

		memcpy(regs, s->regs, 8 * (nr < 64 ? nr : 64));
		r->regs_abi = s->regs_abi == PERF_SAMPLE_REGS_ABI_32 ? 32 : 64;
		r->regs_mask = l->regs_user;
		r->regs = regs;
	}
	r->stack = s->stack;
	r->stack_len = s->stack ? s->stack_len : 0;
}

/* the sample_id at the end of a side-band record: its time and cpu */
static void
sample_id(const struct pctr__layout *l, const unsigned char *end,
	  struct pctr_sample_record *r, size_t body)
{
	uint64_t t = l->sample_type;
	size_t size = pctr__sample_id_size(l);
	struct cur c = { end - size, end, size > body };
	uint32_t cpu = 0;

	if (!l->id_all || c.bad)
		return;
	take(&c, t & PERF_SAMPLE_TID ? 8 : 0);
	if (t & PERF_SAMPLE_TIME)
		r->time = take_u64(&c);
	take(&c, (t & PERF_SAMPLE_ID ? 8 : 0) +
			 (t & PERF_SAMPLE_STREAM_ID ? 8 : 0));
	if (t & PERF_SAMPLE_CPU) {
		take_u32s(&c, &cpu, NULL);
		r->cpu = (int)cpu;
	}
}

/* the string at @s, ended within [@s, @end), or NULL */
static const char *
string_in(const unsigned char *s, const unsigned char *end)
{
	return s < end && memchr(s, '\0', (size_t)(end - s)) ? (const char *)s
							      : NULL;
}

static uint32_t
u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t
u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * After the header (perf_event.h):
 *   MMAP       { u32 pid, tid; u64 addr, len, pgoff; char filename[] }
 *   MMAP2      { u32 pid, tid; u64 addr, len, pgoff; u32 maj, min;
 *                u64 ino, ino_generation; u32 prot, flags;
 *                char filename[] }
 *   COMM       { u32 pid, tid; char comm[] }
 *   FORK, EXIT { u32 pid, ppid, tid, ptid; u64 time }
 * then sample_id; the strings are NUL-padded to 8 bytes before it.
 */
static int
side_body(const struct perf_event_header *h, const unsigned char *p,
	  size_t body, struct pctr_sample_record *r)
{
	const unsigned char *end = p + body;
	bool two = h->type == PERF_RECORD_MMAP2;

	switch (h->type) {
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
		if (body < (two ? 64u : 32u) + 1 || (int32_t)u32_at(p) == -1)
			return -1;
		r->kind = PCTR_REC_MMAP;
		r->addr = u64_at(p + 8);
		r->len = u64_at(p + 16);
		r->pgoff = u64_at(p + 24);
		r->prot = two ? u32_at(p + 56)
			: h->misc & PERF_RECORD_MISC_MMAP_DATA
				? PROT_READ : PROT_READ | PROT_EXEC;
		r->name = string_in(p + (two ? 64 : 32), end);
		return r->name ? 0 : -1;
	case PERF_RECORD_COMM:
		r->kind = PCTR_REC_COMM;
		r->exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
		r->name = string_in(p + 8, end);
		return r->name ? 0 : -1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (body < 24)
			return -1;
		r->kind = h->type == PERF_RECORD_FORK ? PCTR_REC_FORK
						      : PCTR_REC_EXIT;
		r->ppid = (pid_t)u32_at(p + 4);
		r->tid = (pid_t)u32_at(p + 8);
		r->ptid = (pid_t)u32_at(p + 12);
		r->time = u64_at(p + 16);
		return 0;
	}
	return -1;
}

int
pctr__side_record(const struct pctr__layout *l, const void *rec,
		  struct pctr_sample_record *r)
{
	const unsigned char *p = (const unsigned char *)rec +
				 sizeof(struct perf_event_header);
	struct perf_event_header h;
	size_t body;

	memcpy(&h, rec, sizeof(h));
	memset(r, 0, sizeof(*r));
	r->ppid = r->ptid = r->cpu = -1;
	if (h.size < sizeof(h) + 8)
		return -1;
	body = h.size - sizeof(h);
	r->pid = (pid_t)u32_at(p);
	r->tid = (pid_t)u32_at(p + 4);
	sample_id(l, p + body, r, body);
	if (l->id_all && h.type != PERF_RECORD_FORK &&
	    h.type != PERF_RECORD_EXIT) {
		/* the strings end before sample_id */
		size_t trailer = pctr__sample_id_size(l);

		if (trailer >= body)
			return -1;
		body -= trailer;
	}
	return side_body(&h, p, body, r);
}

size_t
pctr__time_offset(const struct pctr__layout *l,
		  const struct perf_event_header *h)
{
	uint64_t t = l->sample_type;
	size_t off, from_end;

	if (!(t & PERF_SAMPLE_TIME))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		off = sizeof(*h) + (t & PERF_SAMPLE_IDENTIFIER ? 8 : 0) +
		      (t & PERF_SAMPLE_IP ? 8 : 0) +
		      (t & PERF_SAMPLE_TID ? 8 : 0);
		return off + 8 <= h->size ? off : 0;
	}
	if (!l->id_all || h->type >= PERF_RECORD_MAX)
		return 0;
	/* the time and what follows it in sample_id, from the end */
	from_end = pctr__sample_id_size(l) - (t & PERF_SAMPLE_TID ? 8 : 0);
	/* a record too short for its sample_id has no time */
	if (h->size < sizeof(*h) + from_end)
		return 0;
	return h->size - from_end;
}

uint64_t
pctr__lost_count(const void *rec)
{
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	return h.size >= sizeof(h) + 16
		       ? u64_at((const unsigned char *)rec + sizeof(h) + 8)
		       : 0;
}

/* ---- encoding: the same layout, written ---------------------------------- */

/* a write position; past @end nothing is written, @n counts on */
struct out {
	unsigned char *p;
	size_t n, cap;
};

static void
put(struct out *o, const void *v, size_t n)
{
	/* n 0: an empty part, whose pointer may be NULL */
	if (n && o->n + n <= o->cap)
		memcpy(o->p + o->n, v, n);
	o->n += n;
}

static void
put_u64(struct out *o, uint64_t v)
{
	put(o, &v, sizeof(v));
}

/* the chain with the kernel's context markers: kernel addresses, user */
static void
put_chain(struct out *o, const struct pctr_sample_record *r)
{
	uint32_t nk = r->nr_callchain_kernel, n = r->nr_callchain;

	nk = nk < n ? nk : n;
	put_u64(o, n + (nk > 0) + (n > nk));
	if (nk)
		put_u64(o, (uint64_t)PERF_CONTEXT_KERNEL);
	put(o, r->callchain, nk * sizeof(uint64_t));
	if (n > nk)
		put_u64(o, (uint64_t)PERF_CONTEXT_USER);
	if (n > nk)
		put(o, r->callchain + nk, (n - nk) * sizeof(uint64_t));
}

/* REGS_USER and STACK_USER; no registers (a kernel thread), no stack */
static void
put_user_state(struct out *o, const struct pctr__layout *l,
	       const struct pctr_sample_record *r)
{
	static const char zero[8];
	bool regs = r->regs_abi && r->regs && r->regs_mask == l->regs_user;
	uint64_t size = regs ? (r->stack_len + 7) & ~7ull : 0;

	if (l->sample_type & PERF_SAMPLE_REGS_USER) {
		put_u64(o, !regs ? PERF_SAMPLE_REGS_ABI_NONE
			: r->regs_abi == 32 ? PERF_SAMPLE_REGS_ABI_32
					    : PERF_SAMPLE_REGS_ABI_64);
		if (regs)
			put(o, r->regs,
			    8 * (size_t)__builtin_popcountll(l->regs_user));
	}
	if (!(l->sample_type & PERF_SAMPLE_STACK_USER))
		return;
	put_u64(o, size);
	if (!size)
		return;
	put(o, r->stack, r->stack_len);
	put(o, zero, size - r->stack_len);
	put_u64(o, r->stack_len);
}

size_t
pctr__sample_encode(const struct pctr__layout *l,
		    const struct pctr_sample_record *r, unsigned char *buf,
		    size_t cap)
{
	uint64_t t = l->sample_type;
	uint32_t ids[2] = { (uint32_t)r->pid, (uint32_t)r->tid };
	uint32_t cpu[2] = { (uint32_t)r->cpu, 0 };
	struct perf_event_header h = {
		PERF_RECORD_SAMPLE,
		r->user ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL, 0
	};
	struct out o = { buf, sizeof(h), cap };

	if (t & PERF_SAMPLE_IP)
		put_u64(&o, r->ip);
	if (t & PERF_SAMPLE_TID)
		put(&o, ids, sizeof(ids));
	if (t & PERF_SAMPLE_TIME)
		put_u64(&o, r->time);
	if (t & PERF_SAMPLE_CPU)
		put(&o, cpu, sizeof(cpu));
	if (t & PERF_SAMPLE_PERIOD)
		put_u64(&o, r->period);
	if (t & PERF_SAMPLE_CALLCHAIN)
		put_chain(&o, r);
	put_user_state(&o, l, r);
	if (o.n > cap || o.n > UINT16_MAX)
		return 0;
	h.size = (uint16_t)o.n;
	memcpy(buf, &h, sizeof(h));
	return o.n;
}

size_t
pctr__sample_id_encode(const struct pctr__layout *l,
		       const struct pctr_sample_record *r, unsigned char *buf)
{
	uint64_t t = l->sample_type;
	uint32_t ids[2] = { (uint32_t)r->pid, (uint32_t)r->tid };
	uint32_t cpu[2] = { (uint32_t)(r->cpu < 0 ? 0 : r->cpu), 0 };
	struct out o = { buf, 0, PCTR__SAMPLE_ID_MAX };

	if (t & PERF_SAMPLE_TID)
		put(&o, ids, sizeof(ids));
	if (t & PERF_SAMPLE_TIME)
		put_u64(&o, r->time);
	if (t & PERF_SAMPLE_ID)
		put_u64(&o, 0);
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64(&o, 0);
	if (t & PERF_SAMPLE_CPU)
		put(&o, cpu, sizeof(cpu));
	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64(&o, 0);
	return o.n;
}
