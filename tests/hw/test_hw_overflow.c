/* SPDX-License-Identifier: MIT */
/*
 * test_hw_overflow.c - overflow notification on the emulated PMU: with a
 * period P over a loop of K periods and a half (hw_ovf.h), exactly
 * floor(count / P) = K notifications, each with its PC inside the loop,
 * its thread, its sequence number and its running count.  No tolerance:
 * under "-icount shift=0" the guest is deterministic and QEMU raises the
 * overflow interrupt on the very instruction that overflows the counter
 * (the cycle counter always; the instructions counter with the fix in
 * tests/hw/qemu), and the kernel re-arms the counter at -P from the
 * overflow, so overflows fall at exact multiples of P of the count.
 */
#include "hw_ovf.h"

#define MAX_NOTES 1024

static struct pctr_overflow_info notes[MAX_NOTES];
static volatile int nr_notes;

static void
record(const struct pctr_overflow_info *info, void *arg)
{
	(void)arg;
	if (nr_notes < MAX_NOTES)
		notes[nr_notes] = *info;
	nr_notes++;
}

static struct pctr_set *
overflow_set(const char *event, uint64_t period, unsigned int flags,
	     pctr_overflow_fn fn, int signo)
{
	struct pctr_overflow o = { .size = sizeof(o), .period = period,
				   .flags = flags, .fn = fn, .signo = signo };
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, event));
	ASSERT_OK(pctr_set_overflow(set, 0, &o));
	ASSERT_OK(pctr_set_open(set, &t));
	return set;
}

/* enable, hw_loop(n), disable: the count between */
static uint64_t
run_loop(struct pctr_set *set, uint64_t n)
{
	struct pctr_sample s;

	ASSERT_OK(pctr_set_enable(set));
	hw_loop(n);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	return s.count[0].value;
}

/* K notifications, exactly, every one well-formed and inside the loop */
static void
check_notes(struct pctr_set *set, uint64_t count, uint64_t n, uint64_t p)
{
	struct pctr_overflow_stats st = { .size = sizeof(st) };

	printf("# %d notifications; count %llu = 2N%+lld, count / P = %llu\n",
	       nr_notes, (unsigned long long)count,
	       (long long)(count - 2 * n),
	       (unsigned long long)(count / p));
	ASSERT_LE(nr_notes, MAX_NOTES);
	ASSERT_UEQ(nr_notes, count / p);
	/* the loop's design holds: the extra stayed under half a period */
	ASSERT_UEQ(nr_notes, HW_OVF_K);
	for (int i = 0; i < nr_notes; i++) {
		if (!hw_in_loop(notes[i].ip))
			TEST_FAIL("notification %d: PC %#llx outside hw_loop "
				  "at %p",
				  i, (unsigned long long)notes[i].ip,
				  (void *)hw_loop);
		ASSERT_EQ(notes[i].event, 0);
		ASSERT_EQ(notes[i].tid, gettid());
		ASSERT_UEQ(notes[i].seq, i + 1);
		ASSERT_UEQ(notes[i].period, p);
		ASSERT_UEQ(notes[i].count, (i + 1) * p);
	}
	ASSERT_OK(pctr_set_overflow_stats(set, 0, &st));
	ASSERT_UEQ(st.notified, nr_notes);
	ASSERT_UEQ(st.lost, 0);
}

static void
exact_notifications(const char *event)
{
	uint64_t n = hw_ovf_iterations(HW_OVF_PERIOD, HW_OVF_K);
	struct pctr_set *set = overflow_set(event, HW_OVF_PERIOD, 0, record,
					    0);
	uint64_t count = run_loop(set, n);

	check_notes(set, count, n, HW_OVF_PERIOD);
	pctr_set_free(set);
}

/* the cycle counter, with the library's handler and a callback */
TEST(cycles_exact)
{
	exact_notifications("cycles:u");
}

/* the same through the program's own handler and pctr_overflow_decode() */
static void
own_handler(int sig, siginfo_t *si, void *uc)
{
	struct pctr_overflow_info info[8] = { { .size = sizeof(info[0]) } };
	int k;

	(void)sig;
	(void)uc;
	do {
		k = pctr_overflow_decode(si, info, 8);
		for (int i = 0; i < k; i++)
			record(&info[i], NULL);
	} while (k == 8);
}

TEST(cycles_exact_own_signal)
{
	struct sigaction sa = { .sa_sigaction = own_handler,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	uint64_t n = hw_ovf_iterations(HW_OVF_PERIOD, HW_OVF_K);
	struct pctr_set *set;
	uint64_t count;

	ASSERT(sigaction(SIGRTMIN + 2, &sa, NULL) == 0);
	set = overflow_set("cycles:u", HW_OVF_PERIOD, 0, NULL, SIGRTMIN + 2);
	count = run_loop(set, n);
	check_notes(set, count, n, HW_OVF_PERIOD);
	pctr_set_free(set);
}

/*
 * One shot: the counter stops at its overflow, so the count is P itself
 * plus what the kernel counts before it disables the counter (nothing:
 * the interrupt is precise and the handler runs after the stop); after a
 * re-arm, one more notification and 2P.
 */
static void
oneshot_exact(const char *event)
{
	uint64_t p = HW_OVF_PERIOD, n = hw_ovf_iterations(p, 3);
	struct pctr_set *set = overflow_set(event, p, PCTR_OVF_ONESHOT,
					    record, 0);
	struct pctr_sample s;

	ASSERT_OK(pctr_set_enable(set));
	hw_loop(n);
	ASSERT_EQ(nr_notes, 1);
	ASSERT_OK(pctr_set_read(set, &s));
	printf("# one shot: count %llu = P%+lld\n",
	       (unsigned long long)s.count[0].value,
	       (long long)(s.count[0].value - p));
	ASSERT_UEQ(s.count[0].value, p);
	ASSERT(hw_in_loop(notes[0].ip));
	ASSERT_OK(pctr_set_overflow_rearm(set, 0));
	hw_loop(n);
	ASSERT_EQ(nr_notes, 2);
	ASSERT_OK(pctr_set_read(set, &s));
	printf("# re-armed: count %llu = 2P%+lld\n",
	       (unsigned long long)s.count[0].value,
	       (long long)(s.count[0].value - 2 * p));
	ASSERT_UEQ(s.count[0].value, 2 * p);
	ASSERT(hw_in_loop(notes[1].ip));
	ASSERT_UEQ(notes[1].seq, 2);
	pctr_set_free(set);
}

TEST(cycles_oneshot_exact)
{
	oneshot_exact("cycles:u");
}

/* the instructions counter: exact on the patched QEMU (hw_ovf.h) */
TEST(instructions_exact)
{
	exact_notifications("instructions:u");
}

TEST(instructions_oneshot_exact)
{
	oneshot_exact("instructions:u");
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(cycles_exact)
			       TEST_CASE(cycles_exact_own_signal)
			       TEST_CASE(cycles_oneshot_exact)
			       TEST_CASE(instructions_exact)
			       TEST_CASE(instructions_oneshot_exact)));
}
