/* SPDX-License-Identifier: MIT */
/*
 * test_struct_size.c - the size rule at every public entry point that
 * takes a struct with a size field (include/pctr.h, top).
 *
 * A struct the library fills is handed in at its version 0 size with a
 * guard pattern after it: the call succeeds and the guard is intact.  A
 * struct the library reads is placed at the very end of a page whose next
 * page is inaccessible: a read past the caller's size would crash.  Both
 * also get a size under version 0 (-EINVAL naming the struct, nothing
 * written), a larger size with zeros past the library's struct (accepted,
 * the zeros left alone) and one with a non-zero byte there (-E2BIG).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <time.h>

#include <pctr.h>

#include "test.h"

#define GUARD 64
#define EXTRA 32 /* bytes of a "newer" caller past the library's struct */

static unsigned char
guard_byte(size_t i)
{
	return (unsigned char)(0xa5 ^ i);
}

/* @size bytes of 0xee with ->size = @size, then GUARD bytes of pattern */
static unsigned char *
guarded(unsigned char *buf, size_t size)
{
	memset(buf, 0xee, size);
	memcpy(buf, &size, sizeof(size));
	for (size_t i = 0; i < GUARD; i++)
		buf[size + i] = guard_byte(i);
	return buf;
}

static void
guard_intact(const unsigned char *buf, size_t size)
{
	for (size_t i = 0; i < GUARD; i++)
		if (buf[size + i] != guard_byte(i))
			TEST_FAIL("byte %zu past the caller's %zu-byte struct "
				  "was written",
				  i, size);
}

typedef int (*out_fn)(void *out);

/*
 * A struct the library fills: @ver0 is its published minimum, @cur its
 * size in this version (so a newer caller's bytes start there).
 */
static void
check_out_grown(const char *name, size_t ver0, size_t cur, out_fn call)
{
	static _Alignas(16) unsigned char buf[1024 + EXTRA + GUARD];
	size_t size;

	/* an older caller's struct, at the minimum: nothing past it written */
	ASSERT_OK(call(guarded(buf, ver0)));
	guard_intact(buf, ver0);
	memcpy(&size, buf, sizeof(size));
	ASSERT_UEQ(size, ver0);
	/* this version's own size: all of it filled */
	ASSERT_OK(call(guarded(buf, cur)));
	guard_intact(buf, cur);
	memcpy(&size, buf, sizeof(size));
	ASSERT_UEQ(size, cur);
	/* smaller than any version's: refused by name, nothing written */
	ASSERT_EQ(call(guarded(buf, ver0 - 8)), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), name);
	for (size_t i = sizeof(size_t); i < ver0 - 8; i++)
		ASSERT_HEX_EQ(buf[i], 0xee);
	guard_intact(buf, ver0 - 8);
	/* a newer caller's, its own fields at zero: filled up to ours */
	guarded(buf, cur + EXTRA);
	memset(buf + cur, 0, EXTRA);
	ASSERT_OK(call(buf));
	memcpy(&size, buf, sizeof(size));
	ASSERT_UEQ(size, cur);
	for (size_t i = cur; i < cur + EXTRA; i++)
		ASSERT_HEX_EQ(buf[i], 0);
	guard_intact(buf, cur + EXTRA);
	/* a newer caller asking for something this library does not know */
	guarded(buf, cur + EXTRA);
	memset(buf + cur, 0, EXTRA);
	buf[cur + EXTRA - 1] = 1;
	ASSERT_EQ(call(buf), -E2BIG);
	ASSERT_CONTAINS(pctr_strerror(-E2BIG), name);
	guard_intact(buf, cur + EXTRA);
}

/* a struct that has not grown since version 0 */
static void
check_out(const char *name, size_t ver0, out_fn call)
{
	check_out_grown(name, ver0, ver0, call);
}

typedef int (*in_fn)(const void *in);

/* @n bytes at the end of a page followed by an inaccessible one */
static unsigned char *
page_end(size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT(p != MAP_FAILED);
	ASSERT(mprotect(p + pg, (size_t)pg, PROT_NONE) == 0);
	return p + pg - n;
}

static void
page_free(unsigned char *q, size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);

	munmap(q + n - pg, 2 * (size_t)pg);
}

/* A struct the library reads: @valid is a good one of @ver0 bytes. */
static void
check_in(const char *name, size_t ver0, const void *valid, in_fn call)
{
	unsigned char *p;
	size_t size;

	/* an older caller's struct, at the minimum: read up to its end */
	p = page_end(ver0);
	memcpy(p, valid, ver0);
	ASSERT_OK(call(p));
	page_free(p, ver0);
	/* smaller than any version's: refused by name, not read past */
	p = page_end(ver0 - 8);
	memcpy(p, valid, ver0 - 8);
	size = ver0 - 8;
	memcpy(p, &size, sizeof(size));
	ASSERT_EQ(call(p), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), name);
	page_free(p, ver0 - 8);
	/* a newer caller's, its own fields at zero */
	p = page_end(ver0 + EXTRA);
	memset(p, 0, ver0 + EXTRA);
	memcpy(p, valid, ver0);
	size = ver0 + EXTRA;
	memcpy(p, &size, sizeof(size));
	ASSERT_OK(call(p));
	/* ... or asking for what this library does not know */
	p[ver0 + EXTRA - 1] = 1;
	ASSERT_EQ(call(p), -E2BIG);
	ASSERT_CONTAINS(pctr_strerror(-E2BIG), name);
	page_free(p, ver0 + EXTRA);
}

