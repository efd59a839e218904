/* SPDX-License-Identifier: MIT */
/*
 * test_hw_sampling.c - sampling into a buffer on the emulated PMU: with a
 * period P over a loop of K periods and a half (hw_ovf.h), exactly
 * floor(count / P) = K samples, each with its IP inside the loop, its
 * thread and its period; on the calling thread (the counter's own ring),
 * on the process (a ring that inherited counters share) and on a command
 * from its exec, whose count is known in advance (hw_loop.S).  Nothing
 * runs in user space between the samples: no signal is involved.
 */
#include <elf.h>

#include "hw_ovf.h"

#define MAX_SAMPLES 1024

struct tally {
	uint64_t ip[MAX_SAMPLES];
	pid_t pid[MAX_SAMPLES];
	pid_t tid[MAX_SAMPLES];
	uint64_t period[MAX_SAMPLES];
	uint64_t time[MAX_SAMPLES];
	int n;
};

static int
keep(const struct pctr_sample_record *r, void *arg)
{
	struct tally *t = arg;

	if (t->n < MAX_SAMPLES) {
		t->ip[t->n] = r->ip;
		t->pid[t->n] = r->pid;
		t->tid[t->n] = r->tid;
		t->period[t->n] = r->period;
		t->time[t->n] = r->time;
		ASSERT_EQ(r->event, 0);
		ASSERT_EQ(r->user, 1);
	}
	t->n++;
	return 0;
}

static struct pctr_set *
sampling_set(const char *event, uint64_t period)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = period,
				     .flags = PCTR_SAMPLE_TID |
					      PCTR_SAMPLE_TIME };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, event));
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	return set;
}

/* K samples exactly, from @pid/@tid, at IPs in [lo, hi) */
static void
check_samples(struct pctr_set *set, const struct tally *t, uint64_t count,
	      uint64_t p, pid_t pid, pid_t tid, uintptr_t lo, uintptr_t hi)
{
	struct pctr_overflow_stats st = { .size = sizeof(st) };

	printf("# %d samples; count %llu, count / P = %llu\n", t->n,
	       (unsigned long long)count, (unsigned long long)(count / p));
	ASSERT_LE(t->n, MAX_SAMPLES);
	ASSERT_UEQ(t->n, count / p);
	ASSERT_UEQ(t->n, HW_OVF_K);
	for (int i = 0; i < t->n; i++) {
		if (t->ip[i] < lo || t->ip[i] >= hi)
			TEST_FAIL("sample %d: IP %#llx outside the loop "
				  "[%#llx, %#llx)",
				  i, (unsigned long long)t->ip[i],
				  (unsigned long long)lo,
				  (unsigned long long)hi);
		ASSERT_EQ(t->pid[i], pid);
		ASSERT_EQ(t->tid[i], tid);
		ASSERT_UEQ(t->period[i], p);
		if (i)
			ASSERT_GT(t->time[i], t->time[i - 1]);
	}
	ASSERT_OK(pctr_set_overflow_stats(set, 0, &st));
	ASSERT_UEQ(st.notified, t->n);
	ASSERT_UEQ(st.lost, 0);
}

static void
exact_samples(const char *event, int target)
{
	uint64_t p = HW_OVF_PERIOD, n = hw_ovf_iterations(p, HW_OVF_K);
	struct pctr_set *set = sampling_set(event, p);
	struct pctr_target tg = { .type = target };
	static struct tally t;
	struct pctr_sample s;

	ASSERT_OK(pctr_set_open(set, &tg));
	ASSERT_OK(pctr_set_enable(set));
	hw_loop(n);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(pctr_set_sampling_read(set, keep, &t), t.n);
	printf("# count = 2N%+lld\n", (long long)(s.count[0].value - 2 * n));
	check_samples(set, &t, s.count[0].value, p, getpid(), gettid(),
		      (uintptr_t)hw_loop, (uintptr_t)hw_loop + 16);
	pctr_set_free(set);
}

