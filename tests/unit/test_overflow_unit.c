/* SPDX-License-Identifier: MIT */
/*
 * test_overflow_unit - the ring buffer reader and the sample decoder on
 * synthetic rings: records that wrap around the end, corrupt headers,
 * short records, every field combination, and the per-thread table.
 */
#include "ring.h"
#include "test.h"

#define SZ 256 /* ring data size, a power of two */

/* write a record of @len bytes at @pos, wrapping like the kernel */
static void
put(unsigned char *ring, uint64_t pos, const void *rec, size_t len)
{
	for (size_t i = 0; i < len; i++)
		ring[(pos + i) & (SZ - 1)] = ((const unsigned char *)rec)[i];
}

struct rec5 {
	struct perf_event_header h;
	uint64_t ip, pidtid, time, period, nr, chain[2];
};

static struct rec5
sample(uint64_t ip)
{
	struct rec5 r = {
		.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
		       sizeof(struct rec5) },
		.ip = ip,
		.pidtid = 7ull | 9ull << 32, /* pid 7, tid 9 */
		.time = 1234,
		.period = 1000,
		.nr = 2,
		.chain = { PERF_CONTEXT_USER, ip },
	};
	return r;
}

TEST(record_in_place)
{
	unsigned char ring[SZ] = { 0 }, buf[128];
	const struct perf_event_header *h;
	struct rec5 r = sample(0x401000);

	put(ring, 16, &r, sizeof(r));
	ASSERT_EQ(pctr__ring_record(ring, SZ, 16, 16 + sizeof(r), buf,
				    sizeof(buf), &h),
		  sizeof(r));
	ASSERT(h == (const void *)(ring + 16));
}

/* every split point of a record across the end of the ring */
TEST(record_wrapping_anywhere)
{
	struct rec5 r = sample(0x401000);

	for (uint64_t start = SZ - sizeof(r) + 1; start < SZ; start++) {
		unsigned char ring[SZ] = { 0 }, buf[128];
		const struct perf_event_header *h;
		struct pctr__layout l = { .sample_type = PERF_SAMPLE_IP |
							 PERF_SAMPLE_TID |
							 PERF_SAMPLE_TIME |
							 PERF_SAMPLE_PERIOD |
							 PERF_SAMPLE_CALLCHAIN };
		struct pctr__sample d;
		uint64_t tail = 3 * SZ + start; /* positions only grow */

		put(ring, tail, &r, sizeof(r));
		ASSERT_EQ(pctr__ring_record(ring, SZ, tail, tail + sizeof(r),
					    buf, sizeof(buf), &h),
			  sizeof(r));
		ASSERT(h == (const void *)buf);
		ASSERT_OK(pctr__sample_decode(&l, h, &d));
		ASSERT_HEX_EQ(d.ip, 0x401000);
	}
}

TEST(wrapping_record_too_big_is_skipped)
{
	unsigned char ring[SZ] = { 0 }, buf[16];
	const struct perf_event_header *h;
	struct rec5 r = sample(1);

	put(ring, SZ - 8, &r, sizeof(r));
	ASSERT_EQ(pctr__ring_record(ring, SZ, SZ - 8, SZ - 8 + sizeof(r), buf,
				    sizeof(buf), &h),
		  sizeof(r));
	ASSERT(h == NULL);
}

TEST(corrupt_headers_stop_the_reader)
{
	unsigned char ring[SZ] = { 0 }, buf[128];
	const struct perf_event_header *h;
	struct perf_event_header bad = { PERF_RECORD_SAMPLE, 0, 4 };

	put(ring, 0, &bad, sizeof(bad));
	ASSERT_EQ(pctr__ring_record(ring, SZ, 0, 64, buf, sizeof(buf), &h), 0);
	bad.size = 100; /* more than head - tail */
	put(ring, 0, &bad, sizeof(bad));
	ASSERT_EQ(pctr__ring_record(ring, SZ, 0, 64, buf, sizeof(buf), &h), 0);
	/* less than a header between tail and head */
	ASSERT_EQ(pctr__ring_record(ring, SZ, 0, 4, buf, sizeof(buf), &h), 0);
}

