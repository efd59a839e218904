/* SPDX-License-Identifier: MIT */
/*
 * test_hw_cost.c - what one read costs, per read path, in instructions:
 * exact for user mode, since the emulated PMU counts instructions exactly.
 *
 * Method (nanoBench's): a second set, the meter, counts around K and 2K
 * calls through a function pointer; the difference is the cost of K
 * calls, from which K calls of an empty function of the same signature
 * are taken off.  User-mode figures must come out as exact multiples of
 * K.  User-and-kernel figures are the least 2K run less the least K run
 * over the trials: a timer tick adds a few thousand kernel instructions to
 * the run it falls in, and the least run of each length is one without;
 * the least of the differences would take a K run with a tick against a
 * 2K run without and come out low.
 *
 * Each figure is also printed as a "# cost|..." line, from which
 * tests/hw/run.sh --bench writes bench/hw-read-cost.md; the read plans'
 * targets (issue 14) against the floor measured in the same boot
 * (hw_floor.h) are asserted, and printed as "# plan|..." lines.
 */
#include "hw_floor.h"

#define K 64
#define TRIALS 5

typedef int (*read_fn)(struct pctr_set *, struct pctr_sample *);
typedef int (*values_fn)(struct pctr_set *, uint64_t *);

static int
empty_read(struct pctr_set *set, struct pctr_sample *s)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

static int
empty_values(struct pctr_set *set, uint64_t *v)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

/* a function to call K times: a read of a sample or of values alone */
struct op {
	read_fn read;
	values_fn values;
};

/* each loop a plain call site through a pointer */
static __attribute__((noinline)) void
reads(const struct op *op, struct pctr_set *set, int k)
{
	struct pctr_sample s;
	uint64_t v[PCTR_MAX_EVENTS];

	if (op->read)
		for (int i = 0; i < k; i++)
			op->read(set, &s);
	else
		for (int i = 0; i < k; i++)
			op->values(set, v);
}

/* meter delta (user, user+kernel) around k calls of op */
static void
metered(struct pctr_set *meter, const struct op *op, struct pctr_set *set,
	int k, uint64_t *u, uint64_t *uk)
{
	struct pctr_sample a, b;

	ASSERT_OK(pctr_set_read(meter, &a));
	reads(op, set, k);
	ASSERT_OK(pctr_set_read(meter, &b));
	*u = b.count[0].value - a.count[0].value;
	*uk = b.nr > 1 ? b.count[1].value - a.count[1].value : *u;
}

/*
 * The sum of the seqlocks of @set's pages, mapped again for the test
 * (a second mapping of an event's fd is the same page).  The kernel
 * bumps a page's lock whenever it updates the page: when the thread is
 * scheduled in again, when the counter is moved or multiplexed.
 */
struct locks {
	struct perf_event_mmap_page *pg[PCTR_MAX_EVENTS];
	int nr;
};

static void
locks_map(struct locks *l, struct pctr_set *set)
{
	l->nr = pctr_set_nr(set);
	for (int i = 0; i < l->nr; i++) {
		l->pg[i] = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ,
				MAP_SHARED, pctr_set_fd(set, i), 0);
		ASSERT(l->pg[i] != MAP_FAILED);
	}
}

static void
locks_unmap(struct locks *l)
{
	for (int i = 0; i < l->nr; i++)
		munmap(l->pg[i], sysconf(_SC_PAGESIZE));
}

static uint64_t
locks_sum(const struct locks *l)
{
	uint64_t sum = 0;

	for (int i = 0; i < l->nr; i++)
		sum += FLOOR_READ_ONCE(l->pg[i]->lock);
	FLOOR_BARRIER();
	return sum;
}

/*
 * Cost of K calls of op: 2K minus K.  User counts are exact, so every
 * trial gives the same figure, except a trial in which the kernel
 * updated one of the set's pages: a read that overlaps the update is a
 * miss (plan.c), which reads the slow way and makes the plan again, a
 * few thousand user instructions more.  Such a trial is printed and
 * left out of the comparison; the rest must agree exactly, and at least
 * TRIALS - 2 of them must be undisturbed (an update is a rare event: the
 * guest's thread is rescheduled now and then by its kernel threads).
 */
