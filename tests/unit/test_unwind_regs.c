/* SPDX-License-Identifier: MIT */
/*
 * test_unwind_regs - pctr profile's unwinder (tools/unwind.c) without
 * libdw: a sample's registers, in the kernel's order for the
 * architecture (struct pctr_sample_record, PCTR_SAMPLE_USER_STACK),
 * renumbered to the DWARF numbers libdwfl takes (x86-64 psABI: rax, rdx,
 * rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, rip; AAPCS64: x0-x30, sp), and
 * the chain of a sample that cannot be unwound: its kernel part (as the
 * chain's markers said), else its address.
 */
#include "test.h"
#include "unwind.h"

/* a record with the registers of @mask, register N holding 1000 + N */
static struct pctr_sample_record
with_regs(uint64_t mask, uint64_t *regs)
{
	struct pctr_sample_record r = { .regs_abi = 64, .regs_mask = mask,
					.regs = regs };
	int n = 0;

	for (int bit = 0; bit < 64; bit++)
		if (mask >> bit & 1)
			regs[n++] = 1000 + (uint64_t)bit;
	return r;
}

#if defined(__x86_64__)
#define MASK (0xfffull | 0xff0000ull)
#define BIT_IP 8
/* the kernel's number of each DWARF register 0-16 */
static const int want[] = { 0,  3,  2,  1,  4,  5,  6,  7, 16,
			    17, 18, 19, 20, 21, 22, 23, 8 };
#define WANT_PC 1008
#define WANT_SP 1007
#elif defined(__aarch64__)
#define MASK ((1ull << 33) - 1)
#define BIT_IP 32
static const int want[] = { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
			    11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
			    22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
#define WANT_PC 1032
#define WANT_SP 1031
#endif

#ifdef MASK
TEST(dwarf_numbering)
{
	uint64_t regs[64], dwarf[64], pc = 0, sp = 0;
	struct pctr_sample_record r = with_regs(MASK, regs);
	int n = unwind_regs_dwarf(&r, dwarf, 64, &pc, &sp);

	ASSERT_EQ(n, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < n; i++)
		if (dwarf[i] != 1000 + (uint64_t)want[i])
			TEST_FAIL("DWARF register %d: %llu, want %d", i,
				  (unsigned long long)dwarf[i], 1000 + want[i]);
	ASSERT_UEQ(pc, WANT_PC);
	ASSERT_UEQ(sp, WANT_SP);
	/* too small an array, a 32-bit task, a register missing: none */
	ASSERT_EQ(unwind_regs_dwarf(&r, dwarf, n - 1, &pc, &sp), -1);
	r.regs_abi = 32;
	ASSERT_EQ(unwind_regs_dwarf(&r, dwarf, 64, &pc, &sp), -1);
	r = with_regs(MASK & ~(1ull << BIT_IP), regs);
	ASSERT_EQ(unwind_regs_dwarf(&r, dwarf, 64, &pc, &sp), -1);
	r = (struct pctr_sample_record){ 0 };
	ASSERT_EQ(unwind_regs_dwarf(&r, dwarf, 64, &pc, &sp), -1);
}
#else
TEST(dwarf_numbering)
{
	SKIP("registers are renumbered for x86-64 and arm64 (this is another)");
}
#endif

/* without registers: the kernel's part of the chain, else the address */
TEST(chain_without_registers)
{
	uint64_t kchain[] = { 0xffffffff81000010ull, 0xffffffff81000020ull,
			      0x401000 };
	struct pctr_sample_record r = { .ip = kchain[0], .user = 0,
					.nr_callchain = 3,
					.nr_callchain_kernel = 2,
					.callchain = kchain };
	uint64_t chain[8];
	size_t nk;
	struct unwind *u;

	ASSERT_OK(unwind_new(&u));
	/* the user part of the kernel's chain is not unwound's */
	ASSERT_UEQ(unwind_sample(u, NULL, 0, &r, chain, 8, &nk), 2);
	ASSERT_UEQ(nk, 2);
	ASSERT_UEQ(chain[0], kchain[0]);
	ASSERT_UEQ(chain[1], kchain[1]);
	ASSERT_UEQ(unwind_sample(u, NULL, 0, &r, chain, 1, &nk), 1);
	ASSERT_UEQ(nk, 1);
	r = (struct pctr_sample_record){ .ip = 0x401234, .user = 1 };
	ASSERT_UEQ(unwind_sample(u, NULL, 0, &r, chain, 8, &nk), 1);
	ASSERT_UEQ(chain[0], 0x401234);
	ASSERT_UEQ(nk, 0);
	/* a kernel sample without the kernel's chain: its own address */
	r = (struct pctr_sample_record){ .ip = kchain[1], .user = 0 };
	ASSERT_UEQ(unwind_sample(u, NULL, 0, &r, chain, 8, &nk), 1);
	ASSERT_UEQ(chain[0], kchain[1]);
	ASSERT_UEQ(nk, 1);
	unwind_free(u);
}

/*
 * The kernel's part is what the chain's markers said (the record's
 * nr_callchain_kernel), whatever the addresses: a 32-bit kernel lies at
 * 0xc0000000, not in the upper half of 64 bits.  The top bit of the
 * address was the test once: this chain had no kernel part, and the
 * sample was its address alone.
 */
TEST(kernel_part_by_markers)
{
	uint64_t kchain[] = { 0xc1000010, 0xc1000020, 0x08048010 };
	struct pctr_sample_record r = { .ip = kchain[0], .user = 0,
					.nr_callchain = 3,
					.nr_callchain_kernel = 2,
					.callchain = kchain };
	uint64_t chain[8];
	size_t nk;
	struct unwind *u;

	ASSERT_OK(unwind_new(&u));
	ASSERT_UEQ(unwind_sample(u, NULL, 0, &r, chain, 8, &nk), 2);
	ASSERT_UEQ(nk, 2);
	ASSERT_UEQ(chain[1], kchain[1]);
	/* and a user chain's address in the upper half is not the kernel's */
	kchain[2] = 0xffffffff81000030ull;
	r.nr_callchain_kernel = 0;
	r.user = 1;
	r.ip = 0x08048020;
	ASSERT_UEQ(unwind_sample(u, NULL, 0, &r, chain, 8, &nk), 1);
	ASSERT_UEQ(nk, 0);
	ASSERT_UEQ(chain[0], 0x08048020);
	unwind_free(u);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(dwarf_numbering)
			       TEST_CASE(chain_without_registers)
			       TEST_CASE(kernel_part_by_markers)));
}
