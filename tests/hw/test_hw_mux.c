/* SPDX-License-Identifier: MIT */
/*
 * test_hw_mux.c - more events than counters.  The emulated PMUv3 has 6
 * event counters (plus the cycle counter, which cannot count
 * instructions), the x86 PMU 4 general and 3 fixed counters, of which 5
 * can count instructions: 11 instruction events go into kernel groups
 * that the kernel rotates on the counters, and the scaled counts must
 * still tell the truth.
 */
#include <math.h>
#include <time.h>

#include "hw.h"

#define NR_MUX 11

static struct pctr_set *
mux_set(unsigned int flags, int *err)
{
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, flags));
	for (int i = 0; i < NR_MUX; i++)
		ASSERT_OK(pctr_set_add(set, "instructions:u"));
	*err = pctr_set_open(set, &t);
	return set;
}

/*
 * The truth is 2N (+ a few hundred for the reads): each event, scaled by
 * enabled/running, must be within 1% of it, and must report that it ran
 * only part of the time.
 */
TEST(mux_11_on_6_counters)
{
	const uint64_t n = 50000000; /* 1e8 instructions, ~25 rotations */
	struct pctr_sample d;
	struct pctr_set *set;
	int err;

	set = mux_set(0, &err);
	ASSERT_OK(err);
	ASSERT_OK(pctr_set_enable(set));
	hw_span(set, n, &d);
	ASSERT_EQ(d.nr, NR_MUX);
	for (int e = 0; e < NR_MUX; e++) {
		const struct pctr_count *c = &d.count[e];
		double scaled = pctr_count_scaled(c), truth = 2.0 * n;
		double frac = (double)c->running / (double)c->enabled;

		printf("# event %2d: raw %llu, ran %.1f%% of the time, scaled "
		       "%.0f (%+.3f%% from 2N)\n",
		       e, (unsigned long long)c->value, 100.0 * frac, scaled,
		       100.0 * (scaled - truth) / truth);
	}
	for (int e = 0; e < NR_MUX; e++) {
		const struct pctr_count *c = &d.count[e];
		double scaled = pctr_count_scaled(c), truth = 2.0 * n;
		double frac = (double)c->running / (double)c->enabled;

		ASSERT_GT(c->running, 0);
		ASSERT_LT(c->running, c->enabled);
		ASSERT(frac > 0.2 && frac < 0.9);
		ASSERT_DBL_NEAR(scaled / truth, 1.0, 0.01);
	}
	pctr_set_free(set);
}

/* PCTR_SET_NO_MULTIPLEX refuses the same set instead of rotating it. */
TEST(no_multiplex_refuses)
{
	struct pctr_set *set;
	int err;

	set = mux_set(PCTR_SET_NO_MULTIPLEX, &err);
	ASSERT_EQ(err, -EBUSY);
	ASSERT_CONTAINS(pctr_strerror(err), "multiplexing was refused");
	pctr_set_free(set);
}

/*
 * Seven: one more than the counters (arm64; on x86 five instruction
 * counters, so two more).  The kernel's arm_pmu group check skips a
 * disabled leader, so without care all seven land in one group that is
 * accepted and never scheduled (every count 0).
 */
static void
seven_on(int target)
{
	struct pctr_sample d;
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	for (int i = 0; i < 7; i++)
		ASSERT_OK(pctr_set_add(set, "instructions:u"));
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){ target }));
	ASSERT_OK(pctr_set_enable(set));
	hw_span(set, 20000000, &d);
	for (int e = 0; e < 7; e++) {
		printf("# event %d: raw %llu, running %llu of %llu ns\n", e,
		       (unsigned long long)d.count[e].value,
		       (unsigned long long)d.count[e].running,
		       (unsigned long long)d.count[e].enabled);
		ASSERT_GT(d.count[e].running, 0);
		ASSERT_DBL_NEAR(pctr_count_scaled(&d.count[e]) / 4e7, 1.0,
				0.01);
	}
	pctr_set_free(set);
}

TEST(seven_events_all_count)
{
	seven_on(PCTR_TARGET_THREAD);
}

/* the same for inherited counters, which cannot use enable_on_exec */
TEST(seven_events_all_count_process_wide)
{
	seven_on(PCTR_TARGET_PROCESS);
}

/*
 * As many instruction events as counters fit (6 on arm64, 5 on x86): no
 * rotation, every count exact.
 */
TEST(six_fit_exactly)
{
	char list[HW_INST_COUNTERS * 16] = "";
	struct pctr_set *set;
	long long c[HW_INST_COUNTERS];

	for (int e = 0; e < HW_INST_COUNTERS; e++)
		strcat(list, e ? ",instructions:u" : "instructions:u");
	set = hw_thread_set(PCTR_SET_NO_MULTIPLEX | PCTR_SET_NO_USER_READ,
			    list);
	hw_check_exact(set, 3, PCTR_PATH_SYSCALL, c);
	for (int e = 1; e < HW_INST_COUNTERS; e++)
		ASSERT_EQ(c[e], c[0]);
	pctr_set_free(set);
}

