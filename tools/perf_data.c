/* SPDX-License-Identifier: MIT */
/*
 * perf_data.c - perf.data, version 2 (perf_data.h).
 *
 * The file: a header, one attribute (the sampled event, with the sample
 * layout of the records below), then the records, in the kernel's own
 * layouts (<linux/perf_event.h>), then the feature sections.
 *
 * The attribute is the one the set sampled with (pctr_set_sampling_attr()):
 * the samples are written in its sample layout by the library's record
 * layer (src/record/record.h, pctr__sample_encode(), beside the decoder
 * that reads them), with PERIOD always (the library hands on the
 * configured period where the kernel gave none).
 * Its sample_id_all is 1: the side-band records end with a sample_id
 * (TID, TIME, CPU as the layout has them, written by the record layer,
 * pctr__sample_id_encode()), so that readers order them with the samples
 * by time and show their times.  The call chain keeps the kernel's
 * PERF_CONTEXT_KERNEL and _USER markers, put back where the library said
 * the kernel's part ends (nr_callchain_kernel).  Records:
 *   PERF_RECORD_MMAP   the kernel, "[kernel.kallsyms]_text" from _text, as
 *                      perf record writes it, so that perf names kernel
 *                      samples from /proc/kallsyms;
 *   PERF_RECORD_SAMPLE { ip, pid, tid, time, cpu, period[, nr, ips]
 *                      [, abi, regs[], size, stack[size], dyn_size] }, the
 *                      fields the layout has;
 *   PERF_RECORD_MMAP2, _COMM, _FORK, _EXIT as the library read them.
 * A stack copy is written with its dyn_size bytes only (size rounded up
 * to 8), not the whole copy the kernel reserved.
 *
 * The feature sections (perf's util/header.c; a table of { offset, size }
 * after the data, one entry per feature bit set, in bit order): the
 * build-ids of the modules the samples fell in, hostname, OS release,
 * version, architecture, CPUs, command line, and the event's description
 * (its attribute and name for the attribute's one id, 1, which is how
 * perf finds it).  Strings are { u32 len; char s[len] }, NUL-padded to 64.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "build_id.h"
#include "perf_data.h"
#include "record.h"

#define PERF_MAGIC2 0x32454c4946524550ull /* "PERFILE2", little-endian */

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic, size, attr_size;
	struct file_section attrs, data, event_types;
	uint64_t features[4]; /* HEADER_FEAT_BITS */
};

struct file_attr {
	struct perf_event_attr attr;
	struct file_section ids; /* the one id, EVENT_ID */
};

/* feature bits (perf's util/header.h) */
enum {
	HEADER_BUILD_ID = 2,
	HEADER_HOSTNAME = 3,
	HEADER_OSRELEASE = 4,
	HEADER_VERSION = 5,
	HEADER_ARCH = 6,
	HEADER_NRCPUS = 7,
	HEADER_CMDLINE = 11,
	HEADER_EVENT_DESC = 12,
};
#define EVENT_ID 1 /* the attribute's one id */
#define NAME_ALIGN 64 /* perf's padding of a header string */
#define MISC_BUILD_ID_SIZE (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */

/* a stream written to, its first error kept */
struct sink {
	FILE *f;
	uint64_t n;
	int err;
};

/* a module the samples may fall in (build-ids) */
struct dso {
	char *name;
	int hit;
};

/* an executable mapping of a process */
struct map {
	pid_t pid;
	uint64_t start, end;
	size_t dso;
};

struct perf_data {
	struct sink out;
	struct perf_event_attr attr;
	char name[PCTR_NAME_MAX + 2];
	char **cmdline;
	struct pctr__layout layout; /* the records', @attr's (record.h) */
	unsigned char *rec; /* one record as it is built */
	struct dso *dso;
	size_t ndso;
	struct map *map;
	size_t nmap;
	pid_t (*fork)[2]; /* { child, parent } */
	size_t nfork;
	int kernel_hit;
	uint64_t samples;
	int err; /* ENOMEM */
};

static void
put(struct sink *s, const void *p, size_t n)
{
	if (!s->err && n && fwrite(p, 1, n, s->f) != n)
		s->err = errno ? errno : EIO; /* and the stream's: at close */
	s->n += n;
}

static void
put_u64(struct sink *s, uint64_t v)
{
	put(s, &v, sizeof(v));
}

