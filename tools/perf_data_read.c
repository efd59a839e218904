/* SPDX-License-Identifier: MIT */
/*
 * perf_data_read.c - a perf.data file read back as the library's records
 * (perf_data.h): pctr profile --input.
 *
 * Files of pctr profile --perf-data and of perf record alike: the header,
 * the attributes (all with one sample layout), the data section, and of
 * the feature sections HEADER_EVENT_DESC for the event's name.  Records:
 *   PERF_RECORD_SAMPLE  the fields up to the call chain, in the kernel's
 *                       order (IDENTIFIER, IP, TID, TIME, ADDR, ID,
 *                       STREAM_ID, CPU, PERIOD, READ, CALLCHAIN, and
 *                       past RAW, REGS_USER and STACK_USER, handed on for
 *                       unwinding as PCTR_SAMPLE_USER_STACK gives them:
 *                       perf record --call-graph dwarf's); perf's
 *                       context markers left out of the chain;
 *   PERF_RECORD_MMAP2, _MMAP (but the kernel's), _COMM, _FORK, _EXIT;
 *   PERF_RECORD_LOST    its count added up;
 *   anything else skipped by its size.
 * perf record writes each CPU's buffer in turn, so a process's mapping can
 * come after a sample taken in it later on another CPU.  With
 * sample_id_all the side-band records carry the time in their trailer, and
 * the records are handed on in time order (stable: records without a time,
 * such as those perf synthesizes for processes already running, first).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "perf_data.h"

#define PERF_MAGIC2 0x32454c4946524550ull /* "PERFILE2", little-endian */
#define HEADER_EVENT_DESC 12 /* feature bit (perf's util/header.h) */
#define MAX_CHAIN 512

struct reader {
	const uint8_t *p;
	size_t size;
	uint64_t sample_type, read_format, period;
	uint64_t regs_mask; /* sample_regs_user */
	bool id_all;
	const char *why; /* what is wrong with the file */
};

/* a record: its header copied out (records need not be aligned) */
struct rec {
	const uint8_t *p;
	struct perf_event_header h;
	uint64_t time;
	size_t order;
};

static uint64_t
u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* [@off, @off + @len) within the file */
static bool
inside(const struct reader *rd, uint64_t off, uint64_t len)
{
	return off <= rd->size && len <= rd->size - off;
}

/* ---- header, attributes, event name ------------------------------------ */

/* samples with registers and stacks this reader finds (user_part()) */
static bool
user_stack(const struct reader *rd)
{
	uint64_t t = rd->sample_type;

	return (t & PERF_SAMPLE_REGS_USER) && (t & PERF_SAMPLE_STACK_USER) &&
	       !(t & PERF_SAMPLE_BRANCH_STACK) && rd->regs_mask;
}

/*
 * The attributes: every one with the first one's sample layout (records
 * of several layouts would need the sample ids to tell them apart).
 */
static int
read_attrs(struct reader *rd, struct perf_data_info *info)
{
	uint64_t attr_size = u64_at(rd->p + 16), off = u64_at(rd->p + 24),
		 size = u64_at(rd->p + 32);

	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || !inside(rd, off, size) ||
	    size < attr_size) {
		rd->why = "no event attributes";
		return -EINVAL;
	}
	for (uint64_t a = off; a + attr_size <= off + size; a += attr_size) {
		struct perf_event_attr attr = { 0 };
		size_t n = attr_size - 16 < sizeof(attr) ? attr_size - 16
							 : sizeof(attr);

		memcpy(&attr, rd->p + a, n);
		if (a == off) {
			rd->sample_type = attr.sample_type;
			rd->read_format = attr.read_format;
			rd->regs_mask = attr.sample_regs_user;
			rd->id_all = attr.sample_id_all;
			rd->period = attr.freq ? 0 : attr.sample_period;
			info->freq = attr.freq ? attr.sample_freq : 0;
			info->period = rd->period;
			snprintf(info->event, sizeof(info->event),
				 "type %u config %#llx", attr.type,
				 (unsigned long long)attr.config);
		} else if (attr.sample_type != rd->sample_type) {
			rd->why = "events with different sample layouts";
			return -EINVAL;
		}
	}
	if (!(rd->sample_type & PERF_SAMPLE_IP) ||
	    !(rd->sample_type & PERF_SAMPLE_TID)) {
		rd->why = "samples without their address or thread";
		return -EINVAL;
	}
	info->callchain = rd->sample_type & PERF_SAMPLE_CALLCHAIN;
	info->user_stack = user_stack(rd);
	return 0;
}

