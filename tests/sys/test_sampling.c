/* SPDX-License-Identifier: MIT */
/*
 * test_sampling - sampling into a buffer with the kernel's task-clock:
 * IPs inside the loop that did the work, thread ids of threads created
 * after the open, call chains through the caller, lost samples counted.
 *
 * Rates: on user-mode work (spin_user_ns(), helpers.h), 95% of what a
 * plain perf_event_open sampler of the same threads gets meanwhile
 * (ref_open(), helpers.h; this file's one use of the kernel interface).
 * The kernel's own figure varies on this loaded 2-CPU VM: 94% to 99.6% of
 * the whole periods of CPU time (tests/repro/repro_task_clock_inherit), so the
 * library is held to what the kernel gave, and must lose none of it; the
 * whole periods are printed beside.  Losses are checked exactly on
 * page-faults, which overflows on its count: read + lost == overflows.
 */
/* the kernel walks user call chains by frame pointer: keep them, no tail calls */
#pragma GCC optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "pctr.h"
#include "test.h"
#include "helpers.h"

#define CALLER __attribute__((noinline, section("pctr_caller")))
extern const char __start_pctr_caller[], __stop_pctr_caller[];

#define PERIOD_NS 1000000ull
#define spin spin_user_ns

/* at least 95% of @expect (the top of the file says why 95 and of what) */
#define ASSERT_RATE(n, expect)                                                \
	ASSERT_GE((long long)(n) * 100, (long long)(expect) * 95)

/* a caller of the work, so that call chains have something to show */
/*
 * Between the caller and the loop, a function with a frame: the loop is a
 * leaf, which the compiler builds without one, so the kernel's walk up the
 * frame pointers goes from the loop's PC to the return address its caller
 * saved, skipping that caller.
 */
static struct spin_seen framed_seen;

__attribute__((noinline)) static void
spin_framed(uint64_t ns)
{
	spin_user_ns_seen(ns, &framed_seen);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

CALLER static void
call_spin(uint64_t ns)
{
	spin_framed(ns);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

/*
 * Under valgrind the program runs from valgrind's translation cache: the
 * PCs and call chains the kernel records are valgrind's, not the
 * program's, so where a sample fell is not checked there (counts are).
 * Valgrind puts its vgpreload libraries in LD_PRELOAD.
 */
static int
under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
}

static int
in(uint64_t ip, const char *lo, const char *hi)
{
	if (under_valgrind())
		return 1;
	return ip >= (uintptr_t)lo && ip < (uintptr_t)hi;
}

struct tally {
	int n, in_work, chains_through_caller;
	pid_t tid[64];
	int per_tid[64];
	int nr_tid;
	uint64_t last_time;
	int time_backwards;
	pid_t pid;
	int other_pid;
};

static int
count_record(const struct pctr_sample_record *r, void *arg)
{
	struct tally *t = arg;
	int k;

	t->n++;
	t->in_work += in(r->ip, __start_pctr_work, __stop_pctr_work);
	for (uint32_t i = 0; i < r->nr_callchain; i++)
		if (in(r->callchain[i], __start_pctr_caller,
		       __stop_pctr_caller)) {
			t->chains_through_caller++;
			break;
		}
	if (r->time < t->last_time)
		t->time_backwards++;
	t->last_time = r->time;
	t->other_pid += t->pid && r->pid != t->pid;
	for (k = 0; k < t->nr_tid && t->tid[k] != r->tid; k++)
		;
	if (k == t->nr_tid && k < 64)
		t->tid[t->nr_tid++] = r->tid;
	if (k < 64)
		t->per_tid[k]++;
	return 0;
}

static struct pctr_set *
sampling_set(const char *ev, uint64_t period, unsigned int flags,
	     unsigned int pages)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = period,
				     .flags = flags, .pages = pages };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, ev));
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	return set;
}

