/* SPDX-License-Identifier: MIT */
/*
 * test_hw_plan.c - read plans (src/plan.c): the readers made for the
 * counters a set got count exactly on every layout, and every case the
 * plan does not expect goes to the slow path and still gives the right
 * counts: counters moved to other registers, multiplexed, disabled, a
 * fork, a reset, serialised reads.
 *
 * "pair": what a set's own user-mode count shows for two reads with
 * nothing between; the same pair means the same read path, instruction
 * for instruction (the emulated PMU counts exactly).
 */
#include <signal.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "hw.h"

/* read_values, loop, read_values: the differences into @d */
static __attribute__((noinline)) int
values_span(struct pctr_set *set, uint64_t n, uint64_t *d)
{
	uint64_t a[PCTR_MAX_EVENTS], b[PCTR_MAX_EVENTS];
	int ra, rb;

	ra = pctr_set_read_values(set, a);
	hw_loop(n);
	rb = pctr_set_read_values(set, b);
	ASSERT(ra > 0);
	ASSERT_EQ(ra, rb);
	for (int e = 0; e < pctr_set_nr(set); e++)
		d[e] = b[e] - a[e];
	return rb;
}

/* 2N + c[e] for every N up to 1e8 and every event, values read alone */
static void
values_exact(struct pctr_set *set, int path)
{
	uint64_t d[PCTR_MAX_EVENTS];
	long long c[PCTR_MAX_EVENTS];
	int policy = hw_fifo_begin();

	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		uint64_t n = hw_points[i].n;

		ASSERT_EQ(values_span(set, n, d), path);
		for (int e = 0; e < pctr_set_nr(set); e++) {
			long long off = (long long)(d[e] - 2 * n);

			printf("# values N=%llu event %d: 2N%+lld\n",
			       (unsigned long long)n, e, off);
			if (i == 0)
				c[e] = off;
			ASSERT_EQ(off, c[e]);
			ASSERT_GT(off, 0);
			ASSERT_LT(off, 5000);
		}
	}
	hw_fifo_end(policy);
}

/* after one read more: the first after the counters moved remakes the plan */
static uint64_t
pair(struct pctr_set *set)
{
	struct pctr_sample a, b;
	int r0 = pctr_set_read(set, &a);
	int ra = pctr_set_read(set, &a), rb = pctr_set_read(set, &b);

	ASSERT_OK(r0);
	ASSERT_OK(ra);
	ASSERT_OK(rb);
	return b.count[0].value - a.count[0].value;
}

static void
both_exact(struct pctr_set *set)
{
	long long c[PCTR_MAX_EVENTS];

	/* from the first read: the enable made the plan */
	hw_check_exact(set, HW_SMALL_POINTS, PCTR_PATH_USER, c);
	values_exact(set, PCTR_PATH_USER);
	ASSERT_EQ(pctr_set_user_read(set), 1);
}

#define FOUR "instructions:u,instructions:u,instructions:u,instructions:u"

/* one run of consecutive counters: one reader */
TEST(plan_contiguous_exact)
{
	struct pctr_set *set;

	hw_user_read("1");
	set = hw_thread_set(0, FOUR);
	both_exact(set);
	pctr_set_free(set);
}

/*
 * Other layouts.  The kernel gives each group, in the order the groups
 * were made, the lowest free counters, and cycles the cycle counter
 * (arm64 index 32; x86 fixed counter 1): cycles between instructions
 * events cut a set into three runs.  Then 32-bit and 64-bit counters
 * mixed, which a run does not mix either.
 */
TEST(plan_other_layouts_exact)
{
	struct pctr_set *set;
	char events[3 * PCTR_NAME_MAX];

	hw_user_read("1");
	set = hw_thread_set(0, "instructions:u,cycles:u,instructions:u");
	both_exact(set);
#ifndef __x86_64__
	ASSERT_EQ(hw_page_index(set, 0), 1);
	ASSERT_EQ(hw_page_index(set, 1), 32);
	ASSERT_EQ(hw_page_index(set, 2), 2);
#endif
	pctr_set_free(set);

	set = hw_thread_set(0, "cycles:u,instructions:u,instructions:u");
	both_exact(set);
	pctr_set_free(set);

	snprintf(events, sizeof(events), "instructions:u,%s,instructions:u",
		 HW_INST64);
	set = hw_thread_set(0, events);
	both_exact(set);
	pctr_set_free(set);
}

/*
 * The counters move: a set made earlier holds the first counter; it is
 * disabled, and enabling a third set reschedules the thread's counters,
 * so the set's move down one.  The first read finds the indices changed
 * and reads the slow way, right; the plan is made again for the new
 * counters, and the pair comes back to what it was.
 */
