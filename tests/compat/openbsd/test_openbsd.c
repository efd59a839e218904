/* SPDX-License-Identifier: MIT */
/*
 * test_openbsd.c - /dev/pctr, sysctl(3) and strtonum(3) as OpenBSD
 * programs see them, and pctrstat (a program in pctr(1)'s style) run on
 * this machine.
 *
 * Without a PMU every hardware function fails with ENODEV while the TSC
 * reads.  $PCTR_BSD_EVENTS maps functions to software events, which lets
 * the counting paths run here too.
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/sysctl.h>
#include <machine/cpu.h>
#include <machine/pctr.h>
#include <machine/specialreg.h>

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>

#include "test.h"
#include "../bsd_test.h"

#define FN_C0 (0xc0 | PCTR_U | PCTR_K | PCTR_EN)
#define MAP_C0 "PCTR_BSD_EVENTS=c0=task-clock"

static void
map_c0(void)
{
	setenv("PCTR_BSD_EVENTS", "c0=task-clock", 1);
}

static int
dev(int flags)
{
	int fd = open(_PATH_PCTR, flags);

	if (fd < 0)
		TEST_FAIL("open %s: %s", _PATH_PCTR, strerror(errno));
	return fd;
}

static int
set_fn(int fd, int n, unsigned int fn)
{
	return ioctl(fd, PCIOCS0 + n, &fn) < 0 ? errno : 0;
}

static struct pctrst
rd(int fd)
{
	struct pctrst st;

	memset(&st, 0xa5, sizeof(st));
	if (ioctl(fd, PCIOCRD, &st) < 0)
		TEST_FAIL("PCIOCRD: %s", strerror(errno));
	return st;
}

TEST(tsc_reads_without_counters)
{
	int fd = dev(O_RDONLY);
	struct pctrst a = rd(fd), b;
	pctrval t;

	bsd_spin(2);
	b = rd(fd);
	ASSERT_GT(a.pctr_tsc, 0);
	ASSERT_GT(b.pctr_tsc, a.pctr_tsc);
	for (int i = 0; i < PCTR_NUM; i++) {
		ASSERT_EQ(b.pctr_fn[i], 0);
		ASSERT_EQ(b.pctr_hwc[i], 0);
	}
	t = rdtsc();
	ASSERT_GT(t, b.pctr_tsc);
	ASSERT_EQ(rdpmc(0), 0);
	ASSERT_EQ(close(fd), 0);
}

TEST(set_without_pmu_is_enodev)
{
	int fd;

	if (bsd_has_pmu())
		SKIP("this machine has a PMU");
	fd = dev(O_RDWR);
	for (int n = 0; n < PCTR_NUM; n++)
		ASSERT_EQ(set_fn(fd, n, FN_C0), ENODEV);
	/* as in the driver, ENODEV comes before the other checks */
	ASSERT_EQ(set_fn(fd, 0, 0), ENODEV);
	close(fd);
	fd = dev(O_RDONLY);
	ASSERT_EQ(set_fn(fd, 0, FN_C0 | 0x80000), ENODEV);
	ASSERT_EQ(rd(fd).pctr_fn[0], 0);
	close(fd);
}

TEST(set_needs_write_access)
{
	int fd;

	map_c0();
	fd = dev(O_RDONLY);
	ASSERT_EQ(set_fn(fd, 0, FN_C0), EPERM);
	close(fd);
	fd = dev(O_WRONLY);
	ASSERT_EQ(set_fn(fd, 0, FN_C0), 0);
	close(fd);
}

TEST(reserved_bits_are_einval)
{
	static const unsigned int bad[] = { 0x080000, 0x100000, 0x200000,
					    0x380000 };
	int fd;

	map_c0();
	fd = dev(O_RDWR);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(set_fn(fd, 1, FN_C0 | bad[i]), EINVAL);
	/* a named event has no edge, invert or counter mask */
	ASSERT_EQ(set_fn(fd, 1, FN_C0 | PCTR_E), EINVAL);
	ASSERT_EQ(set_fn(fd, 1, FN_C0 | 2 << PCTR_CM_SHIFT), EINVAL);
	/* a failed set leaves the counter as it was */
	ASSERT_EQ(rd(fd).pctr_fn[1], 0);
	close(fd);
}