/* table: which fields are present, and what the decoder must find */
static const struct {
	int line;
	uint64_t type;
	size_t words; /* u64 words after the header */
	uint64_t ip, time, period;
	uint32_t tid, nr, cpu;
} parse_rows[] = {
	{ __LINE__, PERF_SAMPLE_IP, 1, 0xaa, 0, 0, 0, 0 },
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, 2, 0xaa, 0, 0xbb, 0,
	  0 },
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD, 3,
	  0xaa, 0, 0xcc, 1, 0 },
	{ __LINE__, PCTR__OVF_SAMPLE_TYPE, 3, 0xaa, 0xcc, 0, 1, 0 },
	{ __LINE__, PCTR__OVF_SAMPLE_TYPE | PERF_SAMPLE_PERIOD, 4, 0xaa, 0xcc,
	  0xdd, 1, 0 },
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 4, 0xaa, 0, 0, 0,
	  2 },
	{ __LINE__, PCTR__OVF_SAMPLE_TYPE | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
	  8, 0xaa, 0xcc, 0xdd, 1, 2, 3 },
	{ __LINE__, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_CPU,
	  3, 0xaa, 0, 0, 0, 0, 3 },
};

TEST(parse_field_combinations)
{
	for (size_t i = 0; i < PCTR_ARRAY_SIZE(parse_rows); i++) {
		uint64_t w[10] = { 0 }, k = 0;
		struct perf_event_header *h = (void *)w;
		struct pctr__layout l = { .sample_type = parse_rows[i].type };
		struct pctr__sample r;

		h->type = PERF_RECORD_SAMPLE;
		h->size = (uint16_t)(8 * (1 + parse_rows[i].words));
		if (parse_rows[i].type & PERF_SAMPLE_IDENTIFIER)
			w[1 + k++] = 0x1d;
		w[1 + k++] = 0xaa;
		if (parse_rows[i].type & PERF_SAMPLE_TID)
			w[1 + k++] = 5ull | 1ull << 32;
		if (parse_rows[i].type & PERF_SAMPLE_TIME)
			w[1 + k++] = 0xcc;
		if (parse_rows[i].type & PERF_SAMPLE_CPU)
			w[1 + k++] = 3;
		if (parse_rows[i].type & PERF_SAMPLE_PERIOD)
			w[1 + k++] = parse_rows[i].period;
		if (parse_rows[i].type & PERF_SAMPLE_CALLCHAIN) {
			w[1 + k++] = 2;
			w[1 + k++] = 0x11;
			w[1 + k++] = 0x22;
		}
		if (k != parse_rows[i].words)
			TEST_FAIL("row at line %d: %llu words, %zu listed",
				  parse_rows[i].line, (unsigned long long)k,
				  parse_rows[i].words);
		if (pctr__sample_decode(&l, h, &r) < 0)
			TEST_FAIL("row at line %d: parse failed",
				  parse_rows[i].line);
		ASSERT_HEX_EQ(r.ip, parse_rows[i].ip);
		ASSERT_HEX_EQ(r.time, parse_rows[i].time);
		ASSERT_HEX_EQ(r.period, parse_rows[i].period);
		ASSERT_EQ(r.tid, parse_rows[i].tid);
		ASSERT_EQ(r.cpu, parse_rows[i].cpu);
		ASSERT_EQ(r.nr_chain, parse_rows[i].nr);
		if (r.nr_chain)
			ASSERT_HEX_EQ(pctr__chain_at(&r, 1), 0x22);
		/* one word short: refused */
		h->size -= 8;
		if (pctr__sample_decode(&l, h, &r) == 0)
			TEST_FAIL("row at line %d: short record accepted",
				  parse_rows[i].line);
	}
}

TEST(callchain_longer_than_record_is_refused)
{
	uint64_t w[4] = { 0 };
	struct perf_event_header *h = (void *)w;
	struct pctr__layout l = { .sample_type = PERF_SAMPLE_IP |
						 PERF_SAMPLE_CALLCHAIN };
	struct pctr__sample r;

	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(w);
	w[1] = 0xaa;
	w[2] = 5; /* five entries claimed, one present */
	ASSERT_EQ(pctr__sample_decode(&l, h, &r), -EINVAL);
}

/* the chain of a sample holding only a call chain */
static struct pctr__sample
chain_sample(const uint64_t *in, uint64_t nr)
{
	return (struct pctr__sample){ .nr_chain = nr,
				      .chain = (const unsigned char *)in };
}

