/* SPDX-License-Identifier: MIT */
/*
 * test_hw_ovf_paths.c - every way a program is told of an overflow, on
 * the guest's instructions counter, at the seeds' preset (1000 events:
 * the libcpc manual's Example 2) and at the smallest period a program can
 * give (1: libcpc's preset UINT64_MAX), 100 runs of each:
 *
 *   v1       libcpc's CPCv1: CPC_BIND_EMT_OVF, the handler samples and
 *            binds again with the preset (Example 2)
 *   v2       CPCv2: a CPC_OVF_NOTIFY_EMT request, the handler samples and
 *            calls cpc_set_restart()
 *   restart  pctr: a PCTR_OVF_ONESHOT event, the callback reads and calls
 *            pctr_set_overflow_restart()
 *   native   pctr: an event that notifies every period, with a callback
 *
 * None may end the program (the overflow signal's queue filling up makes
 * the kernel send SIGIO, which kills).  The guest's overflow interrupt is
 * precise (hw_ovf.h), so a one-shot counter stops on the very instruction
 * that overflows: each sample the handler takes reads exactly the preset
 * plus the period (0 past the wrap) and, at 1000, the overflow is inside
 * the loop every time (the handler's own instructions after its restart
 * are far fewer than a period) but maybe the last, which can fall just
 * after it.  At 1, the first instruction after each
 * restart overflows (one in the handler itself): the handler stops
 * restarting after HW_OVF_NOTES notifications and the loop finishes.
 *
 * The native path notifies every period: at 1000, in the guest's virtual
 * time, a million overflows a second, past the kernel's default limit
 * (kernel.perf_event_max_sample_rate, 100000), which throttles the
 * counter and loses overflows; so it is exact with the limit lifted
 * (floor(count / P) notifications: the library's handler counts too, so
 * some overflows fall inside it), and at the
 * defaults, as a program would run, the kernel stops the counter for
 * the rest of the tick past the limit: never more notifications than
 * overflows, every overflow notified or counted lost, and never dies.
 */
#include <libcpc.h>
#include <signal.h>

#include "hw_ovf.h"

#define RUNS 100
#define SEED_PERIOD 1000ull
#define SMALLEST 1ull
#define PERIODS 100ull	     /* periods of the loop, at the seed's preset */
#define HW_OVF_NOTES 100     /* notifications a run takes at period 1 */
#define SMALL_ITERATIONS 5000 /* the loop at period 1 */

/* the events between two overflows at @period (hw.h, HW_MIN_PERIOD) */
static uint64_t
run_length(uint64_t period)
{
	return period < HW_MIN_PERIOD ? HW_MIN_PERIOD : period;
}

static volatile sig_atomic_t nr_sig, in_loop, bad, why, stop_at;
static volatile sig_atomic_t first_out; /* the first notification outside */
static volatile uint64_t bad_value;
static uint64_t preset;

/*
 * The checks a notification can fail, in the failure's "check N": 1 not
 * the overflow signal (libcpc) or not the period (pctr), 2 the sample or
 * read failed, 3 the count read is not the preset plus one period, 4 the
 * restart failed, 5 a notification before pctr_set_enable().
 */
static void
fail_note(int w, uint64_t v)
{
	if (!bad) {
		why = w;
		bad_value = v;
	}
	bad++;
}

/* what a run saw, and the checks every path shares */
static void
check_run(const char *path, uint64_t period, int run, uint64_t loop_insns)
{
	if (bad)
		TEST_FAIL("%s, period %llu, run %d: %d bad notification(s), "
			  "the first: check %d, value %#llx",
			  path, (unsigned long long)period, run, (int)bad,
			  (int)why, (unsigned long long)bad_value);
	if (period == SEED_PERIOD) {
		/* the loop alone fills this many periods, each one notified */
		if ((uint64_t)nr_sig < loop_insns / period)
			TEST_FAIL("%s, run %d: %d notifications, the loop's "
				  "%llu instructions alone are %llu periods",
				  path, run, (int)nr_sig,
				  (unsigned long long)loop_insns,
				  (unsigned long long)(loop_insns / period));
		/*
		 * Inside the loop, but for the last: the handlers' own
		 * instructions count too, so it may come after the loop, in
		 * the few that stop the counter
		 */
		if (first_out && first_out != nr_sig)
			TEST_FAIL("%s, run %d: overflow %d of %d outside the "
				  "loop (%d inside)", path, run, (int)first_out,
				  (int)nr_sig, (int)in_loop);
	} else if (nr_sig != stop_at) {
		TEST_FAIL("%s, period 1, run %d: %d notifications, not %d", path,
			  run, (int)nr_sig, (int)stop_at);
	}
}