TEST(unmapped_function_without_pmu_is_enodev)
{
	int fd;

	if (bsd_has_pmu())
		SKIP("this machine has a PMU");
	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(set_fn(fd, 0, 0x3c | PCTR_U | PCTR_EN), ENODEV);
	close(fd);
}

TEST(counts_and_reads_back)
{
	struct pctrst a, b;
	pctrval r;
	int fd;

	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(set_fn(fd, 2, FN_C0), 0);
	bsd_spin(20);
	a = rd(fd);
	ASSERT_EQ(a.pctr_fn[2], FN_C0);
	ASSERT_GE(a.pctr_hwc[2], 15000000); /* task-clock: nanoseconds */
	ASSERT_EQ(a.pctr_hwc[0], 0);
	bsd_spin(5);
	r = rdpmc(2);
	b = rd(fd);
	ASSERT_GT(r, a.pctr_hwc[2]);
	ASSERT_GE(b.pctr_hwc[2], r);
	ASSERT_GT(b.pctr_tsc, a.pctr_tsc);
	close(fd);
}

TEST(reprogramming_resets_and_zero_turns_off)
{
	struct pctrst st;
	long long t;
	int fd;

	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(set_fn(fd, 0, FN_C0), 0);
	bsd_spin(20);
	/* from zero: far less than the 20 ms before */
	t = bsd_thread_cpu_ns();
	ASSERT_EQ(set_fn(fd, 0, FN_C0), 0);
	st = rd(fd);
	ASSERT_LT(st.pctr_hwc[0], (unsigned long long)bsd_count_limit(t));
	ASSERT_EQ(set_fn(fd, 0, 0), 0);
	st = rd(fd);
	ASSERT_EQ(st.pctr_fn[0], 0);
	ASSERT_EQ(st.pctr_hwc[0], 0);
	close(fd);
}

TEST(without_enable_bit_nothing_counts)
{
	int fd;

	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(set_fn(fd, 3, FN_C0 & ~PCTR_EN), 0);
	/* neither user nor kernel mode: accepted, counts nothing */
	ASSERT_EQ(set_fn(fd, 1, 0xc0 | PCTR_EN), 0);
	bsd_spin(10);
	ASSERT_EQ(rd(fd).pctr_hwc[3], 0);
	ASSERT_EQ(rd(fd).pctr_fn[3], FN_C0 & ~PCTR_EN);
	ASSERT_EQ(rd(fd).pctr_hwc[1], 0);
	close(fd);
}

static void *
burn(void *arg)
{
	bsd_spin(40);
	return arg;
}

