/* SPDX-License-Identifier: MIT */
/*
 * test_hw_legacy_cost.c - what one read of each legacy layer costs,
 * against pctr's equivalent read of the same events in the same boot
 * (issue 14): user-mode instructions, exact on the emulated PMU, and
 * kernel-mode instructions, which count the system calls a read makes.
 *
 * Pairs (the legacy read; pctr's read that returns the same figures):
 *   cpc_set_sample, one request       pctr_set_read, 1 event
 *   cpc_take_sample, pic0 and pic1    pctr_set_read, 2 events
 *   pmc_read, two counters            pctr_set_read, 2 events
 *   OpenBSD rdpmc(0)                  pctr_set_read_values, 1 event
 *   OpenBSD PCIOCRD, 2 of 4 counters  pctr_set_read, 2 events
 *   FreeBSD PMIOREAD                  pctr_set_read_values, 1 event
 * each on the calling thread ($PCTR_BSD_TARGET=thread for the BSD
 * devices, whose default target is the process: its cost is printed too).
 *
 * Method (test_hw_cost.c's): a meter set counts user and user+kernel
 * instructions around K and 2K calls of a function of one form, call(arg);
 * the difference is K calls, less K calls of an empty function.  User
 * figures must be exact multiples of K.  A trial in which the kernel
 * updated a counter's page (the thread rescheduled) takes the layer's slow
 * path once and costs more: the figure is the one most trials agree on,
 * and they must be most.  Kernel figures: the median over trials (a timer
 * tick in one run adds a few thousand).
 *
 * Asserted: cpc_set_sample, cpc_take_sample, pmc_read and OpenBSD's
 * rdpmc make no system call (0 kernel instructions in most trials) and
 * cost at most 1.5 times pctr's equivalent read (issue 14), user and
 * total: their read plans (a set's one comparison for "bound by this
 * thread", the timestamp inline, counts read straight into the buffer;
 * pmc_read's counters copied without looking them up; rdpmc's slot, a
 * page at a fixed address read without touching the set, which PCIOCSn
 * may free meanwhile: compat/openbsd/rdpmc.c).  PCIOCRD and PMIOREAD
 * are ioctl(2)s on a descriptor: the layer must ask the kernel whether
 * the descriptor is still the device's and copy the argument out as
 * copyout() does (pctr_openbsd(4), pctr_freebsd(4)), so they are system
 * calls by their nature and printed (issue 14's 1.5 times for PCIOCRD is
 * missed: 389 user and 3,912 kernel instructions against pctr_set_read's
 * 60 on arm64).
 *
 * Each pair is printed as a "# legacy|..." line, from which
 * bench/legacy-cost.md is written.
 */
#include <libcpc.h>
#include <machine/perfmon.h>
#include <machine/pctr.h>
#include <pmc_lib.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "hw.h"

#define K 64
#define TRIALS 7

#ifdef __x86_64__
#define RAW_CYCLES 0x3c /* UnHalted Core Cycles */
#else
#define RAW_CYCLES 0x11 /* PMUv3 CPU_CYCLES */
#endif

typedef void (*call_fn)(void *arg);

static void
empty(void *arg)
{
	__asm__ volatile("" ::: "memory");
}

/* a plain call site through a pointer */
static __attribute__((noinline)) void
calls(call_fn fn, void *arg, int k)
{
	for (int i = 0; i < k; i++)
		fn(arg);
}

/* meter delta around k calls: user, and kernel alone */
static void
metered(struct pctr_set *meter, call_fn fn, void *arg, int k, uint64_t *u,
	uint64_t *kern)
{
	struct pctr_sample a, b;

	ASSERT_OK(pctr_set_read(meter, &a));
	calls(fn, arg, k);
	ASSERT_OK(pctr_set_read(meter, &b));
	*u = b.count[0].value - a.count[0].value;
	*kern = (b.count[1].value - a.count[1].value) - *u;
}

struct cost {
	uint64_t user, kernel; /* per call */
	int agree, zero_kernel; /* trials: at the user figure; no kernel */
};

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* the value most of @v[0..n) share, and how many share it */
static int64_t
mode(const int64_t *v, int n, int *count)
{
	int64_t best = v[0];

	*count = 0;
	for (int i = 0; i < n; i++) {
		int c = 0;

		for (int j = 0; j < n; j++)
			c += v[j] == v[i];
		if (c > *count) {
			*count = c;
			best = v[i];
		}
	}
	return best;
}