/* 200 ms of CPU at 1 ms: 200 samples within 5% + 2, all in the loop */
TEST(samples_in_buffer)
{
	struct pctr_set *set = sampling_set("task-clock:u", PERIOD_NS,
					    PCTR_SAMPLE_TID | PCTR_SAMPLE_TIME,
					    0);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct tally t = { .pid = getpid() };
	struct ref_sampler ref;
	struct pctr_sample s;
	uint64_t expect, kernel;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	ref_open(&ref, PERIOD_NS, 0);
	spin(200 * PERIOD_NS);
	kernel = ref_close(&ref);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	ASSERT_EQ(pctr_set_sampling_read(set, count_record, &t), t.n);
	expect = s.count[0].value / PERIOD_NS;
	printf("# %d samples, %llu whole periods, plain perf_event_open "
	       "%llu\n", t.n, (unsigned long long)expect,
	       (unsigned long long)kernel);
	ASSERT_RATE(t.n, kernel);
	/* one per whole period at most (+1: the clocks' rounding) */
	ASSERT_LE(t.n, expect + 1);
	/* all in spin() but one or two: the enable and disable calls */
	ASSERT_GE(t.in_work, t.n - 2);
	ASSERT_EQ(t.nr_tid, 1);
	ASSERT_EQ(t.tid[0], gettid());
	ASSERT_EQ(t.other_pid, 0);
	ASSERT_EQ(t.time_backwards, 0);
	ASSERT_OK(pctr_set_overflow_stats(set, 0, &st));
	ASSERT_UEQ(st.notified, t.n);
	ASSERT_UEQ(st.lost, 0);
	/* everything was read: a second read finds nothing */
	ASSERT_EQ(pctr_set_sampling_read(set, count_record, &t), 0);
	pctr_set_free(set);
}

/*
 * A one-page buffer that nobody reads fills up.  The kernel reports the
 * samples it dropped in the first record it writes once there is room
 * again, so the test reads, lets one more sample come, and reads again:
 * then read + lost is every overflow, exactly.  page-faults overflows on
 * its count (period 1: one overflow per fault), so the overflows are the
 * count.
 */
TEST(full_buffer_counts_losses)
{
	struct pctr_set *set = sampling_set("page-faults:u", 1,
					    PCTR_SAMPLE_TID | PCTR_SAMPLE_TIME,
					    1);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct tally t = { 0 };
	struct pctr_sample s;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(2000);
	pctr_set_sampling_read(set, count_record, &t);
	touch_pages(1);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_set_sampling_read(set, count_record, &t);
	ASSERT_OK(pctr_set_overflow_stats(set, 0, &st));
	printf("# %llu read, %llu lost, %llu overflows\n",
	       (unsigned long long)st.notified, (unsigned long long)st.lost,
	       (unsigned long long)s.count[0].value);
	/* 4 KiB holds about 100 samples of 40 bytes; 2000 happened */
	ASSERT_LT(st.notified, 300);
	ASSERT_GT(st.lost, 0);
	ASSERT_UEQ(st.notified, t.n);
	ASSERT_UEQ(st.notified + st.lost, s.count[0].value);
	pctr_set_free(set);
}

/*
 * The same buffer, read only once the set is stopped: no record comes
 * after the losses, so the kernel never writes its lost-records note, but
 * it counted every sample it dropped (PERF_FORMAT_LOST, Linux 6.0), and
 * that count is the one reported: read + lost is every overflow, exactly,
 * for a thread's set and for a process's (whose rings have carriers).
 */
static void
losses_without_a_later_record(int target)
{
	struct pctr_set *set = sampling_set("page-faults:u", 1,
					    PCTR_SAMPLE_TID | PCTR_SAMPLE_TIME,
					    1);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct tally t = { 0 };
	struct pctr_sample s;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){ target }));
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(2000);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	pctr_set_sampling_read(set, count_record, &t);
	ASSERT_OK(pctr_set_overflow_stats(set, 0, &st));
	printf("# %llu read, %llu lost, %llu overflows\n",
	       (unsigned long long)st.notified, (unsigned long long)st.lost,
	       (unsigned long long)s.count[0].value);
	ASSERT_LT(st.notified, 300);
	ASSERT_UEQ(st.notified, t.n);
	ASSERT_UEQ(st.notified + st.lost, s.count[0].value);
	pctr_set_free(set);
}