static void
cost_op(struct pctr_set *meter, const struct op *op, struct pctr_set *set,
	uint64_t *u, uint64_t *uk)
{
	uint64_t u1, uk1, u2, uk2, l0, min1 = UINT64_MAX, min2 = UINT64_MAX;
	struct locks l;
	int clean = 0;

	locks_map(&l, set);
	*u = 0;
	for (int t = 0; t < TRIALS; t++) {
		l0 = locks_sum(&l);
		metered(meter, op, set, K, &u1, &uk1);
		metered(meter, op, set, 2 * K, &u2, &uk2);
		if (locks_sum(&l) != l0) {
			printf("# trial %d: the kernel updated a page of the "
			       "set (locks %llu -> %llu); user %llu, not "
			       "compared\n",
			       t, (unsigned long long)l0,
			       (unsigned long long)locks_sum(&l),
			       (unsigned long long)(u2 - u1));
			continue;
		}
		if (clean++)
			ASSERT_EQ(u2 - u1, *u); /* user counts are exact */
		*u = u2 - u1;
		min1 = uk1 < min1 ? uk1 : min1;
		min2 = uk2 < min2 ? uk2 : min2;
	}
	locks_unmap(&l);
	ASSERT_GE(clean, TRIALS - 2);
	/* user and kernel: the least 2K run less the least K run (top) */
	ASSERT(min2 >= min1);
	*uk = min2 - min1;
}

static __attribute__((unused)) void
cost_of(struct pctr_set *meter, read_fn fn, struct pctr_set *set,
	uint64_t *u, uint64_t *uk)
{
	struct op op = { fn, NULL };

	cost_op(meter, &op, set, u, uk);
}

/* user-mode instructions of one call of @op, less an empty one's */
static uint64_t
user_cost(struct pctr_set *meter, const struct op *op, struct pctr_set *set)
{
	struct op empty = { op->read ? empty_read : NULL,
			    op->read ? NULL : empty_values };
	uint64_t u, uk, u0, uk0;

	cost_op(meter, op, set, &u, &uk);
	cost_op(meter, &empty, set, &u0, &uk0);
	ASSERT_EQ((u - u0) % K, 0);
	return (u - u0) / K;
}