static struct cost
cost_of(call_fn fn, void *arg)
{
	struct pctr_set *meter = hw_thread_set(PCTR_SET_NO_USER_READ,
					       "instructions:u,instructions");
	int64_t du[TRIALS], dk[TRIALS];
	struct cost c = { 0 };

	for (int t = 0; t < TRIALS; t++) {
		uint64_t u1, k1, u2, k2, e1, ek1, e2, ek2;

		metered(meter, fn, arg, K, &u1, &k1);
		metered(meter, fn, arg, 2 * K, &u2, &k2);
		metered(meter, empty, NULL, K, &e1, &ek1);
		metered(meter, empty, NULL, 2 * K, &e2, &ek2);
		du[t] = (int64_t)(u2 - u1) - (int64_t)(e2 - e1);
		dk[t] = (int64_t)(k2 - k1) - (int64_t)(ek2 - ek1);
		c.zero_kernel += dk[t] == 0;
		printf("# trial %d: %lld user, %lld kernel per %d calls\n", t,
		       (long long)du[t], (long long)dk[t], K);
	}
	c.user = (uint64_t)mode(du, TRIALS, &c.agree);
	qsort(dk, TRIALS, sizeof(dk[0]), cmp_i64);
	c.kernel = dk[TRIALS / 2] > 0 ? (uint64_t)dk[TRIALS / 2] / K : 0;
	pctr_set_free(meter);
	/* user counts are exact: most trials saw no page update */
	ASSERT_GT(2 * c.agree, TRIALS);
	ASSERT_EQ(c.user % K, 0);
	c.user /= K;
	return c;
}

/* what a pair is held to */
enum bound {
	/* no system call; 1.5 times pctr's, user and total (issue 14) */
	CHEAP,
	/* figures only: an ioctl(2), a system call by its nature */
	PRINT,
};

/* one line per pair */
static void
pair_line(const char *legacy, const char *target, int nev, struct cost l,
	  const char *equiv, struct cost p)
{
	printf("# legacy|%s|%s|%d|%llu|%llu|%s|%llu|%llu\n", legacy, target,
	       nev, (unsigned long long)l.user, (unsigned long long)l.kernel,
	       equiv, (unsigned long long)p.user,
	       (unsigned long long)p.kernel);
}

/* a pair against its bound */
static void
check(struct cost l, struct cost p, enum bound bound)
{
	/* pctr's own reads of a thread's counters are in user space */
	ASSERT_GT(2 * p.zero_kernel, TRIALS);
	ASSERT_GT(p.user, 0);
	if (bound == PRINT)
		return;
	ASSERT_GT(2 * l.zero_kernel, TRIALS);
	/* issue 14: within 1.5 times pctr's equivalent read */
	ASSERT_LE(2 * l.user, 3 * p.user);
	ASSERT_LE(2 * (l.user + l.kernel), 3 * (p.user + p.kernel));
}

static void
compare(const char *legacy, const char *target, int nev, struct cost l,
	const char *equiv, struct cost p, enum bound bound)
{
	pair_line(legacy, target, nev, l, equiv, p);
	check(l, p, bound);
}

/* ---- pctr's equivalents -------------------------------------------------- */

struct pctr_call {
	struct pctr_set *set;
	struct pctr_sample s;
	uint64_t v[PCTR_MAX_EVENTS];
};

static void
call_pctr_read(void *arg)
{
	struct pctr_call *c = arg;

	pctr_set_read(c->set, &c->s);
}

static void
call_pctr_values(void *arg)
{
	struct pctr_call *c = arg;

	pctr_set_read_values(c->set, c->v);
}

/* pctr's read (@values: pctr_set_read_values) of @events on this thread */
static struct cost
pctr_cost(const char *events, bool values)
{
	struct pctr_call c = { .set = hw_thread_set(0, events) };
	struct cost r;

	ASSERT_OK(pctr_set_read(c.set, &c.s));
	ASSERT_HEX_EQ(c.s.path, PCTR_PATH_USER);
	r = cost_of(values ? call_pctr_values : call_pctr_read, &c);
	pctr_set_free(c.set);
	return r;
}

#define PCTR_TWO "instructions:u,cycles:u"

/* ---- libcpc -------------------------------------------------------------- */

struct v2 {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
};

static void
call_cpc_set_sample(void *arg)
{
	struct v2 *v = arg;

	cpc_set_sample(v->cpc, v->set, v->buf);
}