TEST(losses_counted_with_no_record_after_them)
{
	losses_without_a_later_record(PCTR_TARGET_THREAD);
}

TEST(process_losses_counted_with_no_record_after_them)
{
	losses_without_a_later_record(PCTR_TARGET_PROCESS);
}

static int
period_of_record(const struct pctr_sample_record *r, void *arg)
{
	uint64_t *bad = arg;

	*bad += r->period != 8;
	return 0;
}

/*
 * page-faults sampled with period 8: one sample per 8 faults, exactly
 * floor(count / 8) (a buffer of 16 pages holds them all), each saying 8.
 */
TEST(software_event_period_is_the_period)
{
	struct pctr_set *set = sampling_set("page-faults:u", 8,
					    PCTR_SAMPLE_TID, 16);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct pctr_sample s;
	uint64_t bad = 0;
	int n;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	touch_pages(800);
	ASSERT_OK(pctr_set_disable(set));
	ASSERT_OK(pctr_set_read(set, &s));
	n = pctr_set_sampling_read(set, period_of_record, &bad);
	ASSERT_OK(pctr_set_overflow_stats(set, 0, &st));
	printf("# %llu faults, %d samples at period 8, %llu lost\n",
	       (unsigned long long)s.count[0].value, n,
	       (unsigned long long)st.lost);
	ASSERT_GE(s.count[0].value, 800);
	ASSERT_UEQ(st.lost, 0);
	ASSERT_EQ(n, s.count[0].value / 8);
	ASSERT_UEQ(bad, 0);
	pctr_set_free(set);
}

/* another process: samples carry its pid, not ours */
TEST(command_is_sampled)
{
	struct pctr_set *set = sampling_set("task-clock:u", PERIOD_NS,
					    PCTR_SAMPLE_TID, 0);
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 30000 ]; do "
				     "i=$((i+1)); done", NULL };
	struct tally t = { 0 };
	pid_t pid;
	int status;

	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	t.pid = pid;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		int r = pctr_set_sampling_wait(set, 50);

		ASSERT(r >= 0 || r == -ESRCH); /* ESRCH: it has exited */
		ASSERT(pctr_set_sampling_read(set, count_record, &t) >= 0);
		if (r == -ESRCH)
			ASSERT(waitpid(pid, &status, 0) == pid);
	}
	ASSERT(pctr_set_sampling_read(set, count_record, &t) >= 0);
	printf("# %d samples of pid %d\n", t.n, (int)pid);
	ASSERT_GT(t.n, 5);
	ASSERT_EQ(t.other_pid, 0);
	pctr_set_free(set);
}

/*
 * The same through a poll(2) loop of the program's own, no timeout: each
 * buffer's descriptor (one per CPU for a command: spread over the CPUs)
 * wakes it, and every one hung up says the command is gone.
 */
TEST(own_poll_loop_over_the_buffers)
{
	struct pctr_set *set = sampling_set("task-clock:u", PERIOD_NS,
					    PCTR_SAMPLE_TID, 0);
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 30000 ]; do "
				     "i=$((i+1)); done", NULL };
	struct pollfd pfd[1024];
	struct tally t = { 0 };
	int n, hup = 0, status;
	pid_t pid;

	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	t.pid = pid;
	n = pctr_set_sampling_pollfd(set, NULL, 0);
	ASSERT_EQ(n, (int)sysconf(_SC_NPROCESSORS_ONLN));
	ASSERT_EQ(pctr_set_sampling_pollfd(set, pfd, 1024), n);
	ASSERT_EQ(pctr_set_sampling_pollfd(set, NULL, 1), -EINVAL);
	while (hup < n) {
		ASSERT_GT(poll(pfd, (nfds_t)n, -1), 0);
		ASSERT(pctr_set_sampling_read(set, count_record, &t) >= 0);
		hup = 0;
		for (int i = 0; i < n; i++)
			hup += !!(pfd[i].revents & POLLHUP);
	}
	ASSERT(pctr_set_sampling_read(set, count_record, &t) >= 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	printf("# %d samples of pid %d through %d descriptors\n", t.n,
	       (int)pid, n);
	ASSERT_GT(t.n, 5);
	ASSERT_EQ(t.other_pid, 0);
	pctr_set_free(set);
}

