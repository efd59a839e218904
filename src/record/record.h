/* SPDX-License-Identifier: MIT */
/*
 * record.h - the one decoder of the kernel's sample and side-band records,
 * compiled into libpctr (its rings) and into the pctr command (its
 * perf.data reader), so that a record is read the same way wherever it
 * was kept.  A leaf: it needs only the C library and pctr.h's record.
 *
 * A record does not say its own layout: its event's perf_event_attr does
 * (sample_type, read_format, sample_regs_user, sample_id_all), as the set
 * that opened the event configured it or as a file's attribute section
 * kept it.  struct pctr__layout is that, taken from the attr, never
 * re-derived from options.
 *
 * PERF_RECORD_SAMPLE holds, in the kernel's order (perf_output_sample()):
 *   IDENTIFIER { u64 id }            IP         { u64 ip }
 *   TID        { u32 pid, tid }      TIME       { u64 time }
 *   ADDR       { u64 addr }          ID         { u64 id }
 *   STREAM_ID  { u64 stream_id }     CPU        { u32 cpu, res }
 *   PERIOD     { u64 period }        READ       { read_format's values }
 *   CALLCHAIN  { u64 nr; u64 ips[nr] }, PERF_CONTEXT_* markers among them
 *   RAW        { u32 size; char data[size] }
 *   BRANCH_STACK { u64 nr; [u64 hw_idx]; { u64 from, to, flags }[nr] }
 *   REGS_USER  { u64 abi; u64 regs[weight(sample_regs_user)] }, the
 *              registers only when abi is not PERF_SAMPLE_REGS_ABI_NONE
 *   STACK_USER { u64 size; char data[size]; u64 dyn_size }, dyn_size only
 *              when size is not 0: how much of data is stack
 * and fields past those, which nothing here reads.  Side-band records
 * (MMAP, MMAP2, COMM, FORK, EXIT, LOST, ...) end, with sample_id_all,
 * with sample_id: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER as the
 * sample_type has them, in that order.
 *
 * Records in a ring are 8-byte aligned; in a file they need not be, so
 * every field is copied out.  Nothing here allocates or makes a system
 * call: the overflow signal handler decodes with it.
 */
#ifndef PCTR_RECORD_H
#define PCTR_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include "pctr.h"

/* the layout of one event's records: its perf_event_attr's say */
struct pctr__layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t regs_user; /* sample_regs_user */
	uint64_t branch_type; /* branch_sample_type */
	bool id_all; /* sample_id_all: side-band records carry sample_id */
};

void pctr__layout_of(struct pctr__layout *l, const struct perf_event_attr *a);

/* a PERF_RECORD_SAMPLE decoded: the fields its layout has, else 0 */
struct pctr__sample {
	uint16_t misc;
	uint64_t ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu;
	uint64_t nr_chain; /* entries at @chain, markers included */
	const unsigned char *chain;
	uint64_t regs_abi; /* PERF_SAMPLE_REGS_ABI_* */
	const unsigned char *regs; /* weight(regs_user) u64s */
	uint64_t stack_len; /* dyn_size: bytes of @stack that are stack */
	const unsigned char *stack;
};

/*
 * Decode the sample at @rec (its header first, @rec's size in it) of
 * layout @l.  Return 0, or -EINVAL if the record is shorter than its
 * layout says.
 */
int pctr__sample_decode(const struct pctr__layout *l, const void *rec,
			struct pctr__sample *s);

/* entry @i of @s's call chain (unaligned-safe) */
static inline uint64_t
pctr__chain_at(const struct pctr__sample *s, uint64_t i)
{
	uint64_t v;

	memcpy(&v, s->chain + 8 * i, sizeof(v));
	return v;
}

/*
 * A sample's call chain as the public record has it: addresses, the
 * kernel's first (@nr_kernel of them), then the user's; the
 * PERF_CONTEXT_* markers say which is which and are not copied.  An entry
 * whose half of the address space disagrees with its marker is left out:
 * the user unwinder follows frame pointers past the last real frame into
 * whatever the stack holds (a C library's start built without them), and
 * a value there that looks like a kernel address (seen in the x86-64
 * guest) is a frame of neither.  Guest and other contexts are left out.
 * Return: the entries written to @out (at most @max).
 */
uint32_t pctr__chain_addresses(const struct pctr__sample *s, uint64_t *out,
			       uint32_t max, uint32_t *nr_kernel);

/*
 * @s into the public record @r (kind PCTR_REC_SAMPLE): ids, times, cpu
 * and period as the layout has them (-1 and 0 otherwise), the chain into
 * @chain (@max entries), the registers copied to @regs (64 entries).
 */
void pctr__sample_record(const struct pctr__layout *l,
			 const struct pctr__sample *s,
			 struct pctr_sample_record *r, uint64_t *chain,
			 uint32_t max, uint64_t *regs);

/*
 * A side-band record at @rec into @r: PERF_RECORD_MMAP2 and _MMAP (not
 * the kernel's own, pid -1), _COMM, _FORK, _EXIT, with its sample_id's
 * time and cpu where the layout has them.  Return 0, or -1 for a record
 * of another type or one too short (to be skipped).
 */
int pctr__side_record(const struct pctr__layout *l, const void *rec,
		      struct pctr_sample_record *r);

/*
 * Where the record at @rec with header @h keeps its time: the byte offset
 * into it, or 0 when it has none (no PERF_SAMPLE_TIME, a side-band record
 * without sample_id, or too short).  For ordering records without
 * decoding them (a ring's across its end).
 */
size_t pctr__time_offset(const struct pctr__layout *l,
			 const struct perf_event_header *h);

/* the sample fields pctr__sample_encode() writes */
#define PCTR__ENCODABLE                                                       \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |        \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/*
 * The reverse of pctr__sample_decode() and pctr__sample_record(): @r as
 * the kernel lays out a PERF_RECORD_SAMPLE of layout @l (whose
 * sample_type holds only PCTR__ENCODABLE fields), header included, into
 * @buf of @cap bytes: the chain with its PERF_CONTEXT_KERNEL/_USER
 * markers where @r->nr_callchain_kernel says, registers only when @r's
 * mask is the layout's, the stack's dyn_size bytes (size rounded up to
 * 8).  Return the record's size; 0 if it needs more than @cap bytes or
 * than a record can hold (64 KiB).
 */
size_t pctr__sample_encode(const struct pctr__layout *l,
			   const struct pctr_sample_record *r,
			   unsigned char *buf, size_t cap);

/* sample_id (above: 8 bytes a field), its fields and its size in @l */
#define PCTR__SAMPLE_ID_FIELDS                                                \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |                \
	 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define PCTR__SAMPLE_ID_MAX 48

static inline size_t
pctr__sample_id_size(const struct pctr__layout *l)
{
	return 8 * (size_t)__builtin_popcountll(l->sample_type &
						PCTR__SAMPLE_ID_FIELDS);
}

/*
 * The reverse of the side-band decoder's reading of it: @r's sample_id
 * in layout @l into @buf (pctr__sample_id_size() bytes, at most
 * PCTR__SAMPLE_ID_MAX): its pid and tid, time and cpu, an unknown cpu
 * (-1) as 0; ID, STREAM_ID and IDENTIFIER, which a public record does not
 * keep, as 0.  Return its size.
 */
size_t pctr__sample_id_encode(const struct pctr__layout *l,
			      const struct pctr_sample_record *r,
			      unsigned char *buf);

/* PERF_RECORD_LOST: { u64 id, lost } after the header; 0 if short */
uint64_t pctr__lost_count(const void *rec);

#endif
