/* SPDX-License-Identifier: MIT */
/*
 * test_hw_libcpc.c - libcpc on the emulated PMU: exact instruction counts
 * through CPCv1 (cpc_bind_event/cpc_take_sample) and CPCv2
 * (cpc_set_sample), and the overflow signals of the manual's Example 2 on
 * cycles and on instructions.
 */
#include <libcpc.h>

#include "hw.h"

/* Example 1's measurement around the loop; not inlined: same code each time */
static __attribute__((noinline)) uint64_t
v1_span(uint64_t n)
{
	cpc_event_t before, after;
	int rb, ra;

	rb = cpc_take_sample(&before);
	hw_loop(n);
	ra = cpc_take_sample(&after);
	ASSERT_EQ(rb, 0);
	ASSERT_EQ(ra, 0);
	return after.ce_pic[0] - before.ce_pic[0];
}

/* every point: 2N + c with c the same for all N */
static long long
check_exact(uint64_t (*span)(void *, uint64_t), void *arg)
{
	long long c = 0;
	bool first = true;
	int policy = hw_fifo_begin();

	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		for (int r = 0; r < hw_points[i].repeats; r++) {
			uint64_t n = hw_points[i].n;
			long long off = (long long)(span(arg, n) - 2 * n);

			printf("# N=%llu: 2N%+lld\n", (unsigned long long)n, off);
			if (first)
				c = off;
			ASSERT_EQ(off, c);
			ASSERT_GT(off, 0);
			ASSERT_LT(off, 20000);
			first = false;
		}
	}
	hw_fifo_end(policy);
	return c;
}

static uint64_t
v1_span_fn(void *arg, uint64_t n)
{
	return v1_span(n);
}

TEST(v1_exact_instructions)
{
	cpc_event_t ev;

	hw_pmu();
#ifdef __x86_64__
	ASSERT(cpc_getcpuver() == CPC_LINUX_X86_64);
#else
	ASSERT(cpc_getcpuver() == CPC_LINUX_AARCH64);
#endif
	ASSERT_EQ(cpc_access(), 0);
	ASSERT_EQ(cpc_strtoevent(cpc_getcpuver(),
				 "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc", &ev), 0);
	ASSERT_EQ(cpc_bind_event(&ev, 0), 0);
	printf("# CPCv1: 2N%+lld\n", check_exact(v1_span_fn, NULL));
	ASSERT_EQ(cpc_rele(), 0);
}

struct v2 {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *a, *b;
};

static __attribute__((noinline)) uint64_t
v2_span(void *arg, uint64_t n)
{
	struct v2 *v = arg;
	uint64_t x, y;
	int ra, rb;

	ra = cpc_set_sample(v->cpc, v->set, v->a);
	hw_loop(n);
	rb = cpc_set_sample(v->cpc, v->set, v->b);
	ASSERT_EQ(ra, 0);
	ASSERT_EQ(rb, 0);
	ASSERT_EQ(cpc_buf_get(v->cpc, v->a, 0, &x), 0);
	ASSERT_EQ(cpc_buf_get(v->cpc, v->b, 0, &y), 0);
	return y - x;
}

TEST(v2_exact_instructions)
{
	struct v2 v;

	hw_pmu();
	v.cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT(v.cpc != NULL);
	v.set = cpc_set_create(v.cpc);
	ASSERT_EQ(cpc_set_add_request(v.cpc, v.set, HW_EV_INST, 0,
				      CPC_COUNT_USER, 0, NULL), 0);
	v.a = cpc_buf_create(v.cpc, v.set);
	v.b = cpc_buf_create(v.cpc, v.set);
	ASSERT_EQ(cpc_bind_curlwp(v.cpc, v.set, 0), 0);
	printf("# CPCv2: 2N%+lld\n", check_exact(v2_span, &v));
	ASSERT_EQ(cpc_unbind(v.cpc, v.set), 0);
	cpc_close(v.cpc);
}

/* exactly @n instructions the compiler cannot see into or reorder */
#define NOPS(n) __asm__ volatile(".rept " #n "\n\tnop\n\t.endr" ::: "memory")

#define PATH_REPEATS 500

