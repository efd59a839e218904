/* SPDX-License-Identifier: MIT */
/*
 * test_freebsd.c - /dev/perfmon as FreeBSD programs see it, and pmcloop
 * (a program in perfmon(8)'s style) run on this machine.
 *
 * Without a PMU, PMIOSETUP of a hardware event fails with ENODEV while
 * PMIOTSTAMP reads the TSC.  $PCTR_BSD_EVENTS maps events to software
 * events so that the start/stop/reset protocol runs here too.
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <machine/cpu.h>
#include <machine/perfmon.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>

#include "test.h"
#include "../bsd_test.h"

#define MAP_C0 "PCTR_BSD_EVENTS=c0=task-clock"

static void
map_c0(void)
{
	setenv("PCTR_BSD_EVENTS", "c0=task-clock", 1);
}

static int
dev(int flags)
{
	int fd = open(_PATH_PERFMON, flags);

	if (fd < 0)
		TEST_FAIL("open %s: %s", _PATH_PERFMON, strerror(errno));
	return fd;
}

static int
req(int fd, unsigned long r, void *arg)
{
	return ioctl(fd, r, arg) < 0 ? errno : 0;
}

static int
setup(int fd, int num, int flags)
{
	struct pmc pmc;

	memset(&pmc, 0, sizeof(pmc));
	pmc.pmc_num = num;
	pmc.pmc_event = 0xc0;
	pmc.pmc_flags = flags;
	return req(fd, PMIOSETUP, &pmc);
}

static quad_t
value(int fd, int num)
{
	struct pmc_data d = { .pmcd_num = num, .pmcd_value = -1 };

	if (ioctl(fd, PMIOREAD, &d) < 0)
		TEST_FAIL("PMIOREAD %d: %s", num, strerror(errno));
	return d.pmcd_value;
}

TEST(tstamp_reads_without_counters)
{
	struct pmc_tstamp a, b;
	int fd = dev(O_RDONLY);

	ASSERT_EQ(req(fd, PMIOTSTAMP, &a), 0);
	bsd_spin(2);
	ASSERT_EQ(req(fd, PMIOTSTAMP, &b), 0);
	ASSERT_GT(b.pmct_value, a.pmct_value);
	ASSERT_GT(a.pmct_rate, 0);
	ASSERT_EQ(a.pmct_rate, (int)(pctr_tsc_hz() / 1000000));
	close(fd);
}

TEST(setup_without_pmu_is_enodev)
{
	int fd;

	if (bsd_has_pmu())
		SKIP("this machine has a PMU");
	fd = dev(O_RDWR);
	ASSERT_EQ(setup(fd, 0, PMCF_USR), ENODEV);
	ASSERT_EQ(setup(fd, 1, PMCF_USR | PMCF_OS), ENODEV);
	close(fd);
}

TEST(access_rules)
{
	int fd, fd2, num = 0;

	map_c0();
	fd = dev(O_RDONLY);
	ASSERT_EQ(setup(fd, 0, PMCF_USR), EPERM);
	ASSERT_EQ(req(fd, PMIOSTART, &num), EPERM);
	ASSERT_EQ(req(fd, PMIOSTOP, &num), EPERM);
	ASSERT_EQ(req(fd, PMIORESET, &num), EPERM);
	fd2 = dev(O_RDWR);
	/* one writer at a time */
	ASSERT_EQ(open(_PATH_PERFMON, O_WRONLY), -1);
	ASSERT_EQ(errno, EBUSY);
	ASSERT_EQ(setup(fd2, 0, PMCF_USR), 0);
	/* readers may read what the writer set up */
	ASSERT_GE(value(fd, 0), 0);
	close(fd2);
	fd2 = dev(O_WRONLY);
	close(fd2);
	close(fd);
}

TEST(bad_numbers_and_unset_counters)
{
	struct pmc_data d = { .pmcd_num = NPMC };
	struct pmc pmc = { .pmc_num = 1 };
	int fd, num = -1;

	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(setup(fd, NPMC, PMCF_USR), EINVAL);
	ASSERT_EQ(setup(fd, -1, PMCF_USR), EINVAL);
	ASSERT_EQ(req(fd, PMIOSTART, &num), EINVAL);
	ASSERT_EQ(req(fd, PMIOREAD, &d), EINVAL);
	num = 1;
	ASSERT_EQ(req(fd, PMIOSTART, &num), EBUSY);
	ASSERT_EQ(req(fd, PMIOGET, &pmc), EBUSY);
	d.pmcd_num = 1;
	ASSERT_EQ(req(fd, PMIOREAD, &d), EBUSY);
	ASSERT_EQ(req(fd, _IOW('5', 99, int), &num), ENOTTY);
	/* pin control cannot be emulated */
	ASSERT_EQ(setup(fd, 0, PMCF_USR | PMCF_PC), EINVAL);
	close(fd);
}

