/* SPDX-License-Identifier: MIT */
/*
 * perf_data.c - perf.data, version 2 (perf_data.h).
 *
 * The file: a header, one attribute (the sampled event, with the sample
 * layout of the records below), then the records, in the kernel's own
 * layouts (<linux/perf_event.h>):
 *   PERF_RECORD_MMAP   the kernel, "[kernel.kallsyms]_text" from _text, as
 *                      perf record writes it, so that perf names kernel
 *                      samples from /proc/kallsyms;
 *   PERF_RECORD_SAMPLE { ip, pid, tid, time, period[, nr, ips]
 *                      [, abi, regs[], size, stack[size], dyn_size] } for
 *                      sample_type IP | TID | TIME | PERIOD [| CALLCHAIN]
 *                      [| REGS_USER | STACK_USER];
 *   PERF_RECORD_MMAP2, _COMM, _FORK, _EXIT as the library read them.
 * The attribute says sample_id_all 0, so the side-band records carry no
 * sample fields and perf takes them in file order, before the samples
 * that follow.  The library keeps only addresses of a call chain; the
 * PERF_CONTEXT_KERNEL and _USER markers perf expects are put back from the
 * address (the kernel's half of the address space is the upper one on
 * x86-64 and arm64).  One feature section, HEADER_EVENT_DESC: the event's
 * name as pctr shows it, for the attribute's one id (1), which is how perf
 * finds it; perf report then names the event, and so does
 * pctr profile --input (perf_data_read.c).
 *
 * With user stack copies (--call-graph dwarf) the samples keep the
 * registers and the stack as the kernel gave them, and the chain its
 * kernel part only, as perf record --call-graph dwarf writes them: perf
 * report unwinds them itself.  The register mask (sample_regs_user) is the
 * records', known from the first one that has registers, so the attribute
 * is written again at the end, with the header.  A stack is written with
 * its dyn_size bytes only (size rounded up to 8), not the whole copy the
 * kernel reserved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "perf_data.h"

#define PERF_MAGIC2 0x32454c4946524550ull /* "PERFILE2", little-endian */

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic, size, attr_size;
	struct file_section attrs, data, event_types;
	uint64_t features[4]; /* HEADER_FEAT_BITS: none set */
};

struct file_attr {
	struct perf_event_attr attr;
	struct file_section ids; /* none: one attribute takes every record */
};

#define HEADER_EVENT_DESC 12 /* feature bit (perf's util/header.h) */
#define EVENT_ID 1 /* the attribute's one id */
#define NAME_ALIGN 64 /* perf's padding of a header string */

struct perf_data {
	FILE *f;
	uint64_t data_size;
	bool callchain, user_stack;
	int err;
	struct perf_event_attr attr;
	char name[PCTR_NAME_MAX + 2];
};

static void
put(struct perf_data *pd, const void *p, size_t n)
{
	if (!pd->err && fwrite(p, 1, n, pd->f) != n)
		pd->err = errno ? errno : EIO; /* and the stream's: at close */
	pd->data_size += n;
}

static void
put_u64(struct perf_data *pd, uint64_t v)
{
	put(pd, &v, sizeof(v));
}

static void
put_u32(struct perf_data *pd, uint32_t v)
{
	put(pd, &v, sizeof(v));
}

/* a string, NUL-terminated and padded with NULs to 8 bytes */
static void
put_str(struct perf_data *pd, const char *s, size_t padded)
{
	static const char zero[8];
	size_t n = strlen(s);

	put(pd, s, n);
	put(pd, zero, padded - n);
}

static size_t
padded_len(const char *s)
{
	return (strlen(s) + 8) & ~(size_t)7;
}

static void
put_header(struct perf_data *pd, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };

	put(pd, &h, sizeof(h));
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
put_kernel_mmap(struct perf_data *pd)
{
	static const char name[] = "[kernel.kallsyms]_text";
	uint64_t text = kernel_text();
	size_t size = sizeof(struct perf_event_header) + 4 + 4 + 8 * 3 +
		      padded_len(name);

	if (!text)
		return;
	put_header(pd, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, size);
	put_u32(pd, (uint32_t)-1); /* pid: the kernel */
	put_u32(pd, 0);
	put_u64(pd, text);
	put_u64(pd, ~0ull - text);
	put_u64(pd, text); /* pgoff: perf's relocation reference */
	put_str(pd, name, padded_len(name));
}