/*
 * Example 1's measurement with nothing, or 1000 nops, between the samples.
 * libcpc has no overhead calibration: the difference of two samples is
 * the raw counts', so the two samples' own share, C, is in every one.
 * Exact means: every empty interval is the same C, and every interval of
 * 1000 nops C + 1000.
 */
static __attribute__((noinline)) uint64_t
v1_empty(void *arg)
{
	cpc_event_t before, after;

	(void)arg;
	cpc_take_sample(&before);
	cpc_take_sample(&after);
	return after.ce_pic[0] - before.ce_pic[0];
}

static __attribute__((noinline)) uint64_t
v1_nops(void *arg)
{
	cpc_event_t before, after;

	(void)arg;
	cpc_take_sample(&before);
	NOPS(1000);
	cpc_take_sample(&after);
	return after.ce_pic[0] - before.ce_pic[0];
}

static __attribute__((noinline)) uint64_t
v2_empty(void *arg)
{
	struct v2 *v = arg;
	uint64_t x, y;

	cpc_set_sample(v->cpc, v->set, v->a);
	cpc_set_sample(v->cpc, v->set, v->b);
	cpc_buf_get(v->cpc, v->a, 0, &x);
	cpc_buf_get(v->cpc, v->b, 0, &y);
	return y - x;
}

static __attribute__((noinline)) uint64_t
v2_nops(void *arg)
{
	struct v2 *v = arg;
	uint64_t x, y;

	cpc_set_sample(v->cpc, v->set, v->a);
	NOPS(1000);
	cpc_set_sample(v->cpc, v->set, v->b);
	cpc_buf_get(v->cpc, v->a, 0, &x);
	cpc_buf_get(v->cpc, v->b, 0, &y);
	return y - x;
}

/* every interval of @span the same, C; returns C */
static uint64_t
same_every_time(uint64_t (*span)(void *), void *arg, const char *what)
{
	static uint64_t c[PATH_REPEATS];
	int policy = hw_fifo_begin();

	for (int i = 0; i < PATH_REPEATS; i++)
		c[i] = span(arg);
	hw_fifo_end(policy);
	for (int i = 0; i < PATH_REPEATS; i++)
		if (c[i] != c[0])
			TEST_FAIL("%s: interval %d of %d counted %llu, the first "
				  "%llu", what, i, PATH_REPEATS,
				  (unsigned long long)c[i],
				  (unsigned long long)c[0]);
	return c[0];
}

static void
check_nops(uint64_t (*empty)(void *), uint64_t (*nops)(void *), void *arg,
	   const char *what)
{
	uint64_t e = same_every_time(empty, arg, what);
	uint64_t n = same_every_time(nops, arg, what);

	printf("# %s: empty %llu, 1000 nops %llu: %+lld\n", what,
	       (unsigned long long)e, (unsigned long long)n,
	       (long long)(n - e));
	ASSERT_GT(e, 0);
	ASSERT_UEQ(n - e, 1000);
}

static void
v1_paths(const char *user_access)
{
	cpc_event_t ev;

	hw_user_read(user_access);
	hw_pmu();
	ASSERT_EQ(cpc_access(), 0);
	ASSERT_EQ(cpc_strtoevent(cpc_getcpuver(),
				 "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc", &ev), 0);
	ASSERT_EQ(cpc_bind_event(&ev, 0), 0);
	check_nops(v1_empty, v1_nops, NULL, "CPCv1");
	ASSERT_EQ(cpc_rele(), 0);
}

static void
v2_paths(const char *user_access)
{
	struct v2 v;

	hw_user_read(user_access);
	hw_pmu();
	v.cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT(v.cpc != NULL);
	v.set = cpc_set_create(v.cpc);
	ASSERT_EQ(cpc_set_add_request(v.cpc, v.set, HW_EV_INST, 0,
				      CPC_COUNT_USER, 0, NULL), 0);
	v.a = cpc_buf_create(v.cpc, v.set);
	v.b = cpc_buf_create(v.cpc, v.set);
	ASSERT_EQ(cpc_bind_curlwp(v.cpc, v.set, 0), 0);
	check_nops(v2_empty, v2_nops, &v, "CPCv2");
	ASSERT_EQ(cpc_unbind(v.cpc, v.set), 0);
	cpc_close(v.cpc);
}