/*
 * markers go, and say how many entries are the kernel's; so does an
 * entry on the other side of its marker
 */
TEST(callchain_addresses_by_context)
{
	const uint64_t k = 0xffffffff81000000ull, u = 0x401000;
	const uint64_t in[] = { PERF_CONTEXT_KERNEL, k, k + 8,
				PERF_CONTEXT_USER, u, u + 4,
				0xffff888000000000ull, /* past the last frame */
				u + 8, PERF_CONTEXT_KERNEL, u + 12 };
	const uint64_t want[] = { k, k + 8, u, u + 4, u + 8 };
	struct pctr__sample s = chain_sample(in, 10);
	uint64_t out[16];
	uint32_t nk;

	ASSERT_EQ(pctr__chain_addresses(&s, out, 16, &nk), 5);
	ASSERT_EQ(nk, 2);
	for (int i = 0; i < 5; i++)
		ASSERT_UEQ(out[i], want[i]);
	/* room for two */
	ASSERT_EQ(pctr__chain_addresses(&s, out, 2, &nk), 2);
	ASSERT_UEQ(out[1], k + 8);
	/* before any marker: no side, nothing kept */
	s = chain_sample(in + 4, 2);
	ASSERT_EQ(pctr__chain_addresses(&s, out, 16, &nk), 0);
	/* a user chain only */
	s = chain_sample(in + 3, 3);
	ASSERT_EQ(pctr__chain_addresses(&s, out, 16, &nk), 2);
	ASSERT_EQ(nk, 0);
}

/*
 * A side-band record's sample_id: with CPU after TIME the time is not
 * the record's last word (it was read from there once); the name stops
 * before sample_id.
 */
TEST(sideband_sample_id_with_cpu)
{
	struct pctr__layout l = { .sample_type = PERF_SAMPLE_IP |
						 PERF_SAMPLE_TID |
						 PERF_SAMPLE_TIME |
						 PERF_SAMPLE_CPU,
				  .id_all = true };
	uint64_t w[1 + 1 + 1 + 3] = { 0 };
	struct perf_event_header *h = (void *)w;
	struct pctr_sample_record r;

	h->type = PERF_RECORD_COMM;
	h->size = sizeof(w);
	w[1] = 7ull | 9ull << 32;
	memcpy(&w[2], "abcdefg", 8);
	w[3] = 7ull | 9ull << 32;
	w[4] = 123456789;
	w[5] = 1;
	ASSERT_OK(pctr__side_record(&l, h, &r));
	ASSERT_EQ(r.kind, PCTR_REC_COMM);
	ASSERT_UEQ(r.time, 123456789);
	ASSERT_EQ(r.cpu, 1);
	ASSERT_STR_EQ(r.name, "abcdefg");
	ASSERT_EQ(pctr__time_offset(&l, h), 32);
	/* a record shorter than its sample_id has no time (not one far off) */
	h->size = 8;
	ASSERT_EQ(pctr__time_offset(&l, h), 0);
	h->size = 16;
	ASSERT_EQ(pctr__time_offset(&l, h), 0);
	h->size = sizeof(w);
	/* a name not ended before sample_id: skipped */
	memcpy(&w[2], "abcdefgh", 8);
	ASSERT_EQ(pctr__side_record(&l, h, &r), -1);
}

/*
 * sample_id as the record layer writes it (perf.data's side-band
 * records): the words the decoder reads back, with every field of it
 * and with those pctr record keeps
 */
