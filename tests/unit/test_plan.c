/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c - read plans without a kernel: the per-counter readers of
 * mmap_read.h against synthetic mmap pages and a fake counter, next to
 * the general reader they stand in for; and the cutting of a set's
 * counters into runs (plan.c) for both kinds of port: the register named
 * by the instruction (arm64, consecutive counters) or taken as an operand
 * (x86, any counters).
 */
#include <string.h>

#include "internal.h"
#include "test.h"
#include "cyc_ns_check.h"

static struct perf_event_mmap_page page;
static uint64_t hw_value;
static uint32_t hw_asked;
static int bump_lock; /* the "kernel" rewrites the page during the read */

static uint64_t
fake_pmc(uint32_t hw)
{
	hw_asked = hw;
	if (bump_lock > 0) {
		bump_lock--;
		page.lock += 2;
	}
	return hw_value;
}

/*
 * The plans' counter read on the fake counter: as x86's port does it
 * (pctr__plan_join() of rdpmc's halves, zero-extended) and as the others
 * do (the counter sign-extended whole).
 */
static bool halves;

static uint64_t
fake_read(uint32_t hw, unsigned int shift)
{
	uint64_t raw = fake_pmc(hw);

	if (halves)
		return pctr__plan_join(raw & 0xffffffffu, raw >> 32, shift);
	return pctr__plan_extend(raw, shift);
}

static void
reset_page(uint32_t index, uint16_t width)
{
	memset(&page, 0, sizeof(page));
	page.cap_user_rdpmc = 1;
	page.cap_user_time = 1;
	page.index = index;
	page.pmc_width = width;
	page.lock = 4;
	page.offset = 0x100000000ll;
	page.time_enabled = 5000;
	page.time_running = 4000;
	page.time_mult = 3u << 9; /* 1.5 ns per cycle with shift 10 */
	page.time_shift = 10;
	page.time_offset = (uint64_t)-700;
	bump_lock = 0;
	hw_value = 0;
	hw_asked = ~0u;
}

static struct pctr__plan_ctr
entry(uint64_t base, uint64_t bena, uint64_t brun, unsigned int shift)
{
	return (struct pctr__plan_ctr){ .page = &page, .base = base,
					.base_ena = bena, .base_run = brun,
					.hw = page.index - 1,
					.index = page.index,
					.shift = (uint16_t)shift };
}

struct value_row {
	int line;
	uint16_t width;
	uint64_t raw;
	uint64_t base;
};

#define R(...) { __LINE__, __VA_ARGS__ }

static const struct value_row value_rows[] = {
	R(32, 1000, 0),
	R(32, 0xffffff00ull, 0), /* negative: the counter started at -256 */
	R(32, 0xdead00000005ull, 7), /* bits above the width ignored */
	R(48, 0xffffffffff00ull, 0x100),
	R(64, 0x123456789abcdefull, 0x1000),
};

/* the plan's value equals the general reader's, less the baseline */
static void
value_as_general_read(void)
{
	for (size_t i = 0; i < PCTR_ARRAY_SIZE(value_rows); i++) {
		const struct value_row *w = &value_rows[i];
		struct pctr__plan_ctr e;
		uint64_t got, want;

		reset_page(3, w->width);
		hw_value = w->raw;
		ASSERT_OK(pctr__mmap_read_value(&page, fake_pmc, &want));
		e = entry(w->base, 0, 0, (64u - w->width) & 63u);
		ASSERT_EQ(pctr__plan_value(&e, 2, 3, e.shift, fake_read, &got), 1);
		ASSERT_EQ(hw_asked, 2);
		printf("# line %d: %#llx\n", w->line, (unsigned long long)got);
		ASSERT_HEX_EQ(got, want - w->base);
		/* the counter the entry names, as x86's readers ask */
		hw_asked = ~0u;
		got = 0;
		ASSERT_EQ(pctr__plan_value(&e, PCTR__PLAN_HW_ENTRY, 0, e.shift,
					   fake_read, &got),
			  1);
		ASSERT_EQ(hw_asked, 2);
		ASSERT_HEX_EQ(got, want - w->base);
	}
}