TEST(v1_empty_and_nops_user_read)
{
	v1_paths("1");
}

TEST(v1_empty_and_nops_syscall_read)
{
	v1_paths("0");
}

TEST(v2_empty_and_nops_user_read)
{
	v2_paths("1");
}

TEST(v2_empty_and_nops_syscall_read)
{
	v2_paths("0");
}

static volatile sig_atomic_t nr_sig, in_loop, bad, why;
static uint64_t preset, bad_value, max_past;

/* Example 2's handler: sample, preset again, rebind */
static void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	cpc_event_t sample;
	uintptr_t pc = (uintptr_t)sip->si_addr;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		why = 1;
		bad++;
		return;
	}
#ifdef __x86_64__
	if (pc != (uintptr_t)uap->uc_mcontext.gregs[REG_RIP]) {
#else
	if (pc != (uintptr_t)uap->uc_mcontext.pc) {
#endif
		why = 2;
		bad++;
	}
	nr_sig++;
	if (pc >= (uintptr_t)hw_loop && pc < (uintptr_t)hw_loop + 16)
		in_loop++;
	if (cpc_take_sample(&sample) == -1) {
		why = 3;
		bad++;
	} else if (sample.ce_pic[0] > max_past) {
		why = 4; /* not past the wrap */
		bad_value = sample.ce_pic[0];
		bad++;
	}
	sample.ce_pic[0] = preset;
	sample.ce_pic[1] = 0;
	if (cpc_bind_event(&sample, CPC_BIND_EMT_OVF) == -1) {
		why = 5;
		bad++;
	}
}

static void
overflow_run(const char *spec, uint64_t period, uint64_t n, uint64_t past)
{
	struct sigaction act;
	cpc_event_t event;

	memset(&act, 0, sizeof(act));
	act.sa_sigaction = emt_handler;
	act.sa_flags = SA_RESTART | SA_SIGINFO;
	ASSERT_EQ(sigaction(SIGEMT, &act, NULL), 0);
	ASSERT_EQ(cpc_strtoevent(cpc_getcpuver(), spec, &event), 0);
	preset = -period;
	max_past = past;
	event.ce_pic[0] = preset;
	event.ce_pic[1] = 0;
	ASSERT_EQ(cpc_bind_event(&event, CPC_BIND_EMT_OVF), 0);
	hw_loop(n);
	ASSERT_EQ(cpc_bind_event(NULL, 0), 0);
	printf("# %s every %llu: %d signals, %d in the loop, %d bad (%d, "
	       "%#llx)\n", spec, (unsigned long long)period, (int)nr_sig,
	       (int)in_loop, (int)bad, (int)why,
	       (unsigned long long)bad_value);
	ASSERT_EQ(bad, 0);
}

/*
 * The manual's Example 2, sampling on cycles: each sample is read just past
 * the wrap, the overflow's skid and the handler's cycles later.
 */
TEST(overflow_on_cycles)
{
	hw_pmu();
	overflow_run("pic0=PAPI_tot_cyc,pic1=PAPI_tot_ins", 1000000,
		     50000000, 100000);
	ASSERT_GE(nr_sig, 10);
	ASSERT_GE(in_loop, nr_sig / 2);
}

/*
 * On instructions: 2e7 loop instructions, one overflow per 1e6.  QEMU
 * raises the instruction counter's overflow interrupt late (at its next
 * timer event, up to a few million instructions on), so fewer signals
 * come than overflows, each read that much past the wrap; never more.
 */
TEST(overflow_on_instructions)
{
	hw_pmu();
	overflow_run("pic0=PAPI_tot_ins", 1000000, 10000000, 8000000);
	ASSERT_GE(nr_sig, 2);
	ASSERT_LE(nr_sig, 20);
	ASSERT_GE(in_loop, nr_sig - 1);
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(v1_exact_instructions)
		TEST_CASE(v2_exact_instructions)
		TEST_CASE(v1_empty_and_nops_user_read)
		TEST_CASE(v1_empty_and_nops_syscall_read)
		TEST_CASE(v2_empty_and_nops_user_read)
		TEST_CASE(v2_empty_and_nops_syscall_read)
		TEST_CASE(overflow_on_cycles)
		TEST_CASE(overflow_on_instructions)));
}
