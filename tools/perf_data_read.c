/* SPDX-License-Identifier: MIT */
/*
 * perf_data_read.c - a perf.data file read back as the library's records
 * (perf_data.h): pctr profile --input.
 *
 * Files of pctr profile --perf-data and of perf record alike: the header,
 * the attributes (all with one sample layout), the data section, and of
 * the feature sections HEADER_EVENT_DESC for the event's name.  Records
 * are decoded by the library's own decoder (src/record/record.h), in the
 * layout of the file's attribute:
 *   PERF_RECORD_SAMPLE  as pctr_set_sampling_read() hands them on, the
 *                       registers and stack copies of perf record
 *                       --call-graph dwarf's for unwinding, the chain's
 *                       kernel part counted from perf's context markers;
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
#include "record.h"

#define PERF_MAGIC2 0x32454c4946524550ull /* "PERFILE2", little-endian */
#define HEADER_EVENT_DESC 12 /* feature bit (perf's util/header.h) */
#define MAX_CHAIN 512

struct reader {
	const uint8_t *p;
	size_t size;
	struct pctr__layout layout; /* the first attribute's (record.h) */
	uint64_t period;
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

/* samples with registers and stacks to unwind */
static bool
user_stack(const struct reader *rd)
{
	uint64_t t = rd->layout.sample_type;

	return (t & PERF_SAMPLE_REGS_USER) && (t & PERF_SAMPLE_STACK_USER) &&
	       rd->layout.regs_user;
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
			pctr__layout_of(&rd->layout, &attr);
			rd->period = attr.freq ? 0 : attr.sample_period;
			info->freq = attr.freq ? attr.sample_freq : 0;
			info->period = rd->period;
			snprintf(info->event, sizeof(info->event),
				 "type %u config %#llx", attr.type,
				 (unsigned long long)attr.config);
		} else if (attr.sample_type != rd->layout.sample_type) {
			rd->why = "events with different sample layouts";
			return -EINVAL;
		}
	}
	if (!(rd->layout.sample_type & PERF_SAMPLE_IP) ||
	    !(rd->layout.sample_type & PERF_SAMPLE_TID)) {
		rd->why = "samples without their address or thread";
		return -EINVAL;
	}
	info->callchain = rd->layout.sample_type & PERF_SAMPLE_CALLCHAIN;
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

/* a sample into @r (record.c); false if it is shorter than its layout */
static bool
parse_sample(const struct reader *rd, const struct rec *rec,
	     struct pctr_sample_record *r, uint64_t *chain)
{
	static uint64_t regs[64];
	struct pctr__sample s;

	if (pctr__sample_decode(&rd->layout, rec->p, &s) < 0)
		return false;
	pctr__sample_record(&rd->layout, &s, r, chain, MAX_CHAIN, regs);
	if (!(rd->layout.sample_type & PERF_SAMPLE_PERIOD))
		r->period = rd->period ? rd->period : 1;
	if (!user_stack(rd)) {
		r->regs_abi = 0;
		r->regs = NULL;
		r->stack = NULL;
		r->stack_len = 0;
	}
	return true;
}

/* a record's time, where record.c says it is; 0 when it has none */
static uint64_t
record_time(const struct reader *rd, const uint8_t *at,
	    const struct perf_event_header *h)
{
	size_t off = pctr__time_offset(&rd->layout, h);

	return off ? u64_at(at + off) : 0;
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
	if (rd->layout.id_all && n > 1)
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

		if (h->type == PERF_RECORD_LOST) {
			info->lost += pctr__lost_count(v[i].p);
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
			ok = pctr__side_record(&rd->layout, v[i].p, &r) == 0;
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