TEST(libcpc_set_sample)
{
	struct v2 v;
	struct cost l;
	uint64_t a, b;

	hw_pmu();
	hw_user_read("1");
	v.cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT(v.cpc != NULL);
	v.set = cpc_set_create(v.cpc);
	ASSERT_EQ(cpc_set_add_request(v.cpc, v.set, HW_EV_INST, 0,
				      CPC_COUNT_USER, 0, NULL), 0);
	v.buf = cpc_buf_create(v.cpc, v.set);
	ASSERT_EQ(cpc_bind_curlwp(v.cpc, v.set, 0), 0);
	/* the reads measured are right: a loop's instructions, and more */
	ASSERT_EQ(cpc_set_sample(v.cpc, v.set, v.buf), 0);
	ASSERT_EQ(cpc_buf_get(v.cpc, v.buf, 0, &a), 0);
	hw_loop(1000);
	l = cost_of(call_cpc_set_sample, &v);
	ASSERT_EQ(cpc_buf_get(v.cpc, v.buf, 0, &b), 0);
	ASSERT_GT(b - a, 2000);
	ASSERT_EQ(cpc_unbind(v.cpc, v.set), 0);
	cpc_close(v.cpc);
	compare("cpc_set_sample", "thread", 1, l, "pctr_set_read",
		pctr_cost("instructions:u", false), CHEAP);
}

static void
call_cpc_take_sample(void *arg)
{
	cpc_take_sample(arg);
}

TEST(libcpc_take_sample)
{
	cpc_event_t ev, a, b;
	struct cost l;

	hw_pmu();
	hw_user_read("1");
	ASSERT_EQ(cpc_access(), 0);
	ASSERT_EQ(cpc_strtoevent(cpc_getcpuver(),
				 "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc", &ev),
		  0);
	ASSERT_EQ(cpc_bind_event(&ev, 0), 0);
	ASSERT_EQ(cpc_take_sample(&a), 0);
	hw_loop(1000);
	l = cost_of(call_cpc_take_sample, &b);
	ASSERT_GT(b.ce_pic[0] - a.ce_pic[0], 2000);
	ASSERT_EQ(b.ce_cpuver, cpc_getcpuver());
	ASSERT_EQ(cpc_rele(), 0);
	compare("cpc_take_sample", "thread", 2, l, "pctr_set_read",
		pctr_cost(PCTR_TWO, false), CHEAP);
}

/* ---- pmc_lib ------------------------------------------------------------- */

static void
call_pmc_read(void *arg)
{
	pmc_read(arg);
}

TEST(pmclib_read)
{
	char *args[] = { "legacy", "--e", PCTR_TWO, NULL }, **argv = args;
	int argc = 3;
	pmc_control_t ctl = pmc_control_null;
	pmc_data_t a, b;
	struct cost l;

	hw_pmu();
	hw_user_read("1");
	ASSERT_EQ(pmc_getargs(stderr, "legacy", &argc, &argv, &ctl), TRUE);
	ASSERT_EQ(pmc_open(0), TRUE);
	ASSERT_EQ(pmc_select(&ctl.counters[0]), TRUE);
	pmc_read(&a);
	hw_loop(1000);
	l = cost_of(call_pmc_read, &b);
	ASSERT_GT(b.event[0] - a.event[0], 2000);
	pmc_close();
	compare("pmc_read", "thread", 2, l, "pctr_set_read",
		pctr_cost(PCTR_TWO, false), CHEAP);
}

/* ---- OpenBSD /dev/pctr --------------------------------------------------- */

struct dev {
	int fd;
	struct pctrst st;
	struct pmc_data d;
	pctrval v;
};

/*
 * The value is left where rdpmc() returns it (x0, rax), as a caller that
 * uses it finds it: the argument and a tail call, like pctr's read below.
 * Stored through @arg instead (call_rdpmc_stored, printed), the wrapper
 * keeps @arg across the call in a register it must save: a frame that is
 * this harness's, not the read's.
 */
static void
call_rdpmc(void *arg)
{
	(void)rdpmc(0);
}

/* the same, the value stored through @arg: printed, for the comparison */
static void
call_rdpmc_stored(void *arg)
{
	struct dev *d = arg;

	d->v = rdpmc(0);
}

static void
call_pciocrd(void *arg)
{
	struct dev *d = arg;

	ioctl(d->fd, PCIOCRD, &d->st);
}