TEST(sample_id_encoded_as_decoded)
{
	struct pctr__layout l = { .sample_type = PERF_SAMPLE_TID |
						 PERF_SAMPLE_TIME |
						 PERF_SAMPLE_ID |
						 PERF_SAMPLE_STREAM_ID |
						 PERF_SAMPLE_CPU |
						 PERF_SAMPLE_IDENTIFIER,
				  .id_all = true };
	const struct pctr_sample_record in = { .pid = 7, .tid = 9,
					       .time = 123456789, .cpu = 1 };
	const struct pctr_sample_record none = { .pid = 7, .tid = 9,
						 .cpu = -1 };
	uint64_t w[2 + 1 + PCTR__SAMPLE_ID_MAX / 8] = { 0 };
	struct perf_event_header *h = (void *)w;
	struct pctr_sample_record r;

	ASSERT_EQ(pctr__sample_id_size(&l), PCTR__SAMPLE_ID_MAX);
	ASSERT_EQ(pctr__sample_id_encode(&l, &in, (unsigned char *)&w[3]),
		  PCTR__SAMPLE_ID_MAX);
	ASSERT_HEX_EQ(w[3], 7ull | 9ull << 32);
	ASSERT_UEQ(w[4], 123456789);
	ASSERT_UEQ(w[5] | w[6] | w[8], 0);
	ASSERT_UEQ(w[7], 1);
	h->type = PERF_RECORD_COMM;
	h->size = sizeof(w);
	w[1] = 7ull | 9ull << 32;
	memcpy(&w[2], "abcdefg", 8);
	ASSERT_OK(pctr__side_record(&l, h, &r));
	ASSERT_UEQ(r.time, 123456789);
	ASSERT_EQ(r.cpu, 1);
	ASSERT_STR_EQ(r.name, "abcdefg");
	ASSERT_EQ(pctr__time_offset(&l, h), 32);
	/* pctr record's layout; a cpu not known is written 0 */
	l.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	memset(w, 0xff, sizeof(w));
	ASSERT_EQ(pctr__sample_id_size(&l), 24);
	ASSERT_EQ(pctr__sample_id_encode(&l, &none, (unsigned char *)w), 24);
	ASSERT_HEX_EQ(w[0], 7ull | 9ull << 32);
	ASSERT_UEQ(w[1], 0);
	ASSERT_UEQ(w[2], 0);
	ASSERT_HEX_EQ(w[3], ~0ull);
}

/* a record in a file need not be aligned: decoded the same */
TEST(unaligned_record)
{
	struct pctr__layout l = { .sample_type = PERF_SAMPLE_IP |
						 PERF_SAMPLE_TID |
						 PERF_SAMPLE_TIME |
						 PERF_SAMPLE_PERIOD |
						 PERF_SAMPLE_CALLCHAIN };
	struct rec5 r = sample(0x401000);
	unsigned char buf[sizeof(r) + 1];
	struct pctr_sample_record out;
	uint64_t chain[4], regs[64];
	struct pctr__sample s;

	memcpy(buf + 1, &r, sizeof(r));
	ASSERT_OK(pctr__sample_decode(&l, buf + 1, &s));
	pctr__sample_record(&l, &s, &out, chain, 4, regs);
	ASSERT_EQ(out.pid, 7);
	ASSERT_EQ(out.tid, 9);
	ASSERT_UEQ(out.time, 1234);
	ASSERT_EQ(out.cpu, -1);
	ASSERT_EQ(out.nr_callchain, 1);
	ASSERT_EQ(out.nr_callchain_kernel, 0);
	ASSERT_HEX_EQ(out.callchain[0], 0x401000);
}

/*
 * Encoded and decoded again, a sample is itself: every field of the
 * layout, the chain's kernel part (its markers), registers and a stack
 * copy of 13 bytes (padded to 16, dyn_size 13).
 */
