/* SPDX-License-Identifier: MIT */
/*
 * hw.h - what the hardware tests share: the measured loop, sysctls, uids,
 * and the exactness check.
 *
 * The tests run as root inside the QEMU guest (tests/hw/run.sh), one test
 * case per child process (tests/test.h).  Sysctls are global: a case that
 * changes one with hw_sysctl() says so in its first lines, and every case
 * sets the values it depends on instead of assuming the previous case's.
 *
 * Exactness: hw_loop(N) executes 2N instructions plus a constant, so a
 * user-only count taken around it by hw_span() is 2N + C, where C is the
 * part of the two reads and the call that falls between the two counter
 * readings.  C depends on the read path and on the event's position in
 * the set, never on N: hw_check_exact() asserts exactly that, bit for bit.
 *
 * Undisturbed: the kernel rewrites a counter's mmap page each time it puts
 * the thread back on the CPU (tests/repro/repro_sched_in_page_rewrite), and
 * a user-space read that overlaps the rewrite reads again: its own
 * instructions count twice.  In the guest the test is switched out a few
 * times a second for kernel threads (compaction, vmstat, RCU), and at the
 * next tick after each console write (a span of pctr_set_read(),
 * hw_loop(1000), pctr_set_read() once counted 2N+172 against 2N+77 in all
 * the others).  Exact measurements run at real-time priority
 * (hw_fifo_begin()), where no ordinary task switches the thread out.  In
 * the arm64 guest, 2000 loops of 2e6 instructions each followed by a
 * console line: the page was rewritten in 18 of them at SCHED_OTHER, in 5
 * at SCHED_FIFO, and in 2 with the real-time throttle off as well: the
 * overflows of the 32-bit counter (every 2^31 instructions), which
 * reprogram it.  The throttle's 4 (one a second) and these land in a read
 * seldom enough (a read is a hundred instructions of each 1e9 or 2^31).
 */
#ifndef PCTR_HW_H
#define PCTR_HW_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctr.h"
#include "test.h"

/* n iterations of subs/b.ne (hw_asm.S), dec/jnz (hw_asm_x86_64.S) */
void hw_loop(uint64_t n);

/*
 * The guest's core PMU as sysfs names it: "armv8_pmuv3" when the kernel
 * found it in the device tree (QEMU's virt machine), "armv8_pmuv3_0" with
 * ACPI; "cpu" on x86.  Asserts that there is one: in the guest, no PMU is
 * a failure.
 */
#ifdef __x86_64__
#define HW_PMU_NAME "cpu"
#else
#define HW_PMU_NAME "armv8_pmuv3"
#endif

static inline const char *
hw_pmu(void)
{
	static struct pctr_machine m = { .size = sizeof(m) };

	if (!m.nr_pmus) {
		ASSERT_OK(pctr_machine_get(&m));
		ASSERT_EQ(m.has_pmu, 1);
		ASSERT_CONTAINS(m.pmu[0], HW_PMU_NAME);
	}
	return m.pmu[0];
}

/* "PMU/TERMS/MODS" in the kernel's sysfs syntax, in a static buffer */
static inline const char *
hw_sysfs_event(const char *terms, const char *mods)
{
	static char buf[4][PCTR_NAME_MAX];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, PCTR_NAME_MAX, "%s/%s/%s", hw_pmu(), terms, mods);
	return b;
}

/*
 * What "hw_loop N" executes from its first instruction to its exit, as
 * hw_loop.S (hw_loop_x86_64.S) spells it out.
 */
static inline uint64_t
hw_loop_exec_count(uint64_t n)
{
	char digits[32];
	uint64_t nd = (uint64_t)snprintf(digits, sizeof(digits), "%llu",
					 (unsigned long long)n);

#ifdef __x86_64__
	/* setup 2, 7 per digit, NUL 3, test/jz 2, loop 2N, exit 3 */
	return 2 + 7 * nd + 3 + 2 + 2 * n + 3;
#else
	/* setup 3, 5 per digit, NUL 2, cbz 1, loop 2N, exit 3 */
	return 3 + 5 * nd + 2 + 1 + 2 * n + 3;
#endif
}

/*
 * The fewest events the kernel lets a counter run to its overflow: on
 * x86 never fewer than 2 (x86_perf_event_set_period() in
 * arch/x86/events/core.c: "Quirk: certain CPUs dont like it if just 1
 * hw_event is left"), so a period of 1 overflows every 2 instructions
 * there (the x86-64 guest: a libcpc preset of 2^64 - 1 read 1 at its
 * overflow, a one-shot restart of period 1 read 2, 400 overflows in 800
 * instructions).
 */
#ifdef __x86_64__
#define HW_MIN_PERIOD 2
#else
#define HW_MIN_PERIOD 1
#endif

/* where hw_loop's loop is, from _start: dec, jnz; subs, b.ne */
#ifdef __x86_64__
#define HW_LOOP_FROM 0x21
#define HW_LOOP_TO 0x26
#else
#define HW_LOOP_FROM 36
#define HW_LOOP_TO 44
#endif