/* threads created after the open: samples of all 8, read while they run */
#define NR_THREADS 8
static pid_t tids[NR_THREADS];
static uint64_t cpu_ns[NR_THREADS];

static void *
thread_main(void *arg)
{
	uint64_t t0 = thread_cpu_ns();

	tids[(intptr_t)arg] = gettid();
	spin(60 * PERIOD_NS);
	cpu_ns[(intptr_t)arg] = thread_cpu_ns() - t0;
	return NULL;
}

TEST(eight_new_threads)
{
	SKIP_UNDER_VALGRIND("(it runs one thread at a time: per-thread "
			    "samples are its scheduler's)");
	struct pctr_set *set = sampling_set("task-clock:u", PERIOD_NS,
					    PCTR_SAMPLE_TID, 0);
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct tally t = { .pid = getpid() };
	pthread_t th[NR_THREADS];
	int reads_with_samples = 0, total = 0, got = 0;
	struct ref_sampler ref;
	uint64_t kernel;

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_PROCESS }));
	ASSERT_OK(pctr_set_enable(set));
	ref_open(&ref, PERIOD_NS, 1);
	for (intptr_t i = 0; i < NR_THREADS; i++)
		ASSERT(pthread_create(&th[i], NULL, thread_main,
				      (void *)i) == 0);
	/* the threads keep running while their samples are read */
	for (int k = 0; k < 10; k++) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
		reads_with_samples += pctr_set_sampling_read(set, count_record,
							 &t) > 0;
	}
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	kernel = ref_close(&ref);
	ASSERT_OK(pctr_set_disable(set));
	pctr_set_sampling_read(set, count_record, &t);
	ASSERT_EQ(t.other_pid, 0);
	for (int i = 0; i < NR_THREADS; i++) {
		int k;

		for (k = 0; k < t.nr_tid && t.tid[k] != tids[i]; k++)
			;
		ASSERT(k < t.nr_tid);
		printf("# thread %d (tid %d): %d samples, %d whole periods\n",
		       i, tids[i], t.per_tid[k], (int)(cpu_ns[i] / PERIOD_NS));
		ASSERT_GE(t.per_tid[k], 1);
		total += (int)(cpu_ns[i] / PERIOD_NS);
		got += t.per_tid[k];
	}
	ASSERT_OK(pctr_set_overflow_stats(set, 0, &st));
	printf("# %d of 10 reads found samples; threads: %d of %d whole "
	       "periods (%.1f%%); %d read, %llu lost; plain perf_event_open "
	       "beside it: %llu\n", reads_with_samples, got, total,
	       100.0 * got / total, t.n, (unsigned long long)st.lost,
	       (unsigned long long)kernel);
	ASSERT_GE(reads_with_samples, 1);
	/* what the kernel gave a plain sampler (top of the file) */
	ASSERT_RATE(t.n + st.lost, kernel);
	ASSERT_UEQ(st.notified, t.n);
	pctr_set_free(set);
}

/*
 * Call chains go through the caller of the hot loop.  task-clock with the
 * kernel in, and so the plain sampler beside: a :u sampler drops an expiry
 * that interrupts the kernel, an interrupt's or softirq's work on the CPU
 * (tests/repro/repro_task_clock_user_drops), so its samples fall under the
 * periods the spin was seen running.  With direct writes interrupting the
 * spin's CPU, a plain :u sampler got 114 for 122 periods seen; a fresh
 * chroot's first run failed the set's 96 for 102.  A sample in the kernel
 * carries the user chain after it.
 */