TEST(plan_index_moved)
{
	struct pctr_set *holder, *set, *kick;
	uint64_t before, after, v[2], w[2];
	uint32_t idx;

	hw_user_read("1");
	holder = hw_thread_set(0, "instructions:u");
	set = hw_thread_set(0, "instructions:u,instructions:u");
	before = pair(set);
	idx = hw_page_index(set, 0);
	ASSERT_EQ(pctr_set_read_values(set, v), PCTR_PATH_USER);
	ASSERT_OK(pctr_set_disable(holder));
	kick = hw_thread_set(0, "instructions:u");
	ASSERT_NE(hw_page_index(set, 0), idx);
	ASSERT_NE(hw_page_index(set, 0), 0);
	/* the miss: still the user path, counter by counter */
	ASSERT_EQ(pctr_set_read_values(set, w), PCTR_PATH_USER);
	/* counted meanwhile: the disable's and the third set's user parts */
	ASSERT_GT(w[0], v[0]);
	ASSERT_LT(w[0] - v[0], 200000);
	/* counter 1 is read after counter 0 each time: a few more */
	ASSERT_GE(w[1] - v[1], w[0] - v[0]);
	ASSERT_LT(w[1] - v[1], w[0] - v[0] + 100);
	after = pair(set);
	printf("# pair %llu on counter %u, %llu on counter %u\n",
	       (unsigned long long)before, idx - 1,
	       (unsigned long long)after, hw_page_index(set, 0) - 1);
	ASSERT_EQ(after, before);
	values_exact(set, PCTR_PATH_USER);
	pctr_set_free(kick);
	pctr_set_free(set);
	pctr_set_free(holder);
}

/*
 * More events than counters: the kernel rotates the two sets, so each
 * read finds the set on the counters (the plan) or off them (read(2)).
 * Counts never go back, every path is seen, and the scaled total is the
 * loop's instructions within 1% (the share each set ran is known only to
 * the rotation's tick).
 */
TEST(plan_multiplexed)
{
	struct pctr_set *set, *other;
	char events[HW_INST_COUNTERS * 16];
	uint64_t last[4] = { 0 }, v[4], total = 0;
	int seen = 0;
	struct pctr_sample a, b;

	hw_user_read("1");
	events[0] = 0;
	for (int i = 0; i < HW_INST_COUNTERS - 3; i++)
		strcat(events, i ? ",instructions:u" : "instructions:u");
	set = hw_thread_set(0, FOUR);
	other = hw_thread_set(0, events);
	ASSERT_OK(pctr_set_read(set, &a));
	for (int i = 0; i < 300; i++) {
		int r;

		hw_loop(500000);
		total += 1000000;
		r = pctr_set_read_values(set, v);
		ASSERT(r == PCTR_PATH_USER || r == PCTR_PATH_SYSCALL);
		ASSERT_EQ(pctr_set_user_read(set), r == PCTR_PATH_USER);
		seen |= r;
		for (int e = 0; e < 4; e++) {
			ASSERT_GE(v[e], last[e]);
			last[e] = v[e];
		}
	}
	ASSERT_OK(pctr_set_read(set, &b));
	printf("# paths seen %#x\n", seen);
	ASSERT_EQ(seen, PCTR_PATH_USER | PCTR_PATH_SYSCALL);
	for (int e = 0; e < 4; e++) {
		struct pctr_count d = pctr_count_delta(&b.count[e],
						       &a.count[e]);

		ASSERT_LT(d.running, d.enabled);
		ASSERT_DBL_NEAR(pctr_count_scaled(&d) / (double)total, 1.0,
				0.01);
	}
	pctr_set_free(other);
	pctr_set_free(set);
}

/* A counter that is off: read(2), the count frozen; on again: the plan. */
TEST(plan_counter_off)
{
	struct pctr_set *set;
	uint64_t v[2], w[2];
	long long c[2];

	hw_user_read("1");
	set = hw_thread_set(0, "instructions:u,instructions:u");
	ASSERT_EQ(pctr_set_read_values(set, v), PCTR_PATH_USER);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_EQ(pctr_set_read_values(set, v), PCTR_PATH_SYSCALL);
	hw_loop(100000);
	ASSERT_EQ(pctr_set_read_values(set, w), PCTR_PATH_SYSCALL);
	ASSERT_EQ(w[0], v[0]);
	ASSERT_EQ(w[1], v[1]);
	ASSERT_EQ(pctr_set_user_read(set), 0);
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_EQ(pctr_set_read_values(set, v), PCTR_PATH_USER);
	values_exact(set, PCTR_PATH_USER);
	hw_check_exact(set, HW_SMALL_POINTS, PCTR_PATH_USER, c);
	pctr_set_free(set);
}

/*
 * A fork: the child's copy has no pages (the kernel does not copy perf
 * mappings), so its reads are read(2) of the parent's counters, which
 * have counted at least what the parent read before the fork.
 */