TEST(start_stop_reset_protocol)
{
	struct pmc pmc = { .pmc_num = 0 };
	long long t;
	quad_t a, b;
	int fd, num = 0;

	map_c0();
	fd = dev(O_RDWR);
	/* PMCF_EN and PMCF_INT are the driver's: dropped */
	ASSERT_EQ(setup(fd, 0, PMCF_USR | PMCF_OS | PMCF_EN | PMCF_INT), 0);
	ASSERT_EQ(req(fd, PMIOGET, &pmc), 0);
	ASSERT_HEX_EQ(pmc.pmc_val, 0xc0 | (PMCF_USR | PMCF_OS) << 16);
	/* set up stopped and zero */
	bsd_spin(5);
	ASSERT_EQ(value(fd, 0), 0);
	ASSERT_EQ(req(fd, PMIOSTART, &num), 0);
	ASSERT_EQ(req(fd, PMIOGET, &pmc), 0);
	ASSERT_NE(pmc.pmc_flags & PMCF_EN, 0);
	bsd_spin(20);
	ASSERT_EQ(req(fd, PMIOSTOP, &num), 0);
	ASSERT_EQ(req(fd, PMIOGET, &pmc), 0);
	ASSERT_EQ(pmc.pmc_flags & PMCF_EN, 0);
	a = value(fd, 0);
	ASSERT_GE(a, 15000000);
	bsd_spin(10);
	b = value(fd, 0);
	ASSERT_EQ(a, b); /* stopped: frozen */
	ASSERT_EQ(req(fd, PMIORESET, &num), 0);
	ASSERT_EQ(value(fd, 0), 0);
	/* from zero: far less than the 20 ms and more counted before
	 * (bsd_count_limit() says what may stretch it) */
	t = bsd_thread_cpu_ns();
	ASSERT_EQ(req(fd, PMIOSTART, &num), 0);
	bsd_spin(5);
	a = value(fd, 0);
	t = bsd_count_limit(t);
	ASSERT_GT(a, 0);
	ASSERT_LT(a, t);
	close(fd);
}

TEST(reset_while_running_continues_from_zero)
{
	long long t;
	quad_t a;
	int fd, num = 1;

	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(setup(fd, 1, PMCF_USR | PMCF_OS), 0);
	ASSERT_EQ(req(fd, PMIOSTART, &num), 0);
	bsd_spin(20);
	/* from zero: far less than the 20 ms before */
	t = bsd_thread_cpu_ns();
	ASSERT_EQ(req(fd, PMIORESET, &num), 0);
	bsd_spin(2);
	a = value(fd, 1);
	ASSERT_LT(a, bsd_count_limit(t));
	ASSERT_GT(value(fd, 1), 0);
	close(fd);
}

TEST(neither_mode_counts_nothing)
{
	int fd, num = 0;

	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(setup(fd, 0, 0), 0);
	ASSERT_EQ(req(fd, PMIOSTART, &num), 0);
	bsd_spin(5);
	ASSERT_EQ(value(fd, 0), 0);
	close(fd);
}

TEST(closing_the_writer_releases_counters)
{
	struct pmc pmc = { .pmc_num = 0 };
	int fd;

	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(setup(fd, 0, PMCF_USR), 0);
	ASSERT_EQ(close(fd), 0);
	fd = dev(O_RDONLY);
	ASSERT_EQ(req(fd, PMIOGET, &pmc), EBUSY);
	close(fd);
}

/*
 * A profiler's SIGPROF handler that lands in the program's PMIOREAD and
 * closes device after device there: nine times it opens the device for
 * writing, sets up both counters and closes it, retiring 18 sets while
 * the read it interrupted holds its reader's place.  Retiring once parked
 * them in 16 places and, at the 17th, spun until the reader left, which
 * it cannot before the handler returns.  Every handler must return: 50
 * of them, one every 10 ms of the process's CPU time (a handler takes a
 * few ms of it: a shorter interval would leave the program none), the
 * whole within an alarm of 30 s that ends the program with how far it
 * got.
 */