/*
 * HEADER_EVENT_DESC: u32 events, u32 attr size, then per event the attr,
 * u32 ids, the name (u32 length, then the string), the ids.  The first
 * event's name, when the file has the section.
 */
static void
read_event_name(const struct reader *rd, struct perf_data_info *info)
{
	uint64_t feat = u64_at(rd->p + 72), sec, off, len, name;
	uint64_t data_end = u64_at(rd->p + 40) + u64_at(rd->p + 48);
	uint32_t slen;

	if (!(feat & 1ull << HEADER_EVENT_DESC))
		return;
	/* the sections' table: one entry per feature bit set, in bit order */
	sec = data_end + 16 * (uint64_t)__builtin_popcountll(
				       feat & ((1ull << HEADER_EVENT_DESC) - 1));
	if (!inside(rd, sec, 16))
		return;
	off = u64_at(rd->p + sec);
	len = u64_at(rd->p + sec + 8);
	if (!inside(rd, off, len) || len < 8 || u32_at(rd->p + off) == 0)
		return;
	/* past the counts, the first attr and its ids' count */
	name = off + 8 + u32_at(rd->p + off + 4) + 4;
	if (name + 4 > off + len)
		return;
	slen = u32_at(rd->p + name);
	if (slen == 0 || name + 4 + slen > off + len)
		return;
	snprintf(info->event, sizeof(info->event), "%.*s",
		 (int)strnlen((const char *)rd->p + name + 4, slen),
		 (const char *)rd->p + name + 4);
}

static int
read_header(struct reader *rd, struct perf_data_info *info)
{
	if (rd->size < 104 || u64_at(rd->p) != PERF_MAGIC2) {
		rd->why = "not a perf.data file (version 2, little-endian)";
		return -EINVAL;
	}
	if (u64_at(rd->p + 8) != 104) {
		rd->why = "a header of another size than perf.data's 104 bytes";
		return -EINVAL;
	}
	if (read_attrs(rd, info) < 0)
		return -EINVAL;
	read_event_name(rd, info);
	return 0;
}

/* ---- records ------------------------------------------------------------ */

/* the size of a sample's PERF_SAMPLE_READ part; 0 if it runs past @end */
static size_t
read_part(const struct reader *rd, const uint8_t *p, const uint8_t *end)
{
	uint64_t f = rd->read_format;
	size_t per = 8 + (f & PERF_FORMAT_ID ? 8 : 0) +
		     (f & PERF_FORMAT_LOST ? 8 : 0);
	size_t times = (f & PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		       (f & PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);
	uint64_t nr;

	if (!(f & PERF_FORMAT_GROUP))
		return per + times;
	if (end - p < 8)
		return 0;
	nr = u64_at(p);
	if (nr > (uint64_t)(end - p) / per)
		return 0;
	return 8 + times + nr * per;
}

/*
 * After the call chain: RAW { u32 size; data }, then REGS_USER { abi;
 * regs[weight(sample_regs_user)] } and STACK_USER { size; data[size];
 * dyn_size }, as the kernel writes them (sampling.c).  The registers are
 * copied out to @regs (records need not be aligned here).  False if the
 * record is too short.
 */
static bool
user_part(const struct reader *rd, const uint8_t *p, const uint8_t *end,
	  struct pctr_sample_record *r, uint64_t *regs)
{
	size_t nr = (size_t)__builtin_popcountll(rd->regs_mask);
	uint64_t abi, size, dyn;

	if (rd->sample_type & PERF_SAMPLE_RAW) {
		if (end - p < 4 || (size_t)(end - p) - 4 < u32_at(p))
			return false;
		p += 4 + u32_at(p);
	}
	if (end - p < 8)
		return false;
	abi = u64_at(p);
	p += 8;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if (nr > 64 || (size_t)(end - p) / 8 < nr)
			return false;
		memcpy(regs, p, 8 * nr);
		r->regs_abi = abi == PERF_SAMPLE_REGS_ABI_32 ? 32 : 64;
		r->regs_mask = rd->regs_mask;
		r->regs = regs;
		p += 8 * nr;
	}
	if (end - p < 8)
		return false;
	size = u64_at(p);
	p += 8;
	if (size == 0)
		return true;
	if ((size_t)(end - p) < 8 || (size_t)(end - p) - 8 < size)
		return false;
	dyn = u64_at(p + size);
	r->stack = p;
	r->stack_len = dyn < size ? dyn : size;
	return true;
}