/* the counter maps its own ring */
TEST(cycles_thread_exact)
{
	exact_samples("cycles:u", PCTR_TARGET_THREAD);
}

/* an inherited counter writes into a carrier's ring */
TEST(cycles_process_exact)
{
	exact_samples("cycles:u", PCTR_TARGET_PROCESS);
}

/* hw_loop's entry point: its loop is at HW_LOOP_FROM .. HW_LOOP_TO (hw.h) */
static uint64_t
loop_entry(void)
{
	Elf64_Ehdr eh;
	int fd = open("/hw/hw_loop", O_RDONLY | O_CLOEXEC);

	ASSERT(fd >= 0);
	ASSERT_EQ(read(fd, &eh, sizeof(eh)), sizeof(eh));
	close(fd);
	ASSERT(memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0);
	ASSERT_EQ(eh.e_type, ET_EXEC);
	return eh.e_entry;
}

/*
 * A command sampled from its exec: the count is known before it runs,
 * hw_loop_exec_count() instructions (hw_loop.S), a cycle each.
 */
TEST(cycles_command_exact)
{
	uint64_t p = HW_OVF_PERIOD, n = hw_ovf_iterations(p, HW_OVF_K);
	struct pctr_set *set = sampling_set("cycles:u", p);
	char arg[32];
	char *argv[] = { "hw_loop", arg, NULL };
	uint64_t want, start = loop_entry();
	static struct tally t;
	struct pctr_sample s;
	int status, r;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%llu", (unsigned long long)n);
	want = hw_loop_exec_count(n);
	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	/* read while it runs, as a profiler does */
	while ((r = pctr_set_sampling_wait(set, 100)) >= 0)
		ASSERT(pctr_set_sampling_read(set, keep, &t) >= 0);
	ASSERT_EQ(r, -ESRCH);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT(pctr_set_sampling_read(set, keep, &t) >= 0);
	ASSERT_OK(pctr_set_read(set, &s));
	printf("# hw_loop %llu: count %llu, expected %llu\n",
	       (unsigned long long)n, (unsigned long long)s.count[0].value,
	       (unsigned long long)want);
	ASSERT_UEQ(s.count[0].value, want);
	check_samples(set, &t, want, p, pid, pid, start + HW_LOOP_FROM,
		      start + HW_LOOP_TO);
	pctr_set_free(set);
}

/* the instructions counter: exact on the patched QEMU (hw_ovf.h) */
TEST(instructions_thread_exact)
{
	exact_samples("instructions:u", PCTR_TARGET_THREAD);
}

TEST(instructions_process_exact)
{
	exact_samples("instructions:u", PCTR_TARGET_PROCESS);
}

/*
 * PCTR_SAMPLE_USER_STACK: the registers in the kernel's order for the
 * architecture, checked by what hw_loop() does with them.  It counts its
 * argument down in place (x0 on arm64, rdi on x86-64), so that register
 * falls from sample to sample; it is a leaf that keeps nothing on the
 * stack, so its return address is in the link register (arm64: x30) or
 * at the stack pointer (x86-64), and the instruction before it is the
 * caller's call of hw_loop; the stack copy from the SP holds the canary
 * of this function's frame.
 */
#if defined(__aarch64__)
#define REGS_USER ((1ull << 33) - 1) /* X0..X30, SP, PC */
#define REG_ARG0 0
#define REG_LR 30
#define REG_SP 31
#define REG_PC 32
#elif defined(__x86_64__)
#define REGS_USER (0xfffull | 0xff0000ull) /* AX..SS, R8..R15 */
#define REG_ARG0 5 /* DI */
#define REG_SP 7
#define REG_PC 8
#endif

#ifdef REGS_USER
#define CANARY 0x5ca1ab1e0ddba11ull

struct regs_tally {
	int n, bad, pc_is_ip, arg_falls, ret_calls_loop, canary_seen;
	uint64_t last_arg;
	uintptr_t canary;
};

static uint64_t
reg(const struct pctr_sample_record *r, int bit)
{
	return r->regs[__builtin_popcountll(r->regs_mask &
					    ((1ull << bit) - 1))];
}