int
perf_data_open(struct perf_data **pdp, FILE *f,
	       const struct pctr_event *ev, uint64_t period, uint64_t freq,
	       bool callchain, unsigned int stack_user)
{
	struct file_header h = { 0 };
	struct file_attr a;
	struct perf_data *pd = calloc(1, sizeof(*pd));
	int r;

	if (!pd)
		return -ENOMEM;
	memset(&a, 0, sizeof(a));
	r = pctr_event_attr(ev, &a.attr, sizeof(a.attr));
	if (r < 0) {
		free(pd);
		return r;
	}
	a.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			     PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			     (callchain ? PERF_SAMPLE_CALLCHAIN : 0) |
			     (stack_user ? PERF_SAMPLE_REGS_USER |
						   PERF_SAMPLE_STACK_USER
					 : 0);
	/* the user part of the chain is in the stack copies */
	a.attr.exclude_callchain_user = stack_user != 0;
	a.attr.sample_stack_user = stack_user;
	a.attr.freq = freq != 0;
	a.attr.sample_freq = freq ? freq : period;
	a.attr.mmap = a.attr.comm = a.attr.task = a.attr.mmap2 = 1;
	pd->f = f;
	pd->callchain = callchain;
	pd->user_stack = stack_user != 0;
	pd->attr = a.attr;
	pctr_event_display_name(ev, pd->name, sizeof(pd->name));
	/* the header again at the end, with the data's size */
	a.ids.offset = sizeof(h) + sizeof(a);
	a.ids.size = 8;
	put(pd, &h, sizeof(h));
	put(pd, &a, sizeof(a));
	put_u64(pd, EVENT_ID);
	pd->data_size = 0;
	put_kernel_mmap(pd);
	*pdp = pd;
	return 0;
}

/* the chain with perf's context markers: kernel addresses, then user */
static void
put_callchain(struct perf_data *pd, const struct pctr_sample_record *r)
{
	uint64_t ctx = 0, nr = r->nr_callchain;

	for (uint32_t i = 0; i < r->nr_callchain; i++) {
		uint64_t want = r->callchain[i] >> 63 ? PERF_CONTEXT_KERNEL
						       : PERF_CONTEXT_USER;

		nr += want != ctx;
		ctx = want;
	}
	put_u64(pd, nr);
	ctx = 0;
	for (uint32_t i = 0; i < r->nr_callchain; i++) {
		uint64_t want = r->callchain[i] >> 63 ? PERF_CONTEXT_KERNEL
						       : PERF_CONTEXT_USER;

		if (want != ctx)
			put_u64(pd, want);
		ctx = want;
		put_u64(pd, r->callchain[i]);
	}
}

static size_t
callchain_size(const struct pctr_sample_record *r)
{
	uint64_t ctx = 0;
	size_t n = 1 + r->nr_callchain;

	for (uint32_t i = 0; i < r->nr_callchain; i++) {
		uint64_t want = r->callchain[i] >> 63;

		n += i == 0 || want != ctx;
		ctx = want;
	}
	return n * 8;
}

/*
 * @r's registers and stack go in: the first record with registers sets
 * the attribute's mask, which every record of one event shares (the
 * kernel's for the architecture); one with another would be misread.
 */
static bool
has_user_regs(struct perf_data *pd, const struct pctr_sample_record *r)
{
	if (r->regs_abi && !pd->attr.sample_regs_user)
		pd->attr.sample_regs_user = r->regs_mask;
	return r->regs_abi && r->regs &&
	       r->regs_mask == pd->attr.sample_regs_user;
}

static size_t
user_stack_size(struct perf_data *pd, const struct pctr_sample_record *r)
{
	size_t n = 8 + 8; /* abi; size */

	if (!pd->user_stack)
		return 0;
	if (has_user_regs(pd, r))
		n += 8 * (size_t)__builtin_popcountll(r->regs_mask);
	if (has_user_regs(pd, r) && r->stack_len)
		n += ((r->stack_len + 7) & ~7ull) + 8;
	return n;
}

/*
 * REGS_USER { abi, regs } and STACK_USER { size, data, dyn_size }: no
 * registers (a kernel thread), no stack.  Every record has the same mask,
 * the kernel's for the architecture.
 */
static void
put_user_stack(struct perf_data *pd, const struct pctr_sample_record *r)
{
	static const char zero[8];
	uint64_t size = (r->stack_len + 7) & ~7ull;

	if (!has_user_regs(pd, r)) {
		put_u64(pd, PERF_SAMPLE_REGS_ABI_NONE);
		put_u64(pd, 0);
		return;
	}
	put_u64(pd, r->regs_abi == 32 ? PERF_SAMPLE_REGS_ABI_32
				      : PERF_SAMPLE_REGS_ABI_64);
	put(pd, r->regs, 8 * (size_t)__builtin_popcountll(r->regs_mask));
	put_u64(pd, size);
	if (!size)
		return;
	put(pd, r->stack, r->stack_len);
	put(pd, zero, size - r->stack_len);
	put_u64(pd, r->stack_len);
}

static void
put_sample(struct perf_data *pd, const struct pctr_sample_record *r)
{
	size_t size = sizeof(struct perf_event_header) + 8 * 4 +
		      (pd->callchain ? callchain_size(r) : 0) +
		      user_stack_size(pd, r);

	/* the kernel's limit, which its own records keep to */
	if (size > UINT16_MAX) {
		pd->err = pd->err ? pd->err : E2BIG;
		return;
	}
	put_header(pd, PERF_RECORD_SAMPLE,
		   r->user ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL,
		   size);
	put_u64(pd, r->ip);
	put_u32(pd, (uint32_t)r->pid);
	put_u32(pd, (uint32_t)r->tid);
	put_u64(pd, r->time);
	put_u64(pd, r->period);
	if (pd->callchain)
		put_callchain(pd, r);
	if (pd->user_stack)
		put_user_stack(pd, r);
}