/* the plan's value equals the general reader's, less the baseline */
TEST(plan_value_as_general_read)
{
	halves = false;
	value_as_general_read();
	halves = true;
	value_as_general_read();
}

/* another index than the plan's, index 0, a page that changed: no read */
TEST(plan_value_misses)
{
	struct pctr__plan_ctr e;
	uint64_t got = 77;

	reset_page(3, 32);
	e = entry(0, 0, 0, 32);
	ASSERT_EQ(pctr__plan_value(&e, 3, 4, 32, fake_read, &got), 0);
	page.index = 0;
	ASSERT_EQ(pctr__plan_value(&e, 2, 3, 32, fake_read, &got), 0);
	ASSERT_EQ(pctr__plan_value(&e, PCTR__PLAN_HW_ENTRY, 0, 32, fake_read,
				   &got),
		  0);
	page.index = 4; /* the entry's index is 3 */
	ASSERT_EQ(pctr__plan_value(&e, PCTR__PLAN_HW_ENTRY, 0, 32, fake_read,
				   &got),
		  0);
	page.index = 3;
	bump_lock = 1;
	ASSERT_EQ(pctr__plan_value(&e, 2, 3, 32, fake_read, &got), 0);
	bump_lock = 1;
	ASSERT_EQ(pctr__plan_value(&e, PCTR__PLAN_HW_ENTRY, 0, 32, fake_read,
				   &got),
		  0);
	ASSERT_EQ(got, 77); /* nothing written on a miss */
	ASSERT_EQ(pctr__plan_value(&e, 2, 3, 32, fake_read, &got), 1);
}

/*
 * The lead's count and times as the general reader's, less the baseline,
 * through the constants of a named counter and through the entry; the
 * times for the group's other counts the same.
 */
static void
lead_as_general(bool time_short, uint64_t cyc)
{
	static const uint64_t raw[] = { 0xfffffff0ull, 0x7fffffff0000ull,
					0x800000000005ull };
	unsigned int shift = (64u - page.pmc_width) & 63u;

	for (size_t i = 0; i < PCTR_ARRAY_SIZE(raw); i++) {
		struct pctr__plan_ctr e;
		struct pctr_count want, got, got2;
		pctr__u64x2 t = { 1, 2 }, t2 = { 1, 2 };

		hw_value = raw[i];
		ASSERT_OK(pctr__mmap_read(&page, cyc, fake_pmc, &want));
		e = entry(100, 200, 300, shift);
		ASSERT_EQ(pctr__plan_lead(&e, 2, 3, shift, time_short,
					  fake_read, cyc, &got, &t),
			  1);
		ASSERT_HEX_EQ(got.value, want.value - 100);
		ASSERT_UEQ(got.enabled, want.enabled - 200);
		ASSERT_UEQ(got.running, want.running - 300);
		ASSERT_UEQ(t[0], got.enabled);
		ASSERT_UEQ(t[1], got.running);
		hw_asked = ~0u;
		ASSERT_EQ(pctr__plan_lead(&e, PCTR__PLAN_HW_ENTRY, 0, shift,
					  time_short, fake_read, cyc, &got2,
					  &t2),
			  1);
		ASSERT_EQ(hw_asked, 2);
		ASSERT_HEX_EQ(got2.value, got.value);
		ASSERT_UEQ(got2.enabled, got.enabled);
		ASSERT_UEQ(got2.running, got.running);
		ASSERT_UEQ(t2[0], t[0]);
		ASSERT_UEQ(t2[1], t[1]);
	}
}

/* the times extrapolated as the general reader does, short or not */
TEST(plan_lead_times)
{
	for (int h = 0; h < 2; h++) {
		halves = h;
		reset_page(3, 32);
		lead_as_general(false, 123456789);
		lead_as_general(false, (uint64_t)1 << 62); /* quot * mult wraps */
		reset_page(3, 48); /* x86's counters */
		page.time_shift = 32;
		page.time_mult = 0xffffffffu;
		lead_as_general(false, ~0ull - 12345);
		reset_page(3, 32);
		page.cap_user_time_short = 1;
		page.time_cycles = 0x10000;
		page.time_mask = 0xffffff;
		lead_as_general(true, 0x7000123456ull); /* wrapped to 24 bits */
		lead_as_general(true, 0x10005);
	}
}