TEST(plan_fork)
{
	struct pctr_set *set;
	uint64_t v[2];
	int status;
	pid_t pid;

	hw_user_read("1");
	set = hw_thread_set(0, "instructions:u,instructions:u");
	ASSERT_EQ(pctr_set_read_values(set, v), PCTR_PATH_USER);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		uint64_t w[2];
		struct pctr_sample s;

		if (pctr_set_read_values(set, w) != PCTR_PATH_SYSCALL ||
		    w[0] < v[0] || w[1] < v[1])
			_exit(1);
		if (pctr_set_read(set, &s) != 0 ||
		    s.path != PCTR_PATH_SYSCALL || s.count[0].value < w[0])
			_exit(2);
		_exit(pctr_set_user_read(set) == 0 ? 0 : 3);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	ASSERT_EQ(pctr_set_read_values(set, v), PCTR_PATH_USER);
	values_exact(set, PCTR_PATH_USER);
	pctr_set_free(set);
}

/* A reset moves the baseline the plan holds: counts restart from it. */
TEST(plan_reset)
{
	struct pctr_set *set;
	uint64_t v[2], before, w[2];

	hw_user_read("1");
	set = hw_thread_set(0, "instructions:u,instructions:u");
	before = pair(set);
	hw_loop(1000000);
	ASSERT_EQ(pctr_set_read_values(set, v), PCTR_PATH_USER);
	ASSERT_GT(v[0], 2000000);
	ASSERT_OK(pctr_set_reset(set));
	ASSERT_EQ(pctr_set_read_values(set, w), PCTR_PATH_USER);
	/* the user part of the reset after its reads, and this read's */
	ASSERT_LT(w[0], 5000);
	ASSERT_LT(w[1], 5000);
	ASSERT_EQ(pair(set), before);
	values_exact(set, PCTR_PATH_USER);
	pctr_set_free(set);
}

/* Serialised reads keep the plan, behind the port's fence. */
TEST(plan_serialized)
{
	struct pctr_set *set;
	long long c[2];
	uint64_t plain, fenced;
	int policy = hw_fifo_begin();

	hw_user_read("1");
	set = hw_thread_set(0, "instructions:u,instructions:u");
	plain = pair(set);
	ASSERT_OK(pctr_set_serialize(set, PCTR_SERIAL_FENCE));
	/* the fenced reader: a call, the fence and a timestamp more */
	fenced = pair(set);
	ASSERT_GT(fenced, plain);
	ASSERT_EQ(pair(set), fenced);
	hw_check_exact(set, HW_SMALL_POINTS, PCTR_PATH_USER, c);
	ASSERT_OK(pctr_set_serialize(set, PCTR_SERIAL_NONE));
	ASSERT_EQ(pair(set), plain);
	pctr_set_free(set);
	hw_fifo_end(policy);
}

/*
 * The page changes during a read: overflow interrupts on event 0 every P
 * user instructions rewrite its counter, offset and page (the kernel's
 * set-period path updates the page under its seqlock), at an instruction
 * that moves through the loop's from one overflow to the next.  Some land
 * between a plan reader's two looks at the lock: the read goes the slow
 * way.  Every value must still be right: after each read_values, a read(2)
 * of the same counters finds the user instructions between the two, one
 * constant per path, never a torn count (off by the period or 2^32).
 * The notifications' signal is ignored: no handler runs in user mode.
 */
#define SEQ_PERIOD 10007
#define SEQ_READS 50000

TEST(plan_seqlock_changed)
{
	struct pctr_overflow ovf = { .size = sizeof(ovf),
				     .period = SEQ_PERIOD,
				     .signo = SIGUSR2 };
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	struct pctr_sample s;
	uint64_t v[2], first = 0;
	int nfirst = 0, other = 0;

	hw_user_read("1");
	signal(SIGUSR2, SIG_IGN);
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add_list(set, "instructions:u,instructions:u"));
	ASSERT_OK(pctr_set_overflow(set, 0, &ovf));
	ASSERT_OK(pctr_set_open(set, &t));
	ASSERT_OK(pctr_set_enable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	for (int i = 0; i < SEQ_READS; i++) {
		int r = pctr_set_read_values(set, v);
		int rs = pctr_set_read_instance(set, 0, &s);
		uint64_t d = s.count[0].value - v[0];

		ASSERT_EQ(r, PCTR_PATH_USER);
		ASSERT_OK(rs);
		/* the user part of one read(2) and of this read's end */
		ASSERT_LT(d, 2000);
		ASSERT_LT(s.count[1].value - v[1], 2000);
		if (i == 0)
			first = d;
		if (d == first)
			nfirst++;
		else
			other++;
	}
	printf("# %d reads with %llu instructions to the read(2), %d "
	       "other\n",
	       nfirst, (unsigned long long)first, other);
	/* the plan's reads, and some that the interrupts sent the slow way */
	ASSERT_GT(nfirst, SEQ_READS / 2);
	ASSERT_GT(other, 0);
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(plan_contiguous_exact)
			TEST_CASE(plan_other_layouts_exact)
				TEST_CASE(plan_index_moved)
					TEST_CASE(plan_multiplexed)
						TEST_CASE(plan_counter_off)
							TEST_CASE(plan_fork)
								TEST_CASE(plan_reset)
									TEST_CASE(plan_serialized)
										TEST_CASE(plan_seqlock_changed)));
}
