/* SPDX-License-Identifier: MIT */
/*
 * test_ovf_presets - every overflow path at the seeds' own presets, 100
 * runs each: a preset 1000 events short of the wrap (the libcpc manual's
 * Example 2) and the smallest a user can give (1 event), on task-clock,
 * whose hrtimer the kernel holds to 10 us at the least.
 *
 *   v1_rebind   the manual's SIGEMT handler: sample, preset, rebind with
 *               CPC_BIND_EMT_OVF (cpc_bind_event(3CPC), Example 2);
 *   v2_restart  a SIGEMT handler that restarts with cpc_set_restart();
 *   restart     a one-shot libpctr overflow whose callback restarts with
 *               pctr_set_overflow_restart();
 *   callback    a libpctr overflow with a callback, every period.
 *
 * Each run is a child process doing 2 ms of user-mode work: it must end
 * by itself with status 0 (an overflow signal that queues without limit
 * overflows the process's queue, and the kernel's fallback, SIGIO, ends
 * it), have been notified, and each notification must come after a whole
 * period counted, and none before the set is enabled.  A failure names
 * the run and what it saw.
 */
#include <libcpc.h>
#include <pctr.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

#define RUNS 100
#define WORK_NS 2000000 /* of the thread's CPU time, per run */
#define MIN_TIMER_NS 10000 /* the kernel's shortest task-clock hrtimer */
#define RUN_LIMIT_S 50 /* a run's wall time at the most: within the case's */

static volatile sig_atomic_t nr_sig, nr_bad, nr_short;
static volatile sig_atomic_t enabling, nr_early; /* before the enable */
static uint64_t preset; /* of the run: 2^64 - period */

static int64_t
cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static volatile uint64_t sink;

/* WORK_NS of user-mode arithmetic; the CPU clock read every ~10 us */
static int64_t
work(void)
{
	int64_t t0 = cpu_ns(), t;
	uint64_t x = sink;

	do {
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		t = cpu_ns();
	} while (t - t0 < WORK_NS);
	sink = x;
	return t - t0;
}

/* a count read at an overflow: the preset wrapped, a period or more on */
static void
check_wrapped(uint64_t v)
{
	if (v > (1ull << 40)) /* not past the wrap */
		nr_short++;
}

/* ---- the paths -------------------------------------------------------- */

static void
v1_handler(int sig, siginfo_t *si, void *uc)
{
	cpc_event_t s;

	(void)uc;
	if (sig != SIGEMT || si->si_code != EMT_CPCOVF ||
	    cpc_take_sample(&s) != 0) {
		nr_bad++;
		return;
	}
	nr_sig++;
	check_wrapped(s.ce_pic[0]);
	s.ce_pic[0] = preset;
	s.ce_pic[1] = 0;
	if (cpc_bind_event(&s, CPC_BIND_EMT_OVF) != 0)
		nr_bad++;
}

static void
catch_emt(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	if (sigaction(SIGEMT, &sa, NULL) != 0)
		exit(10);
}

static int
run_v1(void)
{
	cpc_event_t ev;

	catch_emt(v1_handler);
	if (cpc_strtoevent(cpc_getcpuver(), "pic0=task-clock", &ev) != 0)
		return 11;
	ev.ce_pic[0] = preset;
	ev.ce_pic[1] = 0;
	if (cpc_bind_event(&ev, CPC_BIND_EMT_OVF) != 0)
		return 12;
	work();
	return cpc_bind_event(NULL, 0) == 0 ? 0 : 13;
}

static cpc_t *v2_cpc;
static cpc_set_t *v2_set;
static cpc_buf_t *v2_buf;

static void
v2_handler(int sig, siginfo_t *si, void *uc)
{
	uint64_t v;

	(void)uc;
	if (sig != SIGEMT || si->si_code != EMT_CPCOVF ||
	    cpc_set_sample(v2_cpc, v2_set, v2_buf) != 0 ||
	    cpc_buf_get(v2_cpc, v2_buf, 0, &v) != 0) {
		nr_bad++;
		return;
	}
	nr_sig++;
	check_wrapped(v);
	if (cpc_set_restart(v2_cpc, v2_set) != 0)
		nr_bad++;
}

static int
run_v2(void)
{
	catch_emt(v2_handler);
	v2_cpc = cpc_open(CPC_VER_CURRENT);
	v2_set = v2_cpc ? cpc_set_create(v2_cpc) : NULL;
	if (!v2_set || cpc_set_add_request(v2_cpc, v2_set, "task-clock",
					   preset,
					   CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT,
					   0, NULL) != 0)
		return 11;
	v2_buf = cpc_buf_create(v2_cpc, v2_set);
	if (!v2_buf || cpc_bind_curlwp(v2_cpc, v2_set, 0) != 0)
		return 12;
	work();
	return cpc_unbind(v2_cpc, v2_set) == 0 ? 0 : 13;
}

static struct pctr_set *native;

static volatile sig_atomic_t first_err, first_err_at; /* a call's -errno */

static void
note_err(int r)
{
	if (r < 0 && !first_err) {
		first_err = r;
		first_err_at = nr_sig;
	}
}

/* the one-shot's callback: the count since the restart, then restart */
static void
on_oneshot(const struct pctr_overflow_info *info, void *arg)
{
	uint64_t v = 0;
	int r;

	(void)arg;
	nr_sig++;
	nr_early += !enabling;
	r = pctr_set_read_values(native, &v);
	note_err(r);
	if (r < 0 || v < 0 - preset)
		nr_short++;
	r = pctr_set_overflow_restart(native, NULL, 0);
	note_err(r);
	if (info->period != 0 - preset || r != 0)
		nr_bad++;
}