TEST(threads_of_the_process_count)
{
	pthread_t t;
	pctrval mine;
	int fd;

	map_c0();
	fd = dev(O_RDWR);
	ASSERT_EQ(set_fn(fd, 0, FN_C0), 0);
	ASSERT_EQ(pthread_create(&t, NULL, burn, NULL), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	mine = rd(fd).pctr_hwc[0];
	ASSERT_GE(mine, 35000000); /* the thread's 40 ms, not ours */
	close(fd);
}

TEST(counters_outlive_the_descriptor)
{
	int fd;

	map_c0();
	fd = dev(O_WRONLY);
	ASSERT_EQ(set_fn(fd, 1, FN_C0), 0);
	ASSERT_EQ(close(fd), 0);
	bsd_spin(5);
	fd = dev(O_RDONLY);
	ASSERT_EQ(rd(fd).pctr_fn[1], FN_C0);
	ASSERT_GT(rd(fd).pctr_hwc[1], 0);
	close(fd);
}

TEST(unknown_request_is_einval)
{
	int fd = dev(O_RDWR), v = 0;

	ASSERT_EQ(ioctl(fd, PCIOCS3 + 1, &v), -1);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(ioctl(fd, FIONREAD, &v), -1);
	ASSERT_EQ(errno, EINVAL);
	close(fd);
}

TEST(other_descriptors_are_not_touched)
{
	int fd = dev(O_RDONLY), p[2], n = -1;
	struct pctrst st = { 0 }; /* handed to the pipe's ioctl below */

	/* close behind the layer's back: the number is reused by a pipe */
	ASSERT_EQ(syscall(SYS_close, fd), 0);
	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(p[0], fd);
	ASSERT_EQ(write(p[1], "abc", 3), 3);
	ASSERT_EQ(ioctl(p[0], FIONREAD, &n), 0);
	ASSERT_EQ(n, 3);
	ASSERT_EQ(ioctl(p[0], PCIOCRD, &st), -1);
	ASSERT_EQ(errno, ENOTTY);
	ASSERT_EQ(close(p[0]), 0);
	ASSERT_EQ(close(p[1]), 0);
	ASSERT_EQ(close(p[1]), -1);
	ASSERT_EQ(errno, EBADF);
	/* ordinary files open as usual, device flags are honoured */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(close(fd), 0);
	ASSERT_EQ(open(_PATH_PCTR, O_RDONLY | O_DIRECTORY), -1);
	ASSERT_EQ(errno, ENOTDIR);
	fd = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	ASSERT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
}

static int
ctl(int a, int b, void *old, size_t *len)
{
	int mib[2] = { a, b };

	return sysctl(mib, 2, old, len, NULL, 0) < 0 ? errno : 0;
}

/* the value of "key" in /proc/cpuinfo's first block */
static int
cpuinfo(const char *key, char *val, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || strncmp(line, key, strlen(key)))
			continue;
		snprintf(val, len, "%s", colon + 2);
		val[strcspn(val, "\n")] = '\0';
		found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

/* a dup()ed descriptor is the same open file, as on BSD */
TEST(dup_is_the_device)
{
	int fd = dev(O_RDWR), d = dup(fd), d2 = fcntl(fd, F_DUPFD, 100);
	struct pctrst st;

	ASSERT_GE(d, 0);
	ASSERT_GE(d2, 100);
	ASSERT_EQ(close(fd), 0);
	ASSERT_EQ(ioctl(d, PCIOCRD, &st), 0);
	ASSERT_GT(st.pctr_tsc, 0);
	ASSERT_EQ(close(d), 0);
	ASSERT_EQ(ioctl(d2, PCIOCRD, &st), 0);
	ASSERT_EQ(close(d2), 0);
	ASSERT_EQ(ioctl(d2, PCIOCRD, &st), -1);
	ASSERT_EQ(errno, EBADF);
}

/* the device is known by its directory's identity, not its spelling */
TEST(path_spellings_are_the_device)
{
	const char *paths[] = { "/dev//pctr", "/dev/./pctr", "//dev/pctr",
				"/dev/../dev/pctr" };
	struct pctrst st;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int fd = open(paths[i], O_RDONLY);

		if (fd < 0 || ioctl(fd, PCIOCRD, &st) < 0)
			TEST_FAIL("%s: %s", paths[i], strerror(errno));
		close(fd);
	}
	ASSERT_EQ(chdir("/dev"), 0);
	ASSERT_GE(close(open("pctr", O_RDONLY)), 0);
	/*
	 * Not /dev: the program's own file of that name, and a name that is
	 * nothing (a private directory: /tmp/pctr may be anyone's file).
	 */
	char dir[] = "/tmp/pctr-openbsd-XXXXXX", path[64], buf[8] = "";
	ASSERT(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/pctr", dir);
	ASSERT_EQ(open(path, O_RDONLY), -1);
	ASSERT_EQ(errno, ENOENT);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "mine", 4), 4);
	ASSERT_EQ(pread(fd, buf, sizeof(buf), 0), 4);
	ASSERT_STR_EQ(buf, "mine");
	ASSERT_EQ(ioctl(fd, PCIOCRD, &st), -1); /* a file, not the device */
	ASSERT_EQ(errno, ENOTTY);
	close(fd);
	unlink(path);
	rmdir(dir);
}

/* the drivers' copyin/copyout: EFAULT, not a crash */
TEST(null_and_bad_arguments_are_efault)
{
	int fd = dev(O_RDWR);
	void *bad = (void *)16;
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			0);

	ASSERT(ro != MAP_FAILED);
	ASSERT_EQ(ioctl(fd, PCIOCRD, NULL), -1);
	ASSERT_EQ(errno, EFAULT);
	ASSERT_EQ(ioctl(fd, PCIOCRD, bad), -1);
	ASSERT_EQ(errno, EFAULT);
	ASSERT_EQ(ioctl(fd, PCIOCRD, ro), -1); /* read-only: not writable */
	ASSERT_EQ(errno, EFAULT);
	ASSERT_EQ(ioctl(fd, PCIOCS0, NULL), -1);
	ASSERT_EQ(errno, EFAULT);
	ASSERT_EQ(ioctl(fd, PCIOCS1, bad), -1);
	ASSERT_EQ(errno, EFAULT);
	munmap(ro, 4096);
	close(fd);
}