static void
reset_run(uint64_t period)
{
	nr_sig = in_loop = bad = why = first_out = 0;
	bad_value = 0;
	stop_at = period == SEED_PERIOD ? 1 << 30 : HW_OVF_NOTES;
}

static uint64_t
iterations(uint64_t period)
{
	return period == SEED_PERIOD ? hw_ovf_iterations(period, PERIODS)
				     : SMALL_ITERATIONS;
}

static void
seen_pc(uintptr_t pc)
{
	nr_sig++;
	if (hw_in_loop(pc))
		in_loop++;
	else if (!first_out)
		first_out = nr_sig;
}

/* ---- CPCv1: Example 2 ------------------------------------------------ */

static void
v1_handler(int sig, siginfo_t *si, void *uc)
{
	cpc_event_t sample;

	(void)uc;
	if (sig != SIGEMT || si->si_code != EMT_CPCOVF) {
		fail_note(1, (uint64_t)si->si_code);
		return;
	}
	seen_pc((uintptr_t)si->si_addr);
	if (cpc_take_sample(&sample) == -1)
		fail_note(2, 0);
	else if (sample.ce_pic[0] != run_length(-preset) + preset)
		fail_note(3, sample.ce_pic[0]); /* the preset plus one run */
	if (nr_sig >= stop_at)
		return; /* stays stopped: the loop goes on uncounted */
	sample.ce_pic[0] = preset;
	sample.ce_pic[1] = 0;
	if (cpc_bind_event(&sample, CPC_BIND_EMT_OVF) == -1)
		fail_note(4, (uint64_t)errno);
}

static void
emt_action(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction act;

	memset(&act, 0, sizeof(act));
	act.sa_sigaction = fn;
	act.sa_flags = SA_RESTART | SA_SIGINFO;
	ASSERT_EQ(sigaction(SIGEMT, &act, NULL), 0);
}

static void
v1_runs(uint64_t period)
{
	uint64_t n = iterations(period);
	cpc_event_t event;

	hw_pmu();
	emt_action(v1_handler);
	preset = -period;
	for (int run = 0; run < RUNS; run++) {
		reset_run(period);
		ASSERT_EQ(cpc_strtoevent(cpc_getcpuver(),
					 "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc",
					 &event), 0);
		event.ce_pic[0] = preset;
		event.ce_pic[1] = 0;
		ASSERT_EQ(cpc_bind_event(&event, CPC_BIND_EMT_OVF), 0);
		hw_loop(n);
		ASSERT_EQ(cpc_bind_event(NULL, 0), 0);
		check_run("CPCv1", period, run, 2 * n);
	}
	printf("# CPCv1 every %llu: %d runs, the last %d notifications\n",
	       (unsigned long long)period, RUNS, (int)nr_sig);
}

TEST(v1_rebind_seed_preset)
{
	v1_runs(SEED_PERIOD);
}

TEST(v1_rebind_smallest)
{
	v1_runs(SMALLEST);
}

/* ---- CPCv2: cpc_set_restart() ------------------------------------------ */

static cpc_t *v2_cpc;
static cpc_set_t *v2_set;
static cpc_buf_t *v2_buf;

static void
v2_handler(int sig, siginfo_t *si, void *uc)
{
	uint64_t v;

	(void)uc;
	if (sig != SIGEMT || si->si_code != EMT_CPCOVF) {
		fail_note(1, (uint64_t)si->si_code);
		return;
	}
	seen_pc((uintptr_t)si->si_addr);
	if (cpc_set_sample(v2_cpc, v2_set, v2_buf) != 0 ||
	    cpc_buf_get(v2_cpc, v2_buf, 0, &v) != 0)
		fail_note(2, 0);
	else if (v != run_length(-preset) + preset)
		fail_note(3, v); /* the preset plus one run */
	if (nr_sig >= stop_at)
		return;
	if (cpc_set_restart(v2_cpc, v2_set) != 0)
		fail_note(4, (uint64_t)errno);
}

