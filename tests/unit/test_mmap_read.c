/* SPDX-License-Identifier: MIT */
/*
 * test_mmap_read.c - the user-space read protocol against synthetic perf
 * mmap pages: counter widths of 32, 40 and 48 bits and their wrap, the
 * offset the kernel keeps, index 0, time extrapolation and the seqlock.
 */
#include <errno.h>
#include <string.h>

#include "mmap_read.h"
#include "test.h"

static struct perf_event_mmap_page page;
static uint64_t hw_value; /* what the fake counter instruction returns */
static uint32_t hw_asked;
static int bump_lock_times; /* the "kernel" rewrites the page meanwhile */
static int reads;

static uint64_t
fake_pmc(uint32_t hw)
{
	hw_asked = hw;
	reads++;
	if (bump_lock_times > 0) {
		bump_lock_times--;
		page.lock += 2;
	}
	return hw_value;
}

static void
reset_page(void)
{
	memset(&page, 0, sizeof(page));
	page.cap_user_rdpmc = 1;
	page.cap_user_time = 1;
	page.index = 3;
	page.time_mult = 1u << 10; /* 1 ns per cycle with shift 10 */
	page.time_shift = 10;
	bump_lock_times = 0;
	reads = 0;
}

struct width_row {
	int line;
	uint16_t width;
	uint64_t raw; /* what rdpmc returns, high bits as the CPU leaves them */
	int64_t offset;
	uint64_t expect;
};

#define R(...) { __LINE__, __VA_ARGS__ }

static const struct width_row width_rows[] = {
	/* positive counter values */
	R(48, 1000, 0, 1000),
	R(48, 1000, 5000000000, 5000001000),
	/* the counter starts at -period: sign-extend from the width */
	R(48, 0xffffffffff00ull, 0x1000000000000ll, 0x1000000000000ll - 0x100),
	R(40, 0xffffffff00ull, 0x10000000000ll, 0x10000000000ll - 0x100),
	R(32, 0xffffff00ull, 0x100000000ll, 0x100000000ll - 0x100),
	/* garbage above the width is ignored */
	R(32, 0xdead00000005ull, 10, 15),
	R(40, 0xbeef0000000007ull, 3, 10),
	R(48, 0xab000000000009ull, 1, 10),
	/* a 32-bit counter that wrapped: the kernel moved the rest to offset */
	R(32, 0x00000010ull, 0x500000000ll, 0x500000010ll),
	/* 64-bit counters (arm64 "long") pass through */
	R(64, 0x123456789abcdefull, 1, 0x123456789abcdf0ull),
	R(0, 77, 0, 77),
};

TEST(sign_extension_and_offset)
{
	for (size_t i = 0; i < sizeof(width_rows) / sizeof(width_rows[0]); i++) {
		const struct width_row *w = &width_rows[i];
		struct pctr_count c;

		reset_page();
		page.pmc_width = w->width;
		page.offset = w->offset;
		hw_value = w->raw;
		ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), 0);
		if (c.value != w->expect)
			TEST_FAIL("line %d: width %u raw %#llx offset %lld: "
				  "%#llx, expected %#llx",
				  w->line, w->width, (unsigned long long)w->raw,
				  (long long)w->offset,
				  (unsigned long long)c.value,
				  (unsigned long long)w->expect);
	}
}

TEST(reads_counter_index_minus_one)
{
	struct pctr_count c;

	reset_page();
	page.index = 32; /* arm64 cycle counter */
	page.pmc_width = 64;
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), 0);
	ASSERT_EQ(hw_asked, 31);
	page.index = 1;
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), 0);
	ASSERT_EQ(hw_asked, 0);
}

TEST(index_zero_falls_back)
{
	struct pctr_count c = { 1, 2, 3 };

	reset_page();
	page.index = 0;
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), -EAGAIN);
	ASSERT_EQ(reads, 0);
	ASSERT_EQ(c.value, 1); /* untouched */
	reset_page();
	page.cap_user_rdpmc = 0;
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), -EAGAIN);
	reset_page();
	page.cap_user_time = 0;
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), -EAGAIN);
}

