/* SPDX-License-Identifier: MIT */
/*
 * test_hw_cost.c - what one pctr_set_read() costs, per read path, in
 * instructions: exact for user mode, since the emulated PMU counts
 * instructions exactly.
 *
 * Method (nanoBench's): a second set, the meter, counts around K and 2K
 * reads through a function pointer; the difference is the cost of K
 * reads, from which K calls of an empty function of the same signature
 * are taken off.  User-mode figures must come out as exact multiples of
 * K.  User-and-kernel figures are the minimum over trials, because a
 * timer tick adds a few thousand kernel instructions now and then.
 *
 * Each figure is also printed as a "# cost|..." line, from which
 * tests/hw/run.sh --bench writes bench/hw-read-cost.md.
 */
#include "hw.h"

#define K 64
#define TRIALS 5

typedef int (*read_fn)(struct pctr_set *, struct pctr_sample *);

static int
empty_read(struct pctr_set *set, struct pctr_sample *s)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

static __attribute__((noinline)) void
reads(read_fn fn, struct pctr_set *set, int k, struct pctr_sample *s)
{
	for (int i = 0; i < k; i++)
		fn(set, s);
}

/* meter delta (user, user+kernel) around k calls of fn */
static void
metered(struct pctr_set *meter, read_fn fn, struct pctr_set *set, int k,
	uint64_t *u, uint64_t *uk)
{
	struct pctr_sample a, b, s;

	ASSERT_OK(pctr_set_read(meter, &a));
	reads(fn, set, k, &s);
	ASSERT_OK(pctr_set_read(meter, &b));
	*u = b.count[0].value - a.count[0].value;
	*uk = b.count[1].value - a.count[1].value;
}

/* cost of K calls of fn: 2K minus K */
static void
cost_of(struct pctr_set *meter, read_fn fn, struct pctr_set *set,
	uint64_t *u, uint64_t *uk)
{
	uint64_t u1, uk1, u2, uk2;

	*u = 0;
	*uk = UINT64_MAX;
	for (int t = 0; t < TRIALS; t++) {
		metered(meter, fn, set, K, &u1, &uk1);
		metered(meter, fn, set, 2 * K, &u2, &uk2);
		if (t)
			ASSERT_EQ(u2 - u1, *u); /* user counts are exact */
		*u = u2 - u1;
		if (uk2 - uk1 < *uk)
			*uk = uk2 - uk1;
	}
}

static void
measure(const char *label, unsigned int flags, const char *user_access,
	const char *events, int nev, uint32_t path)
{
	struct pctr_set *meter, *set;
	struct pctr_sample a, b;
	uint64_t u, uk, u0, uk0, pair = 0;

	hw_sysctl("kernel.perf_user_access", user_access);
	meter = hw_thread_set(PCTR_SET_NO_USER_READ,
			      "instructions:u,instructions");
	set = hw_thread_set(flags, events);
	ASSERT_EQ(pctr_set_nr(set), nev);
	/* the pair: what the set itself sees between two reads */
	for (int t = 0; t < 3; t++) {
		ASSERT_OK(pctr_set_read(set, &a));
		ASSERT_OK(pctr_set_read(set, &b));
		ASSERT_HEX_EQ(b.path, path);
		if (t)
			ASSERT_EQ(b.count[0].value - a.count[0].value, pair);
		pair = b.count[0].value - a.count[0].value;
	}
	cost_of(meter, pctr_set_read, set, &u, &uk);
	cost_of(meter, empty_read, set, &u0, &uk0);
	ASSERT_EQ((u - u0) % K, 0);
	ASSERT_GT(u, u0);
	printf("# %s, %d event(s): pair %llu, per read %llu user, %llu "
	       "user+kernel\n",
	       label, nev, (unsigned long long)pair,
	       (unsigned long long)((u - u0) / K),
	       (unsigned long long)((uk - uk0) / K));
	printf("# cost|%s|%d|%llu|%llu|%llu\n", label, nev,
	       (unsigned long long)pair, (unsigned long long)((u - u0) / K),
	       (unsigned long long)((uk - uk0) / K));
	pctr_set_free(set);
	pctr_set_free(meter);
}

#define FOUR "instructions:u,instructions:u,instructions:u,instructions:u"

TEST(cost_read_syscall)
{
	measure("read(2) of the group", PCTR_SET_NO_USER_READ, "0",
		"instructions:u", 1, PCTR_PATH_SYSCALL);
	measure("read(2) of the group", PCTR_SET_NO_USER_READ, "0", FOUR, 4,
		PCTR_PATH_SYSCALL);
}

TEST(cost_read_user)
{
	measure("user space (mrs)", 0, "1", "instructions:u", 1,
		PCTR_PATH_USER);
	measure("user space (mrs)", 0, "1", FOUR, 4, PCTR_PATH_USER);
}

TEST(cost_read_fallback)
{
	measure("fallback: index 0, then read(2)", 0, "0", "instructions:u", 1,
		PCTR_PATH_SYSCALL);
	measure("fallback: index 0, then read(2)", 0, "0", FOUR, 4,
		PCTR_PATH_SYSCALL);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(cost_read_syscall)
				       TEST_CASE(cost_read_user)
					       TEST_CASE(cost_read_fallback)));
}