/*
 * The interval of a scaled count (pctr_scale_bounds()) against the exact
 * count.  hw_loop N, counted as a command from its exec, executes exactly
 * hw_loop_exec_count(N) user instructions (hw_loop.S; the parent's reads
 * run in the parent and count nothing).  11 instruction events rotate on
 * the 6 counters; the parent reads them every MUX_READ_NS while the loop
 * runs, as pctr stat does, and each event's interval must hold the exact
 * count.
 */
#define MUX_TRIALS 20 /* 220 intervals: one miss is 0.45% of them */
/*
 * 5 ms of guest time, a little more than the kernel's rotation (4 ms at
 * the guest kernel's HZ of 250): most slices see each event on the
 * counters for a part of the slice, some not at all.
 */
#define MUX_READ_NS 5000000L
#define MUX_N 50000000ull /* 1e8 instructions: ~0.25 s, ~50 slices */

struct mux_tally {
	int held, total;
	double width_sum, width_max; /* (high - low) / truth */
	double err_max; /* |scaled - truth| / truth, for comparison */
	/* the extreme slice rates, over the whole run's (value / running) */
	double rmin_rel, rmax_rel;
};

static void
mux_read(struct pctr_set *set, struct pctr_scale *sc)
{
	struct pctr_sample s;

	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(s.nr, NR_MUX);
	for (int e = 0; e < NR_MUX; e++)
		ASSERT_OK(pctr_scale_add(&sc[e], &s.count[e]));
}

/* read every MUX_READ_NS until hw_loop exits, then once more */
static void
mux_follow(struct pctr_set *set, pid_t pid, struct pctr_scale *sc)
{
	struct timespec ts = { 0, MUX_READ_NS };
	int status;
	pid_t w;

	do {
		nanosleep(&ts, NULL);
		mux_read(set, sc);
		w = waitpid(pid, &status, WNOHANG);
		ASSERT(w == 0 || w == pid);
	} while (w == 0);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	mux_read(set, sc);
}

static void
mux_judge(const struct pctr_scale *sc, uint64_t truth, struct mux_tally *t)
{
	int held = 0;

	for (int e = 0; e < NR_MUX; e++) {
		const struct pctr_count *c = &sc[e].last;
		double lo, hi, w, rate;

		/* the case is about multiplexed counts: each must be one */
		ASSERT_GT(c->running, 0);
		ASSERT_LT(c->running, c->enabled);
		ASSERT_OK(pctr_scale_bounds(&sc[e], &lo, &hi));
		w = (hi - lo) / (double)truth;
		rate = (double)c->value / (double)c->running;
		t->rmin_rel = fmin(t->rmin_rel, sc[e].rate_min / rate);
		t->rmax_rel = fmax(t->rmax_rel, sc[e].rate_max / rate);
		t->err_max = fmax(t->err_max, fabs(pctr_count_scaled(c) -
						   (double)truth) /
						      (double)truth);
		held += lo <= (double)truth && (double)truth <= hi;
		t->width_sum += w;
		if (w > t->width_max)
			t->width_max = w;
		if (lo > (double)truth || (double)truth > hi)
			printf("# missed: event %d, [%.0f, %.0f], %llu slices "
			       "ran, scaled %+.4f%%\n", e, lo, hi,
			       (unsigned long long)sc[e].nr_ran,
			       100.0 * (pctr_count_scaled(c) - (double)truth) /
				       (double)truth);
	}
	t->held += held;
	t->total += NR_MUX;
}

static void
mux_trial(uint64_t n, struct mux_tally *t)
{
	char arg[32];
	char *argv[] = { "hw_loop", arg, NULL };
	struct pctr_scale sc[NR_MUX];
	struct pctr_set *set;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%llu", (unsigned long long)n);
	memset(sc, 0, sizeof(sc));
	ASSERT_OK(pctr_set_new(&set, 0));
	for (int i = 0; i < NR_MUX; i++)
		ASSERT_OK(pctr_set_add(set, "instructions:u"));
	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	mux_follow(set, pid, sc);
	mux_judge(sc, hw_loop_exec_count(n), t);
	pctr_set_free(set);
}

/*
 * At least 95% of the intervals must hold the exact count: the method is
 * a bound under an assumption (the rate while off the counters lies in
 * the range of the rates seen on them), which the issue asks to hold in
 * 95% of trials.
 */
TEST(mux_interval_holds_exact_count)
{
	struct mux_tally t = { .rmin_rel = INFINITY };

	for (int i = 0; i < MUX_TRIALS; i++)
		mux_trial(MUX_N, &t);
	printf("# %d of %d intervals held the exact count %llu; width "
	       "(high - low) / exact: mean %.4f%%, largest %.4f%%; the "
	       "scaled counts were off by %.4f%% at most\n",
	       t.held, t.total, (unsigned long long)hw_loop_exec_count(MUX_N),
	       100.0 * t.width_sum / t.total, 100.0 * t.width_max,
	       100.0 * t.err_max);
	printf("# slice rates from %.4f to %.4f times the runs' mean rates\n",
	       t.rmin_rel, t.rmax_rel);
	ASSERT_GE(t.held * 100, t.total * 95);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(mux_11_on_6_counters)
				       TEST_CASE(no_multiplex_refuses)
					       TEST_CASE(seven_events_all_count)
					       TEST_CASE(seven_events_all_count_process_wide)
						       TEST_CASE(six_fit_exactly)
							       TEST_CASE_TIMEOUT(mux_interval_holds_exact_count, 300)));
}