TEST(callchains)
{
	struct pctr_set *set;
	struct tally t = { 0 };
	struct ref_sampler ref;
	uint64_t kernel;

	if (under_valgrind())
		SKIP("under valgrind the kernel walks valgrind's stack frames");
	set = sampling_set("task-clock", PERIOD_NS, PCTR_SAMPLE_CALLCHAIN, 0);

	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	ref_open_all(&ref, PERIOD_NS, 0);
	call_spin(100 * PERIOD_NS);
	kernel = ref_close(&ref);
	ASSERT_OK(pctr_set_disable(set));
	pctr_set_sampling_read(set, count_record, &t);
	printf("# %d samples, %d through call_spin(); plain perf_event_open "
	       "%llu; the spin seen running %llu periods\n",
	       t.n, t.chains_through_caller, (unsigned long long)kernel,
	       (unsigned long long)((framed_seen.wall_ns - framed_seen.gap_ns) /
				    PERIOD_NS));
	ASSERT_SEEN_RATE(t.n, framed_seen, PERIOD_NS);
	/* and what the kernel gave a plain sampler (top of the file) */
	ASSERT_RATE(t.n, kernel);
	/* frame pointers may be absent: the kernel's user unwinder needs them */
	ASSERT_GE(t.chains_through_caller, t.n * 9 / 10);
	pctr_set_free(set);
}

/*
 * PCTR_SAMPLE_USER_STACK: each sample's user registers, in the kernel's
 * order for the architecture, and the stack from the sampled stack
 * pointer up.  The work runs below this function's frame, so every
 * sample's SP is below @canary, and where the copy reaches that far it
 * holds the canary's words, unchanged while the work ran.
 */
#if defined(__x86_64__)
#define REGS_USER (0xfffull | 0xff0000ull) /* AX..SS, R8..R15 */
#define REG_SP 7
#define REG_IP 8
#elif defined(__aarch64__)
#define REGS_USER ((1ull << 33) - 1) /* X0..X30, SP, PC */
#define REG_SP 31
#define REG_IP 32
#endif

#ifdef REGS_USER
#define CANARY 0x5ca1ab1e0ddba11ull

struct stack_tally {
	int n, bad_regs, ip_equal, canary_seen, canary_wrong, len_wrong;
	uintptr_t canary;
};

static uint64_t
reg(const struct pctr_sample_record *r, int bit)
{
	return r->regs[__builtin_popcountll(r->regs_mask &
					    ((1ull << bit) - 1))];
}

static int
check_stack(const struct pctr_sample_record *r, void *arg)
{
	struct stack_tally *t = arg;
	uint64_t sp, word;

	t->n++;
	if (r->regs_abi != 64 || r->regs_mask != REGS_USER || !r->regs ||
	    !r->stack) {
		t->bad_regs++;
		return 0;
	}
	sp = reg(r, REG_SP);
	t->ip_equal += reg(r, REG_IP) == r->ip;
	/*
	 * As much as asked, or less up to a page's end: the kernel copies in
	 * its interrupt, where it cannot fault a page in, and stops at the
	 * first page that is not in memory (the stack's end, or a page of it
	 * never touched: 3616 of 4096 bytes, the next page untouched, in one
	 * environment's layout).
	 */
	t->len_wrong += r->stack_len > 4096 || r->stack_len == 0 ||
			(r->stack_len < 4096 && (sp + r->stack_len) % 4096);
	if (sp >= t->canary || t->canary + 8 > sp + r->stack_len)
		return 0;
	t->canary_seen++;
	memcpy(&word, r->stack + (t->canary - sp), 8);
	t->canary_wrong += word != CANARY;
	return 0;
}

