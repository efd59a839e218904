/* SPDX-License-Identifier: MIT */
/*
 * test_hw_compat.c - the BSD devices and the seeds' own programs on the
 * emulated PMU.
 *
 * OpenBSD /dev/pctr and FreeBSD /dev/perfmon: this program is linked as a
 * program of those systems is (the layers' sources compiled in, the
 * pkg-config files' --wrap flags), programs a counter with a PMUv3 event
 * number (pctr_openbsd(4): on arm64 the low 16 bits of a function are the
 * event, 0x08 INST_RETIRED) and reads it around hw_loop: 2N + C exactly,
 * with one C for every N.
 *
 * On x86 the FreeBSD device takes the architectural event 0xc0
 * (instructions retired); OpenBSD's device is test_hw_pctrdev_x86's there,
 * with the x86 counter function.
 *
 * The seeds' programs: the libcpc manual's Examples 1 and 2 and pmc_lib's
 * menu8.c, extracted from ../shared/seeds and cross-built at build time
 * (hw_seeds.sh), carried inside this program and run unchanged, with the
 * arm64 event names our libcpc and pmc_lib accept.
 */
#include <machine/perfmon.h>
#include <machine/pctr.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "hw_prog.h"

/* every point up to 1e8: 2N + c, the same c; returns c */
static long long
check_exact(uint64_t (*span)(void *, uint64_t), void *arg, const char *what)
{
	long long c = 0;
	bool first = true;
	int policy = hw_fifo_begin();

	for (int i = 0; i < HW_SMALL_POINTS; i++) {
		for (int r = 0; r < hw_points[i].repeats; r++) {
			uint64_t n = hw_points[i].n;
			long long off = (long long)(span(arg, n) - 2 * n);

			printf("# %s N=%llu: 2N%+lld\n", what,
			       (unsigned long long)n, off);
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

/* ---- OpenBSD /dev/pctr -------------------------------------------------- */

static __attribute__((noinline)) uint64_t
rdpmc_span(void *arg, uint64_t n)
{
	pctrval a, b;

	a = rdpmc(0);
	hw_loop(n);
	b = rdpmc(0);
	return b - a;
}

#ifndef __x86_64__ /* the OpenBSD device: test_hw_pctrdev_x86 on x86 */
static __attribute__((noinline)) uint64_t
pctr_span(void *arg, uint64_t n)
{
	struct pctrst a, b;
	int fd = *(int *)arg, ra, rb;

	ra = ioctl(fd, PCIOCRD, &a);
	hw_loop(n);
	rb = ioctl(fd, PCIOCRD, &b);
	ASSERT_EQ(ra, 0);
	ASSERT_EQ(rb, 0);
	return b.pctr_hwc[0] - a.pctr_hwc[0];
}

TEST(openbsd_pctr_exact)
{
	unsigned int fn = 0x08 | PCTR_U | PCTR_EN, cyc = 0x11 | PCTR_U | PCTR_EN;
	unsigned int off = 0x08 | PCTR_U; /* programmed, not enabled */
	struct pctrst st, st0;
	int fd;

	hw_pmu();
	fd = open(_PATH_PCTR, O_RDWR);
	ASSERT(fd >= 0);
	ASSERT_EQ(ioctl(fd, PCIOCS0, &fn), 0);
	ASSERT_EQ(ioctl(fd, PCIOCS0 + 1, &cyc), 0);
	ASSERT_EQ(ioctl(fd, PCIOCS2, &off), 0);
	ASSERT_EQ(ioctl(fd, PCIOCRD, &st), 0);
	ASSERT_HEX_EQ(st.pctr_fn[0], fn);
	ASSERT_HEX_EQ(st.pctr_fn[1], cyc);
	ASSERT_HEX_EQ(st.pctr_fn[2], off);
	printf("# PCIOCRD: 2N%+lld\n", check_exact(pctr_span, &fd, "PCIOCRD"));
	printf("# rdpmc(0): 2N%+lld\n", check_exact(rdpmc_span, NULL, "rdpmc"));
	/* user cycles: at least the loop's instructions (one per cycle) */
	ASSERT_EQ(ioctl(fd, PCIOCRD, &st0), 0);
	hw_loop(1000000);
	ASSERT_EQ(ioctl(fd, PCIOCRD, &st), 0);
	printf("# cycles over hw_loop(1e6): %llu\n",
	       (unsigned long long)(st.pctr_hwc[1] - st0.pctr_hwc[1]));
	ASSERT_GE(st.pctr_hwc[1] - st0.pctr_hwc[1], 2000000);
	ASSERT_UEQ(st.pctr_hwc[2], 0);
	ASSERT_UEQ(st.pctr_hwc[3], 0);
	ASSERT_GT(st.pctr_tsc, 0);
	ASSERT_EQ(close(fd), 0);
}

/* what PMUv3 cannot do is refused as the seed refuses a bad function */
TEST(openbsd_pctr_errors)
{
	unsigned int edge = 0x08 | PCTR_U | PCTR_E | PCTR_EN;
	unsigned int inv = 0x08 | PCTR_U | PCTR_I | PCTR_EN;
	unsigned int cmask = 0x08 | PCTR_U | PCTR_EN | 1u << PCTR_CM_SHIFT;
	unsigned int fn = 0x08 | PCTR_U | PCTR_EN;
	int fd;

	hw_pmu();
	fd = open(_PATH_PCTR, O_RDWR);
	ASSERT(fd >= 0);
	ASSERT_EQ(ioctl(fd, PCIOCS0, &edge), -1);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(ioctl(fd, PCIOCS0, &inv), -1);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(ioctl(fd, PCIOCS0, &cmask), -1);
	ASSERT_EQ(errno, EINVAL);
	close(fd);
	fd = open(_PATH_PCTR, O_RDONLY);
	ASSERT(fd >= 0);
	ASSERT_EQ(ioctl(fd, PCIOCS0, &fn), -1);
	ASSERT_EQ(errno, EPERM);
	close(fd);
}

/* ---- FreeBSD /dev/perfmon ----------------------------------------------- */

#endif /* __x86_64__ */

/*
 * ---- OpenBSD rdpmc() on a thread's counter (both ports) -----------------
 *
 * PCTR_BSD_TARGET=thread: rdpmc(0) reads its slot's page in user space
 * (compat/openbsd/rdpmc.c).  Exact around the loop with one constant, and
 * cheap: a "pair" (user instructions from one rdpmc(0)'s counter read to
 * the next's) of a read in user space is its own instructions after and
 * before the counter read, about 30 (the fast read is 28 instructions on
 * arm64, 29 on x86-64, bench/legacy-cost.md), while the slow read through
 * the set makes a system call and hundreds of user instructions around it
 * (rdpmc(0) of a process counter: 484 user).  Below 60: the user path.
 * Every case the fast read does not take gives the right count too:
 * another thread, the counter moved to another register, reprogrammed,
 * turned off, a child after fork().
 */
static __attribute__((noinline)) uint64_t
rdpmc_pair(void)
{
	pctrval a = rdpmc(0);

	return rdpmc(0) - a;
}

static void *
rdpmc_elsewhere(void *arg)
{
	*(pctrval *)arg = rdpmc(0);
	return NULL;
}

TEST(openbsd_rdpmc_thread)
{
	unsigned int fn = RAW_INST | PCTR_U | PCTR_EN;
	struct pctr_set *holder, *kick;
	uint64_t pair, k[2];
	uint32_t held, ours;
	pctrval a, b, v;
	pthread_t t;
	long long c;
	int fd, status;
	pid_t pid;

	hw_pmu();
	hw_user_read("1");
	ASSERT_EQ(setenv("PCTR_BSD_TARGET", "thread", 1), 0);
	/* a set on the first counter, so that ours can move down later */
	holder = hw_thread_set(0, "instructions:u");
	fd = open(_PATH_PCTR, O_RDWR);
	ASSERT(fd >= 0);
	ASSERT_EQ(ioctl(fd, PCIOCS0, &fn), 0);
	c = check_exact(rdpmc_span, NULL, "rdpmc thread");
	pair = rdpmc_pair();
	printf("# rdpmc(0), thread: 2N%+lld, pair %llu\n", c,
	       (unsigned long long)pair);
	ASSERT_LT(pair, 60);
	ASSERT_EQ(rdpmc_pair(), pair);

	/* another thread: the set's read(2), between the owner's reads */
	a = rdpmc(0);
	ASSERT_EQ(pthread_create(&t, NULL, rdpmc_elsewhere, &v), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	b = rdpmc(0);
	printf("# another thread read %llu between %llu and %llu\n",
	       (unsigned long long)v, (unsigned long long)a,
	       (unsigned long long)b);
	ASSERT_LT(a, v);
	ASSERT_LT(v, b);
	ASSERT_EQ(rdpmc_pair(), pair);

	/*
	 * The counter moves (test_hw_plan's plan_index_moved): the holder
	 * off, a new set on, the thread's counters scheduled again, ours
	 * one down.  The first read finds another register: read by the
	 * switch, in user space (measured by the new set: well under the
	 * slow read's hundreds), and right; then the pair is back.
	 */
	held = hw_page_index(holder, 0);
	a = rdpmc(0);
	ASSERT_OK(pctr_set_disable(holder));
	kick = hw_thread_set(0, "instructions:u");
	ASSERT_EQ(pctr_set_read_values(kick, &k[0]), PCTR_PATH_USER);
	v = rdpmc(0);
	ASSERT_EQ(pctr_set_read_values(kick, &k[1]), PCTR_PATH_USER);
	ours = hw_page_index(kick, 0);
	printf("# moved: holder was on %u, the new set took %u; first read "
	       "%llu user instructions, %llu counted meanwhile\n",
	       held - 1, ours - 1, (unsigned long long)(k[1] - k[0]),
	       (unsigned long long)(v - a));
	ASSERT_NE(ours, held);
	ASSERT_LT(k[1] - k[0], 150);
	ASSERT_GT(v, a);
	ASSERT_LT(v - a, 200000);
	ASSERT_EQ(rdpmc_pair(), pair);
	ASSERT_EQ(check_exact(rdpmc_span, NULL, "rdpmc moved"), c);

	/*
	 * A child: no pages there (the kernel does not copy perf mappings),
	 * so no fast read; the set's read(2) of the parent's counter, which
	 * counted at least what the parent read before the fork.
	 */
	a = rdpmc(0);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		pctrval x = rdpmc(0), y = rdpmc(0);

		_exit(x > a && y >= x ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	ASSERT_EQ(rdpmc_pair(), pair);

	/* reprogrammed: the new counter from zero; off: zero */
	ASSERT_EQ(ioctl(fd, PCIOCS0, &fn), 0);
	v = rdpmc(0);
	printf("# reprogrammed: %llu\n", (unsigned long long)v);
	ASSERT_LT(v, 10000);
	ASSERT_EQ(rdpmc_pair(), pair);
	fn = 0;
	ASSERT_EQ(ioctl(fd, PCIOCS0, &fn), 0);
	ASSERT_UEQ(rdpmc(0), 0);
	ASSERT_EQ(close(fd), 0);
	pctr_set_free(kick);
	pctr_set_free(holder);
}

static __attribute__((noinline)) uint64_t
perfmon_span(void *arg, uint64_t n)
{
	struct pmc_data a = { .pmcd_num = 0 }, b = { .pmcd_num = 0 };
	int fd = *(int *)arg, ra, rb;

	ra = ioctl(fd, PMIOREAD, &a);
	hw_loop(n);
	rb = ioctl(fd, PMIOREAD, &b);
	ASSERT_EQ(ra, 0);
	ASSERT_EQ(rb, 0);
	return (uint64_t)(b.pmcd_value - a.pmcd_value);
}

TEST(freebsd_perfmon_exact)
{
	struct pmc pmc = { .pmc_num = 0 }, got = { .pmc_num = 0 };
	struct pmc_data d = { .pmcd_num = 0 }, e = { .pmcd_num = 0 };
	int fd, num = 0;

	hw_pmu();
	fd = open(_PATH_PERFMON, O_RDWR);
	ASSERT(fd >= 0);
	pmc.pmc_event = RAW_INST;
	pmc.pmc_unit = 0;
	pmc.pmc_flags = PMCF_USR;
	pmc.pmc_mask = 0;
	ASSERT_EQ(ioctl(fd, PMIOSETUP, &pmc), 0);
	/* set up stopped, at zero */
	hw_loop(1000);
	ASSERT_EQ(ioctl(fd, PMIOREAD, &d), 0);
	ASSERT_EQ(d.pmcd_value, 0);
	ASSERT_EQ(ioctl(fd, PMIOSTART, &num), 0);
	ASSERT_EQ(ioctl(fd, PMIOGET, &got), 0);
	ASSERT(got.pmc_flags & PMCF_EN);
	ASSERT_EQ(got.pmc_event, RAW_INST);
	printf("# PMIOREAD: 2N%+lld\n",
	       check_exact(perfmon_span, &fd, "PMIOREAD"));
	/* stopped: the value holds while the loop runs */
	ASSERT_EQ(ioctl(fd, PMIOSTOP, &num), 0);
	ASSERT_EQ(ioctl(fd, PMIOREAD, &d), 0);
	hw_loop(1000000);
	ASSERT_EQ(ioctl(fd, PMIOREAD, &e), 0);
	ASSERT_EQ(e.pmcd_value, d.pmcd_value);
	ASSERT_GT(d.pmcd_value, 2 * 100000000LL);
	/* reset, stopped: zero */
	ASSERT_EQ(ioctl(fd, PMIORESET, &num), 0);
	ASSERT_EQ(ioctl(fd, PMIOREAD, &d), 0);
	ASSERT_EQ(d.pmcd_value, 0);
	ASSERT_EQ(close(fd), 0);
}

/* ---- the seeds' programs ------------------------------------------------ */

#ifdef HW_NO_SEEDS
#define NEED_SEEDS() SKIP("%s", HW_NO_SEEDS)
#else
#define NEED_SEEDS() hw_pmu()
HW_BLOB(hw_cpc_example1);
HW_BLOB(hw_cpc_example2);
HW_BLOB(hw_menu8);
#endif

/* the iterations of the examples' computation (seed_prelude.h, hw_seeds.sh) */
#define SEED_ITER 25000

/*
 * Example 1 with PERFEVENTS=pic0=instructions,pic1=cycles: 20 samples of
 * the same computation, user mode: the same instruction count every time.
 * The program ends with "can't sample" and status 1 even when all went
 * well: its last check is "iter != 20" after a loop that leaves iter at 21.
 */
TEST(cpc_example1_exact)
{
	char *argv[] = { "/tmp/cpc_example1", NULL };
	char *env[] = { "PERFEVENTS=pic0=instructions,pic1=cycles", NULL };
	unsigned long long first = 0, ins, cyc;
	struct hw_run r;
	const char *p;
	int n = 0, iter;

	NEED_SEEDS();
#ifndef HW_NO_SEEDS
	hw_prog_install(argv[0], hw_blob_hw_cpc_example1,
			hw_blob_hw_cpc_example1_end);
#endif
	hw_run_fifo(argv, env, &r);
	hw_run_show(&r, 3);
	ASSERT_EQ(r.status, 1);
	ASSERT_CONTAINS(r.err, "can't sample 'pic0=instructions");
	for (p = r.out; sscanf(p, "%d: %llu %llu", &iter, &ins, &cyc) == 3;
	     p = strchr(p, '\n') + 1) {
		n++;
		ASSERT_EQ(iter, n);
		if (n == 1)
			first = ins;
		ASSERT_UEQ(ins, first);
		ASSERT_GE(cyc, ins);
		/* compute(): several instructions per iteration */
		ASSERT_GT(ins, 6 * SEED_ITER);
		if (!strchr(p, '\n'))
			break;
	}
	printf("# Example 1: %d samples of %llu instructions each\n", n, first);
	ASSERT_EQ(n, 20);
}

/*
 * Example 2 with PERFEVENTS=pic0=cycles,pic1=instructions: counter 0 is
 * preset 1000 counts short of overflow, the handler samples and presets
 * again.  Overflow on cycles is what QEMU delivers on time
 * (../shared/notes/pmu-vm.md): the 20 computations' user cycles give one
 * signal per 1000, si_addr is the PC, and each sample is read just past the
 * wrap.
 */
TEST(cpc_example2_overflow)
{
	char *argv[] = { "/tmp/cpc_example2", NULL };
	char *env[] = { "PERFEVENTS=pic0=cycles,pic1=instructions", NULL };
	unsigned long long v0, v1, max0 = 0, min1 = ~0ull, max1 = 0;
	int sigs = 0, same = 0, vals = 0;
	struct hw_run r;
	const char *p;

	NEED_SEEDS();
#ifndef HW_NO_SEEDS
	hw_prog_install(argv[0], hw_blob_hw_cpc_example2,
			hw_blob_hw_cpc_example2_end);
#endif
	hw_run_fifo(argv, env, &r);
	hw_run_show(&r, 4);
	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(r.err, "");
	for (p = r.out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		char addr[32], pc[32];
		int lwp;

		if (sscanf(p, "lwp%d - si_addr %31s ucontext: %%pc %31s", &lwp,
			   addr, pc) == 3) {
			sigs++;
			same += !strcmp(addr, pc);
		} else if (sscanf(p, "0x%llx 0x%llx", &v0, &v1) == 2) {
			vals++;
			if (v0 > max0)
				max0 = v0;
			/* instructions since the previous rebind (preset 0) */
			if (vals > 1 && v1 < min1)
				min1 = v1;
			if (vals > 1 && v1 > max1)
				max1 = v1;
		} else {
			TEST_FAIL("unexpected line: %.*s",
				  (int)strcspn(p, "\n"), p);
		}
	}
	printf("# Example 2: %d signals, %d with si_addr == %%pc, %d samples, "
	       "counter 0 at most %llu past the wrap, counter 1 %llu to %llu "
	       "between signals\n", sigs, same, vals, max0, min1, max1);
	ASSERT_EQ(vals, sigs);
	ASSERT_EQ(same, sigs);
	/*
	 * The computation alone is 20 times more than 6 x SEED_ITER user
	 * instructions (Example 1), as many user cycles: at least one
	 * overflow per 1000 of them.
	 */
	ASSERT_GE(sigs, 20 * 6 * SEED_ITER / 1000);
	/* sampled in the handler, just past the wrap */
	ASSERT_LT(max0, 1000);
	/*
	 * From one rebind to the next overflow: 1000 cycles, so at most as
	 * many instructions, and the same number every time (one cycle per
	 * instruction under -icount shift=0).
	 */
	ASSERT_GT(min1, 0);
	ASSERT_LE(max1, 1000);
	ASSERT_UEQ(min1, max1);
}

/* menu8 [ARGS...]: status 0, its report in r */
static void
menu8(struct hw_run *r, char **args)
{
	char *argv[16] = { "/tmp/menu8" };
	int i = 1;

	NEED_SEEDS();
#ifndef HW_NO_SEEDS
	hw_prog_install(argv[0], hw_blob_hw_menu8, hw_blob_hw_menu8_end);
#endif
	while (*args)
		argv[i++] = *args++;
	argv[i] = NULL;
	hw_run_fifo(argv, NULL, r);
	if (r->status != 0)
		hw_run_show(r, 40);
	ASSERT_EQ(r->status, 0);
}

/* the numbers of the report line that starts with @label */
static int
menu8_row(const char *out, const char *label, double *v, int max)
{
	const char *p = out;
	size_t len = strlen(label);
	int n = 0;

	while (p && strncmp(p, label, len))
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	if (!p)
		TEST_FAIL("no line \"%s\" in:\n%s", label, out);
	p += len;
	while (n < max) {
		char *end;

		v[n] = strtod(p, &end);
		if (end == p)
			break;
		n++;
		p = end;
	}
	return n;
}

/*
 * menu8's loop body is empty: with -Clean the reads' overhead is taken off
 * and the net instruction count of every interval is exactly zero.
 */
TEST(menu8_clean_exact)
{
	char *args[] = { "--e", "instructions:u,cycles:u", "-Clean", "100",
			 "1000", NULL };
	double v[8];
	struct hw_run r;

	menu8(&r, args);
	printf("%s", r.out);
	ASSERT_CONTAINS(r.out, "Command executed: 1000");
	ASSERT_EQ(menu8_row(r.out, "total ", v, 8), 4);
	printf("# -Clean: %g intervals, event 0 total %g\n", v[0], v[2]);
	ASSERT(v[0] == 1000);
	ASSERT(v[2] == 0);
}

/* without -Clean every interval holds the reads' share, the same each time */
TEST(menu8_intervals_equal)
{
	char *args[] = { "--e", "instructions:u,cycles:u", "-Stats", "2",
			 "1000", NULL };
	double tot[8], min[8], max[8], sd[8];
	struct hw_run r;

	menu8(&r, args);
	printf("%s", r.out);
	ASSERT_EQ(menu8_row(r.out, "total ", tot, 8), 4);
	ASSERT_EQ(menu8_row(r.out, "minimum ", min, 8), 3);
	ASSERT_EQ(menu8_row(r.out, "maximum ", max, 8), 3);
	ASSERT_EQ(menu8_row(r.out, "std.dev. ", sd, 8), 3);
	printf("# event 0 per interval: min %g max %g std.dev. %g, total %g\n",
	       min[1], max[1], sd[1], tot[2]);
	ASSERT(min[1] > 0);
	ASSERT(min[1] == max[1]);
	ASSERT(sd[1] == 0);
	ASSERT(tot[2] == 1000 * min[1]);
}

int
main(void)
{
	return test_main(TESTS(
#ifndef __x86_64__
		TEST_CASE(openbsd_pctr_exact)
		TEST_CASE(openbsd_pctr_errors)
#endif
		TEST_CASE(openbsd_rdpmc_thread)
		TEST_CASE(freebsd_perfmon_exact)
		TEST_CASE(cpc_example1_exact)
		TEST_CASE(cpc_example2_overflow)
		TEST_CASE(menu8_clean_exact)
		TEST_CASE(menu8_intervals_equal)));
}