#ifdef __x86_64__
#define HW_ARCH "x86_64"
/* the kernel's sysfs names of the two events the emulation models */
#define HW_EV_INST "instructions"
#define HW_EV_CYCLES "cpu-cycles"
/*
 * x86: 48-bit counters, no "long" format; the kernel's raw encoding and
 * its sysfs alias.  Counters that can count instructions: fixed counter 0
 * and the 4 general ones.
 */
#define HW_INST32 hw_sysfs_event("event=0xc0", "u")
#define HW_INST64 hw_sysfs_event("instructions", "u")
#define HW_LONG_BIT 0
#define HW_INST_COUNTERS 5
#else
#define HW_ARCH "aarch64"
#define HW_EV_INST "inst_retired"
#define HW_EV_CYCLES "cpu_cycles"
/* 32-bit and 64-bit ("long", config1 bit 0) user-mode instruction events */
#define HW_INST32 hw_sysfs_event("inst_retired", "u")
#define HW_INST64 hw_sysfs_event("inst_retired,long", "u")
#define HW_LONG_BIT 1
/* the 6 event counters (the cycle counter counts cycles only) */
#define HW_INST_COUNTERS 6
#endif

/* past 2^32 counts: 5e9 iterations are 1e10 instructions */
#define HW_BIG 5000000000ull

static inline void
hw_sysctl(const char *name, const char *val)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		TEST_FAIL("sysctl %s=%s: %s (the hardware tests run as root "
			  "in the guest)", name, val, strerror(errno));
	close(fd);
}

/*
 * Counter reads from user mode on ("1") or off ("0"): arm64's sysctl, or
 * x86's cpu PMU's rdpmc switch in sysfs (1: for counters a process has
 * mapped, the kernel's default).
 */
static inline void
hw_user_read(const char *on)
{
#ifdef __x86_64__
	const char *path = "/sys/bus/event_source/devices/cpu/rdpmc";
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, on, strlen(on)) < 0)
		TEST_FAIL("%s=%s: %s (the hardware tests run as root in the "
			  "guest)", path, on, strerror(errno));
	close(fd);
#else
	hw_sysctl("kernel.perf_user_access", on);
#endif
}

/* Run @fn in a child as @uid/@uid; fail if the child fails. */
static inline void
hw_as_user(int uid, void (*fn)(void))
{
	int status;
	pid_t pid = fork();
	/* hw_fifo_begin() works for the user too, as it would for root */
	struct rlimit rt = { .rlim_cur = 1, .rlim_max = 1 };

	ASSERT(pid >= 0);
	if (pid == 0) {
		if (setrlimit(RLIMIT_RTPRIO, &rt) < 0 ||
		    setgroups(0, NULL) < 0 || setgid(uid) < 0 ||
		    setuid(uid) < 0)
			TEST_FAIL("cannot become uid %d: %s", uid,
				  strerror(errno));
		fn();
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/* A set of @events (comma-separated) on the calling thread, opened. */
static inline struct pctr_set *
hw_thread_set(unsigned int flags, const char *events)
{
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, flags));
	ASSERT_OK(pctr_set_add_list(set, events));
	ASSERT_OK(pctr_set_open(set, &t));
	ASSERT_OK(pctr_set_enable(set));
	return set;
}

/*
 * The perf mmap page's index of event @e of @set now: the counter it is
 * on plus one, 0 when on none (mapped a second time to look).
 */
static inline uint32_t
hw_page_index(struct pctr_set *set, int e)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *p = mmap(NULL, pg, PROT_READ, MAP_SHARED,
					      pctr_set_fd(set, e), 0);
	uint32_t idx;

	ASSERT(p != MAP_FAILED);
	idx = p->index;
	munmap(p, pg);
	return idx;
}

/*
 * The calling thread at real-time priority (SCHED_FIFO 1) until
 * hw_fifo_end(): no ordinary task, user or kernel thread, switches it out
 * meanwhile.  It must not wait for one either (a child it spins on, say):
 * in the guest's one CPU that task would not run.  The real-time throttle
 * still switches it out past 0.95 s of each second; a count that spans
 * more is exact all the same (a user-mode loop), only a read that
 * overlaps the switch is not.  Return: the policy to give back, -1 if
 * the thread was at SCHED_FIFO already.
 */
static inline int
hw_fifo_begin(void)
{
	struct sched_param p = { .sched_priority = 1 };
	int old = sched_getscheduler(0);

	if (old == SCHED_FIFO)
		return -1; /* nested: the outer hw_fifo_end() gives it back */
	if (sched_setscheduler(0, SCHED_FIFO, &p) < 0)
		TEST_FAIL("SCHED_FIFO: %s (the hardware tests measure at "
			  "real-time priority)", strerror(errno));
	return old;
}