TEST(user_stack_copies)
{
	volatile uint64_t canary[2] = { CANARY, CANARY };
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = PERIOD_NS,
				     .flags = PCTR_SAMPLE_USER_STACK,
				     .stack_size = 4096,
				     /* 256 pages: 50 ms of 4 KiB samples fit */
				     .pages = 256 };
	struct stack_tally t = { .canary = (uintptr_t)&canary[0] };
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct pctr_set *set;

	if (under_valgrind())
		SKIP("under valgrind the kernel sees valgrind's registers");
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock:u"));
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	call_spin(50 * PERIOD_NS);
	ASSERT_OK(pctr_set_disable(set));
	pctr_set_sampling_read(set, check_stack, &t);
	pctr_set_overflow_stats(set, 0, &st);
	printf("# %d samples, %llu lost: %d with the sampled IP as the IP "
	       "register, %d with the canary in the copy (%d wrong), %d copies "
	       "of a wrong length\n",
	       t.n, (unsigned long long)st.lost, t.ip_equal, t.canary_seen,
	       t.canary_wrong, t.len_wrong);
	ASSERT_UEQ(st.lost, 0);
	ASSERT_SEEN_RATE(t.n, framed_seen, PERIOD_NS);
	ASSERT_EQ(t.bad_regs, 0);
	/* task-clock:u samples are taken in user mode: the IP is the PC */
	ASSERT_EQ(t.ip_equal, t.n);
	/* the spin is a few frames of some hundred bytes below the canary */
	ASSERT_EQ(t.canary_seen, t.n);
	ASSERT_EQ(t.canary_wrong, 0);
	/* 4096 bytes as asked, not perf's 8192, or up to a page's end */
	ASSERT_EQ(t.len_wrong, 0);
	pctr_set_free(set);
	(void)canary[1];
	/* without the flag, what was padding in 0.1 is not read */
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock:u"));
	cfg.flags = 0;
	cfg.stack_size = 12;
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	pctr_set_free(set);
}
#else
TEST(user_stack_copies)
{
	SKIP("user stack copies are for x86-64 and arm64 (this is another)");
}
#endif

TEST(bad_settings_are_refused)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg), .period = 1000 };
	struct pctr_overflow o = { .size = sizeof(o), .period = 1000 };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	cfg.pages = 3;
	ASSERT_EQ(pctr_set_sampling(set, 0, &cfg), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "power of two");
	cfg.pages = 0;
#ifdef REGS_USER
	/* the kernel's limit: whole u64s, under 64 KiB */
	cfg.flags = PCTR_SAMPLE_USER_STACK;
	cfg.stack_size = 12;
	ASSERT_EQ(pctr_set_sampling(set, 0, &cfg), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "a multiple of 8 up to 65528");
	cfg.stack_size = 65536;
	ASSERT_EQ(pctr_set_sampling(set, 0, &cfg), -EINVAL);
	cfg.flags = 0;
	cfg.stack_size = 0;
#endif
	cfg.period = 0;
	ASSERT_EQ(pctr_set_sampling(set, 0, &cfg), -EINVAL);
	cfg.period = 1000;
	cfg.flags = 0x100;
	ASSERT_EQ(pctr_set_sampling(set, 0, &cfg), -EINVAL);
	cfg.flags = 0;
	ASSERT_OK(pctr_set_sampling(set, 0, &cfg));
	ASSERT_EQ(pctr_set_overflow(set, 0, &o), -EBUSY);
	ASSERT_EQ(pctr_set_sampling_read(set, count_record, NULL), -EBADFD);
	pctr_set_free(set);

	/* a set without sampling has no buffer to read */
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_EQ(pctr_set_sampling_read(set, count_record, NULL), -EINVAL);
	ASSERT_EQ(pctr_set_sampling_wait(set, 0), -EINVAL);
	pctr_set_free(set);
}

/* what the side-band records of a command's tree said */
/*
 * The records of the child are kept by kind and pid, and matched to the
 * fork once all are read: the fork is written into the ring of the CPU
 * the parent ran on, the child's records into the rings of the CPUs it
 * ran on, and one read goes ring by ring.
 */