/* a sample's fields into @r; false if the record is too short */
static bool
parse_sample(const struct reader *rd, const struct rec *rec,
	     struct pctr_sample_record *r, uint64_t *chain)
{
	static uint64_t regs[64];
	const struct perf_event_header *h = &rec->h;
	const uint8_t *p = rec->p + sizeof(*h), *end = rec->p + h->size;
	uint64_t t = rd->sample_type, nr;

#define TAKE(n)                                                               \
	do {                                                                  \
		if ((size_t)(end - p) < (n))                                  \
			return false;                                         \
		p += (n);                                                     \
	} while (0)
	memset(r, 0, sizeof(*r));
	r->kind = PCTR_REC_SAMPLE;
	r->period = rd->period ? rd->period : 1;
	r->user = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		  PERF_RECORD_MISC_USER;
	if (t & PERF_SAMPLE_IDENTIFIER)
		TAKE(8);
	TAKE(8);
	r->ip = u64_at(p - 8);
	TAKE(8);
	r->pid = (pid_t)u32_at(p - 8);
	r->tid = (pid_t)u32_at(p - 4);
	if (t & PERF_SAMPLE_TIME) {
		TAKE(8);
		r->time = u64_at(p - 8);
	}
	if (t & PERF_SAMPLE_ADDR)
		TAKE(8);
	if (t & PERF_SAMPLE_ID)
		TAKE(8);
	if (t & PERF_SAMPLE_STREAM_ID)
		TAKE(8);
	if (t & PERF_SAMPLE_CPU)
		TAKE(8);
	if (t & PERF_SAMPLE_PERIOD) {
		TAKE(8);
		r->period = u64_at(p - 8);
	}
	if (t & PERF_SAMPLE_READ) {
		size_t n = read_part(rd, p, end);

		if (n == 0)
			return false;
		TAKE(n);
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		TAKE(8);
		nr = u64_at(p - 8);
		if (nr > (uint64_t)(end - p) / 8)
			return false;
		for (uint64_t i = 0; i < nr; i++) {
			uint64_t ip = u64_at(p + 8 * i);

			if (ip < PERF_CONTEXT_MAX &&
			    r->nr_callchain < MAX_CHAIN)
				chain[r->nr_callchain++] = ip;
		}
		r->callchain = chain;
		p += 8 * nr;
	}
	return !user_stack(rd) || user_part(rd, p, end, r, regs);
#undef TAKE
}

/* a NUL-terminated string within the record, or NULL */
static const char *
string_in(const struct rec *rec, const uint8_t *s)
{
	const uint8_t *end = rec->p + rec->h.size;

	return s < end && memchr(s, '\0', (size_t)(end - s)) ? (const char *)s
							      : NULL;
}

/* a side-band record into @r; false to skip it */
static bool
parse_sideband(const struct rec *rec, struct pctr_sample_record *r)
{
	const struct perf_event_header *h = &rec->h;
	const uint8_t *p = rec->p + sizeof(*h);
	size_t body = h->size - sizeof(*h);

	memset(r, 0, sizeof(*r));
	switch (h->type) {
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP: {
		bool two = h->type == PERF_RECORD_MMAP2;
		size_t name = two ? 8 + 24 + 24 + 8 : 8 + 24;

		if (body < name + 1 || (int32_t)u32_at(p) == -1)
			return false; /* short, or the kernel's own */
		r->kind = PCTR_REC_MMAP;
		r->pid = (pid_t)u32_at(p);
		r->tid = (pid_t)u32_at(p + 4);
		r->addr = u64_at(p + 8);
		r->len = u64_at(p + 16);
		r->pgoff = u64_at(p + 24);
		r->prot = two ? u32_at(p + 56)
			      : h->misc & PERF_RECORD_MISC_MMAP_DATA
				  ? PROT_READ
				  : PROT_READ | PROT_EXEC;
		r->name = string_in(rec, p + name);
		return r->name != NULL;
	}
	case PERF_RECORD_COMM:
		if (body < 9)
			return false;
		r->kind = PCTR_REC_COMM;
		r->pid = (pid_t)u32_at(p);
		r->tid = (pid_t)u32_at(p + 4);
		r->exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		r->name = string_in(rec, p + 8);
		return r->name != NULL;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (body < 24)
			return false;
		r->kind = h->type == PERF_RECORD_FORK ? PCTR_REC_FORK
						      : PCTR_REC_EXIT;
		r->pid = (pid_t)u32_at(p);
		r->ppid = (pid_t)u32_at(p + 4);
		r->tid = (pid_t)u32_at(p + 8);
		r->ptid = (pid_t)u32_at(p + 12);
		r->time = u64_at(p + 16);
		return true;
	}
	return false;
}