static void
put_u32(struct sink *s, uint32_t v)
{
	put(s, &v, sizeof(v));
}

static void
put_zero(struct sink *s, size_t n)
{
	static const char zero[NAME_ALIGN];

	while (n) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);

		put(s, zero, k);
		n -= k;
	}
}

/* a record's string: NUL-terminated and padded with NULs to 8 bytes */
static size_t
padded_len(const char *s)
{
	return (strlen(s) + 8) & ~(size_t)7;
}

static void
put_str(struct sink *s, const char *str, size_t padded)
{
	put(s, str, strlen(str));
	put_zero(s, padded - strlen(str));
}

/* a header string: u32 length, the string NUL-padded to 64 */
static void
put_header_str(struct sink *s, const char *str)
{
	uint32_t len = (uint32_t)((strlen(str) + NAME_ALIGN) &
				  ~(size_t)(NAME_ALIGN - 1));

	put_u32(s, len);
	put_str(s, str, len);
}

static void
put_header(struct sink *s, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };

	put(s, &h, sizeof(h));
}

/* a side-band record's sample_id, as the record layer lays it out */
static void
put_id(struct sink *s, const struct pctr__layout *l,
       const struct pctr_sample_record *r)
{
	unsigned char id[PCTR__SAMPLE_ID_MAX];

	put(s, id, pctr__sample_id_encode(l, r, id));
}

/* _text from /proc/kallsyms, 0 when hidden (kptr_restrict) or absent */
static uint64_t
kernel_text(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], type, name[128];
	unsigned long long addr;
	uint64_t text = 0;

	while (f && !text && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_text"))
			text = addr;
	if (f)
		fclose(f);
	return text;
}

static void
put_kernel_mmap(struct sink *s, const struct pctr__layout *l)
{
	static const char name[] = "[kernel.kallsyms]_text";
	/* as perf synthesizes it: the kernel's, at time 0 */
	const struct pctr_sample_record id = { .pid = -1, .tid = 0 };
	uint64_t text = kernel_text();
	size_t size = sizeof(struct perf_event_header) + 4 + 4 + 8 * 3 +
		      padded_len(name) + pctr__sample_id_size(l);

	if (!text)
		return;
	put_header(s, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, size);
	put_u32(s, (uint32_t)-1); /* pid: the kernel */
	put_u32(s, 0);
	put_u64(s, text);
	put_u64(s, ~0ull - text);
	put_u64(s, text); /* pgoff: perf's relocation reference */
	put_str(s, name, padded_len(name));
	put_id(s, l, &id);
}

