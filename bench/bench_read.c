/* SPDX-License-Identifier: MIT */
/*
 * bench_read.c - what one read, and one empty measured region, costs by
 * each method, side by side on the same events in the same run.
 *
 * Sections (see harness.h for the output lines):
 *   read    one read of a set of K events: pctr's fast path, pctr_set_read
 *           (as a default set, and with PCTR_SET_NO_USER_READ), read(2) of
 *           the same PERF_FORMAT_GROUP group opened directly against the
 *           kernel ABI, one read(2) per event, PAPI_read, and the floor
 *   region  an empty region: a read pair or a start/stop pair by each method
 *
 * The floor is the least a user-space read can do: per event, the mmap
 * page's seqlock around its offset and one counter instruction.  Software
 * events are never on a hardware counter (index 0), so here the floor is
 * the seqlock and offset alone; the counter instruction is measured in the
 * emulated-PMU guest.
 *
 * The events are software events, so that every method counts the same
 * thing on any Linux machine: task-clock, context-switches, page-faults...
 * cycled to reach K.  The raw groups copy the attributes pctr chose
 * (pctr_event_attr() of pctr_set_event()), so both sides ask the kernel
 * for the same.
 *
 * "bench_read -I METHOD -e K -n N" does N reads by one method and exits:
 * bench/run.sh runs it under callgrind at N and 2N to count the user-space
 * instructions of one read exactly.
 */
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "pctr.h"
#include "harness.h"

#ifdef HAVE_PAPI
#include <papi.h>
#endif

#define MAXEV 32

static const char *const names[] = {
	"task-clock",	"context-switches", "page-faults",
	"cpu-migrations", "minor-faults",   "major-faults",
	"alignment-faults", "emulation-faults", "cpu-clock",
};
#define NR_NAMES (int)(sizeof(names) / sizeof(names[0]))

struct ctx {
	int k;
	struct pctr_set *set; /* default flags: the fast path if it can */
	struct pctr_set *set_sys; /* PCTR_SET_NO_USER_READ */
	struct pctr_set *set_ss; /* for start/stop, so the others keep counting */
	struct pctr_sample s0, s1;
	int grp[MAXEV]; /* raw PERF_FORMAT_GROUP group, [0] the leader */
	int grp_ss[MAXEV]; /* same, for ENABLE/DISABLE */
	int sep[MAXEV]; /* one fd per event, no group */
	struct perf_event_mmap_page *page[MAXEV]; /* of grp[] */
	uint64_t buf[3 + 2 * MAXEV];
	size_t want;
	int papi_es;
	const char *papi_err;
};

/* ---- opening ------------------------------------------------------------ */

static struct pctr_set *
open_set(int k, unsigned flags)
{
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int r = pctr_set_new(&set, flags);

	for (int i = 0; r >= 0 && i < k; i++)
		r = pctr_set_add(set, names[i % NR_NAMES]);
	if (r >= 0)
		r = pctr_set_open(set, &t);
	if (r >= 0)
		r = pctr_set_enable(set);
	if (r < 0) {
		fprintf(stderr, "bench_read: pctr: %s\n", pctr_strerror(r));
		exit(1);
	}
	return set;
}

static int
perf_open(struct perf_event_attr *a, int group_fd)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, group_fd,
			      PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		perror("bench_read: perf_event_open");
		exit(1);
	}
	return fd;
}