/* ---- events ------------------------------------------------------------- */

static int
parse(void *out)
{
	return pctr_event_parse("task-clock:u", out);
}

static int
from_x86(void *out)
{
	return pctr_event_from_x86(0x4300c0, out);
}

TEST(event_parse)
{
	check_out("struct pctr_event", PCTR_EVENT_SIZE_VER0, parse);
}

TEST(event_from_x86)
{
	check_out("struct pctr_event", PCTR_EVENT_SIZE_VER0, from_x86);
}

static int
attr_of(const void *in)
{
	unsigned char attr[128];

	return pctr_event_attr(in, attr, sizeof(attr));
}

static int
add_event(const void *in)
{
	struct pctr_set *set;
	int r;

	ASSERT_OK(pctr_set_new(&set, 0));
	r = pctr_set_add_event(set, in);
	if (r >= 0) {
		ASSERT_EQ(r, 0);
		ASSERT_STR_EQ(pctr_set_event(set, 0)->name, "task-clock:u");
		ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
						     PCTR_TARGET_THREAD }));
	}
	pctr_set_free(set);
	return r < 0 ? r : 0;
}

TEST(event_attr)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	ASSERT_OK(pctr_event_parse("task-clock:u", &ev));
	check_in("struct pctr_event", PCTR_EVENT_SIZE_VER0, &ev, attr_of);
}

TEST(set_add_event)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	ASSERT_OK(pctr_event_parse("task-clock:u", &ev));
	check_in("struct pctr_event", PCTR_EVENT_SIZE_VER0, &ev, add_event);
}

/* ---- the machine, statistics ------------------------------------------- */

static int
machine(void *out)
{
	return pctr_machine_get(out);
}

TEST(machine_get)
{
	check_out("struct pctr_machine", PCTR_MACHINE_SIZE_VER0, machine);
}

static struct pctr_stats *stats;

static void
stats_make(void)
{
	static const uint64_t v[3][2] = { { 10, 5 }, { 20, 4 }, { 30, 10 } };

	ASSERT_OK(pctr_stats_new(&stats, 2, 0));
	for (int i = 0; i < 3; i++)
		ASSERT_OK(pctr_stats_add_values(stats, 100, v[i]));
}

static int
get(void *out)
{
	int r = pctr_stats_get(stats, 0, out);

	if (r == 0)
		ASSERT_UEQ(((struct pctr_summary *)out)->n, 3);
	return r;
}

static int
per_second(void *out)
{
	return pctr_stats_per_second(stats, 0, out);
}

static int
per_cycle(void *out)
{
	return pctr_stats_per_cycle(stats, 0, out);
}

static int
ratio(void *out)
{
	return pctr_stats_ratio(stats, 0, 1, out);
}

static int
values(void *out)
{
	static const double x[] = { 1, 2, NAN, 3 };

	return pctr_values_summary(x, 4, out);
}

#define SUMMARY_OUT(fn)                                                  \
	check_out_grown("struct pctr_summary", PCTR_SUMMARY_SIZE_VER0,   \
			PCTR_SUMMARY_SIZE_VER1, fn)

TEST(stats_summaries)
{
	stats_make();
	SUMMARY_OUT(get);
	SUMMARY_OUT(per_second);
	SUMMARY_OUT(per_cycle);
	SUMMARY_OUT(ratio);
	SUMMARY_OUT(values);
	pctr_stats_free(stats);
}

static int
region_init(const void *in)
{
	return pctr_region_init(in);
}

TEST(region_config)
{
	/* a version 0 caller's: its size is that of version 0 */
	struct pctr_region_config cfg = {
		.size = PCTR_REGION_CONFIG_SIZE_VER0,
		.events = "task-clock",
		.calibrate = 10,
	};

	unsetenv("PCTR_EVENTS");
	unsetenv("PCTR_REPORT");
	unsetenv("PCTR_REGION_DISTURBED");
	check_in("struct pctr_region_config", PCTR_REGION_CONFIG_SIZE_VER0,
		 &cfg, region_init);
	/* this version's, with the field version 1 added, read */
	cfg.size = PCTR_REGION_CONFIG_SIZE_VER1;
	cfg.disturbed = PCTR_REGION_DISTURBED_DROP;
	ASSERT_OK(region_init(&cfg));
	cfg.disturbed = 5;
	ASSERT_EQ(region_init(&cfg), -EINVAL);
}

/* ---- overflow and sampling --------------------------------------------- */

static struct pctr_set *
task_clock_set(void)
{
	struct pctr_set *set;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock:u"));
	return set;
}

static void
ignore(const struct pctr_overflow_info *info, void *arg)
{
	(void)info;
	(void)arg;
}