/*
 * A page without user time, or whose short-time bit is not the port's
 * (arm64's kernel sets it with cap_user_time, x86's never), another
 * index, a page that changed: no read, nothing written.
 */
TEST(plan_lead_misses)
{
	struct pctr__plan_ctr e;
	struct pctr_count got = { 1, 2, 3 };
	pctr__u64x2 t = { 4, 5 };

	reset_page(3, 32);
	e = entry(0, 0, 0, 32);
	page.cap_user_time = 0;
	ASSERT_EQ(pctr__plan_lead(&e, 2, 3, 32, false, fake_read, 1, &got, &t),
		  0);
	ASSERT_EQ(pctr__plan_lead(&e, PCTR__PLAN_HW_ENTRY, 0, 32, false,
				  fake_read, 1, &got, &t),
		  0);
	page.cap_user_time = 1;
	ASSERT_EQ(pctr__plan_lead(&e, 2, 3, 32, true, fake_read, 1, &got, &t),
		  0);
	ASSERT_EQ(pctr__plan_lead(&e, 1, 2, 32, false, fake_read, 1, &got, &t),
		  0);
	page.index = 4;
	ASSERT_EQ(pctr__plan_lead(&e, PCTR__PLAN_HW_ENTRY, 0, 32, false,
				  fake_read, 1, &got, &t),
		  0);
	page.index = 3;
	bump_lock = 1;
	ASSERT_EQ(pctr__plan_lead(&e, 2, 3, 32, false, fake_read, 1, &got, &t),
		  0);
	ASSERT_EQ(got.value, 1);
	ASSERT_EQ(got.enabled, 2);
	ASSERT_EQ(t[0], 4);
	ASSERT_EQ(t[1], 5);
	ASSERT_EQ(pctr__plan_lead(&e, 2, 3, 32, false, fake_read, 1, &got, &t),
		  1);
	page.cap_user_time_short = 1;
	page.time_mask = ~0ull;
	ASSERT_EQ(pctr__plan_lead(&e, 2, 3, 32, true, fake_read, 1, &got, &t),
		  1);
}

/*
 * rdpmc's halves joined and sign-extended at once (x86's readers) as the
 * whole counter sign-extended, for every width from 1 to 64 bits: bits
 * above the width ignored, the sign bit in the low half (32 bits or
 * fewer), at the top of the high half, in between.
 */
TEST(plan_join_halves)
{
	static const uint64_t raw[] = {
		0, 1, 0xffffffffull, 0x80000000ull, 0x7fffffffull,
		0xffffffffffffull, 0x800000000000ull, 0x7fffffffffffull,
		0xdead00000005ull, 0xffffffff00000000ull, ~0ull,
		0x8000000000000000ull, 0x123456789abcdefull,
	};

	for (unsigned int shift = 0; shift < 64; shift++)
		for (size_t i = 0; i < PCTR_ARRAY_SIZE(raw); i++) {
			uint64_t want = pctr__plan_extend(raw[i], shift);
			uint64_t got = pctr__plan_join(raw[i] & 0xffffffffu,
						       raw[i] >> 32, shift);

			if (got != want)
				printf("# shift %u, raw %#llx\n", shift,
				       (unsigned long long)raw[i]);
			ASSERT_HEX_EQ(got, want);
		}
}

/* the page's conversion: x86's 128-bit product and shift, or the generic */
TEST(plan_cyc_ns)
{
	check_cyc_ns();
}

/* ---- runs -------------------------------------------------------------- */

/* arm64's readers: any counter 0..31 alone, runs of up to 6 within 0..7 */
static bool
has_named(uint32_t hw, int nr, unsigned int shift)
{
	(void)shift;
	if (nr == 1)
		return hw < 32;
	return nr <= 6 && hw + (uint32_t)nr <= 8;
}