/* The same events as @set, opened by hand: as a group or one by one. */
static void
open_raw(const struct pctr_set *set, int k, int *fd, int group)
{
	for (int i = 0; i < k; i++) {
		struct perf_event_attr a;

		if (pctr_event_attr(pctr_set_event(set, i), &a, sizeof(a)) < 0)
			exit(1);
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		if (group)
			a.read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
		a.disabled = i == 0 || !group;
		fd[i] = perf_open(&a, group && i ? fd[0] : -1);
	}
	for (int i = 0; i < (group ? 1 : k); i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
}

static void
open_papi(struct ctx *c)
{
	c->papi_es = -1;
#ifdef HAVE_PAPI
	static char why[1024];
	int r = PAPI_library_init(PAPI_VER_CURRENT), es = PAPI_NULL;

	if (r != PAPI_VER_CURRENT) {
		snprintf(why, sizeof(why), "PAPI_library_init: %s",
			 PAPI_strerror(r));
		c->papi_err = why;
		return;
	}
	r = PAPI_create_eventset(&es);
	for (int i = 0; r == PAPI_OK && i < c->k; i++) {
		char ev[64];

		snprintf(ev, sizeof(ev), "perf::%s", names[i % NR_NAMES]);
		for (char *p = ev; *p; p++)
			*p = *p >= 'a' && *p <= 'z' ? *p - 32 : *p;
		r = PAPI_add_named_event(es, ev);
		if (r != PAPI_OK) {
			const PAPI_component_info_t *ci =
				PAPI_get_component_info(0);

			snprintf(why, sizeof(why),
				 "PAPI_add_named_event(%s): \"%s\"; component "
				 "%s: \"%s\"",
				 ev, PAPI_strerror(r), ci ? ci->name : "?",
				 ci && ci->disabled ? ci->disabled_reason
						    : "enabled");
			c->papi_err = why;
			return;
		}
	}
	if (r == PAPI_OK)
		r = PAPI_start(es);
	if (r != PAPI_OK) {
		snprintf(why, sizeof(why), "PAPI: %s", PAPI_strerror(r));
		c->papi_err = why;
		return;
	}
	c->papi_es = es;
#else
	c->papi_err = "built without libpapi";
#endif
}

static void
open_ctx(struct ctx *c, int k)
{
	long pg = sysconf(_SC_PAGESIZE);

	memset(c, 0, sizeof(*c));
	c->k = k;
	c->set = open_set(k, 0);
	c->set_sys = open_set(k, PCTR_SET_NO_USER_READ);
	c->set_ss = open_set(k, PCTR_SET_NO_USER_READ);
	pctr_set_disable(c->set_ss);
	open_raw(c->set, k, c->grp, 1);
	open_raw(c->set, k, c->grp_ss, 1);
	ioctl(c->grp_ss[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	open_raw(c->set, k, c->sep, 0);
	c->want = (3 + 2 * (size_t)k) * sizeof(uint64_t);
	for (int i = 0; i < k; i++) {
		c->page[i] = mmap(NULL, pg, PROT_READ, MAP_SHARED, c->grp[i], 0);
		if (c->page[i] == MAP_FAILED) {
			perror("bench_read: mmap");
			exit(1);
		}
	}
	open_papi(c);
}

/* ---- the methods: each repeats one operation n times -------------------- */

static void
m_pctr(void *arg, long n)
{
	struct ctx *c = arg;

	while (n--)
		pctr_set_read(c->set, &c->s0);
}

static void
m_pctr_sys(void *arg, long n)
{
	struct ctx *c = arg;

	while (n--)
		pctr_set_read(c->set_sys, &c->s0);
}

static void
m_raw_group(void *arg, long n)
{
	struct ctx *c = arg;

	while (n--)
		if (read(c->grp[0], c->buf, c->want) != (ssize_t)c->want)
			abort();
}

static void
m_raw_pctr_fd(void *arg, long n)
{
	struct ctx *c = arg;
	int fd = pctr_set_fd(c->set, 0);

	while (n--)
		if (read(fd, c->buf, c->want) != (ssize_t)c->want)
			abort();
}

static void
m_raw_separate(void *arg, long n)
{
	struct ctx *c = arg;

	while (n--)
		for (int i = 0; i < c->k; i++)
			if (read(c->sep[i], &c->buf[3 * i], 24) != 24)
				abort();
}

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define BARRIER() __asm__ volatile("" ::: "memory")

static inline uint64_t
rdpmc(uint32_t i)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(i));
	return lo | (uint64_t)hi << 32;
#else
	(void)i;
	return 0;
#endif
}

/*
 * The floor: per event, the seqlock around the page's offset and one
 * counter read.  No time conversion, no width handling, no fallback: the
 * least any correct user-space reader must do.
 */
static void
m_floor(void *arg, long n)
{
	struct ctx *c = arg;

	while (n--) {
		for (int i = 0; i < c->k; i++) {
			const struct perf_event_mmap_page *pc = c->page[i];
			uint32_t seq, idx;
			uint64_t v;

			do {
				seq = READ_ONCE(pc->lock);
				BARRIER();
				idx = READ_ONCE(pc->index);
				v = READ_ONCE(pc->offset);
				if (idx)
					v += rdpmc(idx - 1);
				BARRIER();
			} while (READ_ONCE(pc->lock) != seq);
			c->buf[i] = v;
		}
	}
}

#ifdef HAVE_PAPI
static void
m_papi(void *arg, long n)
{
	struct ctx *c = arg;
	long long v[MAXEV];

	while (n--)
		PAPI_read(c->papi_es, v);
	BENCH_KEEP(v[0]);
}
#endif

/* region: two reads, or a start and a stop */

static void
r_pctr_pair(void *arg, long n)
{
	struct ctx *c = arg;

	while (n--) {
		pctr_set_read(c->set, &c->s0);
		pctr_set_read(c->set, &c->s1);
	}
}

static void
r_pctr_startstop(void *arg, long n)
{
	struct ctx *c = arg;

	while (n--) {
		pctr_set_enable(c->set_ss);
		pctr_set_disable(c->set_ss);
	}
}

static void
r_raw_pair(void *arg, long n)
{
	m_raw_group(arg, 2 * n);
}

static void
r_raw_ioctl(void *arg, long n)
{
	struct ctx *c = arg;

	while (n--) {
		ioctl(c->grp_ss[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		ioctl(c->grp_ss[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	}
}

static void
r_separate_pair(void *arg, long n)
{
	m_raw_separate(arg, 2 * n);
}

static void
r_floor_pair(void *arg, long n)
{
	m_floor(arg, 2 * n);
}

/* ---- sections ----------------------------------------------------------- */

static const char *no_fast =
	"software events are never on a hardware counter (mmap index 0), so "
	"no user-space read exists here: see the guest's instruction counts";

#define CASE(sec, meth, f) \
	(struct bench_case){ .section = sec, .method = meth, .events = c->k, \
			     .fn = f, .arg = c }

static void
section_read(struct ctx *c, int trials, int with_peers)
{
	struct bench_case cs[8];
	int nr = 0;

	pctr_set_read(c->set, &c->s0);
	if (!pctr_set_user_read(c->set))
		bench_print_na("read", "pctr_fast", c->k, no_fast);
	else
		cs[nr++] = CASE("read", "pctr_fast", m_pctr);
	if (!pctr_set_user_read(c->set))
		cs[nr++] = CASE("read", "pctr", m_pctr);
	cs[nr++] = CASE("read", "pctr_nouser", m_pctr_sys);
	cs[nr++] = CASE("read", "raw_group", m_raw_group);
	cs[nr++] = CASE("read", "raw_pctr_fd", m_raw_pctr_fd);
	if (with_peers)
		cs[nr++] = CASE("read", "raw_separate", m_raw_separate);
	cs[nr++] = CASE("read", "floor", m_floor);
#ifdef HAVE_PAPI
	if (with_peers && c->papi_es >= 0)
		cs[nr++] = CASE("read", "papi", m_papi);
#endif
	bench_run_cases(cs, nr, trials);
	for (int i = 0; i < nr; i++)
		bench_print(&cs[i], strcmp(cs[i].method, "floor") ? NULL
				    : "seqlock + offset per event; no counter "
				      "instruction (index 0 here)");
	if (with_peers && c->papi_es < 0)
		bench_print_na("read", "papi", c->k, c->papi_err);
}

static void
section_region(struct ctx *c, int trials)
{
	struct bench_case cs[] = {
		CASE("region", "pctr_read_pair", r_pctr_pair),
		CASE("region", "pctr_start_stop", r_pctr_startstop),
		CASE("region", "raw_read_pair", r_raw_pair),
		CASE("region", "raw_ioctl_pair", r_raw_ioctl),
		CASE("region", "separate_read_pair", r_separate_pair),
		CASE("region", "floor_pair", r_floor_pair),
	};
	int nr = sizeof(cs) / sizeof(cs[0]);

	bench_run_cases(cs, nr, trials);
	for (int i = 0; i < nr; i++)
		bench_print(&cs[i], NULL);
	if (c->papi_es < 0)
		bench_print_na("region", "papi_start_stop", c->k, c->papi_err);
}

/* Running below enabled would mean the kernel multiplexed the group. */
static void
check_multiplex(struct ctx *c)
{
	int mux = 0;

	pctr_set_read(c->set_sys, &c->s0);
	for (int i = 0; i < c->k; i++)
		mux += c->s0.count[i].running < c->s0.count[i].enabled;
	printf("mux\tpctr\t%d\t%d\t%d\t0\t0\t%s\n", c->k, mux, c->k,
	       mux ? "events ran less than enabled: multiplexed"
		   : "running == enabled for every event: not multiplexed");
}

/* ---- instruction mode: N reads by one method, for callgrind ------------- */

static int
instr_mode(const char *method, int k, long n)
{
	static const struct {
		const char *name;
		bench_fn fn;
	} tab[] = {
		{ "pctr", m_pctr },
		{ "pctr_nouser", m_pctr_sys },
		{ "raw_group", m_raw_group },
		{ "raw_separate", m_raw_separate },
		{ "floor", m_floor },
	};
	static struct ctx c;

	open_ctx(&c, k);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strcmp(tab[i].name, method) == 0) {
			tab[i].fn(&c, n);
			return 0;
		}
	}
	fprintf(stderr, "bench_read: unknown method '%s'\n", method);
	return 2;
}

int
main(int argc, char **argv)
{
	static const int ks[] = { 1, 2, 4, 8, 16, 32 };
	struct bench_opts o;
	static struct ctx c;

	if (argc == 7 && strcmp(argv[1], "-I") == 0)
		return instr_mode(argv[2], atoi(argv[4]), atol(argv[6]));
	o = bench_parse(argc, argv);
	bench_pin(o.cpu);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		int k = ks[i];

		if (o.quick && k > 8)
			break;
		open_ctx(&c, k);
		section_read(&c, o.trials, k <= 8);
		if (k == 1 || k == 4 || k == 8)
			section_region(&c, o.trials);
		check_multiplex(&c);
		/* fds and sets of this size are left open: the process ends */
	}
	return 0;
}
