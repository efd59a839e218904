/* SPDX-License-Identifier: MIT */
/*
 * repro_cpu_clock_short - cpu-clock and task-clock of a thread can count
 * less than the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) over the same
 * window, when the thread is switched out and in within it.
 *
 * The thread spins WINDOW_NS by its CPU clock between two read(2)s of a
 * cpu-clock and a task-clock counter of its own, NR times, with twice as
 * many user-mode spinners as CPUs beside it so that it is switched out now
 * and then; getrusage(RUSAGE_THREAD) counts its switches in each window.
 * The window as the counters saw it encloses the spin, so a counter short
 * of the spin is a difference of the clocks, not of the windows.  The
 * two clocks differ where the thread is being switched in or out: the
 * scheduler's accounting of the thread's time and the perf context's
 * switch are done at different points of the switch (and of a host's
 * steal of the VM's CPU in between), so the shortfall shows in windows
 * with switches only, and grows with the host's load.
 *
 * Passes while the behaviour reproduces: some window's cpu-clock or
 * task-clock came out short of its spin.  Printed: per counter, the short
 * windows, the worst shortfall and its switches, and the short windows
 * that had no switch (expected 0).
 *
 * As seen: cpu-clock and task-clock counters of a thread can count less
 * than the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) over a window that
 * encloses the spin they are compared with, in windows where the thread was
 * switched out and in (never in one without a switch): the scheduler's
 * accounting and the perf context's switch happen at different points of a
 * switch.  600 windows of 3 ms with two spinners per CPU: cpu-clock short
 * in 25, task-clock in 102, worst 2.8 and 5.0 us; a soak under heavier load
 * met cpu-clock 26 us short of a 3 ms spin (test_pmclib), and a trial
 * beside three more spinners 101 us (3.4%) with 2 switches.  Relied on by
 * tests/compat/pmclib/test_pmclib.c (enable_zero_disables_a_counter counts
 * page faults, not a spin); the spin bounds of the compat tests keep 5% or
 * more below the spin.
 */
#include <linux/perf_event.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "repro.h"

#define NR 600
#define WINDOW_NS 3000000ull
#define MAX_SPIN 64

struct tally {
	const char *name;
	int fd, short_nr, short_no_switch;
	uint64_t c0;
	int64_t worst;
	long worst_sw;
};

int
main(void)
{
	struct tally t[2] = {{.name = "cpu-clock"}, {.name = "task-clock"}};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), nspin = 2 * ncpu;
	pid_t spin[MAX_SPIN];
	long sw_total = 0;

	printf("1..1\n");
	if (nspin > MAX_SPIN)
		nspin = MAX_SPIN;
	t[0].fd = repro_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	t[1].fd = repro_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (t[0].fd < 0 || t[1].fd < 0) {
		printf("not ok 1 - perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	for (long i = 0; i < nspin; i++) {
		spin[i] = fork();
		if (spin[i] == 0)
			for (volatile uint64_t x = 0;; x++)
				;
	}
	for (int n = 0; n < NR; n++) {
		long s0 = repro_switches(), s;
		uint64_t a, b, c1;

		for (int k = 0; k < 2; k++)
			if (read(t[k].fd, &t[k].c0, 8) != 8)
				return 1;
		a = repro_ns(CLOCK_THREAD_CPUTIME_ID);
		do
			b = repro_ns(CLOCK_THREAD_CPUTIME_ID);
		while (b - a < WINDOW_NS);
		for (int k = 1; k >= 0; k--) {
			int64_t d;

			if (read(t[k].fd, &c1, 8) != 8)
				return 1;
			d = (int64_t)(c1 - t[k].c0) - (int64_t)(b - a);
			s = repro_switches() - s0;
			if (d < 0) {
				t[k].short_nr++;
				t[k].short_no_switch += s == 0;
			}
			if (d < t[k].worst) {
				t[k].worst = d;
				t[k].worst_sw = s;
			}
		}
		sw_total += repro_switches() - s0;
	}
	for (long i = 0; i < nspin; i++) {
		kill(spin[i], SIGKILL);
		waitpid(spin[i], NULL, 0);
	}
	printf("# %d windows of %llu ns of the thread's CPU clock, %ld "
	       "spinners on %ld CPUs, %ld switches in all\n",
	       NR, (unsigned long long)WINDOW_NS, nspin, ncpu, sw_total);
	for (int k = 0; k < 2; k++)
		printf("# %s: short in %d windows (%d of them without a "
		       "switch); worst %lld ns short (%.2f%% of the window), "
		       "with %ld switches\n",
		       t[k].name, t[k].short_nr, t[k].short_no_switch,
		       (long long)-t[k].worst,
		       -100.0 * (double)t[k].worst / (double)WINDOW_NS,
		       t[k].worst_sw);
	printf("%s 1 - cpu-clock or task-clock short of the thread's CPU "
	       "time\n",
	       t[0].short_nr + t[1].short_nr ? "ok" : "not ok");
	return t[0].short_nr + t[1].short_nr ? 0 : 1;
}