static volatile sig_atomic_t handled, handler_err;

static void
close_eighteen(int sig)
{
	int save = errno;

	(void)sig;
	for (int i = 0; i < 9; i++) {
		struct pmc pmc = { .pmc_event = 0xc0, .pmc_flags = PMCF_USR };
		int fd = open(_PATH_PERFMON, O_RDWR);

		if (fd < 0) {
			handler_err = errno;
			break;
		}
		for (pmc.pmc_num = 0; pmc.pmc_num < 2; pmc.pmc_num++)
			if (ioctl(fd, PMIOSETUP, &pmc) < 0)
				handler_err = errno;
		close(fd);
	}
	handled++;
	errno = save;
}

static void
hung(int sig)
{
	char msg[96];
	int n = snprintf(msg, sizeof(msg), "# stuck after %d handlers of 50\n",
			 (int)handled);

	(void)sig;
	if (write(2, msg, (size_t)n) < 0)
		_exit(3);
	_exit(2);
}

TEST(handler_closing_many_devices_during_a_read_returns)
{
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct timespec t0, t1;
	struct pmc_data d;
	long reads = 0, cost_us;
	int fd;

	map_c0();
	fd = dev(O_RDONLY);
	/*
	 * A tick of the profiling timer every 10 ms of CPU time, or four
	 * times what one handler costs where that is more: a handler that
	 * took the whole tick (valgrind's, 30 times slower) would leave the
	 * reads no time at all, and the test would measure that instead.
	 */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	close_eighteen(SIGPROF);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	handled = 0;
	cost_us = (t1.tv_sec - t0.tv_sec) * 1000000 +
		  (t1.tv_nsec - t0.tv_nsec) / 1000;
	if (4 * cost_us > it.it_interval.tv_usec) {
		it.it_interval.tv_sec = 4 * cost_us / 1000000;
		it.it_interval.tv_usec = 4 * cost_us % 1000000;
		it.it_value = it.it_interval;
	}
	printf("# a handler costs %ld us of CPU; a tick every %ld us\n",
	       cost_us, (long)(it.it_interval.tv_sec * 1000000 +
			       it.it_interval.tv_usec));
	signal(SIGALRM, hung);
	signal(SIGPROF, close_eighteen);
	/* 50 ticks take 50 intervals of CPU time: three times that, and 30 s */
	alarm(30 + (unsigned)(150 * (it.it_interval.tv_sec * 1000000 +
				     it.it_interval.tv_usec) / 1000000));
	ASSERT_EQ(setitimer(ITIMER_PROF, &it, NULL), 0);
	while (handled < 50) {
		d.pmcd_num = 0;
		ioctl(fd, PMIOREAD, &d); /* EBUSY between the handlers */
		reads++;
	}
	memset(&it, 0, sizeof(it));
	ASSERT_EQ(setitimer(ITIMER_PROF, &it, NULL), 0);
	alarm(0);
	printf("# %d handlers returned, %ld reads\n", (int)handled, reads);
	ASSERT_EQ(handler_err, 0);
	close(fd);
}

/*
 * A dup()ed writer is the same open file: the counters stay until the
 * last of its descriptors closes, then the next writer may open (the
 * driver's close runs once, at the last close).
 */
TEST(dup_keeps_the_writer_open)
{
	struct pmc pmc = { .pmc_num = 0 };
	int fd, d, w;

	map_c0();
	fd = dev(O_RDWR);
	d = dup(fd);
	ASSERT_EQ(setup(fd, 0, PMCF_USR), 0);
	ASSERT_EQ(close(fd), 0);
	ASSERT_EQ(req(d, PMIOGET, &pmc), 0); /* still set up */
	ASSERT_EQ(open(_PATH_PERFMON, O_RDWR), -1); /* one writer */
	ASSERT_EQ(errno, EBUSY);
	ASSERT_EQ(close(d), 0);
	w = dev(O_RDWR);
	ASSERT_EQ(req(w, PMIOGET, &pmc), EBUSY); /* released */
	close(w);
}