/*
 * close() of any descriptor from a signal handler while the program is
 * itself in open/close/ioctl: the wrappers take no lock, so this cannot
 * deadlock (it did at once when they took a mutex).
 */
static volatile sig_atomic_t nr_closed;

static void
close_in_handler(int sig)
{
	int fd = dup(0);

	if (fd >= 0 && close(fd) == 0)
		nr_closed++;
}

TEST(close_in_signal_handler)
{
	struct itimerval it = { { 0, 100 }, { 0, 100 } };
	struct pctrst st;
	int fd = dev(O_RDWR);

	signal(SIGALRM, close_in_handler);
	ASSERT_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
	for (int i = 0; i < 100000; i++) {
		int f = open("/dev/null", O_RDONLY);

		ioctl(fd, PCIOCRD, &st);
		close(f);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("# %d closes in the handler\n", (int)nr_closed);
	ASSERT_GT(nr_closed, 0);
	close(fd);
}

/*
 * fork() from a threaded program while other threads are inside the
 * wrappers: every child can close and use the device (one hung at the
 * 27th fork when the wrappers took a mutex).
 */
static volatile int stop_threads;

static void *
churn(void *arg)
{
	int fd = *(int *)arg;
	struct pctrst st;

	while (!stop_threads) {
		int f = open(_PATH_PCTR, O_RDONLY);

		ioctl(fd, PCIOCRD, &st);
		close(f);
	}
	return NULL;
}

TEST(fork_from_threads)
{
	int fd = dev(O_RDWR);
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, churn, &fd), 0);
	for (int i = 0; i < 100; i++) {
		pid_t pid = fork();
		int st;

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			struct pctrst ps;
			int ok = ioctl(fd, PCIOCRD, &ps) == 0 && close(fd) == 0;
			int f = open(_PATH_PCTR, O_RDONLY);

			ok = ok && f >= 0 && close(f) == 0;
			_exit(ok ? 0 : 1);
		}
		ASSERT_EQ(waitpid(pid, &st, 0), pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			TEST_FAIL("child %d failed: status 0x%x", i, st);
	}
	stop_threads = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	close(fd);
}

/*
 * PCTR_BSD_TARGET=thread: rdpmc() reads a slot, a second mapping of the
 * counter's perf page at an address of its own (compat/openbsd/rdpmc.c).
 * The events here are software ones, on no hardware counter (page index
 * 0), so every read ends in the slow path; what runs is the slots'
 * mappings, their replacement under readers, and fork.  The fast read
 * itself is tested in the guests (tests/hw/test_hw_compat.c,
 * openbsd_rdpmc_thread).
 */
static void
thread_target(void)
{
	map_c0();
	setenv("PCTR_BSD_TARGET", "thread", 1);
}

/* the process's mappings of perf pages now */
static int
perf_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	ASSERT(f != NULL);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "perf_event") != NULL;
	fclose(f);
	return n;
}

TEST(thread_counter_slot_mappings)
{
	struct pctr_target t = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int fd, none, own, one;

	thread_target();
	/* what a set of the same event maps by itself */
	none = perf_maps();
	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_OK(pctr_set_add(set, "task-clock"));
	ASSERT_OK(pctr_set_open(set, &t));
	own = perf_maps() - none;
	pctr_set_free(set);
	fd = dev(O_RDWR);
	ASSERT_EQ(set_fn(fd, 0, FN_C0), 0);
	one = perf_maps();
	printf("# perf mappings: %d, a set's own %d, with counter 0 %d\n",
	       none, own, one);
	/* the set's own and the slot's */
	ASSERT_EQ(one, none + own + 1);
	/* reprogrammed: the slot's page replaced, nothing left behind */
	for (int i = 0; i < 100; i++)
		ASSERT_EQ(set_fn(fd, 0, FN_C0), 0);
	ASSERT_EQ(perf_maps(), one);
	bsd_spin(5);
	ASSERT_GE(rdpmc(0), 4000000);
	ASSERT_LT(rdpmc(0), 60000000000ull);
	/* off: zeros in the slot, the set freed */
	ASSERT_EQ(set_fn(fd, 0, 0), 0);
	ASSERT_EQ(perf_maps(), none);
	ASSERT_EQ(rdpmc(0), 0);
	close(fd);
}