/* x86's: up to 8 counters of any numbers */
static bool
has_operand(uint32_t hw, int nr, unsigned int shift)
{
	(void)hw;
	(void)shift;
	return nr <= 8;
}

struct run_row {
	int line;
	bool consecutive;
	int n;
	uint32_t hw[10];
	uint16_t shift[10];
	int group[10];
	int nr; /* runs, or -1 */
	int len[10]; /* their lengths */
};

#define F 0x40000000u /* x86: fixed counters */

static const struct run_row run_rows[] = {
	R(true, 4, { 0, 1, 2, 3 }, { 0 }, { 0 }, 1, { 4 }),
	R(true, 4, { 2, 3, 4, 5 }, { 0 }, { 0 }, 1, { 4 }),
	/* the cycle counter (31) first, between, last */
	R(true, 4, { 31, 0, 1, 2 }, { 0 }, { 0 }, 2, { 1, 3 }),
	R(true, 3, { 0, 31, 1 }, { 0 }, { 0 }, 3, { 1, 1, 1 }),
	R(true, 3, { 0, 1, 31 }, { 0 }, { 0 }, 2, { 2, 1 }),
	/* a gap, a counter out of order */
	R(true, 3, { 0, 2, 3 }, { 0 }, { 0 }, 2, { 1, 2 }),
	R(true, 3, { 1, 0, 2 }, { 0 }, { 0 }, 3, { 1, 1, 1 }),
	/* no reader runs past 6 counters or past counter 7 */
	R(true, 8, { 0, 1, 2, 3, 4, 5, 6, 7 }, { 0 }, { 0 }, 2, { 6, 2 }),
	R(true, 3, { 6, 7, 8 }, { 0 }, { 0 }, 2, { 2, 1 }),
	/* a run keeps to one group and one width */
	R(true, 4, { 0, 1, 2, 3 }, { 0 }, { 0, 0, 1, 1 }, 2, { 2, 2 }),
	R(true, 3, { 0, 1, 2 }, { 32, 0, 0 }, { 0 }, 2, { 1, 2 }),
	/* a counter no reader is made for: no plan */
	R(true, 2, { 0, 40 }, { 0 }, { 0 }, -1, { 0 }),
	/* x86: fixed and general counters in any order are one run */
	R(false, 4, { F, 0, 1, 2 }, { 16, 16, 16, 16 }, { 0 }, 1, { 4 }),
	R(false, 3, { F + 1, F, 3 }, { 16, 16, 16 }, { 0 }, 1, { 3 }),
	R(false, 10, { 0 }, { 0 }, { 0 }, 2, { 8, 2 }),
	R(false, 3, { F, 0, 1 }, { 16, 16, 16 }, { 0, 1, 1 }, 2, { 1, 2 }),
};

TEST(plan_runs)
{
	for (size_t i = 0; i < PCTR_ARRAY_SIZE(run_rows); i++) {
		const struct run_row *w = &run_rows[i];
		struct pctr__plan_run run[10];
		int nr = pctr__plan_runs(w->hw, w->shift, w->group, w->n,
					 w->consecutive,
					 w->consecutive ? has_named
							: has_operand,
					 run);
		int at = 0;

		printf("# line %d: %d runs\n", w->line, nr);
		ASSERT_EQ(nr, w->nr);
		for (int k = 0; k < nr; k++) {
			ASSERT_EQ(run[k].first, at);
			ASSERT_EQ(run[k].nr, w->len[k]);
			at += run[k].nr;
		}
		if (nr > 0)
			ASSERT_EQ(at, w->n);
	}
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(plan_value_as_general_read)
				       TEST_CASE(plan_value_misses)
					       TEST_CASE(plan_lead_times)
						       TEST_CASE(plan_lead_misses)
							       TEST_CASE(plan_join_halves)
								       TEST_CASE(plan_cyc_ns)
									       TEST_CASE(plan_runs)));
}