#define SIDE_MAX 64
struct side {
	pid_t top, child;
	int samples, others; /* others: kind != SAMPLE without the flag */
	int fork_of_top, exec_true, mmap_libc, exit_child, exit_top;
	int nr;
	uint64_t last; /* time of the last record of this read */
	int backwards; /* records earlier than the one before, in a read */
	int cpus, bad_cpu; /* PCTR_SAMPLE_CPU: online CPUs; records not on one */
	int no_time; /* records with time 0 */
	struct {
		int what; /* 1 exec of true, 2 libc mapped, 3 exit */
		pid_t pid;
	} rec[SIDE_MAX];
};

static void
side_keep(struct side *s, int what, pid_t pid)
{
	if (s->nr < SIDE_MAX) {
		s->rec[s->nr].what = what;
		s->rec[s->nr++].pid = pid;
	}
}

static int
side_record(const struct pctr_sample_record *r, void *arg)
{
	struct side *s = arg;

	s->backwards += r->time < s->last;
	s->last = r->time;
	s->no_time += r->time == 0;
	s->bad_cpu += s->cpus ? r->cpu < 0 || r->cpu >= s->cpus : r->cpu != -1;
	if (r->kind == PCTR_REC_SAMPLE) {
		s->samples++;
	} else if (r->kind == PCTR_REC_FORK && r->ppid == s->top &&
		   r->pid != r->ppid) {
		s->fork_of_top++;
		s->child = r->pid;
	} else if (r->kind == PCTR_REC_COMM && r->exec &&
		   !strcmp(r->name, "true")) {
		side_keep(s, 1, r->pid);
	} else if (r->kind == PCTR_REC_MMAP && strstr(r->name, "libc.so") &&
		   r->len > 0 && (r->prot & PROT_EXEC)) {
		side_keep(s, 2, r->pid);
	} else if (r->kind == PCTR_REC_EXIT) {
		side_keep(s, 3, r->pid);
		s->exit_top += r->pid == s->top;
	}
	return 0;
}

/* what the child did, once every record is read */
static void
side_match(struct side *s)
{
	for (int i = 0; s->child && i < s->nr; i++) {
		if (s->rec[i].pid != s->child)
			continue;
		s->exec_true += s->rec[i].what == 1;
		s->mmap_libc += s->rec[i].what == 2;
		s->exit_child += s->rec[i].what == 3;
	}
}

static void
run_side(unsigned int flags, struct side *s)
{
	struct pctr_set *set = sampling_set("task-clock", PERIOD_NS,
					    PCTR_SAMPLE_TID | PCTR_SAMPLE_TIME |
						    flags,
					    0);
	char *argv[] = { "sh", "-c", "/bin/true; i=0; while [ $i -lt 3000 ]; "
				     "do i=$((i+1)); done", NULL };
	int status, n = 0, r;
	pid_t pid;

	ASSERT_OK(pctr_set_open_command(set, argv, &pid));
	s->top = pid;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		r = pctr_set_sampling_wait(set, 50);
		ASSERT(r >= 0 || r == -ESRCH);
		s->last = 0;
		ASSERT((r = pctr_set_sampling_read(set, side_record, s)) >= 0);
		n += r;
		if (r == -ESRCH)
			ASSERT(waitpid(pid, &status, 0) == pid);
	}
	s->last = 0;
	ASSERT((r = pctr_set_sampling_read(set, side_record, s)) >= 0);
	n += r;
	/* the return value counts samples only */
	ASSERT_EQ(n, s->samples);
	ASSERT_LT(s->nr, SIDE_MAX);
	side_match(s);
	pctr_set_free(set);
}

/*
 * PCTR_SAMPLE_SIDEBAND: the sh of the command forks a child that execs
 * true, which maps libc; both exit.  Every record comes, from the
 * counter's inherited copies too, each read in time order across the
 * CPUs' buffers.
 * Without the flag, the same tree gives samples only.
 */