static void
put_mmap2(struct perf_data *pd, const struct pctr_sample_record *r)
{
	const char *name = r->name ? r->name : "//anon";
	size_t size = sizeof(struct perf_event_header) + 4 + 4 + 8 * 3 +
		      4 + 4 + 8 + 8 + 4 + 4 + padded_len(name);
	uint16_t misc = PERF_RECORD_MISC_USER |
			(r->prot & PROT_EXEC ? 0 : PERF_RECORD_MISC_MMAP_DATA);

	put_header(pd, PERF_RECORD_MMAP2, misc, size);
	put_u32(pd, (uint32_t)r->pid);
	put_u32(pd, (uint32_t)r->tid);
	put_u64(pd, r->addr);
	put_u64(pd, r->len);
	put_u64(pd, r->pgoff);
	put_u32(pd, 0); /* maj, min, ino, ino_generation: not kept */
	put_u32(pd, 0);
	put_u64(pd, 0);
	put_u64(pd, 0);
	put_u32(pd, r->prot);
	put_u32(pd, MAP_PRIVATE);
	put_str(pd, name, padded_len(name));
}

static void
put_comm(struct perf_data *pd, const struct pctr_sample_record *r)
{
	const char *name = r->name ? r->name : "";
	size_t size = sizeof(struct perf_event_header) + 8 + padded_len(name);

	put_header(pd, PERF_RECORD_COMM,
		   r->exec ? PERF_RECORD_MISC_COMM_EXEC : 0, size);
	put_u32(pd, (uint32_t)r->pid);
	put_u32(pd, (uint32_t)r->tid);
	put_str(pd, name, padded_len(name));
}

static void
put_task(struct perf_data *pd, const struct pctr_sample_record *r)
{
	put_header(pd, r->kind == PCTR_REC_FORK ? PERF_RECORD_FORK
						: PERF_RECORD_EXIT,
		   0, sizeof(struct perf_event_header) + 4 * 4 + 8);
	put_u32(pd, (uint32_t)r->pid);
	put_u32(pd, (uint32_t)r->ppid);
	put_u32(pd, (uint32_t)r->tid);
	put_u32(pd, (uint32_t)r->ptid);
	put_u64(pd, r->time);
}

int
perf_data_record(struct perf_data *pd, const struct pctr_sample_record *r)
{
	switch (r->kind) {
	case PCTR_REC_SAMPLE:
		put_sample(pd, r);
		break;
	case PCTR_REC_MMAP:
		put_mmap2(pd, r);
		break;
	case PCTR_REC_COMM:
		put_comm(pd, r);
		break;
	case PCTR_REC_FORK:
	case PCTR_REC_EXIT:
		put_task(pd, r);
		break;
	}
	return -pd->err;
}

/*
 * After the data, the feature sections' table (one entry) and
 * HEADER_EVENT_DESC: u32 events, u32 attr size; the attr, u32 ids, the
 * name (u32 length, then the string NUL-padded to 64 bytes), the ids.
 */
static void
put_event_desc(struct perf_data *pd, uint64_t at)
{
	static const char zero[NAME_ALIGN];
	uint32_t len = (uint32_t)((strlen(pd->name) + NAME_ALIGN) &
				  ~(size_t)(NAME_ALIGN - 1));
	uint64_t size = 4 + 4 + sizeof(pd->attr) + 4 + 4 + len + 8;

	put_u64(pd, at + 16);
	put_u64(pd, size);
	put_u32(pd, 1);
	put_u32(pd, sizeof(pd->attr));
	put(pd, &pd->attr, sizeof(pd->attr));
	put_u32(pd, 1);
	put_u32(pd, len);
	put(pd, pd->name, strlen(pd->name));
	put(pd, zero, len - strlen(pd->name));
	put_u64(pd, EVENT_ID);
}

int
perf_data_close(struct perf_data *pd)
{
	uint64_t data = sizeof(struct file_header) + sizeof(struct file_attr) +
			8;
	struct file_header h = {
		.magic = PERF_MAGIC2,
		.size = sizeof(h),
		.attr_size = sizeof(struct file_attr),
		.attrs = { sizeof(h), sizeof(struct file_attr) },
		.data = { data, pd->data_size },
		.features = { 1ull << HEADER_EVENT_DESC },
	};
	int err;

	put_event_desc(pd, data + pd->data_size);
	err = pd->err;

	/* the header, and the attribute with the records' register mask */
	if (!err && (fseek(pd->f, 0, SEEK_SET) < 0 ||
		     fwrite(&h, sizeof(h), 1, pd->f) != 1 ||
		     fwrite(&pd->attr, sizeof(pd->attr), 1, pd->f) != 1 ||
		     fflush(pd->f) != 0))
		err = errno ? errno : EIO;
	free(pd);
	return -err;
}