/*
 * A child has no perf mappings (the kernel does not copy them): its
 * rdpmc() reads the parent's counter through the set, and a counter it
 * sets gets a slot page of its own.
 */
TEST(thread_counter_after_fork)
{
	pctrval a;
	int fd, st;
	pid_t pid;

	thread_target();
	fd = dev(O_RDWR);
	ASSERT_EQ(set_fn(fd, 0, FN_C0), 0);
	bsd_spin(5);
	a = rdpmc(0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int ok = rdpmc(0) >= a && set_fn(fd, 1, FN_C0) == 0;

		bsd_spin(5);
		ok = ok && rdpmc(1) >= 4000000 && rdpmc(1) < 60000000000ull;
		ok = ok && set_fn(fd, 1, 0) == 0 && rdpmc(1) == 0;
		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT(WIFEXITED(st));
	ASSERT_EQ(WEXITSTATUS(st), 0);
	ASSERT_GE(rdpmc(0), a);
	ASSERT_EQ(set_fn(fd, 0, 0), 0);
	close(fd);
}

/*
 * Slots replaced while rdpmc() reads them, by another thread and by a
 * signal handler of the reading thread: every read returns a count
 * (task-clock: nanoseconds, under a minute), none faults.  The handler
 * interrupts only the reading loop, which calls nothing but rdpmc():
 * PCIOCSn allocates, and is not async-signal-safe (pctr_openbsd(4)).
 */
static int reprogram_fd;
static volatile int reprogram_done;
static volatile sig_atomic_t nr_handler_sets;

/* SIGALRM blocked from its birth (see below) */
static void *
reprogram(void *arg)
{
	for (int i = 0; i < 2000; i++)
		ASSERT_EQ(set_fn(reprogram_fd, 0, i & 1 ? 0 : FN_C0), 0);
	reprogram_done = 1;
	return arg;
}

/* 100 of them, then the timer off: under valgrind a set takes longer
 * than the timer's period, and the reading loop would only run handlers */
static void
reprogram_in_handler(int sig)
{
	static const struct itimerval off;

	if (nr_handler_sets >= 100)
		return; /* one that was pending as the timer went off */
	nr_handler_sets += set_fn(reprogram_fd, 1, FN_C0) == 0;
	if (nr_handler_sets >= 100)
		setitimer(ITIMER_REAL, &off, NULL);
}

TEST(rdpmc_while_slots_change)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	sigset_t alrm, old;
	long reads = 0;
	pthread_t t;

	thread_target();
	reprogram_fd = dev(O_RDWR);
	ASSERT_EQ(set_fn(reprogram_fd, 1, FN_C0), 0);
	signal(SIGALRM, reprogram_in_handler);
	ASSERT_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
	/*
	 * The thread inherits this mask: blocking SIGALRM as its first
	 * statement would be too late, since the thread runs code before
	 * it (AddressSanitizer's thread set-up frees memory), and a handler
	 * that programs a counter there deadlocked in the allocator
	 */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &alrm, &old), 0);
	ASSERT_EQ(pthread_create(&t, NULL, reprogram, NULL), 0);
	ASSERT_EQ(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
	while (!reprogram_done || nr_handler_sets < 100) {
		ASSERT_LT(rdpmc(0), 60000000000ull);
		ASSERT_LT(rdpmc(1), 60000000000ull);
		reads++;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	printf("# %ld read pairs, %d counters set in the handler\n", reads,
	       (int)nr_handler_sets);
	ASSERT_GT(reads, 0);
	ASSERT_GE(nr_handler_sets, 100);
	ASSERT_EQ(set_fn(reprogram_fd, 0, 0), 0);
	ASSERT_EQ(set_fn(reprogram_fd, 1, 0), 0);
	close(reprogram_fd);
}

TEST(sysctl_machine)
{
	char m[16];
	size_t len = sizeof(m);

	ASSERT_EQ(ctl(CTL_HW, HW_MACHINE, m, &len), 0);
#if defined(__x86_64__)
	ASSERT_STR_EQ(m, "amd64");
#elif defined(__aarch64__)
	ASSERT_STR_EQ(m, "arm64");
#endif
	ASSERT_EQ(len, strlen(m) + 1);
	len = 0;
	ASSERT_EQ(ctl(CTL_HW, HW_MACHINE, NULL, &len), 0);
	ASSERT_EQ(len, strlen(m) + 1);
	len = 2;
	ASSERT_EQ(ctl(CTL_HW, HW_MACHINE, m, &len), ENOMEM);
	len = sizeof(int);
	ASSERT_EQ(ctl(CTL_HW, HW_NCPU, m, &len), 0);
	ASSERT_EQ(*(int *)m, sysconf(_SC_NPROCESSORS_CONF));
}

TEST(sysctl_cpu_identification)
{
	char vendor[64], want[4096];
	int id, feat;
	size_t len = sizeof(vendor);

	/* valgrind answers CPUID with its own CPU, not /proc/cpuinfo's */
	SKIP_UNDER_VALGRIND("CPUID describes valgrind's CPU");
#if !defined(__x86_64__)
	SKIP("cpuid nodes exist on amd64 only");
#endif
	ASSERT_EQ(ctl(CTL_MACHDEP, CPU_CPUVENDOR, vendor, &len), 0);
	ASSERT(cpuinfo("vendor_id", want, sizeof(want)));
	ASSERT_STR_EQ(vendor, want);
	len = sizeof(id);
	ASSERT_EQ(ctl(CTL_MACHDEP, CPU_CPUID, &id, &len), 0);
	ASSERT(cpuinfo("cpu family", want, sizeof(want)));
	/* family: base, plus the extended family when the base is 15 */
	ASSERT_EQ(((id >> 8) & 15) == 15 ? 15 + ((id >> 20) & 0xff)
					  : (id >> 8) & 15,
		  atoi(want));
	ASSERT(cpuinfo("model\t", want, sizeof(want)));
	ASSERT_EQ(((id >> 4) & 15) | ((id >> 12) & 0xf0), atoi(want));
	len = sizeof(feat);
	ASSERT_EQ(ctl(CTL_MACHDEP, CPU_CPUFEATURE, &feat, &len), 0);
	ASSERT(cpuinfo("flags", want, sizeof(want)));
	strcat(want, " ");
	ASSERT_EQ(!!(feat & CPUID_TSC), !!strstr(want, " tsc "));
	ASSERT_EQ(!!(feat & CPUID_FPU), !!strstr(want, "fpu "));
	ASSERT_EQ(!!(feat & CPUID_SSE2), !!strstr(want, " sse2 "));
}

TEST(sysctl_refusals)
{
	int mib[2] = { CTL_HW, HW_MACHINE }, v = 1, bad[2] = { 99, 1 };
	char m[16];
	size_t len = sizeof(m);

	ASSERT_EQ(sysctl(mib, 2, m, &len, &v, sizeof(v)), -1);
	ASSERT_EQ(errno, EPERM);
	ASSERT_EQ(sysctl(bad, 2, m, &len, NULL, 0), -1);
	ASSERT_EQ(errno, EOPNOTSUPP);
	ASSERT_EQ(ctl(CTL_HW, 9999, m, &len), EOPNOTSUPP);
	ASSERT_EQ(sysctl(mib, 1, m, &len, NULL, 0), -1);
	ASSERT_EQ(errno, ENOTDIR);
	ASSERT_EQ(sysctl(mib, 0, m, &len, NULL, 0), -1);
	ASSERT_EQ(errno, EINVAL);
}

static const struct {
	int line;
	const char *s;
	long long min, max, want;
	const char *err;
	int eno;
} strtonum_cases[] = {
	{ __LINE__, "3", 0, 3, 3, NULL, 0 },
	{ __LINE__, "-2", -5, 5, -2, NULL, 0 },
	{ __LINE__, "4", 0, 3, 0, "too large", ERANGE },
	{ __LINE__, "-1", 0, 3, 0, "too small", ERANGE },
	{ __LINE__, "", 0, 3, 0, "invalid", EINVAL },
	{ __LINE__, "1x", 0, 3, 0, "invalid", EINVAL },
	{ __LINE__, "0x1", 0, 3, 0, "invalid", EINVAL },
	{ __LINE__, "2", 5, 1, 0, "invalid", EINVAL },
	{ __LINE__, "99999999999999999999", 0, 3, 0, "too large", ERANGE },
	{ __LINE__, "-99999999999999999999", 0, 3, 0, "too small", ERANGE },
};

TEST(strtonum_table)
{
	for (size_t i = 0; i < sizeof(strtonum_cases) /
				       sizeof(strtonum_cases[0]); i++) {
		const char *err = "unset";
		long long v;

		errno = 12345;
		v = strtonum(strtonum_cases[i].s, strtonum_cases[i].min,
			     strtonum_cases[i].max, &err);
		if (v != strtonum_cases[i].want ||
		    errno != strtonum_cases[i].eno ||
		    (err == NULL) != (strtonum_cases[i].err == NULL) ||
		    (err && strcmp(err, strtonum_cases[i].err)))
			TEST_FAIL("line %d: \"%s\" gave %lld, \"%s\", errno %d",
				  strtonum_cases[i].line, strtonum_cases[i].s,
				  v, err ? err : "(null)", errno);
	}
}

static const char *
tool(void)
{
	const char *t = getenv("PCTR_TOOL");

	if (!t)
		SKIP("PCTR_TOOL is not set: run through meson test");
	return t;
}

TEST(pctrstat_shows_tsc)
{
	char out[4096];

	ASSERT_EQ(bsd_run(NULL, tool(), "", out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, " ctr0 =                0  [---- 00 00 off]");
	ASSERT_CONTAINS(out, " ctr3 = ");
#if defined(__x86_64__)
	ASSERT_CONTAINS(out, "  tsc = ");
#endif
}

TEST(pctrstat_lists)
{
	char out[4096];

	ASSERT_EQ(bsd_run(NULL, tool(), "-l", out, sizeof(out)), 0);
	ASSERT_CONTAINS(out, "c0  instructions retired\n");
}

TEST(pctrstat_set_fails_with_enodev)
{
	char out[4096];

	if (bsd_has_pmu())
		SKIP("this machine has a PMU");
	ASSERT_EQ(bsd_run(NULL, tool(), "-s 0 -f c0 -u", out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "set counter 0: No such device");
}

TEST(pctrstat_set_counts_mapped_event)
{
	char out[4096];

	ASSERT_EQ(bsd_run(MAP_C0, tool(), "-s 1 -f c0 -u", out, sizeof(out)),
		  0);
	ASSERT_CONTAINS(out, " ctr1 = ");
	ASSERT_CONTAINS(out, "[---u c0 00 instructions retired]");
}

TEST(pctrstat_rejects_bad_counter)
{
	char out[4096];

	ASSERT_EQ(bsd_run(NULL, tool(), "-s 4 -f c0", out, sizeof(out)), 1);
	ASSERT_CONTAINS(out, "counter number is too large: 4");
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(tsc_reads_without_counters)
		TEST_CASE(set_without_pmu_is_enodev)
		TEST_CASE(set_needs_write_access)
		TEST_CASE(reserved_bits_are_einval)
		TEST_CASE(unmapped_function_without_pmu_is_enodev)
		TEST_CASE(counts_and_reads_back)
		TEST_CASE(reprogramming_resets_and_zero_turns_off)
		TEST_CASE(without_enable_bit_nothing_counts)
		TEST_CASE(threads_of_the_process_count)
		TEST_CASE(counters_outlive_the_descriptor)
		TEST_CASE(unknown_request_is_einval)
		TEST_CASE(other_descriptors_are_not_touched)
		TEST_CASE(dup_is_the_device)
		TEST_CASE(path_spellings_are_the_device)
		TEST_CASE(null_and_bad_arguments_are_efault)
		TEST_CASE(close_in_signal_handler)
		TEST_CASE(fork_from_threads)
		TEST_CASE(thread_counter_slot_mappings)
		TEST_CASE(thread_counter_after_fork)
		TEST_CASE(rdpmc_while_slots_change)
		TEST_CASE(sysctl_machine)
		TEST_CASE(sysctl_cpu_identification)
		TEST_CASE(sysctl_refusals)
		TEST_CASE(strtonum_table)
		TEST_CASE(pctrstat_shows_tsc)
		TEST_CASE(pctrstat_lists)
		TEST_CASE(pctrstat_set_fails_with_enodev)
		TEST_CASE(pctrstat_set_counts_mapped_event)
		TEST_CASE(pctrstat_rejects_bad_counter)));
}