/* @ret follows a call of hw_loop: bl (arm64), call rel32 (x86-64) */
static bool
calls_loop(uint64_t ret)
{
#if defined(__aarch64__)
	uint32_t insn;
	int64_t off;

	memcpy(&insn, (const void *)(uintptr_t)(ret - 4), 4);
	off = (int64_t)((uint64_t)(insn & 0x3ffffff) << 38) >> 36;
	return (insn & 0xfc000000u) == 0x94000000u &&
	       ret - 4 + (uint64_t)off == (uintptr_t)hw_loop;
#else
	int32_t rel;

	memcpy(&rel, (const void *)(uintptr_t)(ret - 4), 4);
	return *(const uint8_t *)(uintptr_t)(ret - 5) == 0xe8 &&
	       ret + (uint64_t)(int64_t)rel == (uintptr_t)hw_loop;
#endif
}

static int
check_regs(const struct pctr_sample_record *r, void *arg)
{
	struct regs_tally *t = arg;
	uint64_t sp, ret;

	t->n++;
	if (r->regs_abi != 64 || r->regs_mask != REGS_USER || !r->stack ||
	    r->stack_len < 8) {
		t->bad++;
		return 0;
	}
	sp = reg(r, REG_SP);
	t->pc_is_ip += reg(r, REG_PC) == r->ip;
	t->arg_falls += t->n == 1 || reg(r, REG_ARG0) < t->last_arg;
	t->last_arg = reg(r, REG_ARG0);
#if defined(__aarch64__)
	ret = reg(r, REG_LR);
#else
	memcpy(&ret, r->stack, 8);
#endif
	t->ret_calls_loop += calls_loop(ret);
	if (sp < t->canary && t->canary + 8 <= sp + r->stack_len) {
		uint64_t w;

		memcpy(&w, r->stack + (t->canary - sp), 8);
		t->canary_seen += w == CANARY;
	}
	return 0;
}

TEST(instructions_user_stack_registers)
{
	volatile uint64_t canary = CANARY;
	uint64_t p = HW_OVF_PERIOD, n = hw_ovf_iterations(p, HW_OVF_K);
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = p,
				     .flags = PCTR_SAMPLE_USER_STACK,
				     .stack_size = 1024 };
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct regs_tally t = { .canary = (uintptr_t)&canary };
	struct pctr_target tg = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "instructions:u"));
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	ASSERT_OK(pctr_set_open(set, &tg));
	ASSERT_OK(pctr_set_enable(set));
	hw_loop(n);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT(pctr_set_sampling_read(set, check_regs, &t) >= 0);
	ASSERT_OK(pctr_set_overflow_stats(set, 0, &st));
	printf("# %d samples (%llu lost): PC = IP %d, argument falling %d, "
	       "return address after a call of hw_loop %d, canary in the "
	       "stack copy %d, bad %d\n",
	       t.n, (unsigned long long)st.lost, t.pc_is_ip, t.arg_falls,
	       t.ret_calls_loop, t.canary_seen, t.bad);
	ASSERT_UEQ(t.n, HW_OVF_K);
	ASSERT_UEQ(st.lost, 0);
	ASSERT_EQ(t.bad, 0);
	ASSERT_EQ(t.pc_is_ip, t.n);
	ASSERT_EQ(t.arg_falls, t.n);
	ASSERT_EQ(t.ret_calls_loop, t.n);
	ASSERT_EQ(t.canary_seen, t.n);
	pctr_set_free(set);
}
#else
TEST(instructions_user_stack_registers)
{
	SKIP("user stack copies are for x86-64 and arm64 (this is another)");
}
#endif

int
main(void)
{
	return test_main(TESTS(TEST_CASE(cycles_thread_exact)
			       TEST_CASE(cycles_process_exact)
			       TEST_CASE(cycles_command_exact)
			       TEST_CASE(instructions_thread_exact)
			       TEST_CASE(instructions_process_exact)
			       TEST_CASE(instructions_user_stack_registers)));
}