/* every period's callback */
static void
on_period(const struct pctr_overflow_info *info, void *arg)
{
	(void)arg;
	nr_sig++;
	nr_early += !enabling;
	if (info->period != 0 - preset)
		nr_bad++;
}

static int
run_native(pctr_overflow_fn fn, unsigned int flags)
{
	struct pctr_overflow o = { .size = sizeof(o), .period = 0 - preset,
				   .flags = flags, .fn = fn };
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	uint64_t count;

	if (pctr_set_new(&native, 0) < 0 ||
	    pctr_set_add(native, "task-clock:u") != 0 ||
	    pctr_set_overflow(native, 0, &o) < 0 ||
	    pctr_set_open(native, &self) < 0)
		return 11;
	enabling = 1;
	if (pctr_set_enable(native) < 0)
		return 12;
	work();
	if (pctr_set_disable(native) < 0 ||
	    pctr_set_read_values(native, &count) < 0)
		return 12;
	/* every notification a whole period; the count has the last ones */
	if (!(flags & PCTR_OVF_ONESHOT) &&
	    count < (uint64_t)nr_sig * (0 - preset))
		nr_short++;
	pctr_set_free(native);
	return 0;
}

/* ---- the runs --------------------------------------------------------- */

enum path { V1_REBIND, V2_RESTART, RESTART, CALLBACK };

/* a run's child: 0, or the step that failed (10-13) or what it saw (20-) */
static int
child(enum path p)
{
	int64_t t0 = cpu_ns(), spent;
	int r;

	/*
	 * A run not done when the case's timeout (60 s) kills the case
	 * outlived it as an orphan that spun in the overflow handler for
	 * good, holding the test's output open (under AddressSanitizer on a
	 * loaded machine, the callback path at periods 1000 and 1): the run
	 * ends by SIGALRM first, and the case says so.
	 */
	alarm(RUN_LIMIT_S);

	switch (p) {
	case V1_REBIND:
		r = run_v1();
		break;
	case V2_RESTART:
		r = run_v2();
		break;
	case RESTART:
		r = run_native(on_oneshot, PCTR_OVF_ONESHOT);
		break;
	default:
		r = run_native(on_period, 0);
		break;
	}
	spent = cpu_ns() - t0;
	if (r == 0 && nr_early)
		r = 23;
	if (r == 0 && (nr_bad || nr_short))
		r = nr_bad ? 20 : 21;
	/* notified, and no more often than the kernel's timer can fire */
	if (r == 0 && (nr_sig < 1 || nr_sig > spent / MIN_TIMER_NS + 2))
		r = 22;
	if (r != 0)
		fprintf(stderr, "# %d notifications (%d early), %d bad, %d short, "
				"%.2f ms of CPU; first error %d (%s) at "
				"notification %d\n",
			(int)nr_sig, (int)nr_early, (int)nr_bad, (int)nr_short,
			spent / 1e6,
			(int)first_err, first_err ? strerror(-first_err) : "",
			(int)first_err_at);
	return r;
}

static const char *
why(int code)
{
	switch (code) {
	case 10: return "sigaction failed";
	case 11: return "setting up the overflow failed";
	case 12: return "binding or enabling failed";
	case 13: return "unbinding failed";
	case 20: return "a notification was wrong or its restart failed";
	case 21: return "a notification came before a whole period";
	case 22: return "no notification, or more than the timer can make";
	case 23: return "notified before pctr_set_enable()";
	default: return "unknown status";
	}
}

static void
runs(enum path p, uint64_t period)
{
	for (int i = 1; i <= RUNS; i++) {
		int st;
		pid_t pid;

		fflush(NULL);
		pid = fork();
		ASSERT(pid >= 0);
		if (pid == 0) {
			preset = 0 - period;
			_exit(child(p));
		}
		ASSERT_EQ(waitpid(pid, &st, 0), pid);
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
			TEST_FAIL("run %d of %d: 2 ms of work not done in %d s "
				  "(notifications faster than the thread "
				  "takes them)",
				  i, RUNS, RUN_LIMIT_S);
		if (WIFSIGNALED(st))
			TEST_FAIL("run %d of %d: killed by signal %d (%s)", i, RUNS,
			     WTERMSIG(st), strsignal(WTERMSIG(st)));
		if (WEXITSTATUS(st) != 0)
			TEST_FAIL("run %d of %d: status %d: %s", i, RUNS,
			     WEXITSTATUS(st), why(WEXITSTATUS(st)));
	}
}

TEST(v1_rebind_preset_1000) { runs(V1_REBIND, 1000); }
TEST(v1_rebind_period_1) { runs(V1_REBIND, 1); }
TEST(v2_restart_preset_1000) { runs(V2_RESTART, 1000); }
TEST(v2_restart_period_1) { runs(V2_RESTART, 1); }
TEST(overflow_restart_period_1000) { runs(RESTART, 1000); }
TEST(overflow_restart_period_1) { runs(RESTART, 1); }
TEST(callback_period_1000) { runs(CALLBACK, 1000); }
TEST(callback_period_1) { runs(CALLBACK, 1); }

int
main(void)
{
	return test_main(TESTS(TEST_CASE_TIMEOUT(v1_rebind_preset_1000, 60)
			       TEST_CASE_TIMEOUT(v1_rebind_period_1, 60)
			       TEST_CASE_TIMEOUT(v2_restart_preset_1000, 60)
			       TEST_CASE_TIMEOUT(v2_restart_period_1, 60)
			       TEST_CASE_TIMEOUT(overflow_restart_period_1000,
						 60)
			       TEST_CASE_TIMEOUT(overflow_restart_period_1, 60)
			       TEST_CASE_TIMEOUT(callback_period_1000, 60)
			       TEST_CASE_TIMEOUT(callback_period_1, 60)));
}