TEST(encode_decode_round_trip)
{
	static const uint64_t chain[] = { 0xffffffff81000010ull,
					  0xffffffff81000020ull, 0x401000,
					  0x401100, 0x401200 };
	static const uint64_t regs[3] = { 1, 2, 3 };
	static const unsigned char stack[13] = "a stack copy";
	struct pctr_sample_record r = {
		.kind = PCTR_REC_SAMPLE, .pid = 7, .tid = 9, .ip = 0x401000,
		.time = 123456789, .period = 1000, .user = 1, .cpu = 1,
		.nr_callchain = 5, .nr_callchain_kernel = 2,
		.callchain = chain, .regs_abi = 64, .regs_mask = 0x7,
		.regs = regs, .stack_len = 13, .stack = stack,
	}, back;
	struct pctr__layout l = { .sample_type = PCTR__ENCODABLE,
				  .regs_user = 0x7 };
	uint64_t buf[64], out[8], rg[64];
	struct pctr__sample s;
	size_t n = pctr__sample_encode(&l, &r, (unsigned char *)buf,
				       sizeof(buf));

	/* header, 5 fields, nr + 2 markers + 5, abi + 3, size + 16 + dyn */
	ASSERT_EQ(n, 8 + 5 * 8 + 8 * 8 + 4 * 8 + 8 + 16 + 8);
	ASSERT_OK(pctr__sample_decode(&l, buf, &s));
	ASSERT_UEQ(s.nr_chain, 7);
	ASSERT_HEX_EQ(pctr__chain_at(&s, 0), (uint64_t)PERF_CONTEXT_KERNEL);
	ASSERT_HEX_EQ(pctr__chain_at(&s, 3), (uint64_t)PERF_CONTEXT_USER);
	pctr__sample_record(&l, &s, &back, out, 8, rg);
	ASSERT_EQ(back.pid, 7);
	ASSERT_EQ(back.tid, 9);
	ASSERT_EQ(back.cpu, 1);
	ASSERT_EQ(back.user, 1);
	ASSERT_UEQ(back.time, 123456789);
	ASSERT_UEQ(back.period, 1000);
	ASSERT_EQ(back.nr_callchain, 5);
	ASSERT_EQ(back.nr_callchain_kernel, 2);
	ASSERT(!memcmp(back.callchain, chain, sizeof(chain)));
	ASSERT_EQ(back.regs_abi, 64);
	ASSERT(!memcmp(back.regs, regs, sizeof(regs)));
	ASSERT_UEQ(back.stack_len, 13);
	ASSERT(!memcmp(back.stack, stack, 13));
	/* more than the buffer: refused */
	ASSERT_EQ(pctr__sample_encode(&l, &r, (unsigned char *)buf, 64), 0);
}

TEST(lost_record)
{
	uint64_t w[3] = { 0, 42, 17 };
	struct perf_event_header *h = (void *)w;

	h->type = PERF_RECORD_LOST;
	h->size = sizeof(w);
	ASSERT_UEQ(pctr__lost_count(h), 17);
	h->size = 16;
	ASSERT_UEQ(pctr__lost_count(h), 0);
}

/* every ring read to the end */
static uint64_t
all_read(void *ctx, bool *lost)
{
	(void)ctx;
	*lost = true;
	return UINT64_MAX;
}

/*
 * Thread ids of this single-threaded process's group that are not its one
 * thread: a multiple of 1000 can be the process's own id (a soak under a
 * fork loop drew one: that slot was live and stayed), so step past it.
 */
static pid_t
not_ours(int t)
{
	pid_t tid = (pid_t)t * 1000;

	return tid == getpid() ? tid + 1 : tid;
}

TEST(tid_table_fills_and_finds)
{
	static struct pctr__tid_slot tab[PCTR__TID_SLOTS];
	pid_t pid = getpid();

	for (int t = 1; t <= PCTR__TID_SLOTS; t++) {
		struct pctr__tid_slot *s = pctr__tid_slot(tab, pid, not_ours(t),
							  0, all_read, NULL);

		ASSERT(s != NULL);
		s->seq = t;
	}
	for (int t = 1; t <= PCTR__TID_SLOTS; t++)
		ASSERT_UEQ(pctr__tid_slot(tab, pid, not_ours(t), 0, all_read,
					  NULL)->seq,
			   t);
	/* full of threads that do not exist: swept out for a new one */
	errno = 1234;
	ASSERT(pctr__tid_slot(tab, pid, 7, 0, all_read, NULL) != NULL);
	ASSERT_EQ(errno, 1234);
	ASSERT_UEQ(pctr__tid_slot(tab, pid, 7, 0, all_read, NULL)->seq, 0);
	for (int i = 0; i < PCTR__TID_SLOTS; i++)
		ASSERT(tab[i].tid == 0 || tab[i].tid == 7);
}

/* a thread that exists is never swept out: the table stays full */
TEST(tid_table_keeps_live_threads)
{
	static struct pctr__tid_slot tab[PCTR__TID_SLOTS];

	for (int i = 0; i < PCTR__TID_SLOTS; i++)
		tab[i] = (struct pctr__tid_slot){ gettid(), getpid(), 1, 1, 0 };
	ASSERT(pctr__tid_slot(tab, getpid(), 7, 0, all_read, NULL) == NULL);
}