static char **
copy_argv(char *const *argv)
{
	size_t n = 0;
	char **v;

	while (argv && argv[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++)
		if (!(v[i] = strdup(argv[i]))) {
			while (i-- > 0)
				free(v[i]);
			free(v);
			return NULL;
		}
	return v;
}

static void
free_pd(struct perf_data *pd)
{
	for (size_t i = 0; pd->cmdline && pd->cmdline[i]; i++)
		free(pd->cmdline[i]);
	for (size_t i = 0; i < pd->ndso; i++)
		free(pd->dso[i].name);
	free(pd->cmdline);
	free(pd->dso);
	free(pd->map);
	free(pd->fork);
	free(pd->rec);
	free(pd);
}

int
perf_data_open(struct perf_data **pdp, FILE *f, const struct pctr_set *set,
	       int idx, char *const *cmdline)
{
	struct file_header h = { 0 };
	struct perf_data *pd = calloc(1, sizeof(*pd));
	int r;

	if (!pd)
		return -ENOMEM;
	r = pctr_set_sampling_attr(set, idx, &pd->attr, sizeof(pd->attr));
	pd->cmdline = copy_argv(cmdline);
	pd->rec = malloc(UINT16_MAX + 1);
	if (r < 0 || !pd->cmdline || !pd->rec) {
		free_pd(pd);
		return r < 0 ? r : -ENOMEM;
	}
	pd->attr.sample_type = (pd->attr.sample_type & PCTR__ENCODABLE) |
			       PERF_SAMPLE_PERIOD;
	pd->attr.sample_id_all = 1;
	pd->attr.read_format = 0;
	pd->attr.mmap = pd->attr.comm = pd->attr.task = pd->attr.mmap2 = 1;
	pctr__layout_of(&pd->layout, &pd->attr);
	pctr_event_display_name(pctr_set_event(set, idx), pd->name,
				sizeof(pd->name));
	pd->out.f = f;
	/* the header and the attribute again at the end, with the sizes */
	put(&pd->out, &h, sizeof(h));
	put(&pd->out, &pd->attr, sizeof(pd->attr));
	put_u64(&pd->out, 0);
	put_u64(&pd->out, 0);
	put_u64(&pd->out, EVENT_ID);
	pd->out.n = 0;
	put_kernel_mmap(&pd->out, &pd->layout);
	*pdp = pd;
	return 0;
}

/* ---- the modules hit, for their build-ids ------------------------------- */

static int
grow(void **p, size_t n, size_t size)
{
	void *g;

	if (n & (n - 1) && n >= 16)
		return 0; /* room left: capacities are powers of two */
	g = realloc(*p, (n < 16 ? 16 : 2 * n) * size);
	if (!g)
		return -1;
	*p = g;
	return 0;
}

static size_t
dso_index(struct perf_data *pd, const char *name)
{
	for (size_t i = pd->ndso; i-- > 0;)
		if (!strcmp(pd->dso[i].name, name))
			return i;
	if (grow((void **)&pd->dso, pd->ndso, sizeof(*pd->dso)) < 0 ||
	    !(pd->dso[pd->ndso].name = strdup(name))) {
		pd->err = ENOMEM;
		return SIZE_MAX;
	}
	pd->dso[pd->ndso].hit = 0;
	return pd->ndso++;
}

/* a file mapped to execute: "[vdso]", "//anon" and the like are not */
static void
note_map(struct perf_data *pd, const struct pctr_sample_record *r)
{
	size_t d;

	if (!(r->prot & PROT_EXEC) || !r->name || r->name[0] != '/' ||
	    (d = dso_index(pd, r->name)) == SIZE_MAX)
		return;
	if (grow((void **)&pd->map, pd->nmap, sizeof(*pd->map)) < 0) {
		pd->err = ENOMEM;
		return;
	}
	pd->map[pd->nmap++] = (struct map){ r->pid, r->addr, r->addr + r->len,
					    d };
}

static void
note_fork(struct perf_data *pd, const struct pctr_sample_record *r)
{
	if (r->pid == r->ppid)
		return; /* a thread: the same maps */
	if (grow((void **)&pd->fork, pd->nfork, sizeof(*pd->fork)) < 0) {
		pd->err = ENOMEM;
		return;
	}
	pd->fork[pd->nfork][0] = r->pid;
	pd->fork[pd->nfork++][1] = r->ppid;
}

static pid_t
parent_of(const struct perf_data *pd, pid_t pid)
{
	for (size_t i = pd->nfork; i-- > 0;)
		if (pd->fork[i][0] == pid)
			return pd->fork[i][1];
	return -1;
}

/*
 * The module a user sample fell in: the latest mapping of its process
 * that holds the address, or of the process it was forked from (its maps
 * were inherited, without records).
 */
static void
note_hit(struct perf_data *pd, const struct pctr_sample_record *r)
{
	pid_t pid = r->pid;

	if (!r->user) {
		pd->kernel_hit = 1;
		return;
	}
	for (int depth = 0; pid > 0 && depth < 16; depth++) {
		for (size_t i = pd->nmap; i-- > 0;) {
			const struct map *m = &pd->map[i];

			if (m->pid == pid && m->start <= r->ip && r->ip < m->end) {
				pd->dso[m->dso].hit = 1;
				return;
			}
		}
		pid = parent_of(pd, pid);
	}
}

/* ---- the records -------------------------------------------------------- */

static void
put_sample(struct perf_data *pd, const struct pctr_sample_record *r)
{
	size_t n = pctr__sample_encode(&pd->layout, r, pd->rec,
				       UINT16_MAX + 1);

	/* the kernel's limit, which its own records keep to */
	if (!n) {
		pd->err = pd->err ? pd->err : E2BIG;
		return;
	}
	put(&pd->out, pd->rec, n);
	note_hit(pd, r);
}

static void
put_mmap2(struct sink *s, const struct pctr__layout *l,
	  const struct pctr_sample_record *r)
{
	const char *name = r->name ? r->name : "//anon";
	size_t size = sizeof(struct perf_event_header) + 4 + 4 + 8 * 3 +
		      4 + 4 + 8 + 8 + 4 + 4 + padded_len(name) +
		      pctr__sample_id_size(l);
	uint16_t misc = PERF_RECORD_MISC_USER |
			(r->prot & PROT_EXEC ? 0 : PERF_RECORD_MISC_MMAP_DATA);

	put_header(s, PERF_RECORD_MMAP2, misc, size);
	put_u32(s, (uint32_t)r->pid);
	put_u32(s, (uint32_t)r->tid);
	put_u64(s, r->addr);
	put_u64(s, r->len);
	put_u64(s, r->pgoff);
	put_u32(s, 0); /* maj, min, ino, ino_generation: not kept */
	put_u32(s, 0);
	put_u64(s, 0);
	put_u64(s, 0);
	put_u32(s, r->prot);
	put_u32(s, MAP_PRIVATE);
	put_str(s, name, padded_len(name));
	put_id(s, l, r);
}

static void
put_comm(struct sink *s, const struct pctr__layout *l,
	 const struct pctr_sample_record *r)
{
	const char *name = r->name ? r->name : "";
	size_t size = sizeof(struct perf_event_header) + 8 + padded_len(name) +
		      pctr__sample_id_size(l);

	put_header(s, PERF_RECORD_COMM,
		   r->exec ? PERF_RECORD_MISC_COMM_EXEC : 0, size);
	put_u32(s, (uint32_t)r->pid);
	put_u32(s, (uint32_t)r->tid);
	put_str(s, name, padded_len(name));
	put_id(s, l, r);
}

static void
put_task(struct sink *s, const struct pctr__layout *l,
	 const struct pctr_sample_record *r)
{
	put_header(s, r->kind == PCTR_REC_FORK ? PERF_RECORD_FORK
					       : PERF_RECORD_EXIT,
		   0, sizeof(struct perf_event_header) + 4 * 4 + 8 +
			      pctr__sample_id_size(l));
	put_u32(s, (uint32_t)r->pid);
	put_u32(s, (uint32_t)r->ppid);
	put_u32(s, (uint32_t)r->tid);
	put_u32(s, (uint32_t)r->ptid);
	put_u64(s, r->time);
	put_id(s, l, r);
}

int
perf_data_record(struct perf_data *pd, const struct pctr_sample_record *r)
{
	switch (r->kind) {
	case PCTR_REC_SAMPLE:
		put_sample(pd, r);
		pd->samples++;
		break;
	case PCTR_REC_MMAP:
		put_mmap2(&pd->out, &pd->layout, r);
		note_map(pd, r);
		break;
	case PCTR_REC_COMM:
		put_comm(&pd->out, &pd->layout, r);
		break;
	case PCTR_REC_FORK:
		note_fork(pd, r);
		put_task(&pd->out, &pd->layout, r);
		break;
	case PCTR_REC_EXIT:
		put_task(&pd->out, &pd->layout, r);
		break;
	}
	return -(pd->err ? pd->err : pd->out.err);
}

/* ---- the feature sections ----------------------------------------------- */

/* one build_id_event: { header, pid, build_id[24], filename padded } */
static void
put_build_id(struct sink *s, const char *name, uint16_t misc)
{
	unsigned char id[24] = { 0 };
	size_t n = build_id_read(misc == PERF_RECORD_MISC_KERNEL ? NULL : name,
				 id);
	uint32_t len = (uint32_t)((strlen(name) + NAME_ALIGN) &
				  ~(size_t)(NAME_ALIGN - 1));

	if (!n)
		return;
	id[20] = (unsigned char)n; /* its size, with MISC_BUILD_ID_SIZE */
	put_header(s, 0, misc | MISC_BUILD_ID_SIZE,
		   sizeof(struct perf_event_header) + 4 + 24 + len);
	put_u32(s, (uint32_t)-1); /* the host machine (HOST_KERNEL_ID) */
	put(s, id, sizeof(id));
	put_str(s, name, len);
}

static void
feat_build_id(struct perf_data *pd, struct sink *s)
{
	if (pd->kernel_hit)
		put_build_id(s, "[kernel.kallsyms]", PERF_RECORD_MISC_KERNEL);
	for (size_t i = 0; i < pd->ndso; i++)
		if (pd->dso[i].hit)
			put_build_id(s, pd->dso[i].name,
				     PERF_RECORD_MISC_USER);
}

static void
feat_uname(struct perf_data *pd, struct sink *s, int bit)
{
	struct utsname u;

	(void)pd;
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	put_header_str(s, bit == HEADER_HOSTNAME ? u.nodename
			  : bit == HEADER_OSRELEASE ? u.release
						    : u.machine);
}

static void
feat_nrcpus(struct sink *s)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	long onln = sysconf(_SC_NPROCESSORS_ONLN);

	put_u32(s, (uint32_t)(conf > 0 ? conf : 1));
	put_u32(s, (uint32_t)(onln > 0 ? onln : 1));
}