static void
v2_runs(uint64_t period)
{
	uint64_t n = iterations(period);

	preset = -period; /* the handler's check */
	hw_pmu();
	emt_action(v2_handler);
	v2_cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT(v2_cpc != NULL);
	v2_set = cpc_set_create(v2_cpc);
	ASSERT(v2_set != NULL);
	ASSERT_EQ(cpc_set_add_request(v2_cpc, v2_set, HW_EV_INST, -period,
				      CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0,
				      NULL), 0);
	v2_buf = cpc_buf_create(v2_cpc, v2_set);
	ASSERT(v2_buf != NULL);
	for (int run = 0; run < RUNS; run++) {
		reset_run(period);
		ASSERT_EQ(cpc_bind_curlwp(v2_cpc, v2_set, 0), 0);
		hw_loop(n);
		ASSERT_EQ(cpc_unbind(v2_cpc, v2_set), 0);
		check_run("CPCv2", period, run, 2 * n);
	}
	printf("# CPCv2 every %llu: %d runs, the last %d notifications\n",
	       (unsigned long long)period, RUNS, (int)nr_sig);
	cpc_close(v2_cpc);
}

TEST(v2_restart_seed_preset)
{
	v2_runs(SEED_PERIOD);
}

TEST(v2_restart_smallest)
{
	v2_runs(SMALLEST);
}

/* ---- pctr: one shot, pctr_set_overflow_restart() ------------------------ */

static struct pctr_set *ovf_set;
static uint64_t ovf_period;
static volatile sig_atomic_t armed; /* pctr_set_enable() was called */

/* the set in ovf_set before it is opened: a callback may use it at once */
static void
overflow_set(uint64_t period, unsigned int flags, pctr_overflow_fn fn)
{
	struct pctr_overflow o = { .size = sizeof(o), .period = period,
				   .flags = flags, .fn = fn };
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };

	armed = 0;
	ASSERT_OK(pctr_set_new(&ovf_set, 0));
	ASSERT_OK(pctr_set_add(ovf_set, "instructions:u"));
	ASSERT_OK(pctr_set_overflow(ovf_set, 0, &o));
	ASSERT_OK(pctr_set_open(ovf_set, &t));
}

/* enabled: nothing counts before, so nothing may be notified before */
static void
enable(void)
{
	armed = 1;
	ASSERT_OK(pctr_set_enable(ovf_set));
}

static void
restart_cb(const struct pctr_overflow_info *info, void *arg)
{
	uint64_t v;

	(void)arg;
	seen_pc(info->ip);
	if (!armed)
		fail_note(5, nr_sig); /* counted before pctr_set_enable() */
	if (info->period != ovf_period)
		fail_note(1, info->period);
	/* stopped on the overflowing instruction: one run, exactly */
	if (pctr_set_read_values(ovf_set, &v) < 0)
		fail_note(2, 0);
	else if (v != run_length(ovf_period))
		fail_note(3, v);
	if (nr_sig >= stop_at)
		return;
	if (pctr_set_overflow_restart(ovf_set, NULL, 0) < 0)
		fail_note(4, 0);
}

static void
restart_runs(uint64_t period)
{
	uint64_t n = iterations(period);

	hw_pmu();
	ovf_period = period;
	for (int run = 0; run < RUNS; run++) {
		reset_run(period);
		overflow_set(period, PCTR_OVF_ONESHOT, restart_cb);
		enable();
		hw_loop(n);
		ASSERT_OK(pctr_set_disable(ovf_set));
		pctr_set_free(ovf_set);
		check_run("pctr_set_overflow_restart", period, run, 2 * n);
	}
	printf("# restart every %llu: %d runs, the last %d notifications\n",
	       (unsigned long long)period, RUNS, (int)nr_sig);
}

TEST(restart_seed_preset)
{
	restart_runs(SEED_PERIOD);
}

TEST(restart_smallest)
{
	restart_runs(SMALLEST);
}

/* ---- pctr: every period, a callback ------------------------------------ */

static void
native_cb(const struct pctr_overflow_info *info, void *arg)
{
	(void)arg;
	seen_pc(info->ip);
	if (!armed)
		fail_note(5, nr_sig); /* counted before pctr_set_enable() */
	if (info->period != ovf_period)
		fail_note(1, info->period);
}