static inline void
hw_fifo_end(int old)
{
	struct sched_param p = { .sched_priority = 0 };

	if (old >= 0 && sched_setscheduler(0, old, &p) < 0)
		TEST_FAIL("back to policy %d: %s", old, strerror(errno));
}

/*
 * The seqlock of event @e's mmap page, the kernel's count of its rewrites
 * (twice): a witness of a switch back in or a reprogramming, printed when
 * a count is off.  0 if the page cannot be mapped.
 */
static inline uint32_t
hw_page_lock(struct pctr_set *set, int e)
{
	long pg = sysconf(_SC_PAGESIZE);
	const struct perf_event_mmap_page *p =
		mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED,
		     pctr_set_fd(set, e), 0);
	uint32_t lock;

	if (p == MAP_FAILED)
		return 0;
	lock = __atomic_load_n(&p->lock, __ATOMIC_ACQUIRE);
	munmap((void *)p, (size_t)pg);
	return lock;
}

/* the page locks around the last hw_span() */
static uint32_t hw_span_lock[2];

/*
 * Read, run the loop, read: d gets the difference.  Not inlined, so that
 * every caller measures the very same instructions.
 */
static __attribute__((noinline)) void
hw_span(struct pctr_set *set, uint64_t n, struct pctr_sample *d)
{
	struct pctr_sample a, b;
	int ra, rb;

	hw_span_lock[0] = hw_page_lock(set, 0);
	ra = pctr_set_read(set, &a);
	hw_loop(n);
	rb = pctr_set_read(set, &b);
	hw_span_lock[1] = hw_page_lock(set, 0);
	ASSERT_OK(ra);
	ASSERT_OK(rb);
	ASSERT_EQ(a.nr, b.nr);
	ASSERT_EQ(a.path, b.path);
	*d = b;
	for (uint32_t e = 0; e < b.nr; e++)
		d->count[e] = pctr_count_delta(&b.count[e], &a.count[e]);
}

struct hw_point {
	uint64_t n;
	int repeats;
};

/* N from 1e3 to 5e9: past 2^32 instructions, and past 2^32 iterations */
static const struct hw_point hw_points[] = {
	{ 1000, 3 },	 { 100000, 3 },	 { 1000000, 3 },
	{ 10000000, 2 }, { 100000000, 2 }, { HW_BIG, 1 },
};

/*
 * The raw event code of instructions retired, for the legacy layers; the
 * same typed as a raw event and as a libpfm4 name in user mode, with the
 * libpfm4 tables to force (LIBPFM_FORCE_PMU): it knows neither guest's CPU.
 */
#ifdef __x86_64__
#define RAW_INST 0xc0 /* INST_RETIRED.ANY_P, architectural */
#define HW_RAW_INST_U "r00c0:u"
#define HW_PFM_PMU "skl"
#define HW_PFM_INST_U "INST_RETIRED.ANY_P:u"
#else
#define RAW_INST 0x08 /* PMUv3 INST_RETIRED */
#define HW_RAW_INST_U "r08:u"
#define HW_PFM_PMU "arm_ac57"
#define HW_PFM_INST_U "INST_RETIRED:u"
#endif

#define HW_ALL_POINTS 6
#define HW_SMALL_POINTS 5 /* up to 1e8: a fraction of a second each */

/*
 * For every point and repeat, every event e of the set must count exactly
 * 2N + c[e], with c[e] the same for all N and repeats; every read must
 * take @path.  Returns the constants in @c.  At real-time priority: see
 * "Undisturbed" above.
 */
static inline void
hw_check_exact_at(struct pctr_set *set, const struct hw_point *pts,
		  int npoints, uint32_t path, long long *c)
{
	struct pctr_sample d;
	bool first = true;
	int policy = hw_fifo_begin();

	for (int i = 0; i < npoints; i++) {
		for (int r = 0; r < pts[i].repeats; r++) {
			uint64_t n = pts[i].n;

			hw_span(set, n, &d);
			ASSERT_HEX_EQ(d.path, path);
			for (uint32_t e = 0; e < d.nr; e++) {
				long long off = (long long)(d.count[e].value -
							    2 * n);

				printf("# N=%llu event %u: %llu = 2N%+lld\n",
				       (unsigned long long)n, e,
				       (unsigned long long)d.count[e].value,
				       off);
				if (first)
					c[e] = off;
				else if (off != c[e])
					printf("# event 0's page: lock %u "
					       "before the span, %u after\n",
					       hw_span_lock[0],
					       hw_span_lock[1]);
				ASSERT_EQ(off, c[e]);
				/* the constant is the reads' share: small */
				ASSERT_GT(off, 0);
				ASSERT_LT(off, 5000);
			}
			first = false;
		}
	}
	hw_fifo_end(policy);
}

static inline void
hw_check_exact(struct pctr_set *set, int npoints, uint32_t path,
	       long long *c)
{
	hw_check_exact_at(set, hw_points, npoints, path, c);
}

#endif