/* the command line: pctr's own path, then its arguments, as perf's */
static void
feat_cmdline(struct perf_data *pd, struct sink *s)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	uint32_t nr = 0;

	while (pd->cmdline[nr])
		nr++;
	self[n > 0 ? n : 0] = '\0';
	put_u32(s, nr + 1);
	put_header_str(s, n > 0 ? self : "pctr");
	for (uint32_t i = 0; i < nr; i++)
		put_header_str(s, pd->cmdline[i]);
}

/*
 * HEADER_EVENT_DESC: u32 events, u32 attr size; the attr, u32 ids, the
 * name, the ids.
 */
static void
feat_event_desc(struct perf_data *pd, struct sink *s)
{
	put_u32(s, 1);
	put_u32(s, sizeof(pd->attr));
	put(s, &pd->attr, sizeof(pd->attr));
	put_u32(s, 1);
	put_header_str(s, pd->name);
	put_u64(s, EVENT_ID);
}

static void
feature(struct perf_data *pd, struct sink *s, int bit)
{
	char version[64];

	switch (bit) {
	case HEADER_BUILD_ID:
		feat_build_id(pd, s);
		break;
	case HEADER_VERSION:
		snprintf(version, sizeof(version), "pctr %s", pctr_version());
		put_header_str(s, version);
		break;
	case HEADER_NRCPUS:
		feat_nrcpus(s);
		break;
	case HEADER_CMDLINE:
		feat_cmdline(pd, s);
		break;
	case HEADER_EVENT_DESC:
		feat_event_desc(pd, s);
		break;
	default:
		feat_uname(pd, s, bit);
	}
}