/* the process's open descriptors, from /proc/self/fd */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ASSERT(d != NULL);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * A program that opens the device, sets it up and closes it, again and
 * again (a profiler's loop), holds no more descriptors at the end than
 * after the first round: the sets a close retires are freed by the next
 * setup.  Before, a setup of a counter with no set freed nothing, and
 * every round kept its two sets' descriptors (the signal-handler case
 * above then grew to thousands of them and hung in its scans).
 */
TEST(reopening_frees_what_closing_retired)
{
	int first = 0;

	map_c0();
	for (int i = 0; i < 200; i++) {
		int fd = dev(O_RDWR);

		ASSERT_EQ(setup(fd, 0, PMCF_USR), 0);
		ASSERT_EQ(setup(fd, 1, PMCF_USR), 0);
		ASSERT_EQ(close(fd), 0);
		if (i == 0)
			first = open_fds();
	}
	printf("# open descriptors after round 1: %d, after 200: %d\n",
	       first, open_fds());
	ASSERT_LE(open_fds(), first + 2);
}

TEST(null_and_bad_arguments_are_efault)
{
	int fd = dev(O_RDWR);

	ASSERT_EQ(req(fd, PMIOSETUP, NULL), EFAULT);
	ASSERT_EQ(req(fd, PMIOGET, NULL), EFAULT);
	ASSERT_EQ(req(fd, PMIOSTART, NULL), EFAULT);
	ASSERT_EQ(req(fd, PMIOREAD, (void *)8), EFAULT);
	ASSERT_EQ(req(fd, PMIOTSTAMP, NULL), EFAULT);
	close(fd);
	fd = open("/dev//perfmon", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(req(fd, PMIOGET, NULL), EFAULT);
	close(fd);
}

static const char *
tool(void)
{
	const char *t = getenv("PCTR_TOOL");

	if (!t)
		SKIP("PCTR_TOOL is not set: run through meson test");
	return t;
}

TEST(pmcloop_fails_with_enodev)
{
	char out[4096];

	if (bsd_has_pmu())
		SKIP("this machine has a PMU");
	ASSERT_EQ(bsd_run(NULL, tool(), "-u 0xc0", out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "ioctl(PMIOSETUP): No such device");
}

TEST(pmcloop_samples_mapped_event)
{
	char out[4096], want[64];

	ASSERT_EQ(bsd_run(MAP_C0, tool(), "-u -o -l 3 -c true 0xc0", out,
			  sizeof(out)),
		  0);
	ASSERT_CONTAINS(out, "1: ");
	ASSERT_CONTAINS(out, "3: ");
	ASSERT_CONTAINS(out, "mean: ");
	/*
	 * The rate is the TSC's in whole MHz; a calibrated frequency can
	 * fall either side of a MHz boundary from one process to the next.
	 */
	const char *at = strstr(out, "clocks (at ");
	int mhz = 0;

	(void)want;
	ASSERT(at);
	ASSERT_EQ(sscanf(at, "clocks (at %d-MHz): ", &mhz), 1);
	ASSERT_LE(abs(mhz - (int)(pctr_tsc_hz() / 1000000)), 1);
	/* system() forks: the child's time is not the process's */
	ASSERT(!strstr(out, "1: 0\n"));
}

TEST(pmcloop_usage)
{
	char out[4096];

	ASSERT_EQ(bsd_run(NULL, tool(), "-n 2 0xc0", out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "2: must be between 0 and 1");
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(tstamp_reads_without_counters)
		TEST_CASE(setup_without_pmu_is_enodev)
		TEST_CASE(access_rules)
		TEST_CASE(bad_numbers_and_unset_counters)
		TEST_CASE(start_stop_reset_protocol)
		TEST_CASE(reset_while_running_continues_from_zero)
		TEST_CASE(neither_mode_counts_nothing)
		TEST_CASE(closing_the_writer_releases_counters)
		TEST_CASE(dup_keeps_the_writer_open)
		TEST_CASE_TIMEOUT(
			handler_closing_many_devices_during_a_read_returns, 60)
		TEST_CASE(reopening_frees_what_closing_retired)
		TEST_CASE(null_and_bad_arguments_are_efault)
		TEST_CASE(pmcloop_fails_with_enodev)
		TEST_CASE(pmcloop_samples_mapped_event)
		TEST_CASE(pmcloop_usage)));
}