TEST(sideband_records)
{
	struct side s = { 0 }, plain = { 0 };

	run_side(PCTR_SAMPLE_SIDEBAND, &s);
	printf("# %d samples; fork %d, exec %d, libc %d, exits %d %d\n",
	       s.samples, s.fork_of_top, s.exec_true, s.mmap_libc,
	       s.exit_child, s.exit_top);
	/* a read hands over the CPUs' buffers merged in time order */
	ASSERT_EQ(s.backwards, 0);
	ASSERT_EQ(s.fork_of_top, 1);
	ASSERT_EQ(s.exec_true, 1);
	ASSERT_GE(s.mmap_libc, 1);
	ASSERT_GE(s.exit_child, 1);
	ASSERT_GE(s.exit_top, 1);
	run_side(0, &plain);
	ASSERT_EQ(plain.fork_of_top + plain.exec_true + plain.mmap_libc +
			  plain.exit_child + plain.exit_top,
		  0);
}

/*
 * PCTR_SAMPLE_CPU: every record, side-band ones too, says a CPU that is
 * online; the side-band records' times are still theirs (sample_id holds
 * the CPU after the time: read as the time, a record would go backwards
 * or say 0 or 1).
 */
TEST(sideband_records_with_cpu)
{
	struct side s = { .cpus = (int)sysconf(_SC_NPROCESSORS_ONLN) };

	run_side(PCTR_SAMPLE_SIDEBAND | PCTR_SAMPLE_CPU, &s);
	printf("# %d samples, %d records on no CPU, %d without a time\n",
	       s.samples, s.bad_cpu, s.no_time);
	ASSERT_EQ(s.bad_cpu, 0);
	ASSERT_EQ(s.no_time, 0);
	ASSERT_EQ(s.backwards, 0);
	ASSERT_EQ(s.exec_true, 1);
	ASSERT_GE(s.exit_top, 1);
}

/*
 * pctr_set_sampling_attr(): the attributes the records are laid out by,
 * as configured (a perf.data writer states them); none for an event that
 * does not sample, nor for a struct too small.
 */
TEST(sampling_attr_states_the_layout)
{
	struct pctr_set *set = sampling_set("task-clock", PERIOD_NS,
					    PCTR_SAMPLE_TID | PCTR_SAMPLE_CPU |
						    PCTR_SAMPLE_CALLCHAIN,
					    0);
	struct perf_event_attr a;

	ASSERT_OK(pctr_set_add(set, "page-faults"));
	memset(&a, 0xff, sizeof(a));
	ASSERT_OK(pctr_set_sampling_attr(set, 0, &a, sizeof(a)));
	ASSERT_EQ(a.size, sizeof(a));
	ASSERT_EQ(a.type, PERF_TYPE_SOFTWARE);
	ASSERT_UEQ(a.config, PERF_COUNT_SW_TASK_CLOCK);
	ASSERT_UEQ(a.sample_period, PERIOD_NS);
	ASSERT_HEX_EQ(a.sample_type,
		      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN);
	ASSERT_EQ(pctr_set_sampling_attr(set, 1, &a, sizeof(a)), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "does not sample");
	ASSERT_EQ(pctr_set_sampling_attr(set, 2, &a, sizeof(a)), -EINVAL);
	ASSERT_EQ(pctr_set_sampling_attr(set, 0, &a, 63), -EINVAL);
	pctr_set_free(set);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(samples_in_buffer)
			       TEST_CASE(full_buffer_counts_losses)
			       TEST_CASE(losses_counted_with_no_record_after_them)
			       TEST_CASE(
				       process_losses_counted_with_no_record_after_them)
			       TEST_CASE(software_event_period_is_the_period)
			       TEST_CASE(command_is_sampled)
			       TEST_CASE(own_poll_loop_over_the_buffers)
			       TEST_CASE(eight_new_threads)
			       TEST_CASE(callchains)
			       TEST_CASE(user_stack_copies)
			       TEST_CASE(bad_settings_are_refused)
			       TEST_CASE(sideband_records)
			       TEST_CASE(sideband_records_with_cpu)
			       TEST_CASE(sampling_attr_states_the_layout)));
}