static __attribute__((unused)) void
measure(const char *label, unsigned int flags, const char *user_access,
	const char *events, int nev, uint32_t path)
{
	struct pctr_set *meter, *set;
	struct pctr_sample a, b;
	uint64_t u, uk, u0, uk0, pair = 0;

	hw_user_read(user_access);
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

/*
 * pctr's read paths with a user-and-kernel meter: arm64 (its 6 event
 * counters hold 4 measured and the meter's 2).
 */
#ifndef __x86_64__
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
#endif

/*
 * The meter of the plans' costs: user mode alone.  x86's instructions
 * events have 5 counters (fixed counter 0 and 4 general ones): 4
 * measured and a user-and-kernel meter would need 6.
 */
#ifdef __x86_64__
#define PLAN_METER "instructions:u"
#else
#define PLAN_METER "instructions:u,instructions"
#endif

/*
 * Read plans against the floor, one boot (issue 14's targets).  The floor
 * is hw_floor.h's for a read any thread may call (floor_owned*: the check
 * that the caller is the thread the pages count, without which another
 * thread's read crashes on arm64, tests/repro/repro_other_thread_user_read.c);
 * pctr_set_read_values() at most 1.25 times it on contiguous counters and
 * twice it on any other layout; pctr_set_read() (count, enabled, running
 * and timestamp) at most 45 instructions for one event and 90 for four.
 * The floor without the check (floor_known*, right only on the pages'
 * own thread) is measured and printed beside it: "# floor|N|known|owned".
 * The measured set is opened before the meter so that its events get the
 * first counters.
 */
static void
plan_line(const char *what, const char *layout, int nev, uint64_t floor,
	  uint64_t got, const char *limit)
{
	printf("# plan|%s|%s|%d|%llu|%llu|%s\n", what, layout, nev,
	       (unsigned long long)floor, (unsigned long long)got, limit);
}

static uint64_t
floor_cost(int nev, const char *events, struct pctr_set **setp,
	   struct pctr_set **meterp)
{
	struct op floor = { nev == 1 ? floor_owned1 : floor_owned4, NULL };
	struct op known = { nev == 1 ? floor_known1 : floor_known4, NULL };
	struct pctr_sample s;
	uint64_t f, k;

	hw_user_read("1");
	*setp = hw_thread_set(0, events);
	ASSERT_OK(pctr_set_read(*setp, &s));
	ASSERT_HEX_EQ(s.path, PCTR_PATH_USER);
	ASSERT_EQ(floor_map(*setp, nev), 1);
	*meterp = hw_thread_set(PCTR_SET_NO_USER_READ, PLAN_METER);
	/* each read reads: none gives up (-1) in the loops measured */
	ASSERT_EQ(floor.read(*setp, &s), 0);
	ASSERT_EQ(known.read(*setp, &s), 0);
	f = user_cost(*meterp, &floor, *setp);
	k = user_cost(*meterp, &known, *setp);
	ASSERT_EQ(floor.read(*setp, &s), 0);
	ASSERT_EQ(known.read(*setp, &s), 0);
	printf("# floor|%d|%llu|%llu\n", nev, (unsigned long long)k,
	       (unsigned long long)f);
	floor_unmap(nev);
	return f;
}

static void
plan_contiguous(int nev, const char *events, uint64_t read_limit)
{
	struct pctr_set *set, *meter;
	struct op values = { NULL, pctr_set_read_values };
	struct op read = { pctr_set_read, NULL };
	uint64_t f = floor_cost(nev, events, &set, &meter), v, r;

	v = user_cost(meter, &values, set);
	r = user_cost(meter, &read, set);
	/* the reads measured were the plan's: each returns the user path */
	ASSERT_EQ(pctr_set_user_read(set), 1);
	plan_line("pctr_set_read_values", "contiguous", nev, f, v, "1.25x");
	plan_line("pctr_set_read", "contiguous", nev, f, r,
		  nev == 1 ? "45" : "90");
	ASSERT_LE(4 * v, 5 * f);
	/* the same on both ports: issue 14 asks x86 for arm64's design */
	ASSERT_LE(r, read_limit);
	pctr_set_free(meter);
	pctr_set_free(set);
}

TEST(plan_targets_1)
{
	plan_contiguous(1, "instructions:u", 45);
}

TEST(plan_targets_4)
{
	plan_contiguous(4, FOUR, 90);
}

/*
 * Other layouts, at most twice the floor of four contiguous counters:
 * cycles on the cycle counter (arm64 index 32), three instructions events
 * on PMEVCNTR0..2, so two runs; and 32-bit and 64-bit counters in turn,
 * so four runs of one (x86: one run, its counters are 48 bits).
 */
static void
other_layout(const char *label, const char *events, uint64_t f)
{
	struct pctr_set *set, *meter;
	struct op values = { NULL, pctr_set_read_values };
	struct op read = { pctr_set_read, NULL };
	struct pctr_sample s;
	uint64_t v, r;

	set = hw_thread_set(0, events);
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_HEX_EQ(s.path, PCTR_PATH_USER);
	meter = hw_thread_set(PCTR_SET_NO_USER_READ, PLAN_METER);
	v = user_cost(meter, &values, set);
	r = user_cost(meter, &read, set);
	ASSERT_EQ(pctr_set_user_read(set), 1);
	plan_line("pctr_set_read_values", label, 4, f, v, "2x");
	plan_line("pctr_set_read", label, 4, f, r, "-");
	ASSERT_LE(v, 2 * f);
	pctr_set_free(meter);
	pctr_set_free(set);
}

TEST(plan_other_layout)
{
	struct pctr_set *set, *meter;
	uint64_t f = floor_cost(4, FOUR, &set, &meter);
	char events[4 * PCTR_NAME_MAX];

	pctr_set_free(meter);
	pctr_set_free(set);
	other_layout("cycle counter + 3",
		     "cycles:u,instructions:u,instructions:u,instructions:u",
		     f);
	snprintf(events, sizeof(events), "instructions:u,%s,instructions:u,%s",
		 HW_INST64, HW_INST64);
	other_layout(HW_ARCH[0] == 'x' ? "instructions, its alias, in turn"
				       : "32, 64, 32, 64 bits",
		     events, f);
}

int
main(void)
{
	return test_main(TESTS(
#ifndef __x86_64__
		TEST_CASE(cost_read_syscall) TEST_CASE(cost_read_user)
			TEST_CASE(cost_read_fallback)
#endif
				TEST_CASE(plan_targets_1)
					TEST_CASE(plan_targets_4)
						TEST_CASE(plan_other_layout)));
}