static int
set_overflow(const void *in)
{
	struct pctr_set *set = task_clock_set();
	int r = pctr_set_overflow(set, 0, in);

	pctr_set_free(set);
	return r;
}

static int
set_sampling(const void *in)
{
	struct pctr_set *set = task_clock_set();
	int r = pctr_set_sampling(set, 0, in);

	pctr_set_free(set);
	return r;
}

TEST(overflow)
{
	struct pctr_overflow o = { .size = sizeof(o), .period = 1000000,
				   .fn = ignore };

	check_in("struct pctr_overflow", PCTR_OVERFLOW_SIZE_VER0, &o,
		 set_overflow);
}

TEST(sampling)
{
	struct pctr_sampling s = { .size = sizeof(s), .period = 1000000 };

	check_in("struct pctr_sampling", PCTR_SAMPLING_SIZE_VER0, &s,
		 set_sampling);
}

static struct pctr_set *ovf_set;

static int
stats_of_overflows(void *out)
{
	return pctr_set_overflow_stats(ovf_set, -1, out);
}

TEST(overflow_stats)
{
	ovf_set = task_clock_set();
	check_out("struct pctr_overflow_stats", PCTR_OVERFLOW_STATS_SIZE_VER0,
		  stats_of_overflows);
	pctr_set_free(ovf_set);
}

/*
 * pctr_overflow_decode() fills an array of the caller's element size,
 * from the program's own handler: one element, then the guard.
 */
#define SIG_DECODE (SIGRTMIN + 4)
#define PERIOD_NS 1000000 /* 1 ms of task-clock:u per notification */
static _Alignas(16) unsigned char dec_buf[256 + GUARD];
static atomic_int dec_result, dec_count;

static void
decode_handler(int sig, siginfo_t *si, void *uc)
{
	int n;

	(void)sig;
	(void)uc;
	do {
		n = pctr_overflow_decode(si, (void *)dec_buf, 1);
		if (n)
			atomic_store(&dec_result, n);
		if (n > 0)
			atomic_fetch_add(&dec_count, n);
	} while (n == 1);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The first decode result for an element of @size bytes: a user-mode spin
 * until a notification came (1 ms of task-clock:u each), 10 s at most, a
 * bound for a loaded machine: the spin's own user time passes 1 ms in
 * about 1 ms of CPU.
 */
static int
decode_with(size_t size, bool garbage)
{
	struct sigaction sa = { .sa_sigaction = decode_handler,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct pctr_overflow o = { .size = sizeof(o), .period = PERIOD_NS,
				   .signo = SIG_DECODE };
	struct pctr_set *set = task_clock_set();
	volatile unsigned long spin = 0;
	double t0 = now();

	guarded(dec_buf, size);
	if (size > sizeof(struct pctr_overflow_info))
		memset(dec_buf + sizeof(struct pctr_overflow_info), 0,
		       size - sizeof(struct pctr_overflow_info));
	if (garbage)
		dec_buf[size - 1] = 1;
	atomic_store(&dec_result, 0);
	ASSERT(sigaction(SIG_DECODE, &sa, NULL) == 0);
	ASSERT_OK(pctr_set_overflow(set, 0, &o));
	ASSERT_OK(pctr_set_open(set, &(struct pctr_target){
					     PCTR_TARGET_THREAD }));
	ASSERT_OK(pctr_set_enable(set));
	while (!atomic_load(&dec_result) && now() - t0 < 10)
		for (int i = 0; i < 100000; i++)
			spin++;
	ASSERT_OK(pctr_set_disable(set));
	pctr_set_free(set);
	guard_intact(dec_buf, size);
	return atomic_load(&dec_result);
}

TEST(overflow_decode)
{
	size_t ver0 = PCTR_OVERFLOW_INFO_SIZE_VER0, size;

	/* an older caller's elements, at the minimum */
	ASSERT_EQ(decode_with(ver0, false), 1);
	memcpy(&size, dec_buf, sizeof(size));
	ASSERT_UEQ(size, ver0);
	ASSERT_EQ(((struct pctr_overflow_info *)dec_buf)->event, 0);
	ASSERT_GT(((struct pctr_overflow_info *)dec_buf)->seq, 0);
	/* smaller than any version's: refused, nothing written */
	ASSERT_EQ(decode_with(ver0 - 8, false), -EINVAL);
	ASSERT_HEX_EQ(dec_buf[sizeof(size_t)], 0xee);
	/* a newer caller's elements, zero past the library's struct */
	ASSERT_EQ(decode_with(ver0 + EXTRA, false), 1);
	for (size_t i = ver0; i < ver0 + EXTRA; i++)
		ASSERT_HEX_EQ(dec_buf[i], 0);
	ASSERT_EQ(decode_with(ver0 + EXTRA, true), -E2BIG);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(event_parse)
			       TEST_CASE(event_from_x86)
			       TEST_CASE(event_attr)
			       TEST_CASE(set_add_event)
			       TEST_CASE(machine_get)
			       TEST_CASE(stats_summaries)
			       TEST_CASE(region_config)
			       TEST_CASE(overflow)
			       TEST_CASE(sampling)
			       TEST_CASE(overflow_stats)
			       TEST_CASE(overflow_decode)));
}