/*
 * A record's time: a sample's own; a side-band record's from its
 * sample_id_all trailer (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER as the
 * sample layout has them, at the record's end); 0 when it has none.
 */
static uint64_t
record_time(const struct reader *rd, const uint8_t *at,
	    const struct perf_event_header *h)
{
	uint64_t t = rd->sample_type;
	size_t after = 0;

	if (!(t & PERF_SAMPLE_TIME))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t off = sizeof(*h) + 8 + 8 +
			     (t & PERF_SAMPLE_IDENTIFIER ? 8 : 0);

		return off + 8 <= h->size ? u64_at(at + off) : 0;
	}
	if (!rd->id_all || h->type >= PERF_RECORD_MAX)
		return 0;
	after = (t & PERF_SAMPLE_ID ? 8 : 0) +
		(t & PERF_SAMPLE_STREAM_ID ? 8 : 0) +
		(t & PERF_SAMPLE_CPU ? 8 : 0) +
		(t & PERF_SAMPLE_IDENTIFIER ? 8 : 0) + 8;
	return h->size >= sizeof(*h) + after ? u64_at(at + h->size - after)
					     : 0;
}

static int
cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* the data section's records, in time order where the file gives it */
static int
collect(struct reader *rd, struct rec **out, size_t *nr)
{
	uint64_t off = u64_at(rd->p + 40), size = u64_at(rd->p + 48), at;
	size_t n = 0, cap = 0;
	struct rec *v = NULL;

	if (!inside(rd, off, size)) {
		rd->why = "a data section past the end of the file (cut short?)";
		return -EINVAL;
	}
	for (at = off; at + sizeof(struct perf_event_header) <= off + size;) {
		struct perf_event_header h;

		memcpy(&h, rd->p + at, sizeof(h));
		if (h.size < sizeof(h) || at + h.size > off + size) {
			free(v);
			rd->why = "a record that runs past the data section";
			return -EINVAL;
		}
		if (n == cap) {
			struct rec *g = realloc(v, (cap = cap ? 2 * cap : 4096) *
							   sizeof(*v));

			if (!g) {
				free(v);
				return -ENOMEM;
			}
			v = g;
		}
		v[n] = (struct rec){ rd->p + at, h,
				     record_time(rd, rd->p + at, &h), n };
		n++;
		at += h.size;
	}
	if (rd->id_all && n > 1)
		qsort(v, n, sizeof(*v), cmp_rec);
	*out = v;
	*nr = n;
	return 0;
}

static int
hand_on(struct reader *rd, const struct rec *v, size_t n,
	struct perf_data_info *info,
	int (*cb)(const struct pctr_sample_record *, void *), void *arg)
{
	static uint64_t chain[MAX_CHAIN];
	struct pctr_sample_record r;

	for (size_t i = 0; i < n; i++) {
		const struct perf_event_header *h = &v[i].h;
		bool ok;

		if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
			info->lost += u64_at(v[i].p + sizeof(*h) + 8);
			continue;
		}
		if (h->type == PERF_RECORD_SAMPLE) {
			if (!parse_sample(rd, &v[i], &r, chain)) {
				rd->why = "a sample shorter than its layout";
				return -EINVAL;
			}
			info->samples++;
			ok = true;
		} else {
			ok = parse_sideband(&v[i], &r);
		}
		if (ok && cb(&r, arg) != 0)
			return -ECANCELED;
	}
	return 0;
}

int
perf_data_parse(const void *p, size_t size, struct perf_data_info *info,
		int (*cb)(const struct pctr_sample_record *, void *), void *arg)
{
	struct reader rd = { .p = p, .size = size };
	struct rec *v = NULL;
	size_t n = 0;
	int r;

	memset(info, 0, sizeof(*info));
	r = read_header(&rd, info);
	if (r == 0)
		r = collect(&rd, &v, &n);
	if (r == 0)
		r = hand_on(&rd, v, n, info, cb, arg);
	info->why = rd.why;
	free(v);
	return r;
}

int
perf_data_read(const char *path, struct perf_data_info *info,
	       int (*cb)(const struct pctr_sample_record *, void *), void *arg)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	void *map;

	memset(info, 0, sizeof(*info));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size == 0) {
		r = st.st_size == 0 ? -EINVAL : -errno;
		info->why = "an empty file";
		close(fd);
		return r;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	r = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	r = perf_data_parse(map, (size_t)st.st_size, info, cb, arg);
	munmap(map, (size_t)st.st_size);
	return r;
}