/* what a sweep does to a thread that exited */
static void
forget(struct pctr__tid_slot *tab, pid_t tid)
{
	for (unsigned int i = 0; i < PCTR__TID_SLOTS; i++)
		if (tab[i].tid == tid)
			pctr__tid_clear(tab, i);
}

/*
 * A thread's exit record may be read before its last samples (they can be
 * in another CPU's ring): samples up to the exit's time are still the old
 * thread's, a later one is a new thread on the reused tid, and a full
 * table sweeps out the threads that exited even while their tid exists.
 */
TEST(tid_table_exit_marks)
{
	static struct pctr__tid_slot tab[PCTR__TID_SLOTS];
	pid_t pid = getpid(), me = gettid();

	pctr__tid_slot(tab, pid, me, 100, all_read, NULL)->seq = 5;
	pctr__tid_exited(tab, me, 200);
	ASSERT_UEQ(pctr__tid_slot(tab, pid, me, 150, all_read, NULL)->seq, 5);
	ASSERT_UEQ(pctr__tid_slot(tab, pid, me, 200, all_read, NULL)->seq, 5);
	ASSERT_UEQ(pctr__tid_slot(tab, pid, me, 201, all_read, NULL)->seq, 0);
	ASSERT_UEQ(pctr__tid_slot(tab, pid, me, 202, all_read, NULL)->exit_time, 0);
	pctr__tid_exited(tab, me, 300);
	for (int t = 1; t < PCTR__TID_SLOTS; t++)
		tab[(pctr__tid_home(me) + t) % PCTR__TID_SLOTS] =
			(struct pctr__tid_slot){ me + t, pid, 1, 1, 0 };
	/*
	 * read up to 299: the exit at 300 may still have samples to read;
	 * threads that no longer exist but left no exit record only go
	 * once records were lost
	 */
	ASSERT_EQ(pctr__tid_sweep(tab, 299, false), 0);
	ASSERT_EQ(pctr__tid_sweep(tab, 299, true), PCTR__TID_SLOTS - 1);
	ASSERT_EQ(pctr__tid_sweep(tab, 300, false), 1);
}

/*
 * Forgetting exited threads, in any order, keeps every other one
 * reachable with its own figures (deletion moves entries back along their
 * probe runs): random inserts and deletes against a plain array.
 */
TEST(tid_table_forgets_exited_threads)
{
	static struct pctr__tid_slot tab[PCTR__TID_SLOTS];
	static uint64_t seq[4096];
	pid_t pid = getpid();
	int live = 0;

	srand(1);
	for (int step = 0; step < 200000; step++) {
		/* tids that collide: home slots are a multiple of 256 apart */
		pid_t tid = 1 + rand() % 4095;

		if (seq[tid] && rand() % 2) {
			forget(tab, tid);
			seq[tid] = 0;
			live--;
		} else if (seq[tid] || live < PCTR__TID_SLOTS - 8) {
			struct pctr__tid_slot *s = pctr__tid_slot(tab, pid, tid, 0, all_read, NULL);

			ASSERT(s != NULL);
			ASSERT_UEQ(s->seq, seq[tid]);
			live += seq[tid] == 0;
			s->seq = ++seq[tid];
		}
	}
	for (pid_t tid = 1; tid < 4096; tid++) {
		int found = 0;

		for (int i = 0; i < PCTR__TID_SLOTS; i++)
			found += tab[i].tid == tid;
		ASSERT_EQ(found, seq[tid] != 0);
	}
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(record_in_place)
			       TEST_CASE(record_wrapping_anywhere)
			       TEST_CASE(wrapping_record_too_big_is_skipped)
			       TEST_CASE(corrupt_headers_stop_the_reader)
			       TEST_CASE(parse_field_combinations)
			       TEST_CASE(callchain_longer_than_record_is_refused)
			       TEST_CASE(callchain_addresses_by_context)
			       TEST_CASE(sideband_sample_id_with_cpu)
			       TEST_CASE(sample_id_encoded_as_decoded)
			       TEST_CASE(unaligned_record)
			       TEST_CASE(encode_decode_round_trip)
			       TEST_CASE(lost_record)
			       TEST_CASE(tid_table_fills_and_finds)
			       TEST_CASE(tid_table_keeps_live_threads)
			       TEST_CASE(tid_table_exit_marks)
			       TEST_CASE(tid_table_forgets_exited_threads)));
}