TEST(time_extrapolation)
{
	struct pctr_count c;

	reset_page();
	page.pmc_width = 48;
	page.time_enabled = 5000;
	page.time_running = 4000;
	/* 1.5 ns per cycle: mult 3 << 9, shift 10 */
	page.time_mult = 3u << 9;
	page.time_shift = 10;
	page.time_offset = (uint64_t)-150000; /* written at cycle 100000 */
	ASSERT_EQ(pctr__mmap_read(&page, 100000, fake_pmc, &c), 0);
	ASSERT_UEQ(c.enabled, 5000);
	ASSERT_UEQ(c.running, 4000);
	ASSERT_EQ(pctr__mmap_read(&page, 100400, fake_pmc, &c), 0);
	ASSERT_UEQ(c.enabled, 5600);
	ASSERT_UEQ(c.running, 4600);
	/* the remainder term: cycles below 2^shift still count */
	ASSERT_EQ(pctr__mmap_read(&page, 100001, fake_pmc, &c), 0);
	ASSERT_UEQ(c.enabled, 5001);
}

TEST(time_short_counter_wraps)
{
	struct pctr_count c;

	reset_page();
	page.cap_user_time_short = 1;
	page.time_cycles = 0xfff0;
	page.time_mask = 0xffff; /* a 16-bit clock */
	page.time_mult = 1u << 10;
	page.time_shift = 10;
	page.time_offset = (uint64_t)-0xfff0;
	/* the clock wrapped from 0xfff0 to 0x0010: 32 cycles later */
	ASSERT_EQ(pctr__mmap_read(&page, 0x10010, fake_pmc, &c), 0);
	ASSERT_UEQ(c.enabled, 0x20);
	ASSERT_EQ(pctr__mmap_read(&page, 0x0010, fake_pmc, &c), 0);
	ASSERT_UEQ(c.enabled, 0x20);
}

TEST(seqlock_retry)
{
	struct pctr_count c;

	reset_page();
	page.pmc_width = 48;
	hw_value = 42;
	bump_lock_times = 3; /* the page changes during three reads */
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), 0);
	ASSERT_EQ(reads, 4);
	ASSERT_EQ(c.value, 42);
}

TEST(seqlock_never_settles)
{
	struct pctr_count c;

	reset_page();
	bump_lock_times = 1 << 30;
	ASSERT_EQ(pctr__mmap_read(&page, 0, fake_pmc, &c), -EAGAIN);
	ASSERT_EQ(reads, PCTR__MMAP_RETRIES);
}

/* the value-only read follows the same protocol, without the times */
TEST(value_only_read)
{
	uint64_t v = 0;

	for (size_t i = 0; i < sizeof(width_rows) / sizeof(width_rows[0]); i++) {
		const struct width_row *w = &width_rows[i];

		reset_page();
		page.cap_user_time = 0; /* not needed for the value alone */
		page.pmc_width = w->width;
		page.offset = w->offset;
		hw_value = w->raw;
		ASSERT_EQ(pctr__mmap_read_value(&page, fake_pmc, &v), 0);
		if (v != w->expect)
			TEST_FAIL("line %d: %#llx, expected %#llx", w->line,
				  (unsigned long long)v,
				  (unsigned long long)w->expect);
	}
	reset_page();
	page.index = 0;
	ASSERT_EQ(pctr__mmap_read_value(&page, fake_pmc, &v), -EAGAIN);
	reset_page();
	page.cap_user_rdpmc = 0;
	ASSERT_EQ(pctr__mmap_read_value(&page, fake_pmc, &v), -EAGAIN);
	reset_page();
	page.pmc_width = 48;
	hw_value = 7;
	bump_lock_times = 2;
	ASSERT_EQ(pctr__mmap_read_value(&page, fake_pmc, &v), 0);
	ASSERT_EQ(reads, 3);
	ASSERT_EQ(v, 7);
	reset_page();
	bump_lock_times = 1 << 30;
	ASSERT_EQ(pctr__mmap_read_value(&page, fake_pmc, &v), -EAGAIN);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(sign_extension_and_offset)
			       TEST_CASE(reads_counter_index_minus_one)
			       TEST_CASE(index_zero_falls_back)
			       TEST_CASE(time_extrapolation)
			       TEST_CASE(time_short_counter_wraps)
			       TEST_CASE(seqlock_retry)
			       TEST_CASE(seqlock_never_settles)
			       TEST_CASE(value_only_read)));
}