static const int features[] = { HEADER_BUILD_ID,  HEADER_HOSTNAME,
				HEADER_OSRELEASE, HEADER_VERSION,
				HEADER_ARCH,	  HEADER_NRCPUS,
				HEADER_CMDLINE,	  HEADER_EVENT_DESC };
#define NR_FEATURES (sizeof(features) / sizeof(features[0]))

/*
 * After the data at @at: the table, then each section.  The sections are
 * written after the table, each measured by the sink's count.
 */
static void
put_features(struct perf_data *pd, uint64_t at, uint64_t *bits)
{
	struct file_section sec[NR_FEATURES];
	uint64_t off = at + sizeof(sec);

	for (size_t i = 0; i < NR_FEATURES; i++) {
		struct sink count = { .f = NULL };

		/* measured first (nothing written to a NULL stream) */
		count.err = -1;
		feature(pd, &count, features[i]);
		sec[i] = (struct file_section){ off, count.n };
		off += count.n;
		bits[0] |= 1ull << features[i];
	}
	put(&pd->out, sec, sizeof(sec));
	for (size_t i = 0; i < NR_FEATURES; i++)
		feature(pd, &pd->out, features[i]);
}

int
perf_data_close(struct perf_data *pd, uint64_t *bytes, uint64_t *samples)
{
	uint64_t data = sizeof(struct file_header) + sizeof(struct file_attr) +
			8;
	struct file_header h = {
		.magic = PERF_MAGIC2,
		.size = sizeof(h),
		.attr_size = sizeof(struct file_attr),
		.attrs = { sizeof(h), sizeof(struct file_attr) },
		.data = { data, pd->out.n },
	};
	struct file_attr a = { pd->attr, { data - 8, 8 } };
	int err;

	put_features(pd, data + pd->out.n, h.features);
	err = pd->err ? pd->err : pd->out.err;
	if (bytes)
		*bytes = data + pd->out.n;
	if (samples)
		*samples = pd->samples;
	/* the header, and the attribute with the id's place */
	if (!err && (fseek(pd->out.f, 0, SEEK_SET) < 0 ||
		     fwrite(&h, sizeof(h), 1, pd->out.f) != 1 ||
		     fwrite(&a, sizeof(a), 1, pd->out.f) != 1 ||
		     fflush(pd->out.f) != 0))
		err = errno ? errno : EIO;
	free_pd(pd);
	return -err;
}