/*
 * The kernel's interrupt limit lifted (@exact), or left at its defaults:
 * the limit can be raised only while kernel.perf_cpu_time_max_percent is
 * neither 0 nor 100, then 0 stops the kernel from lowering it again.
 */
static void
sample_rate(bool exact)
{
	hw_sysctl("kernel.perf_cpu_time_max_percent", "25");
	hw_sysctl("kernel.perf_event_max_sample_rate",
		  exact ? "100000000" : "100000");
	if (exact)
		hw_sysctl("kernel.perf_cpu_time_max_percent", "0");
}

static void
native_runs(uint64_t period, bool exact)
{
	uint64_t n = period == SEED_PERIOD ? iterations(period)
					   : SMALL_ITERATIONS;

	hw_pmu();
	sample_rate(exact);
	ovf_period = period;
	for (int run = 0; run < RUNS; run++) {
		struct pctr_overflow_stats st = { .size = sizeof(st) };
		struct pctr_sample s;
		uint64_t ovfs;

		reset_run(period);
		overflow_set(period, 0, native_cb);
		enable();
		hw_loop(n);
		ASSERT_OK(pctr_set_disable(ovf_set));
		ASSERT_OK(pctr_set_read(ovf_set, &s));
		ASSERT_OK(pctr_set_overflow_stats(ovf_set, 0, &st));
		ovfs = s.count[0].value / run_length(period);
		if (bad)
			TEST_FAIL("native, period %llu, run %d: %d bad "
				  "notification(s), the first: check %d, "
				  "value %#llx",
				  (unsigned long long)period, run, (int)bad,
				  (int)why, (unsigned long long)bad_value);
		/* never more notifications than overflows */
		if ((uint64_t)nr_sig > ovfs)
			TEST_FAIL("native, period %llu, run %d: %d "
				  "notifications of %llu overflows",
				  (unsigned long long)period, run, (int)nr_sig,
				  (unsigned long long)ovfs);
		ASSERT_UEQ(st.notified, (uint64_t)nr_sig);
		/*
		 * Every overflow notified or counted lost (pctr_overflow(3)).
		 * The kernel's count of what it dropped is of records, and a
		 * ring that is full when the interrupt limit stops the counter
		 * drops its THROTTLE note too, and the UNTHROTTLE at the next
		 * tick (kernel/events/ring_buffer.c: every record that finds
		 * no room adds to the count): up to 2 more than overflows.
		 * Seen: 102 notified + 299 lost of 400 overflows.
		 */
		if (st.notified + st.lost < ovfs ||
		    st.notified + st.lost > ovfs + 2)
			TEST_FAIL("native, period %llu, run %d: %llu notified "
				  "+ %llu lost of %llu overflows: not each "
				  "overflow once, give or take the 2 notes",
				  (unsigned long long)period, run,
				  (unsigned long long)st.notified,
				  (unsigned long long)st.lost,
				  (unsigned long long)ovfs);
		if (exact && (uint64_t)nr_sig != ovfs)
			TEST_FAIL("native, period %llu, run %d, limit lifted: "
				  "%d notifications of %llu overflows (count "
				  "%llu)",
				  (unsigned long long)period, run, (int)nr_sig,
				  (unsigned long long)ovfs,
				  (unsigned long long)s.count[0].value);
		if (run == RUNS - 1)
			printf("# native every %llu%s: %d runs, the last %d "
			       "notifications of %llu overflows, %llu lost\n",
			       (unsigned long long)period,
			       exact ? " (limit lifted)" : "", RUNS,
			       (int)nr_sig,
			       (unsigned long long)ovfs,
			       (unsigned long long)st.lost);
		pctr_set_free(ovf_set);
	}
}

TEST(native_seed_preset_exact)
{
	native_runs(SEED_PERIOD, true);
}

TEST(native_seed_preset_default_limit)
{
	native_runs(SEED_PERIOD, false);
}

TEST(native_smallest_default_limit)
{
	native_runs(SMALLEST, false);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(v1_rebind_seed_preset)
			       TEST_CASE(v1_rebind_smallest)
			       TEST_CASE(v2_restart_seed_preset)
			       TEST_CASE(v2_restart_smallest)
			       TEST_CASE(restart_seed_preset)
			       TEST_CASE(restart_smallest)
			       TEST_CASE(native_seed_preset_exact)
			       TEST_CASE(native_seed_preset_default_limit)
			       TEST_CASE(native_smallest_default_limit)));
}