/* /dev/pctr with counter 0 on instructions, 1 on cycles, both user */
static int
pctr_dev_open(void)
{
	unsigned int fn = RAW_INST | PCTR_U | PCTR_EN;
	unsigned int cyc = RAW_CYCLES | PCTR_U | PCTR_EN;
	int fd = open(_PATH_PCTR, O_RDWR);

	ASSERT(fd >= 0);
	ASSERT_EQ(ioctl(fd, PCIOCS0, &fn), 0);
	ASSERT_EQ(ioctl(fd, PCIOCS1, &cyc), 0);
	return fd;
}

static void
openbsd(const char *target)
{
	struct dev d;
	struct cost r, p;
	pctrval a;

	hw_pmu();
	hw_user_read("1");
	ASSERT_EQ(setenv("PCTR_BSD_TARGET", target, 1), 0);
	d.fd = pctr_dev_open();
	a = rdpmc(0);
	hw_loop(1000);
	r = cost_of(call_rdpmc, &d);
	printf("# rdpmc(0), %s, the value stored by the caller's wrapper: "
	       "%llu\n",
	       target, (unsigned long long)cost_of(call_rdpmc_stored, &d).user);
	ASSERT_GT(d.v - a, 2000);
	p = cost_of(call_pciocrd, &d);
	ASSERT_GT(d.st.pctr_hwc[0] - a, 2000);
	ASSERT_GT(d.st.pctr_hwc[1], 0);
	ASSERT_UEQ(d.st.pctr_hwc[2], 0);
	ASSERT_EQ(close(d.fd), 0);
	if (!strcmp(target, "thread")) {
		struct cost pr = pctr_cost("instructions:u", true);
		struct cost pp = pctr_cost(PCTR_TWO, false);

		pair_line("rdpmc(0)", target, 1, r, "pctr_set_read_values", pr);
		pair_line("PCIOCRD", target, 2, p, "pctr_set_read", pp);
		check(r, pr, CHEAP);
		check(p, pp, PRINT);
		return;
	}
	/* the process's counters: what pctr_openbsd(4) says they cost */
	printf("# legacy|rdpmc(0)|%s|1|%llu|%llu|-|-|-\n", target,
	       (unsigned long long)r.user, (unsigned long long)r.kernel);
	printf("# legacy|PCIOCRD|%s|2|%llu|%llu|-|-|-\n", target,
	       (unsigned long long)p.user, (unsigned long long)p.kernel);
	ASSERT_GT(r.kernel, 0);
}

TEST(openbsd_thread)
{
	openbsd("thread");
}

TEST(openbsd_process)
{
	openbsd("process");
}

/* ---- FreeBSD /dev/perfmon ------------------------------------------------ */

static void
call_pmioread(void *arg)
{
	struct dev *d = arg;

	ioctl(d->fd, PMIOREAD, &d->d);
}

static void
freebsd(const char *target)
{
	struct pmc pmc = { .pmc_num = 0 };
	struct dev d = { .d = { .pmcd_num = 0 } };
	struct cost l;
	quad_t a;
	int num = 0;

	hw_pmu();
	hw_user_read("1");
	ASSERT_EQ(setenv("PCTR_BSD_TARGET", target, 1), 0);
	d.fd = open(_PATH_PERFMON, O_RDWR);
	ASSERT(d.fd >= 0);
	pmc.pmc_event = RAW_INST;
	pmc.pmc_flags = PMCF_USR;
	ASSERT_EQ(ioctl(d.fd, PMIOSETUP, &pmc), 0);
	ASSERT_EQ(ioctl(d.fd, PMIOSTART, &num), 0);
	ASSERT_EQ(ioctl(d.fd, PMIOREAD, &d.d), 0);
	a = d.d.pmcd_value;
	hw_loop(1000);
	l = cost_of(call_pmioread, &d);
	ASSERT_GT(d.d.pmcd_value - a, 2000);
	ASSERT_EQ(close(d.fd), 0);
	if (!strcmp(target, "thread")) {
		compare("PMIOREAD", target, 1, l, "pctr_set_read_values",
			pctr_cost("instructions:u", true), PRINT);
		return;
	}
	printf("# legacy|PMIOREAD|%s|1|%llu|%llu|-|-|-\n", target,
	       (unsigned long long)l.user, (unsigned long long)l.kernel);
	ASSERT_GT(l.kernel, 0);
}

TEST(freebsd_thread)
{
	freebsd("thread");
}

TEST(freebsd_process)
{
	freebsd("process");
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(libcpc_set_sample) TEST_CASE(libcpc_take_sample)
		TEST_CASE(pmclib_read) TEST_CASE(openbsd_thread)
		TEST_CASE(openbsd_process) TEST_CASE(freebsd_thread)
		TEST_CASE(freebsd_process)));
}
